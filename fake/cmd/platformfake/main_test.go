package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fixtures"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine to write while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRunServesAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-max-namespaces", "7"}, os.Getenv, pw, &stderr)
	}()

	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line = %q, want \"listening on http://ADDR\"", line)
	}
	for _, path := range []string{"/v1/models/assistant-opus-4-7", "/ns/t1/v1/models/assistant-opus-4-7"} {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer test-api-key")
		req.Header.Set("vendor-version", "2023-06-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: status = %d", path, resp.StatusCode)
		}
	}
	resp, err := http.Get(base + "/_fake/namespaces")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"max":7`) || !strings.Contains(string(body), `"name":"t1"`) {
		t.Errorf("GET /_fake/namespaces = %s: want namespace t1 and the -max-namespaces bound 7", body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after shutdown", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
	if log := stderr.String(); !strings.Contains(log, "path=/v1/models/assistant-opus-4-7") || strings.Contains(log, "test-api-key") {
		t.Fatalf("request log = %q: want the path and never the credential", log)
	}
	if log := stderr.String(); !strings.Contains(log, "namespace=t1") {
		t.Errorf("request log = %q: want the namespace of a request made in one", log)
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "organizations.json"), []byte(`{"organizations": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A data set copied without organizations.json is refused at start: no credential would work.
	noOrgs := t.TempDir()
	models, err := fs.ReadFile(fixtures.FS(), "models.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(noOrgs, "models.json"), models, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-fixtures", dir}, "organizations.json"},
		{[]string{"-fixtures", noOrgs}, "no credential would work"},
		{[]string{"-fixtures", filepath.Join(dir, "missing")}, "missing"},
		{[]string{"-addr", "not-an-address"}, "not-an-address"},
		{[]string{"-nope"}, "flag provided but not defined"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-max-namespaces", "0"}, "-max-namespaces: want at least 1"},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), tc.args, os.Getenv, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run %v: err = %v, want it to mention %q", tc.args, err, tc.want)
		}
	}
}
