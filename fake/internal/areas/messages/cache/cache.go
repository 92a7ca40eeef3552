package cache

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/model"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/areas/files"

	"github.com/platformkit/platformkit/fake/internal/areas/ratelimit"

	"github.com/platformkit/platformkit/fake/internal/areas/models"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Prompt caching (conformance/EXTENSIONS.md, "Prompt caching"). The cache is always
// on and changes only usage, never content. A request is laid out as positions in render order
// (tools, system, messages); every cache_control marks a breakpoint, and the top-level
// cache_control marks the last eligible block. A breakpoint whose prefix reaches the model's
// minimum writes one entry keyed by a hash chain over everything before it; lookups walk back at
// most cacheLookback positions from each breakpoint for an entry an earlier request wrote.
//
// A request meets the cache in three stages of createMessage (messages.go), so that nothing
// changes before the request is admitted: the parse stage lays it out (layoutCache, the one walk
// of its blocks, which counts its input tokens and refuses misplaced cache_control), planCache
// looks its prefixes up (it computes the usage split and what to write), and the commit stage
// writes and refreshes entries and stores the diagnostics fingerprint once the answer exists.

const (
	CacheTTL5m = 5 * time.Minute
	CacheTTL1h = time.Hour
	// cacheLookback is how many positions a breakpoint's lookup checks, itself the first.
	cacheLookback = 20
	// cacheMaxBreakpoints is the most cache_control markers a request may carry, the top-level
	// one included.
	cacheMaxBreakpoints = 4
	// CacheMaxEntries bounds the entries of one server (or namespace): past it, the entries that
	// expire soonest are dropped, as a real cache may evict early.
	CacheMaxEntries = 100_000
	// CacheMaxFingerprints bounds the diagnostics fingerprints kept per server: the oldest goes
	// first, which a later request sees as previous_message_not_found ("too old").
	CacheMaxFingerprints = 10_000
	// CacheMaxBytes bounds the estimated bytes of a server's entries and fingerprints together
	// (a fingerprint grows with the request's messages): past it, entries go as past
	// cacheMaxEntries, then the oldest fingerprints.
	CacheMaxBytes = 32 << 20
	// CachesBytes bounds the caches of a server and all its namespaces together: each one's own
	// bound, times the 1,000 namespaces a server keeps, would allow 32 GB. Past it, the least
	// recently used namespaces' caches give way first (Server.trimIdleCaches).
	CachesBytes = 256 << 20
	// CacheEntryBase and cacheFingerprintBase are the fixed cost of an entry and a fingerprint:
	// the structs, their map slots and the heap's; their strings and hashes are added.
	CacheEntryBase       = 256
	cacheFingerprintBase = 320
	// defaultCacheMinimum is the minimum of a model the table below does not name.
	defaultCacheMinimum = 1024
)

// cacheMinimums is the minimum cacheable prefix of each model, by resolved model ID.
var cacheMinimums = map[string]int{
	"assistant-sonnet-4-6":          1024,
	"assistant-sonnet-4-5-20250929": 1024,
	"assistant-opus-4-1-20250805":   1024,
	"assistant-sonnet-4-20250514":   1024,
	"assistant-opus-4-20250514":     1024,
	"assistant-opus-4-7":            2048,
	"assistant-mythos-preview":      2048,
	"assistant-3-haiku-20240307":    2048,
	"assistant-opus-4-6":            4096,
	"assistant-opus-4-5-20251101":   4096,
	"assistant-haiku-4-5-20251001":  4096,
}

// cacheMinimum is the minimum cacheable prefix, in tokens, of a resolved model ID.
func cacheMinimum(model string) int {
	if n, ok := cacheMinimums[model]; ok {
		return n
	}
	return defaultCacheMinimum
}

// CacheKey identifies a prefix: the hash chain through its last block.
type CacheKey [sha256.Size]byte

