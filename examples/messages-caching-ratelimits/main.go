// Command messages-caching-ratelimits shows the two things every client of the Messages API must
// account for, on the fake's virtual clock:
//
//  1. what a request costs: a conversation with a long system prompt cached for an hour and the
//     conversation itself cached as it grows (the top-level cache_control), its usage turn by
//     turn: tokens written to the cache, read from it, and sent uncached; they always add up to
//     what count_tokens reports. Seven minutes of virtual time pass before the last turn, so the
//     five-minute entry of the conversation has expired and only the system prompt is read.
//  2. what happens when it sends too much: rate limits turned on, the Research workspace's
//     requests per minute lowered to 3 through the Admin API, then a burst of 5 requests. The
//     fourth and the fifth each meet a 429; the program waits the advised retry-after on the
//     virtual clock, and the same request goes through.
//
// It works in a namespace of its own, so it neither sees nor disturbs another test's state:
//
//	go run ./fake/cmd/platformfake &
//	go run ./examples/messages-caching-ratelimits -base-url http://127.0.0.1:4010
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
)

// The fixture credentials: a key of the default workspace, one of the Research workspace, and the
// organization's admin key.
const (
	apiKey            = "test-api-key"
	researchKey       = "test-api-key-research"
	adminKey          = "test-admin-key"
	researchWorkspace = "wrkspc_01AcmeResearch0000000001"
	model             = "assistant-sonnet-4-5"
)

func main() {
	baseURL := flag.String("base-url", "http://127.0.0.1:4010", "the fake's base address")
	namespace := flag.String("namespace", "caching-ratelimits-example", "the namespace to work in")
	flag.Parse()
	c := &client{hc: http.DefaultClient, base: strings.TrimSuffix(*baseURL, "/") + "/ns/" + *namespace}
	if err := run(c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(c *client, out io.Writer) error {
	// Start from a fresh namespace: its own clock at the epoch, empty cache, full buckets.
	if _, err := c.do(http.MethodPost, "/_fake/reset", "", nil, nil); err != nil {
		return err
	}
	if err := conversation(c, out); err != nil {
		return err
	}
	fmt.Fprintln(out)
	return burst(c, out)
}

// usage is the token accounting of an answer.
type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreation            struct {
		Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
		Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
}

type message struct {
	Content []json.RawMessage `json:"content"`
	Usage   usage             `json:"usage"`
}

// policy is a long, stable system prompt: the part of every request worth caching. It is past
// the 1,024-token minimum below which a breakpoint caches nothing.
func policy() string {
	var sb strings.Builder
	sb.WriteString("You are the support assistant of a bicycle shop. Follow these rules.\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&sb, "Rule %d: answer questions about order %d, its parts, its delivery and its warranty politely, in at most three sentences, and never promise a date the workshop has not confirmed.\n", i, 1000+i)
	}
	return sb.String()
}

var questions = []string{
	"Which tyres fit a gravel bike?",
	"How long does a wheel truing take?",
	"Can I return a helmet I have worn once?",
	"Do you ship saddles abroad?",
}

// conversation runs four turns and prints what each cost.
func conversation(c *client, out io.Writer) error {
	system := []map[string]any{{
		"type": "text", "text": policy(),
		"cache_control": map[string]string{"type": "ephemeral", "ttl": "1h"},
	}}
	var turns []map[string]any
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "turn\tclock\tcache read\twritten 1h\twritten 5m\tuncached\ttotal\tcount_tokens\t")
	for i, q := range questions {
		if i == len(questions)-1 {
			// The user thinks for seven minutes: the conversation's five-minute entry expires,
			// the system prompt's hour-long one does not.
			if _, err := c.do(http.MethodPost, "/_fake/clock/advance", "", map[string]any{"seconds": 420}, nil); err != nil {
				return err
			}
		}
		turns = append(turns, map[string]any{"role": "user", "content": q})
		prompt := map[string]any{
			"model": model, "system": system, "messages": turns,
			// Automatic caching: a breakpoint on the last block, moving forward as the
			// conversation grows, so that each turn reads what the one before wrote.
			"cache_control": map[string]string{"type": "ephemeral"},
		}
		// count_tokens takes the same prompt, without max_tokens, and never caches.
		var counted struct {
			InputTokens int `json:"input_tokens"`
		}
		if _, err := c.do(http.MethodPost, "/v1/messages/count_tokens", apiKey, prompt, &counted); err != nil {
			return err
		}
		prompt["max_tokens"] = 256
		var msg message
		if _, err := c.do(http.MethodPost, "/v1/messages", apiKey, prompt, &msg); err != nil {
			return err
		}
		var clock struct {
			Now string `json:"now"`
		}
		if _, err := c.do(http.MethodGet, "/_fake/clock", "", nil, &clock); err != nil {
			return err
		}
		u := msg.Usage
		total := u.CacheReadInputTokens + u.CacheCreationInputTokens + u.InputTokens
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", i+1, clock.Now[11:19], u.CacheReadInputTokens,
			u.CacheCreation.Ephemeral1h, u.CacheCreation.Ephemeral5m, u.InputTokens, total, counted.InputTokens)
		if total != counted.InputTokens {
			return fmt.Errorf("turn %d: usage adds up to %d input tokens, count_tokens says %d", i+1, total, counted.InputTokens)
		}
		turns = append(turns, map[string]any{"role": "assistant", "content": msg.Content})
	}
	return tw.Flush()
}

