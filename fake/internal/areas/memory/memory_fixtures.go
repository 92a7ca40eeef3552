package memory

import (
	"fmt"
	"io/fs"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// memoryFixtures is the parsed memory_stores.json: each store with its history. Live memories
// are not in the file; they are the replay of the history, so the two can never disagree.
type memoryFixtures struct {
	stores []*MemStoreState // immutable; build copies them
}

// memFixtureStore is one store of memory_stores.json: the store's own fields, its organization
// and its history.
type memFixtureStore struct {
	MemoryStore
	OrganizationID string `json:"organization_id"`
	Versions       []struct {
		ID         string       `json:"id"`
		MemoryID   string       `json:"memory_id"`
		Operation  string       `json:"operation"`
		CreatedAt  time.Time    `json:"created_at"`
		CreatedBy  *MemoryActor `json:"created_by"`
		Content    *string      `json:"content"`
		Path       *string      `json:"path"`
		RedactedAt *time.Time   `json:"redacted_at"`
		RedactedBy *MemoryActor `json:"redacted_by"`
	} `json:"versions"`
	// RedactedHeads holds the live memories whose current version was redacted: the API keeps
	// serving their content, which their history no longer holds (snapshots write it).
	RedactedHeads []redactedHead `json:"redacted_heads"`
}

// redactedHead is a live memory whose current version is redacted.
type redactedHead struct {
	MemoryID string `json:"memory_id"`
	Path     string `json:"path"`
	Content  string `json:"content"`
}

// loadMemoryStores parses memory_stores.json, if present, into its section of fx.
func loadMemoryStores(fsys fs.FS, fx *core.Fixtures) error {
	var file struct {
		MemoryStores []memFixtureStore `json:"memory_stores"`
	}
	if _, err := core.ReadFixture(fsys, "memory_stores.json", &file); err != nil {
		return err
	}
	for _, fs := range file.MemoryStores {
		st, err := fs.parse(fx)
		if err != nil {
			return fmt.Errorf("memory_stores.json: store %s: %w", fs.ID, err)
		}
		MemorySection.In(fx.Sections).stores = append(MemorySection.In(fx.Sections).stores, st)
	}
	return nil
}

// parse checks one store's history (created first, nothing after deleted, redactions nulling
// content and path; LoadFixtures has checked that IDs are unique) and replays it into live memories.
func (f *memFixtureStore) parse(fx *core.Fixtures) (*MemStoreState, error) {
	o := fx.OrgByID(f.OrganizationID)
	if o == nil {
		return nil, fmt.Errorf("unknown organization %s", f.OrganizationID)
	}
	rec := f.MemoryStore
	rec.Type = "memory_store"
	if rec.Metadata == nil {
		rec.Metadata = map[string]string{}
	}
	st := newMemStoreState(o, rec)
	for _, fv := range f.Versions {
		redacted := fv.RedactedAt != nil
		if redacted != (fv.Path == nil) || redacted != (fv.RedactedBy != nil) {
			return nil, fmt.Errorf("version %s: path is null and redacted_by is set exactly when redacted_at is", fv.ID)
		}
		if (fv.Content == nil) != (redacted || fv.Operation == memOpDeleted) {
			return nil, fmt.Errorf("version %s: content is null exactly when the version is deleted or redacted", fv.ID)
		}
		if fv.Path != nil {
			if err := checkMemoryPath("path", *fv.Path); err != nil {
				return nil, fmt.Errorf("version %s: %v", fv.ID, err)
			}
		}
		v := &MemoryVersion{ID: fv.ID, Type: "memory_version", CreatedAt: fv.CreatedAt, MemoryID: fv.MemoryID,
			MemoryStoreID: f.ID, Operation: fv.Operation, Content: fv.Content, CreatedBy: fv.CreatedBy, Path: fv.Path,
			RedactedAt: fv.RedactedAt, RedactedBy: fv.RedactedBy}
		if fv.Content != nil {
			sum, size := ContentSHA256(*fv.Content), len(*fv.Content)
			v.ContentSHA256, v.ContentSizeBytes = &sum, &size
		}
		st.AppendVersion(v)
	}
	heads := map[string]*redactedHead{}
	for i := range f.RedactedHeads {
		heads[f.RedactedHeads[i].MemoryID] = &f.RedactedHeads[i]
	}
	for id, lineage := range st.lineage {
		if err := st.replay(id, lineage, heads[id]); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// replay sets the live memory that a lineage (oldest first) leaves behind.
func (st *MemStoreState) replay(id string, lineage []*MemoryVersion, redacted *redactedHead) error {
	for i, v := range lineage {
		if (i == 0) != (v.Operation == MemOpCreated) {
			return fmt.Errorf("memory %s: the first version and only it must be created", id)
		}
		if i > 0 && lineage[i-1].Operation == memOpDeleted {
			return fmt.Errorf("memory %s: version %s follows the deleted version", id, v.ID)
		}
	}
	head := lineage[len(lineage)-1]
	if head.Operation == memOpDeleted {
		return nil
	}
	path, content := head.Path, head.Content
	if head.RedactedAt != nil {
		if redacted == nil {
			return fmt.Errorf("memory %s: the current version %s is redacted, so the memory has no content; redacted_heads must give it", id, head.ID)
		}
		path, content = &redacted.Path, &redacted.Content
	}
	if other := st.Paths[*path]; other != nil {
		return fmt.Errorf("memories %s and %s both live at %s", other.ID, id, *path)
	}
	m := &Memory{ID: id, Type: "memory", ContentSHA256: ContentSHA256(*content), ContentSizeBytes: len(*content),
		CreatedAt: lineage[0].CreatedAt, UpdatedAt: head.CreatedAt, MemoryStoreID: st.Rec.ID, MemoryVersionID: head.ID,
		Path: *path, Content: content}
	st.Memories[id], st.Paths[m.Path] = m, m
	return nil
}

// newMemStoreState is an empty store state with its indexes ready.
func newMemStoreState(o *core.Org, rec MemoryStore) *MemStoreState {
	st := &MemStoreState{org: o, Rec: &StoreRecord{MemoryStore: rec}}
	st.index()
	return st
}

// index makes the store's indexes if it has none yet: a store created through the API gets them
// with its first memory, since many stores never hold one. Reading and deleting from the nil
// maps before is what reading and deleting from empty ones is. The caller holds the area's lock.
func (st *MemStoreState) index() {
	if st.Memories == nil {
		st.Memories, st.Paths = map[string]*Memory{}, map[string]*Memory{}
		st.byID, st.lineage = map[string]*MemoryVersion{}, map[string][]*MemoryVersion{}
	}
}

// Build copies the fixtures into a server's state. Versions are copied because redaction
// changes them; memories because updates do.
func (mf *memoryFixtures) Build() *Store {
	a := &Store{Stores: map[string]*MemStoreState{}, byOrg: map[*core.Org][]*MemStoreState{}}
	for _, src := range mf.stores {
		st := newMemStoreState(src.org, src.Rec.MemoryStore)
		st.versions = make([]*MemoryVersion, len(src.versions))
		for i, v := range src.versions {
			cp := *v
			st.versions[i] = &cp
			st.byID[cp.ID] = &cp
			st.lineage[cp.MemoryID] = append(st.lineage[cp.MemoryID], &cp)
		}
		for id, m := range src.Memories {
			cp := *m
			st.Memories[id], st.Paths[cp.Path] = &cp, &cp
		}
		a.add(st)
	}
	return a
}
