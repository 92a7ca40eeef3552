package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"
)

// The suite of the assistant, as a client project keeps it: it runs against the recordings in
// testdata/recordings, committed with the code, and fails on any request they do not hold. To
// re-record them from a deployment:
//
//	API_KEY=... go test ./examples/messages-record-replay -run TestWeatherAssistant -record https://deployment.example
var record = flag.String("record", "", "re-record testdata/recordings from the deployment at this base URL, with the key in API_KEY")

const recordings = "testdata/recordings"

func TestWeatherAssistant(t *testing.T) {
	cfg := fake.TapeConfig{Replay: recordings, OnMiss: fake.OnMissError}
	key := "any-key" // a replay needs a credential, not a real one
	if *record != "" {
		cfg = fake.TapeConfig{Upstream: *record, Record: recordings}
		key = os.Getenv("API_KEY")
	}
	got := assistant(t, cfg, key)
	want, err := os.ReadFile("testdata/output.txt")
	if err != nil {
		t.Fatal(err)
	}
	if *record != "" {
		want = []byte(got)
		if err := os.WriteFile("testdata/output.txt", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got != string(want) {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

// TestRecordThenReplay is the whole workflow on loopback: a second fake stands in for the
// deployment, the suite records from it, and replays with it gone. The same output both times,
// and the replay never needs the deployment.
func TestRecordThenReplay(t *testing.T) {
	dir := t.TempDir()
	deployment := fake.NewTestServer(t)
	recorded := assistant(t, fake.TapeConfig{Upstream: deployment.URL, Record: dir}, fake.DefaultAPIKey)
	deployment.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "messages-*.json"))
	if len(files) != 2 {
		t.Fatalf("recorded %v; want the two turns", files)
	}
	replayed := assistant(t, fake.TapeConfig{Replay: dir, OnMiss: fake.OnMissError}, "any-key")
	if replayed != recorded || !strings.Contains(replayed, "tool call get_weather(") {
		t.Errorf("recorded:\n%s\nreplayed:\n%s", recorded, replayed)
	}
	t.Log("\n" + replayed)
}

// assistant runs the assistant against a fake with the tape cfg and returns what it printed.
func assistant(t *testing.T, cfg fake.TapeConfig, key string) string {
	t.Helper()
	tape, err := fake.OpenTape(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := fake.NewTestServer(t, fake.WithTape(tape))
	var out strings.Builder
	if err := run(ts.Server.Client(), ts.URL, key, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
