package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fixtures"
	"github.com/platformkit/platformkit/schemas"
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
	coverageFile := filepath.Join(t.TempDir(), "coverage.json")
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-max-namespaces", "7", "-coverage-on-exit", coverageFile}, os.Getenv, pw, &stderr)
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
	// The coverage file holds both requests, the one made in namespace t1 included.
	data, err := os.ReadFile(coverageFile)
	if err != nil {
		t.Fatalf("-coverage-on-exit wrote no file: %v", err)
	}
	if err := schemas.Validate("control/coverage", data, schemas.Strict); err != nil {
		t.Fatalf("the coverage file: %v", err)
	}
	got := gjson.GetBytes(data, `operations.#(operation=="GET /v1/models/:model_id").requests`).Int()
	if scope := gjson.GetBytes(data, "scope").String(); scope != "server" || got != 2 {
		t.Errorf("coverage file: scope %q, %d requests of GET /v1/models/:model_id; want server, 2", scope, got)
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	// A recording whose answer is not a model list is refused at start, with its file and field.
	brokenRecording := t.TempDir()
	broken := `{"request": {"method": "GET", "path": "/v1/models"}, "response": {"status": 200, "body": {"has_more": false, "first_id": null, "last_id": null}}}`
	if err := os.WriteFile(filepath.Join(brokenRecording, "models-x.json"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
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
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-max-namespaces", "0"}, "-max-namespaces: want at least 1"},
		{[]string{"-max-conns", "0"}, "-max-conns: want at least 1"},
		{[]string{"-retry-after-scale", "0"}, "-retry-after-scale: scale: must be more than 0 and at most 1 (1 sends the true waits), got 0"},
		{[]string{"-retry-after-scale", "0.0000001"}, "-retry-after-scale: scale: must be a whole number of millionths"},
		{[]string{"-wall-clock", "-retry-after-scale", "0.5"}, "-retry-after-scale: a server on the wall clock sends the true waits"},
		{[]string{"-idle-timeout", "0s"}, "-idle-timeout: want a positive duration"},
		{[]string{"-shutdown-grace", "0s"}, "-shutdown-grace: want a positive duration"},
		{[]string{"-snapshot-to", brokenRecording}, "-snapshot-to: snapshot: " + filepath.Join(brokenRecording, "models-x.json") + " is not a file of a snapshot"},
		{[]string{"-coverage-on-exit", filepath.Join(dir, "missing", "c.json")}, "-coverage-on-exit: the directory"},
		{[]string{"-upstream", "http://127.0.0.1:1"}, "-upstream: only with -record or -replay"},
		{[]string{"-on-miss", "error"}, "-on-miss: only with -record or -replay"},
		{[]string{"-record", t.TempDir()}, "upstream: recording needs the URL"},
		{[]string{"-record", t.TempDir(), "-upstream", "http://127.0.0.1:1", "-on-miss", "error"}, "-on-miss: only with -replay"},
		{[]string{"-replay", t.TempDir(), "-on-miss", "sometimes"}, `"sometimes" is not one of model, error, upstream`},
		{[]string{"-replay", t.TempDir(), "-replay-speed", "-2"}, "speed: want 0"},
		{[]string{"-replay", brokenRecording, "-on-miss", "error"}, filepath.Join(brokenRecording, "models-x.json") + ": response.body.data: field required"},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), tc.args, os.Getenv, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run %v: err = %v, want it to mention %q", tc.args, err, tc.want)
		}
	}
}

// Issue 27, item 12: -h failed with "flag: help requested", an unknown flag's error was printed
// twice, the usage did not say what the command is, and there was no -version.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		wantErr    error
		wantStdout []string
		wantStderr []string
	}{
		{"help", []string{"-h"}, nil,
			[]string{"platformfake serves the fake Platform API", "Usage: platformfake [flags]", "-addr string", "-version"}, nil},
		{"help, long form", []string{"--help"}, nil, []string{"Usage: platformfake [flags]"}, nil},
		{"unknown flag", []string{"-nope"}, errUsage, nil,
			[]string{"flag provided but not defined: -nope\nusage: platformfake [flags]; platformfake -h lists them\n"}},
		{"bad value", []string{"-max-conns", "many"}, errUsage, nil, []string{`invalid value "many" for flag -max-conns`}},
		{"version", []string{"-version"}, nil, []string{"platformfake devel", "go1."}, nil},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tc.args, os.Getenv, &stdout, &stderr)
		if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
			t.Errorf("%s: run %v: err = %v, want %v", tc.name, tc.args, err, tc.wantErr)
		}
		for _, want := range tc.wantStdout {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%s: stdout = %q, want it to contain %q", tc.name, stdout.String(), want)
			}
		}
		for _, want := range tc.wantStderr {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%s: stderr = %q, want it to contain %q", tc.name, stderr.String(), want)
			}
		}
		if tc.wantStderr == nil && stderr.Len() > 0 {
			t.Errorf("%s: stderr = %q, want nothing", tc.name, stderr.String())
		}
		// The problem is said once: main prints nothing more for errUsage.
		if n := strings.Count(stderr.String(), "flag provided but not defined"); n > 1 {
			t.Errorf("%s: the error is printed %d times", tc.name, n)
		}
	}
}

