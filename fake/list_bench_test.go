package fake

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/tunnels"

	"github.com/platformkit/platformkit/fake/internal/areas/admin"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// The list pages of administration and tunnels, each a page of 20 from the middle of a list of
// 100 and of 10,000 records of the caller's organization (with deleted, removed and archived
// records mixed in, which the page skips). A page costs O(log n + page), so the two sizes should
// take about the same time:
//
//	go test -run '^$' -bench 'ListPage' -benchmem ./fake
//
// and the ratio of the two ns/op is the figure to watch (1.0 is flat; compliance's chat page
// is measured the same way in compliance_bench_test.go).

var listSizes = []int{100, 10_000}

func BenchmarkListPageInvites(b *testing.B) {
	benchListPage(b, func(s *Server, mid string) (string, []string) {
		return "/v1/organizations/invites?limit=20&after_id=" + mid, benchAdminHeaders
	})
}

func BenchmarkListPageUsers(b *testing.B) {
	benchListPage(b, func(s *Server, mid string) (string, []string) {
		return "/v1/organizations/users?limit=20&after_id=" + mid, benchAdminHeaders
	})
}

func BenchmarkListPageWorkspaces(b *testing.B) {
	benchListPage(b, func(s *Server, mid string) (string, []string) {
		return "/v1/organizations/workspaces?limit=20&before_id=" + mid, benchAdminHeaders
	})
}

func BenchmarkListPageTunnels(b *testing.B) {
	benchListPage(b, func(s *Server, mid string) (string, []string) {
		rec := tunnels.StoreOf(s.srv, s.srv.State()).ByID[mid]
		return "/v1/organizations/tunnels?limit=20&page=" + core.EncodePageToken("tunnels:"+rec.Org.ID, tunnels.TunnelRecKey(rec)), benchTunnelHeaders
	})
}

func BenchmarkListPageTunnelCertificates(b *testing.B) {
	benchListPage(b, func(s *Server, mid string) (string, []string) {
		rec := tunnels.StoreOf(s.srv, s.srv.State()).ByID[benchCertTunnel]
		for _, c := range rec.Certs {
			if c.ID == mid {
				tok := core.EncodePageToken("tunnel_certificates:"+benchCertTunnel, tunnels.CertRecKey(c))
				return "/v1/organizations/tunnels/" + benchCertTunnel + "/certificates?include_archived=true&limit=20&page=" + tok, benchTunnelHeaders
			}
		}
		b.Fatalf("no certificate %s", mid)
		return "", nil
	})
}

var (
	benchAdminHeaders  = []string{"X-Api-Key", "test-admin-key", "vendor-version", core.APIVersion}
	benchTunnelHeaders = []string{"Authorization", "Bearer test-bearer-token", "vendor-version", core.APIVersion, "vendor-beta", "mcp-tunnels-2026-05-19"}
)

// benchCertTunnel is the tunnel that holds the certificates of the benchmark.
const benchCertTunnel = "tnl_bench_certs"

// benchListPage runs, for each size, the request that page builds for a server of that many
// records, given the ID of the record in the middle.
func benchListPage(b *testing.B, page func(s *Server, mid string) (path string, header []string)) {
	for _, n := range listSizes {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			s, mid := benchListServer(b, n)
			path, header := page(s, mid)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				benchGet(b, s, path, header...)
			}
		})
	}
}

// benchGet serves one GET request with the header name, value pairs and fails the benchmark
// unless it answers 200.
func benchGet(b *testing.B, s *Server, path string, header ...string) {
	benchDo(b, s, http.MethodGet, path, nil, header)
}

// benchDo serves one request with the body and the header name, value pairs and fails the
// benchmark unless it answers 200.
func benchDo(b *testing.B, s *Server, method, path string, body []byte, header []string) {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%d %s", rec.Code, rec.Body)
	}
}

