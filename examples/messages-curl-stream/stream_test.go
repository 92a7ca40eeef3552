// Package messagescurlstream holds a shell example, stream.sh, and the test that runs it with
// curl against the fake.
package messagescurlstream

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"
)

// TestStreamScript runs stream.sh against the fake and checks the event grammar it prints.
func TestStreamScript(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	ts := fake.NewTestServer(t)
	cmd := exec.Command("sh", "stream.sh")
	cmd.Env = append(cmd.Environ(), "BASE_URL="+ts.URL, "API_KEY=test-api-key")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("stream.sh: %v\n%s", err, out)
	}
	t.Log("\n" + string(out))
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if name, ok := strings.CutPrefix(line, "event: "); ok && (len(names) == 0 || names[len(names)-1] != name) {
			names = append(names, name)
		}
	}
	want := "message_start ping content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}
