package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// The session list's pages, each of 20 from the middle of an organization's 100 and 1,000
// sessions (the most a server or namespace keeps: sessions.MaxSessions), one in ten archived.
// A page costs O(log n + page + the sessions a filter skips), so the two sizes should take about
// the same time unfiltered and with a created_at range; agent_id skips the other agents'
// sessions (here 9 in 10), which the figures at 1,000 weigh against an index by agent:
//
//	go test -run '^$' -bench 'ListPageSessions' -benchmem ./fake
var sessionListSizes = []int{100, 1000}

func BenchmarkListPageSessions(b *testing.B) {
	for _, n := range sessionListSizes {
		s, serve, ids, agents := benchSessionServer(b, n)
		mid := ids[n/2]
		midAt := gjson.GetBytes(serve("GET", "/v1/sessions/"+mid), "created_at").String()
		at, err := time.Parse(time.RFC3339Nano, midAt)
		if err != nil {
			b.Fatal(err)
		}
		// The tokens of the pages that end and start at mid, as next_page and prev_page give them.
		fwd := core.EncodePageToken("sessions_desc", core.ListKey{At: at, ID: mid})
		back := core.EncodePageToken("sessions_desc_back", core.ListKey{At: at, ID: mid})
		firstAgentPage := gjson.GetBytes(serve("GET", "/v1/sessions?limit=20&agent_id="+agents[0]), "next_page").String()
		for _, bc := range []struct{ name, path string }{
			{"page", "/v1/sessions?limit=20&page=" + fwd},
			{"prev", "/v1/sessions?limit=20&page=" + back},
			{"created", "/v1/sessions?limit=20&created_at[lte]=" + url.QueryEscape(midAt)},
			{"agent", "/v1/sessions?limit=20&agent_id=" + agents[0]},
			{"agent-page", "/v1/sessions?limit=20&agent_id=" + agents[0] + "&page=" + firstAgentPage},
		} {
			b.Run(fmt.Sprintf("%s/sessions=%d", bc.name, n), func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, bc.path, nil)
				req.Header.Set("X-Api-Key", core.DefaultAPIKey)
				req.Header.Set("Vendor-Version", core.APIVersion)
				w := &discardWriter{header: http.Header{}}
				b.ReportAllocs()
				for b.Loop() {
					clear(w.header)
					w.status = 0
					s.ServeHTTP(w, req)
					if w.status != http.StatusOK {
						b.Fatalf("%s: %d", bc.path, w.status)
					}
				}
			})
		}
	}
}

// benchSessionServer makes a server whose organization has n sessions, one a second, of 10
// agents in turn, every tenth archived; it returns the IDs oldest first and the agents.
func benchSessionServer(b *testing.B, n int) (*Server, func(method, path string) []byte, []string, []string) {
	s := New()
	do := func(method, path string, body any) []byte {
		var data []byte
		if body != nil {
			data, _ = json.Marshal(body)
		}
		req := httptest.NewRequest(method, path, bytes.NewReader(data))
		req.Header.Set("X-Api-Key", core.DefaultAPIKey)
		req.Header.Set("Vendor-Version", core.APIVersion)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
		return w.Body.Bytes()
	}
	var agents, ids []string
	for i := range 10 {
		agents = append(agents, gjson.GetBytes(do("POST", "/v1/agents", map[string]any{"name": fmt.Sprint("bench ", i), "model": "assistant-sonnet-4-5"}), "id").String())
	}
	env := gjson.GetBytes(do("POST", "/v1/environments", map[string]any{"name": "bench", "config": map[string]any{"type": "cloud"}}), "id").String()
	for i := range n {
		id := gjson.GetBytes(do("POST", "/v1/sessions", map[string]any{"agent": agents[i%10], "environment_id": env}), "id").String()
		ids = append(ids, id)
		if i%10 == 9 {
			do("POST", "/v1/sessions/"+id+"/archive", nil)
		}
		s.AdvanceClock(time.Second)
	}
	return s, func(method, path string) []byte { return do(method, path, nil) }, ids, agents
}
