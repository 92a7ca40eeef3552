package cache

// The prompt cache as an area: its control routes (GET and DELETE /_fake/cache), the entries
// they list, and its registration.

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// listCache answers GET /_fake/cache: the live entries, soonest expiry first.
func listCache(s *core.Server, c *core.Call) (any, error) {
	return map[string]any{"data": CacheEntries(s)}, nil
}

// CacheEntry is the face's CacheEntry (package fake), which documents it.
type CacheEntry struct {
	Key            string    `json:"key"`
	OrganizationID string    `json:"organization_id"`
	WorkspaceID    *string   `json:"workspace_id"`
	Model          string    `json:"model"`
	PrefixTokens   int       `json:"prefix_tokens"`
	TTL            string    `json:"ttl"`
	CreatedAt      time.Time `json:"created_at"`
	ExpiresAt      time.Time `json:"expires_at"`
	Hits           int       `json:"hits"`
}

// CacheEntries is Server.CacheEntries of the face (package fake).
func CacheEntries(s *core.Server) []CacheEntry {
	st := ServerCache(s)
	now := s.Now()
	st.Mu.Lock()
	defer st.Mu.Unlock()
	st.expire(now)
	out := make([]CacheEntry, 0, len(st.Entries))
	for _, e := range st.Entries {
		if !e.live(now) {
			continue
		}
		ce := CacheEntry{Key: fmt.Sprintf("%x", e.Key[:12]), OrganizationID: e.Org, Model: e.Model, PrefixTokens: e.Tokens,
			TTL: ttlName(e.Ttl), CreatedAt: e.CreatedAt.UTC(), ExpiresAt: e.ExpiresAt.UTC(), Hits: e.Hits}
		if e.workspace != "" {
			ws := e.workspace
			ce.WorkspaceID = &ws
		}
		out = append(out, ce)
	}
	slices.SortFunc(out, func(a, b CacheEntry) int {
		return cmp.Or(a.ExpiresAt.Compare(b.ExpiresAt), cmp.Compare(a.Key, b.Key))
	})
	return out
}

// DropCache is Server.ClearCache of the face (package fake).
func DropCache(s *core.Server) int {
	st := ServerCache(s)
	now := s.Now()
	st.Mu.Lock()
	defer st.Mu.Unlock()
	st.expire(now)
	n := len(st.Entries)
	clear(st.Entries)
	st.ByExp, st.N, st.Spare = [2]expiryList{}, 0, nil
	clear(st.Fps)
	st.fpOrder = nil
	st.Grow(-st.Bytes)
	return n
}

func clearCache(s *core.Server, c *core.Call) (any, error) {
	return core.ClearedBody{Cleared: DropCache(s)}, nil
}

// Area is the prompt cache: its control routes, and its store, which snapshots leave out (a
// loaded snapshot, like a reset, starts with an empty cache). Expired entries are released as the
// clock passes their expiry.
var Area = &core.Area{
	Routes: func() []*core.Route {
		return []*core.Route{
			core.Line(core.Get, "/_fake/cache", nil, core.In{}, "control/cache_list", listCache),
			core.Line(core.Del, "/_fake/cache", nil, core.In{}, "control/cleared", clearCache),
		}
	},
	Advance: func(st *core.State, now time.Time) {
		if c := cacheStores.In(st.Stores).Built(); c != nil {
			c.Mu.Lock()
			c.expire(now)
			c.Mu.Unlock()
		}
	},
	Release: func(st *core.State) { cacheOf(st, nil).release() },
}

var (
	cacheStores = core.NewStore[CacheStore]()
	CacheBudget = core.NewBudget(CachesBytes)
)
