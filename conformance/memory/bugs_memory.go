package memory

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Defects of the memory stores, for the bug declarations of their checks.

// The routes of the memory stores, as patterns of on.
const (
	StoresRoute   = `^/v1/memory_stores$`
	StoreRoute    = `^/v1/memory_stores/[^/]+$`
	mwtMemories   = `^/v1/memory_stores/[^/]+/memories$`
	MemoryRoute   = `^/v1/memory_stores/[^/]+/memories/[^/]+$`
	VersionsRoute = `^/v1/memory_stores/[^/]+/memory_versions$`
	mwtVersion    = `^/v1/memory_stores/[^/]+/memory_versions/[^/]+$`
)

// mwtStrictPrecondition is the bug of a memory store that answers 409 to every update whose
// precondition hash differs from the stored one, even when the update has already been applied.
func mwtStrictPrecondition(h http.Handler) http.Handler {
	match := kit.On(http.MethodPost, MemoryRoute)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if match(r) {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var body struct {
				Precondition *struct {
					ContentSHA256 string `json:"content_sha256"`
				} `json:"precondition"`
			}
			if json.Unmarshal(b, &body) == nil && body.Precondition != nil {
				if cur := kit.ReadState(h, r, r.URL.Path); cur != nil && cur["content_sha256"] != body.Precondition.ContentSHA256 {
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set("x-should-retry", "false")
					w.Header().Set("request-id", "req_mwt_precondition")
					w.WriteHeader(http.StatusConflict)
					w.Write([]byte(`{"type":"error","error":{"type":"memory_precondition_failed_error","message":"precondition: content_sha256 does not match"},"request_id":"req_mwt_precondition"}`))
					return
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// mwtVersionsFollowMemory is the bug of a memory store whose versions are views of their memory:
// a version reads the content and path its memory has now.
func mwtVersionsFollowMemory(h http.Handler) http.Handler {
	return kit.EditAnswers(h, kit.On(http.MethodGet, mwtVersion), func(r *http.Request, status int, _ http.Header, b []byte) []byte {
		var v map[string]any
		if status != http.StatusOK || json.Unmarshal(b, &v) != nil {
			return b
		}
		store := strings.Split(r.URL.Path, "/")[3]
		id, _ := v["memory_id"].(string)
		if cur := kit.ReadState(h, r, "/v1/memory_stores/"+store+"/memories/"+id+"?view=full"); cur != nil {
			v["content"], v["path"] = cur["content"], cur["path"]
		}
		out, _ := json.Marshal(v)
		return out
	})
}

// mwtShiftBounds turns the inclusive created_at bounds of a query into exclusive ones.
func mwtShiftBounds(q url.Values) {
	for name, d := range map[string]time.Duration{"created_at[gte]": time.Nanosecond, "created_at[lte]": -time.Nanosecond} {
		if at, err := time.Parse(time.RFC3339Nano, q.Get(name)); err == nil {
			q.Set(name, at.Add(d).Format(time.RFC3339Nano))
		}
	}
}

// RuneSizes is the bug of a memory store that counts content_size_bytes in characters: every
// object edit is given (a memory, or a version list's item) reads the rune count of its content.
func RuneSizes(m map[string]any) {
	if c, ok := m["content"].(string); ok {
		m["content_size_bytes"] = len([]rune(c))
	}
}

// mwtRenameKeepsOldPath is the bug of a memory store where a rename does not free the old path:
// a later create at it is refused as a path conflict.
func mwtRenameKeepsOldPath(h http.Handler) http.Handler {
	var mu sync.Mutex
	held := map[string]bool{} // store path + "\n" + memory path
	isUpdate, isCreate := kit.On(http.MethodPost, MemoryRoute), kit.On(http.MethodPost, mwtMemories)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case isUpdate(r):
			store := strings.Join(strings.Split(r.URL.Path, "/")[:4], "/")
			if cur := kit.ReadState(h, r, r.URL.Path); cur != nil {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				var now map[string]any
				if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &now) == nil && now["path"] != cur["path"] {
					mu.Lock()
					held[store+"\n"+kit.Str(cur, "path")] = true
					mu.Unlock()
				}
				kit.CopyAnswer(w, rec)
				return
			}
			h.ServeHTTP(w, r)
		case isCreate(r):
			body := kit.PeekBody(r)
			mu.Lock()
			taken := held[strings.TrimSuffix(r.URL.Path, "/memories")+"\n"+kit.Str(body, "path")]
			mu.Unlock()
			if taken {
				kit.Refuses(func(*http.Request) bool { return true }, http.StatusConflict, "memory_path_conflict_error", "path: taken")(h).ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(w, r)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// mwtNoopNewVersion is the bug of a memory store whose update that changes nothing answers a
// new memory_version_id, as if it had appended a version.
func mwtNoopNewVersion(h http.Handler) http.Handler {
	isUpdate := kit.On(http.MethodPost, MemoryRoute)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isUpdate(r) {
			h.ServeHTTP(w, r)
			return
		}
		body := kit.PeekBody(r)
		cur := kit.ReadState(h, r, r.URL.Path+"?view=full")
		noop := cur != nil
		for _, f := range []string{"content", "path"} {
			if v, ok := body[f]; ok && cur != nil && v != cur[f] {
				noop = false
			}
		}
		if !noop {
			h.ServeHTTP(w, r)
			return
		}
		kit.InRouteOKAnswers(http.MethodPost, MemoryRoute, func(_ *http.Request, m map[string]any) {
			m["memory_version_id"] = kit.Str(m, "memory_version_id") + "0"
		})(h).ServeHTTP(w, r)
	})
}

// mwtStaleVersionID is the bug of a memory store whose update answers the memory_version_id the
// memory had before it, not the version the update appended.
func mwtStaleVersionID(h http.Handler) http.Handler {
	isUpdate := kit.On(http.MethodPost, MemoryRoute)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cur := map[string]any(nil)
		if isUpdate(r) {
			cur = kit.ReadState(h, r, r.URL.Path)
		}
		if cur == nil {
			h.ServeHTTP(w, r)
			return
		}
		kit.InRouteOKAnswers(http.MethodPost, MemoryRoute, func(_ *http.Request, m map[string]any) { m["memory_version_id"] = cur["memory_version_id"] })(h).ServeHTTP(w, r)
	})
}
