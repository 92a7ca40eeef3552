package vaults

import (
	"fmt"

	"slices"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

const (
	// DefaultPage and MaxPage are the limit of the vault and credential lists.
	DefaultPage = 20
	MaxPage     = 100
	// MaxVaults is how many vaults one server (or namespace) keeps, archived ones included;
	// MaxCredentials how many credentials one vault keeps.
	MaxVaults      = 1000
	MaxCredentials = 100
	// MaxBytes is what the vaults of one server (or namespace) keep, credentials included, by the
	// heap estimate of core.HeldSize; MaxBytesAll is what every namespace's keep together.
	MaxBytes    = 8 << 20
	MaxBytesAll = 32 << 20
)

// Vault is a vault as the API answers it.
type Vault struct {
	ID          string            `json:"id"`
	Type        string            `json:"type"`
	ArchivedAt  *time.Time        `json:"archived_at"`
	CreatedAt   time.Time         `json:"created_at"`
	DisplayName string            `json:"display_name"`
	Metadata    map[string]string `json:"metadata"`
	UpdatedAt   time.Time         `json:"updated_at"`
}

// Credential is a credential as the API answers it: its auth without the secrets.
type Credential struct {
	ID          string            `json:"id"`
	Type        string            `json:"type"`
	ArchivedAt  *time.Time        `json:"archived_at"`
	Auth        map[string]any    `json:"auth"`
	CreatedAt   time.Time         `json:"created_at"`
	DisplayName *string           `json:"display_name"`
	Metadata    map[string]string `json:"metadata"`
	UpdatedAt   time.Time         `json:"updated_at"`
	VaultID     string            `json:"vault_id"`
}

// owner is whom a vault belongs to: an organization's workspace ("" the default one).
type owner struct {
	org *core.Org
	ws  string
}

type vault struct {
	rec   Vault
	owner owner
	creds []*credential // oldest first
	bytes int
}

type credential struct {
	rec Credential
	// secrets are the write-only fields of the auth given, kept as a deployment keeps them (and
	// counted in the vault's bytes); no answer shows them.
	secrets map[string]any
	// fromFixtures: the secrets are those the fixtures gave, which a snapshot writes as they are
	// (it masks those a request gave).
	fromFixtures bool
}

func vaultKey(v *vault) core.ListKey     { return core.ListKey{At: v.rec.CreatedAt, ID: v.rec.ID} }
func credKey(c *credential) core.ListKey { return core.ListKey{At: c.rec.CreatedAt, ID: c.rec.ID} }

// Store is the area's state in one server (or namespace).
type Store struct {
	mu      sync.Mutex
	byID    map[string]*vault
	byOwner map[owner][]*vault // oldest first
	core.Charged
}

func storeOf(s *core.Server, st *core.State) *Store { return StoreOf(s, st) }

// StoreOf is the vaults of a server's state st, built from its fixtures on first use.
func StoreOf(s *core.Server, st *core.State) *Store {
	return vaultStores.In(st.Stores).Get(func() *Store { return build(st.Fx, s.Cfg.Budget(budget)) })
}

func newStore(b *core.ByteBudget) *Store {
	return &Store{byID: map[string]*vault{}, byOwner: map[owner][]*vault{}, Charged: core.Charged{Budget: b}}
}

// release gives back the store's bytes: its state was replaced or its namespace dropped.
func release(st *core.State) {
	a := vaultStores.In(st.Stores).Get(func() *Store { return build(st.Fx, nil) })
	a.mu.Lock()
	defer a.mu.Unlock()
	a.Leave()
	clear(a.byID)
	clear(a.byOwner)
}

// charge counts n more bytes kept by v (n < 0 gives some back), or refuses them past the store's
// or the shared bound; the caller holds mu.
func (a *Store) charge(v *vault, n int) error {
	if n <= 0 {
		if !a.Released {
			a.Grow(n)
		}
		v.bytes += n
		return nil
	}
	if !a.Released && a.Bytes+n > MaxBytes {
		return core.Invalid("the vaults of this server (or namespace) may keep at most %d bytes in memory together, credentials included; delete vaults (DELETE /v1/vaults/{id}) or reset the server", MaxBytes).Because(core.ReasonOutOfRange)
	}
	if !a.Reserve(n) {
		return core.Invalid("the vaults of every namespace of this server may keep at most %d bytes in memory together; delete vaults or drop idle namespaces (DELETE /_fake/namespaces)", a.Budget.Limit).Because(core.ReasonOutOfRange)
	}
	v.bytes += n
	return nil
}

func ownerOf(cred *core.Credential) owner { return owner{cred.Org, cred.WorkspaceID} }

// find returns the caller's vault: another organization's or workspace's is answered 404 like an
// unknown one.
func (a *Store) find(c *core.Call, id string) (*vault, error) {
	v := a.byID[id]
	if v == nil || v.owner != ownerOf(c.Cred) {
		return nil, core.NotFound("vault", id)
	}
	return v, nil
}

func (v *vault) find(id string) (int, error) {
	i := slices.IndexFunc(v.creds, func(c *credential) bool { return c.rec.ID == id })
	if i < 0 {
		return 0, core.NotFound("vault credential", id)
	}
	return i, nil
}

// withVault runs f with the store locked, on the caller's vault of the path.
func withVault(s *core.Server, c *core.Call, f func(a *Store, v *vault, now time.Time) (any, error)) (any, error) {
	a := storeOf(s, c.St)
	a.mu.Lock()
	defer a.mu.Unlock()
	v, err := a.find(c, c.Param("vault_id"))
	if err != nil {
		return nil, err
	}
	return f(a, v, s.Clock.Now())
}

// withCredential is withVault on the credential of the path.
func withCredential(s *core.Server, c *core.Call, f func(a *Store, v *vault, i int, now time.Time) (any, error)) (any, error) {
	return withVault(s, c, func(a *Store, v *vault, now time.Time) (any, error) {
		i, err := v.find(c.Param("credential_id"))
		if err != nil {
			return nil, err
		}
		return f(a, v, i, now)
	})
}

// Check refuses vault_ids that are not the caller's live vaults: unknown, another organization's
// or workspace's, or archived; field names the list (vault_ids), and the error its item.
func Check(s *core.Server, st *core.State, cred *core.Credential, field string, ids []string) error {
	a := storeOf(s, st)
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, id := range ids {
		v := a.byID[id]
		at := fmt.Sprintf("%s.%d", field, i)
		switch {
		case v == nil || v.owner != ownerOf(cred):
			return core.InvalidField(at, "vault %s was not found", core.Quoted(id, core.MaxExcerpt))
		case v.rec.ArchivedAt != nil:
			return core.InvalidField(at, "vault %s is archived; an archived vault serves no session", id)
		case slices.Index(ids, id) < i:
			return core.InvalidField(at, "vault %s is named twice", id)
		}
	}
	return nil
}

// --- Vaults ---

func createVault(s *core.Server, c *core.Call) (any, error) {
	_, doc, err := c.DecodeBody()
	if err != nil {
		return nil, err
	}
	body := doc.(map[string]any)
	now := s.Clock.Now()
	rec := Vault{Type: "vault", CreatedAt: now, UpdatedAt: now}
	rec.DisplayName, _ = body["display_name"].(string)
	if rec.Metadata, err = core.PatchMetadata(nil, mapOf(body["metadata"]), "metadata", "a vault"); err != nil {
		return nil, err
	}
	a := storeOf(s, c.St)
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.byID) >= MaxVaults {
		return nil, core.Invalid("this server (or namespace) keeps at most %d vaults; delete some (DELETE /v1/vaults/{id}) or reset it", MaxVaults).Because(core.ReasonOutOfRange)
	}
	rec.ID = s.IDs.Next("vlt_")
	v := &vault{rec: rec, owner: ownerOf(c.Cred)}
	if err := a.charge(v, core.HeldSizeOf(rec)); err != nil {
		return nil, err
	}
	a.byID[rec.ID] = v
	a.byOwner[v.owner] = core.InsertInOrder(a.byOwner[v.owner], v, vaultKey, core.OldestFirst)
	return rec, nil
}

