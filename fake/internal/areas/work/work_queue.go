package work

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Poll and the arrival of work (spec 4.8, 8; gaps §8; the control API).

// HeaderWorkerID names the polling worker (spec 4.8); it is not a credential.
const HeaderWorkerID = "Vendor-Worker-ID"

// pollWork hands out the oldest available item, or null. With block_ms it waits up to that long
// for work: it wakes when work is enqueued and when the virtual clock moves (which may reclaim an
// item or lapse a lease), and gives up when the client goes away. The store's lock is held only
// for each look at the queue, never while waiting.
func pollWork(s *core.Server, c *core.Call) (any, error) {
	blockMS, blocking, err := c.QueryInt("block_ms")
	if err != nil {
		return nil, err
	}
	reclaimMS, _, err := c.QueryInt("reclaim_older_than_ms")
	if err != nil {
		return nil, err
	}
	reclaim := time.Duration(reclaimMS) * time.Millisecond
	worker := strings.TrimSpace(c.DeclaredHeader(HeaderWorkerID))
	var deadline <-chan time.Time
	if blocking {
		t := time.NewTimer(time.Duration(blockMS) * time.Millisecond)
		defer t.Stop()
		deadline = t.C
	}
	for {
		// Taken before the look, so that a move of the clock during it is not missed.
		ticked := s.Clock.Changed()
		var arrived <-chan struct{}
		it, err := withEnv(s, c, func(st *Store, env *Environment, now time.Time) (any, error) {
			arrived = st.arrived
			return env.poll(now, worker, reclaim), nil
		})
		worker = "" // recorded once per poll request
		if err != nil || it != nil || !blocking {
			return it, err
		}
		select {
		case <-arrived:
		case <-ticked:
		case <-deadline:
			return nil, nil
		case <-c.Request.Context().Done():
			return nil, nil // the client is gone; nobody reads the answer
		}
	}
}

// poll takes the oldest available item, or nil. An item is available when it is queued and
// either no poll has handed it out or the last one did so at least reclaim ago (spec 4.8:
// polling reclaims unacknowledged items). The caller holds the store's lock.
func (env *Environment) poll(now time.Time, worker string, reclaim time.Duration) any {
	if worker != "" {
		env.workers[worker] = now
	}
	var best *QueueItem
	for _, it := range env.queue {
		if it.polledAt != nil && now.Sub(*it.polledAt) < reclaim {
			continue
		}
		if best == nil || core.OldestFirst(core.ListKey{At: it.queuedAt, ID: it.rec.ID}, core.ListKey{At: best.queuedAt, ID: best.rec.ID}) < 0 {
			best = it
		}
	}
	if best == nil {
		return nil
	}
	best.polledAt = &now
	return best.rec
}

// enqueueWork is POST /_fake/environments/{environment_id}/work.
func enqueueWork(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		SessionID string            `json:"session_id"`
		Metadata  map[string]string `json:"metadata"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	return Enqueue(s, c.Param("environment_id"), req.SessionID, req.Metadata)
}

// Enqueue is Server.EnqueueWork of the face (package fake).
func Enqueue(s *core.Server, environmentID, sessionID string, metadata map[string]string) (WorkItem, error) {
	doc, _ := json.Marshal(struct {
		SessionID string            `json:"session_id,omitempty"`
		Metadata  map[string]string `json:"metadata,omitempty"`
	}{sessionID, metadata})
	if err := core.ValidateBody("work/enqueue", doc); err != nil {
		return WorkItem{}, err
	}
	st := StoreOf(s.State())
	st.mu.Lock()
	defer st.mu.Unlock()
	env := st.envs[environmentID]
	if env == nil {
		return WorkItem{}, core.NotFound("environment", environmentID)
	}
	if env.rec.ArchivedAt != nil {
		return WorkItem{}, core.Invalid("environment %s is archived; work can no longer be queued in it", environmentID)
	}
	if sessionID == "" {
		sessionID = s.CtlIDs.Next("session_")
	}
	it := newWorkItem(s.CtlIDs.Next("work_"), environmentID, sessionID, metadata, s.Clock.Now())
	env.add(it)
	close(st.arrived)
	st.arrived = make(chan struct{})
	return it.rec, nil
}
