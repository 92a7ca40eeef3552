package memory

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Memory stores (spec 2.13–2.15, 3.5, 4.7, 8; gaps §7). A store holds memories at paths and the
// append-only, attributed history of every memory. The whole area sits behind one mutex, held
// only while a handler reads or changes the maps, never while it decodes or encodes JSON.

// MemoryStore is the record of spec 2.13. Handlers hand out copies; the metadata map is never
// changed in place (an update builds a new one), so a copy can be encoded after the lock is gone.
type MemoryStore struct {
	ID          string            `json:"id"`
	Type        string            `json:"type"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Metadata    map[string]string `json:"metadata"`
	CreatedAt   time.Time         `json:"created_at"`
	UpdatedAt   time.Time         `json:"updated_at"`
	ArchivedAt  *time.Time        `json:"archived_at"`
}

// Memory is the record of spec 2.14, with its content always held; Content in a response is
// nil for view=basic.
type Memory struct {
	ID               string    `json:"id"`
	Type             string    `json:"type"`
	ContentSHA256    string    `json:"content_sha256"`
	ContentSizeBytes int       `json:"content_size_bytes"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
	MemoryStoreID    string    `json:"memory_store_id"`
	MemoryVersionID  string    `json:"memory_version_id"`
	Path             string    `json:"path"`
	Content          *string   `json:"content"`
}

