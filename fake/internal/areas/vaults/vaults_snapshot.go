package vaults

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// vaults.json holds every vault with its credentials, oldest first. A credential's auth is
// written as a create request gives it, secrets in place, so that a hand-written data set reads
// like the requests that would make it. A snapshot writes a secret as the fixtures gave it, and
// masks every secret a request gave (maskSecret): no answer ever shows a secret, so the masked
// world answers every request as the original did, and a snapshot holds no secret the fixtures
// did not already hold.

// vaultFixture is one record of vaults.json.
type vaultFixture struct {
	OrganizationID string `json:"organization_id"`
	WorkspaceID    string `json:"workspace_id,omitempty"`
	Vault
	Credentials []Credential `json:"credentials"`
}

// loadVaults reads vaults.json, if present, into the section; each error names the file and the
// field.
func loadVaults(fsys fs.FS, fx *core.Fixtures) error {
	var file struct {
		Vaults []vaultFixture `json:"vaults"`
	}
	if _, err := core.ReadFixture(fsys, "vaults.json", &file); err != nil {
		return err
	}
	if len(file.Vaults) > MaxVaults {
		return fmt.Errorf("vaults.json: vaults: %d vaults; a server keeps at most %d", len(file.Vaults), MaxVaults)
	}
	list := make([]*vault, 0, len(file.Vaults))
	for i, f := range file.Vaults {
		at := fmt.Sprintf("vaults.%d", i)
		o, err := fx.RecordOwner(at, "vault "+f.ID, f.OrganizationID, f.WorkspaceID)
		if err != nil {
			return fmt.Errorf("vaults.json: %w", err)
		}
		if len(f.Credentials) > MaxCredentials {
			return fmt.Errorf("vaults.json: %s.credentials: vault %s has %d credentials; a vault keeps at most %d", at, f.ID, len(f.Credentials), MaxCredentials)
		}
		v := &vault{rec: f.Vault, owner: owner{o, f.WorkspaceID}}
		v.rec.Type = "vault"
		if v.rec.Metadata == nil {
			v.rec.Metadata = map[string]string{}
		}
		for _, c := range f.Credentials {
			cr := &credential{rec: c, fromFixtures: true}
			cr.rec.Type, cr.rec.VaultID = "vault_credential", f.ID
			if cr.rec.Metadata == nil {
				cr.rec.Metadata = map[string]string{}
			}
			cr.rec.Auth, cr.secrets = splitAuth(c.Auth)
			v.creds = append(v.creds, cr)
		}
		// In list order, which a hand-written file may not keep.
		slices.SortStableFunc(v.creds, func(a, b *credential) int { return core.OldestFirst(credKey(a), credKey(b)) })
		list = append(list, v)
	}
	*vaultsSection.In(fx.Sections) = list
	return nil
}

// build makes a server's store from the fixtures, each vault and credential charged to b as its
// create was. Vaults and credentials are copied, since requests change them.
func build(fx *core.Fixtures, b *core.ByteBudget) *Store {
	a := newStore(b)
	for _, src := range *vaultsSection.In(fx.Sections) {
		v := &vault{rec: src.rec, owner: src.owner}
		v.bytes = core.HeldSizeOf(v.rec)
		for _, c := range src.creds {
			cp := *c
			v.creds = append(v.creds, &cp)
			v.bytes += core.HeldSizeOf(cp.rec) + core.HeldSizeOf(cp.secrets)
		}
		a.Grow(v.bytes)
		a.byID[v.rec.ID] = v
		a.byOwner[v.owner] = core.InsertInOrder(a.byOwner[v.owner], v, vaultKey, core.OldestFirst)
	}
	return a
}

// vaultsSnapshot is the area's part of a snapshot (vaults.json).
var vaultsSnapshot = &core.SnapshotArea{Lock: core.LockArea(vaultStores, func(a *Store) *sync.Mutex { return &a.mu }), Export: exportVaults}

func exportVaults(st *core.State, out map[string]any) error {
	a := vaultStores.In(st.Stores).Built()
	var list core.RecordList
	for _, v := range core.OldestFirstOf(a.byID, vaultKey) {
		var creds core.RecordList
		for _, cr := range v.creds {
			secrets := cr.secrets
			if !cr.fromFixtures {
				secrets = maps.Clone(secrets)
				for k, x := range secrets {
					secrets[k] = maskSecret(x)
				}
			}
			rec := cr.rec
			rec.Auth = withSecrets(cr.rec.Auth, secrets)
			creds.Add("", rec, "type", "vault_id")
		}
		if creds.Err != nil {
			return creds.Err
		}
		list.Add(v.owner.org.ID, struct {
			WorkspaceID string `json:"workspace_id,omitempty"`
			Vault
			Credentials []json.RawMessage `json:"credentials"`
		}{v.owner.ws, v.rec, core.OrEmptyList(creds.List)}, "type")
	}
	if list.Err != nil {
		return list.Err
	}
	out["vaults.json"] = struct {
		Vaults []json.RawMessage `json:"vaults"`
	}{core.OrEmptyList(list.List)}
	return nil
}

// maskSecret is a secret as a snapshot writes it: every character replaced by one of the same
// length in UTF-8 ('*' for one byte), so that the masked secret is held, and charged, as the
// secret was, and still satisfies the schema's bounds on its length.
func maskSecret(x any) any {
	s, ok := x.(string)
	if !ok {
		return x
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		_, n := utf8.DecodeRuneInString(s[i:])
		b.WriteString([]string{"", "*", "\u00b7", "\u2022", "\U0001f512"}[n])
		i += n
	}
	return b.String()
}

// sameSecrets reports whether an update left a credential's secrets as they were.
func sameSecrets(a, b map[string]any) bool { return reflect.DeepEqual(a, b) }
