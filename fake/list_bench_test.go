package fake

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
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
