package fake

import (
	"encoding/json"
	"encoding/pem"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// Each area's part of a snapshot: the files it owns, written from its state in the shape its
// loader reads. Records are written from the area's own types wherever they carry JSON tags, so
// a field added to a record reaches the snapshot without a change here; what a type keeps in
// unexported fields is written explicitly, and TestSnapshotCoversState fails when a state type
// gains a field this file has not been taught about.

var (
	adminSnapshot      = &core.SnapshotArea{Lock: core.LockArea(adminStores, func(a *adminStore) *sync.Mutex { return &a.mu }), Export: exportAdmin}
	tunnelsSnapshot    = &core.SnapshotArea{Lock: core.LockArea(tunnelStores, func(t *tunnelStore) *sync.Mutex { return &t.mu }), Export: exportTunnels}
	workSnapshot       = &core.SnapshotArea{Lock: core.LockArea(workStores, func(w *workStore) *sync.Mutex { return &w.mu }), Export: exportWork}
	complianceSnapshot = &core.SnapshotArea{Lock: core.LockArea(complianceStores, func(c *complianceStore) *sync.Mutex { return &c.mu }), Export: exportCompliance}
	memorySnapshot     = &core.SnapshotArea{Lock: core.LockArea(memoryStores, func(m *memoryArea) *sync.Mutex { return &m.mu }), Export: exportMemory}
)

// fixtureRecord is a record as a fixture file holds it: organization_id first, then the
// record's own fields in their order, less those the file does not hold (computed or constant
// ones such as "type").
func fixtureRecord(orgID string, rec any, drop ...string) (json.RawMessage, error) {
	raw, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	out := []byte(`{`)
	if orgID != "" {
		out = append(append(append(out, `"organization_id":`...), mustQuote(orgID)...), ',')
	}
	gjson.ParseBytes(raw).ForEach(func(k, v gjson.Result) bool {
		for _, d := range drop {
			if k.Str == d {
				return true
			}
		}
		out = append(append(append(append(out, k.Raw...), ':'), v.Raw...), ',')
		return true
	})
	if out[len(out)-1] == ',' {
		out = out[:len(out)-1]
	}
	return append(out, '}'), nil
}

// mustQuote is s as a JSON string.
func mustQuote(s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// recordList collects the records of a file; the first error wins.
type recordList struct {
	list []json.RawMessage
	err  error
}

func (l *recordList) add(orgID string, rec any, drop ...string) {
	if l.err != nil {
		return
	}
	r, err := fixtureRecord(orgID, rec, drop...)
	l.list, l.err = append(l.list, r), err
}

// --- Administration: users.json and admin.json ---

// exportAdmin writes the members (with removed ones marked, since compliance still names them
// and a removed user's ID stays a valid cursor), invites with what happened to them, and
// workspaces. The organizations' rate limits, which no request changes, are copied from the
// fixtures as loaded; the workspace overrides too, unless an update changed them.
func exportAdmin(st *core.State, out map[string]any) error {
	a := adminStores.In(st.Stores).Built()
	var users, invites, workspaces recordList
	for _, o := range st.Fx.Orgs {
		for _, u := range a.users.of(o) {
			rec := *u
			rec.Removed = a.removed[u.ID]
			users.add("", rec)
		}
		for _, in := range a.invites.of(o) {
			rec := *in
			rec.Status = in.status
			invites.add(o.ID, rec, "expires_at", "type", "accepted_at", "rbac_group_ids")
		}
		for _, w := range a.workspaces.of(o) {
			workspaces.add(o.ID, w, "type", "compartment_id")
		}
	}
	for _, l := range []recordList{users, invites, workspaces} {
		if l.err != nil {
			return l.err
		}
	}
	out["users.json"] = struct {
		Users []json.RawMessage `json:"users"`
	}{orEmptyList(users.list)}
	file := struct {
		Invites             []json.RawMessage `json:"invites"`
		Workspaces          []json.RawMessage `json:"workspaces"`
		RateLimits          json.RawMessage   `json:"rate_limits,omitempty"`
		WorkspaceRateLimits json.RawMessage   `json:"workspace_rate_limits,omitempty"`
	}{Invites: orEmptyList(invites.list), Workspaces: orEmptyList(workspaces.list)}
	if raw, ok := st.Fx.Files["admin.json"]; ok {
		if rl := gjson.GetBytes(raw, "rate_limits"); rl.Exists() {
			file.RateLimits = json.RawMessage(rl.Raw)
		}
		if wl := gjson.GetBytes(raw, "workspace_rate_limits"); wl.Exists() {
			file.WorkspaceRateLimits = json.RawMessage(wl.Raw)
		}
	}
	if changed, err := exportOverrides(st.Fx, a.overrides); err != nil {
		return err
	} else if changed != nil {
		file.WorkspaceRateLimits = changed
	}
	out["admin.json"] = file
	return nil
}

// exportOverrides writes the workspace rate-limit overrides as admin.json's workspace_rate_limits,
// when an update changed them since the fixtures; nil when it did not, so that the file keeps the
// fixtures' bytes. Groups go in the organizations' order, workspaces by ID, and an override an
// update cleared is left out.
func exportOverrides(fx *core.Fixtures, ro rateOverrides) (json.RawMessage, error) {
	same := true
	for _, groups := range adminSection.In(fx.Sections).rateLimits {
		for _, g := range groups {
			same = same && reflect.DeepEqual(ro[g], g.overrides)
		}
	}
	if same {
		return nil, nil
	}
	type entry struct {
		WorkspaceID string    `json:"workspace_id"`
		GroupType   string    `json:"group_type"`
		Model       string    `json:"model,omitempty"`
		Limits      []limiter `json:"limits"`
	}
	list := []entry{}
	for _, o := range fx.Orgs {
		for _, g := range adminSection.In(fx.Sections).rateLimits[o] {
			for _, ws := range slices.Sorted(maps.Keys(ro[g])) {
				if len(ro[g][ws]) == 0 {
					continue
				}
				e := entry{WorkspaceID: ws, GroupType: g.GroupType, Limits: ro[g][ws]}
				if len(g.Models) > 0 {
					e.Model = g.Models[0]
				}
				list = append(list, e)
			}
		}
	}
	return json.Marshal(list)
}

// oldestFirstOf returns the records of an area's index by ID in list order, so that a file lists
// them as a list answers them.
func oldestFirstOf[T any](byID map[string]*T, key func(*T) core.ListKey) []*T {
	list := slices.Collect(maps.Values(byID))
	slices.SortFunc(list, func(a, b *T) int { return core.OldestFirst(key(a), key(b)) })
	return list
}

// orEmptyList makes a nil list an empty one, so that a file with no records still says so.
func orEmptyList(l []json.RawMessage) []json.RawMessage {
	if l == nil {
		return []json.RawMessage{}
	}
	return l
}

// --- Tunnels: tunnels.json ---

// exportTunnels writes every tunnel with its certificates (the PEM of each CA certificate,
// from which fingerprint and expiry are computed again) and its token rotations.
func exportTunnels(st *core.State, out map[string]any) error {
	ts := tunnelStores.In(st.Stores).Built()
	rotations := map[string][]TokenRotation{}
	for _, r := range ts.rotationLog {
		rotations[r.TunnelID] = append(rotations[r.TunnelID], r)
	}
	var tunnels recordList
	for i := len(ts.list) - 1; i >= 0; i-- { // oldest first, as the fixtures are written
		rec := ts.list[i]
		type cert struct {
			ID               string `json:"id"`
			ArchivedAt       any    `json:"archived_at"`
			CreatedAt        any    `json:"created_at"`
			CACertificatePEM string `json:"ca_certificate_pem"`
		}
		certs := []cert{}
		for j := len(rec.certs) - 1; j >= 0; j-- {
			c := rec.certs[j]
			certs = append(certs, cert{c.ID, c.ArchivedAt, c.CreatedAt,
				string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.ca.Raw}))})
		}
		tunnels.add(rec.org.ID, struct {
			Tunnel
			Certificates   []cert          `json:"certificates"`
			TokenRotations []TokenRotation `json:"token_rotations,omitempty"`
		}{rec.Tunnel, certs, rotations[rec.ID]}, "type")
	}
	if tunnels.err != nil {
		return tunnels.err
	}
	// The domain counter is not written: every domain ever allocated is held by a tunnel (they
	// are never deleted), so a counter from zero skips to the same next domain.
	out["tunnels.json"] = struct {
		Tunnels []json.RawMessage `json:"tunnels"`
	}{orEmptyList(tunnels.list)}
	return nil
}

