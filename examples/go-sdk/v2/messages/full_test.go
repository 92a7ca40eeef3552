package messages

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

// Every optional field of Go SDK v2's request types, on the routes the fake serves; v2
// dropped temperature, top_k and top_p (refused at API version 2026-10-21) and Completions.

func fullMessageParams() anthropic.MessageNewParams {
	p := anthropic.MessageNewParams{
		Model:     model,
		MaxTokens: 2048,
		Messages: []anthropic.MessageParam{
			anthropic.NewUserMessage(anthropic.ContentBlockParamUnion{OfText: &anthropic.TextBlockParam{Text: "What is the weather in Oslo?", CacheControl: anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTLTTL1h}}}),
		},
		InferenceGeo: anthropic.String("us"),
		// Every breakpoint is 1h: a 1h one may not follow a 5m one, and the top-level one must
		// agree with the TTL of the last block's.
		CacheControl:  anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTLTTL1h},
		Metadata:      anthropic.MetadataParam{UserID: anthropic.String("3f2a9c1e-user")},
		OutputConfig:  anthropic.OutputConfigParam{Effort: anthropic.OutputConfigEffortHigh, Format: anthropic.JSONOutputFormatParam{Schema: answerSchema()}},
		ServiceTier:   anthropic.MessageNewParamsServiceTierAuto,
		StopSequences: []string{"\n\nHuman:"},
		System:        []anthropic.TextBlockParam{{Text: "You are a weather assistant.", CacheControl: anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTLTTL1h}}},
		Thinking: anthropic.ThinkingConfigParamUnion{OfEnabled: &anthropic.ThinkingConfigEnabledParam{
			BudgetTokens: 1024, Display: anthropic.ThinkingConfigEnabledDisplayOmitted}},
		ToolChoice: anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: anthropic.Bool(true)}},
		Tools: []anthropic.ToolUnionParam{
			{OfTool: &anthropic.ToolParam{
				Name:        "get_weather",
				Description: anthropic.String("Current weather of a city"),
				InputSchema: anthropic.ToolInputSchemaParam{
					Properties:  map[string]any{"city": map[string]any{"type": "string"}, "unit": map[string]any{"enum": []any{"celsius", "fahrenheit"}}},
					Required:    []string{"city"},
					ExtraFields: map[string]any{"additionalProperties": false},
				},
				Type:                anthropic.ToolTypeCustom,
				Strict:              anthropic.Bool(true),
				DeferLoading:        anthropic.Bool(false),
				EagerInputStreaming: anthropic.Bool(true),
				AllowedCallers:      []string{"direct", "code_execution_20250825"},
				CacheControl:        anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTLTTL1h},
				InputExamples:       []map[string]any{{"city": "Oslo", "unit": "celsius"}},
			}},
			{OfWebSearchTool20250305: &anthropic.WebSearchTool20250305Param{
				MaxUses:        anthropic.Int(3),
				AllowedDomains: []string{"example.com"},
				UserLocation:   anthropic.UserLocationParam{City: anthropic.String("Oslo"), Country: anthropic.String("NO"), Region: anthropic.String("Oslo"), Timezone: anthropic.String("Europe/Oslo")},
				CacheControl:   anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTLTTL1h},
			}},
		},
	}
	addMessageFields(&p)
	return p
}

