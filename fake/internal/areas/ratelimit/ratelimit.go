package ratelimit

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/models"

	"github.com/platformkit/platformkit/fake/internal/areas/admin"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Rate limits, enforced on request (conformance/EXTENSIONS.md, "Rate limits"). Off by default:
// WithRateLimits, the binary's -rate-limits flag or PUT /_fake/rate_limits turn them on per
// server or namespace. While on, every Messages, count_tokens and Completions answer carries the
// rate-limit headers, and a request that a bucket cannot take is a 429 that changes nothing.
//
// The buckets are token buckets on the server's clock: one per (organization, group, limiter
// type) and, for a key of a workspace, one per (workspace, group, limiter type) too. A bucket
// holds at most its limit and refills limit/60 tokens a second, continuously. Its level is kept
// in units of 1/60e9 token, so that a refill over any whole number of nanoseconds is an exact
// integer (limit units per nanosecond) and "advance the clock by retry-after" always lets the
// refused request through.

// unitsPerToken is a token in bucket units: a bucket of limit L refills L units per nanosecond,
// L tokens per minute.
const unitsPerToken = int64(time.Minute)

// maxEnforcedLimit bounds a limit so that a full bucket's units fit an int64; a larger limit is
// enforced as this one (and reported as given).
const maxEnforcedLimit = 100_000_000

// The limiter types the buckets enforce, as the admin area names them.
const (
	LimitRequests = "requests_per_minute"
	LimitInput    = "input_tokens_per_minute"
	LimitOutput   = "output_tokens_per_minute"
)

// limiters are the limiter types in the order of the arrays indexed by them.
var limiters = [3]string{LimitRequests, LimitInput, LimitOutput}

func limiterIndex(t string) int {
	for i, l := range limiters {
		if l == t {
			return i
		}
	}
	return -1
}

// cacheReadCountsModels count cache reads against their input-token limit (B3's † model).
var cacheReadCountsModels = []string{"assistant-3-haiku-20240307"}

// InputUsage is the input side of a request as its input-token limit counts it:
// input_tokens, cache_creation_input_tokens and cache_read_input_tokens of its usage.
type InputUsage struct {
	Input, CacheCreation, CacheRead int
}

// Charged is what the input-token bucket takes for u on model: uncached input and cache writes,
// and cache reads only on the models that count them.
func (u InputUsage) Charged(model string) int64 {
	n := int64(u.Input) + int64(u.CacheCreation)
	if slices.Contains(cacheReadCountsModels, model) {
		n += int64(u.CacheRead)
	}
	return n
}

// rateLimiter is one server's (or namespace's) enforcement: whether it is on, and the buckets.
type rateLimiter struct {
	on      atomic.Bool
	mu      sync.Mutex
	buckets map[bucketKey]*bucket
}

// bucketKey names a bucket: scope "organization" (owner is the organization's UUID) or
// "workspace" (owner is the workspace ID), the rate-limit group's ID and the limiter type.
type bucketKey struct {
	scope, owner, group, limiter string
}

// bucket is a token bucket's level at the time it was last taken from; a bucket never taken from
// is full. limit is the limit it was last used with, which GET /_fake/rate_limits reports.
type bucket struct {
	level int64 // units; below zero when output went past what was left
	at    time.Time
	limit int64
}

// levelAt is the bucket's level at now with limit: the level left, refilled since then, at most
// full.
func (b *bucket) levelAt(now time.Time, limit int64) int64 {
	limit = min(limit, maxEnforcedLimit)
	full := limit * unitsPerToken
	if b == nil {
		return full
	}
	need := full - b.level
	if need <= 0 || limit == 0 {
		return min(b.level, full)
	}
	dt := int64(now.Sub(b.at))
	if dt <= 0 {
		return b.level
	}
	if dt >= (need+limit-1)/limit {
		return full
	}
	return b.level + limit*dt
}

// waitFor is how long until the bucket, at level at now, holds n tokens: whole nanoseconds,
// rounded up. The caller has checked that n fits the limit.
func waitFor(level, n, limit int64) time.Duration {
	short := n*unitsPerToken - level
	if short <= 0 {
		return 0
	}
	limit = min(limit, maxEnforcedLimit)
	return time.Duration((short + limit - 1) / limit)
}

// limiterUse is one bucket a request uses: its key, limit, current level and what the request
// asks of it at admission (need) and takes (take).
type limiterUse struct {
	key        bucketKey
	kind       int // the index of key.limiter in limiters
	limit      int64
	level      int64
	need, take int64
}

// admission is an admitted request's use of the buckets: the output-token bucket is charged
// when the answer is known (chargeOutput), and the headers written then.
type admission struct {
	s     *core.Server
	c     *core.Call
	uses  []limiterUse
	model string
}