// --- Environments and work: environments.json ---

// exportWork writes every environment with its work items in their whole state. Lapsed leases
// are written as they stand, not settled: the loading server settles them when a request reads
// the environment, at the same instant the original would have.
func exportWork(st *core.State, out map[string]any) error {
	ws := workStores.In(st.Stores).Built()
	var list recordList
	for _, env := range oldestFirstOf(ws.envs, func(e *environment) core.ListKey { return core.ListKey{At: e.rec.CreatedAt, ID: e.rec.ID} }) {
		work := make([]workFixture, len(env.items))
		for i, it := range env.items {
			work[i] = it.fixture()
		}
		var workers map[string]time.Time
		if len(env.workers) > 0 {
			workers = env.workers
		}
		list.add(env.org.ID, struct {
			envRecord
			Workers map[string]time.Time `json:"workers,omitempty"`
			Work    []workFixture        `json:"work"`
		}{env.rec, workers, work}, "type")
	}
	if list.err != nil {
		return list.err
	}
	// The environments of keys that the API deleted: the keys stay, and must still load.
	var deleted []string
	for _, c := range st.Fx.Creds {
		if c.Kind == core.KindEnvironmentKey && ws.envs[c.EnvironmentID] == nil && !slices.Contains(deleted, c.EnvironmentID) {
			deleted = append(deleted, c.EnvironmentID)
		}
	}
	slices.Sort(deleted)
	out["environments.json"] = struct {
		Environments []json.RawMessage `json:"environments"`
		Deleted      []string          `json:"deleted_environment_ids,omitempty"`
	}{orEmptyList(list.list), deleted}
	return nil
}

