package tunnels

import (
	"net/http"
	"strings"
	"sync"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/certgen"

	"github.com/platformkit/platformkit/conformance/kit"
)

// What /v1/tunnels validates beyond list, get, create and archive (EXTENSIONS.md, "/v1/tunnels"):
// update, certificates, and token reveal and rotate, each on a tunnel the check creates there.

// v1Tunnel creates a tunnel under /v1/tunnels for the check (archived by its cleanup) and returns
// its ID; a target that does not serve the route makes the check unsupported.
func v1Tunnel(t *kit.T) string {
	resp := t.Do(BetaRequest(http.MethodPost, "", "tunnels/tunnel", map[string]any{"display_name": "conformance v1"}))
	kit.Served(t, resp, "POST /v1/tunnels")
	t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
	id := resp.Get("id").String()
	t.Cleanup("archive tunnel "+id, t.Delete(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/archive"}))
	return id
}

// v1Update sends an update of the tunnel's display_name under /v1/tunnels.
func v1Update(t *kit.T, id string, body any) *kit.Response {
	r := BetaRequest(http.MethodPost, "/"+id, "", body)
	return t.Do(r)
}

// orgTunnel reads a tunnel under /v1/organizations/tunnels.
func orgTunnel(t *kit.T, id string) gjson.Result {
	return t.OK(kit.Request{Area: kit.Tunnels, Path: Path + "/" + id, Schema: "tunnels/tunnel"}).JSON()
}

func init() {
	labels := []kit.Label{kit.Tunnels, kit.Extension, kit.Destructive}
	v1Tunnels := `^/v1/tunnels/[^/]+`
	kit.Register(
		kit.Check{ID: "tunnels/v1-tunnels-update", Clause: "2.17", Labels: labels,
			Title: "POST /v1/tunnels/{tunnel_id} sets display_name, null clears it, a body without it changes nothing, and /v1/organizations/tunnels reads each change",
			Run: func(t *kit.T) {
				id := v1Tunnel(t)
				set := v1Update(t, id, map[string]any{"display_name": "renamed"})
				t.Expect(set.Status).To(Equal(http.StatusOK), "%s", set)
				t.Expect(set.Get("display_name").String()).To(Equal("renamed"), "an update sets display_name: %s", set)
				t.Expect(orgTunnel(t, id).Get("display_name").String()).To(Equal("renamed"), "/v1/organizations/tunnels reads the new display_name")
				same := v1Update(t, id, map[string]any{})
				t.Expect(same.Get("display_name").String()).To(Equal("renamed"), "an update without display_name keeps it: %s", same)
				cleared := v1Update(t, id, map[string]any{"display_name": nil})
				t.Expect(cleared.Status).To(Equal(http.StatusOK), "%s", cleared)
				t.Expect(cleared.Get("display_name").Type).To(Equal(gjson.Null), "display_name null clears it: %s", cleared)
				t.Expect(orgTunnel(t, id).Get("display_name").Type).To(Equal(gjson.Null), "/v1/organizations/tunnels reads the cleared display_name")
			},
			Bug: &kit.Bug{Says: "an update's display_name null is ignored, so the name cannot be cleared", Want: "display_name null clears it",
				Break: kit.InRouteRequests(http.MethodPost, v1Tunnels+`$`, func(_ *http.Request, b map[string]any) {
					if v, ok := b["display_name"]; ok && v == nil {
						delete(b, "display_name")
					}
				})}},
		kit.Check{ID: "tunnels/v1-tunnels-update-invalid-400", Clause: "2.17", Labels: labels,
			Title: "a /v1/tunnels update whose display_name is empty, over 255 characters or not a string is refused with 400 naming display_name and changes nothing, 255 characters are accepted, and an archived tunnel refuses every update with 400",
			Run: func(t *kit.T) {
				id := v1Tunnel(t)
				for _, bad := range []any{"", strings.Repeat("é", 256), 42, []string{"x"}} {
					resp := v1Update(t, id, map[string]any{"display_name": bad})
					t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
					t.Expect(resp.Get("error.message").String()).To(ContainSubstring("display_name"), "%s", resp)
				}
				t.Expect(orgTunnel(t, id).Get("display_name").String()).To(Equal("conformance v1"), "a refused update changed the tunnel")
				max := strings.Repeat("é", 255)
				t.Expect(v1Update(t, id, map[string]any{"display_name": max}).Get("display_name").String()).To(Equal(max), "255 characters are accepted")
				t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/archive", Schema: "tunnels/tunnel"})
				resp := v1Update(t, id, map[string]any{"display_name": "after archive"})
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(orgTunnel(t, id).Get("display_name").String()).To(Equal(max), "an archived tunnel was changed")
			},
			Bug: &kit.Bug{Says: "a display_name over 255 characters is cut to 255 and stored, not refused", Want: "-> 200",
				Break: kit.InRouteRequests(http.MethodPost, v1Tunnels+`$`, func(_ *http.Request, b map[string]any) {
					if name := []rune(kit.Str(b, "display_name")); len(name) > 255 {
						b["display_name"] = string(name[:255])
					}
				})}},
		kit.Check{ID: "tunnels/v1-tunnels-certificates", Clause: "4.9", Labels: labels,
			Title: "under /v1/tunnels a CA certificate registers and reads back the same under both paths, and each ca_certificate_pem the rules refuse is refused with 400 naming ca_certificate_pem, storing nothing",
			Run: func(t *kit.T) {
				id := v1Tunnel(t)
				path := "/" + id + "/certificates"
				for _, b := range badPEMs() {
					resp := t.Do(BetaRequest(http.MethodPost, path, "", map[string]string{"ca_certificate_pem": b.pem}))
					t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
					t.Expect(resp.Get("error.message").String()).To(ContainSubstring("ca_certificate_pem"), "%s: %s", b.name, resp)
				}
				list := BetaRequest(http.MethodGet, path, "tunnels/certificate_list", nil)
				list.Query = IncludeArchived
				listed := t.OK(list)
				t.Expect(listed.Get("data.#").Int()).To(BeZero(), "refused certificates were stored: %s", listed)
				ca := certgen.CA("conformance v1 CA")
				c := t.OK(BetaRequest(http.MethodPost, path, "tunnels/certificate", map[string]string{"ca_certificate_pem": ca.PEM}))
				t.Expect(c.Get("fingerprint").String()).To(Equal(ca.Fingerprint()))
				t.Expect(t.OK(BetaRequest(http.MethodGet, path+"/"+c.Get("id").String(), "tunnels/certificate", nil)).Body).To(MatchJSON(c.Body))
				t.Expect(t.OK(kit.Request{Area: kit.Tunnels, Path: Path + path + "/" + c.Get("id").String(), Schema: "tunnels/certificate"}).Body).To(MatchJSON(c.Body),
					"the certificate reads the same under /v1/organizations/tunnels")
			},
			Bug: &kit.Bug{Says: "/v1/tunnels drops a private key that follows the certificate and stores the certificate", Want: "400",
				Break: kit.InRouteRequests(http.MethodPost, v1Tunnels+`/certificates$`, func(_ *http.Request, b map[string]any) {
					if pem := kit.Str(b, "ca_certificate_pem"); strings.Contains(pem, "-----BEGIN PRIVATE KEY-----") {
						b["ca_certificate_pem"] = pem[:strings.Index(pem, "-----BEGIN PRIVATE KEY-----")]
					}
				})}},
		kit.Check{ID: "tunnels/v1-tunnels-token-same-state", Clause: "4.9", Labels: labels,
			Title: "reveal_token under /v1/tunnels answers the token /v1/organizations/tunnels reveals, and after a rotation through either route both reveal the fresh token",
			Run: func(t *kit.T) {
				id := v1Tunnel(t)
				reveal := func(v1 bool) gjson.Result {
					if v1 {
						return t.OK(BetaRequest(http.MethodPost, "/"+id+"/reveal_token", "tunnels/tunnel_token", nil)).JSON()
					}
					return t.OK(tokenOp(id, "reveal_token", nil)).JSON()
				}
				t.Expect(reveal(true).Raw).To(MatchJSON(reveal(false).Raw), "both routes reveal the same token")
				fresh := t.OK(BetaRequest(http.MethodPost, "/"+id+"/rotate_token", "tunnels/tunnel_token", map[string]any{"reason": "conformance"})).JSON()
				t.Expect(reveal(false).Raw).To(MatchJSON(fresh.Raw), "the organization route reveals the token rotated under /v1/tunnels")
				t.Expect(reveal(true).Raw).To(MatchJSON(fresh.Raw), "/v1/tunnels reveals the token it rotated")
				again := t.OK(tokenOp(id, "rotate_token", nil)).JSON()
				t.Expect(reveal(true).Raw).To(MatchJSON(again.Raw), "/v1/tunnels reveals the token rotated under /v1/organizations/tunnels")
			},
			Bug: &kit.Bug{Says: "/v1/tunnels reveals the token it first revealed, not the current one", Want: "reveals the token",
				Break: mwtFirstRevealCached(`^/v1/tunnels/[^/]+/reveal_token$`)}},
		kit.Check{ID: "tunnels/v1-tunnels-rotate-invalid-body", Clause: "4.9", Labels: labels,
			Title: "a /v1/tunnels rotate_token whose reason is not a string is refused with 400 naming reason, and the token is unchanged",
			Run: func(t *kit.T) {
				id := v1Tunnel(t)
				before := t.OK(tokenOp(id, "reveal_token", nil))
				for _, bad := range []any{42, map[string]any{"text": "x"}} {
					resp := t.Do(BetaRequest(http.MethodPost, "/"+id+"/rotate_token", "", map[string]any{"reason": bad}))
					t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
					t.Expect(resp.Get("error.message").String()).To(ContainSubstring("reason"), "%s", resp)
				}
				t.Expect(t.OK(tokenOp(id, "reveal_token", nil)).Body).To(MatchJSON(before.Body), "a refused rotation changed the token")
			},
			Bug: &kit.Bug{Says: "/v1/tunnels ignores a reason that is not a string and rotates the token", Want: "400",
				Break: kit.InRouteRequests(http.MethodPost, v1Tunnels+`/rotate_token$`, func(_ *http.Request, b map[string]any) {
					if _, ok := b["reason"].(string); !ok {
						delete(b, "reason")
					}
				})}},
		kit.Check{ID: "tunnels/v1-tunnels-workspace-header", Clause: "4.9", Labels: labels,
			Title: "with the workspace header (vendor-workspace-id or anthropic-workspace-id), /v1/tunnels creates in that workspace, lists only its tunnels and answers 404 for another workspace's tunnel; a header that is not a wrkspc_ ID is a 400 naming it",
			Run: func(t *kit.T) {
				ws, other := "", ""
				for _, tn := range Walk(t, IncludeArchived, 1000, false) {
					if w := tn.Get("workspace_id"); w.Type == gjson.String && ws == "" {
						ws = w.String()
					} else if w.String() != ws && other == "" {
						other = tn.Get("id").String()
					}
				}
				if ws == "" || other == "" {
					t.Need("tunnels in two workspaces", 0, 1)
				}
				scoped := func(r kit.Request, name, value string) kit.Request {
					r.Header.Set(name, value)
					return r
				}
				resp := t.Do(scoped(BetaRequest(http.MethodPost, "", "tunnels/tunnel", map[string]any{"display_name": "conformance scoped"}), "Vendor-Workspace-ID", ws))
				kit.Served(t, resp, "POST /v1/tunnels")
				t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
				id := resp.Get("id").String()
				t.Cleanup("archive tunnel "+id, t.Delete(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: Path + "/" + id + "/archive"}))
				t.Expect(resp.Get("workspace_id").String()).To(Equal(ws), "a create with the header puts the tunnel in workspace %s: %s", ws, resp)
				for _, name := range []string{"Vendor-Workspace-ID", "Anthropic-Workspace-ID"} {
					list := scoped(BetaRequest(http.MethodGet, "", "tunnels/tunnel_list", nil), name, ws)
					list.Query = IncludeArchived
					listed := t.WalkPages(list, 1000)
					t.Expect(kit.IDsOf(listed)).To(ContainElement(id), "%s: the list holds the tunnel created in the workspace", name)
					for _, tn := range listed {
						t.Expect(tn.Get("workspace_id").String()).To(Equal(ws), "%s %s: the list holds only the workspace's tunnels", name, ws)
					}
					t.ExpectError(t.Do(scoped(BetaRequest(http.MethodGet, "/"+other, "", nil), name, ws)), http.StatusNotFound, "not_found_error")
				}
				bad := t.Do(scoped(BetaRequest(http.MethodGet, "", "", nil), "Vendor-Workspace-ID", "default"))
				t.ExpectError(bad, http.StatusBadRequest, "invalid_request_error")
				t.Expect(strings.ToLower(bad.Get("error.message").String())).To(ContainSubstring("workspace-id"), "%s", bad)
			},
			Bug: &kit.Bug{Says: "GET /v1/tunnels ignores the workspace header and lists every workspace's tunnels", Want: "holds only the workspace's tunnels",
				Break: func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.Method == http.MethodGet && r.URL.Path == "/v1/tunnels" {
							r.Header.Del("Vendor-Workspace-ID")
							r.Header.Del("Anthropic-Workspace-ID")
						}
						h.ServeHTTP(w, r)
					})
				}}},
	)
}

// mwtFirstRevealCached is the bug of a reveal_token route (pattern) that caches the first token
// it revealed for each tunnel and answers it ever after.
func mwtFirstRevealCached(pattern string) func(http.Handler) http.Handler {
	var mu sync.Mutex
	first := map[string][]byte{}
	return func(h http.Handler) http.Handler {
		return kit.EditAnswers(h, kit.On(http.MethodPost, pattern), kit.OKBodies(func(r *http.Request, b []byte) []byte {
			mu.Lock()
			defer mu.Unlock()
			if old, ok := first[r.URL.Path]; ok {
				return old
			}
			first[r.URL.Path] = b
			return b
		}))
	}
}

// tunnelsAPIBeta is the beta value of /v1/tunnels (anthropic-sdk-go v1.84.0).
const tunnelsAPIBeta = "mcp-tunnels-2026-06-22"

// BetaRequest is a request of /v1/tunnels with its beta value.
func BetaRequest(method, path, schema string, body any) kit.Request {
	return kit.Request{Area: kit.Tunnels, Method: method, Path: "/v1/tunnels" + path, Schema: schema, Body: body,
		Header: http.Header{"vendor-beta": {tunnelsAPIBeta}}}
}
