package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Defects of the memory, work and tunnels areas, for the bug declarations of their checks.

// mwtRefuses is the bug of a target that refuses requests match accepts with 400 naming what.
func mwtRefuses(match func(*http.Request) bool, what string) func(http.Handler) http.Handler {
	return kit.Refuses(match, http.StatusBadRequest, "invalid_request_error", what)
}

// mwtRequests is the bug of a target that reads the JSON body of requests of the method to paths
// matching pattern wrongly: edit rewrites it before the target reads it.
func mwtRequests(method, pattern string, edit func(r *http.Request, body map[string]any)) func(http.Handler) http.Handler {
	match := kit.On(method, pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) {
				// A request without a body reads as an empty object, so that a bug can add a field.
				body := map[string]any{}
				if b, err := io.ReadAll(r.Body); err == nil {
					if len(bytes.TrimSpace(b)) == 0 || json.Unmarshal(b, &body) == nil && body != nil {
						edit(r, body)
						if len(b) > 0 || len(body) > 0 {
							b, _ = json.Marshal(body)
						}
					}
					r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// mwtQuery is the bug of a target that reads the query of requests of the method to paths
// matching pattern wrongly: edit rewrites it before the target reads it.
func mwtQuery(method, pattern string, edit func(q url.Values)) func(http.Handler) http.Handler {
	return kit.InQuery(kit.On(method, pattern), edit)
}

// mwtJSON edits the JSON object of 2xx answers to requests of the method to paths matching pattern.
func mwtJSON(method, pattern string, f func(r *http.Request, m map[string]any)) func(http.Handler) http.Handler {
	return kit.InOKAnswers(kit.On(method, pattern), f)
}

// mwtData calls f with each object of the answer's data array.
func mwtData(m map[string]any, f func(item map[string]any)) {
	data, _ := m["data"].([]any)
	for _, d := range data {
		if item, ok := d.(map[string]any); ok {
			f(item)
		}
	}
}

// mwtStatus answers to from with status to, on requests of the method to paths matching pattern.
func mwtStatus(method, pattern string, from, to int) func(http.Handler) http.Handler {
	return kit.AnswersStatus(kit.On(method, pattern), from, to)
}

// mwtIgnoresInvalidQuery is the bug of a target that, where it should refuse a query parameter,
// ignores it: a request the honest target answers 400 is served again without param.
func mwtIgnoresInvalidQuery(method, pattern, param string) func(http.Handler) http.Handler {
	match := kit.On(method, pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) || !r.URL.Query().Has(param) {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r.Clone(r.Context()))
			if rec.Code == http.StatusBadRequest && strings.Contains(rec.Body.String(), param) {
				q := r.URL.Query()
				q.Del(param)
				r.URL.RawQuery = q.Encode()
				h.ServeHTTP(w, r)
				return
			}
			kit.CopyAnswer(w, rec)
		})
	}
}

