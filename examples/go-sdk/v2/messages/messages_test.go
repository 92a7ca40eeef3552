package messages

import (
	"context"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/platformkit/platformkit/fake"
)

// model is a model of the fake's fixtures; every call uses a real ID.
const model = "assistant-sonnet-4-5"

// betaStructuredOutputs is the beta under which output_format (the deprecated spelling of
// output_config.format) is still accepted.
const betaStructuredOutputs = "structured-outputs-2025-11-13"

// newClient points Go SDK v2 at a new in-process fake, configured as its README says: the base
// URL and the API key, nothing else. The SDK sends anthropic-version 2026-10-21 and the key as
// Authorization: Bearer by itself.
func newClient(t *testing.T) anthropic.Client {
	ts := fake.NewTestServer(t)
	return anthropic.NewClient(option.WithBaseURL(ts.URL), option.WithAPIKey(fake.DefaultAPIKey))
}

func userTurn(text string) []anthropic.MessageParam {
	return []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(text))}
}

func betaUserTurn(text string) []anthropic.BetaMessageParam {
	return []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock(text))}
}

// answerSchema is a structured-output schema in the supported subset: every object closed,
// the formats, enums, patterns, references and unions the grammar takes.
func answerSchema() map[string]any {
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"city", "unit", "days"},
		"properties": map[string]any{
			"city":  map[string]any{"type": "string", "description": "The city"},
			"unit":  map[string]any{"enum": []any{"celsius", "fahrenheit"}},
			"code":  map[string]any{"type": "string", "pattern": "^[A-Z]{3}-\\d{2}$"},
			"when":  map[string]any{"type": "string", "format": "date-time"},
			"days":  map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"$ref": "#/$defs/day"}},
			"notes": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}},
		},
		"$defs": map[string]any{
			"day": map[string]any{
				"type": "object", "additionalProperties": false, "required": []any{"high"},
				"properties": map[string]any{"high": map[string]any{"type": "integer"}, "sunny": map[string]any{"type": "boolean"}},
			},
		},
	}
}

// TestRequiredFieldsOnly calls every operation with only the fields the SDK requires.
func TestRequiredFieldsOnly(t *testing.T) {
	ctx, client := context.Background(), newClient(t)

	msg, err := client.Messages.New(ctx, anthropic.MessageNewParams{Model: model, MaxTokens: 32, Messages: userTurn("Hello")})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "messages.new", msg)
	if msg.JSON.Container.Raw() != "null" {
		t.Errorf("container: %s, want null without a container in the request", msg.JSON.Container.Raw())
	}

	stream := client.Messages.NewStreaming(ctx, anthropic.MessageNewParams{Model: model, MaxTokens: 32, Messages: userTurn("Hello")})
	acc := anthropic.Message{}
	for stream.Next() {
		ev := stream.Current()
		requireComplete(t, "messages.new stream event "+string(ev.Type), ev)
		if err := acc.Accumulate(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if acc.Content[0].Text != msg.Content[0].Text {
		t.Errorf("streamed text %q, want the same as unstreamed %q", acc.Content[0].Text, msg.Content[0].Text)
	}

	count, err := client.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: model, Messages: userTurn("Hello")})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "messages.count_tokens", count)

	bmsg, err := client.Beta.Messages.New(ctx, anthropic.BetaMessageNewParams{Model: model, MaxTokens: 32, Messages: betaUserTurn("Hello")})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "beta.messages.new", bmsg)
	bstream := client.Beta.Messages.NewStreaming(ctx, anthropic.BetaMessageNewParams{Model: model, MaxTokens: 32, Messages: betaUserTurn("Hello")})
	for bstream.Next() {
		requireComplete(t, "beta.messages.new stream event", bstream.Current())
	}
	if err := bstream.Err(); err != nil {
		t.Fatal(err)
	}
	bcount, err := client.Beta.Messages.CountTokens(ctx, anthropic.BetaMessageCountTokensParams{Model: model, Messages: betaUserTurn("Hello")})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "beta.messages.count_tokens", bcount)

	page, err := client.Models.List(ctx, anthropic.ModelListParams{})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "models.list", page)
	got, err := client.Models.Get(ctx, model, anthropic.ModelGetParams{})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "models.get", got)
	bpage, err := client.Beta.Models.List(ctx, anthropic.BetaModelListParams{})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "beta.models.list", bpage)
	bgot, err := client.Beta.Models.Get(ctx, model, anthropic.BetaModelGetParams{})
	if err != nil {
		t.Fatal(err)
	}
	requireComplete(t, "beta.models.get", bgot)
}