// benchListServer builds a server whose fixtures give the first organization n invites, users,
// workspaces, tunnels and certificates of one tunnel (every tenth deleted, removed or archived),
// and returns it with the ID that sits in the middle of each list: the records of every kind
// share their index in the ID, "bench%08d".
func benchListServer(b *testing.B, n int) (*Server, string) {
	def, err := core.DefaultFixtures()
	if err != nil {
		b.Fatal(err)
	}
	fx := def.Copy()
	acme := fx.Orgs[0]
	admin.AdminSection.In(fx.Sections).Invites, admin.AdminSection.In(fx.Sections).Workspaces, fx.Users, *tunnels.TunnelsSection.In(fx.Sections) = nil, nil, nil, nil
	certs := tunnels.FixtureTunnel{Tunnel: tunnels.Tunnel{ID: benchCertTunnel, CreatedAt: core.Epoch().Add(-time.Hour), Domain: "certs.bench.test", Type: "tunnel"}, Org: acme}
	for i := range n {
		at := core.Epoch().Add(-time.Duration(n-i) * time.Minute)
		id := fmt.Sprintf("bench%08d", i)
		gone := i%10 == 9
		status, archived := "pending", (*time.Time)(nil)
		if gone {
			status, archived = "deleted", &at
		}
		admin.AdminSection.In(fx.Sections).Invites = append(admin.AdminSection.In(fx.Sections).Invites, admin.Invite{ID: id, Email: id + "@acme.example", InvitedAt: at, ExpiresAt: at.Add(admin.InviteLifetime),
			Role: "user", Type: "invite", Stored: status, Org: acme})
		fx.Users = append(fx.Users, core.Member{OrganizationID: acme.ID, ID: id, Email: id + "@acme.example", Name: id, Role: "user", AddedAt: at, Org: acme})
		admin.AdminSection.In(fx.Sections).Workspaces = append(admin.AdminSection.In(fx.Sections).Workspaces, admin.Workspace{ID: id, ArchivedAt: archived, CreatedAt: at, Name: id,
			DataResidency: admin.DefaultResidency, DisplayColor: admin.WorkspaceColors[0], Tags: map[string]string{}, Type: "workspace", Org: acme})
		*tunnels.TunnelsSection.In(fx.Sections) = append(*tunnels.TunnelsSection.In(fx.Sections), tunnels.FixtureTunnel{Tunnel: tunnels.Tunnel{ID: id, ArchivedAt: archived, CreatedAt: at, Domain: id + ".bench.test", Type: "tunnel"}, Org: acme})
		certs.Certs = append(certs.Certs, tunnels.TunnelCertificate{ID: id, ArchivedAt: archived, CreatedAt: at, Fingerprint: id,
			TunnelID: benchCertTunnel, Type: "tunnel_certificate"})
	}
	*tunnels.TunnelsSection.In(fx.Sections) = append(*tunnels.TunnelsSection.In(fx.Sections), certs)
	s := New(WithFixtures(&Fixtures{fx: fx}))
	for i := range n {
		if i%10 == 8 {
			admin.StoreOf(s.srv, &core.Call{St: s.srv.State()}).Removed[fmt.Sprintf("bench%08d", i)] = true
		}
	}
	tunnels.StoreOf(s.srv, s.srv.State()) // build the stores before timing
	return s, fmt.Sprintf("bench%08d", n/2)
}

// BenchmarkListPageMemoryStores lists the first page of 20 memory stores with 100 and with
// 10,000 stores in the organization (created through the API, every tenth archived): the page
// walks the organization's index, kept as stores come and go, so the two sizes cost the same.
func BenchmarkListPageMemoryStores(b *testing.B) {
	benchCreatedListPage(b, "/v1/memory_stores", `{"name":"bench"}`)
}

// BenchmarkListPageEnvironments is BenchmarkListPageMemoryStores for environments.
func BenchmarkListPageEnvironments(b *testing.B) {
	benchCreatedListPage(b, "/v1/environments", `{"name":"bench"}`)
}

