package messages

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/platformkit/platformkit/fake"
)

// TestBatchResults is the SDK's batch flow, unmodified: create a batch of 100 requests, one of
// which the Messages rules refuse (a user_id that is an email address), poll Get while the
// fake's clock moves (100 ms a request), then read the results through the SDK's own JSONL
// decoder (ResultsStreaming): every line decodes into MessageBatchIndividualResponse,
// request_counts agree with the lines, and the errored line carries the error the same request
// gets sent alone.
func TestBatchResults(t *testing.T) {
	ts := fake.NewTestServer(t)
	c := anthropic.NewClient(option.WithBaseURL(ts.URL), option.WithAPIKey(fake.DefaultAPIKey))
	ctx := context.Background()
	refused := anthropic.MessageBatchNewParamsRequestParams{Model: model, MaxTokens: 64, Messages: userTurn("Hello"),
		Metadata: anthropic.MetadataParam{UserID: anthropic.String("someone@example.com")}}
	var reqs []anthropic.MessageBatchNewParamsRequest
	for i := range 99 {
		reqs = append(reqs, anthropic.MessageBatchNewParamsRequest{CustomID: fmt.Sprintf("req-%d", i),
			Params: anthropic.MessageBatchNewParamsRequestParams{Model: model, MaxTokens: 64, Messages: userTurn(fmt.Sprintf("Hello number %d", i))}})
	}
	reqs = append(reqs, anthropic.MessageBatchNewParamsRequest{CustomID: "refused", Params: refused})

	batch, err := c.Messages.Batches.New(ctx, anthropic.MessageBatchNewParams{Requests: reqs})
	if err != nil {
		t.Fatalf("batches.new: %v", err)
	}
	if !strings.HasPrefix(batch.ID, "msgbatch_") || batch.ProcessingStatus != anthropic.MessageBatchProcessingStatusInProgress || batch.RequestCounts.Processing != 100 || batch.ResultsURL != "" {
		t.Fatalf("batches.new: %s", batch.RawJSON())
	}
	polls := 0
	for batch.ProcessingStatus != anthropic.MessageBatchProcessingStatusEnded {
		if polls++; polls > 10 {
			t.Fatalf("not ended after %d polls: %s", polls, batch.RawJSON())
		}
		ts.Fake.AdvanceClock(5 * time.Second)
		if batch, err = c.Messages.Batches.Get(ctx, batch.ID, anthropic.MessageBatchGetParams{}); err != nil {
			t.Fatalf("batches.get: %v", err)
		}
	}
	if polls != 2 { // 100 requests at 100 ms each end 10 s after creation
		t.Errorf("ended after %d polls of 5 s, want 2", polls)
	}
	rc := batch.RequestCounts
	if got := [5]int64{rc.Processing, rc.Succeeded, rc.Errored, rc.Canceled, rc.Expired}; got != [5]int64{0, 99, 1, 0, 0} {
		t.Errorf("request_counts (processing, succeeded, errored, canceled, expired): %v, want [0 99 1 0 0]", got)
	}

	stream := c.Messages.Batches.ResultsStreaming(ctx, batch.ID, anthropic.MessageBatchResultsParams{})
	var lines []anthropic.MessageBatchIndividualResponse
	for stream.Next() {
		lines = append(lines, stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("batches.results: %v", err)
	}
	counted := map[string]int64{}
	for i, l := range lines {
		counted[l.Result.Type]++
		if i < 99 && (l.CustomID != reqs[i].CustomID || l.Result.Type != "succeeded" || l.Result.Message.Content[0].Text == "") {
			t.Errorf("line %d: %s", i, l.RawJSON())
		}
	}
	if len(lines) != 100 || counted["succeeded"] != rc.Succeeded || counted["errored"] != rc.Errored {
		t.Errorf("%d lines counted %v; request_counts %s", len(lines), counted, rc.RawJSON())
	}
	errored := lines[len(lines)-1]
	_, aloneErr := c.Messages.New(ctx, anthropic.MessageNewParams{Model: refused.Model, MaxTokens: refused.MaxTokens, Messages: refused.Messages, Metadata: refused.Metadata})
	var alone *anthropic.Error
	if !errors.As(aloneErr, &alone) || alone.StatusCode != http.StatusBadRequest {
		t.Fatalf("the refused request sent alone: %v, want a 400", aloneErr)
	}
	got := errored.Result.Error.Error
	if errored.CustomID != "refused" || errored.Result.Type != "errored" || got.Type != "invalid_request_error" || !strings.Contains(alone.RawJSON(), fmt.Sprintf("%q", got.Message)) {
		t.Errorf("the errored line %s, want the error of the request sent alone %s", errored.RawJSON(), alone.RawJSON())
	}

	if _, err := c.Messages.Batches.Delete(ctx, batch.ID, anthropic.MessageBatchDeleteParams{}); err != nil {
		t.Errorf("batches.delete: %v", err)
	}
}

// TestFileIDInMessages uploads a text file with the SDK and names it by file_id in a document
// block: the request is answered, and the file's text counts as input, as it would sent
// inline; once the file is deleted, the same request is a 404 naming the block's file_id.
func TestFileIDInMessages(t *testing.T) {
	c, ctx := newClient(t), context.Background()
	text := strings.Repeat("The quarterly report says revenue grew by four percent. ", 20)
	up, err := c.Files.Upload(ctx, anthropic.FileUploadParams{File: anthropic.File(strings.NewReader(text), "notes.txt", "text/plain")})
	if err != nil {
		t.Fatalf("files.upload: %v", err)
	}
	ask := func(blocks ...anthropic.ContentBlockParamUnion) (*anthropic.Message, error) {
		return c.Messages.New(ctx, anthropic.MessageNewParams{Model: model, MaxTokens: 64,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(append(blocks, anthropic.NewTextBlock("What does it say?"))...)}})
	}
	byID, err := ask(anthropic.NewDocumentBlock(anthropic.FileDocumentSourceParam{FileID: up.ID}))
	if err != nil {
		t.Fatalf("messages.new with file_id: %v", err)
	}
	inline, err := ask(anthropic.NewDocumentBlock(anthropic.PlainTextSourceParam{Data: text}))
	if err != nil {
		t.Fatalf("messages.new inline: %v", err)
	}
	if byID.Usage.InputTokens != inline.Usage.InputTokens || byID.Usage.InputTokens < 200 {
		t.Errorf("input tokens by file_id %d, inline %d: want the same, the file's text counted", byID.Usage.InputTokens, inline.Usage.InputTokens)
	}
	if _, err := c.Files.Delete(ctx, up.ID, anthropic.FileDeleteParams{}); err != nil {
		t.Fatalf("files.delete: %v", err)
	}
	_, err = ask(anthropic.NewDocumentBlock(anthropic.FileDocumentSourceParam{FileID: up.ID}))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound || !strings.Contains(apiErr.RawJSON(), "messages.0.content.0.source.file_id") {
		t.Errorf("messages.new naming a deleted file: %v, want 404 naming messages.0.content.0.source.file_id", err)
	}
}
