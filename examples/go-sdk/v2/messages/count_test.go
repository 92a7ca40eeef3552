package messages

import "github.com/anthropics/anthropic-sdk-go/v2"

// countTools converts the tools of a create request to the count_tokens union.
func countTools(tools []anthropic.ToolUnionParam) []anthropic.MessageCountTokensToolUnionParam {
	out := make([]anthropic.MessageCountTokensToolUnionParam, len(tools))
	for i, t := range tools {
		out[i] = anthropic.MessageCountTokensToolUnionParam{OfTool: t.OfTool, OfWebSearchTool20250305: t.OfWebSearchTool20250305}
	}
	return out
}

// betaCountParams is the count_tokens request of a beta create request.
func betaCountParams(p anthropic.BetaMessageNewParams) anthropic.BetaMessageCountTokensParams {
	tools := make([]anthropic.BetaMessageCountTokensParamsToolUnion, len(p.Tools))
	for i, t := range p.Tools {
		tools[i] = anthropic.BetaMessageCountTokensParamsToolUnion{OfTool: t.OfTool}
	}
	c := anthropic.BetaMessageCountTokensParams{
		Model: p.Model, Messages: p.Messages, Speed: anthropic.BetaMessageCountTokensParamsSpeedFast,
		CacheControl: p.CacheControl, ContextManagement: p.ContextManagement, MCPServers: p.MCPServers,
		OutputConfig: p.OutputConfig, OutputFormat: p.OutputFormat,
		System:   anthropic.BetaMessageCountTokensParamsSystemUnion{OfBetaTextBlockArray: p.System},
		Thinking: p.Thinking, ToolChoice: p.ToolChoice, Tools: tools, Betas: p.Betas,
	}
	addBetaCountFields(&c)
	return c
}
