package platform

import (
	"context"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

func TestMemoryStores(t *testing.T) {
	ctx, c := context.Background(), apiClient(t)
	stores := c.Beta.MemoryStores
	full := answer(stores.New(ctx, anthropic.BetaMemoryStoreNewParams{
		Name: "sdk full", Description: anthropic.String("every optional field"), Metadata: map[string]string{"team": "sdk"}, Betas: managedAgents,
	})).ok(t, "memory_stores.new (all fields)")
	bare := answer(stores.New(ctx, anthropic.BetaMemoryStoreNewParams{Name: "sdk bare"})).ok(t, "memory_stores.new (required)")
	answer(stores.Get(ctx, supportStore, anthropic.BetaMemoryStoreGetParams{Betas: managedAgents})).ok(t, "memory_stores.get (all fields)")
	answer(stores.Get(ctx, bare.ID, anthropic.BetaMemoryStoreGetParams{})).ok(t, "memory_stores.get (required)")
	answer(stores.Update(ctx, full.ID, anthropic.BetaMemoryStoreUpdateParams{
		Description: anthropic.String("changed"), Name: anthropic.String("sdk full 2"), Metadata: map[string]string{"team": "platform"}, Betas: managedAgents,
	})).ok(t, "memory_stores.update (all fields)")
	answer(stores.Update(ctx, bare.ID, anthropic.BetaMemoryStoreUpdateParams{})).ok(t, "memory_stores.update (required)")
	page := answer(stores.List(ctx, anthropic.BetaMemoryStoreListParams{
		CreatedAtGte: anthropic.Time(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)), CreatedAtLte: anthropic.Time(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)),
		IncludeArchived: anthropic.Bool(true), Limit: anthropic.Int(1), Betas: managedAgents,
	})).ok(t, "memory_stores.list (all fields)")
	answer(stores.List(ctx, anthropic.BetaMemoryStoreListParams{Page: anthropic.String(page.NextPage)})).ok(t, "memory_stores.list (page)")
	answer(stores.List(ctx, anthropic.BetaMemoryStoreListParams{})).ok(t, "memory_stores.list (required)")

	mems := stores.Memories
	created := answer(mems.New(ctx, full.ID, anthropic.BetaMemoryStoreMemoryNewParams{
		Content: anthropic.String("# Notes\n"), Path: "/notes/sdk.md", View: anthropic.BetaManagedAgentsMemoryViewFull, Betas: managedAgents,
	})).ok(t, "memories.new (all fields)")
	plain := answer(mems.New(ctx, full.ID, anthropic.BetaMemoryStoreMemoryNewParams{Content: anthropic.String(""), Path: "/empty.md"})).ok(t, "memories.new (required)")
	answer(mems.Get(ctx, styleMemory, anthropic.BetaMemoryStoreMemoryGetParams{MemoryStoreID: supportStore, View: anthropic.BetaManagedAgentsMemoryViewBasic, Betas: managedAgents})).ok(t, "memories.get (all fields)")
	answer(mems.Get(ctx, created.ID, anthropic.BetaMemoryStoreMemoryGetParams{MemoryStoreID: full.ID})).ok(t, "memories.get (required)")
	answer(mems.Update(ctx, created.ID, anthropic.BetaMemoryStoreMemoryUpdateParams{
		MemoryStoreID: full.ID, Content: anthropic.String("# Notes, 2\n"), Path: anthropic.String("/notes/sdk-2.md"), View: anthropic.BetaManagedAgentsMemoryViewFull,
		Precondition: anthropic.BetaManagedAgentsPreconditionParam{ContentSha256: anthropic.String(created.ContentSha256)},
		Betas:        managedAgents,
	})).ok(t, "memories.update (all fields)")
	answer(mems.Update(ctx, plain.ID, anthropic.BetaMemoryStoreMemoryUpdateParams{MemoryStoreID: full.ID})).ok(t, "memories.update (required)")
	answer(mems.List(ctx, supportStore, memoryListAllFields())).ok(t, "memories.list (all fields)")
	answer(mems.List(ctx, supportStore, anthropic.BetaMemoryStoreMemoryListParams{})).ok(t, "memories.list (required)")

	versions := stores.MemoryVersions
	answer(versions.List(ctx, supportStore, anthropic.BetaMemoryStoreMemoryVersionListParams{
		APIKeyID: anthropic.String("apikey_01AcmeDefault00000000001"), CreatedAtGte: anthropic.Time(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)),
		CreatedAtLte: anthropic.Time(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)), Limit: anthropic.Int(5), MemoryID: anthropic.String(styleMemory),
		SessionID: anthropic.String("sesn_01"), Operation: anthropic.BetaManagedAgentsMemoryVersionOperationModified,
		View: anthropic.BetaManagedAgentsMemoryViewFull, Betas: managedAgents,
	})).ok(t, "memory_versions.list (all fields)")
	all := answer(versions.List(ctx, supportStore, anthropic.BetaMemoryStoreMemoryVersionListParams{})).ok(t, "memory_versions.list (required)")
	answer(versions.Get(ctx, styleVersion, anthropic.BetaMemoryStoreMemoryVersionGetParams{MemoryStoreID: supportStore, View: anthropic.BetaManagedAgentsMemoryViewFull, Betas: managedAgents})).ok(t, "memory_versions.get (all fields)")
	answer(versions.Get(ctx, all.Data[0].ID, anthropic.BetaMemoryStoreMemoryVersionGetParams{MemoryStoreID: supportStore})).ok(t, "memory_versions.get (required)")
	answer(versions.Redact(ctx, styleVersion, anthropic.BetaMemoryStoreMemoryVersionRedactParams{MemoryStoreID: supportStore, Betas: managedAgents})).ok(t, "memory_versions.redact (all fields)")
	answer(versions.Redact(ctx, all.Data[1].ID, anthropic.BetaMemoryStoreMemoryVersionRedactParams{MemoryStoreID: supportStore})).ok(t, "memory_versions.redact (required)")

	answer(mems.Delete(ctx, created.ID, anthropic.BetaMemoryStoreMemoryDeleteParams{MemoryStoreID: full.ID, Betas: managedAgents})).ok(t, "memories.delete (all fields)")
	answer(mems.Delete(ctx, plain.ID, anthropic.BetaMemoryStoreMemoryDeleteParams{MemoryStoreID: full.ID})).ok(t, "memories.delete (required)")
	answer(stores.Archive(ctx, full.ID, anthropic.BetaMemoryStoreArchiveParams{Betas: managedAgents})).ok(t, "memory_stores.archive (all fields)")
	answer(stores.Archive(ctx, bare.ID, anthropic.BetaMemoryStoreArchiveParams{})).ok(t, "memory_stores.archive (required)")
	answer(stores.Delete(ctx, full.ID, anthropic.BetaMemoryStoreDeleteParams{Betas: managedAgents})).ok(t, "memory_stores.delete (all fields)")
	answer(stores.Delete(ctx, bare.ID, anthropic.BetaMemoryStoreDeleteParams{})).ok(t, "memory_stores.delete (required)")
}
