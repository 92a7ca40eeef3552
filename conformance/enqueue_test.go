package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake"
)

// hideControl serves h as a deployment would: without the fake's control API.
func hideControl(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/_fake/") {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"type":"error","error":{"type":"not_found_error","message":"no such route"},"request_id":"req_hidden"}`))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TestChecksAgainstTheFakeAsADeployment runs every check that is not fake-only against a fake
// whose control API is hidden, as a deployment would be: work comes from a
// CONFORMANCE_WORK_ENQUEUE command (curl to the control API of the same server on another
// address), and time passes on the wall clock. Every check must pass or be disabled by
// configuration (destructive ones); none may be unsupported, so the work lifecycle checks do run.
func TestChecksAgainstTheFakeAsADeployment(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("the enqueue command of this test uses curl, which is not installed")
	}
	srv := fake.New(fake.WithWallClock())
	control := httptest.NewServer(srv)
	t.Cleanup(control.Close)
	tg := openAt(t, hideControl(srv))
	if tg.IsFake {
		t.Fatal("a target without the control API was taken for the fake")
	}
	tg.Config.WorkEnqueue = fmt.Sprintf(`curl -fsS -X POST -d '{}' "%s/_fake/environments/$CONFORMANCE_ENVIRONMENT_ID/work" | grep -o '"id":"work_[^"]*"' | cut -d'"' -f4`, control.URL)
	work := 0
	for _, c := range Checks() {
		if c.Has(FakeOnly) {
			continue
		}
		// Work checks use environments of their own, so they run side by side: together they
		// wait about as long as the longest lease check. The others share data and run in turn.
		parallel := c.Has(Work)
		if parallel {
			work++
		}
		t.Run(c.ID, func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			o := RunCheck(context.Background(), tg, c)
			if len(o.Failures) > 0 || len(o.CleanupFailures) > 0 || (o.Skipped != "" && !strings.HasPrefix(o.Skipped, prefixDisabled)) {
				t.Errorf("%+v", o)
			}
		})
	}
	if work < 40 {
		t.Errorf("only %d work checks run against a deployment", work)
	}
}

// TestWorkLifecycleUnsupportedWithoutWork: against a deployment without an enqueue command, the
// checks that need work end as unsupported, saying how to enable them.
func TestWorkLifecycleUnsupportedWithoutWork(t *testing.T) {
	tg := openAt(t, hideControl(fake.New()))
	for _, id := range []string{"work/ack-twice-400", "work/heartbeat-mismatch-412", "work/stop-force", "work/item-timestamps-follow-lifecycle"} {
		o := RunCheck(context.Background(), tg, checkByID(t, id))
		if !strings.HasPrefix(o.Skipped, prefixUnsupported) || !strings.Contains(o.Skipped, "CONFORMANCE_WORK_ENQUEUE") || len(o.CleanupFailures) > 0 {
			t.Errorf("%s without a way to enqueue: %+v; want unsupported naming CONFORMANCE_WORK_ENQUEUE", id, o)
		}
	}
	if o := RunCheck(context.Background(), tg, checkByID(t, "work/poll-empty-null")); !o.Passed() {
		t.Errorf("a check that needs no work: %+v", o)
	}
}

// TestWorkEnqueueCommandContract covers what the command may do wrong: each is a suite error
// whose message says what went wrong, with the command's stderr.
func TestWorkEnqueueCommandContract(t *testing.T) {
	cfg := Config{BaseURL: "http://127.0.0.1:1", APIKey: "k"}
	run := func(cmd string, timeout time.Duration) (string, error) {
		cfg.WorkEnqueue = cmd
		return runEnqueue(context.Background(), cfg, "env_x", timeout)
	}
	id, err := run(`test "$CONFORMANCE_ENVIRONMENT_ID" = env_x && test "$CONFORMANCE_BASE_URL" = http://127.0.0.1:1 && test "$CONFORMANCE_API_KEY" = k && printf '  work_1\n'`, 5*time.Second)
	if err != nil || id != "work_1" {
		t.Fatalf("a command that follows the contract: %q, %v", id, err)
	}
	for cmd, want := range map[string]string{
		`echo broken >&2; exit 3`:   "exit status 3; stderr: broken",
		`true`:                      `should print one work item ID`,
		`echo work_1; echo work_2`:  `should print one work item ID`,
		`sleep 5 & wait`:            "did not finish within 200ms",
		`echo "work item: work_1"`:  `should print one work item ID`,
		`echo oops >&2; sleep 5`:    "stderr: oops",
		`exec 1>&-; echo x`:         "failed",
		`printf 'work_1/../../x\n'`: "should print one work item ID",
		`echo hello`:                "should print one work item ID (work_ then",
		`echo 01HXYZ`:               "should print one work item ID",
	} {
		if _, err := run(cmd, 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error containing %q", cmd, err, want)
		}
	}
}

func TestConfigReadsWorkEnqueue(t *testing.T) {
	env := map[string]string{"CONFORMANCE_WORK_ENQUEUE": "  ./enqueue-one.sh  "}
	if got := ConfigFromEnv(func(k string) string { return env[k] }).WorkEnqueue; got != "./enqueue-one.sh" {
		t.Errorf("WorkEnqueue = %q", got)
	}
	if got := ConfigFromEnv(func(string) string { return "" }).WorkEnqueue; got != "" {
		t.Errorf("WorkEnqueue without the variable = %q", got)
	}
}
