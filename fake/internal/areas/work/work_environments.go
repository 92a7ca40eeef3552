package work

import (
	"reflect"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Environments (gaps §8): create, list, retrieve, update, archive, delete. They take only the
// API key (ifEnvironments); an environment key reaches its own environment's work endpoints only.

func envKey(e *Environment) core.ListKey { return core.ListKey{At: e.rec.CreatedAt, ID: e.rec.ID} }

func createEnvironment(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		Name        string            `json:"name"`
		Description string            `json:"description"`
		Metadata    map[string]string `json:"metadata"`
		Config      map[string]any    `json:"config"`
		Scope       string            `json:"scope"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	st := work(s, c)
	now := s.Clock.Now()
	env := newEnvironment(EnvRecord{
		ID: s.IDs.Next("env_"), Name: req.Name, Description: req.Description, Metadata: req.Metadata,
		Config: req.Config, Scope: req.Scope, CreatedAt: now, UpdatedAt: now,
	}, c.Org)
	rec := env.rec // read before the environment is visible to other requests
	st.mu.Lock()
	st.add(env)
	st.mu.Unlock()
	return rec, nil
}

// listEnvironments lists the organization's environments newest first, with page tokens;
// archived ones only with include_archived=true.
func listEnvironments(s *core.Server, c *core.Call) (any, error) {
	q, err := c.ListQuery("environments", true)
	if err != nil {
		return nil, err
	}
	st := work(s, c)
	st.mu.Lock()
	defer st.mu.Unlock()
	return core.EncodedTokenPage(core.PageNewestKept(st.byOrg[c.Org], func(e *Environment) bool { return q.Archived || e.rec.ArchivedAt == nil },
		envKey, "environments", q.After, q.Limit), (*Environment).json)
}

func getEnvironment(s *core.Server, c *core.Call) (any, error) {
	return withEnv(s, c, func(_ *Store, env *Environment, _ time.Time) (any, error) { return env.rec, nil })
}

// updateEnvironment changes the fields given; metadata is a patch (a string upserts, null
// deletes). A request that changes nothing leaves updated_at alone. An archived environment is
// read-only.
func updateEnvironment(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		Name        *string            `json:"name"`
		Description *string            `json:"description"`
		Metadata    map[string]*string `json:"metadata"`
		Config      map[string]any     `json:"config"`
		Scope       *string            `json:"scope"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	return withEnv(s, c, func(_ *Store, env *Environment, now time.Time) (any, error) {
		if env.rec.ArchivedAt != nil {
			return nil, core.Invalid("environment %s is archived; an archived environment cannot be changed", env.rec.ID)
		}
		next := env.rec
		if req.Name != nil {
			next.Name = *req.Name
		}
		if req.Description != nil {
			next.Description = *req.Description
		}
		if req.Scope != nil {
			next.Scope = *req.Scope
		}
		if req.Config != nil {
			next.Config = completeConfig(req.Config)
		}
		if req.Metadata != nil {
			md, err := core.PatchMetadata(env.rec.Metadata, req.Metadata, "metadata", "an environment")
			if err != nil {
				return nil, err
			}
			next.Metadata = md
		}
		if !reflect.DeepEqual(next, env.rec) {
			next.UpdatedAt = now
			env.set(next)
		}
		return env.rec, nil
	})
}

// archiveEnvironment sets archived_at; archiving again returns the record unchanged. An archived
// environment takes no new work, but its workers can finish what they hold.
func archiveEnvironment(s *core.Server, c *core.Call) (any, error) {
	return withEnv(s, c, func(_ *Store, env *Environment, now time.Time) (any, error) {
		if env.rec.ArchivedAt == nil {
			next := env.rec
			next.ArchivedAt, next.UpdatedAt = &now, now
			env.set(next)
		}
		return env.rec, nil
	})
}

// deleteEnvironment removes the environment and its work items.
func deleteEnvironment(s *core.Server, c *core.Call) (any, error) {
	return withEnv(s, c, func(st *Store, env *Environment, _ time.Time) (any, error) {
		st.remove(env)
		return map[string]string{"id": env.rec.ID, "type": "environment_deleted"}, nil
	})
}
