package fake

import (
	"net/http"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/batches"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/cache"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/areas/ratelimit"

	"github.com/platformkit/platformkit/fake/internal/areas/tunnels"

	"github.com/platformkit/platformkit/fake/internal/areas/work"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Server is a fake Platform API. It is an http.Handler and is safe for concurrent use.
type Server struct{ srv *core.Server }

// wrap is the face of s; nil for nil.
func wrap(s *core.Server) *Server {
	if s == nil {
		return nil
	}
	return &Server{srv: s}
}

// Now returns the server's current time.
func (s *Server) Now() time.Time {
	return s.srv.Now()
}

// AdvanceClock moves the virtual clock forward by d (negative d is treated as zero) and returns
// the new time. Leases, invite expiry and reclaim follow it.
func (s *Server) AdvanceClock(d time.Duration) time.Time {
	return s.srv.AdvanceClock(d)
}

// Reset puts the server back to its fixtures: all data, the clock and the ID counters. It also
// clears the journal, the injected faults, the stubs and the coverage (a default server's also
// the coverage of the whole server, ServerCoverage), refills every rate-limit bucket and puts
// enforcement back as the server was built (WithRateLimits). Its namespaces are left alone
// (ClearNamespaces drops them), so that one test's reset never reaches into another's namespace.
// After LoadSnapshot the snapshot is the server's fixtures: Reset goes back to it.
func (s *Server) Reset() {
	s.srv.Reset()
}

// ServeHTTP implements http.Handler. A request for a namespace (the path prefix /ns/<name>/ or
// the header Fake-Namespace) is served by that namespace, as a new server would serve it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.srv.ServeHTTP(w, r)
}

// Journal returns the API requests the server answered since it started or was last reset or
// cleared, oldest first: at most the last 10,000, and as many of the last as fit 32 MiB.
func (s *Server) Journal() []JournalEntry {
	return s.srv.Journal()
}

// ClearJournal forgets the recorded requests and returns how many there were.
func (s *Server) ClearJournal() int {
	return s.srv.ClearJournal()
}

// InjectFault adds a fault and returns it with its ID. It returns an error for a fault that
// could never apply: an unknown status, a negative count, latency or retry-after.
func (s *Server) InjectFault(f Fault) (Fault, error) {
	return s.srv.InjectFault(f)
}

// Faults returns the faults not yet used up, in the order they apply.
func (s *Server) Faults() []Fault {
	return s.srv.Faults()
}

// ClearFaults removes every fault and returns how many there were.
func (s *Server) ClearFaults() int {
	return s.srv.ClearFaults()
}

// Coverage returns what s answered since its last reset: for a namespace, the requests to it; for
// the default server, the requests outside any namespace. ServerCoverage counts them all.
func (s *Server) Coverage() Coverage {
	return s.srv.Coverage()
}

// ServerCoverage returns what the server answered since the default server's last reset, in any
// namespace, including namespaces dropped since: the coverage of a whole test run, however its
// tests split their requests into namespaces.
func (s *Server) ServerCoverage() Coverage {
	return s.srv.ServerCoverage()
}

// Namespace returns the namespace called name, creating it from the fixtures if it does not
// exist (and dropping the least recently used one if that would exceed the maximum). It is the
// server that requests with the prefix /ns/<name>/ or the header Fake-Namespace: <name> reach.
// It returns an invalid_request_error for a name outside the grammar, and for a server that is
// itself a namespace.
func (s *Server) Namespace(name string) (*Server, error) {
	ns, err := s.srv.Namespace(name)
	return wrap(ns), err
}

// Namespaces lists the namespaces, most recently used first: the last one is the next to be
// dropped. A namespace has none.
func (s *Server) Namespaces() []NamespaceInfo {
	return s.srv.Namespaces()
}

// DeleteNamespace drops the namespace called name and reports whether it existed. A request in
// flight there finishes on the dropped state; the next request under that name starts afresh.
func (s *Server) DeleteNamespace(name string) bool {
	return s.srv.DeleteNamespace(name)
}

// ClearNamespaces drops every namespace and returns how many there were.
func (s *Server) ClearNamespaces() int {
	return s.srv.ClearNamespaces()
}

// Snapshot returns the server's world (a namespace's, when s is one) as a data set of the shape
// of package fixtures: the files of every area, formatted like them (two-space indents, fields
// in schema order, records in list order), and snapshot.json with the clock and the counters.
// A server that loads it answers every read byte-identically and hands the next write the same
// ID, timestamp and request-id. Every area is locked for the length of the export, so the set is
// one moment of the world; a write still in flight may have taken its ID without its record.
// Journal, faults and message stubs are the test's configuration, not the world: they are not
// in a snapshot.
func (s *Server) Snapshot() (Snapshot, error) {
	snap, err := s.srv.Snapshot()
	return Snapshot(snap), err
}

// LoadSnapshot replaces the world of the server (or of the namespace s is) with the snapshot: its
// data, clock and counters, as Reset would with the snapshot for fixtures. It also clears the
// journal, faults and stubs, as Reset does, and Reset afterwards returns to the snapshot. A
// snapshot that does not load is refused whole (see Snapshot.Fixtures) and the server is left as
// it was.
func (s *Server) LoadSnapshot(snap Snapshot) error {
	return s.srv.LoadSnapshot(core.Snapshot(snap))
}

// RetryAfterScale returns the server's retry-after scale (1: the true waits).
func (s *Server) RetryAfterScale() float64 {
	return s.srv.RetryAfterScale()
}

// SetRetryAfterScale sets the server's (or namespace's) retry-after scale, forgetting any wait
// pending. A wall-clock server refuses any scale but 1: its client's waits are real time.
func (s *Server) SetRetryAfterScale(scale float64) error {
	return s.srv.SetRetryAfterScale(scale)
}

