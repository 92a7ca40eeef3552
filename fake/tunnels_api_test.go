package fake

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/tunnels"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// apiTunnels is a tunnelClient that calls /v1/tunnels as the official SDKs do: the new beta
// value, the bearer token or the admin key, and optionally the workspace header.
func apiTunnels(t *testing.T) *tunnelClient {
	tc := newTunnelClient(t)
	tc.beta = core.TunnelsAPIBeta
	return tc
}

// TestTunnelsAPIServesTheSameState: /v1/tunnels and /v1/organizations/tunnels are two views of
// one store: what one creates, rotates or archives, the other shows.
func TestTunnelsAPIServesTheSameState(t *testing.T) {
	tc := apiTunnels(t)
	var page core.TokenPage[tunnels.Tunnel]
	tc.ok(http.MethodGet, "/v1/tunnels", nil, &page)
	if got := fmt.Sprint(tunnelIDs(page.Data)); got != fmt.Sprint([]string{stagingTunnel, researchTunel, prodTunnel}) {
		t.Fatalf("list = %s", got)
	}
	var created tunnels.Tunnel
	tc.ok(http.MethodPost, "/v1/tunnels", map[string]any{"display_name": "edge"}, &created)
	if !strings.HasPrefix(created.ID, "tnl_") || created.DisplayName == nil || *created.DisplayName != "edge" || created.WorkspaceID != nil ||
		!strings.HasSuffix(created.Domain, tunnels.DomainSuffix) || created.ArchivedAt != nil || !created.CreatedAt.Equal(core.Epoch()) || created.Type != "tunnel" {
		t.Fatalf("created = %+v", created)
	}
	// The reference's interface sees it, with its own beta value.
	org := newTunnelClientOn(t, tc.ts)
	var seen tunnels.Tunnel
	org.ok(http.MethodGet, tunnelsPath+"/"+created.ID, nil, &seen)
	if !sameJSON(seen, created) {
		t.Fatalf("/v1/organizations/tunnels/%s = %+v, want %+v", created.ID, seen, created)
	}
	// A control-made tunnel gets another ID: both take tunnel IDs from one counter.
	if other := tc.create(nil); other.ID == created.ID {
		t.Fatalf("control create reused the ID %s", created.ID)
	}
	var rotated, revealed tunnels.TunnelToken
	tc.ok(http.MethodPost, "/v1/tunnels/"+created.ID+"/rotate_token", map[string]string{"reason": "drill"}, &rotated)
	org.ok(http.MethodPost, tunnelsPath+"/"+created.ID+"/reveal_token", nil, &revealed)
	if rotated != revealed || len(tc.ts.Fake.TokenRotations(created.ID)) != 1 {
		t.Fatalf("rotate through /v1/tunnels then reveal through the organizations path: %+v vs %+v", rotated, revealed)
	}
	org.ok(http.MethodPost, tunnelsPath+"/"+created.ID+"/archive", nil, nil)
	var archived tunnels.Tunnel
	tc.ok(http.MethodGet, "/v1/tunnels/"+created.ID, nil, &archived)
	if archived.ArchivedAt == nil {
		t.Fatalf("archived through one path, not through the other: %+v", archived)
	}
}

// newTunnelClientOn is a client of the reference's tunnels interface on an existing server.
func newTunnelClientOn(t *testing.T, ts *TestServer) *tunnelClient {
	return &tunnelClient{t: t, ts: ts, bearer: core.DefaultBearerToken, beta: core.TunnelsBeta}
}

func TestTunnelsAPICreateAndUpdate(t *testing.T) {
	tc := apiTunnels(t)
	var bare tunnels.Tunnel
	tc.ok(http.MethodPost, "/v1/tunnels", nil, &bare) // the body may be omitted
	if bare.DisplayName != nil {
		t.Fatalf("created without a body: %+v", bare)
	}
	path := "/v1/tunnels/" + bare.ID
	var got tunnels.Tunnel
	tc.ok(http.MethodPost, path, map[string]any{"display_name": "ünïcode"}, &got)
	if got.DisplayName == nil || *got.DisplayName != "ünïcode" {
		t.Fatalf("after setting display_name: %+v", got)
	}
	tc.ok(http.MethodPost, path, map[string]any{}, &got) // absent: unchanged
	if got.DisplayName == nil || *got.DisplayName != "ünïcode" {
		t.Fatalf("an empty update changed display_name: %+v", got)
	}
	tc.ok(http.MethodPost, path, map[string]any{"display_name": nil}, &got) // null: cleared
	if got.DisplayName != nil {
		t.Fatalf("display_name after null: %q", *got.DisplayName)
	}
	tc.ok(http.MethodPost, path, map[string]any{"display_name": strings.Repeat("é", 255)}, nil)
	for _, body := range []map[string]any{
		{"display_name": ""}, {"display_name": strings.Repeat("é", 256)}, {"display_name": 5}, {"domain": "mine.example"},
	} {
		for _, p := range []string{"/v1/tunnels", path} {
			field := "display_name"
			if _, ok := body["domain"]; ok {
				field = "domain: unknown field"
			}
			tc.fails(http.MethodPost, p, body, http.StatusBadRequest, core.ErrInvalidRequest, field)
		}
	}
	tc.ok(http.MethodPost, path+"/archive", nil, nil)
	tc.fails(http.MethodPost, path, map[string]any{"display_name": "late"}, http.StatusBadRequest, core.ErrInvalidRequest, "archived")
	tc.fails(http.MethodPost, "/v1/tunnels/tnl_nope", map[string]any{"display_name": "x"}, http.StatusNotFound, core.ErrNotFound, "tnl_nope")
}

