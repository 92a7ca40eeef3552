package fake

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/cache"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// storeWith is the cache store of a fresh server holding n entries, one expiring every step
// from the server's now + step, and the server.
func storeWith(t testing.TB, n int, step time.Duration) (*Server, *cache.CacheStore) {
	s := New()
	st := cache.ServerCache(s.srv)
	now := s.Now()
	st.Mu.Lock()
	defer st.Mu.Unlock()
	for i := range n {
		var k cache.CacheKey
		copy(k[:], fmt.Sprintf("%032d", i))
		st.Add(cache.CachedPrefix{Key: k, Org: "org", Model: "m", Ttl: cache.CacheTTL5m, CreatedAt: now, ExpiresAt: now.Add(time.Duration(i+1) * step)})
	}
	return s, st
}

// TestCacheExpiredEntriesReleasedOnTheClock: an entry is dropped, with its bytes, when the clock
// passes its expiry, without any request writing to the cache.
func TestCacheExpiredEntriesReleasedOnTheClock(t *testing.T) {
	s, st := storeWith(t, 3, time.Minute) // expiring at +1m, +2m and +3m
	if got, want := st.Bytes, 3*(cache.CacheEntryBase+len("org")+len("m")); got != want {
		t.Fatalf("store bytes %d, want %d", got, want)
	}
	s.AdvanceClock(2 * time.Minute) // +2m: the first two are gone (an entry lives until its expiry)
	if len(st.Entries) != 1 || st.N != 1 || st.Bytes != 260 || s.srv.Cfg.Budget(cache.CacheBudget).Bytes.Load() != 260 {
		t.Errorf("after 2m: %d entries, %d in the lists, %d bytes (budget %d), want 1, 1, 260, 260", len(st.Entries), st.N, st.Bytes, s.srv.Cfg.Budget(cache.CacheBudget).Bytes.Load())
	}
	s.Reset()
	if got := s.srv.Cfg.Budget(cache.CacheBudget).Bytes.Load(); got != 0 {
		t.Errorf("after a reset the shared budget holds %d bytes, want 0", got)
	}
}

// TestCacheEvictsTheSoonestPastItsCount: past cacheMaxEntries, a write drops the entry that
// expires soonest, and only it.
func TestCacheEvictsTheSoonestPastItsCount(t *testing.T) {
	s, st := storeWith(t, cache.CacheMaxEntries, time.Millisecond)
	var k cache.CacheKey
	copy(k[:], "new")
	p := &cache.CachePlan{Start: s.Now(), Store: st, Srv: s.srv, Writes: []cache.CachedPrefix{{Key: k, Org: "org", Model: "m", Tokens: 1, Ttl: cache.CacheTTL5m}}}
	p.Commit("")
	var first cache.CacheKey
	copy(first[:], fmt.Sprintf("%032d", 0))
	if len(st.Entries) != cache.CacheMaxEntries || st.Entries[first] != nil || st.Entries[k] == nil {
		t.Errorf("%d entries, first kept %t, new kept %t; want 100000, false, true", len(st.Entries), st.Entries[first] != nil, st.Entries[k] != nil)
	}
}

// TestCacheFingerprintsBoundedInBytes: fingerprints of long conversations are dropped, oldest
// first, once they hold more than cacheMaxBytes, whatever their count.
func TestCacheFingerprintsBoundedInBytes(t *testing.T) {
	s := New()
	st := cache.ServerCache(s.srv)
	fp := &cache.CacheFingerprint{Messages: make([]cache.CacheKey, 26_000), MessageCum: make([]int, 26_000)}
	// 320 + 26,000 × 40 = 1,040,320 bytes each: 32 fit in 32 MiB (33,554,432), 33 do not.
	for i := range 40 {
		(&cache.CachePlan{Start: s.Now(), Store: st, Srv: s.srv, Fp: fp}).Commit(fmt.Sprintf("msg_%d", i))
	}
	if len(st.Fps) != 32 || st.Fps["msg_7"] != nil || st.Fps["msg_8"] == nil || st.Bytes != 32*1_040_320 {
		t.Errorf("%d fingerprints (msg_7 kept %t, msg_8 kept %t), %d bytes; want 32, false, true, %d", len(st.Fps), st.Fps["msg_7"] != nil, st.Fps["msg_8"] != nil, st.Bytes, 32*1_040_320)
	}
}

