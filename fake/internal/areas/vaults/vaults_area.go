// Package vaults is the area of vaults and their credentials: the secrets a managed agent's
// sessions use to reach MCP servers and outside hosts (a session names its vaults in vault_ids).
// A credential's secret (a bearer token, an OAuth access or refresh token, an environment
// variable's value, a client secret) is write-only: no answer shows it.
//
// vaults.json holds vaults with their credentials, and a snapshot writes them, each secret a
// request gave masked (vaults_snapshot.go). Reset and a dropped namespace give their bytes back
// (Release).
package vaults

import "github.com/platformkit/platformkit/fake/internal/core"

// Area is the area of vaults and credentials.
var Area = &core.Area{Routes: vaultRoutes, Load: loadVaults, Snapshot: vaultsSnapshot, Release: func(st *core.State) { release(st) }}

var (
	// vaultsSection is the vaults of the fixtures, as loaded; build copies them.
	vaultsSection = core.NewSection[[]*vault]()
	vaultStores   = core.NewStore[Store]()
	// budget bounds what the vaults of a server and all its namespaces keep together.
	budget = core.NewBudget(MaxBytesAll)
)

func vaultRoutes() []*core.Route {
	const v, cr = "/v1/vaults/:vault_id", "/v1/vaults/:vault_id/credentials/:credential_id"
	page := core.In{Query: qList}
	return []*core.Route{
		core.Line(core.Post, "/v1/vaults", core.IfAgents, core.In{Body: "vaults/vault_create"}, "vaults/vault", createVault),
		core.Line(core.Get, "/v1/vaults", core.IfAgents, page, "vaults/vault_list", listVaults),
		core.Line(core.Get, v, core.IfAgents, core.In{}, "vaults/vault", getVault),
		core.Line(core.Post, v, core.IfAgents, core.In{Body: "vaults/vault_update"}, "vaults/vault", updateVault),
		core.Line(core.Del, v, core.IfAgents, core.In{}, "vaults/vault_deleted", deleteVault),
		core.Line(core.Post, v+"/archive", core.IfAgents, core.In{}, "vaults/vault", archiveVault),
		core.Line(core.Post, v+"/credentials", core.IfAgents, core.In{Body: "vaults/credential_create"}, "vaults/credential", createCredential),
		core.Line(core.Get, v+"/credentials", core.IfAgents, page, "vaults/credential_list", listCredentials),
		core.Line(core.Get, cr, core.IfAgents, core.In{}, "vaults/credential", getCredential),
		core.Line(core.Post, cr, core.IfAgents, core.In{Body: "vaults/credential_update"}, "vaults/credential", updateCredential),
		core.Line(core.Del, cr, core.IfAgents, core.In{}, "vaults/credential_deleted", deleteCredential),
		core.Line(core.Post, cr+"/archive", core.IfAgents, core.In{}, "vaults/credential", archiveCredential),
		core.Line(core.Post, cr+"/mcp_oauth_validate", core.IfAgents, core.In{}, "vaults/credential_validation", validateCredential),
	}
}

var qList = core.Query(core.BoolParam("include_archived", false, "Include archived ones."), core.TokenParams(DefaultPage, MaxPage))
