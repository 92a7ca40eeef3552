package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/platformkit/platformkit/fake"
)

// TestDefaultRetryOfARateLimitIsFast: the official SDK, configured with the base URL and a key
// only (so with its default two retries), meets a rate limit's 429 asking for 60 s, and its
// retry goes through in well under a second of real time: the fake's retry-after scale (0.001)
// makes the SDK sleep 60 ms, and the retry moves the virtual clock by the true 60 s, which
// refills the workspace's one request a minute.
func TestDefaultRetryOfARateLimitIsFast(t *testing.T) {
	ts := fake.NewTestServer(t, fake.WithRateLimits(), fake.WithRetryAfterScale(0.001))
	limitResearchToOneRequestAMinute(t, ts)
	client := anthropic.NewClient(option.WithBaseURL(ts.URL), option.WithAPIKey("test-api-key-research"))
	params := anthropic.MessageNewParams{
		Model:     "assistant-opus-4-7",
		MaxTokens: 64,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello, fake."))},
	}
	ctx := context.Background()
	if _, err := client.Messages.New(ctx, params); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	msg, err := client.Messages.New(ctx, params) // the bucket is empty: a 429, then the SDK's retry
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if msg.ID != "msg_010000000000000000000002" {
		t.Errorf("the retry answered %s, want the second message", msg.ID)
	}
	if elapsed >= time.Second {
		t.Errorf("the retried call took %v of real time, want well under a second", elapsed)
	}
	if now, want := ts.Fake.Now(), time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC); !now.Equal(want) {
		t.Errorf("the virtual clock is at %v, want %v: the 60 s the 429 asked for", now, want)
	}
	var statuses []int
	for _, e := range ts.Fake.Journal() {
		if e.Path == "/v1/messages" {
			statuses = append(statuses, e.Status)
		}
	}
	if got, want := fmt.Sprint(statuses), "[200 429 200]"; got != want {
		t.Errorf("statuses of the message requests %s, want %s", got, want)
	}
}

// limitResearchToOneRequestAMinute sets the Research workspace's override of the opus group to
// one request a minute, through the admin API.
func limitResearchToOneRequestAMinute(t *testing.T, ts *fake.TestServer) {
	t.Helper()
	c := ts.Client()
	res, err := c.Get(ts.URL + "/v1/organizations/rate_limits?model=assistant-opus-4-7")
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	err = json.NewDecoder(res.Body).Decode(&page)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 {
		t.Fatalf("rate limits of assistant-opus-4-7: %d entries, want 1", len(page.Data))
	}
	res, err = c.Post(ts.URL+"/v1/organizations/workspaces/wrkspc_01AcmeResearch0000000001/rate_limits/"+page.Data[0].ID,
		"application/json", strings.NewReader(`{"limits":[{"type":"requests_per_minute","value":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("workspace rate-limit update: %s", res.Status)
	}
	res.Body.Close()
}