// CachedPrefix is one live entry of the cache.
type CachedPrefix struct {
	Key       CacheKey
	Org       string
	workspace string
	Model     string
	Tokens    int
	Ttl       time.Duration
	CreatedAt time.Time
	ExpiresAt time.Time
	Hits      int
	// The entry's place in its store's expiry list: the list of the TTL that set its expiry.
	Prev, Next *CachedPrefix
	In         *expiryList
}

// size is the entry's estimated bytes, for the caches' byte bounds.
func (e *CachedPrefix) size() int {
	return CacheEntryBase + len(e.Org) + len(e.workspace) + len(e.Model)
}

// live reports whether the entry can be read by a request that started at t: an entry lives
// until exactly its expiry, which is gone.
func (e *CachedPrefix) live(t time.Time) bool { return t.Before(e.ExpiresAt) }

// CacheStore is a server's cache: its entries and the diagnostics fingerprints, under one mutex.
// The entries are also in two lists by expiry, one per TTL (the TTL that set the entry's
// expiry): requests start in order, so an entry written or refreshed goes at or next to the
// back of its list, and the soonest to expire is the earlier of the two fronts. A write, a
// refresh, an expiry and an eviction cost O(1) however many entries there are (a few steps more
// when concurrent requests commit out of their start order).
type CacheStore struct {
	Mu           sync.Mutex
	Entries      map[CacheKey]*CachedPrefix
	ByExp        [2]expiryList                // for the 5m and the 1h TTL
	N            int                          // entries in the lists (as in entries)
	Fps          map[string]*CacheFingerprint // by response id
	fpOrder      []string                     // response ids, oldest first
	core.Charged                              // the estimated size of the entries and fingerprints
	// Spare is the entry dropped last, kept for the next add: at the cap every write drops one
	// entry (expired or evicted) and adds one, and reusing the dropped one's memory, which the
	// drop just touched, spares the write an allocation and a cold cache line.
	Spare *CachedPrefix
}

// cacheOf is the prompt cache of st, built on first use and charged to budget.
func cacheOf(st *core.State, budget *core.ByteBudget) *CacheStore {
	return cacheStores.In(st.Stores).Get(func() *CacheStore {
		return &CacheStore{Entries: map[CacheKey]*CachedPrefix{}, Fps: map[string]*CacheFingerprint{}, Charged: core.Charged{Budget: budget}}
	})
}

// cacheStore is the server's cache store, built on first use.
func ServerCache(s *core.Server) *CacheStore { return cacheOf(s.State(), s.Cfg.Budget(CacheBudget)) }

// release takes the store's bytes out of the shared budget for good: its server was reset or
// dropped. The caller does not hold st.mu.
func (st *CacheStore) release() {
	st.Mu.Lock()
	defer st.Mu.Unlock()
	st.Leave()
	clear(st.Entries)
	st.ByExp, st.N, st.Spare = [2]expiryList{}, 0, nil
	clear(st.Fps)
	st.fpOrder = nil
}

// expiryList is a doubly linked list of entries, soonest expiry first.
type expiryList struct{ front, back *CachedPrefix }

// insert puts e in l at its place by expiry, looking from the back.
func (l *expiryList) insert(e *CachedPrefix) {
	after := l.back
	for after != nil && after.ExpiresAt.After(e.ExpiresAt) {
		after = after.Prev
	}
	e.In, e.Prev = l, after
	if after == nil {
		e.Next, l.front = l.front, e
	} else {
		e.Next, after.Next = after.Next, e
	}
	if e.Next == nil {
		l.back = e
	} else {
		e.Next.Prev = e
	}
}

// remove takes e out of its list.
func (e *CachedPrefix) unlink() {
	l := e.In
	if e.Prev == nil {
		l.front = e.Next
	} else {
		e.Prev.Next = e.Next
	}
	if e.Next == nil {
		l.back = e.Prev
	} else {
		e.Next.Prev = e.Prev
	}
	e.Prev, e.Next, e.In = nil, nil, nil
}

// listOf is the store's list for entries whose expiry the TTL d set.
func (st *CacheStore) listOf(d time.Duration) *expiryList {
	if d == CacheTTL1h {
		return &st.ByExp[1]
	}
	return &st.ByExp[0]
}

