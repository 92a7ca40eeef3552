//go:build !sdknewest

package platform

import "github.com/anthropics/anthropic-sdk-go"

// memoryListAllFields sets every optional field of v1.44.1's memory list, which has order and
// order_by (the newest release dropped them).
func memoryListAllFields() anthropic.BetaMemoryStoreMemoryListParams {
	return anthropic.BetaMemoryStoreMemoryListParams{
		Depth: anthropic.Int(1), Limit: anthropic.Int(10), OrderBy: anthropic.String("path"), PathPrefix: anthropic.String("/"),
		Order: anthropic.BetaMemoryStoreMemoryListParamsOrderAsc, View: anthropic.BetaManagedAgentsMemoryViewBasic, Betas: managedAgents,
	}
}
