package fake

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/agents"
	"github.com/platformkit/platformkit/fake/internal/areas/sessions"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// TestDocsLimitsAreTheConstants holds the bounds docs/limits.md and docs/control-api.md state to
// the constants that enforce them, so that a bound changed in one place fails here until the
// other says the same. Each row of the Limits table is found by its first cell; each figure is
// written from the constant as the page writes it (1,000; 32 MiB). The binary's flags are held
// by fake/cmd/platformfake's TestDocsLimitsAreTheFlags.
func TestDocsLimitsAreTheConstants(t *testing.T) {
	mib := func(n int) string { return fmt.Sprintf("%d MiB", n>>20) }
	kib := func(n int) string { return fmt.Sprintf("%d KiB", n>>10) }
	rows := map[string][]string{
		"| JSON request body |": {fmt.Sprintf("%d MB; Messages, count_tokens and completions %d MB", core.DefaultBodyLimit>>20, core.MessagesBodyLimit>>20)},
		"| tool input generated from": {fmt.Sprintf("at most %s values and %s of strings, property names and `const`/`enum` values, %s items or characters per value",
			thousands(maxToolInputValues), mib(maxToolInputBytes), thousands(maxGenerated))},
		"| work of generating a tool input":      {thousands(maxGenSteps) + " steps per request", "at most " + thousands(maxPatternCost) + ";"},
		"| checking strict schemas":              {thousands(maxSchemaVisits) + " steps per request", fmt.Sprintf("per %d bytes of its name", core.StepBytes)},
		"| beta values (":                        {thousands(core.MaxBetaSteps) + " steps per request", fmt.Sprintf("per %d bytes", core.StepBytes), fmt.Sprintf("more than %d steps", core.MaxBetaSteps)},
		"| matching a request against the stubs": {thousands(maxStubSteps) + " steps", fmt.Sprintf("%d bytes of text scanned one", core.StepBytes)},
		"| an error message |":                   {fmt.Sprintf("quoted to %d bytes", core.MaxExcerpt), fmt.Sprintf("the whole message %d KiB", core.MaxErrorMessage>>10)},
		"| prompt cache, per server":             {thousands(cacheMaxEntries) + " entries and " + mib(cacheMaxBytes), "(" + thousands(cacheMaxFingerprints) + " fingerprints"},
		"| the prompt caches of a server":        {"| " + mib(cachesBytes) + " |", "one namespace's " + thousands(cacheMaxEntries) + " entries"},
		"| a refused request body over":          {"over " + mib(core.ReleaseAfterBytes), "a refused " + mib(core.SnapshotBodyLimit) + " snapshot"},
		"| journal |": {fmt.Sprintf("the last %s requests and at most %s; per entry %s of path and of query, %s per header value, %s of headers (in name order), a JSON body up to %s",
			thousands(core.JournalCap), mib(core.JournalBytes), kib(core.JournalURLCap), kib(core.JournalValueCap), kib(core.JournalHeadersCap), kib(core.JournalBodyCap))},
		"| coverage (": {fmt.Sprintf("%d distinct invalid reasons, each with its field cut to %d bytes and its example to %d; the request schema's fields to a depth of %d",
			core.MaxReasons, core.MaxReasonField, core.MaxReasonSample, core.MaxFieldWords)},
		"| namespaces |":                     {"| " + thousands(core.DefaultMaxNamespaces) + " (`-max-namespaces`) |"},
		"| message threads, per server":      {thousands(threadMaxCount) + " threads and " + mib(threadMaxBytes) + " of memory kept"},
		"| the message threads of a server":  {"| " + mib(threadsBytes) + " of memory kept |"},
		"| a thread continue's whole":        {thousands(maxMessages) + " messages"},
		"| stubs, per server or namespace |": {thousands(maxStubs) + " stubs and " + mib(stubMaxBytes) + " of memory kept", "at most " + mebibytes(stubMaxBytes) + " together"},
		"| the stubs of a server":            {"| " + mib(stubsBytes) + " of memory kept |"},
		"| the journals of a server":         {"| " + mib(core.JournalsBytes) + " |"},
		"| agents, per server or namespace |": {fmt.Sprintf("%s agents (archived ones included), %d versions each, and %s of memory kept", thousands(agents.MaxAgents), agents.MaxVersions, mib(agents.MaxBytes)),
			fmt.Sprintf("at most %d agents", agents.MaxAgents)},
		"| the agents of a server": {"| " + mib(agents.MaxBytesAll) + " of memory kept |"},
		"| sessions, per server or namespace |": {fmt.Sprintf("%s sessions (archived ones included), %s events and %d resources each, and %s of memory kept", thousands(sessions.MaxSessions), thousands(sessions.MaxEvents), sessions.MaxResources, mib(sessions.MaxBytes)),
			fmt.Sprintf("at most %d sessions", sessions.MaxSessions)},
		"| the sessions of a server":       {"| " + mib(sessions.MaxBytesAll) + " of memory kept |"},
		"| reading a whole request":        {fmt.Sprintf("latency faults (up to %d minutes)", int(core.MaxFaultLatency.Minutes()))},
		"| a recording (":                  {mib(MaxRecordedBytes) + " (`fake.MaxRecordedBytes`) of request body, and " + mib(MaxRecordedBytes) + " of response body"},
		"| a recording file read at start": {"| " + mib(maxRecordingFile) + ", a regular file"},
		"| recordings loaded by `-replay` |": {fmt.Sprintf("%s files and %s together, checked from the directory and each file's size before any is read; %s events per recorded stream; `offset_ms` at most %s",
			thousands(maxRecordingFiles), mib(maxRecordingsBytes), thousands(maxRecordedEvents), thousands(maxOffsetMS))},
	}
	limits := readPage(t, "limits.md")
	for prefix, wants := range rows {
		line := ""
		for _, l := range strings.Split(limits, "\n") {
			if strings.HasPrefix(l, prefix) {
				line = l
			}
		}
		if line == "" {
			t.Errorf("docs/limits.md has no row starting %q", prefix)
			continue
		}
		for _, want := range wants {
			if !strings.Contains(line, want) {
				t.Errorf("docs/limits.md, row %q: want %q (from the constants), in:\n%s", prefix, want, line)
			}
		}
	}

	control := readPage(t, "control-api.md")
	for _, want := range []string{
		fmt.Sprintf("JSON bodies are refused above %d MB (Messages %d MB)", core.DefaultBodyLimit>>20, core.MessagesBodyLimit>>20),
		fmt.Sprintf("The server keeps at most %s (`-max-namespaces N`)", thousands(core.DefaultMaxNamespaces)),
		fmt.Sprintf(`"max": %d}`, core.DefaultMaxNamespaces),
		fmt.Sprintf("`?limit=N` (1 to %s;", thousands(core.JournalCap)),
		fmt.Sprintf("A name is 1 to %d of", core.MaxNamespaceName),
	} {
		if !strings.Contains(strings.Join(strings.Fields(control), " "), want) {
			t.Errorf("docs/control-api.md should say %q (from the constants)", want)
		}
	}
}

// readPage reads a page of docs/.
func readPage(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
