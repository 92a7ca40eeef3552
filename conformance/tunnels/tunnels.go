package tunnels

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/certgen"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Tunnels and tunnel certificates (spec 2.17, 3.3, 3.4, 4.9, gaps §9).
//
// The specified API cannot create tunnels. On the fake, checks that change a tunnel make their own
// through the control API; on a deployment they use a pre-existing tunnel, so those that rotate
// or archive it carry Destructive. Certificates a check adds are archived by its cleanup.

const Path = "/v1/organizations/tunnels"

// Walk walks every page of the tunnel list with the query (page size limit; 0: the
// default) and returns the items in list order.
func Walk(t *kit.T, q url.Values, limit int, org2 bool) []gjson.Result {
	return t.WalkPages(kit.Request{Area: kit.Tunnels, Path: Path, Query: q, Org2: org2, Schema: "tunnels/tunnel_list"}, limit)
}

var IncludeArchived = url.Values{"include_archived": {"true"}}

// activeCertificates lists a tunnel's non-archived certificates.
func activeCertificates(t *kit.T, tunnelID string) []gjson.Result {
	resp := t.OK(kit.Request{Area: kit.Tunnels, Path: Path + "/" + tunnelID + "/certificates", Schema: "tunnels/certificate_list"})
	return resp.Get("data").Array()
}

// scratchTunnel returns a tunnel the check may change, with at least free open certificate
// slots. On the fake it is a new tunnel (archived by the cleanup); on a deployment it is the
// newest non-archived tunnel with enough room, and the check is Unsupported when there is none.
func scratchTunnel(t *kit.T, free int) string {
	if t.Target.IsFake {
		id := t.Control(http.MethodPost, "/_fake/tunnels", map[string]any{"display_name": "conformance scratch"}).Get("id").String()
		t.Cleanup("archive tunnel "+id, t.Delete(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/archive"}))
		return id
	}
	for _, tn := range Walk(t, nil, 100, false) {
		id := tn.Get("id").String()
		if len(activeCertificates(t, id))+free <= 2 {
			return id
		}
	}
	t.Unsupported("no non-archived tunnel has %d free certificate slot(s)", free)
	return ""
}

// fullTunnel returns a scratch tunnel filled up to the limit of two non-archived certificates,
// at least one of them the check's own.
func fullTunnel(t *kit.T) string {
	id := scratchTunnel(t, 1)
	for len(activeCertificates(t, id)) < 2 {
		addCertificate(t, id, certgen.CA("conformance filler").PEM)
	}
	return id
}

// addCertificate registers pemText on the tunnel, requires 200 and archives it at cleanup.
func addCertificate(t *kit.T, tunnelID, pemText string) *kit.Response {
	resp := t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + tunnelID + "/certificates",
		Body: map[string]string{"ca_certificate_pem": pemText}, Schema: "tunnels/certificate"})
	id := resp.Get("id").String()
	t.Cleanup("archive certificate "+id, t.Delete(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + tunnelID + "/certificates/" + id + "/archive"}))
	return resp
}

// tokenOp is a reveal_token or rotate_token request on the tunnel.
func tokenOp(tunnelID, op string, body any) kit.Request {
	return kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + tunnelID + "/" + op, Body: body, Schema: "tunnels/tunnel_token"}
}

// anyTunnel returns a non-archived tunnel of the organization, for checks that only read it.
func anyTunnel(t *kit.T) string {
	list := Walk(t, nil, 0, false)
	t.Need("non-archived tunnels", len(list), 1)
	return list[0].Get("id").String()
}

// archivedTunnel returns an archived tunnel of the organization: a listed one, or on the fake
// a new one archived for the check.
func archivedTunnel(t *kit.T) string {
	for _, tn := range Walk(t, IncludeArchived, 0, false) {
		if tn.Get("archived_at").Type != gjson.Null {
			t.Need("archived tunnels", 1, 1)
			return tn.Get("id").String()
		}
	}
	if !t.Target.IsFake {
		t.Need("archived tunnels", 0, 1)
	}
	id := scratchTunnel(t, 0)
	t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/archive", Schema: "tunnels/tunnel"})
	return id
}

// expectQueryRefused requires each value of the query parameter to be refused with 400
// invalid_request_error naming the parameter.
func expectQueryRefused(t *kit.T, path, param string, values ...string) {
	for _, v := range values {
		resp := t.Do(kit.Request{Area: kit.Tunnels, Path: path, Query: url.Values{param: {v}}})
		t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
		t.Expect(resp.Get("error.message").String()).To(ContainSubstring(param), "%s=%q", param, v)
	}
}

// tokenAccepted asks the fake whether a new connection with the token would be accepted.
func tokenAccepted(t *kit.T, token string) bool {
	return t.Control(http.MethodPost, "/_fake/tunnels/token_check", map[string]string{"tunnel_token": token}).Get("accepted").Bool()
}

// acceptedToken reveals the tunnel's token and requires the fake to accept it, the starting
// point of the checks that prove it is invalidated.
func acceptedToken(t *kit.T, tunnelID string) string {
	token := t.OK(tokenOp(tunnelID, "reveal_token", nil)).Get("tunnel_token").String()
	t.Expect(tokenAccepted(t, token)).To(BeTrue(), "the current token is refused")
	return token
}

var tokenIDPattern = regexp.MustCompile(`^ttkn_[0-9a-f]{64}$`)

// init registers the area's checks.
func init() {
	kit.Register(kit.InterfaceChecks(kit.Tunnels, Path, "tunnels/tunnel_list")...)
	kit.Register(tunnelListChecks()...)
	kit.Register(tunnelTokenChecks()...)
	kit.Register(tunnelArchiveChecks()...)
	kit.Register(tunnelCertificateChecks()...)
	kit.Register(tunnelCertificateValidationChecks()...)
}

