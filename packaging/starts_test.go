//go:build unix

package packaging

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadmeStarts runs each persona's one-minute start of the README (section "A one-minute
// start for each of you") as a stranger would, in a new directory: its sh blocks with bash, in
// order, and each other block written to the file its first line names (// hello_test.go,
// # test_hello.py). PLATFORMKIT is this checkout, as the README asks the reader to set it. What
// the test changes around the commands, never in them:
//
//   - Go: GOSUMDB=off, since this workplace reaches the module proxy but not the checksum
//     database; the modules are the ones platformkit's own go.sum pins.
//   - Python: PIP_CONSTRAINT pins pytest to packaging/python/tests/requirements.txt.
//   - TypeScript: npm_config_offline=true: the tarballs are local, and npm asks the registry
//     nothing about the optional packages of other platforms.
//   - Operators: the fake's port, 127.0.0.1:4010 in the README, is a free one, and REPORTS is a
//     temporary directory, so that a run leaves the checkout's reports/ alone.
//
// The Java start is the Java helper's, and its own test runs it.
func TestReadmeStarts(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	starts := personaStarts(string(readme))
	for _, persona := range []string{"Go", "Python", "TypeScript", "Operators"} {
		blocks := starts[persona]
		t.Run(persona, func(t *testing.T) {
			if len(blocks) == 0 {
				t.Fatalf("the README's one-minute starts have no section %q with code blocks (found %v)", persona, keys(starts))
			}
			env := []string{"PLATFORMKIT=" + root, "MAKEFLAGS=", "MAKELEVEL=", "GOFLAGS=" + os.Getenv("GOFLAGS")}
			switch persona {
			case "Go":
				env = append(env, "GOSUMDB=off")
			case "Python":
				needPython(t)
				env = append(env, "PIP_CONSTRAINT="+filepath.Join(root, "packaging", "python", "tests", "requirements.txt"),
					"PIP_DISABLE_PIP_VERSION_CHECK=1", "PLATFORMFAKE_BINARY=", "PLATFORMFAKE_URL=")
			case "TypeScript":
				for _, tool := range []string{"node", "npm"} {
					if _, err := exec.LookPath(tool); err != nil {
						t.Skip("SKIPPED: node and npm are needed to run the README's TypeScript start, and at least one is not installed")
					}
				}
				env = append(env, "npm_config_offline=true", "npm_config_audit=false", "npm_config_fund=false",
					"PLATFORMFAKE_BINARY=", "PLATFORMFAKE_URL=")
			case "Operators":
				port := freePort(t)
				for i := range blocks {
					blocks[i].text = strings.ReplaceAll(blocks[i].text, "127.0.0.1:4010", "127.0.0.1:"+port)
				}
				env = append(env, "REPORTS="+t.TempDir())
			}
			runStart(t, t.TempDir(), env, blocks)
		})
	}
}

// codeBlock is a fenced block of Markdown: its info string and its text.
type codeBlock struct{ lang, text string }

// personaStarts returns the code blocks of each ### section of the README's one-minute starts,
// by the section's first word (Go, Python, TypeScript, Java, Operators).
func personaStarts(readme string) map[string][]codeBlock {
	_, section, _ := strings.Cut(readme, "\n## A one-minute start")
	section, _, _ = strings.Cut(section, "\n## ")
	starts := map[string][]codeBlock{}
	persona := ""
	var cur *codeBlock
	for _, line := range strings.SplitAfter(section, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(line, "### "):
			persona, _, _ = strings.Cut(strings.TrimSuffix(strings.TrimPrefix(trimmed, "### "), ":"), " ")
			persona = strings.TrimSuffix(persona, ":")
		case cur == nil && strings.HasPrefix(trimmed, "```") && persona != "":
			cur = &codeBlock{lang: strings.TrimPrefix(trimmed, "```")}
		case cur != nil && trimmed == "```":
			starts[persona] = append(starts[persona], *cur)
			cur = nil
		case cur != nil:
			cur.text += line
		}
	}
	return starts
}

// runStart runs the blocks of one start in dir, in order: sh blocks with bash (-e, so the first
// failing command fails the start), every other block written to the file its first line names.
// Each bash runs in a process group of its own, killed when it ends, so that a server a block
// started in the background cannot outlive a failed start.
func runStart(t *testing.T, dir string, env []string, blocks []codeBlock) {
	t.Helper()
	for i, b := range blocks {
		if b.lang != "sh" {
			first, _, _ := strings.Cut(b.text, "\n")
			name := strings.Fields(strings.TrimLeft(first, "/# "))
			if len(name) == 0 {
				t.Fatalf("block %d (%s) names no file on its first line: %q", i+1, b.lang, first)
			}
			file := strings.TrimSuffix(name[0], ":")
			if err := os.WriteFile(filepath.Join(dir, file), []byte(b.text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		log, err := os.CreateTemp(t.TempDir(), "out")
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", b.text)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		start := time.Now()
		err = cmd.Run()
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // whatever the block left running
		}
		cancel()
		out, _ := os.ReadFile(log.Name())
		log.Close()
		if err != nil {
			t.Fatalf("block %d failed (%v) after %s:\n%s\n--- its output:\n%s", i+1, err, time.Since(start).Round(time.Millisecond), b.text, out)
		}
		t.Logf("block %d passed in %s:\n%s--- its output, last lines:\n%s", i+1, time.Since(start).Round(time.Millisecond), b.text, lastLines(string(out), 6))
	}
}

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n") + "\n"
}

func keys(m map[string][]codeBlock) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