func fullBetaParams(previous string) anthropic.BetaMessageNewParams {
	p := anthropic.BetaMessageNewParams{
		Model:     model,
		MaxTokens: 2048,
		Messages: []anthropic.BetaMessageParam{
			anthropic.NewBetaUserMessage(anthropic.BetaContentBlockParamUnion{OfText: &anthropic.BetaTextBlockParam{Text: "What is the weather in Oslo?", CacheControl: anthropic.NewBetaCacheControlEphemeralParam()}}),
		},
		InferenceGeo:  anthropic.String("eu"),
		UserProfileID: anthropic.String("uprof_01example"),
		BillingPolicy: anthropic.BetaBillingPolicyParam{BillTo: anthropic.BetaBillToSelf},
		Container: anthropic.BetaMessageNewParamsContainerUnion{OfContainers: &anthropic.BetaContainerParams{
			ID:     anthropic.String("container_01example"),
			Skills: []anthropic.BetaSkillParams{{SkillID: "pptx", Type: anthropic.BetaSkillParamsTypeAnthropic, Version: anthropic.String("latest")}},
		}},
		Speed:        anthropic.BetaMessageNewParamsSpeedFast,
		CacheControl: anthropic.BetaCacheControlEphemeralParam{TTL: anthropic.BetaCacheControlEphemeralTTLTTL5m},
		ContextManagement: anthropic.BetaContextManagementConfigParam{Edits: []anthropic.BetaContextManagementConfigEditUnionParam{
			{OfClearToolUses20250919: &anthropic.BetaClearToolUses20250919EditParam{
				ClearToolInputs: anthropic.BetaClearToolUses20250919EditClearToolInputsUnionParam{OfBool: anthropic.Bool(true)},
				ExcludeTools:    []string{"get_weather"},
				ClearAtLeast:    anthropic.BetaInputTokensClearAtLeastParam{Value: 1000},
				Keep:            anthropic.BetaToolUsesKeepParam{Value: 2},
				Trigger:         anthropic.BetaClearToolUses20250919EditTriggerUnionParam{OfInputTokens: &anthropic.BetaInputTokensTriggerParam{Value: 30000}},
			}},
			{OfClearThinking20251015: &anthropic.BetaClearThinking20251015EditParam{
				Keep: anthropic.BetaClearThinking20251015EditKeepUnionParam{OfThinkingTurns: &anthropic.BetaThinkingTurnsParam{Value: 1}},
			}},
			{OfCompact20260112: &anthropic.BetaCompact20260112EditParam{
				Instructions: anthropic.String("Keep the city names."), PauseAfterCompaction: anthropic.Bool(false),
				Trigger: anthropic.BetaInputTokensTriggerParam{Value: 100000},
			}},
		}},
		Diagnostics: anthropic.BetaDiagnosticsParam{PreviousMessageID: anthropic.String(previous)},
		MCPServers: []anthropic.BetaRequestMCPServerURLDefinitionParam{{
			Name: "weather", URL: "https://mcp.example.com/sse", AuthorizationToken: anthropic.String("token"),
			ToolConfiguration: anthropic.BetaRequestMCPServerToolConfigurationParam{Enabled: anthropic.Bool(true), AllowedTools: []string{"forecast"}},
		}},
		Metadata:      anthropic.BetaMetadataParam{UserID: anthropic.String("3f2a9c1e-user")},
		OutputConfig:  anthropic.BetaOutputConfigParam{Effort: anthropic.BetaOutputConfigEffortMedium, TaskBudget: anthropic.BetaTokenTaskBudgetParam{Total: 50000, Remaining: anthropic.Int(40000)}},
		OutputFormat:  anthropic.BetaJSONOutputFormatParam{Schema: answerSchema()},
		ServiceTier:   anthropic.BetaMessageNewParamsServiceTierStandardOnly,
		StopSequences: []string{"\n\nHuman:"},
		System:        []anthropic.BetaTextBlockParam{{Text: "You are a weather assistant."}},
		Thinking: anthropic.BetaThinkingConfigParamUnion{OfAdaptive: &anthropic.BetaThinkingConfigAdaptiveParam{
			Display: anthropic.BetaThinkingConfigAdaptiveDisplaySummarized}},
		ToolChoice: anthropic.BetaToolChoiceUnionParam{OfNone: &anthropic.BetaToolChoiceNoneParam{}},
		Tools: []anthropic.BetaToolUnionParam{{OfTool: &anthropic.BetaToolParam{
			Name:        "get_weather",
			Description: anthropic.String("Current weather of a city"),
			InputSchema: anthropic.BetaToolInputSchemaParam{
				Properties:  map[string]any{"city": map[string]any{"type": "string"}},
				Required:    []string{"city"},
				ExtraFields: map[string]any{"additionalProperties": false},
			},
			Type:                anthropic.BetaToolTypeCustom,
			Strict:              anthropic.Bool(true),
			DeferLoading:        anthropic.Bool(false),
			EagerInputStreaming: anthropic.Bool(true),
			AllowedCallers:      []string{"direct"},
			CacheControl:        anthropic.NewBetaCacheControlEphemeralParam(),
			InputExamples:       []map[string]any{{"city": "Oslo"}},
		}}},
		Betas: []anthropic.AnthropicBeta{betaStructuredOutputs, "context-management-2025-06-27", "mcp-client-2025-04-04", "thinking-token-count-2026-05-13"},
	}
	addBetaFields(&p)
	return p
}