// tunnelListChecks cover get and list (spec 2.17, 4.9, gaps §3, §9), tenancy and the control call.
func tunnelListChecks() []kit.Check {
	return []kit.Check{
		{ID: "tunnels/list-newest-first", Clause: "4.9", Labels: []kit.Label{kit.Tunnels},
			Title: "the tunnel list is ordered newest first",
			Run: func(t *kit.T) {
				list := Walk(t, IncludeArchived, 1000, false)
				t.Need("tunnels", len(list), 2)
				for i := 1; i < len(list); i++ {
					prev, cur := list[i-1].Get("created_at").Time(), list[i].Get("created_at").Time()
					t.Expect(prev.Before(cur)).To(BeFalse(), "%s is listed before the newer %s", list[i-1].Get("id"), list[i].Get("id"))
				}
			},
			Bug: &kit.Bug{Says: "the tunnel list is oldest first", Want: "is listed before the newer",
				Break: kit.InRouteOKAnswers(http.MethodGet, mwtTunnels, func(_ *http.Request, m map[string]any) {
					if data, ok := m["data"].([]any); ok {
						slices.Reverse(data)
					}
				})}},
		{ID: "tunnels/list-include-archived", Clause: "4.9", Labels: []kit.Label{kit.Tunnels},
			Title: "archived tunnels are listed only with include_archived=true, which lists every tunnel",
			Run: func(t *kit.T) {
				archivedTunnel(t)
				active := Walk(t, nil, 1000, false)
				for _, tn := range active {
					t.Expect(tn.Get("archived_at").Type).To(Equal(gjson.Null), "archived tunnel %s listed by default", tn.Get("id"))
				}
				all := Walk(t, IncludeArchived, 1000, false)
				var unarchived []string
				archived := 0
				for _, tn := range all {
					if tn.Get("archived_at").Type == gjson.Null {
						unarchived = append(unarchived, tn.Get("id").String())
					} else {
						archived++
					}
				}
				t.Expect(archived).To(BeNumerically(">", 0), "include_archived=true lists the archived tunnels too")
				t.Expect(unarchived).To(ConsistOf(kit.IDsOf(active)), "include_archived=true lists every tunnel the default list holds")
				explicit := Walk(t, url.Values{"include_archived": {"false"}}, 1000, false)
				t.Expect(kit.IDsOf(explicit)).To(ConsistOf(kit.IDsOf(active)), "include_archived=false lists what the default list holds")
			},
			Bug: &kit.Bug{Says: "archived tunnels are listed without include_archived", Want: "listed by default",
				Break: kit.InRouteQuery(http.MethodGet, mwtTunnels, func(q url.Values) {
					if !q.Has("include_archived") {
						q.Set("include_archived", "true")
					}
				})}},
		{ID: "tunnels/list-workspace-filter", Clause: "4.9", Labels: []kit.Label{kit.Tunnels},
			Title: "workspace_id lists exactly the tunnels of that workspace; omitted, every workspace is listed",
			Run: func(t *kit.T) {
				all := Walk(t, IncludeArchived, 1000, false)
				byWorkspace := map[string][]string{}
				defaults := 0
				for _, tn := range all {
					if ws := tn.Get("workspace_id"); ws.Type == gjson.Null {
						defaults++
					} else {
						byWorkspace[ws.String()] = append(byWorkspace[ws.String()], tn.Get("id").String())
					}
				}
				t.Need("workspaces other than the default one holding tunnels", len(byWorkspace), 1)
				for ws, want := range byWorkspace {
					got := Walk(t, url.Values{"include_archived": {"true"}, "workspace_id": {ws}}, 1000, false)
					t.Expect(kit.IDsOf(got)).To(Equal(want), "workspace %s", ws)
				}
				none := Walk(t, url.Values{"workspace_id": {"wrkspc_01NoSuchWorkspace0000000"}}, 0, false)
				t.Expect(none).To(BeEmpty(), "an unknown workspace_id lists no tunnel")
			},
			Bug: &kit.Bug{Says: "the tunnel list ignores workspace_id", Break: kit.IgnoresQuery(kit.On(http.MethodGet, mwtTunnels), "workspace_id")}},
		{ID: "tunnels/list-workspace-filter-invalid", Clause: "4.9", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "a workspace_id that is not a wrkspc_ ID is refused with 400 naming workspace_id",
			Run: func(t *kit.T) {
				expectQueryRefused(t, Path, "workspace_id", "", "default", "ws_123", "org_01AcmeCorporation00000001")
			},
			Bug: &kit.Bug{Says: "a workspace_id that is not a wrkspc_ ID is ignored instead of refused", Break: kit.IgnoresInvalidQuery(http.MethodGet, mwtTunnels, "workspace_id")}},
		{ID: "tunnels/list-pages-complete", Clause: "2.1", Labels: []kit.Label{kit.Tunnels},
			Title: "paging with next_page at every page size returns each tunnel exactly once, in order, and the last page has next_page null",
			Run: func(t *kit.T) {
				all := kit.IDsOf(Walk(t, IncludeArchived, 1000, false))
				t.Need("tunnels", len(all), 2)
				for _, size := range []int{1, 2, 3} {
					t.Expect(kit.IDsOf(Walk(t, IncludeArchived, size, false))).To(Equal(all), "page size %d", size)
				}
			},
			Bug: &kit.Bug{Says: "the first page of one tunnel says no page follows though more tunnels do",
				Break: kit.InRouteOKAnswers(http.MethodGet, mwtTunnels, func(r *http.Request, m map[string]any) {
					if q := r.URL.Query(); q.Get("limit") == "1" && !q.Has("page") {
						m["next_page"] = nil
					}
				})}},
		{ID: "tunnels/list-default-limit", Clause: "gaps §9", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "without limit, a page holds at most 20 tunnels",
			Run: func(t *kit.T) {
				if t.Target.IsFake {
					for len(Walk(t, nil, 1000, false)) <= 20 {
						scratchTunnel(t, 0)
					}
				}
				all := len(Walk(t, nil, 1000, false))
				t.Need("non-archived tunnels", all, 1)
				resp := t.OK(kit.Request{Area: kit.Tunnels, Path: Path, Schema: "tunnels/tunnel_list"})
				t.Expect(resp.Get("data.#").Int()).To(BeNumerically("==", min(all, 20)), "a page without limit holds min(%d tunnels, 20): %s", all, resp)
				t.Expect(resp.Get("next_page").Type == gjson.Null).To(Equal(all <= 20), "next_page is null exactly when no tunnel is left after the first 20: %s", resp)
			},
			Bug: &kit.Bug{Says: "without limit, a page holds at most 2 tunnels",
				Break: kit.InRouteQuery(http.MethodGet, mwtTunnels, func(q url.Values) {
					if !q.Has("limit") {
						q.Set("limit", "2")
					}
				})}},
		{ID: "tunnels/list-limit-range", Clause: "gaps §9", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "a limit outside 1 to 1000 is refused with 400 naming limit",
			Run: func(t *kit.T) {
				t.NoItemsNeeded()
				expectQueryRefused(t, Path, "limit", "0", "1001", "-1", "ten")
				t.OK(kit.Request{Area: kit.Tunnels, Path: Path, Query: url.Values{"limit": {"1"}}, Schema: "tunnels/tunnel_list"})
				t.OK(kit.Request{Area: kit.Tunnels, Path: Path, Query: url.Values{"limit": {"1000"}}, Schema: "tunnels/tunnel_list"})
			},
			Bug: &kit.Bug{Says: "a tunnel-list limit outside 1 to 1000 is ignored instead of refused", Break: kit.IgnoresInvalidQuery(http.MethodGet, mwtTunnels, "limit")}},
		{ID: "tunnels/list-page-token-forged", Clause: "gaps §3", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "a forged or malformed page token is refused with 400 naming page",
			Run: func(t *kit.T) {
				expectQueryRefused(t, Path, "page", "not-a-token", "eyJzIjoidHVubmVscyJ9.AAAA")
			},
			Bug: &kit.Bug{Says: "a page token the target cannot read is ignored, as if absent", Break: kit.IgnoresInvalidQuery(http.MethodGet, mwtTunnels, "page")}},
		{ID: "tunnels/get-each-listed", Clause: "4.9", Labels: []kit.Label{kit.Tunnels},
			Title: "every listed tunnel, archived or not, can be read by its ID and reads the same as in the list",
			Run: func(t *kit.T) {
				list := Walk(t, IncludeArchived, 1000, false)
				t.Need("tunnels", len(list), 1)
				for _, tn := range list {
					one := t.OK(kit.Request{Area: kit.Tunnels, Path: Path + "/" + tn.Get("id").String(), Schema: "tunnels/tunnel"})
					t.Expect(one.JSON().Raw).To(MatchJSON(tn.Raw), "tunnel %s reads as it is listed", tn.Get("id"))
				}
			},
			Bug: &kit.Bug{Says: "a tunnel read by its ID gives a created_at a second off the list's",
				Break: kit.InRouteOKAnswers(http.MethodGet, mwtTunnel, func(_ *http.Request, m map[string]any) { kit.ShiftTime(m, "created_at", time.Second) })}},
		{ID: "tunnels/domains-unique", Clause: "2.17", Labels: []kit.Label{kit.Tunnels},
			Title: "every tunnel, archived or not, has its own domain",
			Run: func(t *kit.T) {
				seen := map[string]string{}
				list := Walk(t, IncludeArchived, 1000, false)
				t.Need("tunnels", len(list), 2)
				for _, tn := range list {
					d := strings.ToLower(tn.Get("domain").String())
					t.Expect(seen).NotTo(HaveKey(d), "domain %s of %s", d, tn.Get("id"))
					seen[d] = tn.Get("id").String()
				}
			},
			Bug: &kit.Bug{Says: "two tunnels share a domain",
				Break: kit.InRouteOKAnswers(http.MethodGet, mwtTunnels, func(_ *http.Request, m map[string]any) {
					if data, _ := m["data"].([]any); len(data) >= 2 {
						first, _ := data[0].(map[string]any)
						second, _ := data[1].(map[string]any)
						second["domain"] = first["domain"]
					}
				})}},
		{ID: "tunnels/domain-never-reused", Clause: "2.17", Labels: []kit.Label{kit.Tunnels, kit.FakeOnly},
			Title: "a new tunnel never gets the domain of another tunnel, even of an archived one",
			Run: func(t *kit.T) {
				seen := map[string]bool{}
				for _, tn := range Walk(t, IncludeArchived, 1000, false) {
					seen[strings.ToLower(tn.Get("domain").String())] = true
				}
				for i := 0; i < 6; i++ {
					id := scratchTunnel(t, 0)
					tn := t.OK(kit.Request{Area: kit.Tunnels, Path: Path + "/" + id, Schema: "tunnels/tunnel"})
					d := strings.ToLower(tn.Get("domain").String())
					t.Expect(seen).NotTo(HaveKey(d), "domain %s reused", d)
					seen[d] = true
					if i%2 == 0 {
						t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/archive", Schema: "tunnels/tunnel"})
					}
				}
			},
			Bug: &kit.Bug{Says: "a new tunnel gets the domain of an earlier one", Want: "reused", Break: mwtDomainsRepeat}},
		{ID: "tunnels/other-organization-404", Clause: "4.9", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "another organization's tunnel and its certificates are answered 404, like an unknown ID, on every operation",
			Run: func(t *kit.T) {
				if t.Config().BearerToken2 == "" {
					t.NeedsSecondOrganization("CONFORMANCE_BEARER_TOKEN_2")
				}
				theirs := Walk(t, IncludeArchived, 1000, true)
				t.Need("tunnels of the second organization", len(theirs), 1)
				mine := map[string]bool{}
				for _, id := range kit.IDsOf(Walk(t, IncludeArchived, 1000, false)) {
					mine[id] = true
				}
				for _, id := range kit.IDsOf(theirs) {
					t.Expect(mine).NotTo(HaveKey(id), "tunnel %s is listed for both organizations", id)
					certs := t.OK(kit.Request{Area: kit.Tunnels, Org2: true, Path: Path + "/" + id + "/certificates", Query: IncludeArchived, Schema: "tunnels/certificate_list"})
					for _, r := range []kit.Request{
						{Path: Path + "/" + id}, {Path: Path + "/" + id + "/certificates"},
						{Method: http.MethodPost, Path: Path + "/" + id + "/reveal_token"},
						{Method: http.MethodPost, Path: Path + "/" + id + "/rotate_token"},
						{Method: http.MethodPost, Path: Path + "/" + id + "/archive"},
						{Method: http.MethodPost, Path: Path + "/" + id + "/certificates", Body: map[string]string{"ca_certificate_pem": certgen.CA("tenancy").PEM}},
					} {
						r.Area = kit.Tunnels
						t.ExpectError(t.Do(r), http.StatusNotFound, "not_found_error")
					}
					for _, c := range certs.Get("data").Array() {
						path := Path + "/" + id + "/certificates/" + c.Get("id").String()
						t.ExpectError(t.Do(kit.Request{Area: kit.Tunnels, Path: path}), http.StatusNotFound, "not_found_error")
						t.ExpectError(t.Do(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: path + "/archive"}), http.StatusNotFound, "not_found_error")
					}
				}
			},
			Bug: &kit.Bug{Says: "the tunnels do not tell organizations apart: another organization's credential reaches the first's", Break: kit.AsFirstOrg(`^/v1/organizations/tunnels`)}},
		{ID: "tunnels/unknown-404", Clause: "gaps §1", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "an unknown tunnel or certificate ID is answered 404 not_found_error",
			Run: func(t *kit.T) {
				t.ExpectError(t.Do(kit.Request{Area: kit.Tunnels, Path: Path + "/tnl_01NoSuchTunnel000000000000"}), http.StatusNotFound, "not_found_error")
				t.ExpectError(t.Do(tokenOp("tnl_01NoSuchTunnel000000000000", "reveal_token", nil)), http.StatusNotFound, "not_found_error")
				id := anyTunnel(t)
				t.ExpectError(t.Do(kit.Request{Area: kit.Tunnels, Path: Path + "/" + id + "/certificates/tcrt_01NoSuchCertificate0000000"}), http.StatusNotFound, "not_found_error")
			},
			Bug: &kit.Bug{Says: "an unknown tunnel ID is answered 400, not 404", Want: "404", Break: kit.RouteAnswersStatus(http.MethodGet, mwtTunnel, http.StatusNotFound, http.StatusBadRequest)}},
		{ID: "tunnels/beta-required", Clause: "9", Labels: []kit.Label{kit.Tunnels},
			Title: "every tunnel operation without the beta value mcp-tunnels-2026-05-19 is refused with 400, also when other beta values are sent",
			Run: func(t *kit.T) {
				id := anyTunnel(t)
				for _, beta := range []string{"", "managed-agents-2026-04-01", "mcp-tunnels-2026-05-18,mcp-client-2025-11-20"} {
					for _, r := range []kit.Request{
						{Path: Path}, {Path: Path + "/" + id}, {Path: Path + "/" + id + "/certificates"},
						{Method: http.MethodPost, Path: Path + "/" + id + "/reveal_token"},
					} {
						r.Area, r.Header = kit.Tunnels, http.Header{"vendor-beta": {beta}}
						resp := t.Do(r)
						t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
						t.Expect(resp.Get("error.message").String()).To(ContainSubstring("mcp-tunnels-2026-05-19"))
					}
				}
			},
			Bug: &kit.Bug{Says: "any mcp-tunnels beta value is accepted, whatever its date",
				Break: func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if strings.HasPrefix(r.URL.Path, Path) && strings.Contains(strings.Join(r.Header.Values("vendor-beta"), ","), "mcp-tunnels-") {
							r.Header.Add("vendor-beta", "mcp-tunnels-2026-05-19")
						}
						h.ServeHTTP(w, r)
					})
				}}},
		{ID: "tunnels/control-create", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Tunnels, kit.FakeOnly},
			Title: "POST /_fake/tunnels creates a tunnel in the given organization and workspace, with the given display name",
			Run: func(t *kit.T) {
				// Both organizations' credentials are known before anything is created, so that
				// every tunnel made here can be archived by the credential that sees it.
				if t.Config().BearerToken2 == "" {
					t.NeedsSecondOrganization("CONFORMANCE_BEARER_TOKEN_2")
				}
				t.NeedCredential(kit.Request{Area: kit.Tunnels})
				tn := t.Control(http.MethodPost, "/_fake/tunnels", map[string]any{
					"organization_id": "org_01GlobexIndustries0000001", "workspace_id": "wrkspc_01GlobexOps000000000001", "display_name": "conformance control",
				})
				id := tn.Get("id").String()
				t.Cleanup("archive tunnel "+id, t.Delete(kit.Request{Area: kit.Tunnels, Org2: true, Method: http.MethodPost, Path: Path + "/" + id + "/archive"}))
				got := t.OK(kit.Request{Area: kit.Tunnels, Org2: true, Path: Path + "/" + id, Schema: "tunnels/tunnel"})
				t.Expect(got.JSON().Raw).To(MatchJSON(tn.JSON().Raw))
				t.Expect(got.Get("workspace_id").String()).To(Equal("wrkspc_01GlobexOps000000000001"))
				t.Expect(got.Get("display_name").String()).To(Equal("conformance control"))
				t.Expect(got.Get("archived_at").Type).To(Equal(gjson.Null))
				t.ExpectError(t.Do(kit.Request{Area: kit.Tunnels, Path: Path + "/" + id}), http.StatusNotFound, "not_found_error")
				def := t.Control(http.MethodPost, "/_fake/tunnels", nil)
				defID := def.Get("id").String()
				t.Cleanup("archive tunnel "+defID, t.Delete(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + defID + "/archive"}))
				t.Expect(def.Get("workspace_id").Type).To(Equal(gjson.Null))
				t.Expect(def.Get("display_name").Type).To(Equal(gjson.Null))
				t.OK(kit.Request{Area: kit.Tunnels, Path: Path + "/" + defID, Schema: "tunnels/tunnel"})
			},
			Bug: &kit.Bug{Says: "the control API's tunnel create ignores workspace_id",
				Break: kit.InRouteRequests(http.MethodPost, `^/_fake/tunnels$`, func(_ *http.Request, b map[string]any) { delete(b, "workspace_id") })}},
		{ID: "tunnels/control-create-invalid", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Tunnels, kit.FakeOnly},
			Title: "POST /_fake/tunnels refuses an unknown organization, a malformed workspace ID and a display name outside 1 to 255 characters with 400 naming the field",
			Run: func(t *kit.T) {
				for field, value := range map[string]any{
					"organization_id": "org_01NoSuchOrganization000000", "workspace_id": "default",
					"display_name": strings.Repeat("x", 256),
				} {
					resp := t.Do(kit.Request{Area: kit.Core, Method: http.MethodPost, Path: "/_fake/tunnels", Body: map[string]any{field: value}, As: kit.NoCred})
					t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
					t.Expect(resp.Get("error.message").String()).To(ContainSubstring(field))
				}
				resp := t.Do(kit.Request{Area: kit.Core, Method: http.MethodPost, Path: "/_fake/tunnels", Body: map[string]any{"display_name": ""}, As: kit.NoCred})
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				at255 := t.Control(http.MethodPost, "/_fake/tunnels", map[string]any{"display_name": strings.Repeat("é", 255)})
				id := at255.Get("id").String()
				t.Cleanup("archive tunnel "+id, t.Delete(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/archive"}))
				t.Expect(at255.Get("display_name").String()).To(Equal(strings.Repeat("é", 255)))
			},
			Bug: &kit.Bug{Says: "the control API cuts a display name over 255 characters instead of refusing it",
				Break: kit.InRouteRequests(http.MethodPost, `^/_fake/tunnels$`, func(_ *http.Request, b map[string]any) {
					if name := []rune(kit.Str(b, "display_name")); len(name) > 255 {
						b["display_name"] = string(name[:255])
					}
				})}},
	}
}