// rateGroup finds the organization's rate-limit group of a request: the model group listing
// model (as sent, or the ID its alias resolves to), or for count_tokens the token_count group.
// nil when the organization limits none.
func rateGroup(c *core.Call, model string, tokenCount bool) *admin.RateLimitGroup {
	id := model
	if m := models.Find(c.St.Fx, model); m != nil {
		id = m.ID
	}
	for _, g := range admin.AdminSection.In(c.St.Fx.Sections).RateLimits[c.Org] {
		switch {
		case tokenCount && g.GroupType == "token_count":
			return g
		case !tokenCount && g.GroupType == "model_group" && (slices.Contains(g.Models, model) || slices.Contains(g.Models, id)):
			return g
		}
	}
	return nil
}

// Admit decides whether the request may go on while enforcement is on: nil when it is off. A
// request is admitted when every bucket it uses holds one request, its input tokens and one output
// token; it then takes the request and the input tokens. Otherwise it is refused with a 429
// (rate_limit_error, retry-after, x-should-retry) that changes no bucket, and the journal
// names the limit that refused it. Either way the answer carries the headers.
func Admit(s *core.Server, c *core.Call, model string, in InputUsage, tokenCount bool) (*admission, error) {
	if !limiterOf(s).on.Load() {
		return nil, nil
	}
	g := rateGroup(c, model, tokenCount)
	if g == nil {
		return nil, nil // nothing limits this model here: no buckets, no headers
	}
	// The limits by limiter (limiters' order), ok when set: the organization's, and a workspace
	// key's, which are its overrides over the organization's.
	var orgL, wsL [3]int64
	var orgOK, wsOK [3]bool
	for _, l := range g.Limits {
		if i := limiterIndex(l.Type); i >= 0 {
			orgL[i], orgOK[i] = l.Value, true
		}
	}
	ws := c.Cred.WorkspaceID
	if ws != "" {
		wsL, wsOK = orgL, orgOK
		a := admin.StoreOf(s, c)
		a.Mu.Lock()
		for _, l := range a.Overrides[g][ws] {
			if i := limiterIndex(l.Type); i >= 0 {
				wsL[i], wsOK[i] = l.Value, true
			}
		}
		a.Mu.Unlock()
	}
	amounts := [3]int64{1, in.Charged(model), 1}
	now := s.Now()
	rl := limiterOf(s)
	rl.mu.Lock()
	defer rl.mu.Unlock()
	uses := make([]limiterUse, 0, 6)
	add := func(scope, owner string, ls [3]int64, ok [3]bool) {
		for i, t := range limiters {
			if !ok[i] || tokenCount && i != 0 {
				continue
			}
			k := bucketKey{scope, owner, g.Group.ID, t}
			u := limiterUse{key: k, kind: i, limit: ls[i], level: rl.buckets[k].levelAt(now, ls[i]), need: amounts[i]}
			if t != LimitOutput {
				u.take = u.need
			}
			uses = append(uses, u)
		}
	}
	add("organization", c.Org.UUID, orgL, orgOK)
	if ws != "" {
		add("workspace", ws, wsL, wsOK)
	}
	adm := &admission{s: s, c: c, uses: uses, model: model}
	// The refusing limit: one the request can never fit, else the one it waits longest for.
	refuse, wait := -1, time.Duration(0)
	for i, u := range uses {
		switch {
		case u.need > min(u.limit, maxEnforcedLimit):
			if refuse < 0 || wait >= 0 {
				refuse, wait = i, -1
			}
		case wait >= 0:
			if w := waitFor(u.level, u.need, u.limit); w > wait {
				refuse, wait = i, w
			}
		}
	}
	if refuse >= 0 {
		adm.writeHeaders(now)
		return nil, adm.refusal(uses[refuse], wait)
	}
	if rl.buckets == nil {
		rl.buckets = map[bucketKey]*bucket{}
	}
	for i, u := range uses {
		uses[i].level = u.level - u.take*unitsPerToken
		if b := rl.buckets[u.key]; b != nil {
			b.level, b.at, b.limit = uses[i].level, now, u.limit
		} else {
			rl.buckets[u.key] = &bucket{level: uses[i].level, at: now, limit: u.limit}
		}
	}
	return adm, nil
}