// BatchPace is the virtual time each request of a message batch takes, for the batches the
// server (or namespace) creates without a Fake-Batch-Pace header (GET /_fake/batch_pace): 100 ms
// until SetBatchPace, and again after Reset.
func (s *Server) BatchPace() time.Duration { return batches.Pace(s.srv) }

// SetBatchPace sets BatchPace for the batches created afterwards (PUT /_fake/batch_pace): a batch
// of n requests ends n × d after its creation. It refuses d below 0 or above 24 h.
func (s *Server) SetBatchPace(d time.Duration) error { return batches.SetPace(s.srv, d) }

// APIVersions lists the versions the fake serves, oldest first.
func APIVersions() []string { return core.APIVersions() }

// CheckRetryAfterScale reports whether scale is one WithRetryAfterScale, -retry-after-scale and
// PUT /_fake/retry_after accept: more than 0, at most 1, in whole millionths.
func CheckRetryAfterScale(scale float64) error { return core.CheckRetryAfterScale(scale) }

// CheckSnapshotDir reports whether WriteDir may write into dir: it is absent, or holds no file
// that WriteDir would have to delete or overwrite without having written it. The error names the
// file.
func CheckSnapshotDir(dir string) error { return core.CheckSnapshotDir(dir) }

// Epoch is where every virtual clock starts, 2026-01-01T00:00:00Z (see Determinism in the
// package documentation). A function, so that no caller can move it for every server.
func Epoch() time.Time { return core.Epoch() }

// CacheEntries lists the server's live prompt-cache entries, soonest expiry first (then by key).
func (s *Server) CacheEntries() []CacheEntry { return cache.CacheEntries(s.srv) }

// ClearCache drops every prompt-cache entry and diagnostics fingerprint of the server, and
// returns how many live entries there were.
func (s *Server) ClearCache() int { return cache.DropCache(s.srv) }

// Scenarios lists the scenario library in file order (GET /_fake/messages/scenarios).
func (s *Server) Scenarios() []Scenario { return scenarios.ScenarioList(s.srv) }

// Stubs returns the stubs not yet used up, in the order they are tried. The replies are copies:
// changing them changes nothing in the server.
func (s *Server) Stubs() []Stub { return stubs.StubList(s.srv) }

// ClearStubs removes every stub and returns how many there were.
func (s *Server) ClearStubs() int { return stubs.DropStubs(s.srv) }

// AddStub registers a stub and returns it with its ID. A stub that could not be served is an
// error naming the field, as the control call answers it: a reply outside the message schema
// ("replies.1.content.0.type: ..."), stop fields that contradict each other or the content, or
// more than 1000 stubs at once or more memory than the stubs' bounds allow. Match and reply
// content are copied; st.ID and st.Served are ignored.
func (s *Server) AddStub(st Stub) (Stub, error) {
	return stubs.AddStubValue(s.srv, st)
}

// RateLimits returns whether rate limits are enforced and the buckets' levels now.
func (s *Server) RateLimits() RateLimitState { return ratelimit.State(s.srv) }

// SetRateLimits turns enforcement on or off. Turning it on starts every bucket full; turning it
// off forgets the buckets. Setting the state it already has changes nothing.
func (s *Server) SetRateLimits(enforce bool) RateLimitState {
	return ratelimit.Set(s.srv, enforce)
}

// CreateTunnel makes a tunnel, as the control call POST /_fake/tunnels does: the specified API
// has no create (spec 4.10). The tunnel gets a domain no tunnel of this server has had. It
// returns invalid_request_error for an unknown organization, a malformed workspace ID or a
// display name longer than 255 characters.
func (s *Server) CreateTunnel(opts TunnelOptions) (Tunnel, error) {
	return tunnels.CreateTunnel(s.srv, opts)
}

// TunnelForToken answers what the tunnel endpoint would do with a new connection presenting
// token: the ID of the tunnel whose current token it is. A token replaced by rotation, or the
// token of an archived tunnel, is refused (spec 3.3).
func (s *Server) TunnelForToken(token string) (tunnelID string, ok bool) {
	return tunnels.TunnelForToken(s.srv, token)
}

// TokenRotations returns the audit records of a tunnel's token rotations, oldest first: who
// rotated, when, the token IDs before and after, and the reason given (spec 4.9).
func (s *Server) TokenRotations(tunnelID string) []TokenRotation {
	return tunnels.TokenRotations(s.srv, tunnelID)
}

// CheckGateway answers what the tunnel does with an MCP connection whose gateway presents
// chainPEM (its server certificate, then any intermediates) when the service terminates the
// inner TLS session (spec 4.9): nil when it accepts it, otherwise an error saying why. It accepts
// only when the tunnel is not archived and the chain verifies, at the server's time, against one
// of the tunnel's non-archived CA certificates: an archived certificate is out of the trusted
// set, and a tunnel without one rejects all MCP traffic (spec 3.4).
func (s *Server) CheckGateway(tunnelID, chainPEM string) error {
	return tunnels.GatewayCheck(s.srv, tunnelID, chainPEM)
}

// EnqueueWork queues a new work item in the environment, as the service does when a session is
// created (spec 2.16), and wakes blocked polls. sessionID may be empty for a generated one;
// otherwise it must look like "session_..." (letters, digits, _ and -). It returns not_found for
// an unknown environment (of any organization), and invalid_request for an archived one or for
// a session ID or metadata outside the limits of fixtures/environments.json.
func (s *Server) EnqueueWork(environmentID, sessionID string, metadata map[string]string) (WorkItem, error) {
	return work.Enqueue(s.srv, environmentID, sessionID, metadata)
}
