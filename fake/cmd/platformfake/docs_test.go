package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestDocsLimitsAreTheFlags holds the binary's rows of docs/limits.md to the defaults of its
// flags, as -h prints them: a default changed in the code fails here until the page says it.
func TestDocsLimitsAreTheFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, func(string) string { return "" }, &stdout, &stderr); err != nil {
		t.Fatalf("-h: %v\n%s", err, stderr.String())
	}
	defaults := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+) \w+\n\s+.*\(default ([^)]+)\)$`).FindAllStringSubmatch(stdout.String(), -1) {
		defaults[m[1]] = m[2]
	}
	page, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "limits.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"read-header-timeout", "read-timeout", "idle-timeout", "max-conns", "shutdown-grace"} {
		def, ok := defaults[flag]
		if !ok {
			t.Errorf("-h shows no default for -%s", flag)
			continue
		}
		// The page writes a duration in seconds ("60 s"), a count as it is.
		want := def
		if d, err := time.ParseDuration(def); err == nil {
			want = fmt.Sprintf("%d s", int(d.Seconds()))
		}
		if cell := "| " + want + " (`-" + flag + "`) |"; !bytes.Contains(page, []byte(cell)) {
			t.Errorf("docs/limits.md should have the cell %q: -%s defaults to %s", cell, flag, def)
		}
	}
}