// tunnelTokenChecks cover reveal and rotate (spec 3.3, 4.9, 5 rule 2, gaps §9).
func tunnelTokenChecks() []kit.Check {
	return []kit.Check{
		{ID: "tunnels/reveal-stable", Clause: "4.9", Labels: []kit.Label{kit.Tunnels},
			Title: "reveal_token answers the same token and ttkn_ id on every call until rotation",
			Run: func(t *kit.T) {
				id := anyTunnel(t)
				first := t.OK(tokenOp(id, "reveal_token", nil))
				t.Expect(first.Get("id").String()).To(HavePrefix("ttkn_"))
				t.Expect(first.Get("tunnel_token").String()).NotTo(BeEmpty())
				again := t.OK(tokenOp(id, "reveal_token", nil))
				t.Expect(again.JSON().Raw).To(MatchJSON(first.JSON().Raw))
			},
			Bug: &kit.Bug{Says: "every reveal_token answers the token under a new id", Break: mwtRevealNewID()}},
		{ID: "tunnels/token-id-format", Clause: "gaps §9", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "a tunnel token's id is ttkn_ followed by 64 hexadecimal characters",
			Run: func(t *kit.T) {
				tok := t.OK(tokenOp(anyTunnel(t), "reveal_token", nil))
				t.Expect(tok.Get("id").String()).To(MatchRegexp(tokenIDPattern.String()))
			},
			Bug: &kit.Bug{Says: "a token id's hexadecimal digits are upper-case",
				Break: kit.InRouteOKAnswers(http.MethodPost, mwtTokenOps, func(_ *http.Request, m map[string]any) {
					m["id"] = "ttkn_" + mwtUpper(strings.TrimPrefix(kit.Str(m, "id"), "ttkn_"))
				})}},
		{ID: "tunnels/token-only-in-reveal-and-rotate", Clause: "5", Labels: []kit.Label{kit.Tunnels},
			Title: "the tunnel token appears in no response other than reveal_token and rotate_token",
			Run: func(t *kit.T) {
				id := anyTunnel(t)
				token := t.OK(tokenOp(id, "reveal_token", nil)).Get("tunnel_token").String()
				for _, r := range []kit.Request{
					{Path: Path, Query: IncludeArchived}, {Path: Path + "/" + id},
					{Path: Path + "/" + id + "/certificates", Query: IncludeArchived},
					{Method: http.MethodPost, Path: Path + "/" + id + "/certificates", Body: map[string]string{"ca_certificate_pem": token}},
				} {
					r.Area = kit.Tunnels
					resp := t.Do(r)
					t.Expect(string(resp.Body)).NotTo(ContainSubstring(token), "%s %s", r.Method, r.Path)
					t.Expect(fmt.Sprint(resp.Header)).NotTo(ContainSubstring(token), "%s %s", r.Method, r.Path)
				}
			},
			Bug: &kit.Bug{Says: "a tunnel read by its ID carries its token", Break: mwtTunnelShowsToken}},
		{ID: "tunnels/rotate-fresh-token", Clause: "3.3", Labels: []kit.Label{kit.Tunnels, kit.Destructive},
			Title: "rotate_token (with or without a reason) answers a fresh token with a new id, and reveal then answers the new one",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 0)
				before := t.OK(tokenOp(id, "reveal_token", nil))
				rotated := t.OK(tokenOp(id, "rotate_token", map[string]string{"reason": "conformance: scheduled rotation"}))
				t.Expect(rotated.Get("id").String()).NotTo(Equal(before.Get("id").String()))
				t.Expect(rotated.Get("tunnel_token").String()).NotTo(Equal(before.Get("tunnel_token").String()))
				t.Expect(t.OK(tokenOp(id, "reveal_token", nil)).JSON().Raw).To(MatchJSON(rotated.JSON().Raw))
				again := t.OK(tokenOp(id, "rotate_token", nil))
				t.Expect(again.Get("id").String()).NotTo(BeElementOf(before.Get("id").String(), rotated.Get("id").String()))
				t.Expect(t.OK(kit.Request{Area: kit.Tunnels, Path: Path + "/" + id, Schema: "tunnels/tunnel"}).Get("archived_at").Type).To(Equal(gjson.Null))
			},
			Bug: &kit.Bug{Says: "rotate_token rotates but answers the token it replaced", Break: mwtRotateAnswersOld}},
		{ID: "tunnels/rotate-invalidates-old-token", Clause: "3.3", Labels: []kit.Label{kit.Tunnels, kit.FakeOnly},
			Title: "after rotation the previous token is refused for new connections and the fresh one is accepted",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 0)
				old := acceptedToken(t, id)
				fresh := t.OK(tokenOp(id, "rotate_token", nil)).Get("tunnel_token").String()
				t.Expect(tokenAccepted(t, old)).To(BeFalse())
				t.Expect(tokenAccepted(t, fresh)).To(BeTrue())
			},
			Bug: &kit.Bug{Says: "a token once revealed is still accepted after rotation", Break: mwtTokensStayAccepted}},
		{ID: "tunnels/rotate-invalid-body", Clause: "gaps §1", Labels: []kit.Label{kit.Tunnels, kit.Extension, kit.Destructive},
			Title: "a rotate_token body with a reason that is not a string is refused with 400 naming reason, and the token is unchanged",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 0)
				before := t.OK(tokenOp(id, "reveal_token", nil))
				resp := t.Do(tokenOp(id, "rotate_token", map[string]any{"reason": 42}))
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("reason"))
				t.Expect(t.OK(tokenOp(id, "reveal_token", nil)).JSON().Raw).To(MatchJSON(before.JSON().Raw))
			},
			Bug: &kit.Bug{Says: "a rotate_token reason that is not a string is ignored and the token rotated",
				Break: kit.InRouteRequests(http.MethodPost, `^/v1/organizations/tunnels/[^/]+/rotate_token$`, func(_ *http.Request, b map[string]any) {
					if _, ok := b["reason"].(string); !ok {
						delete(b, "reason")
					}
				})}},
	}
}

