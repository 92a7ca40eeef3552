package sessions

import (
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/agents"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// updateSession changes title, metadata (a patch), budget and, for a session created from an
// agent reference that is not running, the agent's tools and MCP servers; it appends a
// session.updated event with what changed. vault_ids is refused, as by the reference ("not yet
// supported").
func updateSession(s *core.Server, c *core.Call) (any, error) {
	if err := ownerOnly(c); err != nil {
		return nil, err
	}
	_, doc, err := c.DecodeBody()
	if err != nil {
		return nil, err
	}
	body := doc.(map[string]any)
	if _, ok := body["vault_ids"]; ok {
		return nil, core.InvalidField("vault_ids", "changing a session's vaults is not yet supported; requests setting this field are refused")
	}
	return withSession(s, c, func(a *Store, ss *session, now time.Time) (any, error) {
		if ss.rec.ArchivedAt != nil {
			return nil, core.Invalid("session %s is archived; an archived session cannot be changed", ss.rec.ID)
		}
		next := ss.rec
		changed := Event{}
		if x, ok := body["title"]; ok {
			if t, ok := x.(string); ok {
				next.Title = &t
			} else {
				next.Title = nil
			}
			changed["title"] = x
		}
		if md := mapOf(body["metadata"]); md != nil {
			var err error
			if next.Metadata, err = core.PatchMetadata(ss.rec.Metadata, md, "metadata", "a session"); err != nil {
				return nil, err
			}
			changed["metadata"] = next.Metadata
		}
		if x, ok := body["budget"]; ok {
			if x != nil && ss.rec.Budget == nil {
				return nil, core.InvalidField("budget", "a budget is set when the session is created; an uncapped session cannot be given one").Because("budget_create_only")
			}
			next.Budget = x
			changed["budget"] = x
		}
		model := ss.model
		if over := mapOf(body["agent"]); over != nil {
			if !ss.agentRef {
				return nil, core.InvalidField("agent", "only a session created from an agent reference may change its agent's tools; this one was created with agent_with_overrides")
			}
			if ss.rec.Status == StatusRunning {
				return nil, core.InvalidField("agent", "session %s is running; its agent changes only while it is not", ss.rec.ID)
			}
			var err error
			if model, err = agents.Override(ss.model, over, "agent."); err != nil {
				return nil, err
			}
			if next.Agent, err = snapshot(model); err != nil {
				return nil, err
			}
			changed["agent"] = next.Agent
		}
		if len(changed) == 0 {
			return ss.view(now), nil
		}
		next.UpdatedAt = now
		prev, prevModel := ss.rec, ss.model
		ss.rec, ss.model = next, model
		changed["type"] = "session.updated"
		if err := ss.emit(s, a, now, changed); err != nil {
			ss.rec, ss.model = prev, prevModel
			return nil, err
		}
		ss.release()
		return ss.view(now), nil
	})
}

// archiveSession sets archived_at; a session that was not terminated ends (the official worker
// treats an archived session as terminated). Archiving again changes nothing.
func archiveSession(s *core.Server, c *core.Call) (any, error) {
	if err := ownerOnly(c); err != nil {
		return nil, err
	}
	return withSession(s, c, func(a *Store, ss *session, now time.Time) (any, error) {
		if ss.rec.ArchivedAt != nil {
			return ss.view(now), nil
		}
		ss.rec.ArchivedAt, ss.rec.UpdatedAt = &now, now
		if ss.rec.Status != StatusTerminated {
			ss.turn = turn{}
			ss.rec.Status = StatusTerminated
			// Past the bounds too: a session must be able to end.
			ss.append(s, now, Event{"type": "session.status_terminated"})
		}
		return ss.view(now), nil
	})
}

// deleteSession removes the session; its open streams get session.deleted and end.
func deleteSession(s *core.Server, c *core.Call) (any, error) {
	if err := ownerOnly(c); err != nil {
		return nil, err
	}
	return withSession(s, c, func(a *Store, ss *session, _ time.Time) (any, error) {
		a.remove(ss)
		return map[string]string{"id": ss.rec.ID, "type": "session_deleted"}, nil
	})
}
