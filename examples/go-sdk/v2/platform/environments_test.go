package platform

import (
	"context"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/platformkit/platformkit/fake"
)

// Fixture IDs of the first organization (fixtures/environments.json, memory_stores.json).
const (
	primaryEnv   = fake.DefaultEnvironmentID
	queuedWork   = "work_01AcmeQueuedBuild00000001"
	supportStore = "memstore_01AcmeSupportAgent0000001"
	styleMemory  = "mem_01AcmeStyleGuide000000001"
	styleVersion = "memver_01AcmeSupport0001"
)

var managedAgents = []anthropic.AnthropicBeta{"managed-agents-2026-04-01"}

// apiClient is an SDK client of a fresh fake with the API key.
func apiClient(t *testing.T) anthropic.Client {
	return NewClient(fake.NewTestServer(t).URL, fake.DefaultAPIKey)
}

func TestEnvironments(t *testing.T) {
	ctx, c := context.Background(), apiClient(t)
	envs := c.Beta.Environments
	// Every optional field set.
	full := answer(envs.New(ctx, anthropic.BetaEnvironmentNewParams{
		Name:        "sdk full",
		Description: anthropic.String("every optional field"),
		Config: anthropic.BetaEnvironmentNewParamsConfigUnion{OfCloud: &anthropic.BetaCloudConfigParams{
			Networking: anthropic.BetaCloudConfigParamsNetworkingUnion{OfLimited: &anthropic.BetaLimitedNetworkParams{
				AllowMCPServers: anthropic.Bool(true), AllowPackageManagers: anthropic.Bool(false), AllowedHosts: []string{"example.com"}}},
			Packages: anthropic.BetaPackagesParams{Apt: []string{"git"}, Cargo: []string{"ripgrep"}, Gem: []string{"rake"}, Go: []string{"golang.org/x/tools/gopls@latest"},
				Npm: []string{"typescript"}, Pip: []string{"requests"}, Type: anthropic.BetaPackagesParamsTypePackages},
		}},
		Scope:    anthropic.BetaEnvironmentNewParamsScopeOrganization,
		Metadata: map[string]string{"team": "sdk"},
		Betas:    managedAgents,
	})).ok(t, "environments.new (all fields)")
	// Only the required ones.
	bare := answer(envs.New(ctx, anthropic.BetaEnvironmentNewParams{Name: "sdk bare"})).ok(t, "environments.new (required)")
	answer(envs.Get(ctx, primaryEnv, anthropic.BetaEnvironmentGetParams{Betas: managedAgents})).ok(t, "environments.get (all fields)")
	answer(envs.Get(ctx, full.ID, anthropic.BetaEnvironmentGetParams{})).ok(t, "environments.get (required)")
	answer(envs.Update(ctx, full.ID, anthropic.BetaEnvironmentUpdateParams{
		Description: anthropic.String("changed"), Name: anthropic.String("sdk full 2"),
		Config:   anthropic.BetaEnvironmentUpdateParamsConfigUnion{OfSelfHosted: &anthropic.BetaSelfHostedConfigParams{}},
		Scope:    anthropic.BetaEnvironmentUpdateParamsScopeAccount,
		Metadata: map[string]string{"team": "platform", "tier": "1"},
		Betas:    managedAgents,
	})).ok(t, "environments.update (all fields)")
	answer(envs.Update(ctx, bare.ID, anthropic.BetaEnvironmentUpdateParams{})).ok(t, "environments.update (required)")
	page := answer(envs.List(ctx, anthropic.BetaEnvironmentListParams{
		IncludeArchived: anthropic.Bool(true), Limit: anthropic.Int(1), Betas: managedAgents})).ok(t, "environments.list (all fields)")
	if page.NextPage == "" {
		t.Fatalf("environments.list limit=1: no next_page")
	}
	answer(envs.List(ctx, anthropic.BetaEnvironmentListParams{Page: anthropic.String(page.NextPage), Limit: anthropic.Int(1)})).ok(t, "environments.list (page)")
	answer(envs.List(ctx, anthropic.BetaEnvironmentListParams{})).ok(t, "environments.list (required)")
	answer(envs.Archive(ctx, full.ID, anthropic.BetaEnvironmentArchiveParams{Betas: managedAgents})).ok(t, "environments.archive (all fields)")
	answer(envs.Archive(ctx, bare.ID, anthropic.BetaEnvironmentArchiveParams{})).ok(t, "environments.archive (required)")
	answer(envs.Delete(ctx, full.ID, anthropic.BetaEnvironmentDeleteParams{Betas: managedAgents})).ok(t, "environments.delete (all fields)")
	answer(envs.Delete(ctx, bare.ID, anthropic.BetaEnvironmentDeleteParams{})).ok(t, "environments.delete (required)")
}

