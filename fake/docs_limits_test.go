package fake

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/threads"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/cache"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/model"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/areas/ratelimit"

	"github.com/platformkit/platformkit/fake/internal/areas/agents"
	"github.com/platformkit/platformkit/fake/internal/areas/batches"
	"github.com/platformkit/platformkit/fake/internal/areas/files"
	"github.com/platformkit/platformkit/fake/internal/areas/sessions"
	"github.com/platformkit/platformkit/fake/internal/areas/skills"
	"github.com/platformkit/platformkit/fake/internal/areas/vaults"
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
			ratelimit.Thousands(model.MaxToolInputValues), mib(model.MaxToolInputBytes), ratelimit.Thousands(model.MaxGenerated))},
		"| work of generating a tool input":      {ratelimit.Thousands(model.MaxGenSteps) + " steps per request", "at most " + ratelimit.Thousands(model.MaxPatternCost) + ";"},
		"| checking strict schemas":              {ratelimit.Thousands(wire.MaxSchemaVisits) + " steps per request", fmt.Sprintf("per %d bytes of its name", core.StepBytes)},
		"| beta values (":                        {ratelimit.Thousands(core.MaxBetaSteps) + " steps per request", fmt.Sprintf("per %d bytes", core.StepBytes), fmt.Sprintf("more than %d steps", core.MaxBetaSteps)},
		"| matching a request against the stubs": {ratelimit.Thousands(stubs.MaxStubSteps) + " steps", fmt.Sprintf("%d bytes of text scanned one", core.StepBytes)},
		"| an error message |":                   {fmt.Sprintf("quoted to %d bytes", core.MaxExcerpt), fmt.Sprintf("the whole message %d KiB", core.MaxErrorMessage>>10)},
		"| prompt cache, per server":             {ratelimit.Thousands(cache.CacheMaxEntries) + " entries and " + mib(cache.CacheMaxBytes), "(" + ratelimit.Thousands(cache.CacheMaxFingerprints) + " fingerprints"},
		"| the prompt caches of a server":        {"| " + mib(cache.CachesBytes) + " |", "one namespace's " + ratelimit.Thousands(cache.CacheMaxEntries) + " entries"},
		"| a refused request body over":          {"over " + mib(core.ReleaseAfterBytes), "a refused " + mib(core.SnapshotBodyLimit) + " snapshot"},
		"| journal |": {fmt.Sprintf("the last %s requests and at most %s; per entry %s of path and of query, %s per header value, %s of headers (in name order), a JSON body up to %s",
			ratelimit.Thousands(core.JournalCap), mib(core.JournalBytes), kib(core.JournalURLCap), kib(core.JournalValueCap), kib(core.JournalHeadersCap), kib(core.JournalBodyCap))},
		"| coverage (": {fmt.Sprintf("%d distinct invalid reasons, each with its field cut to %d bytes and its example to %d; the request schema's fields to a depth of %d",
			core.MaxReasons, core.MaxReasonField, core.MaxReasonSample, core.MaxFieldWords)},
		"| namespaces |":                     {"| " + ratelimit.Thousands(core.DefaultMaxNamespaces) + " (`-max-namespaces`) |"},
		"| message threads, per server":      {ratelimit.Thousands(threads.ThreadMaxCount) + " threads and " + mib(threads.ThreadMaxBytes) + " of memory kept"},
		"| the message threads of a server":  {"| " + mib(threads.ThreadsBytes) + " of memory kept |"},
		"| a thread continue's whole":        {ratelimit.Thousands(wire.MaxMessages) + " messages"},
		"| stubs, per server or namespace |": {ratelimit.Thousands(stubs.MaxStubs) + " stubs and " + mib(stubs.StubMaxBytes) + " of memory kept", "at most " + stubs.Mebibytes(stubs.StubMaxBytes) + " together"},
		"| the stubs of a server":            {"| " + mib(stubs.StubsBytes) + " of memory kept |"},
		"| the journals of a server":         {"| " + mib(core.JournalsBytes) + " |"},
		"| files, per server or namespace |": {mib(files.MaxFileBytes) + " a file (an upload body " + mib(files.MaxFileBytes) + " and " + kib(files.UploadBodyLimit-files.MaxFileBytes) + ")",
			mib(files.MaxOrgBytes) + " and " + ratelimit.Thousands(files.MaxOrgFiles) + " files an organization", fmt.Sprintf("over %d bytes", files.MaxFileBytes)},
		"| the files of a server and all":   {"| " + mib(files.FilesBytes) + " of memory kept"},
		"| a message batch |":               {ratelimit.Thousands(batches.MaxRequests) + " requests", fmt.Sprintf("at most %d MB (the Messages limit)", core.MessagesBodyLimit>>20), fmt.Sprintf("maximum %d items", batches.MaxRequests)},
		"| the message batches of a server": {"| " + mib(batches.BatchesBytes) + " of memory kept"},
		"| agents, per server or namespace |": {fmt.Sprintf("%s agents (archived ones included), %d versions each, and %s of memory kept", ratelimit.Thousands(agents.MaxAgents), agents.MaxVersions, mib(agents.MaxBytes)),
			fmt.Sprintf("at most %d agents", agents.MaxAgents)},
		"| the agents of a server": {"| " + mib(agents.MaxBytesAll) + " of memory kept |"},
		"| sessions, per server or namespace |": {fmt.Sprintf("%s sessions (archived ones included), %s events and %d resources each, and %s of memory kept", ratelimit.Thousands(sessions.MaxSessions), ratelimit.Thousands(sessions.MaxEvents), sessions.MaxResources, mib(sessions.MaxBytes)),
			fmt.Sprintf("at most %d sessions", sessions.MaxSessions)},
		"| the model request of a session": {fmt.Sprintf("among the session's last %d events", sessions.TurnWindow)},
		"| the sessions of a server":       {"| " + mib(sessions.MaxBytesAll) + " of memory kept |"},
		"| vaults, per server or namespace |": {fmt.Sprintf("%s vaults (archived ones included), %d credentials each, and %s of memory kept", ratelimit.Thousands(vaults.MaxVaults), vaults.MaxCredentials, mib(vaults.MaxBytes)),
			fmt.Sprintf("at most %d vaults", vaults.MaxVaults)},
		"| the vaults of a server": {"| " + mib(vaults.MaxBytesAll) + " of memory kept |"},
		"| skills, per server or namespace |": {fmt.Sprintf("%d skills, %d versions each, and %s of memory kept", skills.MaxSkills, skills.MaxVersions, mib(skills.MaxBytes)),
			fmt.Sprintf("%d files of %s, %s in all", skills.MaxFiles, mib(skills.MaxFileBytes), mib(skills.UploadBodyLimit)), fmt.Sprintf("at most %d skills", skills.MaxSkills)},
		"| the skills of a server":         {"| " + mib(skills.MaxBytesAll) + " of memory kept |"},
		"| reading a whole request":        {fmt.Sprintf("latency faults (up to %d minutes)", int(core.MaxFaultLatency.Minutes()))},
		"| a recording (":                  {mib(MaxRecordedBytes) + " (`fake.MaxRecordedBytes`) of request body, and " + mib(MaxRecordedBytes) + " of response body"},
		"| a recording file read at start": {"| " + mib(tape.MaxRecordingFile) + ", a regular file"},
		"| recordings loaded by `-replay` |": {fmt.Sprintf("%s files and %s together, checked from the directory and each file's size before any is read; %s events per recorded stream; `offset_ms` at most %s",
			ratelimit.Thousands(tape.MaxRecordingFiles), mib(tape.MaxRecordingsBytes), ratelimit.Thousands(tape.MaxRecordedEvents), ratelimit.Thousands(tape.MaxOffsetMS))},
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
		fmt.Sprintf("The server keeps at most %s (`-max-namespaces N`)", ratelimit.Thousands(core.DefaultMaxNamespaces)),
		fmt.Sprintf(`"max": %d}`, core.DefaultMaxNamespaces),
		fmt.Sprintf("`?limit=N` (1 to %s;", ratelimit.Thousands(core.JournalCap)),
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
