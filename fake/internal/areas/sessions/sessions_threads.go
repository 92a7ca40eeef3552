package sessions

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// A session's threads. The fake's agent is single-threaded (it takes no multiagent roster), so
// every session has one thread, its primary: created with the session, in the session's status,
// carrying the session's events. Its ID is the session's with the thread prefix, so that it needs
// no bookkeeping of its own.

// Thread is a session thread as the API answers it.
type Thread struct {
	ID             string          `json:"id"`
	Type           string          `json:"type"`
	SessionID      string          `json:"session_id"`
	ParentThreadID *string         `json:"parent_thread_id"`
	Agent          json.RawMessage `json:"agent"`
	Status         string          `json:"status"`
	ArchivedAt     *time.Time      `json:"archived_at"`
	CreatedAt      time.Time       `json:"created_at"`
	UpdatedAt      time.Time       `json:"updated_at"`
	Stats          *Stats          `json:"stats"`
	Usage          *Usage          `json:"usage"`
	WorkflowRunID  *string         `json:"workflow_run_id"`
}

// primaryID is the ID of a session's primary thread.
func primaryID(sessionID string) string { return "sthr_" + sessionID[len("sesn_"):] }

// primary is the session's primary thread as answered now; its usage is null until the thread's
// first idle, as the SDK type says.
func (ss *session) primary(now time.Time) Thread {
	v := ss.view(now)
	t := Thread{ID: primaryID(v.ID), Type: "session_thread", SessionID: v.ID, Agent: v.Agent, Status: v.Status,
		ArchivedAt: v.ArchivedAt, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, Stats: &v.Stats}
	if ss.idled() {
		t.Usage = &v.Usage
	}
	return t
}

// idled reports whether the session's shown events include a session.status_idle. The log only
// grows, so each event is looked at once, by the first read after it is shown.
func (ss *session) idled() bool {
	for ; !ss.idles.seen && ss.idles.scanned < len(ss.events); ss.idles.scanned++ {
		ss.idles.seen = ss.events[ss.idles.scanned].ev["type"] == "session.status_idle"
	}
	return ss.idles.seen
}

// checkThread answers 404 unless the thread of the path is its session's primary; it shows no
// held events (a stream of the thread must still carry them).
func checkThread(s *core.Server, c *core.Call) error {
	_, err := withHeld(s, c, func(_ *Store, ss *session, _ time.Time) (any, error) {
		if id := c.Param("thread_id"); id != primaryID(ss.rec.ID) {
			return nil, core.NotFound("session thread", id)
		}
		return nil, nil
	})
	return err
}

// listThreads lists the session's threads: its primary, when no statuses[] leaves it out (a
// page of one, which any limit holds).
func listThreads(s *core.Server, c *core.Call) (any, error) {
	statuses := c.QueryStrings("statuses")
	if _, err := c.ListQuery("session_threads", false); err != nil {
		return nil, err
	}
	return withSession(s, c, func(_ *Store, ss *session, now time.Time) (any, error) {
		out := core.TokenPage[Thread]{Data: []Thread{}}
		if t := ss.primary(now); len(statuses) == 0 || slices.Contains(statuses, t.Status) {
			out.Data = append(out.Data, t)
		}
		return out, nil
	})
}

func getThread(s *core.Server, c *core.Call) (any, error) {
	if err := checkThread(s, c); err != nil {
		return nil, err
	}
	return withSession(s, c, func(_ *Store, ss *session, now time.Time) (any, error) { return ss.primary(now), nil })
}

// archiveThread archives a thread. The fake's sessions have only their primary thread, which
// lives and is archived with its session: archiving it answers it once the session is archived
// (a retry changes nothing), and is refused while the session is not, naming the route that
// archives both.
func archiveThread(s *core.Server, c *core.Call) (any, error) {
	if err := ownerOnly(c); err != nil {
		return nil, err
	}
	if err := checkThread(s, c); err != nil {
		return nil, err
	}
	return withSession(s, c, func(_ *Store, ss *session, now time.Time) (any, error) {
		if ss.rec.ArchivedAt == nil {
			return nil, core.InvalidField("thread_id", "%s is the primary thread of session %s, archived with its session: POST /v1/sessions/%s/archive", c.Param("thread_id"), ss.rec.ID, ss.rec.ID)
		}
		return ss.primary(now), nil
	})
}

// listThreadEvents lists the primary thread's events: the session's.
func listThreadEvents(s *core.Server, c *core.Call) (any, error) {
	if err := checkThread(s, c); err != nil {
		return nil, err
	}
	return listEvents(s, c)
}

// streamThread streams the primary thread's events: the session's.
func streamThread(s *core.Server, c *core.Call) (any, error) {
	if err := checkThread(s, c); err != nil {
		return nil, err
	}
	return streamEvents(s, c)
}
