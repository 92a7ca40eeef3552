// Command go-sdk shows how to point the official Go SDK (github.com/anthropics/anthropic-sdk-go)
// at the platformkit fake: two client options, the base URL and the API key, and nothing else of the program changes.
//
//	go run .                                # starts a fake in-process
//	BASE_URL=http://127.0.0.1:4010 go run . # or uses a running one (make run)
//
// It creates a message, streams one, counts tokens and lists the models, and prints only what
// the fake makes deterministic, so that main_test.go can compare the output byte for byte.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/platformkit/platformkit/fake"
)

func main() {
	base := os.Getenv("BASE_URL")
	if base == "" {
		ts := httptest.NewServer(fake.New())
		defer ts.Close()
		base = ts.URL
	}
	if err := run(context.Background(), os.Stdout, newClient(base)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// newClient is the whole of the configuration, as the SDK's README has it: the fake's URL and its
// default API key. The SDK sends its own anthropic-version header (2023-06-01 for v1).
func newClient(base string) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(base), option.WithAPIKey(fake.DefaultAPIKey))
}

// run makes the calls and prints what they answered.
func run(ctx context.Context, w io.Writer, client anthropic.Client) error {
	params := anthropic.MessageNewParams{
		Model:     "assistant-sonnet-4-5",
		MaxTokens: 64,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello, fake."))},
	}
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		return fmt.Errorf("messages.new: %w", err)
	}
	fmt.Fprintf(w, "message %s (%s): %s\n", msg.ID, msg.StopReason, msg.Content[0].Text)
	fmt.Fprintf(w, "usage: %d in, %d out, tier %s, geo %s\n", msg.Usage.InputTokens, msg.Usage.OutputTokens, msg.Usage.ServiceTier, msg.Usage.InferenceGeo)

	stream := client.Messages.NewStreaming(ctx, params)
	var acc anthropic.Message
	for stream.Next() {
		if err := acc.Accumulate(stream.Current()); err != nil {
			return fmt.Errorf("accumulate: %w", err)
		}
	}
	if err := stream.Err(); err != nil {
		return fmt.Errorf("messages.new (stream): %w", err)
	}
	fmt.Fprintf(w, "streamed %s: the same text: %t\n", acc.ID, acc.Content[0].Text == msg.Content[0].Text)

	count, err := client.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: params.Model, Messages: params.Messages})
	if err != nil {
		return fmt.Errorf("messages.count_tokens: %w", err)
	}
	fmt.Fprintf(w, "count_tokens: %d, as usage says: %t\n", count.InputTokens, count.InputTokens == msg.Usage.InputTokens)

	models := client.Models.ListAutoPaging(ctx, anthropic.ModelListParams{Limit: anthropic.Int(2)})
	n := 0
	for models.Next() {
		if n++; n == 1 {
			fmt.Fprintf(w, "first model: %s\n", models.Current().ID)
		}
	}
	if err := models.Err(); err != nil {
		return fmt.Errorf("models.list: %w", err)
	}
	fmt.Fprintf(w, "models: %d, two a page\n", n)
	return nil
}