// TestTunnelsAPIWorkspaceHeader: the SDKs' workspace header puts a new tunnel in the workspace,
// narrows the list, and hides the tunnels of other workspaces.
func TestTunnelsAPIWorkspaceHeader(t *testing.T) {
	tc := apiTunnels(t)
	const research = "wrkspc_01AcmeResearch0000000001"
	ws := []string{"vendor-workspace-id", research}
	var created tunnels.Tunnel
	r := tc.do(http.MethodPost, "/v1/tunnels", map[string]any{"display_name": "lab"}, ws...)
	r.decode(t, &created)
	if r.status != http.StatusOK || created.WorkspaceID == nil || *created.WorkspaceID != research {
		t.Fatalf("create in a workspace = %d %s", r.status, r.body)
	}
	var page core.TokenPage[tunnels.Tunnel]
	tc.do(http.MethodGet, "/v1/tunnels", nil, ws...).decode(t, &page)
	if got := fmt.Sprint(tunnelIDs(page.Data)); got != fmt.Sprint([]string{created.ID, researchTunel}) {
		t.Fatalf("list in the workspace = %s", got)
	}
	if r := tc.do(http.MethodGet, "/v1/tunnels/"+researchTunel, nil, ws...); r.status != http.StatusOK {
		t.Fatalf("a tunnel of the workspace: %d %s", r.status, r.body)
	}
	for _, p := range []string{"/v1/tunnels/" + prodTunnel, "/v1/tunnels/" + prodTunnel + "/certificates", "/v1/tunnels/" + prodTunnel + "/certificates/tcrt_01AcmeProdRootCA2025000001"} {
		if r := tc.do(http.MethodGet, p, nil, ws...); r.status != http.StatusNotFound {
			t.Fatalf("GET %s scoped to another workspace = %d %s, want 404", p, r.status, r.body)
		}
	}
	if r := tc.do(http.MethodPost, "/v1/tunnels/"+prodTunnel+"/archive", nil, ws...); r.status != http.StatusNotFound {
		t.Fatalf("archive scoped to another workspace = %d %s", r.status, r.body)
	}
	for _, bad := range []struct{ value, want string }{
		{"research", "vendor-workspace-id"},
		{"wrkspc_nope", "no workspace"},
		{"wrkspc_01AcmeLegacy00000000001", "archived"},
		{"wrkspc_01GlobexOps000000000001", "no workspace"}, // another organization's
	} {
		r := tc.do(http.MethodPost, "/v1/tunnels", nil, "vendor-workspace-id", bad.value)
		if r.status != http.StatusBadRequest || !strings.Contains(r.errMessage(t), bad.want) {
			t.Fatalf("create with workspace %q = %d %s, want 400 mentioning %q", bad.value, r.status, r.body, bad.want)
		}
	}
	if r := tc.do(http.MethodGet, "/v1/tunnels", nil, "vendor-workspace-id", "bad id"); r.status != http.StatusBadRequest {
		t.Fatalf("list with a malformed workspace = %d", r.status)
	}
	// A refusal names the header as the request sent it: the SDKs' spelling, or the reference's.
	for _, h := range [][]string{
		{"anthropic-workspace-id", "bad id", "anthropic-workspace-id: must be a workspace ID"},
		{"anthropic-workspace-id", "wrkspc_nope", `anthropic-workspace-id: the organization has no workspace "wrkspc_nope"`},
		{"vendor-workspace-id", "wrkspc_nope", `vendor-workspace-id: the organization has no workspace "wrkspc_nope"`},
	} {
		r := tc.do(http.MethodPost, "/v1/tunnels", nil, h[0], h[1])
		if r.status != http.StatusBadRequest || !strings.HasPrefix(r.errMessage(t), h[2]) {
			t.Errorf("create with %s: %s = %d %s, want 400 starting %q", h[0], h[1], r.status, r.body, h[2])
		}
	}
}

// TestTunnelsAPICredentialsAndBeta: the bearer token and the admin key (in either header) are
// accepted; an API key is not; the new beta value is required, and the old one is not enough.
func TestTunnelsAPICredentialsAndBeta(t *testing.T) {
	tc := apiTunnels(t)
	for _, cred := range [][]string{
		{"X-Api-Key", core.DefaultAdminKey}, {"Authorization", "Bearer " + core.DefaultAdminKey}, {"Authorization", "Bearer " + core.DefaultBearerToken},
	} {
		status, _, body, err := roundTrip(t.Context(), tc.ts, http.MethodGet, "/v1/tunnels", nil, append(cred, "vendor-version", core.APIVersion, "vendor-beta", core.TunnelsAPIBeta)...)
		if err != nil || status != http.StatusOK {
			t.Fatalf("%s: %d %s %v", cred[0], status, body, err)
		}
	}
	status, _, body, _ := roundTrip(t.Context(), tc.ts, http.MethodGet, "/v1/tunnels", nil, "X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion, "vendor-beta", core.TunnelsAPIBeta)
	if status != http.StatusForbidden {
		t.Fatalf("API key: %d %s, want 403", status, body)
	}
	tc.beta = core.TunnelsBeta
	tc.fails(http.MethodGet, "/v1/tunnels", nil, http.StatusBadRequest, core.ErrInvalidRequest, core.TunnelsAPIBeta)
	// The organizations path keeps the reference's beta value.
	tc.beta = core.TunnelsAPIBeta
	tc.fails(http.MethodGet, tunnelsPath, nil, http.StatusBadRequest, core.ErrInvalidRequest, core.TunnelsBeta)
}