// soonest is the entry that expires first, nil when there is none.
func (st *CacheStore) soonest() *CachedPrefix {
	a, b := st.ByExp[0].front, st.ByExp[1].front
	if a == nil || (b != nil && b.ExpiresAt.Before(a.ExpiresAt)) {
		return b
	}
	return a
}

// Add keeps a new entry, whose expiry its TTL set. The caller holds st.mu.
func (st *CacheStore) Add(w CachedPrefix) {
	e := st.Spare
	if e == nil {
		e = new(CachedPrefix)
	}
	st.Spare = nil
	*e = w
	st.Entries[e.Key] = e
	st.listOf(e.Ttl).insert(e)
	st.N++
	st.Grow(e.size())
}

// extend moves e's expiry to exp, which the TTL d set (a later expiry only). The caller holds
// st.mu.
func (st *CacheStore) extend(e *CachedPrefix, exp time.Time, d time.Duration) {
	if !exp.After(e.ExpiresAt) {
		return
	}
	e.unlink()
	e.ExpiresAt = exp
	st.listOf(d).insert(e)
}

// drop forgets e. The caller holds st.mu.
func (st *CacheStore) drop(e *CachedPrefix) {
	e.unlink()
	delete(st.Entries, e.Key)
	st.N--
	st.Grow(-e.size())
	*e = CachedPrefix{} // nothing outside the store points at an entry
	st.Spare = e
}

// popSoonest drops the entry that expires soonest. The caller holds st.mu.
func (st *CacheStore) popSoonest() { st.drop(st.soonest()) }

// expire drops the entries expired at t: from the fronts of the lists, so what is left costs
// nothing.
// The caller holds st.mu.
func (st *CacheStore) expire(t time.Time) {
	for e := st.soonest(); e != nil && !e.live(t); e = st.soonest() {
		st.drop(e)
	}
}

// shrink drops entries, soonest expiry first, then the oldest fingerprints, while over says the
// store is too large and it holds anything. The caller holds st.mu.
func (st *CacheStore) shrink(over func() bool) {
	for over() {
		switch {
		case st.N > 0:
			st.popSoonest()
		case len(st.fpOrder) > 0:
			st.forgetOldest()
		default:
			return
		}
	}
}

// cachePos is one block of the layout: a tool, a system block or a message's content block.
type cachePos struct {
	cum      int  // input tokens from the start of the request through this block
	pos      int  // the lookback position: a run of tool_use (or tool_result) blocks is one
	eligible bool // the top-level cache_control may target it
	explicit *cacheMark
}

// cacheMark is a breakpoint: the block it ends at and its TTL.
type cacheMark struct {
	at   int // index into the layout's blocks
	ttl  time.Duration
	path string // the cache_control's field path
}

// CacheLayout is a request laid out for the cache.
type CacheLayout struct {
	blocks []cachePos
	keys   []CacheKey  // with keyed: the prefix key through each block
	n      int         // the blocks laid out (kept in blocks or not)
	marks  []cacheMark // in render order
	Total  int         // what count_tokens reports
	hashed bool
	model  string // with hashed: the resolved model the keys are for
	fp     *CacheFingerprint
}

// cacheContext is what a request's keys depend on besides its blocks.
type cacheContext struct {
	org, workspace, model, speed string
	// messages is everything that invalidates the messages level only: tool_choice, thinking,
	// output_config (format and effort), the beta output_format and whether any image is present.
	messages string
	// diagnose: the request asked for diagnostics, so the layout also fingerprints each level.
	diagnose bool
}

