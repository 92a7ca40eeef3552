package fake

import "sync/atomic"

// byteBudget is the one accounting of the bytes a server and all its namespaces keep in one kind
// of store (journals, prompt caches, message threads, stubs): every store of that kind, in the
// default server and in each namespace, adds what it keeps to the same budget and takes out what
// it lets go, and the budget's limit bounds them all together, however many namespaces there are.
// A store's own bound (per server or namespace) is the store's; what happens past the shared limit
// is the store's too: the journal, the cache and the threads make room by dropping what the least
// recently used namespaces keep, stubs refuse the registration. The count is the stores' estimate
// of the heap they hold, not the bytes a request sent.
type byteBudget struct {
	bytes atomic.Int64
	limit int64
}

func newByteBudget(limit int64) *byteBudget { return &byteBudget{limit: limit} }

// add adds n (negative: takes out) and reports whether the stores now hold more than the limit.
func (b *byteBudget) add(n int) (over bool) {
	return b.bytes.Add(int64(n)) > b.limit
}

// over reports whether the stores hold more than the limit.
func (b *byteBudget) over() bool { return b.bytes.Load() > b.limit }

// reserve adds n only if the stores then hold at most the limit, and reports whether it did: for
// a store that refuses what does not fit rather than dropping what it holds.
func (b *byteBudget) reserve(n int) bool {
	for {
		cur := b.bytes.Load()
		if cur+int64(n) > b.limit {
			return false
		}
		if b.bytes.CompareAndSwap(cur, cur+int64(n)) {
			return true
		}
	}
}
