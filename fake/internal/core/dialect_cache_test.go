package core

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"strings"
	"testing"
)

// page is a read's answer in the reference's words, n bytes or more, told apart by i.
func page(i, n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"data":[{"id":"assistant-opus-%d","display_name":"Assistant Opus","role":"assistant"}`, i)
	for b.Len() < n {
		b.WriteString(`,{"model":"assistant-haiku-4-5","text":"padding text"}`)
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

// The kept answer is the rewrite's, on the first read and every later one, and stays so when
// the buffer the answer was written in is used again.
func TestMakerCacheAnswersAsTheRewrite(t *testing.T) {
	doc := page(1, 2000)
	want := string(rewriteJSON(bytes.Clone(doc), Maker))
	if !strings.Contains(want, `"claude-opus-1"`) {
		t.Fatalf("the rewrite did not apply: %s", want)
	}
	buf := bytes.Clone(doc)
	for i := range 3 {
		if got := string(makerOf(buf)); got != want {
			t.Fatalf("read %d:\n got %s\nwant %s", i, got, want)
		}
	}
	copy(buf, page(2, 2000)) // the pooled buffer now holds another answer
	if got := string(makerOf(buf)); !strings.Contains(got, `"claude-opus-2"`) {
		t.Fatalf("another answer in the same buffer got a kept one: %.80s", got)
	}
	if got := string(makerOf(doc)); got != want {
		t.Fatalf("after the buffer changed:\n got %.80s\nwant %.80s", got, want)
	}
	// An answer with nothing to rewrite is answered as it is.
	plain := []byte(`{"data":[` + strings.Repeat(`{"role":"assistant","text":"hello"},`, 40) + `{}]}` + "\n")
	if got := makerOf(plain); !bytes.Equal(got, plain) {
		t.Fatalf("a plain answer changed: %.80s", got)
	}
}

// Two answers whose hashes agree are told apart by their bytes.
func TestMakerCacheComparesTheBytes(t *testing.T) {
	a, b := page(3, 1000), page(4, 1000)
	m := &makerDocs
	m.mu.Lock()
	h := maphash.Bytes(m.seed, b)
	if old, ok := m.byKey[h]; ok {
		m.drop(old)
	}
	// a's answer, kept as though b's bytes had hashed to it.
	e := &makerEntry{hash: h, ref: bytes.Clone(a), maker: rewriteJSON(bytes.Clone(a), Maker)}
	m.byKey[h] = m.order.PushFront(e)
	m.bytes += len(e.ref) + len(e.maker)
	m.mu.Unlock()
	if got := string(makerOf(b)); !strings.Contains(got, `"claude-opus-4"`) {
		t.Fatalf("b was answered with the answer kept under its hash: %.80s", got)
	}
}

// However many answers are read, the cache holds at most MakerCacheBytes.
func TestMakerCacheIsBounded(t *testing.T) {
	n := 0
	for i := range 2 * MakerCacheBytes / 20000 {
		makerOf(page(1000+i, 20000))
		n++
	}
	makerDocs.mu.Lock()
	defer makerDocs.mu.Unlock()
	held := 0
	for el := makerDocs.order.Front(); el != nil; el = el.Next() {
		e := el.Value.(*makerEntry)
		held += len(e.ref) + len(e.maker)
	}
	if held > MakerCacheBytes || held != makerDocs.bytes || len(makerDocs.byKey) != makerDocs.order.Len() {
		t.Fatalf("after %d answers of 20 KB: %d bytes held (counted %d), %d keys for %d entries; bound %d",
			n, held, makerDocs.bytes, len(makerDocs.byKey), makerDocs.order.Len(), MakerCacheBytes)
	}
}