// benchCreatedListPage creates, for each size, that many records by POST path with body
// (archiving every tenth by POST path/{id}/archive), then measures GET path?limit=20.
func benchCreatedListPage(b *testing.B, path, body string) {
	for _, n := range listSizes {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			s := New()
			for i := range n {
				req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
				req.Header.Set("X-Api-Key", "test-api-key")
				req.Header.Set("vendor-version", core.APIVersion)
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code, rec.Body)
				}
				if i%10 == 9 {
					benchPost(b, s, path+"/"+gjson.Get(rec.Body.String(), "id").String()+"/archive")
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				benchGet(b, s, path+"?limit=20", "X-Api-Key", "test-api-key", "vendor-version", core.APIVersion)
			}
		})
	}
}

// benchPost serves a POST without a body with the default API key and fails the benchmark
// unless it answers 200.
func benchPost(b *testing.B, s *Server, path string) {
	req := httptest.NewRequest(http.MethodPost, path, nil)
	req.Header.Set("X-Api-Key", "test-api-key")
	req.Header.Set("vendor-version", core.APIVersion)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
}

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
		s, do, ids, agents := benchSessionServer(b, n)
		mid := ids[n/2]
		midAt := gjson.GetBytes(do("GET", "/v1/sessions/"+mid, nil), "created_at").String()
		at, err := time.Parse(time.RFC3339Nano, midAt)
		if err != nil {
			b.Fatal(err)
		}
		// The tokens of the pages that end and start at mid, as next_page and prev_page give them.
		fwd := core.EncodePageToken("sessions_desc", core.ListKey{At: at, ID: mid})
		back := core.EncodePageToken("sessions_desc_back", core.ListKey{At: at, ID: mid})
		firstAgentPage := gjson.GetBytes(do("GET", "/v1/sessions?limit=20&agent_id="+agents[0], nil), "next_page").String()
		for _, bc := range []struct{ name, path string }{
			{"page", "/v1/sessions?limit=20&page=" + fwd},
			{"prev", "/v1/sessions?limit=20&page=" + back},
			{"created", "/v1/sessions?limit=20&created_at[lte]=" + url.QueryEscape(midAt)},
			{"agent", "/v1/sessions?limit=20&agent_id=" + agents[0]},
			{"agent-page", "/v1/sessions?limit=20&agent_id=" + agents[0] + "&page=" + firstAgentPage},
			{"agent-rare", "/v1/sessions?limit=20&agent_id=" + agents[10]},
		} {
			b.Run(fmt.Sprintf("%s/sessions=%d", bc.name, n), func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, bc.path, nil)
				req.Header.Set("X-Api-Key", core.DefaultAPIKey)
				req.Header.Set("Vendor-Version", core.APIVersion)
				benchServeCPU(b, s, req)
			})
		}
	}
}

// benchServeCPU serves req again and again into a writer that keeps nothing, and reports the
// process's CPU time an operation beside the wall time, which on a shared machine swings with
// the load.
func benchServeCPU(b *testing.B, s *Server, req *http.Request) {
	w := &discardWriter{header: http.Header{}}
	b.ReportAllocs()
	before := cpuTime()
	for b.Loop() {
		clear(w.header)
		w.status = 0
		s.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("%s: %d", req.URL, w.status)
		}
	}
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
}