func TestWorkQueue(t *testing.T) {
	ctx, c := context.Background(), apiClient(t)
	work := c.Beta.Environments.Work
	answer(work.Stats(ctx, primaryEnv, anthropic.BetaEnvironmentWorkStatsParams{Betas: managedAgents})).ok(t, "work.stats (all fields)")
	answer(work.Stats(ctx, primaryEnv, anthropic.BetaEnvironmentWorkStatsParams{})).ok(t, "work.stats (required)")
	answer(work.List(ctx, primaryEnv, anthropic.BetaEnvironmentWorkListParams{Limit: anthropic.Int(2), Betas: managedAgents})).ok(t, "work.list (all fields)")
	answer(work.List(ctx, primaryEnv, anthropic.BetaEnvironmentWorkListParams{})).ok(t, "work.list (required)")
	answer(work.Get(ctx, queuedWork, anthropic.BetaEnvironmentWorkGetParams{EnvironmentID: primaryEnv, Betas: managedAgents})).ok(t, "work.get (all fields)")
	answer(work.Get(ctx, queuedWork, anthropic.BetaEnvironmentWorkGetParams{EnvironmentID: primaryEnv})).ok(t, "work.get (required)")
	updated := answer(work.Update(ctx, queuedWork, anthropic.BetaEnvironmentWorkUpdateParams{
		EnvironmentID:                   primaryEnv,
		BetaSelfHostedWorkUpdateRequest: anthropic.BetaSelfHostedWorkUpdateRequestParam{Metadata: map[string]string{"owner": "sdk"}},
		Betas:                           managedAgents,
	})).ok(t, "work.update (all fields)")
	if updated.Metadata["owner"] != "sdk" {
		t.Fatalf("work.update: metadata %v lacks the key set", updated.Metadata)
	}
	answer(work.Update(ctx, queuedWork, anthropic.BetaEnvironmentWorkUpdateParams{
		EnvironmentID: primaryEnv, BetaSelfHostedWorkUpdateRequest: anthropic.BetaSelfHostedWorkUpdateRequestParam{Metadata: map[string]string{}}})).ok(t, "work.update (required)")

	// The worker's loop: poll, ack, heartbeat, stop; with every optional field, then without.
	polled := answer(work.Poll(ctx, primaryEnv, anthropic.BetaEnvironmentWorkPollParams{
		BlockMs: anthropic.Int(10), ReclaimOlderThanMs: anthropic.Int(5000), AnthropicWorkerID: anthropic.String("sdk-worker"), Betas: managedAgents})).ok(t, "work.poll (all fields)")
	answer(work.Ack(ctx, polled.ID, anthropic.BetaEnvironmentWorkAckParams{EnvironmentID: primaryEnv, Betas: managedAgents})).ok(t, "work.ack (all fields)")
	beat := answer(work.Heartbeat(ctx, polled.ID, anthropic.BetaEnvironmentWorkHeartbeatParams{
		EnvironmentID: primaryEnv, DesiredTTLSeconds: anthropic.Int(30), ExpectedLastHeartbeat: anthropic.String("NO_HEARTBEAT"), Betas: managedAgents})).ok(t, "work.heartbeat (all fields)")
	answer(work.Heartbeat(ctx, polled.ID, anthropic.BetaEnvironmentWorkHeartbeatParams{
		EnvironmentID: primaryEnv, ExpectedLastHeartbeat: anthropic.String(beat.LastHeartbeat)})).ok(t, "work.heartbeat (again)")
	answer(work.Stop(ctx, polled.ID, anthropic.BetaEnvironmentWorkStopParams{
		EnvironmentID: primaryEnv, BetaSelfHostedWorkStopRequest: anthropic.BetaSelfHostedWorkStopRequestParam{Force: anthropic.Bool(true)}, Betas: managedAgents})).ok(t, "work.stop (all fields)")
	next := answer(work.Poll(ctx, primaryEnv, anthropic.BetaEnvironmentWorkPollParams{})).ok(t, "work.poll (required)")
	answer(work.Ack(ctx, next.ID, anthropic.BetaEnvironmentWorkAckParams{EnvironmentID: primaryEnv})).ok(t, "work.ack (required)")
	answer(work.Stop(ctx, next.ID, anthropic.BetaEnvironmentWorkStopParams{EnvironmentID: primaryEnv})).ok(t, "work.stop (required)")
}
