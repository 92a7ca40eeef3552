package kit

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake"
	"github.com/platformkit/platformkit/schemas"
)

// Target is the deployment under test.
type Target struct {
	Config Config
	Client *Client
	// IsFake is true when the target serves the fake's control API (GET /_fake/health) and the
	// run does not treat it as a deployment (Config.AsDeployment).
	IsFake bool
	// InProcess is true when the suite started the fake itself (CONFORMANCE_BASE_URL unset).
	InProcess bool
	// SchemaMode is Strict against the fake, which must emit nothing outside its schemas, and
	// Lenient against a deployment, which may be newer than them.
	SchemaMode schemas.Mode
	close      func()
	// enqueue, when set, supplies work as CONFORMANCE_WORK_ENQUEUE would: the repository's own
	// tests use it to run the work checks against a deployment without a shell command.
	EnqueueFunc func(ctx context.Context, env string) (string, error)
	// WaitFunc, when set, lets seconds of the target's time pass instead of waiting them (T.Wait):
	// the repository's own tests move the hidden clock of a fake run as a deployment with it, so
	// the slow checks run in seconds.
	WaitFunc func(ctx context.Context, seconds int) error
	// requestIDs maps each request-id answered in this run to the request it answered (seen.go).
	requestIDs sync.Map
	// models are the models listed in the preflight (discover), newest first.
	models []gjson.Result
	// causes are the failed preconditions found so far, by key (causes.go); envelopes the
	// defects of error envelopes met, by area and defect (envelope.go).
	causes, envelopes sync.Map
	// stop is the preflight's line when the run must not go on (discover), else "".
	stop string
}

// Open connects to cfg.BaseURL, or starts an in-process fake when it is empty. onBug, when not
// nil, is told of every bug the in-process fake notices in itself (a response outside its
// schema, a panic).
func Open(ctx context.Context, cfg Config, onBug func(string)) (*Target, error) {
	return open(ctx, cfg, onBug, nil)
}

// open is Open, telling progress (when not nil) every while that the first request is still
// unanswered: the preflight's way of not leaving an operator in silence.
func open(ctx context.Context, cfg Config, onBug func(string), progress io.Writer) (*Target, error) {
	if cfg.BaseURL != "" {
		if err := checkBaseURL(cfg.BaseURL); err != nil {
			return nil, err
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	tg := &Target{Config: cfg, close: func() {}}
	if cfg.BaseURL == "" {
		var opts []fake.Option
		if onBug != nil {
			opts = append(opts, fake.WithViolationHandler(onBug))
		}
		if cfg.AsDeployment {
			// As a deployment runs: on the wall clock, limiting rates. The suite started it, so
			// its keys are the only ones it could have been given.
			opts = append(opts, fake.WithWallClock(), fake.WithRateLimits())
			tg.Config = tg.Config.WithFakeCredentials()
		}
		srv := httptest.NewServer(fake.New(opts...))
		tg.Config.BaseURL, tg.close, tg.InProcess = srv.URL, srv.Close, true
	}
	tg.Client = &Client{BaseURL: tg.Config.BaseURL, Config: tg.Config, HTTP: &http.Client{Timeout: cfg.Timeout}, progress: progress}
	// The probe tells the fake by its health answer; a run as a deployment asks nothing a
	// deployment would not be asked, so it only learns that the target answers at all.
	probe := &Request{Area: Core, Path: "/_fake/health", As: NoCred}
	if cfg.AsDeployment {
		probe = &Request{Area: Models, Path: "/v1/models", As: NoCred}
	}
	resp, err := tg.Client.Do(ctx, probe)
	if err != nil {
		tg.close()
		return nil, fmt.Errorf("cannot reach %s: %w", tg.Config.BaseURL, transportCause(err))
	}
	tg.IsFake = !cfg.AsDeployment && resp.Status == http.StatusOK && resp.Get("status").String() == "ok"
	if tg.IsFake {
		tg.SchemaMode = schemas.Strict
		tg.Config.Destructive = true
		tg.Config = tg.Config.WithFakeCredentials()
		tg.Client.Config = tg.Config
	}
	tg.stop = tg.discover(ctx)
	return tg, nil
}

// missingCredential is one line naming the variable to set when r needs a credential that is not
// set (against a deployment: see Config.WithFakeCredentials), or "". A request that sets the
// credential's header itself (a wrong key on purpose) needs none.
func (tg *Target) missingCredential(r *Request) string {
	cred := r.As
	if cred == AreaCred {
		cred = areaCred[r.Area]
	}
	h, v := tg.Client.secret(cred, r.Org2)
	if h == "" || v != "" {
		return ""
	}
	for k := range r.Header {
		if strings.EqualFold(k, h) {
			return ""
		}
	}
	return notSet(credVar(cred, r.Org2))
}

// Close stops the in-process fake, if the target is one.
func (tg *Target) Close() { tg.close() }
