// Command testreport reads `go test -json` on stdin and prints what `go test` prints without -v
// (the output of failed tests, a line per package), and then every test that was skipped, with
// its reason, so that a run that skipped something says so. It exits 1 when a test or a package
// failed. make test pipes the unit tests through it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (go doc test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() {
	failed, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// report copies the run's verdicts from r to w and says whether anything failed. A line that is
// not a test2json event (go test prints some errors as plain text) is copied as it is.
func report(r io.Reader, w io.Writer) (failed bool, err error) {
	output := map[[2]string][]string{} // (package, test) -> its output so far
	var skipped []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text())
			continue
		}
		key := [2]string{e.Package, e.Test}
		switch e.Action {
		case "output", "build-output":
			output[key] = append(output[key], e.Output)
		case "skip":
			if e.Test != "" {
				skipped = append(skipped, fmt.Sprintf("%s %s: %s", e.Package, e.Test, skipReason(output[key])))
			}
			delete(output, key)
		case "fail", "build-fail":
			failed = true
			fmt.Fprint(w, strings.Join(output[key], ""))
			if e.Test == "" && e.Action == "fail" && !endsWithVerdict(output[key]) {
				fmt.Fprintf(w, "FAIL\t%s\t%.3fs\n", e.Package, e.Elapsed)
			}
			delete(output, key)
		case "pass":
			if e.Test == "" {
				fmt.Fprintf(w, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
			}
			delete(output, key)
		}
	}
	if err := sc.Err(); err != nil {
		return failed, err
	}
	sort.Strings(skipped)
	if len(skipped) > 0 {
		fmt.Fprintf(w, "\nskipped %d %s:\n", len(skipped), map[bool]string{true: "test", false: "tests"}[len(skipped) == 1])
		for _, s := range skipped {
			fmt.Fprintln(w, "  "+s)
		}
	} else {
		fmt.Fprintln(w, "\nevery test ran: none was skipped")
	}
	return failed, nil
}

// skipReason is what a skipped test said, without the test's own "=== RUN" and "--- SKIP" lines.
func skipReason(lines []string) string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return "(no reason given)"
	}
	return strings.Join(out, " ")
}

// endsWithVerdict reports whether a package's output already ends with go test's FAIL line.
func endsWithVerdict(lines []string) bool {
	return len(lines) > 0 && strings.HasPrefix(lines[len(lines)-1], "FAIL\t")
}
