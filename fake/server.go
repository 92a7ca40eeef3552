package fake

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
)

func init() {
	// gin's mode is process-wide; set it once here rather than per server, where it would race.
	gin.SetMode(gin.ReleaseMode)
}

// Server is a fake Platform API. It is an http.Handler and is safe for concurrent use.
type Server struct {
	clock  *clock
	ids    ids // objects the API creates
	reqIDs ids // request-ids of API requests
	ctlIDs controlIDs
	logger *slog.Logger
	// violation, when set, is told of every response that does not match its schema and of every
	// recovered panic: bugs in the fake that a test must fail on.
	violation func(msg string)

	requestLog journal
	faults     faults
	// coverage counts this server's API requests; all, on a default server only, counts those of
	// its namespaces too (ServerCoverage).
	coverage, all coverage
	retries       retryScale // the retry-after scale and the wait pending (retry.go)
	// areas are the areas' values of the server (serverSlots): the rate limiter, the stubs.
	areas []any

	mu sync.RWMutex
	st *state

	cfg    config       // what the server was built with, to build its namespaces alike
	nsName string       // the namespace this server is, "" for a default server
	parent *Server      // the default server a namespace belongs to, nil for a default server
	spaces namespaceSet // a default server's namespaces
}

// state is everything a server changes: one lazily built store per area (storeSlots), so that
// New costs the same however large the fixtures are, and the fixtures the stores are built from
// (those of New, or the last snapshot loaded). Reset replaces it whole.
type state struct {
	fx     *Fixtures
	stores []any
}

func newState(fx *Fixtures) *state {
	st := &state{fx: fx}
	st.stores = storeSlots.fill(st)
	return st
}

// lazy holds an area's state, built from the fixtures the first time a request needs it.
type lazy[T any] struct {
	once sync.Once
	v    atomic.Pointer[T]
}

func (l *lazy[T]) get(build func() *T) *T {
	l.once.Do(func() { l.v.Store(build()) })
	return l.v.Load()
}

// release takes what the state's stores keep out of their shared budgets: the state was
// replaced (reset, snapshot load) or its namespace dropped.
// A store not built yet is built released: a request still in flight on the state finds it so,
// and keeps nothing that would count.
func (st *state) release() {
	for _, a := range areaList {
		if a.release != nil {
			a.release(st)
		}
	}
}

// built returns the state if a request has built it, or nil: an area never built is still
// exactly its fixtures, which a snapshot then copies as they are.
func (l *lazy[T]) built() *T { return l.v.Load() }

// config is what a server is built from; the options (options.go) set its fields.
type config struct {
	fixtures      *Fixtures
	wallClock     bool
	logger        *slog.Logger
	violation     func(string)
	maxNamespaces int
	snapshotDir   string        // where POST /_fake/snapshot/save may write; "" forbids it
	journals      *byteBudget   // shared by a server and its namespaces
	budgets       []*byteBudget // the areas' budgets (newBudget), shared likewise
	noCoverage    bool          // count no coverage: only the benchmarks' baseline sets it
	retryAfterPPM int64         // the retry-after scale in millionths (WithRetryAfterScale); 0: none
	opts          map[*int]any  // the areas' options (option), such as WithTape's tape
}

// newRootServer returns a server built as cfg says, the options applied (New): over the embedded
// fixtures unless cfg names others. It panics only if the embedded fixtures do not load, which
// the package's tests rule out.
func newRootServer(cfg config) *Server {
	if cfg.fixtures == nil {
		fx, err := DefaultFixtures()
		if err != nil {
			panic(err)
		}
		cfg.fixtures = fx
	}
	if cfg.maxNamespaces < 1 {
		cfg.maxNamespaces = DefaultMaxNamespaces
	}
	cfg.journals = newByteBudget(journalsBytes)
	for _, n := range budgetSizes {
		cfg.budgets = append(cfg.budgets, newByteBudget(n))
	}
	return newServer(cfg)
}

// newServer builds a server from a complete configuration: New's, or its parent's for a
// namespace.
func newServer(cfg config) *Server {
	s := &Server{
		clock:      newClock(cfg.wallClock),
		logger:     cfg.logger,
		violation:  cfg.violation,
		cfg:        cfg,
		requestLog: journal{budget: cfg.journals},
	}
	s.areas = serverSlots.fill(s)
	s.retries.ppm = cfg.builtScale()
	s.start(cfg.fixtures)
	return s
}

// root is the default server: s, or the server whose namespace s is.
func (s *Server) root() *Server {
	if s.parent != nil {
		return s.parent
	}
	return s
}

// ServeHTTP implements http.Handler. A request for a namespace (the path prefix /ns/<name>/ or
// the header Fake-Namespace) is served by that namespace, as a new server would serve it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.nsName == "" {
		switch ns, r2, err := s.selectNamespace(r); {
		case err != nil:
			s.serveRefusal(w, r, err)
			return
		case ns != nil:
			ns.serveOn(router(), w, r2)
			return
		}
	}
	s.serveOn(router(), w, r)
}

// Reset puts the server back to its fixtures: all data, the clock and the ID counters. It also
// clears the journal, the injected faults, the stubs and the coverage (a default server's also
// the coverage of the whole server, ServerCoverage), refills every rate-limit bucket and puts
// enforcement back as the server was built (WithRateLimits). Its namespaces are left alone
// (ClearNamespaces drops them), so that one test's reset never reaches into another's namespace.
// After LoadSnapshot the snapshot is the server's fixtures: Reset goes back to it.
func (s *Server) Reset() {
	s.restart(s.state().fx)
}

// restart clears the journal, faults and stubs and starts the server's world afresh from fx,
// at the clock and counters fx holds (Epoch and zero for a data set that is not a snapshot).
func (s *Server) restart(fx *Fixtures) {
	s.ClearJournal()
	s.ClearFaults()
	s.coverage.reset()
	if s.parent == nil {
		s.all.reset()
	}
	for _, a := range areaList {
		if a.reset != nil {
			a.reset(s)
		}
	}
	s.resetRetryScale()
	s.start(fx)
}

// start makes fx the server's world: fresh area state, and the clock and ID counters where fx
// says the world stands, all under the lock, so that a request sees the old world or the new.
func (s *Server) start(fx *Fixtures) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil {
		s.st.release() // its bytes leave the shared budgets
	}
	s.st = newState(fx)
	s.ids.n.Store(fx.start.Issued.API)
	s.reqIDs.n.Store(fx.start.Issued.Requests)
	s.ctlIDs.set(fx.start.Issued.Control)
	if !s.clock.wall {
		s.clock.set(fx.start.now())
	}
}

// Now returns the server's current time.
func (s *Server) Now() time.Time { return s.clock.Now() }

// AdvanceClock moves the virtual clock forward by d (negative d is treated as zero) and returns
// the new time. Leases, invite expiry and reclaim follow it.
func (s *Server) AdvanceClock(d time.Duration) time.Time {
	now := s.clock.advance(max(d, 0))
	st := s.state()
	for _, a := range areaList {
		if a.advance != nil {
			a.advance(st, now)
		}
	}
	return now
}

func (s *Server) state() *state {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.st
}

// FixturesDir loads the data set in dir, for the binary's -fixtures flag.
func FixturesDir(dir string) (*Fixtures, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("fixtures: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("fixtures: %s is not a directory", dir)
	}
	fx, err := LoadFixtures(os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return fx, nil
}
