// Package vaults holds the conformance checks of vaults and their credentials (the secrets a
// session's agent reaches MCP servers and outside hosts with; sessions name vaults in vault_ids),
// with the bugs that prove them. The routes are not in the reference's table; the checks hold the
// fake to the official SDKs' types, so they carry the extension label. Its checks register with
// the framework (package kit) from init; the public face, package conformance, imports it.
package vaults

import (
	"net/http"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

const credentialsRoute = `^/v1/vaults/[^/]+/credentials(/[^/]+)?$`

func req(method, path string, body any, schema string) kit.Request {
	return kit.Request{Area: kit.Vaults, Method: method, Path: path, Body: body, Schema: schema,
		Header: http.Header{"vendor-beta": {"managed-agents-2026-04-01"}}}
}

// createVault creates a vault for one check and deletes it (with its credentials) afterwards.
func createVault(t *kit.T) string {
	resp := t.Do(req(http.MethodPost, "/v1/vaults", map[string]any{"display_name": "conformance"}, "vaults/vault"))
	t.UnsupportedIfAbsent(resp, "the target has no vaults (POST /v1/vaults answered %d)", resp.Status)
	t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
	id := resp.Get("id").String()
	t.Cleanup("delete vault "+id, t.Delete(kit.Request{Area: kit.Vaults, Method: http.MethodDelete, Path: "/v1/vaults/" + id}))
	return id
}

func init() {
	labels := []kit.Label{kit.Vaults, kit.Extension}
	kit.Register(
		kit.Check{ID: "vaults/credential-secret-write-only", Clause: "gaps §8", Labels: labels,
			Title: "a credential's secret (a static bearer token) is taken on create and shown by no answer: not the create's, the read's or the list's",
			Run: func(t *kit.T) {
				const secret = "conformance-secret-token-0001"
				path := "/v1/vaults/" + createVault(t) + "/credentials"
				made := t.OK(req(http.MethodPost, path, map[string]any{"display_name": "docs",
					"auth": map[string]any{"type": "static_bearer", "mcp_server_url": "https://mcp.example.com/sse", "token": secret}}, "vaults/credential"))
				t.Expect(made.Get("auth.mcp_server_url").String()).To(Equal("https://mcp.example.com/sse"), "%s", made)
				read := t.OK(req(http.MethodGet, path+"/"+made.Get("id").String(), nil, "vaults/credential"))
				list := t.OK(req(http.MethodGet, path, nil, "vaults/credential_list"))
				for _, r := range []*kit.Response{made, read, list} {
					t.Expect(strings.Contains(string(r.Body), secret)).To(BeFalse(), "the token is write-only: %s", r)
				}
			},
			Bug: &kit.Bug{Says: "a credential's answers echo its token",
				Break: kit.InRouteOKAnswers(http.MethodGet, credentialsRoute, func(_ *http.Request, m map[string]any) {
					if auth, ok := m["auth"].(map[string]any); ok {
						auth["token"] = "conformance-secret-token-0001"
					}
					kit.EachDataItem(m, func(c map[string]any) {
						if auth, ok := c["auth"].(map[string]any); ok {
							auth["token"] = "conformance-secret-token-0001"
						}
					})
				})}},
		kit.Check{ID: "vaults/vault-metadata-patch", Clause: "gaps §8", Labels: labels,
			Title: "a vault's metadata is a patch: a string upserts its key, null deletes it, keys not named stay",
			Run: func(t *kit.T) {
				id := createVault(t)
				t.OK(req(http.MethodPost, "/v1/vaults/"+id, map[string]any{"metadata": map[string]any{"keep": "1", "drop": "2"}}, "vaults/vault"))
				after := t.OK(req(http.MethodPost, "/v1/vaults/"+id, map[string]any{"metadata": map[string]any{"drop": nil, "add": "3"}}, "vaults/vault"))
				t.Expect(after.Get("metadata").Raw).To(MatchJSON(`{"keep":"1","add":"3"}`), "%s", after)
			},
			Bug: &kit.Bug{Says: "a metadata update replaces the whole map",
				Break: kit.InRouteRequests(http.MethodPost, `^/v1/vaults/[^/]+$`, func(_ *http.Request, b map[string]any) {
					if md, ok := b["metadata"].(map[string]any); ok && md["drop"] == nil && md["add"] != nil {
						b["metadata"] = map[string]any{"keep": nil, "drop": nil, "add": "3"}
					}
				})}},
	)
}