// TestCachesOfNamespacesShareABudget: past the budget the caches of all namespaces share, the
// least recently used namespace's cache gives way, not the one the request is in.
func TestCachesOfNamespacesShareABudget(t *testing.T) {
	s := New()
	s.srv.Cfg.Budget(cache.CacheBudget).Limit = 10 * 260 // ten entries of 260 bytes
	a, _ := s.Namespace("a")
	b, _ := s.Namespace("b")
	write := func(srv *Server, n int) {
		for i := range n {
			var k cache.CacheKey
			copy(k[:], fmt.Sprintf("%s%d", srv.srv.NsName, i))
			(&cache.CachePlan{Start: srv.Now(), Store: cache.ServerCache(srv.srv), Srv: srv.srv, Writes: []cache.CachedPrefix{{Key: k, Org: "org", Model: "m", Ttl: cache.CacheTTL5m}}}).Commit("")
		}
	}
	write(a, 8)
	write(b, 6) // 14 entries: a, the least recently used, gives 4 up
	if na, nb := len(cache.ServerCache(a.srv).Entries), len(cache.ServerCache(b.srv).Entries); na != 4 || nb != 6 || s.srv.Cfg.Budget(cache.CacheBudget).Bytes.Load() != 2600 {
		t.Errorf("a %d, b %d entries, budget %d; want 4, 6, 2600", na, nb, s.srv.Cfg.Budget(cache.CacheBudget).Bytes.Load())
	}
	s.DeleteNamespace("a")
	if got := s.srv.Cfg.Budget(cache.CacheBudget).Bytes.Load(); got != 6*260 {
		t.Errorf("after dropping a the budget holds %d, want %d", got, 6*260)
	}
}

// TestModelIsBounded: the model is at most 256 characters, as the cache and diagnostics keep it.
func TestModelIsBounded(t *testing.T) {
	ts := NewTestServer(t)
	body := map[string]any{"model": strings.Repeat("m", 257), "max_tokens": 10, "messages": []any{map[string]any{"role": "user", "content": "Hi"}}}
	expect400(t, ts, "/v1/messages", body, "model")
	body["model"] = strings.Repeat("m", 256)
	if status, out := postMessages(t, ts, "/v1/messages", body); status != http.StatusOK && status != http.StatusNotFound {
		t.Errorf("a 256-character model: %d %s", status, out)
	}
}

// BenchmarkCacheWriteAt100 and BenchmarkCacheWriteAt100k commit one write to a store of 100 and
// of 100,000 entries (the cap): each write's start passes one entry's expiry, so the store stays
// at its size. Eviction and expiry are O(1): the two stay within 2x.
func BenchmarkCacheWriteAt100(b *testing.B)  { benchCacheWrite(b, 100) }
func BenchmarkCacheWriteAt100k(b *testing.B) { benchCacheWrite(b, cache.CacheMaxEntries) }

func benchCacheWrite(b *testing.B, n int) {
	step := cache.CacheTTL5m / time.Duration(n)
	s, st := storeWith(b, n, step)
	start := s.Now()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		var k cache.CacheKey
		copy(k[:], fmt.Sprintf("w%031d", i))
		(&cache.CachePlan{Start: start.Add(time.Duration(i) * step), Store: st, Srv: s.srv,
			Writes: []cache.CachedPrefix{{Key: k, Org: "org", Model: "m", Tokens: 1, Ttl: cache.CacheTTL5m}}}).Commit("")
	}
	if len(st.Entries) > n+1 {
		b.Fatalf("%d entries, want at most %d", len(st.Entries), n+1)
	}
}

// TestCacheReusedEntryStartsAfresh: a write reuses the memory of the entry the store dropped
// last (its spare; a commit expires after it writes, so the next write gets it), and the new
// entry carries nothing of the old one: its own key, TTL, times and no hits.
func TestCacheReusedEntryStartsAfresh(t *testing.T) {
	s, st := storeWith(t, 1, time.Minute) // one entry, expiring at +1m
	var old cache.CacheKey
	copy(old[:], fmt.Sprintf("%032d", 0))
	st.Entries[old].Hits = 5
	dropped := st.Entries[old]
	write := func(key string, at time.Duration, ttl time.Duration) {
		var k cache.CacheKey
		copy(k[:], key)
		(&cache.CachePlan{Start: core.Epoch().Add(at), Store: st, Srv: s.srv, Writes: []cache.CachedPrefix{{Key: k, Org: "o-" + key, Model: "m", Tokens: 7, Ttl: ttl}}}).Commit("")
	}
	write("first", 2*time.Minute, cache.CacheTTL5m) // drops the old entry, expired at +1m
	if st.Spare != dropped || len(st.Entries) != 1 {
		t.Fatalf("after the first write: spare %p (want the dropped %p), %d entries", st.Spare, dropped, len(st.Entries))
	}
	write("second", 3*time.Minute, cache.CacheTTL1h)
	var k cache.CacheKey
	copy(k[:], "second")
	e := st.Entries[k]
	if e != dropped || st.Spare != nil {
		t.Fatal("the second write did not take the dropped entry's memory")
	}
	if e.Hits != 0 || e.Org != "o-second" || e.Tokens != 7 || e.Ttl != cache.CacheTTL1h || !e.CreatedAt.Equal(core.Epoch().Add(3*time.Minute)) ||
		!e.ExpiresAt.Equal(core.Epoch().Add(63*time.Minute)) || e.In != &st.ByExp[1] || e.Prev != nil || e.Next != nil {
		t.Errorf("the new entry is %+v", *e)
	}
	if got := s.CacheEntries(); len(got) != 2 || st.N != 2 || got[0].Hits != 0 || got[1].Hits != 0 {
		t.Errorf("listed %+v (%d in the lists), want the two new entries without hits", got, st.N)
	}
}