// layoutCache is the one walk of the request's blocks, in the parse stage: it counts the input
// tokens (countValue over system, messages, tools, tool_choice, thinking and output_config:
// total is count_tokens's figure, and each block's cum what the cache places), lays req out and
// checks its cache_control markers: the placement, count, TTL order and empty-block errors are
// 400s naming the field. With keyed set, every block also gets its prefix key and the layout the
// diagnostics fingerprint.
//
// A block that names a file (Files) counts as the inline form of the file's content would, and
// its prefix key covers the file's ID and content (fileTokens, hashWriter.file).
func layoutCache(req *wire.MessageRequest, fs Files, ctx *cacheContext, keyed bool) (*CacheLayout, error) {
	l := &CacheLayout{hashed: keyed}
	body := req.Raw
	var h hashWriter
	if keyed {
		h = newHashWriter()
		h.str("org", ctx.org)
		h.str("workspace", ctx.workspace)
		h.str("model", ctx.model)
		l.model = ctx.model
		l.fp = &CacheFingerprint{model: ctx.model + "\x00" + ctx.speed, org: ctx.org, workspace: ctx.workspace}
	}
	pending := 0 // structural tokens of arrays and messages, carried to the next block
	pos := -1
	lastRun := ""
	// Without keys, blocks are kept only for the top-level cache_control to walk back over; a
	// marked block is kept, and n counts them all.
	keep := keyed || body["cache_control"] != nil
	// add lays out the next block; with keyed, the caller has hashed it first.
	add := func(tokens int, eligible bool, run string) {
		if run == "" || run != lastRun {
			pos++
		}
		lastRun = run
		l.Total += pending + tokens
		pending = 0
		l.n++
		if keyed {
			l.keys = append(l.keys, h.sum())
		}
		if keep {
			l.blocks = append(l.blocks, cachePos{cum: l.Total, pos: pos, eligible: eligible})
		}
	}
	// The fingerprint's hashes of each level, for diagnostics only.
	fingerprint := keyed && ctx.diagnose
	var tfp, sfp hash.Hash
	if fingerprint {
		tfp, sfp = sha256.New(), sha256.New()
	}
	if tools, ok := body["tools"].([]any); ok {
		pending++
		for i, t := range tools {
			if keyed {
				h.block(t)
			}
			add(model.CountValue("tools", t), true, "")
			if fingerprint {
				writeCanon(tfp, t)
			}
			if marked(t) {
				l.mark(t, fmt.Sprintf("tools.%d", i))
			}
		}
	}
	if keyed {
		h.str("speed", ctx.speed)
		l.fp.toolsEnd = l.Total
		if fingerprint {
			l.fp.tools = sumOf(tfp)
		}
	}
	switch sys := body["system"].(type) {
	case string:
		if keyed {
			h.block(sys)
		}
		add(model.CountValue("system", sys), sys != "", "")
		if fingerprint {
			writeCanon(sfp, sys)
		}
	case []any:
		pending++
		for i, b := range sys {
			bm, _ := b.(map[string]any)
			text, _ := bm["text"].(string)
			if keyed {
				h.block(b)
			}
			add(model.CountValue("system", b), text != "", "")
			if fingerprint {
				writeCanon(sfp, b)
			}
			if marked(b) {
				path := fmt.Sprintf("system.%d", i)
				if bm["type"] == "text" && text == "" {
					return nil, core.InvalidField(path+".text", "cache_control cannot be set for empty text blocks")
				}
				l.mark(b, path)
			}
		}
	}
	if keyed {
		h.str("messages", ctx.messages)
		l.fp.systemEnd = l.Total
		if fingerprint {
			l.fp.system = sumOf(sfp)
		}
	}
	msgs, _ := body["messages"].([]any)
	pending++
	if fingerprint {
		// Sized once: the fingerprint is kept, and its size counted as its length, so append's
		// spare capacity would be memory the bound does not see.
		l.fp.Messages = make([]CacheKey, 0, len(msgs))
		l.fp.MessageCum = make([]int, 0, len(msgs))
	}
	for i, m := range msgs {
		m, _ := m.(map[string]any)
		pending++ // the message object
		for k, v := range m {
			if k != "content" {
				pending += model.CountValue(k, v)
			}
		}
		if keyed {
			h.str("message", fmt.Sprint(m["role"]))
		}
		var mh hash.Hash
		if fingerprint {
			mh = sha256.New()
			writeCanon(mh, m)
		}
		switch content := m["content"].(type) {
		case string:
			if keyed {
				h.block(content)
			}
			add(model.CountValue("content", content), content != "", "")
		case []any:
			pending++
			for j, b := range content {
				bm, _ := b.(map[string]any)
				typ, _ := bm["type"].(string)
				run := ""
				if typ == "tool_use" || typ == "tool_result" {
					run = typ
				}
				text, hasText := bm["text"].(string)
				eligible := typ != "thinking" && typ != "redacted_thinking" && !(typ == "text" && text == "")
				if keyed {
					h.block(b)
				}
				tokens := model.CountValue("content", b)
				if len(fs) > 0 {
					_ = wire.FileRefsIn(b, func(r wire.FileRef) error {
						if f := fs[r.ID]; f != nil {
							tokens += fileTokens(r, f)
							if keyed {
								h.file(f)
							}
						}
						return nil
					})
				}
				add(tokens, eligible, run)
				// (The request schema refuses cache_control on thinking blocks.)
				if marked(b) {
					path := fmt.Sprintf("messages.%d.content.%d", i, j)
					if typ == "text" && hasText && text == "" {
						return nil, core.InvalidField(path+".text", "cache_control cannot be set for empty text blocks")
					}
					l.mark(b, path)
				}
				if typ == "tool_result" {
					inner, _ := bm["content"].([]any)
					for k, ib := range inner {
						// A breakpoint inside a tool result counts at the enclosing block.
						if marked(ib) {
							l.mark(ib, fmt.Sprintf("messages.%d.content.%d.content.%d", i, j, k))
						}
					}
				}
			}
		}
		if fingerprint {
			l.fp.Messages = append(l.fp.Messages, sumOf(mh))
			l.fp.MessageCum = append(l.fp.MessageCum, l.Total)
		}
	}
	// The uncached tail: what follows the messages in no block, and the parameters that are not
	// positions (tool_choice, thinking, output_config) but are part of the messages level's key.
	l.Total += pending
	for _, f := range []string{"tool_choice", "thinking", "output_config"} {
		if v, ok := body[f]; ok {
			l.Total += model.CountValue(f, v)
		}
	}
	if keyed {
		l.fp.other = sha256.Sum256([]byte(ctx.messages))
	}
	if err := l.automatic(body["cache_control"]); err != nil {
		return nil, err
	}
	if len(l.marks) > cacheMaxBreakpoints {
		m := l.marks[cacheMaxBreakpoints]
		return nil, core.InvalidField(m.path, "A maximum of %d blocks with cache_control may be provided. Found %d.", cacheMaxBreakpoints, len(l.marks))
	}
	seen5m := false
	for _, m := range l.marks {
		if m.ttl == CacheTTL5m {
			seen5m = true
		} else if seen5m {
			return nil, core.InvalidField(m.path+".ttl", "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.")
		}
	}
	return l, nil
}

