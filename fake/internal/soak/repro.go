package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake/internal/hostile"
)

// answer is what a step got: its status (0: no answer, err says why), its size, and the parts
// of its body that identify it.
type answer struct {
	status int
	bytes  int64
	id     string
	errTyp string
	code   string
	msg    string
	err    error
}

func (a answer) String() string {
	switch {
	case a.status == 0:
		return "no answer: " + shorten(a.err.Error(), 60)
	case a.status < 300:
		return fmt.Sprintf("%d", a.status)
	}
	s := fmt.Sprintf("%d %s", a.status, a.errTyp)
	if a.code != "" {
		s += " " + a.code
	}
	return s + ": " + shorten(a.msg, 70)
}

func shorten(s string, n int) string {
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > n {
		return s[:n-3] + "..."
	}
	return s
}

// sendStep sends one step, with {{id}} replaced by id, and reads the whole answer.
func sendStep(client *http.Client, base string, st hostile.Step, id string) answer {
	body := strings.ReplaceAll(st.Body, "{{id}}", id)
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(st.Method, base+strings.ReplaceAll(st.Path, "{{id}}", id), rd)
	if err != nil {
		return answer{err: err}
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	for k, v := range st.Header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	// The head is kept for the error or the id; the rest is only counted (row 2's answer is
	// 100 MB).
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(resp.Body, head)
	rest, err := io.Copy(io.Discard, resp.Body)
	a := answer{status: resp.StatusCode, bytes: int64(n) + rest, err: err}
	var env struct {
		ID    string `json:"id"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Details struct {
				ErrorCode string `json:"error_code"`
			} `json:"details"`
		} `json:"error"`
	}
	if rest == 0 && json.Unmarshal(head[:n], &env) == nil {
		a.id, a.errTyp, a.msg, a.code = env.ID, env.Error.Type, env.Error.Message, env.Error.Details.ErrorCode
	} else if a.status >= 400 {
		a.msg = "(an error of more than 64 KiB)"
	}
	return a
}

// runRepro sends each reproduction of issue 47 to a server of its own (so that what one keeps
// does not count against the next) and prints a row for each: the last answer, its size, the
// wall time, the server's CPU from the first step of the reproduction until it is idle again
// (work the client gave up on included), and its RSS idle before and 3 s after.
func runRepro(bin string, only map[int]bool) error {
	fmt.Println("| # | what | answer | answer bytes | wall | server CPU | RSS idle → after | the issue asks |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, r := range hostile.Issue47() {
		if len(only) > 0 && !only[r.Item] {
			continue
		}
		if r.Replay != nil {
			if err := reproReplay(bin, r); err != nil {
				return err
			}
			continue
		}
		p, err := start(bin)
		if err != nil {
			return err
		}
		row := reproRow(p, r)
		p.Stop()
		fmt.Println(row)
	}
	return nil
}

func reproRow(p *process, r hostile.Repro) string {
	timeout := r.Timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	client := &http.Client{Timeout: time.Minute}
	id := ""
	for _, st := range r.Setup {
		a := sendStep(client, p.Base, st, id)
		if a.status == 0 || a.status >= 300 {
			return fmt.Sprintf("| %d | %s | setup failed: %s | | | | | %s |", r.Item, r.What, a, r.Fixed)
		}
		if a.id != "" && !strings.Contains(st.Path, "/_fake/") { // a message, not a stub
			id = a.id
		}
	}
	p.idle(time.Minute)
	idle := p.rss()
	client = &http.Client{Timeout: timeout}
	cpu0, t0 := p.CPU(), time.Now()
	var last answer
	var total int64
	for _, st := range r.Steps {
		last = sendStep(client, p.Base, st, id)
		total += last.bytes
		if last.status >= 200 && last.status < 300 && last.id != "" && !strings.Contains(st.Path, "/_fake/") {
			id = last.id
		}
	}
	wall := time.Since(t0)
	p.idle(3 * time.Minute)
	cpu := p.CPU() - cpu0
	time.Sleep(3 * time.Second)
	return fmt.Sprintf("| %d | %s | %s | %d | %v | %.3f s | %.0f → %.0f MiB | %s |", r.Item, r.What, last, total,
		wall.Round(time.Millisecond), cpu.Seconds(), idle, p.rss(), r.Fixed)
}

// reproReplay starts the binary with -replay on a directory over the bound and reports how long
// it took to refuse it, and the CPU it spent (user and system, from its exit).
func reproReplay(bin string, r hostile.Repro) error {
	dir, err := os.MkdirTemp("", "platformfake-replay")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := r.Replay(dir); err != nil {
		return err
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-quiet", "-replay", dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		first <- line
		_, _ = io.Copy(io.Discard, stdout)
	}()
	verdict := ""
	select {
	case line := <-first:
		if strings.HasPrefix(line, "listening on") {
			verdict = "started: the whole directory was loaded"
			_ = cmd.Process.Signal(os.Interrupt)
		}
	case <-time.After(3 * time.Minute):
		verdict = "still loading after 3 minutes"
		_ = cmd.Process.Kill()
	}
	wall := time.Since(t0)
	err = cmd.Wait()
	if verdict == "" {
		verdict = fmt.Sprintf("exit %v: %s", err, shorten(strings.TrimSpace(stderr.String()), 110))
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Printf("| %d | %s | %s | | %v | %.3f s | | %s |\n", r.Item, r.What, verdict, wall.Round(time.Millisecond), cpu.Seconds(), r.Fixed)
	return nil
}