// mwtRefusesBody is the bug of a target that refuses, with 400 naming what, the requests of the
// method to paths matching pattern whose JSON body refuse accepts.
func mwtRefusesBody(method, pattern string, refuse func(body map[string]any) bool, what string) func(http.Handler) http.Handler {
	match := kit.On(method, pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) {
				b, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(b))
				var body map[string]any
				if json.Unmarshal(b, &body) == nil && refuse(body) {
					mwtRefuses(func(*http.Request) bool { return true }, what)(h).ServeHTTP(w, r)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// mwtAsFirstOrg is the bug of a target that does not tell organizations apart: the second
// organization's key (the fake's) is read as the first's.
func mwtAsFirstOrg(pattern string) func(http.Handler) http.Handler {
	re := regexp.MustCompile(pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if re.MatchString(r.URL.Path) {
				for _, name := range []string{"X-Api-Key", "Authorization"} {
					if v := r.Header.Get(name); strings.HasSuffix(v, "-2") {
						r.Header.Set(name, strings.TrimSuffix(v, "-2"))
					}
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// The routes of the memory stores, as patterns of on.
const (
	mwtStores   = `^/v1/memory_stores$`
	mwtStore    = `^/v1/memory_stores/[^/]+$`
	mwtMemories = `^/v1/memory_stores/[^/]+/memories$`
	mwtMemory   = `^/v1/memory_stores/[^/]+/memories/[^/]+$`
	mwtVersions = `^/v1/memory_stores/[^/]+/memory_versions$`
	mwtVersion  = `^/v1/memory_stores/[^/]+/memory_versions/[^/]+$`
)

// mwtRead reads path from h with the headers of r (its credential and version), as the target
// itself would look up its state; nil unless it answers a JSON object with 200.
func mwtRead(h http.Handler, r *http.Request, path string) map[string]any {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header = r.Header.Clone()
	req.Header.Del("Content-Length")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var m map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &m) != nil {
		return nil
	}
	return m
}

// mwtStrictPrecondition is the bug of a memory store that answers 409 to every update whose
// precondition hash differs from the stored one, even when the update has already been applied.
func mwtStrictPrecondition(h http.Handler) http.Handler {
	match := kit.On(http.MethodPost, mwtMemory)
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
				if cur := mwtRead(h, r, r.URL.Path); cur != nil && cur["content_sha256"] != body.Precondition.ContentSHA256 {
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
		if cur := mwtRead(h, r, "/v1/memory_stores/"+store+"/memories/"+id+"?view=full"); cur != nil {
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

// mwtStr returns the string at key of m.
func mwtStr(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// mwtUpper is s in upper case: a hex digest written in the wrong case.
func mwtUpper(s string) string { return strings.ToUpper(s) }

// The routes of the work queue, as patterns of on.
const (
	mwtEnvs      = `^/v1/environments$`
	mwtEnv       = `^/v1/environments/[^/]+$`
	mwtWorkList  = `^/v1/environments/[^/]+/work$`
	mwtPoll      = `^/v1/environments/[^/]+/work/poll$`
	mwtStats     = `^/v1/environments/[^/]+/work/stats$`
	mwtItem      = `^/v1/environments/[^/]+/work/work_[^/]+$`
	mwtAck       = `^/v1/environments/[^/]+/work/[^/]+/ack$`
	mwtHeartbeat = `^/v1/environments/[^/]+/work/[^/]+/heartbeat$`
	mwtStop      = `^/v1/environments/[^/]+/work/[^/]+/stop$`
)

// mwtDefaultVersion is the bug of a target that serves a request without vendor-version at a
// default version instead of refusing it.
func mwtDefaultVersion(match func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) && r.Header.Get("vendor-version") == "" && r.Header.Get("anthropic-version") == "" {
				r.Header.Set("anthropic-version", "2023-06-01")
			}
			h.ServeHTTP(w, r)
		})
	}
}

// mwtStoresRefusedEnvironment is the bug of a target that refuses an invalid environment create
// with 400 and stores an environment all the same, under the name or description it was sent.
func mwtStoresRefusedEnvironment(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/environments" {
			h.ServeHTTP(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		rec := httptest.NewRecorder()
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(rec, r)
		if rec.Code == http.StatusBadRequest {
			var body map[string]any
			json.Unmarshal(b, &body)
			name := mwtStr(body, "name")
			if name == "" {
				name = mwtStr(body, "description")
			}
			again, _ := json.Marshal(map[string]any{"name": name, "description": body["description"]})
			stored := r.Clone(r.Context())
			stored.Body, stored.ContentLength = io.NopCloser(bytes.NewReader(again)), int64(len(again))
			h.ServeHTTP(httptest.NewRecorder(), stored)
		}
		kit.CopyAnswer(w, rec)
	})
}

// mwtAckOnlyPolled is the bug of a queue that acknowledges only items it has handed out by a
// poll: an item acknowledged without a poll is refused.
func mwtAckOnlyPolled(h http.Handler) http.Handler {
	var mu sync.Mutex
	polled := map[string]bool{}
	isPoll, isAck := kit.On(http.MethodGet, mwtPoll), kit.On(http.MethodPost, mwtAck)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case isPoll(r):
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			var item map[string]any
			if json.Unmarshal(rec.Body.Bytes(), &item) == nil && item != nil {
				mu.Lock()
				polled[mwtStr(item, "id")] = true
				mu.Unlock()
			}
			kit.CopyAnswer(w, rec)
		case isAck(r):
			mu.Lock()
			ok := polled[strings.Split(r.URL.Path, "/")[5]]
			mu.Unlock()
			if !ok {
				mwtRefuses(func(*http.Request) bool { return true }, "work item: acknowledge a polled item")(h).ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(w, r)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// mwtPollMissesEnqueued is the bug of a blocking poll that looks at the queue once, when it
// starts: an item enqueued while it waits is not handed to it, and it answers null at block_ms.
func mwtPollMissesEnqueued(h http.Handler) http.Handler {
	isPoll := kit.On(http.MethodGet, mwtPoll)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		ms, err := strconv.Atoi(q.Get("block_ms"))
		if !isPoll(r) || err != nil {
			h.ServeHTTP(w, r)
			return
		}
		q.Del("block_ms")
		r.URL.RawQuery = q.Encode()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code == http.StatusOK && strings.TrimSpace(rec.Body.String()) == "null" {
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
		kit.CopyAnswer(w, rec)
	})
}

// mwtItemsAnyEnvironment is the bug of a queue that finds an item by its ID alone: an item named
// under another environment's path is found in its own.
func mwtItemsAnyEnvironment(h http.Handler) http.Handler {
	re := regexp.MustCompile(`^/v1/environments/([^/]+)/work/(work_[^/]+)(/[a-z]+)?$`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := re.FindStringSubmatch(r.URL.Path)
		if m == nil {
			h.ServeHTTP(w, r)
			return
		}
		if envs := mwtRead(h, r, "/v1/environments?limit=100"); envs != nil {
			mwtData(envs, func(e map[string]any) {
				env := mwtStr(e, "id")
				if env == m[1] || mwtRead(h, r, "/v1/environments/"+env+"/work/"+m[2]) == nil {
					return
				}
				r.URL.Path = "/v1/environments/" + env + "/work/" + m[2] + m[3]
			})
		}
		h.ServeHTTP(w, r)
	})
}

// mwtShiftTime moves the timestamp at key of m by d, when it is one.
func mwtShiftTime(m map[string]any, key string, d time.Duration) {
	if at, err := time.Parse(time.RFC3339Nano, mwtStr(m, key)); err == nil {
		m[key] = at.Add(d).Format(time.RFC3339Nano)
	}
}

// mwtQueuedStopWaits is the bug of a queue that treats a queued item like a leased one: a stop
// without force marks it stopping and leaves it on the queue.
func mwtQueuedStopWaits(h http.Handler) http.Handler {
	isStop := kit.On(http.MethodPost, mwtStop)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isStop(r) {
			h.ServeHTTP(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		var body map[string]any
		json.Unmarshal(b, &body)
		item := mwtRead(h, r, strings.TrimSuffix(r.URL.Path, "/stop"))
		if body["force"] == true || item == nil || item["state"] != "queued" {
			h.ServeHTTP(w, r)
			return
		}
		item["state"] = "stopping"
		out, _ := json.Marshal(item)
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	})
}

// mwtActionIdempotent is the bug of a target where an action (suffix "/ack", "/stop", or "" for
// an update of the record itself) that should be refused with 400 answers the record, unchanged,
// with 200.
func mwtActionIdempotent(pattern, suffix string) func(http.Handler) http.Handler {
	match := kit.On(http.MethodPost, pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code == http.StatusBadRequest {
				if item := mwtRead(h, r, strings.TrimSuffix(r.URL.Path, suffix)); item != nil {
					out, _ := json.Marshal(item)
					w.Header().Set("Content-Type", "application/json")
					w.Write(out)
					return
				}
			}
			kit.CopyAnswer(w, rec)
		})
	}
}

// The routes of the tunnels, as patterns of on.
const (
	mwtTunnels     = `^/v1/organizations/tunnels$`
	mwtTunnel      = `^/v1/organizations/tunnels/[^/]+$`
	mwtTokenOps    = `^/v1/organizations/tunnels/[^/]+/(reveal|rotate)_token$`
	mwtCerts       = `^/v1/organizations/tunnels/[^/]+/certificates$`
	mwtCert        = `^/v1/organizations/tunnels/[^/]+/certificates/[^/]+$`
	mwtCertArchive = `^/v1/organizations/tunnels/[^/]+/certificates/[^/]+/archive$`
)

// mwtCall sends method path (with the JSON body, when not nil) to h with the headers of r, as
// the target itself would act on its state; the answer's JSON object, nil unless 200.
func mwtCall(h http.Handler, r *http.Request, method, path string, body any) map[string]any {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header = r.Header.Clone()
	req.Header.Del("Content-Length")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var m map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &m) != nil {
		return nil
	}
	return m
}

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
			if mwtRead(h, r, path[:m[4]]+child) == nil {
				if parents := mwtRead(h, r, list); parents != nil {
					mwtData(parents, func(p map[string]any) {
						id := mwtStr(p, "id")
						if id != parent && mwtRead(h, r, path[:m[2]]+id+path[m[3]:m[4]]+child) != nil {
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
				seen[mwtStr(tok, "tunnel_token")] = true
				mu.Unlock()
			}
			kit.CopyAnswer(w, rec)
		case isCheck(r):
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var req map[string]any
			json.Unmarshal(b, &req)
			mu.Lock()
			cached := seen[mwtStr(req, "tunnel_token")]
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
	isCreate := kit.On(http.MethodPost, mwtCerts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isCreate(r) {
			if list := mwtRead(h, r, r.URL.Path); list != nil {
				if data, _ := list["data"].([]any); len(data) >= 2 {
					oldest, _ := data[len(data)-1].(map[string]any)
					mwtCall(h, r, http.MethodPost, r.URL.Path+"/"+mwtStr(oldest, "id")+"/archive", nil)
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
		old := mwtCall(h, r, http.MethodPost, strings.TrimSuffix(r.URL.Path, "rotate_token")+"reveal_token", nil)
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
			first, firstID = mwtStr(m, "domain"), mwtStr(m, "id")
		} else if mwtStr(m, "id") != firstID {
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
		if tok := mwtCall(h, r, http.MethodPost, r.URL.Path+"/reveal_token", nil); tok != nil {
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
	return mwtJSON(http.MethodPost, `^/v1/organizations/tunnels/[^/]+/reveal_token$`, func(_ *http.Request, m map[string]any) {
		mu.Lock()
		n++
		id := fmt.Sprintf("%s%08x", mwtStr(m, "id")[:len(mwtStr(m, "id"))-8], n)
		mu.Unlock()
		m["id"] = id
	})
}

// mwtReplacesItemMetadata is the bug of a work-item update that replaces metadata with the
// patch instead of merging it: every key the patch does not name is deleted.
func mwtReplacesItemMetadata(h http.Handler) http.Handler {
	return mwtRequests(http.MethodPost, mwtItem, func(r *http.Request, b map[string]any) {
		patch, ok := b["metadata"].(map[string]any)
		if !ok {
			return
		}
		if cur := mwtRead(h, r, r.URL.Path); cur != nil {
			old, _ := cur["metadata"].(map[string]any)
			for k := range old {
				if _, named := patch[k]; !named {
					patch[k] = nil
				}
			}
		}
	})(h)
}

// mwtErrorMessage is the bug of a target whose 400 answers to requests match accepts say only
// message, the envelope otherwise intact.
func mwtErrorMessage(match func(*http.Request) bool, message string) func(http.Handler) http.Handler {
	return kit.InAnswers(match, func(_ *http.Request, status int, _ http.Header, b []byte) []byte {
		var m map[string]any
		if status != http.StatusBadRequest || json.Unmarshal(b, &m) != nil {
			return b
		}
		if e, ok := m["error"].(map[string]any); ok {
			e["message"] = message
		}
		out, _ := json.Marshal(m)
		return out
	})
}

// mwtDeletedStillReadable is the bug of a target whose delete (of paths matching pattern)
// answers as it should, but whose reads of the deleted record still answer it.
func mwtDeletedStillReadable(pattern string) func(http.Handler) http.Handler {
	match := regexp.MustCompile(pattern)
	return func(h http.Handler) http.Handler {
		var mu sync.Mutex
		gone := map[string][]byte{}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match.MatchString(r.URL.Path) {
				h.ServeHTTP(w, r)
				return
			}
			switch r.Method {
			case http.MethodDelete:
				if rec := mwtRead(h, r, r.URL.Path); rec != nil {
					b, _ := json.Marshal(rec)
					mu.Lock()
					gone[r.URL.Path] = b
					mu.Unlock()
				}
			case http.MethodGet:
				mu.Lock()
				b, ok := gone[r.URL.Path]
				mu.Unlock()
				if ok {
					w.Header().Set("Content-Type", "application/json")
					w.Write(b)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// mwtLeasesNeverLapse is the bug of a queue that never notices a lapsed lease: an item that a
// heartbeat made active reads active, with that heartbeat, ever after.
func mwtLeasesNeverLapse(h http.Handler) http.Handler {
	var mu sync.Mutex
	last := map[string]any{}
	isBeat, isItem := kit.On(http.MethodPost, mwtHeartbeat), kit.On(http.MethodGet, mwtItem)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case isBeat(r):
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			var hb map[string]any
			if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &hb) == nil && hb["state"] == "active" {
				mu.Lock()
				last[strings.TrimSuffix(r.URL.Path, "/heartbeat")] = hb["last_heartbeat"]
				mu.Unlock()
			}
			kit.CopyAnswer(w, rec)
		case isItem(r):
			mu.Lock()
			beat, ok := last[r.URL.Path]
			mu.Unlock()
			if !ok {
				h.ServeHTTP(w, r)
				return
			}
			mwtJSON(http.MethodGet, mwtItem, func(_ *http.Request, m map[string]any) {
				if m["state"] == "queued" {
					m["state"], m["latest_heartbeat_at"] = "active", beat
				}
			})(h).ServeHTTP(w, r)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// mwtRuneSizes is the bug of a memory store that counts content_size_bytes in characters: every
// object edit is given (a memory, or a version list's item) reads the rune count of its content.
func mwtRuneSizes(m map[string]any) {
	if c, ok := m["content"].(string); ok {
		m["content_size_bytes"] = len([]rune(c))
	}
}

// mwtSecondLater moves the timestamp at key of m a second later.
func mwtSecondLater(m map[string]any, key string) { mwtShiftTime(m, key, time.Second) }

// mwtEnvironmentKeyManages is the bug of a target that takes an environment key for the
// organization's key on the environment list: it lists every environment to it.
func mwtEnvironmentKeyManages(h http.Handler) http.Handler {
	isList := kit.On(http.MethodGet, mwtEnvs)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isList(r) && r.Header.Get("Authorization") == "Bearer "+kit.FakeEnvironmentKey {
			r.Header.Del("Authorization")
			r.Header.Set("X-Api-Key", kit.FakeAPIKey)
		}
		h.ServeHTTP(w, r)
	})
}

// mwtRenameKeepsOldPath is the bug of a memory store where a rename does not free the old path:
// a later create at it is refused as a path conflict.
func mwtRenameKeepsOldPath(h http.Handler) http.Handler {
	var mu sync.Mutex
	held := map[string]bool{} // store path + "\n" + memory path
	isUpdate, isCreate := kit.On(http.MethodPost, mwtMemory), kit.On(http.MethodPost, mwtMemories)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case isUpdate(r):
			store := strings.Join(strings.Split(r.URL.Path, "/")[:4], "/")
			if cur := mwtRead(h, r, r.URL.Path); cur != nil {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				var now map[string]any
				if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &now) == nil && now["path"] != cur["path"] {
					mu.Lock()
					held[store+"\n"+mwtStr(cur, "path")] = true
					mu.Unlock()
				}
				kit.CopyAnswer(w, rec)
				return
			}
			h.ServeHTTP(w, r)
		case isCreate(r):
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var body map[string]any
			json.Unmarshal(b, &body)
			mu.Lock()
			taken := held[strings.TrimSuffix(r.URL.Path, "/memories")+"\n"+mwtStr(body, "path")]
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
	isUpdate := kit.On(http.MethodPost, mwtMemory)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isUpdate(r) {
			h.ServeHTTP(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		var body map[string]any
		json.Unmarshal(b, &body)
		cur := mwtRead(h, r, r.URL.Path+"?view=full")
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
		mwtJSON(http.MethodPost, mwtMemory, func(_ *http.Request, m map[string]any) { m["memory_version_id"] = mwtStr(m, "memory_version_id") + "0" })(h).ServeHTTP(w, r)
	})
}

// mwtStaleVersionID is the bug of a memory store whose update answers the memory_version_id the
// memory had before it, not the version the update appended.
func mwtStaleVersionID(h http.Handler) http.Handler {
	isUpdate := kit.On(http.MethodPost, mwtMemory)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cur := map[string]any(nil)
		if isUpdate(r) {
			cur = mwtRead(h, r, r.URL.Path)
		}
		if cur == nil {
			h.ServeHTTP(w, r)
			return
		}
		mwtJSON(http.MethodPost, mwtMemory, func(_ *http.Request, m map[string]any) { m["memory_version_id"] = cur["memory_version_id"] })(h).ServeHTTP(w, r)
	})
}