// A port already taken says how to get a free one.
func TestBusyPortSuggestsAFreeOne(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = run(context.Background(), []string{"-quiet", "-addr", ln.Addr().String()}, os.Getenv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "address already in use") || !strings.Contains(err.Error(), "ADDR=127.0.0.1:0") {
		t.Fatalf("run on a busy port: err = %v, want the cause and the ADDR=127.0.0.1:0 suggestion", err)
	}
}

// The binary records from one fake used as the upstream, then replays with that upstream gone.
func TestRunRecordsThenReplays(t *testing.T) {
	dir := t.TempDir()
	upstreamCtx, stopUpstream := context.WithCancel(context.Background())
	upstreamURL, upstreamDone := startCtx(t, upstreamCtx)
	recorder := start(t, "-upstream", upstreamURL, "-record", dir)
	if status, _ := models(t, recorder, "assistant-opus-4-7"); status != 200 {
		t.Fatalf("recording: status %d", status)
	}
	stopUpstream()
	if err := <-upstreamDone; err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "model-*.json"))
	if len(files) != 1 {
		t.Fatalf("recordings: %v", files)
	}
	player := start(t, "-replay", dir, "-on-miss", "error")
	if status, body := models(t, player, "assistant-opus-4-7"); status != 200 || !strings.Contains(body, `"id":"assistant-opus-4-7"`) {
		t.Errorf("replayed: %d %s", status, body)
	}
	if status, body := models(t, player, "assistant-haiku-4-5"); status != 404 || !strings.Contains(body, "no recording matches GET /v1/models/assistant-haiku-4-5") {
		t.Errorf("a miss: %d %s", status, body)
	}
}

