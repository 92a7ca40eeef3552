package tunnels

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Defects of the MCP tunnels, for the bug declarations of their checks.

// mwtUpper is s in upper case: a hex digest written in the wrong case.
func mwtUpper(s string) string { return strings.ToUpper(s) }

// The routes of the tunnels, as patterns of on.
const (
	mwtTunnels     = `^/v1/organizations/tunnels$`
	mwtTunnel      = `^/v1/organizations/tunnels/[^/]+$`
	mwtTokenOps    = `^/v1/organizations/tunnels/[^/]+/(reveal|rotate)_token$`
	CertsRoute     = `^/v1/organizations/tunnels/[^/]+/certificates$`
	CertRoute      = `^/v1/organizations/tunnels/[^/]+/certificates/[^/]+$`
	mwtCertArchive = `^/v1/organizations/tunnels/[^/]+/certificates/[^/]+/archive$`
)

// mwtFoundUnderAnyParent is the bug of a target that finds a child by its ID alone: a request
// whose path names the child (group 2 of pattern) under another parent (group 1) than its own
// is served as if it named its own parent, found among the items of list.
func mwtFoundUnderAnyParent(pattern, list string) func(http.Handler) http.Handler {
	re := regexp.MustCompile(pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			m := re.FindStringSubmatchIndex(r.URL.Path)
			if m == nil {
				h.ServeHTTP(w, r)
				return
			}
			path := r.URL.Path
			parent, child := path[m[2]:m[3]], path[m[4]:m[5]]
			if kit.ReadState(h, r, path[:m[4]]+child) == nil {
				if parents := kit.ReadState(h, r, list); parents != nil {
					kit.EachDataItem(parents, func(p map[string]any) {
						id := kit.Str(p, "id")
						if id != parent && kit.ReadState(h, r, path[:m[2]]+id+path[m[3]:m[4]]+child) != nil {
							r.URL.Path = path[:m[2]] + id + path[m[3]:]
						}
					})
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// mwtTokensStayAccepted is the bug of a tunnel gateway that caches the tokens it has seen: a
// token once revealed is accepted for new connections whatever happens to it or its tunnel.
func mwtTokensStayAccepted(h http.Handler) http.Handler {
	var mu sync.Mutex
	seen := map[string]bool{}
	isToken, isCheck := kit.On(http.MethodPost, mwtTokenOps), kit.On(http.MethodPost, `^/_fake/tunnels/token_check$`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case isToken(r):
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			var tok map[string]any
			if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &tok) == nil {
				mu.Lock()
				seen[kit.Str(tok, "tunnel_token")] = true
				mu.Unlock()
			}
			kit.CopyAnswer(w, rec)
		case isCheck(r):
			req := kit.PeekBody(r)
			mu.Lock()
			cached := seen[kit.Str(req, "tunnel_token")]
			mu.Unlock()
			if cached {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"accepted":true,"tunnel_id":null}`))
				return
			}
			h.ServeHTTP(w, r)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// mwtTrustCached is the bug of a tunnel that caches its trust decisions: a gateway certificate
// once accepted stays accepted, though the CA certificate that issued it was archived.
func mwtTrustCached(h http.Handler) http.Handler {
	var mu sync.Mutex
	trusted := map[string]bool{}
	isCheck := kit.On(http.MethodPost, `^/_fake/tunnels/[^/]+/gateway_check$`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isCheck(r) {
			h.ServeHTTP(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		key := r.URL.Path + "\n" + string(b)
		mu.Lock()
		cached := trusted[key]
		mu.Unlock()
		if cached {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"accepted":true,"reason":null}`))
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var answer map[string]any
		if json.Unmarshal(rec.Body.Bytes(), &answer) == nil && answer["accepted"] == true {
			mu.Lock()
			trusted[key] = true
			mu.Unlock()
		}
		kit.CopyAnswer(w, rec)
	})
}

// mwtCapEvictsOldest is the bug of a tunnel that takes a third certificate by archiving its
// oldest non-archived one instead of refusing it.
func mwtCapEvictsOldest(h http.Handler) http.Handler {
	isCreate := kit.On(http.MethodPost, CertsRoute)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isCreate(r) {
			if list := kit.ReadState(h, r, r.URL.Path); list != nil {
				if data, _ := list["data"].([]any); len(data) >= 2 {
					oldest, _ := data[len(data)-1].(map[string]any)
					kit.CallState(h, r, http.MethodPost, r.URL.Path+"/"+kit.Str(oldest, "id")+"/archive", nil)
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// mwtRotateAnswersOld is the bug of a rotate_token that rotates but answers the token it replaced.
func mwtRotateAnswersOld(h http.Handler) http.Handler {
	isRotate := kit.On(http.MethodPost, `^/v1/organizations/tunnels/[^/]+/rotate_token$`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isRotate(r) {
			h.ServeHTTP(w, r)
			return
		}
		old := kit.CallState(h, r, http.MethodPost, strings.TrimSuffix(r.URL.Path, "rotate_token")+"reveal_token", nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code == http.StatusOK && old != nil {
			out, _ := json.Marshal(old)
			w.Header().Set("Content-Type", "application/json")
			w.Write(out)
			return
		}
		kit.CopyAnswer(w, rec)
	})
}

// mwtDomainsRepeat is the bug of a tunnel service that hands out domains from a pool that
// repeats: every tunnel read after the first reads the first one's domain.
func mwtDomainsRepeat(h http.Handler) http.Handler {
	var mu sync.Mutex
	first, firstID := "", ""
	return kit.EditAnswers(h, kit.On(http.MethodGet, mwtTunnel), kit.EditJSON(func(m map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		if first == "" {
			first, firstID = kit.Str(m, "domain"), kit.Str(m, "id")
		} else if kit.Str(m, "id") != firstID {
			m["domain"] = first
		}
	}))
}

// mwtTunnelShowsToken is the bug of a tunnel read that carries the tunnel's token.
func mwtTunnelShowsToken(h http.Handler) http.Handler {
	return kit.EditAnswers(h, kit.On(http.MethodGet, mwtTunnel), func(r *http.Request, status int, _ http.Header, b []byte) []byte {
		var m map[string]any
		if status != http.StatusOK || json.Unmarshal(b, &m) != nil {
			return b
		}
		if tok := kit.CallState(h, r, http.MethodPost, r.URL.Path+"/reveal_token", nil); tok != nil {
			m["tunnel_token"] = tok["tunnel_token"]
		}
		out, _ := json.Marshal(m)
		return out
	})
}

// mwtRevealNewID is the bug of a reveal_token that answers the token under a new id each time.
func mwtRevealNewID() func(http.Handler) http.Handler {
	var mu sync.Mutex
	n := 0
	return kit.InRouteOKAnswers(http.MethodPost, `^/v1/organizations/tunnels/[^/]+/reveal_token$`, func(_ *http.Request, m map[string]any) {
		mu.Lock()
		n++
		id := fmt.Sprintf("%s%08x", kit.Str(m, "id")[:len(kit.Str(m, "id"))-8], n)
		mu.Unlock()
		m["id"] = id
	})
}
