package kit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// Supplying work to the queue checks (spec 4.8). The API has no operation that enqueues work: the
// service queues an item when a session is created (spec 2.16). The fake offers a control call for
// it; against a deployment the operator names a command that does it (CONFORMANCE_WORK_ENQUEUE).
//
// The command's contract:
//
//   - It is run with `sh -c COMMAND`, once per work item a check needs, with the suite's
//     environment plus CONFORMANCE_BASE_URL (the target), CONFORMANCE_ENVIRONMENT_ID (the
//     environment to enqueue in: one the check created, so no pre-existing work is touched) and
//     CONFORMANCE_API_KEY (the API key the suite uses).
//   - It enqueues exactly one work item in that environment and prints the item's ID (work_...) on
//     stdout, alone; surrounding white space is ignored. Stderr is shown when the command fails.
//   - Exit status 0 means the item is queued; anything else is a failure of the command.
//   - It must finish within WorkEnqueueTimeout; it is killed after that.
//
// A command that fails, times out or prints anything but one ID ends the check as a suite error
// (the suite's setup broke, not the target), with the command's stderr.

// WorkEnqueueTimeout bounds one run of the CONFORMANCE_WORK_ENQUEUE command.
const WorkEnqueueTimeout = 60 * time.Second

// enqueueHowTo is what an operator reads when no work can be supplied.
const enqueueHowTo = "no way to supply work to this target: set CONFORMANCE_WORK_ENQUEUE to a command that " +
	"enqueues one work item in the environment $CONFORMANCE_ENVIRONMENT_ID and prints its ID (see docs/operators.md, \"Supplying work to the queue checks\")"

// workIDPattern is what the command must print: one work item ID in the form the API gives them
// (spec 2.16: prefix work_; path-safe, gaps §2). Anything else ("hello", a JSON body, a log line)
// is the command's mistake, and would otherwise fail the checks that read the item back as if the
// target had lost it.
var workIDPattern = regexp.MustCompile(`^work_[A-Za-z0-9_-]+$`)

// CanEnqueueWork reports whether the suite can put work in a queue of this target: through the
// configured command, or through the fake's control API.
func (tg *Target) CanEnqueueWork() bool {
	return tg.Config.WorkEnqueue != "" || tg.EnqueueFunc != nil || tg.IsFake
}

// EnqueueWork puts one work item in the queue of environment env and returns its ID: through the
// CONFORMANCE_WORK_ENQUEUE command when one is configured (on any target, the fake included), else
// through the fake's control API. With neither, the check ends as unsupported, saying how to
// enable it.
func (t *T) EnqueueWork(env string) string {
	switch {
	case t.Target.EnqueueFunc != nil:
		id, err := t.Target.EnqueueFunc(t.ctx, env)
		if err != nil {
			t.fail(PrefixSuiteError + err.Error())
		}
		return id
	case t.Config().WorkEnqueue != "":
		id, err := RunEnqueue(t.ctx, t.Target.Config, env, WorkEnqueueTimeout)
		if err != nil {
			t.fail(PrefixSuiteError + err.Error())
		}
		return id
	case t.Target.IsFake:
		return t.Control(http.MethodPost, "/_fake/environments/"+env+"/work", map[string]any{}).Get("id").String()
	}
	t.Unsupported(enqueueHowTo)
	return ""
}

// RunEnqueue runs the command of cfg.WorkEnqueue for environment env, as the contract above says.
func RunEnqueue(ctx context.Context, cfg Config, env string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", cfg.WorkEnqueue)
	cmd.Env = append(os.Environ(),
		"CONFORMANCE_BASE_URL="+cfg.BaseURL,
		"CONFORMANCE_ENVIRONMENT_ID="+env,
		"CONFORMANCE_API_KEY="+cfg.APIKey)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A child of sh that keeps the pipes open must not hold the suite past the timeout.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	what := "CONFORMANCE_WORK_ENQUEUE (environment " + env + ")"
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "", fmt.Errorf("%s did not finish within %s; stderr: %s", what, timeout, tail(stderr.Bytes()))
	}
	if err != nil {
		return "", fmt.Errorf("%s failed: %v; stderr: %s", what, err, tail(stderr.Bytes()))
	}
	id := strings.TrimSpace(stdout.String())
	if !workIDPattern.MatchString(id) {
		return "", fmt.Errorf("%s should print one work item ID (work_ then letters, digits, _ or -) on stdout and nothing else; it printed %q", what, truncate([]byte(id), 200))
	}
	return id, nil
}

// tail is the end of a command's stderr, where its error usually is.
func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(empty)"
	}
	if len(s) > 1000 {
		s = "…" + s[len(s)-1000:]
	}
	return s
}
