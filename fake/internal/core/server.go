package core

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
	Clock  *clock
	IDs    IDs // objects the API creates
	reqIDs IDs // request-ids of API requests
	CtlIDs controlIDs
	Logger *slog.Logger
	// violation, when set, is told of every response that does not match its schema and of every
	// recovered panic: bugs in the fake that a test must fail on.
	violation func(msg string)

	RequestLog journal
	faults     faults
	// coverage counts this server's API requests; all, on a default server only, counts those of
	// its namespaces too (ServerCoverage).
	coverage, all coverage
	retries       retryScale // the retry-after scale and the wait pending (retry.go)
	// Areas are the areas' values of the server (serverSlots): the rate limiter, the stubs.
	Areas []any

	mu sync.RWMutex
	st *State

	Cfg    Config       // what the server was built with, to build its namespaces alike
	NsName string       // the namespace this server is, "" for a default server
	parent *Server      // the default server a namespace belongs to, nil for a default server
	Spaces namespaceSet // a default server's namespaces
}

// State is everything a server changes: one lazily built store per area (storeSlots), so that
// New costs the same however large the fixtures are, and the fixtures the stores are built from
// (those of New, or the last snapshot loaded). Reset replaces it whole.
type State struct {
	Fx     *Fixtures
	Stores []any
}

func NewState(fx *Fixtures) *State {
	st := &State{Fx: fx}
	st.Stores = storeSlots.fill(st)
	return st
}

// lazy holds an area's state, built from the fixtures the first time a request needs it.
type lazy[T any] struct {
	once sync.Once
	V    atomic.Pointer[T]
}

func (l *lazy[T]) Get(build func() *T) *T {
	l.once.Do(func() { l.V.Store(build()) })
	return l.V.Load()
}

// release takes what the state's stores keep out of their shared budgets: the state was
// replaced (reset, snapshot load) or its namespace dropped.
// A store not built yet is built released: a request still in flight on the state finds it so,
// and keeps nothing that would count.
func (st *State) release() {
	for _, a := range areaList {
		if a.Release != nil {
			a.Release(st)
		}
	}
}

// Built returns the state if a request has built it, or nil: an area never built is still
// exactly its fixtures, which a snapshot then copies as they are.
func (l *lazy[T]) Built() *T { return l.V.Load() }

// Config is what a server is built from; the options (options.go) set its fields.
type Config struct {
	Fixtures      *Fixtures
	WallClock     bool
	Logger        *slog.Logger
	Violation     func(string)
	MaxNamespaces int
	SnapshotDir   string        // where POST /_fake/snapshot/save may write; "" forbids it
	Journals      *ByteBudget   // shared by a server and its namespaces
	budgets       []*ByteBudget // the areas' budgets (newBudget), shared likewise
	NoCoverage    bool          // count no coverage: only the benchmarks' baseline sets it
	RetryAfterPPM int64         // the retry-after scale in millionths (WithRetryAfterScale); 0: none
	opts          map[*int]any  // the areas' options (option), such as WithTape's tape
}

// NewRootServer returns a server built as cfg says, the options applied (New): over the embedded
// fixtures unless cfg names others. It panics only if the embedded fixtures do not load, which
// the package's tests rule out.
func NewRootServer(cfg Config) *Server {
	if cfg.Fixtures == nil {
		fx, err := DefaultFixtures()
		if err != nil {
			panic(err)
		}
		cfg.Fixtures = fx
	}
	if cfg.MaxNamespaces < 1 {
		cfg.MaxNamespaces = DefaultMaxNamespaces
	}
	cfg.Journals = NewByteBudget(JournalsBytes)
	for _, n := range budgetSizes {
		cfg.budgets = append(cfg.budgets, NewByteBudget(n))
	}
	return newServer(cfg)
}

// newServer builds a server from a complete configuration: New's, or its parent's for a
// namespace.
func newServer(cfg Config) *Server {
	s := &Server{
		Clock:      newClock(cfg.WallClock),
		Logger:     cfg.Logger,
		violation:  cfg.Violation,
		Cfg:        cfg,
		RequestLog: journal{budget: cfg.Journals},
	}
	s.Areas = ServerSlots.fill(s)
	s.retries.ppm = cfg.builtScale()
	s.start(cfg.Fixtures)
	return s
}

// Root is the default server: s, or the server whose namespace s is.
func (s *Server) Root() *Server {
	if s.parent != nil {
		return s.parent
	}
	return s
}

// ServeHTTP is the face's Server.ServeHTTP (package fake), which documents it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.NsName == "" {
		switch ns, r2, err := s.selectNamespace(r); {
		case err != nil:
			s.serveRefusal(w, r, err)
			return
		case ns != nil:
			ns.ServeOn(router(), w, r2)
			return
		}
	}
	s.ServeOn(router(), w, r)
}

// Reset is the face's Server.Reset (package fake), which documents it.
func (s *Server) Reset() {
	s.restart(s.State().Fx)
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
		if a.Reset != nil {
			a.Reset(s)
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
	s.st = NewState(fx)
	s.IDs.N.Store(fx.start.Issued.API)
	s.reqIDs.N.Store(fx.start.Issued.Requests)
	s.CtlIDs.set(fx.start.Issued.Control)
	if !s.Clock.wall {
		s.Clock.set(fx.start.now())
	}
}

// Now is the face's Server.Now (package fake), which documents it.
func (s *Server) Now() time.Time { return s.Clock.Now() }

// AdvanceClock is the face's Server.AdvanceClock (package fake), which documents it.
func (s *Server) AdvanceClock(d time.Duration) time.Time {
	now := s.Clock.advance(max(d, 0))
	st := s.State()
	for _, a := range areaList {
		if a.Advance != nil {
			a.Advance(st, now)
		}
	}
	return now
}

func (s *Server) State() *State {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.st
}

// FixturesDir is the face's FixturesDir (package fake), which documents it.
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
