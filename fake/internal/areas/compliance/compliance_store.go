package compliance

import (
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// complianceStore is one server's chats, messages and files. Every list of chats is indexed per
// user, sorted oldest first, so that a list request is a binary search and a merge of at most 10
// sorted lists: O(log n + page), whatever the number of chats.
type Store struct {
	mu       sync.Mutex
	Chats    map[string]*Chat      // live chats of every organization, by ID
	byUser   map[ccUserKey][]*Chat // live chats of each user, oldest first
	gone     map[string]*Chat      // chats deleted through the API: their keys stay valid cursors
	messages map[string]*ccMessage
	files    map[string]*File
	// deletions lists the deletions through the API, the fixtures' first, for snapshots.
	deletions []ccDeletionRecord
}

// newComplianceStore copies what a server may change out of the fixtures: chats with their
// messages, and files (their message_ids). Generated files and artifact versions are shared;
// they are served only while their chat is live.
func newComplianceStore(d *Data) *Store {
	st := &Store{Chats: map[string]*Chat{}, byUser: map[ccUserKey][]*Chat{}, gone: map[string]*Chat{},
		messages: map[string]*ccMessage{}, files: make(map[string]*File, len(d.Files))}
	for id, f := range d.Files {
		cp := *f
		cp.messageIDs = slices.Clone(f.messageIDs)
		st.files[id] = &cp
	}
	for _, ch := range d.Chats { // oldest first, so each user's list comes out sorted
		cp := *ch
		cp.messages = make([]*ccMessage, len(ch.messages))
		for i, m := range ch.messages {
			mc := *m
			mc.chat, mc.files = &cp, slices.Clone(m.files)
			cp.messages[i] = &mc
			st.messages[mc.ID] = &mc
		}
		st.add(&cp)
	}
	for _, del := range d.deletions {
		if del.ChatID != "" {
			if ch := st.Chats[del.ChatID]; ch != nil {
				st.deleteChat(ch)
			}
		} else if f := st.files[del.FileID]; f != nil {
			st.deleteFile(f, *del.DeletedAt)
		}
	}
	return st
}

// add indexes a chat that is not yet in the store, keeping its user's list sorted.
func (st *Store) add(ch *Chat) {
	st.Chats[ch.ID] = ch
	k := ccUserKey{ch.Org, ch.User.ID}
	st.byUser[k] = core.InsertInOrder(st.byUser[k], ch, (*Chat).Key, core.OldestFirst)
}

// chat returns a live chat of the organization, or nil: another organization's chat is not found.
func (st *Store) chat(o *core.Org, id string) *Chat {
	if ch := st.Chats[id]; ch != nil && ch.Org == o {
		return ch
	}
	return nil
}

// file returns a file of the organization, or nil.
func (st *Store) file(o *core.Org, id string) *File {
	if f := st.files[id]; f != nil && f.Org == o {
		return f
	}
	return nil
}

// deleteChat removes a chat, its messages, and the files no other chat's message references;
// files it shares lose the references of its messages. Its generated files and artifact versions
// go with it (they are served only for live chats). The chat's key stays a valid cursor.
func (st *Store) deleteChat(ch *Chat) {
	st.deletions = append(st.deletions, ccDeletionRecord{ChatID: ch.ID})
	delete(st.Chats, ch.ID)
	st.gone[ch.ID] = ch
	k := ccUserKey{ch.Org, ch.User.ID}
	list := st.byUser[k]
	i := sort.Search(len(list), func(i int) bool { return core.OldestFirst(list[i].Key(), ch.Key()) >= 0 })
	st.byUser[k] = slices.Delete(list, i, i+1)
	for _, m := range ch.messages {
		delete(st.messages, m.ID)
		for _, fid := range m.files {
			f := st.files[fid]
			if f == nil { // a message that names a file twice: gone at its first mention
				continue
			}
			f.messageIDs = slices.DeleteFunc(f.messageIDs, func(id string) bool { return id == m.ID })
			if len(f.messageIDs) == 0 {
				delete(st.files, fid)
			}
		}
	}
}

// deleteFile removes a file and its ID from every message that referenced it.
func (st *Store) deleteFile(f *File, at time.Time) {
	st.deletions = append(st.deletions, ccDeletionRecord{FileID: f.ID, DeletedAt: &at})
	delete(st.files, f.ID)
	for _, mid := range f.messageIDs {
		if m := st.messages[mid]; m != nil {
			m.files = slices.DeleteFunc(m.files, func(id string) bool { return id == f.ID })
			m.updatedAt = at
		}
	}
}

// ccUserKey names one user's chats. Users belong to one organization; the key says which, so that
// a list never reads another organization's chats.
type ccUserKey struct {
	org  *core.Org
	user string
}

// ChatFilter is what a chat list request selects besides its cursor (spec 4.1).
type ChatFilter struct {
	Org      *core.Org
	Users    []string        // 1 to 10, without repeats
	projects map[string]bool // nil: any project
	created  core.TimeRange
	updated  core.TimeRange
}

// match applies the filters the per-user index does not: project_ids and updated_at.
func (f ChatFilter) match(ch *Chat) bool {
	return (f.projects == nil || f.projects[ch.ProjectID]) && f.updated.Contains(ch.UpdatedAt)
}

// PageChats cuts one page of the chat list: the chats of f's users in list order (created_at,
// then ID), after or before cursor as q says. Each user's list is narrowed by binary search to the
// created_at range and the cursor, then the lists are merged until the page is full, so the cost
// is O(users * log n + page) plus the chats that the project and updated_at filters skip.
func (st *Store) PageChats(f ChatFilter, q core.CursorQuery, cursor *core.ListKey) core.CursorPage[*Chat] {
	type run struct {
		list   []*Chat
		lo, hi int
	}
	backward := q.BeforeID != ""
	runs := make([]run, 0, len(f.Users))
	for _, u := range f.Users {
		list := st.byUser[ccUserKey{f.Org, u}]
		lo, hi := core.Within(list, func(c *Chat) time.Time { return c.CreatedAt }, f.created)
		switch {
		case cursor != nil && backward:
			hi = min(hi, sort.Search(len(list), func(i int) bool { return core.OldestFirst(list[i].Key(), *cursor) >= 0 }))
		case cursor != nil:
			lo = max(lo, core.SearchAfter(list, (*Chat).Key, core.OldestFirst, *cursor))
		}
		if lo < hi {
			runs = append(runs, run{list, lo, hi})
		}
	}
	out := make([]*Chat, 0, min(q.Limit+1, 128))
	for len(out) <= q.Limit {
		var best *run
		for i := range runs {
			r := &runs[i]
			switch {
			case r.lo >= r.hi:
			case best == nil:
				best = r
			case backward && core.OldestFirst(r.list[r.hi-1].Key(), best.list[best.hi-1].Key()) > 0:
				best = r
			case !backward && core.OldestFirst(r.list[r.lo].Key(), best.list[best.lo].Key()) < 0:
				best = r
			}
		}
		if best == nil {
			break
		}
		var ch *Chat
		if backward {
			best.hi--
			ch = best.list[best.hi]
		} else {
			ch = best.list[best.lo]
			best.lo++
		}
		if f.match(ch) {
			out = append(out, ch)
		}
	}
	page := core.CursorPage[*Chat]{HasMore: len(out) > q.Limit}
	if page.HasMore {
		out = out[:q.Limit]
	}
	if backward {
		slices.Reverse(out)
	}
	page.Data = out
	if n := len(out); n > 0 {
		page.FirstID, page.LastID = &out[0].ID, &out[n-1].ID // a chat's ID never changes
	}
	return page
}