// tunnelArchiveChecks cover tunnel archival (spec 3.3, 7, gaps §9).
func tunnelArchiveChecks() []kit.Check {
	return []kit.Check{
		{ID: "tunnels/archive-cascades", Clause: "3.3", Labels: []kit.Label{kit.Tunnels, kit.Destructive},
			Title: "archiving a tunnel sets archived_at and archives every non-archived certificate in the same operation; the domain stays the tunnel's",
			Run: func(t *kit.T) {
				id := fullTunnel(t)
				before := t.OK(kit.Request{Area: kit.Tunnels, Path: Path + "/" + id, Schema: "tunnels/tunnel"})
				archived := t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/archive", Schema: "tunnels/tunnel"})
				at := archived.Get("archived_at")
				t.Expect(at.Type).To(Equal(gjson.String))
				for _, f := range []string{"id", "created_at", "domain", "display_name", "workspace_id", "type"} {
					t.Expect(archived.Get(f).Raw).To(Equal(before.Get(f).Raw), "field %s changed on archive", f)
				}
				t.Expect(activeCertificates(t, id)).To(BeEmpty())
				all := t.OK(kit.Request{Area: kit.Tunnels, Path: Path + "/" + id + "/certificates", Query: IncludeArchived, Schema: "tunnels/certificate_list"})
				t.Expect(all.Get("data.#").Int()).To(BeNumerically(">=", 2))
				for _, c := range all.Get("data").Array() {
					t.Expect(c.Get("archived_at").Type).To(Equal(gjson.String), "certificate %s", c.Get("id"))
					t.Expect(c.Get("archived_at").Time().After(at.Time())).To(BeFalse(), "certificate %s archived after its tunnel", c.Get("id"))
				}
				t.Expect(kit.IDsOf(Walk(t, nil, 1000, false))).NotTo(ContainElement(id))
				t.Expect(kit.IDsOf(Walk(t, IncludeArchived, 1000, false))).To(ContainElement(id))
			},
			Bug: &kit.Bug{Says: "archiving a tunnel leaves its certificates unarchived",
				Break: kit.InRouteOKAnswers(http.MethodGet, CertsRoute, func(r *http.Request, m map[string]any) {
					if r.URL.Query().Get("include_archived") == "true" {
						kit.EachDataItem(m, func(c map[string]any) { c["archived_at"] = nil })
					}
				})}},
		{ID: "tunnels/archive-retry-unchanged", Clause: "3.3", Labels: []kit.Label{kit.Tunnels},
			Title: "archiving an archived tunnel succeeds and answers the existing record unchanged",
			Run: func(t *kit.T) {
				id := archivedTunnel(t)
				before := t.OK(kit.Request{Area: kit.Tunnels, Path: Path + "/" + id, Schema: "tunnels/tunnel"})
				archive := kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/archive", Schema: "tunnels/tunnel"}
				first := t.OK(archive)
				t.Expect(first.JSON().Raw).To(MatchJSON(before.JSON().Raw), "archiving the archived tunnel %s answers it unchanged", id)
				kit.LetTimePass(t)
				again := t.OK(archive)
				t.Expect(again.JSON().Raw).To(MatchJSON(before.JSON().Raw), "archiving the archived tunnel %s again, later, answers it unchanged", id)
			},
			Bug: &kit.Bug{Says: "every archive stamps archived_at anew, to the second", Want: "unchanged",
				Break: kit.InRouteOKAnswers(http.MethodPost, `^/v1/organizations/tunnels/[^/]+/archive$`, func(_ *http.Request, m map[string]any) {
					m["archived_at"] = time.Now().UTC().Format(time.RFC3339)
				})}},
		{ID: "tunnels/archived-token-refused", Clause: "gaps §9", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "reveal_token and rotate_token on an archived tunnel are refused with 400 and answer no token",
			Run: func(t *kit.T) {
				id := archivedTunnel(t)
				for _, op := range []string{"reveal_token", "rotate_token"} {
					resp := t.Do(tokenOp(id, op, nil))
					t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
					t.Expect(resp.Get("tunnel_token").Exists()).To(BeFalse())
				}
			},
			Bug: &kit.Bug{Says: "reveal_token and rotate_token on an archived tunnel are answered 403, not 400", Want: "403", Break: kit.RouteAnswersStatus(http.MethodPost, mwtTokenOps, http.StatusBadRequest, http.StatusForbidden)}},
		{ID: "tunnels/archive-invalidates-token", Clause: "3.3", Labels: []kit.Label{kit.Tunnels, kit.FakeOnly},
			Title: "archiving a tunnel invalidates its token for new connections",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 0)
				token := acceptedToken(t, id)
				t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/archive", Schema: "tunnels/tunnel"})
				t.Expect(tokenAccepted(t, token)).To(BeFalse())
			},
			Bug: &kit.Bug{Says: "a token once revealed is still accepted after its tunnel is archived", Break: mwtTokensStayAccepted}},
	}
}

