package fake

import (
	"log/slog"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"

	"github.com/platformkit/platformkit/fake/internal/areas/ratelimit"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The options of New and NewTestServer, all here: each sets one field of the server's config.

// Option configures a Server.
type Option func(*config)

// config is what a server is built from; each option sets one of its fields.
type config = core.Config

// New returns a server over the embedded fixtures, or those of WithFixtures. It panics only if
// the embedded fixtures do not load, which the package's tests rule out.
func New(opts ...Option) *Server {
	var cfg core.Config
	for _, o := range opts {
		o(&cfg)
	}
	return wrap(core.NewRootServer(cfg))
}

// WithFixtures starts the server from fx (see LoadFixtures) instead of the embedded data set.
func WithFixtures(fx *Fixtures) Option {
	return func(c *config) {
		if fx != nil {
			c.Fixtures = fx.fx
		}
	}
}

// WithLogger logs one line per request (method, path, status, duration) to l. Request and
// response bodies and credentials are never logged.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.Logger = l } }

// WithMaxNamespaces bounds the number of namespaces (default DefaultMaxNamespaces); creating one
// more drops the least recently used. n < 1 keeps the default.
func WithMaxNamespaces(n int) Option { return func(c *config) { c.MaxNamespaces = n } }

// WithRateLimits enforces the organizations' and workspaces' rate limits from the start (off by
// default; PUT /_fake/rate_limits turns them on and off at any time).
func WithRateLimits() Option { return func(c *config) { ratelimit.EnforceOption.Set(c, true) } }

// WithRetryAfterScale makes the server's 429s and 529s ask for scale times the wait in
// retry-after-ms and retry-after (fake-retry-after-ms keeps the true wait), and moves the virtual
// clock to the end of the true wait when an official SDK's retry arrives; see
// docs/retries.md. 0.001 turns the 30 s of a rate limit into 30 ms of real time. It
// panics on a scale CheckRetryAfterScale refuses. A wall-clock server does not scale.
func WithRetryAfterScale(scale float64) Option {
	ppm, err := core.ScalePPM(scale)
	if err != nil {
		panic("fake.WithRetryAfterScale: " + err.Message)
	}
	return func(c *config) { c.RetryAfterPPM = ppm }
}

// WithSnapshotDir allows the control call POST /_fake/snapshot/save to write snapshots into
// subdirectories of dir (the binary's -snapshot-dir). Without it the call is refused: a client
// must not choose where a server writes.
func WithSnapshotDir(dir string) Option { return func(c *config) { c.SnapshotDir = dir } }

// WithTape records or replays inference requests as t says (see OpenTape).
func WithTape(t *Tape) Option { return func(c *config) { tape.TapeOption.Set(c, t) } }

// WithViolationHandler validates every response against its schema in strict mode and calls f
// for each mismatch and each recovered panic. NewTestServer reports them as test errors.
func WithViolationHandler(f func(msg string)) Option {
	return func(c *config) { c.Violation = f }
}

// WithWallClock makes the server read the wall clock instead of the virtual one. Responses are
// then no longer reproducible, and AdvanceClock only wakes waiters.
func WithWallClock() Option { return func(c *config) { c.WallClock = true } }
