// Package sessions is the area of managed-agent sessions: an agent (a version of it, snapshotted)
// running in an environment, its events, and the deterministic agent that answers them
// (sessions_agent.go). Creating a session in a self-hosted environment queues its work item, which
// a worker polls, and the worker reads the session and its events with the environment's key; a
// message to a session whose worker let go of it (its last item stopped) queues a new item.
//
// A data set's sessions are in sessions.json (sessions_fixtures.go), which snapshots write
// (sessions_snapshot.go): a loaded session answers as before, and one that waits for its calls
// continues when their results arrive.
package sessions

import "github.com/platformkit/platformkit/fake/internal/core"

// Area is the area of sessions and their events.
var Area = &core.Area{Routes: sessionRoutes, Load: loadSessions, Snapshot: sessionsSnapshot, Release: func(st *core.State) { release(st) }, Mounts: mounts}

var (
	sessionStores = core.NewStore[Store]()
	// budget bounds what the sessions of a server and all its namespaces keep together.
	budget = core.NewBudget(MaxBytesAll)
)

// sessionRoutes are the area's lines. Every route under a session's path takes the interface
// that admits an environment key (one interface per path, as clients look it up by path); the
// routes that change or end a session refuse that key themselves (ownerOnly).
func sessionRoutes() []*core.Route {
	return []*core.Route{
		core.Line(core.Post, "/v1/sessions", core.IfAgents, core.In{Body: "sessions/session_create"}, "sessions/session", createSession),
		core.Line(core.Get, "/v1/sessions", core.IfAgents, core.In{Query: qList}, "sessions/session_list", listSessions),
		core.Line(core.Get, "/v1/sessions/:session_id", core.IfSessionWorker, core.In{}, "sessions/session", getSession),
		core.Line(core.Post, "/v1/sessions/:session_id", core.IfSessionWorker, core.In{Body: "sessions/session_update"}, "sessions/session", updateSession),
		core.Line(core.Post, "/v1/sessions/:session_id/archive", core.IfSessionWorker, core.In{}, "sessions/session", archiveSession),
		core.Line(core.Del, "/v1/sessions/:session_id", core.IfSessionWorker, core.In{}, "sessions/session_deleted", deleteSession),
		core.Line(core.Post, "/v1/sessions/:session_id/events", core.IfSessionWorker, core.In{Body: "sessions/events_send"}, "sessions/events_sent", sendEvents),
		core.Line(core.Get, "/v1/sessions/:session_id/events", core.IfSessionWorker, core.In{Query: qEvents}, "sessions/event_list", listEvents),
		core.Line(core.Post, "/v1/sessions/:session_id/resources", core.IfAgents, core.In{Body: "sessions/resource_add"}, "sessions/resource", addFile),
		core.Line(core.Get, "/v1/sessions/:session_id/resources", core.IfAgents, core.In{Query: core.TokenParams(0, MaxResources)}, "sessions/resource_list", listResources),
		core.Line(core.Get, "/v1/sessions/:session_id/resources/:resource_id", core.IfAgents, core.In{}, "sessions/resource", getResource),
		core.Line(core.Post, "/v1/sessions/:session_id/resources/:resource_id", core.IfAgents, core.In{Body: "sessions/resource_update"}, "sessions/resource", updateResource),
		core.Line(core.Del, "/v1/sessions/:session_id/resources/:resource_id", core.IfAgents, core.In{}, "sessions/resource_deleted", deleteResource),
		core.Line(core.Get, "/v1/sessions/:session_id/events/stream", core.IfSessionWorker, core.In{Query: qStream, Events: "sessions/stream_event"}, "", streamEvents),
		core.Line(core.Get, "/v1/sessions/:session_id/threads", core.IfSessionWorker, core.In{Query: qThreads}, "sessions/thread_list", listThreads),
		core.Line(core.Get, "/v1/sessions/:session_id/threads/:thread_id", core.IfSessionWorker, core.In{}, "sessions/thread", getThread),
		core.Line(core.Post, "/v1/sessions/:session_id/threads/:thread_id/archive", core.IfSessionWorker, core.In{}, "sessions/thread", archiveThread),
		core.Line(core.Get, "/v1/sessions/:session_id/threads/:thread_id/events", core.IfSessionWorker, core.In{Query: qEvents}, "sessions/event_list", listThreadEvents),
		core.Line(core.Get, "/v1/sessions/:session_id/threads/:thread_id/stream", core.IfSessionWorker, core.In{Query: qStream, Events: "sessions/stream_event"}, "", streamThread),
	}
}

var (
	qList = core.Query(
		core.StrParam("agent_id", "Only the sessions of this agent."),
		core.IntParam("agent_version", 0, 1, 1<<30, "With agent_id: only the sessions of this version of it."),
		core.TimeParams("created_at"),
		core.StrParam("deployment_id", "Only the sessions of this deployment (the fake makes none)."),
		core.BoolParam("include_archived", false, "Include archived sessions."),
		core.StrParam("memory_store_id", "Only the sessions that mount this memory store."),
		core.EnumParam("order", "desc", "The order of created_at.", "asc", "desc"),
		core.ListParam("statuses", "Only the sessions in these statuses (statuses[]=idle&statuses[]=running)."),
		core.TokenParams(DefaultPage, MaxPage))
	qEvents = core.Query(
		core.TimeParams("created_at"),
		core.EnumParam("order", "asc", "The order of the events.", "asc", "desc"),
		core.ListParam("types", "Only the events of these types (types[]=agent.message)."),
		core.TokenParams(DefaultEventPage, MaxEventPage))
	qThreads = core.Query(core.ListParam("statuses", "Only the threads in these statuses."), core.TokenParams(1000, 1000))
	qStream  = core.ListParam("event_deltas", "Send previews of these events as they are made (agent.message, agent.thinking): event_start, event_delta, then the event.")
)
