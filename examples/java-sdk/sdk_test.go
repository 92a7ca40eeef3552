// Package javasdk holds a Maven project whose JUnit suite runs the official Java SDK
// (com.anthropic:anthropic-java, pinned in pom.xml) against the fake through its Java helper
// (packaging/java), and the test that runs it as a Java user would: mvn test.
package javasdk

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestJavaSDK installs the Java helper (dev.platformkit:platformkit-fake) into the local Maven
// repository, as make java-helper does, carrying the fake's binary: $PLATFORMFAKE_BINARY (make
// passes the one it builds), else one this test builds; then it runs mvn -q -B test here. Maven's
// first run downloads the SDK, JUnit and its plugins into ~/.m2; later runs read them from there.
func TestJavaSDK(t *testing.T) {
	_, errJava := exec.LookPath("java")
	mvn, errMvn := exec.LookPath("mvn")
	if errJava != nil || errMvn != nil {
		t.Skip("SKIPPED: java and mvn are needed to run examples/java-sdk (the official Java SDK), and at least one is not installed")
	}
	bin := os.Getenv("PLATFORMFAKE_BINARY")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "platformfake")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/platformkit/platformkit/fake/cmd/platformfake").CombinedOutput(); err != nil {
			t.Fatalf("building the binary: %v\n%s", err, out)
		}
	}
	installHelper(t, mvn, bin)
	cmd := exec.Command(mvn, "-q", "-B", "test")
	cmd.Env = sdkFreeEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mvn test: %v\n%s", err, out)
	}
	t.Logf("mvn test passed\n%s", out)
}

// installHelper installs packaging/java into the local Maven repository without running its
// tests (make packages runs them), with bin as the binary it carries for this machine: the
// bundle directory is a temporary one (-Dplatformfake.bundle), so nothing is written into the
// checkout but Maven's target/.
func installHelper(t *testing.T, mvn, bin string) {
	t.Helper()
	bundle := t.TempDir()
	dir := filepath.Join(bundle, runtime.GOOS+"-"+runtime.GOARCH)
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := "platformfake"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mvn, "-q", "-B", "install", "-Dmaven.test.skip=true", "-Dplatformfake.bundle="+bundle)
	cmd.Dir = filepath.Join("..", "..", "packaging", "java")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mvn install of packaging/java: %v\n%s", err, out)
	}
}

// sdkFreeEnv is the environment without the variables the SDK would read (ANTHROPIC_*): the
// suite configures its clients with a base URL and a key only.
func sdkFreeEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ANTHROPIC_") {
			env = append(env, kv)
		}
	}
	return env
}