// tunnelCertificateChecks cover certificate create, read, list and archive (spec 2.17, 3.4, 4.9, gaps §9).
func tunnelCertificateChecks() []kit.Check {
	certPath := func(tunnelID string) string { return Path + "/" + tunnelID + "/certificates" }
	return []kit.Check{
		{ID: "tunnels/certificate-create", Clause: "3.4", Labels: []kit.Label{kit.Tunnels},
			Title: "a registered CA certificate gets a tcrt_ id, the SHA-256 fingerprint of its DER in lowercase hex and its NotAfter as expires_at, and reads back the same",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				notAfter := time.Now().UTC().AddDate(3, 0, 0).Truncate(time.Second)
				ca := certgen.New(certgen.Options{CommonName: "conformance CA", IsCA: true, NotAfter: notAfter})
				c := addCertificate(t, id, ca.PEM)
				t.Expect(c.Get("id").String()).To(HavePrefix("tcrt_"))
				t.Expect(c.Get("type").String()).To(Equal("tunnel_certificate"))
				t.Expect(c.Get("tunnel_id").String()).To(Equal(id))
				t.Expect(c.Get("fingerprint").String()).To(Equal(ca.Fingerprint()))
				t.Expect(c.Get("expires_at").Time().Equal(notAfter)).To(BeTrue(), "expires_at %s, want %s", c.Get("expires_at"), notAfter)
				t.Expect(c.Get("archived_at").Type).To(Equal(gjson.Null))
				got := t.OK(kit.Request{Area: kit.Tunnels, Path: certPath(id) + "/" + c.Get("id").String(), Schema: "tunnels/certificate"})
				t.Expect(got.JSON().Raw).To(MatchJSON(c.JSON().Raw))
				t.Expect(kit.IDsOf(activeCertificates(t, id))).To(ContainElement(c.Get("id").String()))
			},
			Bug: &kit.Bug{Says: "a certificate's fingerprint is not the SHA-256 of its DER (a digest of another text)",
				Break: kit.InRouteOKAnswers(http.MethodPost, CertsRoute, func(_ *http.Request, m map[string]any) { m["fingerprint"] = kit.SHA256Hex(kit.Str(m, "fingerprint")) })}},
		{ID: "tunnels/certificate-no-expiry", Clause: "2.17", Labels: []kit.Label{kit.Tunnels},
			Title: "a CA certificate that does not expire (NotAfter 99991231235959Z, RFC 5280) has expires_at null",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				ca := certgen.New(certgen.Options{CommonName: "conformance forever CA", IsCA: true, NotAfter: time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)})
				t.Expect(addCertificate(t, id, ca.PEM).Get("expires_at").Type).To(Equal(gjson.Null))
			},
			Bug: &kit.Bug{Says: "a certificate that does not expire reads expires_at 9999-12-31T23:59:59Z, not null",
				Break: kit.InRouteOKAnswers(http.MethodPost, CertsRoute, func(_ *http.Request, m map[string]any) {
					if m["expires_at"] == nil {
						m["expires_at"] = "9999-12-31T23:59:59Z"
					}
				})}},
		{ID: "tunnels/certificate-cap", Clause: "3.4", Labels: []kit.Label{kit.Tunnels},
			Title: "a tunnel holds at most two non-archived certificates: a third is refused and not stored, and archiving one makes room",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				existing := len(activeCertificates(t, id))
				first := addCertificate(t, id, certgen.CA("conformance cap 1").PEM)
				if existing == 0 {
					addCertificate(t, id, certgen.CA("conformance cap 2").PEM)
				}
				before := kit.IDsOf(activeCertificates(t, id))
				resp := t.Do(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: certPath(id), Body: map[string]string{"ca_certificate_pem": certgen.CA("conformance cap 3").PEM}})
				t.Expect(resp.Status).To(BeNumerically(">=", 400), "%s", resp)
				t.Expect(resp.Status).To(BeNumerically("<", 500), "%s", resp)
				t.Expect(kit.IDsOf(activeCertificates(t, id))).To(Equal(before))
				t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: certPath(id) + "/" + first.Get("id").String() + "/archive", Schema: "tunnels/certificate"})
				addCertificate(t, id, certgen.CA("conformance cap 3").PEM)
			},
			Bug: &kit.Bug{Says: "a third certificate is taken by archiving the oldest, not refused", Break: mwtCapEvictsOldest}},
		{ID: "tunnels/certificate-cap-400", Clause: "gaps §9", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "a third non-archived certificate is refused with 400 invalid_request_error",
			Run: func(t *kit.T) {
				id := fullTunnel(t)
				resp := t.Do(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: certPath(id), Body: map[string]string{"ca_certificate_pem": certgen.CA("conformance cap 3").PEM}})
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
			},
			Bug: &kit.Bug{Says: "a third certificate is refused with 409, not 400", Want: "400", Break: kit.RouteAnswersStatus(http.MethodPost, CertsRoute, http.StatusBadRequest, http.StatusConflict)}},
		{ID: "tunnels/certificate-archive", Clause: "3.4", Labels: []kit.Label{kit.Tunnels},
			Title: "archiving a certificate, also the last non-archived one, sets archived_at and keeps the record, listed only with include_archived",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				c := addCertificate(t, id, certgen.CA("conformance archive").PEM)
				cid := c.Get("id").String()
				archived := t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: certPath(id) + "/" + cid + "/archive", Schema: "tunnels/certificate"})
				t.Expect(archived.Get("archived_at").Type).To(Equal(gjson.String))
				for _, f := range []string{"id", "created_at", "expires_at", "fingerprint", "tunnel_id", "type"} {
					t.Expect(archived.Get(f).Raw).To(Equal(c.Get(f).Raw), "field %s changed on archive", f)
				}
				t.Expect(t.OK(kit.Request{Area: kit.Tunnels, Path: certPath(id) + "/" + cid, Schema: "tunnels/certificate"}).JSON().Raw).To(MatchJSON(archived.JSON().Raw))
				t.Expect(kit.IDsOf(activeCertificates(t, id))).NotTo(ContainElement(cid))
				all := t.OK(kit.Request{Area: kit.Tunnels, Path: certPath(id), Query: IncludeArchived, Schema: "tunnels/certificate_list"})
				t.Expect(kit.IDsOf(all.Get("data").Array())).To(ContainElement(cid))
			},
			Bug: &kit.Bug{Says: "archiving a certificate answers it with a new created_at", Want: "created_at",
				Break: kit.InRouteOKAnswers(http.MethodPost, mwtCertArchive, func(_ *http.Request, m map[string]any) { kit.ShiftTime(m, "created_at", time.Second) })}},
		{ID: "tunnels/trusted-set-follows-certificates", Clause: "3.4", Labels: []kit.Label{kit.Tunnels, kit.FakeOnly},
			Title: "a gateway is trusted through the tunnel's non-archived CA certificates only; an archived certificate leaves the trusted set, and with none left the tunnel rejects MCP traffic",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				accepted := func(gateway certgen.Cert) bool {
					return t.Control(http.MethodPost, "/_fake/tunnels/"+id+"/gateway_check", map[string]string{"certificate_pem": gateway.PEM}).Get("accepted").Bool()
				}
				oldCA, newCA := certgen.CA("conformance old CA"), certgen.CA("conformance new CA")
				oldGW, newGW := oldCA.Issue("gateway.conformance.test"), newCA.Issue("gateway.conformance.test")
				t.Expect(accepted(oldGW)).To(BeFalse(), "accepted with no CA certificate")
				oldID := addCertificate(t, id, oldCA.PEM).Get("id").String()
				t.Expect(accepted(oldGW)).To(BeTrue())
				t.Expect(accepted(newGW)).To(BeFalse(), "accepted a gateway of an unregistered CA")
				newID := addCertificate(t, id, newCA.PEM).Get("id").String()
				t.Expect(accepted(oldGW) && accepted(newGW)).To(BeTrue(), "both CAs are trusted during a rotation")
				t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: certPath(id) + "/" + oldID + "/archive", Schema: "tunnels/certificate"})
				t.Expect(accepted(oldGW)).To(BeFalse(), "an archived CA certificate is still trusted")
				t.Expect(accepted(newGW)).To(BeTrue())
				t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: certPath(id) + "/" + newID + "/archive", Schema: "tunnels/certificate"})
				t.Expect(accepted(newGW)).To(BeFalse(), "accepted with every CA certificate archived")
			},
			Bug: &kit.Bug{Says: "a gateway once accepted stays trusted after its CA certificate is archived", Want: "an archived CA certificate is still trusted", Break: mwtTrustCached}},
		{ID: "tunnels/expired-ca-trusts-nothing", Clause: "4.9", Labels: []kit.Label{kit.Tunnels, kit.FakeOnly},
			Title: "an expired CA certificate can be registered, its expires_at in the past, but a gateway it issued is not accepted",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				now := t.Control(http.MethodGet, "/_fake/clock", nil).Get("now").Time()
				notAfter := now.Add(-time.Hour).UTC().Truncate(time.Second)
				expired := certgen.New(certgen.Options{CommonName: "conformance expired CA", IsCA: true, NotAfter: notAfter})
				c := addCertificate(t, id, expired.PEM)
				t.Expect(c.Get("expires_at").Time().Equal(notAfter)).To(BeTrue(), "expires_at %s, want %s", c.Get("expires_at"), notAfter)
				check := t.Control(http.MethodPost, "/_fake/tunnels/"+id+"/gateway_check", map[string]string{"certificate_pem": expired.Issue("gateway.conformance.test").PEM})
				t.Expect(check.Get("accepted").Bool()).To(BeFalse())
				t.Expect(check.Get("reason").String()).To(ContainSubstring("expired"))
			},
			Bug: &kit.Bug{Says: "a gateway issued by an expired CA certificate is accepted",
				Break: kit.InRouteOKAnswers(http.MethodPost, `^/_fake/tunnels/[^/]+/gateway_check$`, func(_ *http.Request, m map[string]any) {
					if strings.Contains(kit.Str(m, "reason"), "expired") {
						m["accepted"] = true
					}
				})}},
		{ID: "tunnels/certificate-archive-retry-unchanged", Clause: "gaps §9", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "archiving an archived certificate answers it unchanged",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				cid := addCertificate(t, id, certgen.CA("conformance archive twice").PEM).Get("id").String()
				path := certPath(id) + "/" + cid + "/archive"
				first := t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: path, Schema: "tunnels/certificate"})
				kit.LetTimePass(t)
				again := t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: path, Schema: "tunnels/certificate"})
				t.Expect(again.JSON().Raw).To(MatchJSON(first.JSON().Raw))
			},
			Bug: &kit.Bug{Says: "archiving an archived certificate stamps archived_at anew",
				Break: kit.InRouteOKAnswers(http.MethodPost, mwtCertArchive, func(_ *http.Request, m map[string]any) { m["archived_at"] = time.Now().UTC().Format(time.RFC3339Nano) })}},
		{ID: "tunnels/certificate-list-limit-range", Clause: "gaps §9", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "a certificate list limit outside 1 to 1000 is refused with 400 naming limit",
			Run: func(t *kit.T) {
				id := anyTunnel(t)
				expectQueryRefused(t, certPath(id), "limit", "0", "1001", "-1", "ten")
				t.OK(kit.Request{Area: kit.Tunnels, Path: certPath(id), Query: url.Values{"limit": {"1"}}, Schema: "tunnels/certificate_list"})
			},
			Bug: &kit.Bug{Says: "a certificate-list limit outside 1 to 1000 is ignored instead of refused", Break: kit.IgnoresInvalidQuery(http.MethodGet, CertsRoute, "limit")}},
		{ID: "tunnels/certificate-list-pages", Clause: "4.9", Labels: []kit.Label{kit.Tunnels},
			Title: "the certificate list with include_archived pages with next_page and returns each certificate once",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				for i := 0; i < 3; i++ {
					c := addCertificate(t, id, certgen.CA(fmt.Sprint("conformance page ", i)).PEM)
					t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: certPath(id) + "/" + c.Get("id").String() + "/archive", Schema: "tunnels/certificate"})
				}
				all := t.OK(kit.Request{Area: kit.Tunnels, Path: certPath(id), Query: url.Values{"include_archived": {"true"}, "limit": {"1000"}}, Schema: "tunnels/certificate_list"})
				walked := kit.IDsOf(t.WalkPages(kit.Request{Area: kit.Tunnels, Path: certPath(id), Query: IncludeArchived, Schema: "tunnels/certificate_list"}, 1))
				t.Expect(walked).To(Equal(kit.IDsOf(all.Get("data").Array())))
				t.Expect(len(walked)).To(BeNumerically(">=", 3))
			},
			Bug: &kit.Bug{Says: "every page of certificates after the first loses its first certificate", Want: "next_page",
				Break: kit.InRouteOKAnswers(http.MethodGet, CertsRoute, func(r *http.Request, m map[string]any) {
					if data, _ := m["data"].([]any); r.URL.Query().Has("page") && len(data) > 0 {
						m["data"] = data[1:]
					}
				})}},
		{ID: "tunnels/certificate-of-other-tunnel-404", Clause: "gaps §1", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "a certificate read through another tunnel's path is answered 404",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				cid := addCertificate(t, id, certgen.CA("conformance other tunnel").PEM).Get("id").String()
				for _, other := range kit.IDsOf(Walk(t, IncludeArchived, 1000, false)) {
					if other != id {
						t.ExpectError(t.Do(kit.Request{Area: kit.Tunnels, Path: certPath(other) + "/" + cid}), http.StatusNotFound, "not_found_error")
						return
					}
				}
				t.Unsupported("the organization has a single tunnel")
			},
			Bug: &kit.Bug{Says: "a certificate is found by its ID under any tunnel's path", Want: "404",
				Break: mwtFoundUnderAnyParent(`^/v1/organizations/tunnels/([^/]+)/certificates/(tcrt_[^/]+)$`, Path+"?include_archived=true&limit=1000")}},
	}
}

