package tape

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Record and replay: a tape of what a real deployment answered, served by the fake.
//
// Record mode forwards the inference requests (Messages, count_tokens, Completions, Models) that
// no stub answers to an upstream deployment with the client's own credential, passes the answer
// through as it arrives (a stream event by event, flushed), and writes it to one JSON file per
// request. Replay mode answers a request from the recording that matches it. Recordings load
// through parseRecording, which holds them to the same schemas and stream grammar as the fake's
// own answers, so a recording that loads is one the fake can serve; one that does not is refused
// at start with its file, field and reason. The rest of the API keeps being served by the fake's
// state, so a recorded or replayed run stays stateful.

// OnMiss is the face's OnMiss (package fake), which documents it.
type OnMiss string

const (
	// OnMissModel answers as without a tape: stubs, scenarios, the scripted model (the default).
	OnMissModel OnMiss = "model"
	// OnMissError answers 404 not_found_error naming the recording file it expected, so that a
	// test whose requests changed fails loudly.
	OnMissError OnMiss = "error"
	// OnMissUpstream forwards the request to the upstream and records the answer, as record mode.
	OnMissUpstream OnMiss = "upstream"
)

// TapeConfig is the face's TapeConfig (package fake), which documents it.
type TapeConfig struct {
	// Upstream is the base URL of the deployment to record from (http or https; a path prefix is
	// kept). It is contacted only with Record, or with OnMiss OnMissUpstream.
	Upstream string
	// Record is the directory to record into: every inference request no stub answers is
	// forwarded, and its answer written there (a namespace's under Record/<namespace>/).
	Record string
	// Replay is the directory of recordings to answer from (a namespace's under
	// Replay/<namespace>/); with OnMissUpstream, new recordings are written there too.
	Replay string
	// OnMiss decides what answers a replayed request no recording matches; "" is OnMissModel.
	OnMiss OnMiss
	// RecordErrors records answers with a status of 400 or more, and streams that end in an
	// error event; without it only successful answers are written.
	RecordErrors bool
	// Speed is the pace of a replayed stream: 0 as fast as possible (the default), 1 as
	// recorded, 2 twice as fast.
	Speed float64
	// Client sends the upstream requests; nil is a client of its own with no overall timeout,
	// since a stream lasts as long as it lasts. The request's context still ends it.
	Client *http.Client
}

// Tape is the face's Tape (package fake), which documents it.
type Tape struct {
	cfg      TapeConfig
	upstream *url.URL
	dir      string // where recordings are written; "" when nothing is recorded
	client   *http.Client

	mu    sync.RWMutex
	byKey map[string]*Recording // namespace + "\x00" + request key
}

// OpenTape is the face's OpenTape (package fake), which documents it.
func OpenTape(cfg TapeConfig) (*Tape, error) {
	t := &Tape{cfg: cfg, client: cfg.Client, byKey: map[string]*Recording{}}
	if t.client == nil {
		t.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	switch cfg.OnMiss {
	case "":
		t.cfg.OnMiss = OnMissModel
	case OnMissModel, OnMissError, OnMissUpstream:
	default:
		return nil, fmt.Errorf("on-miss: %q is not one of model, error, upstream", cfg.OnMiss)
	}
	switch {
	case cfg.Record != "" && cfg.Replay != "":
		return nil, errors.New("record and replay exclude each other; to replay what is recorded and record the rest, replay with on-miss upstream")
	case cfg.Record == "" && cfg.Replay == "":
		return nil, errors.New("a tape needs a directory to record into or to replay from")
	case cfg.Record != "" && cfg.OnMiss != "" && cfg.OnMiss != OnMissModel:
		return nil, errors.New("on-miss applies to replay only")
	case cfg.Speed < 0:
		return nil, fmt.Errorf("speed: want 0 (as fast as possible) or a positive factor, got %v", cfg.Speed)
	}
	t.dir = cfg.Record
	if t.cfg.OnMiss == OnMissUpstream {
		t.dir = cfg.Replay
	}
	if t.dir != "" {
		if cfg.Upstream == "" {
			return nil, errors.New("upstream: recording needs the URL of the deployment to record from")
		}
		u, err := url.Parse(cfg.Upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			return nil, fmt.Errorf("upstream: %q is not an http or https base URL", cfg.Upstream)
		}
		t.upstream = u
		// A copy, so that a client the caller shares keeps its own policy.
		client := *t.client
		client.CheckRedirect = sameOriginRedirects(u, client.CheckRedirect)
		t.client = &client
		if err := os.MkdirAll(t.dir, 0o755); err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
	}
	if cfg.Replay != "" {
		if err := t.load(cfg.Replay); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// tapeKind is what the tape knows of an inference route: its name in file names (in.tape) and
// the route table's line, for the schemas a recording is held to.
type tapeKind struct {
	Name string
	Rt   *core.Route
}

// tapeKinds are the taped routes: the lines of the route table that name a tape (in.tape). The
// table is read on first use, once the face has registered the areas whose lines it holds.
var tapeKinds = sync.OnceValue(func() []tapeKind {
	var kinds []tapeKind
	for _, rt := range core.Routes() {
		if rt.Tape != "" {
			kinds = append(kinds, tapeKind{rt.Tape, rt})
		}
	}
	return kinds
})

// KindOf finds the taped route of a request path; ok is false for any other.
func KindOf(method, path string) (tapeKind, bool) {
	for _, k := range tapeKinds() {
		if k.Rt.Method == method && matchesPattern(k.Rt.Path, path) {
			return k, true
		}
	}
	return tapeKind{}, false
}

// matchesPattern reports whether path is one the route pattern (the route table's, as gin reads
// it) names: the same segments, a parameter (":model_id") standing for any non-empty one.
func matchesPattern(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i, p := range ps {
		if p != xs[i] && (!strings.HasPrefix(p, ":") || xs[i] == "") {
			return false
		}
	}
	return true
}

// taped reports whether the route is one a tape records and replays.
func (t *Tape) taped(rt *core.Route) bool { return t != nil && rt.Tape != "" }

// upstreamCredential lets a credential the fixtures do not know through to a taped route: it is
// the upstream's to judge when recording, and a replayed suite runs with the configuration it
// recorded with, real key included. A request without any credential is still refused with
// err, as are the fake's own credentials sent where they do not belong.
func upstreamCredential(r *http.Request, ifc *core.Iface, err error) (*core.Credential, string, error) {
	var ae *core.APIError
	if !errors.As(err, &ae) || ae.Typ != core.ErrAuthentication {
		return nil, "", err
	}
	for _, h := range ifc.Headers() {
		if core.Presented(r, h) != "" {
			return &core.Credential{Kind: core.KindAPIKey, Name: "upstream credential"}, h, nil
		}
	}
	return nil, "", err
}

// Area lets a credential the fixtures do not know through to a route a tape records or
// replays (upstreamCredential), and answers the routes without a body from it (fromTape).
var Area = &core.Area{
	Admit: func(s *core.Server, rt *core.Route, r *http.Request, ifc *core.Iface, err error) (*core.Credential, string, error) {
		if !TapeOption.Of(&s.Cfg).taped(rt) {
			return nil, "", err
		}
		return upstreamCredential(r, ifc, err)
	},
	Replay: fromTape,
}

// TapeOption is the tape that records or replays inference requests (WithTape); nil: neither.
var TapeOption = core.NewOption[*Tape]()
