package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPinned: the pins read from the forms go.mod and package.json write them in.
func TestPinned(t *testing.T) {
	dir := t.TempDir()
	mod := filepath.Join(dir, "go.mod")
	if err := os.WriteFile(mod, []byte("module x\n\nrequire (\n\tgithub.com/a/b v1.2.3\n\tgithub.com/a/b/v2 v2.15.0 // indirect\n)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for module, want := range map[string]string{"github.com/a/b": "v1.2.3", "github.com/a/b/v2": "v2.15.0"} {
		if got, err := goModRequire(mod, module); err != nil || got != want {
			t.Errorf("goModRequire(%s) = %q, %v; want %q", module, got, err, want)
		}
	}
	if _, err := goModRequire(mod, "github.com/a"); err == nil {
		t.Errorf("goModRequire of a module not required: no error")
	}
	pkg := filepath.Join(dir, "package.json")
	if err := os.WriteFile(pkg, []byte(`{"dependencies": {"@anthropic-ai/sdk": "1.14.0"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := npmPinned(pkg, "@anthropic-ai/sdk"); err != nil || got != "1.14.0" {
		t.Errorf("npmPinned = %q, %v", got, err)
	}
}

// TestPinnedPythonAndJava: the pins read from the forms requirements files and pom.xml write them in,
// and the newest release from what pip index versions prints.
func TestPinnedPythonAndJava(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "requirements.txt")
	if err := os.WriteFile(req, []byte("annotated-types==0.8.0\nanthropic==2.14.0\nanthropic-extra==9.9.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := requirementsPin(req, "anthropic"); err != nil || got != "2.14.0" {
		t.Errorf("requirementsPin = %q, %v; want 2.14.0", got, err)
	}
	pom := filepath.Join(dir, "pom.xml")
	if err := os.WriteFile(pom, []byte("<dependency>\n  <groupId>com.anthropic</groupId>\n  <artifactId>anthropic-java</artifactId>\n  <version>3.14.0</version>\n</dependency>\n<dependency><artifactId>junit-jupiter</artifactId><version>5.11.0</version></dependency>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := pomVersion(pom, "anthropic-java"); err != nil || got != "3.14.0" {
		t.Errorf("pomVersion = %q, %v; want 3.14.0", got, err)
	}
	out := "WARNING: pip index is currently an experimental command.\nanthropic (2.15.1)\nAvailable versions: 2.15.1, 2.14.0\n"
	if got, err := pipIndexLatest(out, "anthropic"); err != nil || got != "2.15.1" {
		t.Errorf("pipIndexLatest = %q, %v; want 2.15.1", got, err)
	}
	if _, err := pipIndexLatest("ERROR: No matching distribution found for anthropic\n", "anthropic"); err == nil {
		t.Error("pipIndexLatest of pip's error: no error")
	}
}

func TestFirstDifference(t *testing.T) {
	if got := firstDifference("a\nb\nc", "a\nx\nc"); got != `line 2: got "b", want "x"` {
		t.Errorf("firstDifference = %s", got)
	}
	if got := firstDifference("a\n", "a\nmore"); got != `line 2: got "", want "more"` {
		t.Errorf("firstDifference, shorter = %s", got)
	}
}
