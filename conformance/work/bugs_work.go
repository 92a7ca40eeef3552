package work

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Defects of environments and the work queue, for the bug declarations of their checks.

// The routes of the work queue, as patterns of on.
const (
	EnvsRoute    = `^/v1/environments$`
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
			name := kit.Str(body, "name")
			if name == "" {
				name = kit.Str(body, "description")
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
				polled[kit.Str(item, "id")] = true
				mu.Unlock()
			}
			kit.CopyAnswer(w, rec)
		case isAck(r):
			mu.Lock()
			ok := polled[strings.Split(r.URL.Path, "/")[5]]
			mu.Unlock()
			if !ok {
				kit.Refuses400(func(*http.Request) bool { return true }, "work item: acknowledge a polled item")(h).ServeHTTP(w, r)
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
		if envs := kit.ReadState(h, r, "/v1/environments?limit=100"); envs != nil {
			kit.EachDataItem(envs, func(e map[string]any) {
				env := kit.Str(e, "id")
				if env == m[1] || kit.ReadState(h, r, "/v1/environments/"+env+"/work/"+m[2]) == nil {
					return
				}
				r.URL.Path = "/v1/environments/" + env + "/work/" + m[2] + m[3]
			})
		}
		h.ServeHTTP(w, r)
	})
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
		body := kit.PeekBody(r)
		item := kit.ReadState(h, r, strings.TrimSuffix(r.URL.Path, "/stop"))
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

// ReplacesItemMetadata is the bug of a work-item update that replaces metadata with the
// patch instead of merging it: every key the patch does not name is deleted.
func ReplacesItemMetadata(h http.Handler) http.Handler {
	return kit.InRouteRequests(http.MethodPost, mwtItem, func(r *http.Request, b map[string]any) {
		patch, ok := b["metadata"].(map[string]any)
		if !ok {
			return
		}
		if cur := kit.ReadState(h, r, r.URL.Path); cur != nil {
			old, _ := cur["metadata"].(map[string]any)
			for k := range old {
				if _, named := patch[k]; !named {
					patch[k] = nil
				}
			}
		}
	})(h)
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
			kit.InRouteOKAnswers(http.MethodGet, mwtItem, func(_ *http.Request, m map[string]any) {
				if m["state"] == "queued" {
					m["state"], m["latest_heartbeat_at"] = "active", beat
				}
			})(h).ServeHTTP(w, r)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// mwtEnvironmentKeyManages is the bug of a target that takes an environment key for the
// organization's key on the environment list: it lists every environment to it.
func mwtEnvironmentKeyManages(h http.Handler) http.Handler {
	isList := kit.On(http.MethodGet, EnvsRoute)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isList(r) && r.Header.Get("Authorization") == "Bearer "+kit.FakeEnvironmentKey {
			r.Header.Del("Authorization")
			r.Header.Set("X-Api-Key", kit.FakeAPIKey)
		}
		h.ServeHTTP(w, r)
	})
}
