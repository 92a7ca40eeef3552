package core

import (
	"io/fs"
	"net/http"
	"time"
)

// The registry is how the core serves the areas of the API without naming any of them. An area
// registers its lines of the route table, its loader, its part of a snapshot and the hooks of a
// server's life; it keeps its values in slots of the three holders the core builds (a Fixtures,
// a server's state, a Server). The face lists the areas in their order (areas.go).

// Area is one area of the API as the core sees it. Every field may be nil.
type Area struct {
	// Routes are the area's lines of the route table, in the order they are served.
	Routes func() []*Route
	// Load reads the area's fixture files into fx; organizations and users are loaded first,
	// and the areas before this one.
	Load func(fsys fs.FS, fx *Fixtures) error
	// Snapshot is the area's part of a snapshot; nil when snapshots leave the area out.
	Snapshot *SnapshotArea
	// Advance is told of the clock's new time, with the state current then.
	Advance func(st *State, now time.Time)
	// Admit lets a credential the fixtures do not know through to a route the area answers
	// without them (a tape replays or records it): it returns the credential to serve the
	// request as, or err.
	Admit func(s *Server, rt *Route, r *http.Request, ifc *Iface, err error) (*Credential, string, error)
	// Replay answers a request of a route without a body from a recording (a tape replaying):
	// ok is false when the route's handler is to answer it. Replayed asks every area's.
	Replay func(s *Server, c *Call) (v any, ok bool, err error)
	// Release gives back what the area's store in st keeps of a shared byte budget: the state
	// was replaced (reset, snapshot load) or its namespace dropped. A store not built yet is
	// built released, so that a request still in flight on st keeps nothing that would count.
	Release func(st *State)
	// Reset puts the area's values of s back as New built them (Reset).
	Reset func(s *Server)
	// Drop gives back what the area's values of s keep of a shared budget: s, a namespace, was
	// dropped.
	Drop func(s *Server)
	// Mounts returns the memory stores the session sessionID of org mounts in st, each with its
	// access (read_write, read_only); nil when the area holds no such session. MountsOf asks
	// every area's (the sessions area answers), for the areas a sessions token reaches.
	Mounts func(st *State, org *Org, sessionID string) map[string]string
}

// MountsOf is the memory stores a session mounts, by the first area that knows the session.
func MountsOf(st *State, org *Org, sessionID string) map[string]string {
	for _, a := range areaList {
		if a.Mounts != nil {
			if m := a.Mounts(st, org, sessionID); m != nil {
				return m
			}
		}
	}
	return nil
}

// Replayed answers c from the first area whose Replay does (a tape), for the handlers of
// routes that a recording may answer (the models routes): ok is false when none does.
func Replayed(s *Server, c *Call) (any, bool, error) {
	for _, a := range areaList {
		if a.Replay != nil {
			if v, ok, err := a.Replay(s, c); ok {
				return v, true, err
			}
		}
	}
	return nil, false, nil
}

// areaList is the areas in order, as the face registered them.
var areaList []*Area

// RegisterAreas is called once, by the face's init, with every area in order.
func RegisterAreas(as ...*Area) { areaList = as }

// slot is one area's value in each holder of a kind: the i-th value of its slice.
type slot[T any] struct{ i int }

// In returns the slot's value among vals, the holder's values.
func (k slot[T]) In(vals []any) *T { return vals[k.i].(*T) }

// slots is what the areas registered for one kind of holder: how to make each value.
type slots[H any] struct{ make []func(H) any }

// NewSlot registers a value every holder of r's kind keeps, made by make.
func NewSlot[T, H any](r *slots[H], make func(H) *T) slot[T] {
	r.make = append(r.make, func(h H) any { return make(h) })
	return slot[T]{len(r.make) - 1}
}

// fill makes the values of a new holder h.
func (r *slots[H]) fill(h H) []any {
	vals := make([]any, len(r.make))
	for i, m := range r.make {
		vals[i] = m(h)
	}
	return vals
}

var (
	// sectionSlots are the areas' sections of a Fixtures, filled by their loaders.
	sectionSlots slots[*Fixtures]
	// storeSlots are the areas' stores in a server's state, built lazily from the fixtures.
	storeSlots slots[*State]
	// ServerSlots are the areas' values of a Server that outlive its state (a reset clears them).
	ServerSlots slots[*Server]
	// budgetSizes are the bytes of each byte budget the areas registered, shared by a server
	// and its namespaces.
	budgetSizes []int64
)

// NewSection registers an area's section of the fixtures, empty until its loader fills it.
func NewSection[T any]() slot[T] {
	sectionCopies = append(sectionCopies, func(v any) any { c := *v.(*T); return &c })
	return NewSlot(&sectionSlots, func(*Fixtures) *T { return new(T) })
}

// sectionCopies copy each section's value, for Fixtures.copy.
var sectionCopies []func(any) any

// Copy returns a copy of fx whose sections are copies of fx's (not deep: what a section's fields
// point to is shared), so that a test may replace a section's fields without reaching into fx.
func (fx *Fixtures) Copy() *Fixtures {
	c := *fx
	c.Sections = make([]any, len(fx.Sections))
	for i, v := range fx.Sections {
		c.Sections[i] = sectionCopies[i](v)
	}
	return &c
}

// NewStore registers an area's store in a server's state, built on first use (lazy.get).
func NewStore[T any]() slot[lazy[T]] {
	return NewSlot(&storeSlots, func(*State) *lazy[T] { return new(lazy[T]) })
}

// budgetKey is a shared byte budget an area registered (newBudget).
type budgetKey int

// NewBudget registers a byte budget of the given size, which a server and its namespaces share.
func NewBudget(bytes int64) budgetKey {
	budgetSizes = append(budgetSizes, bytes)
	return budgetKey(len(budgetSizes) - 1)
}

// Budget returns the server's share of the budget b.
func (c *Config) Budget(b budgetKey) *ByteBudget { return c.budgets[b] }

// option is an area's part of the configuration, set by an option of the face (WithTape).
type option[T any] struct{ key *int }

func NewOption[T any]() option[T] { return option[T]{new(int)} }

// Of returns the option's value in cfg, the zero value when no option set it.
func (o option[T]) Of(cfg *Config) T {
	v, _ := cfg.opts[o.key].(T)
	return v
}

func (o option[T]) Set(cfg *Config, v T) {
	if cfg.opts == nil {
		cfg.opts = map[*int]any{}
	}
	cfg.opts[o.key] = v
}