// burst lowers the Research workspace's request limit and sends more than it allows.
func burst(c *client, out io.Writer) error {
	if _, err := c.do(http.MethodPut, "/_fake/rate_limits", "", map[string]any{"enforce": true}, nil); err != nil {
		return err
	}
	// The organization's limits for the model's group, and the ID that names the group to a
	// workspace's overrides.
	var groups struct {
		Data []struct {
			ID     string `json:"id"`
			Limits []struct {
				Type  string `json:"type"`
				Value int    `json:"value"`
			} `json:"limits"`
		} `json:"data"`
	}
	if _, err := c.do(http.MethodGet, "/v1/organizations/rate_limits?model="+model, adminKey, nil, &groups); err != nil {
		return err
	}
	if len(groups.Data) != 1 {
		return fmt.Errorf("GET /v1/organizations/rate_limits?model=%s: %d groups, want 1", model, len(groups.Data))
	}
	override := map[string]any{"limits": []map[string]any{{"type": "requests_per_minute", "value": 3}}}
	if _, err := c.do(http.MethodPost, "/v1/organizations/workspaces/"+researchWorkspace+"/rate_limits/"+groups.Data[0].ID, adminKey, override, nil); err != nil {
		return err
	}
	fmt.Fprintf(out, "Research workspace: requests_per_minute lowered to 3 for %s\n", model)

	body := map[string]any{"model": model, "max_tokens": 64, "messages": []map[string]any{{"role": "user", "content": "Is the shop open on Sunday?"}}}
	for i := 1; i <= 5; i++ {
		h, err := c.do(http.MethodPost, "/v1/messages", researchKey, body, nil)
		var refused *statusError
		switch {
		case err == nil:
			fmt.Fprintf(out, "request %d: 200  requests remaining %s of %s, full again at %s\n", i,
				h.Get("anthropic-ratelimit-requests-remaining"), h.Get("anthropic-ratelimit-requests-limit"), h.Get("anthropic-ratelimit-requests-reset"))
			continue
		case !errors.As(err, &refused) || refused.status != http.StatusTooManyRequests:
			return err
		}
		wait := refused.header.Get("retry-after")
		fmt.Fprintf(out, "request %d: 429  %s\n", i, refused.message)
		fmt.Fprintf(out, "           retry-after: %s, requests remaining %s, full again at %s\n", wait,
			refused.header.Get("anthropic-ratelimit-requests-remaining"), refused.header.Get("anthropic-ratelimit-requests-reset"))
		// Honour retry-after on the virtual clock: no real time passes.
		var seconds int
		if _, err := fmt.Sscan(wait, &seconds); err != nil {
			return fmt.Errorf("retry-after %q: %v", wait, err)
		}
		if _, err := c.do(http.MethodPost, "/_fake/clock/advance", "", map[string]any{"seconds": seconds}, nil); err != nil {
			return err
		}
		h, err = c.do(http.MethodPost, "/v1/messages", researchKey, body, nil)
		if err != nil {
			return fmt.Errorf("request %d after waiting %s s: %w", i, wait, err)
		}
		fmt.Fprintf(out, "request %d: 200  after %s s: requests remaining %s\n", i, wait, h.Get("anthropic-ratelimit-requests-remaining"))
	}
	// The journal says which limit refused the request.
	var journal struct {
		Data []struct {
			Status    int    `json:"status"`
			RateLimit string `json:"rate_limit"`
		} `json:"data"`
	}
	if _, err := c.do(http.MethodGet, "/_fake/journal", "", nil, &journal); err != nil {
		return err
	}
	for _, e := range journal.Data {
		if e.Status == http.StatusTooManyRequests {
			fmt.Fprintf(out, "journal: 429 refused by %s\n", e.RateLimit)
		}
	}
	return nil
}

// client calls the fake in one namespace.
type client struct {
	hc   *http.Client
	base string
}

// statusError is an answer other than 2xx: its status, headers and the envelope's message.
type statusError struct {
	status  int
	header  http.Header
	message string
}

func (e *statusError) Error() string { return fmt.Sprintf("%d: %s", e.status, e.message) }

// do sends a JSON request (with the key, if any) and decodes a 2xx answer into v.
func (c *client) do(method, path, key string, body, v any) (http.Header, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if key != "" {
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("anthropic-version", "2023-06-01")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		var env struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &env)
		return resp.Header, &statusError{status: resp.StatusCode, header: resp.Header, message: env.Error.Message}
	}
	if v == nil {
		return resp.Header, nil
	}
	return resp.Header, json.Unmarshal(raw, v)
}
