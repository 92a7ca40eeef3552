package messages

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/toolrunner"
	"github.com/platformkit/platformkit/fake"
)

// TestToolRunnerOverThread runs v2's tool runner as its README shows it, which holds the
// conversation in a message thread (beta message-threads-2026-08-12): the first turn creates
// the thread with system and tools, the next ones continue it with only the tool results. A
// stub scripts three turns (two tool calls, then an answer). The same loop with DisableThread
// (the full history every turn) must get the same replies and the same usage: the fake answers
// a continued thread as if the whole conversation had been sent.
func TestToolRunnerOverThread(t *testing.T) {
	ts := fake.NewTestServer(t)
	client := anthropic.NewClient(option.WithBaseURL(ts.URL), option.WithAPIKey(fake.DefaultAPIKey))
	toolUse := func(id, city string) fake.Reply {
		return fake.Reply{Content: []map[string]any{{"type": "tool_use", "id": id, "name": "get_forecast", "input": map[string]any{"city": city}, "caller": map[string]any{"type": "direct"}}}}
	}
	if _, err := ts.Fake.AddStub(fake.Stub{
		Match: fake.StubMatch{ToolName: "get_forecast"},
		Times: 2, // the threaded loop, then the unthreaded one
		Replies: []fake.Reply{toolUse("toolu_forecast_1", "Lisbon"), toolUse("toolu_forecast_2", "Porto"),
			{Content: []map[string]any{{"type": "text", "text": "Clear and 21 degrees in Lisbon and Porto."}}}},
	}); err != nil {
		t.Fatal(err)
	}
	type forecastInput struct {
		City string `json:"city" jsonschema:"required"`
	}
	forecast, err := toolrunner.NewBetaToolFromJSONSchema("get_forecast", "Tomorrow's forecast of a city",
		func(_ context.Context, in forecastInput) (anthropic.BetaToolResultBlockParamContentUnion, error) {
			return anthropic.BetaToolResultBlockParamContentUnion{OfText: &anthropic.BetaTextBlockParam{Text: "21 degrees and clear in " + in.City}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	params := anthropic.BetaToolRunnerParams{BetaMessageNewParams: anthropic.BetaMessageNewParams{
		Model: model, MaxTokens: 1024,
		System:   []anthropic.BetaTextBlockParam{{Text: "You are a weather assistant."}},
		Messages: betaUserTurn("What is tomorrow's weather in Lisbon and in Porto?"),
	}}
	run := func(p anthropic.BetaToolRunnerParams) (replies []string) {
		ctx := context.Background()
		for msg, err := range client.Beta.Messages.NewToolRunner([]anthropic.BetaTool{forecast}, p).All(ctx) {
			if err != nil {
				t.Fatalf("tool runner (thread disabled: %t), turn %d: %v", p.DisableThread, len(replies)+1, err)
			}
			requireComplete(t, "tool runner turn", msg)
			replies = append(replies, fmt.Sprintf("%s %s usage %d/%d", msg.StopReason, msg.JSON.Content.Raw(), msg.Usage.InputTokens, msg.Usage.OutputTokens))
		}
		return replies
	}

	ts.Fake.ClearJournal()
	threaded := run(params)
	if len(threaded) != 3 {
		t.Fatalf("tool runner over a thread: %d turns, want 3 (two tool calls, then the answer):\n%q", len(threaded), threaded)
	}
	// What went over the wire: a create with system and tools, then continues with only the new
	// tool result, each from the reply before.
	type request struct {
		Thread   map[string]any    `json:"thread"`
		Messages []json.RawMessage `json:"messages"`
		System   json.RawMessage   `json:"system"`
		Tools    json.RawMessage   `json:"tools"`
	}
	var sent []request
	for _, e := range ts.Fake.Journal() {
		if e.Path != "/v1/messages" {
			continue
		}
		if e.Status != 200 {
			t.Errorf("%s %s answered %d: the runner's requests must all be taken", e.Method, e.Path, e.Status)
		}
		if got := e.Headers["anthropic-beta"]; got != "message-threads-2026-08-12" {
			t.Errorf("anthropic-beta %q, want the threads beta the SDK sends", got)
		}
		var r request
		if err := json.Unmarshal(e.Body, &r); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, r)
	}
	if len(sent) != 3 || !reflect.DeepEqual(sent[0].Thread, map[string]any{"type": "create"}) || sent[0].System == nil || sent[0].Tools == nil {
		t.Fatalf("the runner's requests: %+v, want three, the first a create with system and tools", sent)
	}
	for i, s := range sent[1:] {
		if s.Thread["type"] != "continue" || s.Thread["previous_message_id"] == nil || len(s.Messages) != 1 || s.System != nil || s.Tools != nil {
			t.Errorf("request %d: thread %v with %d messages, system %t, tools %t: want a continue from the last reply with only the tool result",
				i+2, s.Thread, len(s.Messages), s.System != nil, s.Tools != nil)
		}
	}

	params.DisableThread = true
	if unthreaded := run(params); !reflect.DeepEqual(threaded, unthreaded) {
		t.Errorf("the same loop over a thread and unthreaded differ:\nthreaded:   %q\nunthreaded: %q", threaded, unthreaded)
	}
}
