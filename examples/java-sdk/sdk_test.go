// Package javasdk holds a Maven project whose JUnit suite runs the official Java SDK
// (com.anthropic:anthropic-java, pinned in pom.xml) against the fake's binary, and the test that
// runs it as a Java user would: mvn test.
package javasdk

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestJavaSDK runs mvn -q -B test with the fake's binary: $PLATFORMFAKE_BINARY (make passes the
// one it builds), else one this test builds. Maven's first run downloads the SDK, JUnit and its
// plugins into ~/.m2; later runs read them from there.
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
	cmd := exec.Command(mvn, "-q", "-B", "test", "-Dplatformfake.binary="+bin)
	cmd.Env = sdkFreeEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mvn test: %v\n%s", err, out)
	}
	t.Logf("mvn test passed\n%s", out)
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