// refusal is the 429 for the limit u: retry-after as long as u needs to hold the request (and
// every other short bucket, which refill meanwhile), or, for a request larger than the limit
// itself, x-should-retry: false, since no wait lets it through.
func (adm *admission) refusal(u limiterUse, wait time.Duration) error {
	c := adm.c
	c.X.RateLimit = u.key.scope + " " + u.key.group + " " + u.key.limiter
	whose, ref := "organization's", "org: "+adm.c.Org.UUID
	if u.key.scope == "workspace" {
		whose, ref = "workspace's", "workspace: "+u.key.owner
	}
	what := map[string]string{LimitRequests: "requests", LimitInput: "input tokens", LimitOutput: "output tokens"}[u.key.limiter]
	msg := fmt.Sprintf("This request would exceed your %s rate limit of %s %s per minute (%s, model: %s).", whose, Thousands(u.limit), what, ref, adm.model)
	if wait < 0 {
		c.Header("x-should-retry", "false")
		return core.NewError(core.ErrRateLimit, "%s It needs %s %s, more than the limit allows in any minute: reduce the prompt length or ask for a higher limit.", msg, Thousands(u.need), what)
	}
	c.Header("x-should-retry", "true")
	adm.s.WriteRetryAfter(c.Context, wait)
	return core.NewError(core.ErrRateLimit, "%s You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.", msg)
}

// ChargeOutput takes the answer's output tokens from the output-token buckets (which may go
// below zero: the answer is not cut) and writes the headers. Safe on a nil admission.
func (adm *admission) ChargeOutput(output int) {
	if adm == nil {
		return
	}
	rl := limiterOf(adm.s)
	now := adm.s.Now()
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if !rl.on.Load() {
		return // turned off meanwhile: its buckets are forgotten, and the answer has no headers
	}
	if rl.buckets == nil {
		rl.buckets = map[bucketKey]*bucket{}
	}
	for i, u := range adm.uses {
		b := rl.buckets[u.key]
		if b == nil { // the buckets were cleared (reset, or turned off and on) meanwhile
			b = &bucket{level: min(u.limit, maxEnforcedLimit) * unitsPerToken, at: now, limit: u.limit}
			rl.buckets[u.key] = b
		}
		b.level, b.at, b.limit = b.levelAt(now, u.limit), now, u.limit
		if u.key.limiter == LimitOutput {
			b.level -= int64(output) * unitsPerToken
		}
		adm.uses[i].level = b.level
	}
	adm.writeHeaders(now)
}

// headerFamilies are the prefixes the headers are sent under: the reference's and the one the
// official SDKs and clients read.
var headerFamilies = []string{"vendor-ratelimit-", "anthropic-ratelimit-"}

// rateHeaderNames are the headers' canonical names, by triple (requests, input-tokens,
// output-tokens, tokens), field (limit, remaining, reset) and family: worked out once, not per
// answer.
var rateHeaderNames = func() (names [4][3][2]string) {
	for i, kind := range []string{"requests", "input-tokens", "output-tokens", "tokens"} {
		for j, field := range []string{"limit", "remaining", "reset"} {
			for k, f := range headerFamilies {
				names[i][j][k] = http.CanonicalHeaderKey(f + kind + "-" + field)
			}
		}
	}
	return
}()

// writeHeaders writes the limit, remaining and reset of each limiter type the request uses, from
// its most restrictive bucket, and the tokens triple that sums input and output.
func (adm *admission) writeHeaders(now time.Time) {
	type triple struct {
		limit, remaining int64
		reset            time.Time
		ok               bool
	}
	var pick [4]triple // by limiter, then the tokens triple
	for _, u := range adm.uses {
		rem := max(u.level, 0) / unitsPerToken
		if p := pick[u.kind]; !p.ok || rem < p.remaining || rem == p.remaining && u.limit < p.limit {
			pick[u.kind] = triple{u.limit, rem, resetAt(now, u.level, u.limit), true}
		}
	}
	for i := 1; i <= 2; i++ {
		if t := &pick[i]; t.ok {
			t.remaining = RoundThousand(t.remaining)
			tok := &pick[3]
			if !tok.ok || t.reset.Before(tok.reset) {
				tok.reset = t.reset
			}
			tok.limit += t.limit
			tok.remaining += t.remaining
			tok.ok = true
		}
	}
	h := adm.c.Writer.Header()
	// The answer's rate-limit headers are the fake's alone, those of the buckets that admitted
	// it: a replayed recording's (another deployment's, at another time) are dropped, every
	// family, not only those the fake sends (conformance/EXTENSIONS.md, "Rate limits").
	for name := range h {
		if strings.Contains(strings.ToLower(name), "ratelimit") {
			delete(h, name)
		}
	}
	for i, t := range pick {
		if !t.ok {
			continue
		}
		// The two families share each value's slice: nothing appends to these headers.
		values := [3][]string{{strconv.FormatInt(t.limit, 10)}, {strconv.FormatInt(t.remaining, 10)},
			{t.reset.UTC().Truncate(time.Second).Format(time.RFC3339)}}
		for j, v := range values {
			for _, name := range rateHeaderNames[i][j] {
				h[name] = v
			}
		}
	}
}