func models(t *testing.T, base, id string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/models/"+id, nil)
	req.Header.Set("X-Api-Key", "test-api-key")
	req.Header.Set("vendor-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// startCtx runs the binary until ctx ends, and returns its base URL and what run returned.
func startCtx(t *testing.T, ctx context.Context, args ...string) (string, <-chan error) {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-quiet"}, args...), os.Getenv, pw, io.Discard)
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return strings.TrimPrefix(strings.TrimSpace(line), "listening on "), done
}

// start runs the binary's run with args on a free loopback port and returns its base URL; the
// server shuts down when the test ends.
func start(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	base, done := startCtx(t, ctx, args...)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return base
}

// get sends a keep-alive GET of path on conn and returns the answer's status.
func get(t *testing.T, conn net.Conn, r *bufio.Reader, path string) int {
	t.Helper()
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: fake\r\n\r\n", path); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// Issue 13, defect 4: a keep-alive connection left idle stayed open for good. With -idle-timeout
// it is closed; and with -max-conns 1, a second connection is served only once the first is gone.
func TestIdleConnectionsCloseAndConnectionsAreCapped(t *testing.T) {
	base := start(t, "-idle-timeout", "300ms", "-max-conns", "1")
	addr := strings.TrimPrefix(base, "http://")
	deadline := time.Now().Add(20 * time.Second) // generous: only a server that never closes reaches it

	first, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	firstR := bufio.NewReader(first)
	if status := get(t, first, firstR, "/_fake/health"); status != 200 {
		t.Fatalf("first connection: status %d", status)
	}

	// The kernel accepts the second connection, but the server does not until the first closes.
	second, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	_ = second.SetDeadline(deadline)
	if status := get(t, second, bufio.NewReader(second), "/_fake/health"); status != 200 {
		t.Fatalf("second connection: status %d", status)
	}
	_ = first.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if _, err := firstR.ReadByte(); err != io.EOF {
		t.Fatalf("the idle first connection was still open when the second was served (read: %v): want it closed by -idle-timeout and the second held back by -max-conns 1", err)
	}
}

// ReadTimeout bounds reading the request and nothing else: a latency fault longer than it runs in
// full, with or without a body, while a body that never arrives is refused as a 400.
func TestReadTimeoutBoundsOnlyReadingTheRequest(t *testing.T) {
	base := start(t, "-read-timeout", "300ms")
	for _, path := range []string{"/v1/models", "/v1/messages/count_tokens"} {
		resp, err := http.Post(base+"/_fake/faults", "application/json", strings.NewReader(`{"path":"`+path+`","latency_ms":1000}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/v1/models", ""},
		{"POST", "/v1/messages/count_tokens", `{"model":"assistant-opus-4-7","messages":[{"role":"user","content":"Hi"}]}`},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
		if tc.body == "" {
			req.Body = http.NoBody
		}
		req.Header.Set("X-Api-Key", "test-api-key")
		req.Header.Set("vendor-version", "2023-06-01")
		began := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if took := time.Since(began); resp.StatusCode != 200 || took < 900*time.Millisecond {
			t.Errorf("%s %s with a 1 s latency fault: status %d after %v; want 200 after the whole second (the read timeout must not cut it)", tc.method, tc.path, resp.StatusCode, took)
		}
	}

	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprint(conn, "POST /v1/messages/count_tokens HTTP/1.1\r\nHost: fake\r\nX-Api-Key: test-api-key\r\nvendor-version: 2023-06-01\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "request body") || strings.Contains(string(body), "tcp") {
		t.Errorf("a body that never arrives: %d %s; want 400 naming the request body, without network internals", resp.StatusCode, body)
	}
}

// serve runs the binary with args until stop is called, and returns its base URL.
func serve(t *testing.T, args ...string) (base string, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-quiet"}, args...), os.Getenv, pw, io.Discard)
		pw.Close()
	}()
	r := bufio.NewReader(pr)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, r) //nolint:errcheck // drains the lines after the first
	return strings.TrimPrefix(strings.TrimSpace(line), "listening on "), func() {
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("run: %v", err)
		}
	}
}

func post(t *testing.T, url, body string) string {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, b)
}

// TestSnapshotFlags: -snapshot-to writes the world on shutdown, -snapshot-dir lets the control
// call write under it, and -fixtures loads either to continue at the same clock.
func TestSnapshotFlags(t *testing.T) {
	to, under := filepath.Join(t.TempDir(), "world"), t.TempDir()
	base, stop := serve(t, "-snapshot-to", to, "-snapshot-dir", under)
	post(t, base+"/_fake/clock/advance", `{"seconds":60}`)
	if got := post(t, base+"/_fake/snapshot/save", `{"name":"../escape"}`); !strings.HasPrefix(got, "400 ") {
		t.Fatalf("save outside the directory: %s", got)
	}
	if got := post(t, base+"/_fake/snapshot/save", `{"name":"w1"}`); !strings.HasPrefix(got, "200 ") {
		t.Fatalf("save: %s", got)
	}
	stop()
	for _, dir := range []string{to, filepath.Join(under, "w1")} {
		base, stop := serve(t, "-fixtures", dir)
		resp, err := http.Get(base + "/_fake/clock")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		stop()
		if string(b) != "{\"now\":\"2026-01-01T00:01:00Z\"}\n" {
			t.Errorf("-fixtures %s: clock %s", dir, b)
		}
	}
	base, stop = serve(t)
	defer stop()
	if got := post(t, base+"/_fake/snapshot/save", `{"name":"w1"}`); !strings.Contains(got, "-snapshot-dir") {
		t.Errorf("save without -snapshot-dir: %s", got)
	}
}

// TestShutdownWritesTheFilesWhateverIsInFlight: at SIGTERM a latency fault is waiting and a client
// has sent 5 of the 100 body bytes it announced. Neither finishes by itself; after the grace both
// are cut, the snapshot and the coverage are written, and run returns nil (exit 0).
func TestShutdownWritesTheFilesWhateverIsInFlight(t *testing.T) {
	dir := t.TempDir()
	snapshotTo, coverageFile := filepath.Join(dir, "world"), filepath.Join(dir, "coverage.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, done := startCtx(t, ctx, "-shutdown-grace", "1s", "-snapshot-to", snapshotTo, "-coverage-on-exit", coverageFile)

	if got := post(t, base+"/_fake/faults", `{"path":"/v1/models","latency_ms":600000}`); !strings.HasPrefix(got, "200 ") {
		t.Fatalf("fault: %s", got)
	}
	slow := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest("GET", base+"/v1/models", nil)
		req.Header.Set("X-Api-Key", "test-api-key")
		req.Header.Set("vendor-version", "2023-06-01")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		slow <- err
	}()
	// The fault is used up once the request waits in it.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		resp, err := http.Get(base + "/_fake/faults")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if gjson.GetBytes(b, "data.#").Int() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the latency fault was never used: %s", b)
		}
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "POST /v1/messages HTTP/1.1\r\nHost: fake\r\nX-Api-Key: test-api-key\r\nvendor-version: 2023-06-01\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"mod")
	time.Sleep(100 * time.Millisecond) // the server has read the headers: the request is in flight

	began := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v; want nil (exit 0) after cutting what was in flight", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return within 5 s of the signal, with a grace of 1 s")
	}
	if took := time.Since(began); took < time.Second || took > 3*time.Second {
		t.Errorf("shutdown took %v; want the 1 s grace and little more", took)
	}
	if _, err := os.Stat(filepath.Join(snapshotTo, "snapshot.json")); err != nil {
		t.Errorf("-snapshot-to: %v", err)
	}
	data, err := os.ReadFile(coverageFile)
	if err != nil {
		t.Fatalf("-coverage-on-exit: %v", err)
	}
	if got := gjson.GetBytes(data, "scope").String(); got != "server" {
		t.Errorf("coverage scope = %q; want server", got)
	}
	select {
	case err := <-slow:
		if err == nil {
			t.Error("the request in the latency fault got an answer; want it cut")
		}
	case <-time.After(5 * time.Second):
		t.Error("the request in the latency fault was not cut")
	}
}
