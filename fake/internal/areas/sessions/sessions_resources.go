package sessions

import (
	"fmt"
	"slices"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// A session's resources: the files, repositories and memory stores mounted in its sandbox, given
// at creation; files can be added and any resource with an ID read, updated (a repository's
// token) and removed later.

// MaxResources is how many resources one session holds (the reference: "a maximum of 500 files
// is supported per session").
const MaxResources = 500

// resourceEntry is a resource with its place in the session's list.
type resourceEntry struct {
	seq int
	v   map[string]any
}

func resourceKey(e resourceEntry) core.ListKey {
	return core.ListKey{At: time.Unix(int64(e.seq), 0), ID: fmt.Sprint(e.v["id"])}
}

// addResource appends a resource; the caller holds the store's lock.
func (ss *session) addResource(v map[string]any) {
	ss.resSeq++
	ss.resources = append(ss.resources, resourceEntry{ss.resSeq, v})
	ss.syncResources()
}

// syncResources makes the session's record list its resources (a new slice: answers encoded
// outside the lock hold the old one).
func (ss *session) syncResources() {
	out := make([]any, len(ss.resources))
	for i, e := range ss.resources {
		out[i] = e.v
	}
	ss.rec.Resources = out
}

func (ss *session) findResource(id string) (int, error) {
	i := slices.IndexFunc(ss.resources, func(e resourceEntry) bool { return e.v["id"] == id })
	if i < 0 {
		return 0, core.NotFound("session resource", id)
	}
	return i, nil
}

// addFile is POST /v1/sessions/{id}/resources: a file mounted at mount_path (default
// /mnt/session/uploads/<file_id>).
func addFile(s *core.Server, c *core.Call) (any, error) {
	_, doc, err := c.DecodeBody()
	if err != nil {
		return nil, err
	}
	if err := checkFile(s, c, "file_id", mapOf(doc)["file_id"]); err != nil {
		return nil, err
	}
	return withSession(s, c, func(a *Store, ss *session, now time.Time) (any, error) {
		if ss.rec.ArchivedAt != nil {
			return nil, core.Invalid("session %s is archived; its resources cannot change", ss.rec.ID)
		}
		if len(ss.resources) >= MaxResources {
			return nil, core.Invalid("session %s holds %d resources, the most a session supports", ss.rec.ID, MaxResources).Because(core.ReasonOutOfRange)
		}
		v := resource(s, mapOf(doc), now)
		if err := a.charge(ss, core.HeldSizeOf(v)); err != nil {
			return nil, err
		}
		ss.addResource(v)
		return v, nil
	})
}

// listResources lists a session's resources in the order they were added; without limit, all.
func listResources(s *core.Server, c *core.Call) (any, error) {
	q, err := c.ListQuery("session_resources", false)
	if err != nil {
		return nil, err
	}
	return withSession(s, c, func(_ *Store, ss *session, _ time.Time) (any, error) {
		page := core.PageByToken(ss.resources, resourceKey, core.OldestFirst, "session_resources", q.After, q.Limit)
		out := core.TokenPage[map[string]any]{Data: make([]map[string]any, len(page.Data)), NextPage: page.NextPage}
		for i, e := range page.Data {
			out.Data[i] = e.v
		}
		return out, nil
	})
}

func getResource(s *core.Server, c *core.Call) (any, error) {
	return withSession(s, c, func(_ *Store, ss *session, _ time.Time) (any, error) {
		i, err := ss.findResource(c.Param("resource_id"))
		if err != nil {
			return nil, err
		}
		return ss.resources[i].v, nil
	})
}

// updateResource takes a new authorization_token for a github_repository resource (write-only:
// the answer never shows it).
func updateResource(s *core.Server, c *core.Call) (any, error) {
	if _, _, err := c.DecodeBody(); err != nil {
		return nil, err
	}
	return withSession(s, c, func(_ *Store, ss *session, now time.Time) (any, error) {
		i, err := ss.findResource(c.Param("resource_id"))
		if err != nil {
			return nil, err
		}
		cur := ss.resources[i].v
		if cur["type"] != "github_repository" {
			return nil, core.InvalidField("authorization_token", "only a github_repository resource takes one; %s is a %v resource", cur["id"], cur["type"])
		}
		next := make(map[string]any, len(cur))
		for k, v := range cur {
			next[k] = v
		}
		next["updated_at"] = now
		ss.resources[i].v = next
		ss.syncResources()
		return next, nil
	})
}

func deleteResource(s *core.Server, c *core.Call) (any, error) {
	return withSession(s, c, func(_ *Store, ss *session, _ time.Time) (any, error) {
		i, err := ss.findResource(c.Param("resource_id"))
		if err != nil {
			return nil, err
		}
		id := ss.resources[i].v["id"]
		ss.resources = slices.Delete(slices.Clone(ss.resources), i, i+1)
		ss.syncResources()
		return map[string]any{"id": id, "type": "session_resource_deleted"}, nil
	})
}