// The event list's pages and the thread list, in a session of 996 and 9,996 events (the most a
// session keeps is sessions.MaxEvents): 166 and 1,666 user messages, a second apart, each
// answered by the agent (six events). A page of 20 from the middle, the first page of the last
// tenth by created_at, a page of agent.message events from the middle (the types filter skips
// five events in six), and the thread list:
//
//	go test -run '^$' -bench 'ListPageSessionEvents' -benchmem ./fake
func BenchmarkListPageSessionEvents(b *testing.B) {
	for _, messages := range []int{166, 1666} {
		s, do, ids, _ := benchSessionServer(b, 1)
		id := ids[0]
		for range messages {
			do("POST", "/v1/sessions/"+id+"/events", userMessage("ping"))
			s.AdvanceClock(time.Second)
		}
		n := 6 * messages
		// A session of as many events, none a session.status_idle (interrupts of an idle
		// session), whose primary thread has no usage yet.
		quiet := gjson.GetBytes(do("GET", "/v1/sessions/"+id, nil), "environment_id").String()
		quiet = gjson.GetBytes(do("POST", "/v1/sessions", map[string]any{"agent": gjson.GetBytes(do("GET", "/v1/sessions/"+id, nil), "agent.id").String(), "environment_id": quiet}), "id").String()
		interrupts := make([]any, 0, 50) // the most a send takes
		for range 50 {
			interrupts = append(interrupts, map[string]any{"type": "user.interrupt"})
		}
		for sent := 0; sent < n; sent += 50 {
			do("POST", "/v1/sessions/"+quiet+"/events", map[string]any{"events": interrupts[:min(50, n-sent)]})
		}
		// The key of the event of sequence i, as a token of the list holds it: the page after it
		// starts at that event.
		at := func(i int) string {
			return core.EncodePageToken("session_events", core.ListKey{At: time.Unix(int64(i), 0)})
		}
		tok := at(n / 2)
		tenth := gjson.GetBytes(do("GET", "/v1/sessions/"+id+"/events?limit=1&page="+at(n-n/10), nil), "data.0.processed_at").String()
		if tenth == "" {
			b.Fatal("no event in the last tenth")
		}
		for _, bc := range []struct{ name, path string }{
			{"page", "/v1/sessions/" + id + "/events?limit=20&page=" + tok},
			{"created", "/v1/sessions/" + id + "/events?limit=20&created_at[gte]=" + url.QueryEscape(tenth)},
			{"types", "/v1/sessions/" + id + "/events?limit=20&types[]=agent.message&page=" + tok},
			{"threads", "/v1/sessions/" + id + "/threads"},
			{"threads-never-idle", "/v1/sessions/" + quiet + "/threads"},
		} {
			b.Run(fmt.Sprintf("%s/events=%d", bc.name, n), func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, bc.path, nil)
				req.Header.Set("X-Api-Key", core.DefaultAPIKey)
				req.Header.Set("Vendor-Version", core.APIVersion)
				benchServeCPU(b, s, req)
			})
		}
	}
}

// benchSessionServer makes a server whose organization has n sessions, one a second, of 10
// agents in turn (but the oldest, of an eleventh: the rare agent), every tenth archived; it
// returns it with a function that serves a request as the API key (and fails the benchmark
// unless it answers 200), the IDs oldest first and the agents.
func benchSessionServer(b testing.TB, n int) (*Server, func(method, path string, body any) []byte, []string, []string) {
	s := New()
	do := benchAPI(b, s)
	// The server's sessions are the benchmark's alone (their bound is the server's): the data
	// set's go first, in both organizations.
	for _, key := range []string{core.DefaultAPIKey, core.DefaultAPIKey + core.SecondOrganizationSuffix} {
		as := benchAPIAs(b, s, key)
		for _, id := range gjson.GetBytes(as("GET", "/v1/sessions?include_archived=true&limit=100", nil), "data.#.id").Array() {
			as("DELETE", "/v1/sessions/"+id.String(), nil)
		}
	}
	var agents, ids []string
	for i := range 11 {
		agents = append(agents, gjson.GetBytes(do("POST", "/v1/agents", map[string]any{"name": fmt.Sprint("bench ", i), "model": "assistant-sonnet-4-5"}), "id").String())
	}
	env := gjson.GetBytes(do("POST", "/v1/environments", map[string]any{"name": "bench", "config": map[string]any{"type": "cloud"}}), "id").String()
	for i := range n {
		agent := agents[i%10]
		if i == 0 {
			agent = agents[10]
		}
		id := gjson.GetBytes(do("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env}), "id").String()
		ids = append(ids, id)
		if i%10 == 9 {
			do("POST", "/v1/sessions/"+id+"/archive", nil)
		}
		s.AdvanceClock(time.Second)
	}
	return s, do, ids, agents
}