// TestEveryOptionalField calls every operation with every optional field set to a valid value.
func TestEveryOptionalField(t *testing.T) {
	ctx, client := context.Background(), newClient(t)

	params := fullMessageParams()
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "messages.new", msg)
	if msg.Usage.InferenceGeo != "us" {
		t.Errorf("usage.inference_geo %q, want the request's us", msg.Usage.InferenceGeo)
	}
	if msg.Content[0].Type != "thinking" || msg.Content[0].Thinking != "" || msg.Content[0].Signature == "" {
		t.Errorf("thinking.display omitted: first block %s, want a thinking block with no text and a signature", msg.Content[0].RawJSON())
	}
	stream := client.Messages.NewStreaming(ctx, params)
	acc := anthropic.Message{}
	for stream.Next() {
		requireComplete(t, "messages.new stream event", stream.Current())
		if err := acc.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}

	count, err := client.Messages.CountTokens(ctx, countParams(params))
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "messages.count_tokens", count)

	bparams := fullBetaParams(msg.ID)
	bmsg, err := client.Beta.Messages.New(ctx, bparams)
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "beta.messages.new", bmsg)
	if bmsg.Container.ID != "container_01example" || bmsg.Usage.InferenceGeo != "eu" || bmsg.Usage.Speed != "fast" {
		t.Errorf("beta: container %s, usage %s: want the request's container, geo and speed", bmsg.JSON.Container.Raw(), bmsg.JSON.Usage.Raw())
	}
	if !bmsg.JSON.ContextManagement.Valid() {
		t.Errorf("beta: context_management %s, want the applied edits of the configured context management", bmsg.JSON.ContextManagement.Raw())
	}
	var text string
	for _, b := range bmsg.Content {
		if b.Type == "text" {
			text = b.Text
		}
	}
	var answer map[string]any
	if err := json.Unmarshal([]byte(text), &answer); err != nil || answer["city"] == nil {
		t.Errorf("beta output_format: text %q, want JSON of the schema (%v)", text, err)
	}
	bstream := client.Beta.Messages.NewStreaming(ctx, bparams)
	for bstream.Next() {
		requireComplete(t, "beta.messages.new stream event", bstream.Current())
	}
	if err := bstream.Err(); err != nil {
		t.Fatal(err)
	}
	bcount, err := client.Beta.Messages.CountTokens(ctx, betaCountParams(bparams))
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "beta.messages.count_tokens", bcount)

	first, err := client.Models.List(ctx, anthropic.ModelListParams{Limit: anthropic.Int(2)})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "models.list", first)
	after, err := client.Models.List(ctx, anthropic.ModelListParams{AfterID: anthropic.String(first.LastID), Limit: anthropic.Int(2)})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "models.list after_id", after)
	before, err := client.Models.List(ctx, anthropic.ModelListParams{BeforeID: anthropic.String(after.FirstID), Limit: anthropic.Int(2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Data) == 0 || before.Data[0].ID != first.Data[0].ID {
		t.Errorf("models.list before_id %s: want the first page again", after.FirstID)
	}
	got, err := client.Models.Get(ctx, model, anthropic.ModelGetParams{})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "models.get", got)
	bpage, err := client.Beta.Models.List(ctx, anthropic.BetaModelListParams{AfterID: anthropic.String(first.LastID), Limit: anthropic.Int(1), Betas: []anthropic.AnthropicBeta{"context-management-2025-06-27"}})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "beta.models.list", bpage)
	bgot, err := client.Beta.Models.Get(ctx, model, anthropic.BetaModelGetParams{Betas: []anthropic.AnthropicBeta{"context-management-2025-06-27"}})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "beta.models.get", bgot)
}

// countParams is the count_tokens request of a create request: the fields the SDK's count
// parameters share with it.
func countParams(p anthropic.MessageNewParams) anthropic.MessageCountTokensParams {
	return anthropic.MessageCountTokensParams{
		Model: p.Model, Messages: p.Messages, CacheControl: p.CacheControl, OutputConfig: p.OutputConfig,
		System:   anthropic.MessageCountTokensParamsSystemUnion{OfTextBlockArray: p.System},
		Thinking: p.Thinking, ToolChoice: p.ToolChoice, Tools: countTools(p.Tools),
	}
}
