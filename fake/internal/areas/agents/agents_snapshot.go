package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// agents.json holds every agent with every version, oldest first: versions[i] is version i+1.
// A version is written as a create request would give its configuration (the resolved form the
// API answers, or the short forms a request may use: the loader resolves both as a create does),
// with its updated_at; the agent's ID, created_at and archived_at are the record's, since every
// version answers the same ones.

// agentFixture is one record of agents.json.
type agentFixture struct {
	OrganizationID string            `json:"organization_id"`
	ID             string            `json:"id"`
	ArchivedAt     *time.Time        `json:"archived_at"`
	CreatedAt      time.Time         `json:"created_at"`
	Versions       []json.RawMessage `json:"versions"`
}

// versionDrops are the fields of a version agents.json does not hold: the record's, and the
// version number, which is the version's place in the list.
var versionDrops = []string{"id", "type", "archived_at", "created_at", "version"}

// loadAgents reads agents.json, if present, into the section: each version resolved and checked
// as a create request's body is, each error naming the file and the field.
func loadAgents(fsys fs.FS, fx *core.Fixtures) error {
	var file struct {
		Agents []agentFixture `json:"agents"`
	}
	if _, err := core.ReadFixture(fsys, "agents.json", &file); err != nil {
		return err
	}
	if len(file.Agents) > MaxAgents {
		return fmt.Errorf("agents.json: agents: %d agents; a server keeps at most %d", len(file.Agents), MaxAgents)
	}
	list := make([]*entry, 0, len(file.Agents))
	for i, f := range file.Agents {
		at := fmt.Sprintf("agents.%d", i)
		org, err := fx.RecordOwner(at, "agent "+f.ID, f.OrganizationID, "")
		if err != nil {
			return fmt.Errorf("agents.json: %w", err)
		}
		e := &entry{org: org}
		if len(f.Versions) > MaxVersions {
			return fmt.Errorf("agents.json: %s.versions: agent %s has %d versions; an agent keeps at most %d", at, f.ID, len(f.Versions), MaxVersions)
		}
		for j, raw := range f.Versions {
			v, err := loadVersion(raw, f, j, fmt.Sprintf("%s.versions.%d.", at, j))
			if err != nil {
				return fmt.Errorf("agents.json: %w", err)
			}
			e.versions = append(e.versions, v)
		}
		e.versions[len(e.versions)-1].ArchivedAt = f.ArchivedAt
		list = append(list, e)
	}
	*agentsSection.In(fx.Sections) = list
	return nil
}

// loadVersion resolves version j of f (raw, checked against the schema) as a create of it would.
func loadVersion(raw json.RawMessage, f agentFixture, j int, at string) (Agent, error) {
	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers in tools and multiagent are kept as written
	if err := dec.Decode(&body); err != nil {
		return Agent{}, fmt.Errorf("%s %v", at, err)
	}
	var times struct {
		UpdatedAt time.Time `json:"updated_at"`
	}
	if err := json.Unmarshal(raw, &times); err != nil {
		return Agent{}, fmt.Errorf("%supdated_at: %v", at, err)
	}
	if times.UpdatedAt.Before(f.CreatedAt) {
		return Agent{}, fmt.Errorf("%supdated_at: %s is before the agent's created_at %s", at, times.UpdatedAt.Format(time.RFC3339Nano), f.CreatedAt.Format(time.RFC3339Nano))
	}
	v := newVersion(f.CreatedAt)
	if err := apply(&v, body, nil, at); err != nil {
		var ae *core.APIError
		if errors.As(err, &ae) {
			return Agent{}, errors.New(ae.Message)
		}
		return Agent{}, err
	}
	v.ID, v.Version, v.UpdatedAt = f.ID, j+1, times.UpdatedAt
	return v, nil
}

// newVersion is a first version's defaults, before a create request's fields apply.
func newVersion(now time.Time) Agent {
	return Agent{Type: "agent", CreatedAt: now, UpdatedAt: now, Version: 1, Metadata: map[string]string{},
		ExecutionIdentity: map[string]any{"type": "service_account"}, MCPServers: []any{}, Skills: []any{}, Tools: []any{}}
}

// build makes a server's store from the fixtures, every version charged to b as its create or
// update was. Versions are copied: archiving sets archived_at on the latest.
func build(fx *core.Fixtures, b *core.ByteBudget) *Store {
	a := newStore(b)
	for _, src := range *agentsSection.In(fx.Sections) {
		e := &entry{org: src.org, versions: append([]Agent(nil), src.versions...)}
		for _, v := range e.versions {
			n := core.HeldSizeOf(v)
			a.Grow(n)
			e.bytes += n
		}
		a.byID[e.versions[0].ID] = e
		a.byOrg[e.org] = core.InsertInOrder(a.byOrg[e.org], e, entryKey, core.OldestFirst)
	}
	return a
}

// agentsSnapshot is the area's part of a snapshot (agents.json).
var agentsSnapshot = &core.SnapshotArea{Lock: core.LockArea(agentStores, func(a *Store) *sync.Mutex { return &a.mu }), Export: exportAgents}

func exportAgents(st *core.State, out map[string]any) error {
	a := agentStores.In(st.Stores).Built()
	var list core.RecordList
	for _, e := range core.OldestFirstOf(a.byID, entryKey) {
		var versions core.RecordList
		for _, v := range e.versions {
			versions.Add("", v, versionDrops...)
		}
		if versions.Err != nil {
			return versions.Err
		}
		first := e.versions[0]
		list.Add(e.org.ID, struct {
			ID         string            `json:"id"`
			ArchivedAt *time.Time        `json:"archived_at"`
			CreatedAt  time.Time         `json:"created_at"`
			Versions   []json.RawMessage `json:"versions"`
		}{first.ID, e.latest().ArchivedAt, first.CreatedAt, versions.List})
	}
	if list.Err != nil {
		return list.Err
	}
	out["agents.json"] = struct {
		Agents []json.RawMessage `json:"agents"`
	}{core.OrEmptyList(list.List)}
	return nil
}
