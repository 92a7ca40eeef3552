package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/platformkit/platformkit/fake"
	"github.com/platformkit/platformkit/fixtures"

	"github.com/platformkit/platformkit/conformance/kit"
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

// asDeployment opens srv as a deployment, in the run mode that treats the fake as one
// (Config.AsDeployment: its control API unused), and work supplied as an
// operator's CONFORMANCE_WORK_ENQUEUE command would, by a call of the control API of the same
// server on another address (in Go, so that the test needs nothing but Go).
func asDeployment(t *testing.T, srv http.Handler) *kit.Target {
	return asDeploymentBehind(t, srv, srv)
}

// asDeploymentBehind is asDeployment for a target that serves the API through front (srv behind
// a bug, say) while work is still enqueued in srv itself.
func asDeploymentBehind(t *testing.T, srv, front http.Handler) *kit.Target {
	control := httptest.NewServer(srv)
	t.Cleanup(control.Close)
	tg := openAsDeployment(t, front)
	if tg.IsFake {
		t.Fatal("a run as a deployment took the fake for the fake")
	}
	tg.EnqueueFunc = func(ctx context.Context, env string) (string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, control.URL+"/_fake/environments/"+env+"/work", strings.NewReader("{}"))
		if err != nil {
			return "", err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		var item struct{ ID string }
		if err := json.NewDecoder(resp.Body).Decode(&item); err != nil || resp.StatusCode != http.StatusOK || item.ID == "" {
			return "", fmt.Errorf("enqueue in %s: %d %v", env, resp.StatusCode, err)
		}
		return item.ID, nil
	}
	return tg
}

// runAsDeployment runs every check that is not fake-only against tg and returns how each ended.
// Work checks use environments of their own, so they run side by side: together they wait about
// as long as the longest lease check. The others share data and run in turn.
func runAsDeployment(t *testing.T, tg *kit.Target, each func(t *testing.T, c kit.Check, o kit.Outcome)) {
	for _, c := range kit.Checks() {
		if c.Has(kit.FakeOnly) {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			if c.Has(kit.Work) {
				t.Parallel()
			}
			each(t, c, kit.RunCheck(context.Background(), tg, c))
		})
	}
}

// TestChecksAgainstTheFakeAsADeployment runs every check that is not fake-only against a fake
// run as a deployment (Config.AsDeployment: its control API unused): work is supplied from
// outside, and time passes on the wall clock. Every check must pass or be disabled by configuration (destructive
// ones); none may be unsupported, so the work lifecycle checks do run. The fake enforces rate
// limits, as a deployment does, so that the rate-limit header check has headers to read and every
// other check shows it stays within them.
func TestChecksAgainstTheFakeAsADeployment(t *testing.T) {
	t.Parallel()
	tg := asDeployment(t, fake.New(fake.WithWallClock(), fake.WithRateLimits()))
	runAsDeployment(t, tg, func(t *testing.T, c kit.Check, o kit.Outcome) {
		if len(o.Failures) > 0 || len(o.CleanupFailures) > 0 || (o.Skipped != "" && !strings.HasPrefix(o.Skipped, kit.PrefixDisabled)) {
			t.Errorf("%+v", o)
		}
	})
	work := 0
	for _, c := range kit.Checks() {
		if c.Has(kit.Work) && !c.Has(kit.FakeOnly) {
			work++
		}
	}
	if work < 40 {
		t.Errorf("only %d work checks run against a deployment", work)
	}
}

// sparseFixtures are the embedded fixtures cut down to organizations, users and models: a
// deployment that holds no chats, files, tunnels, stores, invites, workspaces or work.
func sparseFixtures(t *testing.T) *fake.Fixtures {
	fsys := fstest.MapFS{}
	for _, name := range []string{"organizations.json", "users.json", "models.json"} {
		b, err := fs.ReadFile(fixtures.FS(), name)
		if err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: b}
	}
	fx, err := fake.LoadFixtures(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// TestChecksAgainstASparseDeployment runs every check against a deployment that holds only
// organizations, users and models. It is honest, so nothing may fail; and a check over data it
// cannot create has nothing to inspect there, so it may not pass: it must say it is unsupported.
func TestChecksAgainstASparseDeployment(t *testing.T) {
	t.Parallel()
	tg := asDeployment(t, fake.New(fake.WithWallClock(), fake.WithFixtures(sparseFixtures(t))))
	runAsDeployment(t, tg, func(t *testing.T, c kit.Check, o kit.Outcome) {
		if len(o.Failures) > 0 || len(o.CleanupFailures) > 0 {
			t.Errorf("an honest deployment fails it: %+v", o)
		}
		if o.Skipped != "" {
			t.Logf("%s", o.Skipped)
		}
	})
}

// TestWorkLifecycleUnsupportedWithoutWork: against a deployment without an enqueue command, the
// checks that need work end as unsupported, saying how to enable them.
func TestWorkLifecycleUnsupportedWithoutWork(t *testing.T) {
	tg := openAt(t, hideControl(fake.New()))
	for _, id := range []string{"work/ack-twice-400", "work/heartbeat-mismatch-412", "work/stop-force", "work/item-timestamps-follow-lifecycle"} {
		o := kit.RunCheck(context.Background(), tg, checkByID(t, id))
		if !strings.HasPrefix(o.Skipped, kit.PrefixUnsupported) || !strings.Contains(o.Skipped, "CONFORMANCE_WORK_ENQUEUE") || len(o.CleanupFailures) > 0 {
			t.Errorf("%s without a way to enqueue: %+v; want unsupported naming CONFORMANCE_WORK_ENQUEUE", id, o)
		}
	}
	if o := kit.RunCheck(context.Background(), tg, checkByID(t, "work/poll-empty-null")); !o.Passed() {
		t.Errorf("a check that needs no work: %+v", o)
	}
}

// TestWorkEnqueueCommandContract covers what the command may do wrong: each is a suite error
// whose message says what went wrong, with the command's stderr.
func TestWorkEnqueueCommandContract(t *testing.T) {
	cfg := kit.Config{BaseURL: "http://127.0.0.1:1", APIKey: "k"}
	run := func(cmd string, timeout time.Duration) (string, error) {
		cfg.WorkEnqueue = cmd
		return kit.RunEnqueue(context.Background(), cfg, "env_x", timeout)
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
	if got := kit.ConfigFromEnv(func(k string) string { return env[k] }).WorkEnqueue; got != "./enqueue-one.sh" {
		t.Errorf("WorkEnqueue = %q", got)
	}
	if got := kit.ConfigFromEnv(func(string) string { return "" }).WorkEnqueue; got != "" {
		t.Errorf("WorkEnqueue without the variable = %q", got)
	}
}

// hiddenClock is a Target.WaitFunc for a deployment that is srv on its virtual clock: it moves
// that clock through the control API of srv on another address, as asDeploymentBehind enqueues
// work, so that a slow check's minutes pass at once.
func hiddenClock(t *testing.T, srv http.Handler) func(ctx context.Context, seconds int) error {
	control := httptest.NewServer(srv)
	t.Cleanup(control.Close)
	return func(ctx context.Context, seconds int) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, control.URL+"/_fake/clock/advance", strings.NewReader(fmt.Sprintf(`{"seconds":%d}`, seconds)))
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("advancing the clock: %d", resp.StatusCode)
		}
		return nil
	}
}