func getVault(s *core.Server, c *core.Call) (any, error) {
	return withVault(s, c, func(_ *Store, v *vault, _ time.Time) (any, error) { return v.rec, nil })
}

// updateVault changes display_name and patches metadata; an archived vault cannot change.
func updateVault(s *core.Server, c *core.Call) (any, error) {
	_, doc, err := c.DecodeBody()
	if err != nil {
		return nil, err
	}
	body := doc.(map[string]any)
	return withVault(s, c, func(a *Store, v *vault, now time.Time) (any, error) {
		if v.rec.ArchivedAt != nil {
			return nil, core.Invalid("vault %s is archived; an archived vault cannot change", v.rec.ID)
		}
		next := v.rec
		if name, ok := body["display_name"].(string); ok {
			next.DisplayName = name
		}
		if md, ok := body["metadata"].(map[string]any); ok {
			if next.Metadata, err = core.PatchMetadata(v.rec.Metadata, md, "metadata", "a vault"); err != nil {
				return nil, err
			}
		}
		if err := a.charge(v, core.HeldSizeOf(next)-core.HeldSizeOf(v.rec)); err != nil {
			return nil, err
		}
		next.UpdatedAt = now
		v.rec = next
		return next, nil
	})
}

// archiveVault sets archived_at on the vault and its credentials; again, it changes nothing.
func archiveVault(s *core.Server, c *core.Call) (any, error) {
	return withVault(s, c, func(_ *Store, v *vault, now time.Time) (any, error) {
		if v.rec.ArchivedAt == nil {
			v.rec.ArchivedAt, v.rec.UpdatedAt = &now, now
			for _, cr := range v.creds {
				if cr.rec.ArchivedAt == nil {
					cr.rec.ArchivedAt, cr.rec.UpdatedAt = &now, now
				}
			}
		}
		return v.rec, nil
	})
}

// deleteVault removes the vault with its credentials and gives back their bytes.
func deleteVault(s *core.Server, c *core.Call) (any, error) {
	return withVault(s, c, func(a *Store, v *vault, _ time.Time) (any, error) {
		delete(a.byID, v.rec.ID)
		a.byOwner[v.owner] = core.RemoveInOrder(a.byOwner[v.owner], v, vaultKey, core.OldestFirst)
		if !a.Released {
			a.Grow(-v.bytes)
		}
		return map[string]any{"id": v.rec.ID, "type": "vault_deleted"}, nil
	})
}

// listVaults lists the caller's vaults, newest first.
func listVaults(s *core.Server, c *core.Call) (any, error) {
	q, err := c.ListQuery("vaults", true)
	if err != nil {
		return nil, err
	}
	a := storeOf(s, c.St)
	a.mu.Lock()
	defer a.mu.Unlock()
	page := core.PageNewestKept(a.byOwner[ownerOf(c.Cred)], func(v *vault) bool { return q.Archived || v.rec.ArchivedAt == nil }, vaultKey, "vaults", q.After, q.Limit)
	out := core.TokenPage[Vault]{Data: make([]Vault, len(page.Data)), NextPage: page.NextPage}
	for i, v := range page.Data {
		out.Data[i] = v.rec
	}
	return out, nil
}

func mapOf(x any) map[string]any { m, _ := x.(map[string]any); return m }
