package core

import (
	"bytes"
	"container/list"
	"hash/maphash"
	"sync"
)

// A read's answer in the maker's words is kept beside the same answer in the reference's, so
// that the next read of it in the maker's dialect (every official SDK's) costs a hash and a
// compare instead of a rewrite: a page of twenty agents or models took twice to three times the
// CPU of the same page in the reference's words (BenchmarkDialect). The rewrite is a function of
// the bytes alone, so one cache serves every server and namespace of the process; it holds at
// most MakerCacheBytes (both forms of each answer), the least recently used answer going first.
const (
	// MakerCacheBytes bounds what the kept answers hold, in all servers together.
	MakerCacheBytes = 4 << 20
	// makerCacheMin and makerCacheMax bound the answers kept: a smaller one is rewritten faster
	// than it is kept, and a larger one would push out many others.
	makerCacheMin, makerCacheMax = 512, 256 << 10
)

type makerEntry struct {
	hash       uint64
	ref, maker []byte // maker is nil when the rewrite changed nothing
}

// makerCache is the kept answers, by the hash of their reference form.
type makerCache struct {
	mu    sync.Mutex
	seed  maphash.Seed
	byKey map[uint64]*list.Element
	order *list.List // of *makerEntry, most recently used first
	bytes int
}

var makerDocs = makerCache{seed: maphash.MakeSeed(), byKey: map[uint64]*list.Element{}, order: list.New()}

// makerOf is doc, a read's answer in the reference's words, in the maker's: kept from an
// earlier read of the same bytes, or rewritten and kept. The bytes it returns are never changed
// afterwards; doc itself is not kept (it may be a pooled buffer).
func makerOf(doc []byte) []byte {
	if len(doc) < makerCacheMin || len(doc) > makerCacheMax {
		return InDialect(doc, Maker)
	}
	h := maphash.Bytes(makerDocs.seed, doc)
	m := &makerDocs
	m.mu.Lock()
	if el, ok := m.byKey[h]; ok {
		if e := el.Value.(*makerEntry); bytes.Equal(e.ref, doc) {
			m.order.MoveToFront(el)
			m.mu.Unlock()
			if e.maker == nil {
				return doc
			}
			return e.maker
		}
	}
	m.mu.Unlock()
	out := InDialect(doc, Maker)
	e := &makerEntry{hash: h, ref: bytes.Clone(doc)}
	if len(out) != len(doc) || &out[0] != &doc[0] {
		e.maker = out // a new slice of its own: rewriteJSON copies when it changes a value
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.byKey[h]; ok { // another read kept it meanwhile, or a hash shared by two answers
		m.drop(old)
	}
	m.byKey[h] = m.order.PushFront(e)
	m.bytes += len(e.ref) + len(e.maker)
	for m.bytes > MakerCacheBytes {
		m.drop(m.order.Back())
	}
	return out
}

// drop forgets one kept answer; m.mu is held.
func (m *makerCache) drop(el *list.Element) {
	e := m.order.Remove(el).(*makerEntry)
	delete(m.byKey, e.hash)
	m.bytes -= len(e.ref) + len(e.maker)
}
