package platform

import "github.com/anthropics/anthropic-sdk-go/v2"

// memoryListAllFields sets every optional field of v2's memory list.
func memoryListAllFields() anthropic.BetaMemoryStoreMemoryListParams {
	return anthropic.BetaMemoryStoreMemoryListParams{
		Depth: anthropic.Int(1), Limit: anthropic.Int(10), PathPrefix: anthropic.String("/"),
		WorkspaceID: anthropic.String(defaultWorkspace), View: anthropic.BetaManagedAgentsMemoryViewBasic, Betas: managedAgents,
	}
}