// resetAt is when a bucket at level is full again.
func resetAt(now time.Time, level, limit int64) time.Time {
	limit = min(limit, maxEnforcedLimit)
	short := limit*unitsPerToken - level
	if short <= 0 || limit == 0 {
		return now
	}
	return now.Add(time.Duration((short + limit - 1) / limit))
}

// RoundThousand rounds n to the nearest thousand, halves up: the token families' remaining.
func RoundThousand(n int64) int64 { return (n + 500) / 1000 * 1000 }

// Thousands writes n with thousands separators, as the 429 messages do: 30,000.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// --- Control: turning enforcement on and off, reading the buckets ---

// RateLimitBucket is the face's RateLimitBucket (package fake), which documents it.
type RateLimitBucket struct {
	Scope     string    `json:"scope"` // "organization" or "workspace"
	Owner     string    `json:"owner"` // the organization's UUID or the workspace's ID
	Group     string    `json:"group"` // the rate-limit group's ID (rlg_...)
	Limiter   string    `json:"limiter"`
	Limit     int64     `json:"limit"`     // the limit it was last used with
	Remaining int64     `json:"remaining"` // whole tokens (or requests) held; negative while in debt
	Reset     time.Time `json:"reset"`     // when it is full again
}

// RateLimitState is the face's RateLimitState (package fake), which documents it.
type RateLimitState struct {
	Enforce bool              `json:"enforce"`
	Buckets []RateLimitBucket `json:"buckets"`
}

// State is Server.RateLimits of the face (package fake).
func State(s *core.Server) RateLimitState {
	rl := limiterOf(s)
	now := s.Now()
	rl.mu.Lock()
	defer rl.mu.Unlock()
	out := RateLimitState{Enforce: rl.on.Load(), Buckets: []RateLimitBucket{}}
	for k, b := range rl.buckets {
		level := b.levelAt(now, b.limit)
		rem := level / unitsPerToken
		if level < 0 && level%unitsPerToken != 0 {
			rem-- // floor: a bucket in debt by part of a token shows -1
		}
		out.Buckets = append(out.Buckets, RateLimitBucket{k.scope, k.owner, k.group, k.limiter, b.limit, rem, resetAt(now, level, b.limit).UTC()})
	}
	slices.SortFunc(out.Buckets, func(a, b RateLimitBucket) int {
		return cmp.Or(cmp.Compare(a.Scope, b.Scope), cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.Group, b.Group), cmp.Compare(a.Limiter, b.Limiter))
	})
	return out
}

// SetRateLimits is Server.SetRateLimits of the face (package fake).
func Set(s *core.Server, enforce bool) RateLimitState {
	rl := limiterOf(s)
	rl.mu.Lock()
	if rl.on.Swap(enforce) != enforce {
		rl.buckets = nil
	}
	rl.mu.Unlock()
	return State(s)
}

// resetRateLimits puts enforcement back to what the server was built with, buckets full.
func resetRateLimits(s *core.Server) {
	rl := limiterOf(s)
	rl.mu.Lock()
	rl.on.Store(EnforceOption.Of(&s.Cfg))
	rl.buckets = nil
	rl.mu.Unlock()
}

func getRateLimits(s *core.Server, c *core.Call) (any, error) { return State(s), nil }

func putRateLimits(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		Enforce bool `json:"enforce"` // required: control/rate_limits_request
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	return Set(s, req.Enforce), nil
}

// Area is the enforcement of the rate limits: its control routes, and a limiter per
// server, which Reset refills and puts back as the server was built (WithRateLimits).
var Area = &core.Area{
	Routes: func() []*core.Route {
		return []*core.Route{
			core.Line(core.Get, "/_fake/rate_limits", nil, core.In{}, "control/rate_limits", getRateLimits),
			core.Line(core.Put, "/_fake/rate_limits", nil, core.In{Body: "control/rate_limits_request"}, "control/rate_limits", putRateLimits),
		}
	},
	Reset: resetRateLimits,
}

var (
	limiterSlot = core.NewSlot(&core.ServerSlots, func(s *core.Server) *rateLimiter {
		rl := new(rateLimiter)
		rl.on.Store(EnforceOption.Of(&s.Cfg))
		return rl
	})
	// EnforceOption enforces the rate limits from the start (WithRateLimits).
	EnforceOption = core.NewOption[bool]()
)

// limiterOf is the rate limiter of s.
func limiterOf(s *core.Server) *rateLimiter { return limiterSlot.In(s.Areas) }