// marked reports whether a block carries cache_control.
func marked(b any) bool {
	bm, _ := b.(map[string]any)
	cc, _ := bm["cache_control"].(map[string]any)
	return cc != nil
}

// mark records the breakpoint a marked block's cache_control sets, at the last block laid out;
// path is the block's field path.
func (l *CacheLayout) mark(b any, path string) {
	cc := b.(map[string]any)["cache_control"].(map[string]any)
	m := cacheMark{at: l.n - 1, ttl: ttlOf(cc), path: path + ".cache_control"}
	l.marks = append(l.marks, m)
	if m.at >= len(l.blocks) {
		return // not kept: no top-level cache_control needs it
	}
	if last := &l.blocks[m.at]; last.explicit == nil {
		last.explicit = &cacheMark{at: m.at, ttl: m.ttl, path: m.path}
	}
}

func ttlOf(cc map[string]any) time.Duration {
	if cc["ttl"] == "1h" {
		return CacheTTL1h
	}
	return CacheTTL5m
}

func ttlName(d time.Duration) string {
	if d == CacheTTL1h {
		return "1h"
	}
	return "5m"
}

// automatic applies the top-level cache_control: a breakpoint at the last eligible block,
// walking back past thinking and empty text; none eligible skips it. A block that already has
// one of the same TTL is left as it is; of another TTL it is a 400.
func (l *CacheLayout) automatic(v any) error {
	cc, _ := v.(map[string]any)
	if cc == nil {
		return nil
	}
	ttl := ttlOf(cc)
	for i := len(l.blocks) - 1; i >= 0; i-- {
		b := l.blocks[i]
		if !b.eligible {
			continue
		}
		if b.explicit != nil {
			if b.explicit.ttl != ttl {
				return core.InvalidField("cache_control.ttl", "Top-level cache_control has ttl='%s' but the target block already has cache_control with ttl='%s'", ttlName(ttl), ttlName(b.explicit.ttl))
			}
			return nil
		}
		// Render order: the automatic mark goes after every explicit one before it.
		m := cacheMark{at: i, ttl: ttl, path: "cache_control"}
		at := len(l.marks)
		for at > 0 && l.marks[at-1].at > i {
			at--
		}
		l.marks = slices.Insert(l.marks, at, m)
		return nil
	}
	return nil
}

