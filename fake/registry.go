package fake

import (
	"io/fs"
	"net/http"
	"time"
)

// The registry is how the core serves the areas of the API without naming any of them. An area
// registers its lines of the route table, its loader, its part of a snapshot and the hooks of a
// server's life; it keeps its values in slots of the three holders the core builds (a Fixtures,
// a server's state, a Server). The face lists the areas in their order (areas.go).

// area is one area of the API as the core sees it. Every field may be nil.
type area struct {
	// routes are the area's lines of the route table, in the order they are served.
	routes func() []*route
	// load reads the area's fixture files into fx; organizations and users are loaded first,
	// and the areas before this one.
	load func(fsys fs.FS, fx *Fixtures) error
	// snapshot is the area's part of a snapshot; nil when snapshots leave the area out.
	snapshot *snapshotArea
	// advance is told of the clock's new time, with the state current then.
	advance func(st *state, now time.Time)
	// admit lets a credential the fixtures do not know through to a route the area answers
	// without them (a tape replays or records it): it returns the credential to serve the
	// request as, or err.
	admit func(s *Server, rt *route, r *http.Request, ifc *iface, err error) (*credential, string, error)
	// release gives back what the area's store in st keeps of a shared byte budget: the state
	// was replaced (reset, snapshot load) or its namespace dropped. A store not built yet is
	// built released, so that a request still in flight on st keeps nothing that would count.
	release func(st *state)
	// reset puts the area's values of s back as New built them (Reset).
	reset func(s *Server)
	// drop gives back what the area's values of s keep of a shared budget: s, a namespace, was
	// dropped.
	drop func(s *Server)
}

// areaList is the areas in order, as the face registered them.
var areaList []*area

// registerAreas is called once, by the face's init, with every area in order.
func registerAreas(as ...*area) { areaList = as }

// slot is one area's value in each holder of a kind: the i-th value of its slice.
type slot[T any] struct{ i int }

// in returns the slot's value among vals, the holder's values.
func (k slot[T]) in(vals []any) *T { return vals[k.i].(*T) }

// slots is what the areas registered for one kind of holder: how to make each value.
type slots[H any] struct{ make []func(H) any }

// newSlot registers a value every holder of r's kind keeps, made by make.
func newSlot[T, H any](r *slots[H], make func(H) *T) slot[T] {
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
	storeSlots slots[*state]
	// serverSlots are the areas' values of a Server that outlive its state (a reset clears them).
	serverSlots slots[*Server]
	// budgetSizes are the bytes of each byte budget the areas registered, shared by a server
	// and its namespaces.
	budgetSizes []int64
)

// newSection registers an area's section of the fixtures, empty until its loader fills it.
func newSection[T any]() slot[T] {
	sectionCopies = append(sectionCopies, func(v any) any { c := *v.(*T); return &c })
	return newSlot(&sectionSlots, func(*Fixtures) *T { return new(T) })
}

// sectionCopies copy each section's value, for Fixtures.copy.
var sectionCopies []func(any) any

// copy returns a copy of fx whose sections are copies of fx's (not deep: what a section's fields
// point to is shared), so that a test may replace a section's fields without reaching into fx.
func (fx *Fixtures) copy() *Fixtures {
	c := *fx
	c.sections = make([]any, len(fx.sections))
	for i, v := range fx.sections {
		c.sections[i] = sectionCopies[i](v)
	}
	return &c
}

// newStore registers an area's store in a server's state, built on first use (lazy.get).
func newStore[T any]() slot[lazy[T]] {
	return newSlot(&storeSlots, func(*state) *lazy[T] { return new(lazy[T]) })
}

// budgetKey is a shared byte budget an area registered (newBudget).
type budgetKey int

// newBudget registers a byte budget of the given size, which a server and its namespaces share.
func newBudget(bytes int64) budgetKey {
	budgetSizes = append(budgetSizes, bytes)
	return budgetKey(len(budgetSizes) - 1)
}

// budget returns the server's share of the budget b.
func (c *config) budget(b budgetKey) *byteBudget { return c.budgets[b] }

// option is an area's part of the configuration, set by an option of the face (WithTape).
type option[T any] struct{ key *int }

func newOption[T any]() option[T] { return option[T]{new(int)} }

// of returns the option's value in cfg, the zero value when no option set it.
func (o option[T]) of(cfg *config) T {
	v, _ := cfg.opts[o.key].(T)
	return v
}

func (o option[T]) set(cfg *config, v T) {
	if cfg.opts == nil {
		cfg.opts = map[*int]any{}
	}
	cfg.opts[o.key] = v
}
