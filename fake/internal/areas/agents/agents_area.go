// Package agents is the area of managed agents: versioned agent configurations (model, system
// prompt, tools, MCP servers, skills) that sessions run.
package agents

import "github.com/platformkit/platformkit/fake/internal/core"

// Area is the area of agents: agents.json holds them, every version with it, and a snapshot
// writes them (agents_snapshot.go).
var Area = &core.Area{Routes: agentRoutes, Load: loadAgents, Snapshot: agentsSnapshot, Release: func(st *core.State) { release(st) }}

var (
	// agentsSection is the agents of the fixtures, as loaded; build copies them.
	agentsSection = core.NewSection[[]*entry]()
	agentStores   = core.NewStore[Store]()
	// budget bounds what the agents of a server and all its namespaces keep together.
	budget = core.NewBudget(MaxBytesAll)
)

func agentRoutes() []*core.Route {
	return []*core.Route{
		core.Line(core.Post, "/v1/agents", core.IfAgents, core.In{Body: "agents/agent_create"}, "agents/agent", createAgent),
		core.Line(core.Get, "/v1/agents", core.IfAgents, core.In{Query: qList}, "agents/agent_list", listAgents),
		core.Line(core.Get, "/v1/agents/:agent_id", core.IfAgents, core.In{Query: qVersion}, "agents/agent", getAgent),
		core.Line(core.Post, "/v1/agents/:agent_id", core.IfAgents, core.In{Body: "agents/agent_update"}, "agents/agent", updateAgent),
		core.Line(core.Post, "/v1/agents/:agent_id/archive", core.IfAgents, core.In{}, "agents/agent", archiveAgent),
		core.Line(core.Get, "/v1/agents/:agent_id/versions", core.IfAgents, core.In{Query: core.TokenParams(DefaultPage, MaxPage)}, "agents/agent_list", listVersions),
	}
}

var (
	qList = core.Query(core.TimeParams("created_at", "gte", "lte"),
		core.BoolParam("include_archived", false, "Include archived agents."),
		core.TokenParams(DefaultPage, MaxPage))
	qVersion = core.IntParam("version", 0, 1, 1<<30, "The version to read; without it, the latest.")
)
