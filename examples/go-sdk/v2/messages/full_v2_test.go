package messages

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
)

// The optional fields v1.44.1 did not have: the container as an object, speed and diagnostics
// outside the beta, and the beta's compaction, fallbacks, fallback credit token and thinking
// block binding. Its messages of role "system"
// (with clear_at and a per-message output_config) are left out: the Platform API has no system
// role, and the fake refuses them as the service does (TestSystemRoleRefused).

func addMessageFields(p *anthropic.MessageNewParams) {
	p.Container = anthropic.MessageCreateParamsContainerUnion{OfContainers: &anthropic.ContainerParams{
		ID:     anthropic.String("container_01example"),
		Skills: []anthropic.SkillParams{{SkillID: "xlsx", Type: anthropic.SkillParamsTypeAnthropic, Version: anthropic.String("latest")}},
	}}
	p.Speed = anthropic.MessageNewParamsSpeedStandard
	p.Diagnostics = anthropic.DiagnosticsParam{PreviousMessageID: param.Null[string]()}
}

func addBetaFields(p *anthropic.BetaMessageNewParams) {
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

// TestSystemRoleRefused shows the newest SDK's system-role message answered as the reference
// says: 400 naming the role, an error the SDK surfaces as such.
func TestSystemRoleRefused(t *testing.T) {
	client := newClient(t)
	_, err := client.Beta.Messages.New(context.Background(), anthropic.BetaMessageNewParams{
		Model: model, MaxTokens: 32,
		Messages: append([]anthropic.BetaMessageParam{{OfSystem: &anthropic.BetaSystemMessageParam{
			Content: []anthropic.BetaSystemMessageParamContentUnion{{OfText: &anthropic.BetaTextBlockParam{Text: "Answer in metric units."}}},
			ClearAt: anthropic.BetaSystemMessageParamClearAtNextUserMessage,
		}}}, betaUserTurn("Hello")...),
	})
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Error(), "messages.0.role") {
		t.Errorf("a system-role message: %v, want a 400 naming messages.0.role", err)
	}
}
