package memory

import (
	"maps"
	"slices"
	"strings"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The memory-store handlers (spec 4.7, gaps §7). Each one validates its input before it takes
// the area's lock, so a rejected request changes nothing, and copies what it answers before it
// lets the lock go.

// Limits of spec 8 that the request schemas cannot express (bytes, and the size of a patched map).
const (
	MaxMemoryContent  = 102400 // bytes
	maxMemoryPath     = 1024   // bytes
	maxStoreMetadata  = 16     // pairs
	DefaultMemoryPage = 20
	maxMemoryPage     = 100
)

const (
	memViewBasic = "basic"
	memViewFull  = "full"
)

// memStoreKey orders the store list: created_at, then ID.
func memStoreKey(r *StoreRecord) core.ListKey { return core.ListKey{At: r.CreatedAt, ID: r.ID} }

// memAPIActor is the attribution of a write through the API: the key used, never its secret.
func memAPIActor(c *core.Call) *MemoryActor {
	if c.Cred.Kind == core.KindSessionsToken {
		return &MemoryActor{Type: "session_actor", SessionID: c.Cred.SessionID}
	}
	return &MemoryActor{Type: "api_actor", APIKeyID: c.Cred.ID}
}

// view reads the view parameter; def is full on retrieve and basic on list, create and update
// (gaps §7).
func memoryView(c *core.Call) (bool, error) {
	v, err := c.QueryEnum("view")
	return v == memViewFull, err
}

// store returns the caller's store named in the path; another organization's store is a 404.
// The caller holds a.mu.
func (a *Store) store(c *core.Call) (*MemStoreState, error) {
	id := c.Param("memory_store_id")
	st := a.Stores[id]
	if st == nil || st.org != c.Org {
		return nil, core.NotFound("memory store", id)
	}
	return st, nil
}

// writable refuses changes to an archived store, which is read-only: its memories can be read
// and deleted and its versions redacted, nothing else (gaps §7).
func (st *MemStoreState) writable() error {
	if st.Rec.ArchivedAt != nil {
		return core.Invalid("memory store %s is archived and read-only: its memories can be read and deleted and its versions redacted, nothing else", st.Rec.ID)
	}
	return nil
}

// inMemStore runs f on the caller's store named in the path, holding the area's lock; another
// organization's store is a 404.
func inMemStore(s *core.Server, c *core.Call, f func(st *MemStoreState) (any, error)) (any, error) {
	if err := tokenScope(c); err != nil {
		return nil, err
	}
	a := StoreOf(s, c)
	a.Mu.Lock()
	defer a.Mu.Unlock()
	st, err := a.store(c)
	if err != nil {
		return nil, err
	}
	return f(st)
}

// listMemoryStores answers the caller's stores newest first (spec 4.7), archived ones only
// with include_archived (spec 3.5).
func listMemoryStores(s *core.Server, c *core.Call) (any, error) {
	if err := tokenScope(c); err != nil {
		return nil, err
	}
	created, err := c.QueryTimeRange("created_at")
	if err != nil {
		return nil, err
	}
	q, err := c.ListQuery("memory_stores", true)
	if err != nil {
		return nil, err
	}
	a := StoreOf(s, c)
	a.Mu.Lock()
	page := core.PageNewestKept(a.byOrg[c.Org], func(st *MemStoreState) bool {
		return (q.Archived || st.Rec.ArchivedAt == nil) && created.Contains(st.Rec.CreatedAt)
	}, memStateKey, "memory_stores", q.After, q.Limit)
	recs := core.TokenPage[*StoreRecord]{Data: make([]*StoreRecord, len(page.Data)), NextPage: page.NextPage}
	for i, st := range page.Data {
		recs.Data[i] = st.Rec // the record of now: a change replaces it under the lock
	}
	a.Mu.Unlock()
	return core.EncodedTokenPage(recs, (*StoreRecord).Json)
}

// createMemoryStore makes an empty store (gaps §7); description and metadata start empty, not
// absent, since clients read them unconditionally.
func createMemoryStore(s *core.Server, c *core.Call) (any, error) {
	if err := tokenScope(c); err != nil {
		return nil, err
	}
	var req struct {
		Name        string            `json:"name"`
		Description string            `json:"description"`
		Metadata    map[string]string `json:"metadata"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	if req.Metadata == nil {
		req.Metadata = map[string]string{}
	}
	a := StoreOf(s, c)
	a.Mu.Lock()
	now := s.Clock.Now()
	st := &MemStoreState{org: c.Org, Rec: &StoreRecord{MemoryStore: MemoryStore{ID: s.IDs.Next("memstore_"), Type: "memory_store",
		Name: req.Name, Description: req.Description, Metadata: req.Metadata, CreatedAt: now, UpdatedAt: now}}} // indexes with its first memory
	a.add(st)
	a.Mu.Unlock()
	// Encoded once, after the lock is gone: the list pages and reads of the store reuse the bytes.
	return st.Rec.Json()
}

// inMemStoreRecord runs f as inMemStore does and answers the store record it returns, encoded
// after the lock is gone and once per version of the record: reads far outnumber changes.
func inMemStoreRecord(s *core.Server, c *core.Call, f func(st *MemStoreState) (*StoreRecord, error)) (any, error) {
	v, err := inMemStore(s, c, func(st *MemStoreState) (any, error) { return f(st) })
	if err != nil {
		return nil, err
	}
	return v.(*StoreRecord).Json()
}

// getMemoryStore answers one of the caller's stores, archived or not.
func getMemoryStore(s *core.Server, c *core.Call) (any, error) {
	return inMemStoreRecord(s, c, func(st *MemStoreState) (*StoreRecord, error) { return st.Rec, nil })
}

// updateMemoryStore changes name and description and patches metadata (gaps §7): a string
// upserts a key and null deletes it, and the 16-pair limit applies to the result.
func updateMemoryStore(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		Name        *string            `json:"name"`
		Description *string            `json:"description"`
		Metadata    map[string]*string `json:"metadata"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	return inMemStoreRecord(s, c, func(st *MemStoreState) (*StoreRecord, error) {
		if err := st.writable(); err != nil {
			return nil, err
		}
		next := st.Rec.MemoryStore
		if req.Name != nil {
			next.Name = *req.Name
		}
		if req.Description != nil {
			next.Description = *req.Description
		}
		if req.Metadata != nil {
			next.Metadata = maps.Clone(st.Rec.Metadata)
			for k, v := range req.Metadata {
				if v == nil {
					delete(next.Metadata, k)
				} else {
					next.Metadata[k] = *v
				}
			}
			if len(next.Metadata) > maxStoreMetadata {
				return nil, core.InvalidField("metadata", "the store would have %d pairs; at most %d are allowed (delete a key with null)", len(next.Metadata), maxStoreMetadata)
			}
		}
		// An update that changes nothing leaves updated_at alone.
		if next.Name != st.Rec.Name || next.Description != st.Rec.Description || !maps.Equal(next.Metadata, st.Rec.Metadata) {
			next.UpdatedAt = s.Clock.Now()
			st.set(next)
		}
		return st.Rec, nil
	})
}

// archiveMemoryStore archives once; archiving an archived store returns it unchanged, so that
// a client may retry.
func archiveMemoryStore(s *core.Server, c *core.Call) (any, error) {
	return inMemStoreRecord(s, c, func(st *MemStoreState) (*StoreRecord, error) {
		if st.Rec.ArchivedAt == nil {
			now, next := s.Clock.Now(), st.Rec.MemoryStore
			next.ArchivedAt, next.UpdatedAt = &now, now
			st.set(next)
		}
		return st.Rec, nil
	})
}

// memoryDeletion is a deletion confirmation (gaps §7).
type memoryDeletion struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// deleteMemoryStore removes the store with its memories and their history.
func deleteMemoryStore(s *core.Server, c *core.Call) (any, error) {
	return inMemStore(s, c, func(st *MemStoreState) (any, error) {
		StoreOf(s, c).remove(st) // inMemStore holds the lock
		return memoryDeletion{ID: st.Rec.ID, Type: "memory_store_deleted"}, nil
	})
}

// memoryPrefix stands for the memories below a path in a list with depth (gaps §7).
type memoryPrefix struct {
	Type string `json:"type"`
	Path string `json:"path"`
}

// memoryListKey orders a memory list by path (bytes), memories and prefixes together; a prefix
// ends with "/" and a memory path never does, so no two items share a key.
func memoryListKey(item any) core.ListKey {
	if p, ok := item.(memoryPrefix); ok {
		return core.ListKey{ID: p.Path}
	}
	return core.ListKey{ID: item.(Memory).Path}
}

// listMemories answers a store's live memories in path order (gaps §7): path_prefix keeps whole
// segments under a prefix ending in "/", and depth rolls anything deeper into one memory_prefix
// item per directory.
func listMemories(s *core.Server, c *core.Call) (any, error) {
	prefix := "/"
	if p, ok := c.QueryString("path_prefix"); ok {
		if !strings.HasPrefix(p, "/") || !strings.HasSuffix(p, "/") {
			return nil, core.InvalidField("path_prefix", "must start and end with \"/\" (it matches whole path segments, as in /notes/), got %s", core.Quoted(p, core.MaxExcerpt))
		}
		prefix = p
	}
	depth, _, err := c.QueryInt("depth")
	if err != nil {
		return nil, err
	}
	limit, _, err := c.QueryInt("limit")
	if err != nil {
		return nil, err
	}
	full, err := memoryView(c)
	if err != nil {
		return nil, err
	}
	return inMemStore(s, c, func(st *MemStoreState) (any, error) {
		scope := "memories:" + st.Rec.ID
		after, err := c.PageToken(scope)
		if err != nil {
			return nil, err
		}
		var items []any
		rolled := map[string]bool{}
		for _, m := range st.Memories {
			rest, ok := strings.CutPrefix(m.Path, prefix)
			if !ok {
				continue
			}
			if segs := strings.Split(rest, "/"); depth > 0 && len(segs) > depth {
				p := prefix + strings.Join(segs[:depth], "/") + "/"
				if !rolled[p] {
					rolled[p] = true
					items = append(items, memoryPrefix{Type: "memory_prefix", Path: p})
				}
				continue
			}
			items = append(items, m.viewed(full))
		}
		slices.SortFunc(items, func(x, y any) int { return core.OldestFirst(memoryListKey(x), memoryListKey(y)) })
		return core.PageByToken(items, memoryListKey, core.OldestFirst, scope, after, limit), nil
	})
}

// createMemory stores content at a free path and appends its created version (spec 3.5).
func createMemory(s *core.Server, c *core.Call) (any, error) {
	full, err := memoryView(c)
	if err != nil {
		return nil, err
	}
	var req struct {
		Content string `json:"content"`
		Path    string `json:"path"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	if err := checkMemoryContent(req.Content); err != nil {
		return nil, err
	}
	if err := checkMemoryPath("path", req.Path); err != nil {
		return nil, err
	}
	return inMemStore(s, c, func(st *MemStoreState) (any, error) {
		if err := st.writable(); err != nil {
			return nil, err
		}
		if other := st.Paths[req.Path]; other != nil {
			return nil, memPathConflict(req.Path, other.ID)
		}
		now := s.Clock.Now()
		m := &Memory{ID: s.IDs.Next("mem_"), Type: "memory", ContentSHA256: ContentSHA256(req.Content), ContentSizeBytes: len(req.Content),
			CreatedAt: now, UpdatedAt: now, MemoryStoreID: st.Rec.ID, Path: req.Path, Content: &req.Content}
		v := NewMemVersion(s.IDs.Next("memver_"), MemOpCreated, m, memAPIActor(c), now)
		m.MemoryVersionID = v.ID
		st.index()
		st.Memories[m.ID], st.Paths[m.Path] = m, m
		st.AppendVersion(v)
		return m.viewed(full), nil
	})
}

// memPathConflict is the 409 of a create or rename onto a path another live memory holds (gaps §7).
func memPathConflict(path, holder string) error {
	return core.NewError(core.ErrMemoryPathConflict, "path %s is already taken by memory %s; choose another path or update that memory", core.Quoted(path, core.MaxExcerpt), holder)
}

// memory returns the live memory named in the path. The caller holds a.mu.
func (st *MemStoreState) memory(c *core.Call) (*Memory, error) {
	id := c.Param("memory_id")
	m := st.Memories[id]
	if m == nil {
		return nil, core.NotFound("memory", id)
	}
	return m, nil
}

// getMemory answers a live memory; a deleted one is 404, its history stays in the versions.
func getMemory(s *core.Server, c *core.Call) (any, error) {
	full, err := memoryView(c)
	if err != nil {
		return nil, err
	}
	return inMemStore(s, c, func(st *MemStoreState) (any, error) {
		m, err := st.memory(c)
		if err != nil {
			return nil, err
		}
		return m.viewed(full), nil
	})
}

// updateMemory applies content and path changes as one modified version, or none when nothing
// changes. With a precondition, it applies only while the stored hash is the expected one; a
// request whose outcome is already the stored state succeeds whatever the hash, so a client
// that retries a write that did land gets 200 (spec 4.7).
func updateMemory(s *core.Server, c *core.Call) (any, error) {
	full, err := memoryView(c)
	if err != nil {
		return nil, err
	}
	var req struct {
		Content      *string `json:"content"`
		Path         *string `json:"path"`
		Precondition *struct {
			Type          string  `json:"type"`
			ContentSHA256 *string `json:"content_sha256"`
		} `json:"precondition"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	if req.Content != nil {
		if err := checkMemoryContent(*req.Content); err != nil {
			return nil, err
		}
	}
	if req.Path != nil {
		if err := checkMemoryPath("path", *req.Path); err != nil {
			return nil, err
		}
	}
	return inMemStore(s, c, func(st *MemStoreState) (any, error) {
		if err := st.writable(); err != nil {
			return nil, err
		}
		m, err := st.memory(c)
		if err != nil {
			return nil, err
		}
		content, path := m.Content, m.Path
		if req.Content != nil {
			content = req.Content
		}
		if req.Path != nil {
			path = *req.Path
		}
		unchanged := *content == *m.Content && path == m.Path
		if pre := req.Precondition; pre != nil && pre.ContentSHA256 != nil && *pre.ContentSHA256 != m.ContentSHA256 && !unchanged {
			return nil, memPreconditionFailed("precondition.content_sha256", *pre.ContentSHA256, m.ContentSHA256)
		}
		if unchanged {
			return m.viewed(full), nil
		}
		if other := st.Paths[path]; other != nil && other != m {
			return nil, memPathConflict(path, other.ID)
		}
		now := s.Clock.Now()
		delete(st.Paths, m.Path)
		m.Path, m.Content, m.ContentSHA256, m.ContentSizeBytes, m.UpdatedAt = path, content, ContentSHA256(*content), len(*content), now
		st.Paths[path] = m
		v := NewMemVersion(s.IDs.Next("memver_"), MemOpModified, m, memAPIActor(c), now)
		m.MemoryVersionID = v.ID
		st.AppendVersion(v)
		return m.viewed(full), nil
	})
}

// memPreconditionFailed is the 409 of spec 4.7: the client must re-read, so the message says what
// the stored hash is now.
func memPreconditionFailed(field, expected, stored string) error {
	return core.NewError(core.ErrPreconditionFailed, "%s: the memory's content_sha256 is %s, not %s: it changed since you read it; read it again and retry with the current hash", field, stored, expected)
}

// deleteMemory removes a memory and appends its deleted version; the history stays. Allowed in
// an archived store.
func deleteMemory(s *core.Server, c *core.Call) (any, error) {
	expected, hasExpected := c.QueryString("expected_content_sha256")
	if hasExpected && !isContentSHA256(expected) {
		return nil, core.InvalidField("expected_content_sha256", "must be 64 lowercase hex characters, got %s", core.Quoted(expected, core.MaxExcerpt))
	}
	return inMemStore(s, c, func(st *MemStoreState) (any, error) {
		m, err := st.memory(c)
		if err != nil {
			return nil, err
		}
		if hasExpected && expected != m.ContentSHA256 {
			return nil, memPreconditionFailed("expected_content_sha256", expected, m.ContentSHA256)
		}
		st.AppendVersion(NewMemVersion(s.IDs.Next("memver_"), memOpDeleted, m, memAPIActor(c), s.Clock.Now()))
		delete(st.Memories, m.ID)
		delete(st.Paths, m.Path)
		return memoryDeletion{ID: m.ID, Type: "memory_deleted"}, nil
	})
}

// listMemoryVersions answers a store's versions newest first with every filter of spec 4.7.
func listMemoryVersions(s *core.Server, c *core.Call) (any, error) {
	full, err := memoryView(c)
	if err != nil {
		return nil, err
	}
	limit, _, err := c.QueryInt("limit")
	if err != nil {
		return nil, err
	}
	f := MemVersionFilter{MemoryID: c.QueryValue("memory_id"), apiKeyID: c.QueryValue("api_key_id"), sessionID: c.QueryValue("session_id")}
	if f.Created, err = c.QueryTimeRange("created_at"); err != nil {
		return nil, err
	}
	if f.operation, err = c.QueryEnum("operation"); err != nil {
		return nil, err
	}
	return inMemStore(s, c, func(st *MemStoreState) (any, error) {
		scope := "memory_versions:" + st.Rec.ID
		after, err := c.PageToken(scope)
		if err != nil {
			return nil, err
		}
		data, next := st.PageVersions(f, after, limit)
		page := core.TokenPage[MemoryVersion]{Data: make([]MemoryVersion, 0, len(data))}
		for _, v := range data {
			page.Data = append(page.Data, v.viewed(full))
		}
		if next != nil {
			tok := core.EncodePageToken(scope, *next)
			page.NextPage = &tok
		}
		return page, nil
	})
}

// version returns the store's version named in the path. The caller holds a.mu.
func (st *MemStoreState) version(c *core.Call) (*MemoryVersion, error) {
	id := c.Param("memory_version_id")
	v := st.byID[id]
	if v == nil {
		return nil, core.NotFound("memory version", id)
	}
	return v, nil
}

// getMemoryVersion answers one version; a redacted one is 200 with its content fields null.
func getMemoryVersion(s *core.Server, c *core.Call) (any, error) {
	full, err := memoryView(c)
	if err != nil {
		return nil, err
	}
	return inMemStore(s, c, func(st *MemStoreState) (any, error) {
		v, err := st.version(c)
		if err != nil {
			return nil, err
		}
		return v.viewed(full), nil
	})
}

// redactMemoryVersion nulls a version's content and path and records who did it (gaps §7).
// Redacting a redacted version returns it unchanged. Allowed in an archived store.
func redactMemoryVersion(s *core.Server, c *core.Call) (any, error) {
	return inMemStore(s, c, func(st *MemStoreState) (any, error) {
		v, err := st.version(c)
		if err != nil {
			return nil, err
		}
		if v.RedactedAt == nil {
			now := s.Clock.Now()
			v.RedactedAt, v.RedactedBy = &now, memAPIActor(c)
			v.Content, v.Path, v.ContentSHA256, v.ContentSizeBytes = nil, nil, nil, nil
		}
		return *v, nil
	})
}
