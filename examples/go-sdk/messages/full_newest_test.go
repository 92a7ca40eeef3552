//go:build sdknewest

package messages

import (
	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
)

// The optional fields the newest release (go.newest.mod) adds or spells differently: the
// container as an object, speed and diagnostics outside the beta, system-role messages, and the
// beta's compaction, fallbacks, fallback credit token and thinking block binding.

func addMessageFields(p *anthropic.MessageNewParams) {
	p.Container = anthropic.MessageCreateParamsContainerUnion{OfContainers: &anthropic.ContainerParams{
		ID:     anthropic.String("container_01example"),
		Skills: []anthropic.SkillParams{{SkillID: "xlsx", Type: anthropic.SkillParamsTypeAnthropic, Version: anthropic.String("latest")}},
	}}
	p.Speed = anthropic.MessageNewParamsSpeedStandard
	p.Diagnostics = anthropic.DiagnosticsParam{PreviousMessageID: param.Null[string]()}
	p.Messages = append([]anthropic.MessageParam{{Role: anthropic.MessageParamRoleSystem, Content: []anthropic.ContentBlockParamUnion{anthropic.NewTextBlock("Answer in metric units.")}}}, p.Messages...)
}

func addBetaFields(p *anthropic.BetaMessageNewParams) {
	p.Messages = append([]anthropic.BetaMessageParam{{
		Role: anthropic.BetaMessageParamRoleSystem, Content: []anthropic.BetaContentBlockParamUnion{anthropic.NewBetaTextBlock("Answer in metric units.")},
		ClearAt: anthropic.BetaMessageParamClearAtNextUserMessage, OutputConfig: anthropic.BetaSystemMessageOutputConfigParam{Effort: anthropic.BetaSystemMessageOutputConfigEffortLow},
	}}, p.Messages...)
	p.Compaction = anthropic.BetaCompactionConfigUnionParam{OfSummarize: &anthropic.BetaSummarizeCompactionParam{Instructions: anthropic.String("Keep the city names.")}}
	p.Fallbacks = anthropic.BetaFallbacksParamUnion{OfBetaFallbackArray: []anthropic.BetaFallbackParam{{
		Model: "assistant-haiku-4-5", MaxTokens: anthropic.Int(1024), Speed: anthropic.BetaFallbackParamSpeedStandard,
		Thinking:     anthropic.BetaFallbackParamThinkingUnion{OfDisabled: &anthropic.BetaThinkingConfigDisabledParam{}},
		OutputConfig: anthropic.BetaOutputConfigParam{Effort: anthropic.BetaOutputConfigEffortLow},
	}}}
	p.FallbackCreditToken = anthropic.BetaMessageNewParamsFallbackCreditTokenUnion{OfFallbackCreditToken: &anthropic.BetaFallbackCreditTokenParam{Token: "fct_01example", Mode: anthropic.BetaFallbackCreditTokenParamModeBestEffort}}
	p.Thinking.OfAdaptive.BlockBinding = anthropic.BetaThinkingBlockBindingParam{PrefixMismatchBehavior: anthropic.BetaThinkingPrefixMismatchBehaviorDropBlock}
}

func addBetaCountFields(c *anthropic.BetaMessageCountTokensParams) {
	c.Compaction = anthropic.BetaCompactionConfigUnionParam{OfSummarize: &anthropic.BetaSummarizeCompactionParam{Instructions: anthropic.String("Keep the city names.")}}
}