// --- Memory stores: memory_stores.json ---

// exportMemory writes every store with its whole history, redactions included; live memories
// are what the history leaves behind, as the loader replays it.
func exportMemory(st *core.State, out map[string]any) error {
	ma := memoryStores.In(st.Stores).Built()
	var list recordList
	for _, ms := range oldestFirstOf(ma.stores, func(m *memStoreState) core.ListKey { return core.ListKey{At: m.rec.CreatedAt, ID: m.rec.ID} }) {
		var versions recordList
		for _, v := range ms.versions {
			versions.add("", v, "type", "memory_store_id", "content_sha256", "content_size_bytes")
		}
		if versions.err != nil {
			return versions.err
		}
		var heads []redactedHead
		for _, m := range ms.memories {
			if ms.byID[m.MemoryVersionID].RedactedAt != nil {
				heads = append(heads, redactedHead{m.ID, m.Path, *m.Content})
			}
		}
		slices.SortFunc(heads, func(a, b redactedHead) int { return strings.Compare(a.MemoryID, b.MemoryID) })
		list.add(ms.org.ID, struct {
			memoryStore
			Versions      []json.RawMessage `json:"versions"`
			RedactedHeads []redactedHead    `json:"redacted_heads,omitempty"`
		}{ms.rec.memoryStore, orEmptyList(versions.list), heads}, "type")
	}
	if list.err != nil {
		return list.err
	}
	out["memory_stores.json"] = struct {
		MemoryStores []json.RawMessage `json:"memory_stores"`
	}{orEmptyList(list.list)}
	return nil
}

// --- Compliance: compliance.json ---

// exportCompliance writes the chat data as loaded (nothing but deletion changes it) with the
// deletions the API made, which the loading server applies again in order.
func exportCompliance(st *core.State, out map[string]any) error {
	cs := complianceStores.In(st.Stores).Built()
	raw, ok := st.Fx.Files["compliance.json"]
	if !ok {
		if len(cs.deletions) == 0 {
			return nil // no data and nothing deleted: the data set has no compliance.json
		}
		return errors.New("compliance.json: deletions without the data they apply to")
	}
	deletions, err := json.Marshal(cs.deletions)
	if err != nil {
		return err
	}
	var fields []json.RawMessage
	gjson.ParseBytes(raw).ForEach(func(k, v gjson.Result) bool {
		if k.Str != "deletions" {
			fields = append(fields, json.RawMessage(k.Raw+":"+v.Raw))
		}
		return true
	})
	if len(cs.deletions) > 0 {
		fields = append(fields, json.RawMessage(`"deletions":`+string(deletions)))
	}
	doc := "{"
	for i, f := range fields {
		if i > 0 {
			doc += ","
		}
		doc += string(f)
	}
	out["compliance.json"] = json.RawMessage(doc + "}")
	return nil
}
