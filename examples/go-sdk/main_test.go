package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"testing"

	"github.com/platformkit/platformkit/fake"
)

var update = flag.Bool("update", false, "rewrite testdata/output.txt with this run's output")

// TestOutput runs the example against a new in-process fake: its output must equal
// testdata/output.txt, since the fake makes every line of it deterministic.
func TestOutput(t *testing.T) {
	ts := fake.NewTestServer(t)
	var out bytes.Buffer
	if err := run(context.Background(), &out, newClient(ts.URL)); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("testdata/output.txt", out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/output.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("output:\n%s\nwant (testdata/output.txt):\n%s", out.Bytes(), want)
	}
}