// CachePlan is a request's cache accounting, computed before anything changes: the input side of
// usage and what commit will write.
type CachePlan struct {
	Start                  time.Time
	total                  int // count_tokens's figure
	Read, Write1h, Write5m int
	Input                  int
	Writes                 []CachedPrefix
	hits                   []CacheKey
	Fp                     *CacheFingerprint
	// Diagnosis is the diagnostics field of the answer: nil when the request asked for none.
	Diagnosis *wire.Diagnostics
	Store     *CacheStore
	Srv       *core.Server // the server (or namespace) whose store it is
}

// Creation is cache_creation_input_tokens.
func (p *CachePlan) Creation() int { return p.Write1h + p.Write5m }

// InputUsage is what rate limits count of the request's input (ratelimit.go).
func (p *CachePlan) InputUsage() ratelimit.InputUsage {
	return ratelimit.InputUsage{Input: p.Input, CacheCreation: p.Creation(), CacheRead: p.Read}
}

// LayoutRequest is the parse stage's one walk of the request's blocks (layoutCache): it counts
// the input tokens, lays the request out and refuses misplaced cache_control. A create that may
// use the cache (it asks for diagnostics, or its body may hold a cache_control) is also keyed:
// each block gets its prefix key. A request without breakpoints and without diagnostics is only
// counted: it can neither read nor write, and its fingerprint is not kept (a later request naming
// it is answered previous_message_not_found, as the platform answers when the earlier turn did
// not ask for diagnostics). Only the others pay for hashing.
//
// fs are the files the request's blocks name, as the parse stage resolved them.
func LayoutRequest(s *core.Server, c *core.Call, req *wire.MessageRequest, fs Files, create bool) (*CacheLayout, error) {
	_, diagnose := req.Raw["diagnostics"].(map[string]any)
	if !create || (!diagnose && !mayMark(req.Body)) {
		return layoutCache(req, fs, nil, false)
	}
	ctx := newCacheContext(s, c, req)
	ctx.diagnose = diagnose
	return layoutCache(req, fs, ctx, true)
}

// Files are the files a request's blocks name by file_id (wire.FileRef), by ID, as the parse
// stage resolved them (files.LookupSource); nil when it names none.
type Files map[string]*files.File

// fileTokens is what a block's reference to f counts beyond the reference as sent. A document's
// or an image's source {type: file, file_id} counts as the inline source of the same content
// would, in its place: {type: base64, media_type, data} with the content in base64, or, for a
// plain-text document, {type: text, media_type: text/plain, data} with the text; so a request
// counts the same whether it uploads a file or sends its bytes. A container_upload's file goes
// to the code execution container, not into the prompt, so it counts nothing beyond the block.
func fileTokens(r wire.FileRef, f *files.File) int {
	if r.Source == nil {
		return 0
	}
	content := f.Content()
	inline := map[string]any{"type": "base64", "media_type": f.MimeType, "data": ""}
	data := base64.StdEncoding.EncodedLen(len(content))
	if f.MimeType == "text/plain" && r.Kind == "document" {
		inline["type"], data = "text", len(content)
	}
	// The data counts as model.CountValue counts a "data" string, four bytes a token: added here
	// from its length, so that the content is not encoded for the count.
	return model.CountValue("source", inline) + (data+3)/4 - model.CountValue("source", r.Source)
}

