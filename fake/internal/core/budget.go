package core

import (
	"encoding/json"
	"sync/atomic"
)

// ByteBudget is the one accounting of the bytes a server and all its namespaces keep in one kind
// of store (journals, prompt caches, message threads, stubs): every store of that kind, in the
// default server and in each namespace, adds what it keeps to the same budget and takes out what
// it lets go, and the budget's limit bounds them all together, however many namespaces there are.
// A store's own bound (per server or namespace) is the store's; what happens past the shared limit
// is the store's too: the journal, the cache and the threads make room by dropping what the least
// recently used namespaces keep, stubs refuse the registration. The count is the stores' estimate
// of the heap they hold, not the bytes a request sent.
type ByteBudget struct {
	Bytes atomic.Int64
	Limit int64
}

func NewByteBudget(limit int64) *ByteBudget { return &ByteBudget{Limit: limit} }

// Add adds n (negative: takes out) and reports whether the stores now hold more than the limit.
func (b *ByteBudget) Add(n int) (over bool) {
	return b.Bytes.Add(int64(n)) > b.Limit
}

// Over reports whether the stores hold more than the limit.
func (b *ByteBudget) Over() bool { return b.Bytes.Load() > b.Limit }

// Reserve adds n only if the stores then hold at most the limit, and reports whether it did: for
// a store that refuses what does not fit rather than dropping what it holds.
func (b *ByteBudget) Reserve(n int) bool {
	for {
		cur := b.Bytes.Load()
		if cur+int64(n) > b.Limit {
			return false
		}
		if b.Bytes.CompareAndSwap(cur, cur+int64(n)) {
			return true
		}
	}
}

// Charged is what one store of a server (or namespace) keeps, counted in its own total and in
// the byteBudget it shares with the server's other namespaces: a store embeds it, and its
// methods are called under the store's lock.
type Charged struct {
	Bytes  int         // what the store keeps
	Budget *ByteBudget // shared with the server's namespaces (or its parent's); nil: none
	// Released: the store's server was reset or dropped, and its bytes left the budget; a request
	// still holding the store keeps nothing more in it.
	Released bool
}

// Grow adds n (negative: removes) to the store's total and the shared budget.
func (c *Charged) Grow(n int) {
	c.Bytes += n
	if c.Budget != nil {
		c.Budget.Add(n)
	}
}

// Reserve counts n more bytes the store keeps, if the shared budget has room for them; false,
// with nothing counted, when it has not. A released store counts nothing and refuses nothing:
// a request still holding it keeps nothing that would count.
func (c *Charged) Reserve(n int) bool {
	if c.Released {
		return true
	}
	if c.Budget != nil && !c.Budget.Reserve(n) {
		return false
	}
	c.Bytes += n
	return true
}

// Give takes n bytes the store let go out of its total and the shared budget; nothing once the
// store is released, since Leave gave everything back.
func (c *Charged) Give(n int) {
	if !c.Released {
		c.Grow(-n)
	}
}

// Leave takes everything the store keeps out of the shared budget for good, and marks it
// released; the store lets go of its contents itself.
func (c *Charged) Leave() {
	c.Grow(-c.Bytes)
	c.Released = true
}

// OverBudget reports whether the stores sharing the budget keep more than its limit.
func (c *Charged) OverBudget() bool { return c.Budget != nil && c.Budget.Over() }

// HeldSizeOf is HeldSize of v's JSON decoded, for a store that keeps typed records: what they
// would hold as decoded JSON, the measure every store's bounds count in.
func HeldSizeOf(v any) int {
	b, _ := json.Marshal(v)
	var x any
	_ = json.Unmarshal(b, &x)
	return HeldSize(x)
}

// HeldSize estimates the heap a decoded JSON value holds (as encoding/json decodes into any,
// numbers as json.Number): what a store that keeps decoded JSON charges to its bounds. The bytes
// of a request are no measure of it: {"a":1} is 7 bytes of JSON and over 300 bytes of map once
// decoded, so a body of many small objects keeps some 20 times its size. The figures follow the
// Go runtime's layout (a map's header and groups of 8 slots of a string key and an interface
// value; a string or a slice header boxed in an interface; allocations rounded up to 16 bytes);
// TestHeldSizeMatchesTheHeap holds them to the heap the runtime reports.
func HeldSize(v any) int {
	switch v := v.(type) {
	case string:
		return 16 + AllocSize(len(v))
	case json.Number:
		return 16 + AllocSize(len(v))
	case float64:
		return 8
	case []any:
		n := 32 + AllocSize(16*cap(v))
		for _, x := range v {
			n += HeldSize(x)
		}
		return n
	case map[string]any:
		n := MapSize(len(v))
		for k, x := range v {
			n += AllocSize(len(k)) + HeldSize(x)
		}
		return n
	case []map[string]any: // the content of a stub's reply
		n := AllocSize(8 * cap(v))
		for _, x := range v {
			n += HeldSize(x)
		}
		return n
	}
	return 0 // nil, bool: nothing beyond the slot that holds them
}

// MapSize is the heap of a map[string]any of n entries, less its keys' bytes and its values: a
// header, and groups of 8 slots (8 control bytes and 8 × 32 bytes) at a load of at most 7/8.
func MapSize(n int) int {
	const header, group = 48, 8 + 8*32
	if n == 0 {
		return header // groups come with the first entry
	}
	if n <= 8 {
		return header + AllocSize(group)
	}
	slots := 8
	for slots*7/8 < n {
		slots *= 2
	}
	// A map past 1,024 slots is split in tables of their own, each with a directory entry and
	// room to grow: an eighth more.
	return header + 64 + slots/8*group*9/8
}

// AllocSize is n rounded up as the allocator rounds a small object: to 16 bytes.
func AllocSize(n int) int {
	if n == 0 {
		return 0
	}
	return (n + 15) &^ 15
}