// badPEM is one ca_certificate_pem the rules of spec 4.9 and gaps §9 refuse, and what the
// refusal's message must mention.
type badPEM struct {
	name, pem, mention string
}

// badPEMs generates one ca_certificate_pem per rule of spec 4.9 and gaps §9 that refuses it.
func badPEMs() []badPEM {
	ca := certgen.CA("conformance CA")
	leaf := certgen.New(certgen.Options{CommonName: "conformance leaf"})
	pad := strings.Repeat("#", 8193-len(ca.PEM)-1) + "\n" + ca.PEM
	return []badPEM{
		{"over 8 KB", pad, "8"},
		{"a PKCS #8 private key after the certificate", ca.PEM + ca.KeyPEM, "private"},
		{"an EC private key before the certificate", strings.ReplaceAll(ca.KeyPEM, "PRIVATE KEY", "EC PRIVATE KEY") + ca.PEM, "private"},
		{"an RSA private key alone", "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n", "private"},
		{"two certificates", ca.PEM + certgen.CA("conformance second CA").PEM, "one"},
		{"no PEM block", "not a certificate", "CERTIFICATE"},
		{"a CERTIFICATE block that is not X.509", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "X.509"},
		{"a certificate without the CA flag", leaf.PEM, "CA"},
	}
}