// PlanCache is the plan stage: it looks the layout's prefixes up, changing nothing (commit does
// the writes once the request has been admitted and answered), and splits the input tokens the
// parse stage counted into what the cache reads, what it writes and the rest.
func PlanCache(s *core.Server, c *core.Call, req *wire.MessageRequest, l *CacheLayout) *CachePlan {
	start := s.Now()
	if !l.hashed {
		return &CachePlan{Start: start, total: l.Total, Input: l.Total}
	}
	store := cacheOf(c.St, s.Cfg.Budget(CacheBudget))
	p := &CachePlan{Start: start, total: l.Total, Store: store, Srv: s}
	d, diagnose := req.Raw["diagnostics"].(map[string]any)
	if diagnose {
		p.Fp = l.fp
	}
	minimum := cacheMinimum(l.model)
	store.Mu.Lock()
	defer store.Mu.Unlock()
	store.expire(s.Now()) // released on read too, not only by the next write
	// a: the highest hit of any breakpoint's window. The window is cacheLookback positions,
	// the breakpoint's own the first; each earlier position is tried at its last block.
	a := 0
	for _, m := range l.marks {
		top := l.blocks[m.at].pos
		for i := m.at; i >= 0 && l.blocks[i].pos > top-cacheLookback; {
			b := l.blocks[i]
			if e := store.Entries[l.keys[i]]; e != nil && e.live(p.Start) {
				a = max(a, b.cum)
				p.hits = append(p.hits, l.keys[i])
				break
			}
			for i--; i >= 0 && l.blocks[i].pos == b.pos; i-- {
			}
		}
	}
	b, cum := a, a
	for _, m := range l.marks {
		blk := l.blocks[m.at]
		if blk.cum < minimum {
			continue // too short to cache: written nowhere, and no error
		}
		cum = max(cum, blk.cum)
		if m.ttl == CacheTTL1h {
			b = max(b, blk.cum)
		}
		p.Writes = append(p.Writes, CachedPrefix{Key: l.keys[m.at], Org: l.fp.org, workspace: l.fp.workspace, Model: l.model,
			Tokens: blk.cum, Ttl: m.ttl})
	}
	p.Read, p.Write1h, p.Write5m, p.Input = a, b-a, cum-b, l.Total-cum
	l.fp.cached = cum
	if diagnose {
		p.Diagnosis = store.diagnose(d["previous_message_id"], l.fp)
	}
	return p
}

// mayMark reports whether the request body may hold a cache_control: it names one, or it has a
// \u escape that might spell one. Without, the request is laid out once, without keys.
func mayMark(data []byte) bool {
	return bytes.Contains(data, []byte("cache_control")) || bytes.Contains(data, []byte(`\u`))
}

// cacheContext is the part of the keys that comes from the credential and the parameters.
func newCacheContext(s *core.Server, c *core.Call, req *wire.MessageRequest) *cacheContext {
	ctx := &cacheContext{model: req.Model, speed: cmp.Or(req.Speed, "standard"), workspace: WorkspaceID(c)}
	if m := models.Find(c.St.Fx, req.Model); m != nil {
		ctx.model = m.ID
	}
	if c.Org != nil {
		ctx.org = c.Org.ID
	}
	images := false
	_ = req.VisitBlocks(func(_ wire.BlockAt, b wire.Block) error {
		images = images || b["type"] == "image"
		return nil
	})
	var sb strings.Builder
	for _, f := range []string{"tool_choice", "thinking", "output_config", "output_format"} {
		data, _ := json.Marshal(req.Raw[f])
		sb.WriteString(f + "=")
		sb.Write(data)
		sb.WriteByte(0)
	}
	fmt.Fprintf(&sb, "images=%t", images)
	ctx.messages = sb.String()
	return ctx
}

