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

func TestFirstDifference(t *testing.T) {
	if got := firstDifference("a\nb\nc", "a\nx\nc"); got != `line 2: got "b", want "x"` {
		t.Errorf("firstDifference = %s", got)
	}
	if got := firstDifference("a\n", "a\nmore"); got != `line 2: got "", want "more"` {
		t.Errorf("firstDifference, shorter = %s", got)
	}
}