// tunnelCertificateValidationChecks cover what ca_certificate_pem may hold (spec 4.9, gaps §9).
func tunnelCertificateValidationChecks() []kit.Check {
	refuse := func(t *kit.T, id string, b badPEM) *kit.Response {
		return t.Do(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/certificates", Body: map[string]string{"ca_certificate_pem": b.pem}})
	}
	return []kit.Check{
		{ID: "tunnels/certificate-pem-refused", Clause: "4.9", Labels: []kit.Label{kit.Tunnels},
			Title: "a ca_certificate_pem with private-key material, more than one certificate, or no CA certificate is refused and nothing is stored",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				before := t.OK(kit.Request{Area: kit.Tunnels, Path: Path + "/" + id + "/certificates", Query: IncludeArchived, Schema: "tunnels/certificate_list"})
				for _, b := range badPEMs() {
					resp := refuse(t, id, b)
					t.Expect(resp.Status).To(BeNumerically(">=", 400), "%s: %s", b.name, resp)
					t.Expect(resp.Status).To(BeNumerically("<", 500), "%s: %s", b.name, resp)
				}
				after := t.OK(kit.Request{Area: kit.Tunnels, Path: Path + "/" + id + "/certificates", Query: IncludeArchived, Schema: "tunnels/certificate_list"})
				t.Expect(after.JSON().Raw).To(MatchJSON(before.JSON().Raw))
			},
			Bug: &kit.Bug{Says: "a private key after the certificate is ignored, and the certificate stored",
				Break: kit.InRouteRequests(http.MethodPost, CertsRoute, func(_ *http.Request, b map[string]any) {
					if pem := kit.Str(b, "ca_certificate_pem"); strings.Contains(pem, "-----BEGIN PRIVATE KEY-----") {
						b["ca_certificate_pem"] = pem[:strings.Index(pem, "-----BEGIN PRIVATE KEY-----")]
					}
				})}},
		{ID: "tunnels/certificate-pem-400-names-reason", Clause: "gaps §9", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "each refused ca_certificate_pem is answered 400 naming the field and the reason",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				for _, b := range badPEMs() {
					resp := refuse(t, id, b)
					t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
					msg := resp.Get("error.message").String()
					t.Expect(msg).To(ContainSubstring("ca_certificate_pem"), b.name)
					t.Expect(msg).To(ContainSubstring(b.mention), b.name)
				}
				resp := t.Do(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/certificates", Body: map[string]string{}})
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("ca_certificate_pem"))
			},
			Bug: &kit.Bug{Says: "a refused ca_certificate_pem's error names the field but not the reason", Break: kit.ErrorMessageOnly(kit.On(http.MethodPost, CertsRoute), "ca_certificate_pem: invalid")}},
		{ID: "tunnels/certificate-pem-8kb-bound", Clause: "gaps §9", Labels: []kit.Label{kit.Tunnels, kit.Extension},
			Title: "a ca_certificate_pem of exactly 8192 bytes is accepted",
			Run: func(t *kit.T) {
				id := scratchTunnel(t, 1)
				ca := certgen.CA("conformance 8 KB")
				padded := strings.Repeat("#", 8192-len(ca.PEM)-1) + "\n" + ca.PEM
				t.Expect(addCertificate(t, id, padded).Get("fingerprint").String()).To(Equal(ca.Fingerprint()))
			},
			Bug: &kit.Bug{Says: "a ca_certificate_pem of exactly 8192 bytes is refused (the limit is off by one)",
				Break: kit.RefusesBody(http.MethodPost, CertsRoute, func(b map[string]any) bool { return len(kit.Str(b, "ca_certificate_pem")) >= 8192 }, "ca_certificate_pem: over 8 KB")}},
	}
}