// WorkspaceID is the workspace of the request's credential: "" for the default workspace.
func WorkspaceID(c *core.Call) string {
	if c.Cred == nil {
		return ""
	}
	return c.Cred.WorkspaceID
}

// Commit writes the plan's entries and refreshes the ones it hit, each to expire its TTL after
// the request's start, and keeps the diagnostics fingerprint under the answer's id.
func (p *CachePlan) Commit(id string) {
	st := p.Store
	if st == nil {
		return // nothing to write or keep
	}
	if !st.commit(p, id) {
		return
	}
	// Past the shared budget, the least recently used namespaces make room, then this one.
	p.Srv.Root().TrimIdle(p.Srv, p.Srv.Cfg.Budget(CacheBudget), trimCache)
}

// commit does the plan's writes under the store's lock and reports whether the shared budget
// is over its limit.
func (st *CacheStore) commit(p *CachePlan, id string) bool {
	st.Mu.Lock()
	defer st.Mu.Unlock()
	if st.Released {
		return false
	}
	for _, k := range p.hits {
		if e := st.Entries[k]; e != nil {
			e.Hits++
			st.extend(e, p.Start.Add(e.Ttl), e.Ttl)
		}
	}
	for _, w := range p.Writes {
		exp := p.Start.Add(w.Ttl)
		if e := st.Entries[w.Key]; e != nil && e.live(p.Start) {
			st.extend(e, exp, w.Ttl)
			e.Ttl = max(e.Ttl, w.Ttl)
			continue
		} else if e != nil { // expired, not yet dropped
			st.drop(e)
		}
		w.CreatedAt, w.ExpiresAt = p.Start, exp
		st.Add(w)
	}
	st.expire(p.Start)
	if id != "" && p.Fp != nil {
		st.remember(id, p.Fp)
	}
	st.shrink(func() bool { return st.N > CacheMaxEntries || st.Bytes > CacheMaxBytes })
	return st.OverBudget()
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// trimCache drops srv's cache entries (soonest expiry first, then the oldest fingerprints) while
// the caches of all namespaces are over their shared budget (cachesBytes).
func trimCache(srv *core.Server) {
	if st := cacheStores.In(srv.State().Stores).V.Load(); st != nil && st.OverBudget() {
		st.Mu.Lock()
		st.shrink(st.Budget.Over)
		st.Mu.Unlock()
	}
}

// hashWriter builds the chain of prefix keys.
type hashWriter struct{ h hash.Hash }

func newHashWriter() hashWriter { return hashWriter{sha256.New()} }

func (w hashWriter) str(tag, v string) {
	fmt.Fprintf(w.h, "%s:%d:%s;", tag, len(v), v)
}

// block adds a block, without its cache_control markers (moving a breakpoint keeps the prefix).
func (w hashWriter) block(b any) {
	w.h.Write([]byte("block:"))
	writeCanon(w.h, b)
}

// file adds a file a block names: its ID and its content, which the block as hashed names only
// by the ID.
func (w hashWriter) file(f *files.File) {
	w.str("file", f.ID)
	fmt.Fprintf(w.h, "content:%d:", len(f.Content()))
	w.h.Write(f.Content())
}

func (w hashWriter) sum() CacheKey {
	var k CacheKey
	w.h.Sum(k[:0])
	return k
}

func sumOf(h hash.Hash) CacheKey {
	var k CacheKey
	h.Sum(k[:0])
	return k
}

// writeCanon writes the canonical JSON of v without any cache_control, at any depth.
func writeCanon(h hash.Hash, v any) {
	data, _ := json.Marshal(StripCacheControl(v))
	h.Write(data)
	h.Write([]byte{0})
}

func StripCacheControl(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if !HasCacheControl(v) {
			return v
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			if k != "cache_control" {
				out[k] = StripCacheControl(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = StripCacheControl(x)
		}
		return out
	}
	return v
}

// HasCacheControl reports whether m carries a cache_control at any depth.
func HasCacheControl(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "cache_control" || HasCacheControl(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if HasCacheControl(x) {
				return true
			}
		}
	}
	return false
}
