package vaults

import (
	"maps"
	"slices"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// A credential's auth is one of three types (the official SDKs' types): static_bearer
// {mcp_server_url, token}, mcp_oauth {mcp_server_url, access_token, expires_at?, refresh?} and
// environment_variable {secret_name, secret_value, networking, injection_location?}. Answers
// show the auth without its secrets; an update names the same type and changes only the fields
// it gives (secret_name never).

// writeOnly are the auth fields no answer shows, by where they sit.
var writeOnly = []string{"token", "access_token", "secret_value"}

// defaultInjection is where an environment variable's value is substituted when the create body
// does not say: the reference does not publish its default; the fake's is the headers only.
var defaultInjection = map[string]any{"header": true, "body": false}

// splitAuth returns the answered auth and its secrets, for an auth the schema checked.
func splitAuth(auth map[string]any) (public, secrets map[string]any) {
	public, secrets = maps.Clone(auth), map[string]any{}
	for _, k := range writeOnly {
		if v, ok := public[k]; ok {
			secrets[k] = v
			delete(public, k)
		}
	}
	switch auth["type"] {
	case "mcp_oauth":
		if _, ok := public["expires_at"]; !ok {
			public["expires_at"] = nil
		}
		if r, ok := public["refresh"].(map[string]any); ok {
			r = maps.Clone(r)
			if rt, ok := r["refresh_token"]; ok {
				secrets["refresh_token"] = rt
				delete(r, "refresh_token")
			}
			if ep, ok := r["token_endpoint_auth"].(map[string]any); ok {
				ep = maps.Clone(ep)
				if cs, ok := ep["client_secret"]; ok {
					secrets["client_secret"] = cs
					delete(ep, "client_secret")
				}
				r["token_endpoint_auth"] = ep
			}
			for _, k := range []string{"resource", "scope"} {
				if _, ok := r[k]; !ok {
					r[k] = nil
				}
			}
			public["refresh"] = r
		} else {
			public["refresh"] = nil
		}
	case "environment_variable":
		inj := maps.Clone(defaultInjection)
		maps.Copy(inj, mapOf(public["injection_location"]))
		public["injection_location"] = inj
	}
	return public, secrets
}

func createCredential(s *core.Server, c *core.Call) (any, error) {
	_, doc, err := c.DecodeBody()
	if err != nil {
		return nil, err
	}
	body := doc.(map[string]any)
	return withVault(s, c, func(a *Store, v *vault, now time.Time) (any, error) {
		if v.rec.ArchivedAt != nil {
			return nil, core.Invalid("vault %s is archived; an archived vault takes no credential", v.rec.ID)
		}
		if len(v.creds) >= MaxCredentials {
			return nil, core.Invalid("vault %s holds %d credentials, the most the fake keeps in one vault", v.rec.ID, MaxCredentials).Because(core.ReasonOutOfRange)
		}
		rec := Credential{Type: "vault_credential", CreatedAt: now, UpdatedAt: now, VaultID: v.rec.ID}
		if name, ok := body["display_name"].(string); ok {
			rec.DisplayName = &name
		}
		if rec.Metadata, err = core.PatchMetadata(nil, mapOf(body["metadata"]), "metadata", "a credential"); err != nil {
			return nil, err
		}
		cr := &credential{}
		rec.Auth, cr.secrets = splitAuth(mapOf(body["auth"]))
		rec.ID = s.IDs.Next("vcrd_")
		cr.rec = rec
		if err := a.charge(v, core.HeldSizeOf(rec)+core.HeldSizeOf(cr.secrets)); err != nil {
			return nil, err
		}
		v.creds = append(v.creds, cr)
		return rec, nil
	})
}

func getCredential(s *core.Server, c *core.Call) (any, error) {
	return withCredential(s, c, func(_ *Store, v *vault, i int, _ time.Time) (any, error) { return v.creds[i].rec, nil })
}

// updateCredential changes display_name, patches metadata, and applies an auth of the
// credential's own type: the fields it gives replace the stored ones (a null refresh removes
// it), and secret_name cannot change.
func updateCredential(s *core.Server, c *core.Call) (any, error) {
	_, doc, err := c.DecodeBody()
	if err != nil {
		return nil, err
	}
	body := doc.(map[string]any)
	return withCredential(s, c, func(a *Store, v *vault, i int, now time.Time) (any, error) {
		cr := v.creds[i]
		if cr.rec.ArchivedAt != nil {
			return nil, core.Invalid("credential %s is archived; an archived credential cannot change", cr.rec.ID)
		}
		next, secrets := cr.rec, cr.secrets
		if x, ok := body["display_name"]; ok {
			next.DisplayName = nil
			if name, ok := x.(string); ok {
				next.DisplayName = &name
			}
		}
		if md, ok := body["metadata"].(map[string]any); ok {
			if next.Metadata, err = core.PatchMetadata(cr.rec.Metadata, md, "metadata", "a credential"); err != nil {
				return nil, err
			}
		}
		if auth, ok := body["auth"].(map[string]any); ok {
			if auth["type"] != cr.rec.Auth["type"] {
				return nil, core.InvalidField("auth.type", "credential %s is a %v credential; its type cannot change", cr.rec.ID, cr.rec.Auth["type"])
			}
			if name, ok := auth["secret_name"]; ok && name != cr.rec.Auth["secret_name"] {
				return nil, core.InvalidField("auth.secret_name", "secret_name is immutable; credential %s keeps %v", cr.rec.ID, cr.rec.Auth["secret_name"])
			}
			merged := withSecrets(cr.rec.Auth, cr.secrets)
			for k, x := range auth {
				if patch, ok := x.(map[string]any); ok && k == "refresh" {
					cur, _ := merged["refresh"].(map[string]any)
					if cur == nil {
						return nil, core.InvalidField("auth.refresh", "credential %s has no refresh to change; create the credential again with one", cr.rec.ID)
					}
					maps.Copy(cur, patch)
					continue
				}
				merged[k] = x
			}
			if merged["refresh"] == nil {
				delete(merged, "refresh")
			}
			next.Auth, secrets = splitAuth(merged)
		}
		delta := core.HeldSizeOf(next) + core.HeldSizeOf(secrets) - core.HeldSizeOf(cr.rec) - core.HeldSizeOf(cr.secrets)
		if err := a.charge(v, delta); err != nil {
			return nil, err
		}
		next.UpdatedAt = now
		cr.fromFixtures = cr.fromFixtures && sameSecrets(secrets, cr.secrets)
		cr.rec, cr.secrets = next, secrets
		return next, nil
	})
}

func archiveCredential(s *core.Server, c *core.Call) (any, error) {
	return withCredential(s, c, func(_ *Store, v *vault, i int, now time.Time) (any, error) {
		cr := v.creds[i]
		if cr.rec.ArchivedAt == nil {
			cr.rec.ArchivedAt, cr.rec.UpdatedAt = &now, now
		}
		return cr.rec, nil
	})
}

func deleteCredential(s *core.Server, c *core.Call) (any, error) {
	return withCredential(s, c, func(a *Store, v *vault, i int, _ time.Time) (any, error) {
		cr := v.creds[i]
		v.creds = slices.Delete(v.creds, i, i+1)
		_ = a.charge(v, -(core.HeldSizeOf(cr.rec) + core.HeldSizeOf(cr.secrets)))
		return map[string]any{"id": cr.rec.ID, "type": "vault_credential_deleted"}, nil
	})
}

// listCredentials lists a vault's credentials, newest first.
func listCredentials(s *core.Server, c *core.Call) (any, error) {
	q, err := c.ListQuery("vault_credentials", true)
	if err != nil {
		return nil, err
	}
	return withVault(s, c, func(_ *Store, v *vault, _ time.Time) (any, error) {
		page := core.PageNewestKept(v.creds, func(cr *credential) bool { return q.Archived || cr.rec.ArchivedAt == nil }, credKey, "vault_credentials", q.After, q.Limit)
		out := core.TokenPage[Credential]{Data: make([]Credential, len(page.Data)), NextPage: page.NextPage}
		for i, cr := range page.Data {
			out.Data[i] = cr.rec
		}
		return out, nil
	})
}

// validateCredential answers the validation of an mcp_oauth credential. The fake reaches no MCP
// server and no token endpoint, so the status is always unknown, with nothing probed.
func validateCredential(s *core.Server, c *core.Call) (any, error) {
	return withCredential(s, c, func(_ *Store, v *vault, i int, now time.Time) (any, error) {
		cr := v.creds[i]
		if cr.rec.Auth["type"] != "mcp_oauth" {
			return nil, core.Invalid("credential %s is a %v credential; only an mcp_oauth credential validates", cr.rec.ID, cr.rec.Auth["type"])
		}
		_, hasRefresh := cr.secrets["refresh_token"]
		return map[string]any{"type": "vault_credential_validation", "credential_id": cr.rec.ID, "vault_id": v.rec.ID,
			"status": "unknown", "has_refresh_token": hasRefresh, "mcp_probe": nil, "refresh": nil, "validated_at": now}, nil
	})
}

// withSecrets is the answered auth with its secrets put back, as a create request gives it: for
// an update to change, and for a snapshot to write.
func withSecrets(public, secrets map[string]any) map[string]any {
	auth := maps.Clone(public)
	for _, k := range writeOnly {
		if x, ok := secrets[k]; ok {
			auth[k] = x
		}
	}
	pub, ok := public["refresh"].(map[string]any)
	if !ok {
		return auth
	}
	r := maps.Clone(pub)
	if rt, ok := secrets["refresh_token"]; ok {
		r["refresh_token"] = rt
	}
	if ep, ok := r["token_endpoint_auth"].(map[string]any); ok {
		ep = maps.Clone(ep)
		if cs, ok := secrets["client_secret"]; ok {
			ep["client_secret"] = cs
		}
		r["token_endpoint_auth"] = ep
	}
	auth["refresh"] = r
	return auth
}