// MemoryActor is who made or redacted a version (spec 2.15): exactly one of the IDs is set, by type.
type MemoryActor struct {
	Type      string `json:"type"`
	APIKeyID  string `json:"api_key_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	UserID    string `json:"user_id,omitempty"`
}

// MemoryVersion is the record of spec 2.15. Versions are immutable except for redaction, which
// replaces the pointer fields with nil; it never writes through them, so a copy taken under the
// lock stays valid.
type MemoryVersion struct {
	ID               string       `json:"id"`
	Type             string       `json:"type"`
	CreatedAt        time.Time    `json:"created_at"`
	MemoryID         string       `json:"memory_id"`
	MemoryStoreID    string       `json:"memory_store_id"`
	Operation        string       `json:"operation"`
	Content          *string      `json:"content"`
	ContentSHA256    *string      `json:"content_sha256"`
	ContentSizeBytes *int         `json:"content_size_bytes"`
	CreatedBy        *MemoryActor `json:"created_by"`
	Path             *string      `json:"path"`
	RedactedAt       *time.Time   `json:"redacted_at"`
	RedactedBy       *MemoryActor `json:"redacted_by"`
}

const (
	MemOpCreated  = "created"
	MemOpModified = "modified"
	memOpDeleted  = "deleted"
)

// memVersionKey is a version's place in history: created_at, then ID (spec 4.7).
func memVersionKey(v *MemoryVersion) core.ListKey { return core.ListKey{At: v.CreatedAt, ID: v.ID} }

// MemStoreState is one store with its live memories and its history. versions and each lineage
// are sorted oldest first by (created_at, id), so that a write appends and a list finds its
// page by binary search whatever the history's length.
type MemStoreState struct {
	org      *core.Org
	Rec      *StoreRecord       // replaced by set on every change, never changed in place
	Memories map[string]*Memory // live memories by ID
	Paths    map[string]*Memory // live memories by path
	versions []*MemoryVersion   // every version of the store
	byID     map[string]*MemoryVersion
	lineage  map[string][]*MemoryVersion // by memory ID, kept after the memory is deleted
}

// StoreRecord is one version of a store's record, with its JSON encoded on the first read (after
// the area's lock is gone). It is never changed: a change to the store builds the next record and
// installs it with set, so that the bytes can never be older than the record they are read with.
type StoreRecord struct {
	MemoryStore
	once sync.Once
	body json.RawMessage
	err  error
}

// Json returns the record encoded as writeJSON would encode it.
func (r *StoreRecord) Json() (json.RawMessage, error) {
	r.once.Do(func() { r.body, r.err = r.encode() })
	return r.body, r.err
}

// encode is encodeRecord(r.memoryStore) written field by field: a create encodes its new record
// at once, and reflecting over it, with the times' output compacted and checked again, cost a
// tenth of the request. TestStoreRecordEncodesAsEncodingJSON holds the two to the same bytes.
func (r *StoreRecord) encode() ([]byte, error) {
	e := core.Encoders.Get().(*core.Encoder)
	defer e.Release()
	m := &r.MemoryStore
	e.Buf.WriteString(`{"id":`)
	e.AppendString(m.ID)
	e.Buf.WriteString(`,"type":`)
	e.AppendString(m.Type)
	e.Buf.WriteString(`,"name":`)
	e.AppendString(m.Name)
	e.Buf.WriteString(`,"description":`)
	e.AppendString(m.Description)
	e.Buf.WriteString(`,"metadata":`)
	if m.Metadata == nil {
		e.Buf.WriteString("null")
	} else {
		e.Buf.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(m.Metadata)) {
			if i > 0 {
				e.Buf.WriteByte(',')
			}
			e.AppendString(k)
			e.Buf.WriteByte(':')
			e.AppendString(m.Metadata[k])
		}
		e.Buf.WriteByte('}')
	}
	for _, t := range []struct {
		name string
		at   *time.Time
	}{{`,"created_at":`, &m.CreatedAt}, {`,"updated_at":`, &m.UpdatedAt}, {`,"archived_at":`, m.ArchivedAt}} {
		e.Buf.WriteString(t.name)
		if t.at == nil {
			e.Buf.WriteString("null")
			continue
		}
		if !e.AppendTime(*t.at) { // a year or zone RFC 3339 cannot write: encoding/json's error
			return core.EncodeRecord(*m)
		}
	}
	e.Buf.WriteByte('}')
	return bytes.Clone(e.Buf.Bytes()), nil
}

// set makes rec the store's record; the caller holds the area's lock.
func (st *MemStoreState) set(rec MemoryStore) { st.Rec = &StoreRecord{MemoryStore: rec} }

// Store is the memory-stores state of one server.
type Store struct {
	Mu     sync.Mutex
	Stores map[string]*MemStoreState
	// byOrg is each organization's stores oldest first (memStateKey, which never changes for a
	// store; a new store is appended), kept as stores are created and deleted: a list page walks
	// it back from the page token's place instead of collecting and sorting every store per
	// request.
	byOrg map[*core.Org][]*MemStoreState
}

// memStateKey is a store's place in the list: its record's created_at and ID.
func memStateKey(st *MemStoreState) core.ListKey { return memStoreKey(st.Rec) }

// add puts a new store in the area; the caller holds mu.
func (a *Store) add(st *MemStoreState) {
	a.Stores[st.Rec.ID] = st
	a.byOrg[st.org] = core.InsertInOrder(a.byOrg[st.org], st, memStateKey, core.OldestFirst)
}

// remove takes a store out of the area; the caller holds mu.
func (a *Store) remove(st *MemStoreState) {
	delete(a.Stores, st.Rec.ID)
	a.byOrg[st.org] = core.RemoveInOrder(a.byOrg[st.org], st, memStateKey, core.OldestFirst)
}

// memoryArea returns the server's memory state, built from the fixtures on first use.
func StoreOf(s *core.Server, c *core.Call) *Store {
	return MemoryStores.In(c.St.Stores).Get(func() *Store { return MemorySection.In(c.St.Fx.Sections).Build() })
}

// AppendVersion adds v to the store's indexes at its place in (created_at, id) order: the end,
// unless a wall clock stepped back.
func (st *MemStoreState) AppendVersion(v *MemoryVersion) {
	st.index()
	st.versions = core.InsertInOrder(st.versions, v, memVersionKey, core.OldestFirst)
	st.lineage[v.MemoryID] = core.InsertInOrder(st.lineage[v.MemoryID], v, memVersionKey, core.OldestFirst)
	st.byID[v.ID] = v
}

// MemVersionFilter is the query of spec 4.7's version list, minus paging.
type MemVersionFilter struct {
	MemoryID, apiKeyID, sessionID, operation string
	Created                                  core.TimeRange
}

// match applies the filters that no index answers: operation and the writer.
func (f MemVersionFilter) match(v *MemoryVersion) bool {
	if f.operation != "" && v.Operation != f.operation {
		return false
	}
	if f.apiKeyID != "" && (v.CreatedBy == nil || v.CreatedBy.APIKeyID != f.apiKeyID) {
		return false
	}
	return f.sessionID == "" || (v.CreatedBy != nil && v.CreatedBy.SessionID == f.sessionID)
}

// PageVersions returns up to limit versions newest first, starting after the token position,
// and the key to continue from when more match. It picks the smallest index (the memory's
// lineage or the store's history), narrows it to the created_at bounds by binary search and
// walks back from the newest candidate, so a page costs the same for 1,000 or 100,000 versions
// in the store unless a filter skips most of them.
func (st *MemStoreState) PageVersions(f MemVersionFilter, after *core.ListKey, limit int) ([]MemoryVersion, *core.ListKey) {
	list := st.versions
	if f.MemoryID != "" {
		list = st.lineage[f.MemoryID]
	}
	lo, hi := 0, len(list)
	if t := f.Created.Gte; t != nil {
		lo = sort.Search(len(list), func(i int) bool { return !list[i].CreatedAt.Before(*t) })
	}
	if t := f.Created.Lte; t != nil {
		hi = sort.Search(len(list), func(i int) bool { return list[i].CreatedAt.After(*t) })
	}
	if after != nil {
		// Newest first, "after" the token means strictly older than its key.
		hi = min(hi, sort.Search(len(list), func(i int) bool { return core.OldestFirst(memVersionKey(list[i]), *after) >= 0 }))
	}
	page := make([]MemoryVersion, 0, max(0, min(limit, hi-lo)))
	for i := hi - 1; i >= lo; i-- {
		if !f.match(list[i]) {
			continue
		}
		if len(page) == limit {
			// Another match exists: the page is full and a next page will not be empty (gaps §3).
			k := memVersionKey(&page[len(page)-1])
			return page, &k
		}
		page = append(page, *list[i])
	}
	return page, nil
}

// ContentSHA256 is the content hash of spec 2.14: lowercase hex of the UTF-8 bytes, no normalization.
func ContentSHA256(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// NewMemVersion builds the version a write appends: the content and path after the write.
func NewMemVersion(id, op string, m *Memory, by *MemoryActor, at time.Time) *MemoryVersion {
	content, sum, size, path := m.Content, m.ContentSHA256, m.ContentSizeBytes, m.Path
	v := &MemoryVersion{ID: id, Type: "memory_version", CreatedAt: at, MemoryID: m.ID, MemoryStoreID: m.MemoryStoreID,
		Operation: op, CreatedBy: by, Path: &path}
	if op != memOpDeleted {
		v.Content, v.ContentSHA256, v.ContentSizeBytes = content, &sum, &size
	}
	return v
}

// viewed returns a copy of v for the view: basic leaves out the content, full keeps it.
func (v MemoryVersion) viewed(full bool) MemoryVersion {
	if !full {
		v.Content = nil
	}
	return v
}

// viewed returns a copy of m for the view.
func (m Memory) viewed(full bool) Memory {
	if !full {
		m.Content = nil
	}
	return m
}
