package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// endpoint is one kind of request of the load.
type endpoint struct {
	name   string
	method string
	target string            // path and query
	header map[string]string // credential, version and beta: the bare handler checks each
	body   []byte
	stream bool // a server-sent event stream: also time to first event and events per second
}

func headers(kv ...string) map[string]string {
	h := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return h
}

var (
	apiKey   = headers("X-Api-Key", "test-api-key", "Vendor-Version", "2023-06-01")
	adminKey = headers("X-Api-Key", "test-admin-key", "Vendor-Version", "2023-06-01")
	// sdkKey is apiKey as the official SDKs send it: the version in the maker's header, so the
	// fake answers in the maker's words (claude-* model names).
	sdkKey     = headers("X-Api-Key", "test-api-key", makerVersion, "2023-06-01")
	compliance = headers("Authorization", "Bearer test-compliance-key")
	tunnels    = headers("Authorization", "Bearer test-bearer-token", "Vendor-Version", "2023-06-01", "Vendor-Beta", "mcp-tunnels-2026-05-19")
)

// makerVersion is the maker's version header, which the official SDKs send.
const makerVersion = "Anthropic-Version"

const grace = "user_01AcmeGraceDeveloper00001" // the compliance user with 260 chats

// endpoints is the load: the baseline of the control API, single resources, a list page of each
// area, a create, a message and a long streamed message, and a file download. Creates come after
// the lists, so that the pages recorded for the bare handler are those the fake serves.
var endpoints = []endpoint{
	{name: "GET /_fake/health", method: http.MethodGet, target: "/_fake/health"},
	{name: "GET /v1/models/{id}", method: http.MethodGet, target: "/v1/models/assistant-opus-4-5", header: apiKey},
	{name: "GET /v1/memory_stores/{id}", method: http.MethodGet, target: "/v1/memory_stores/memstore_01AcmeResearchNotes00001", header: apiKey},
	{name: "GET /v1/organizations/users/{id}", method: http.MethodGet, target: "/v1/organizations/users/" + grace, header: adminKey},
	{name: "list: models", method: http.MethodGet, target: "/v1/models?limit=20", header: apiKey},
	{name: "list: models, as the SDKs ask", method: http.MethodGet, target: "/v1/models?limit=20", header: sdkKey},
	{name: "list: admin users", method: http.MethodGet, target: "/v1/organizations/users?limit=20", header: adminKey},
	{name: "list: admin invites", method: http.MethodGet, target: "/v1/organizations/invites?limit=20", header: adminKey},
	{name: "list: admin workspaces", method: http.MethodGet, target: "/v1/organizations/workspaces?limit=20", header: adminKey},
	{name: "list: tunnels", method: http.MethodGet, target: "/v1/organizations/tunnels?limit=20", header: tunnels},
	{name: "list: environments", method: http.MethodGet, target: "/v1/environments?limit=20", header: apiKey},
	{name: "list: compliance chats", method: http.MethodGet, target: "/v1/compliance/apps/chats?limit=20&user_ids=" + grace, header: compliance},
	{name: "list: memory stores", method: http.MethodGet, target: "/v1/memory_stores?limit=20", header: apiKey},
	{name: "list: files", method: http.MethodGet, target: "/v1/files?limit=20", header: apiKey},
	{name: "GET /v1/agents/{id}", method: http.MethodGet, target: "/v1/agents/{agent}", header: apiKey},
	{name: "list: agents", method: http.MethodGet, target: "/v1/agents?limit=20", header: apiKey},
	{name: "list: agents, as the SDKs ask", method: http.MethodGet, target: "/v1/agents?limit=20", header: sdkKey},
	{name: "GET /v1/sessions/{id}", method: http.MethodGet, target: "/v1/sessions/{session}", header: apiKey},
	{name: "list: sessions", method: http.MethodGet, target: "/v1/sessions?limit=20", header: apiKey},
	{name: "list: sessions, as the SDKs ask", method: http.MethodGet, target: "/v1/sessions?limit=20", header: sdkKey},
	{name: "list: session events", method: http.MethodGet, target: "/v1/sessions/{session}/events?limit=20", header: apiKey},
	{name: "list: message batches", method: http.MethodGet, target: "/v1/messages/batches?limit=20", header: apiKey},
	{name: "download: compliance file", method: http.MethodGet, target: "/v1/compliance/apps/chats/files/assistant_file_01Acme0001/content", header: compliance},
	{name: "create: POST /v1/memory_stores", method: http.MethodPost, target: "/v1/memory_stores", header: apiKey, body: []byte(`{"name":"load"}`)},
	{name: "message: POST /v1/messages", method: http.MethodPost, target: "/v1/messages", header: apiKey, body: messageBody(1, false)},
	{name: "stream: POST /v1/messages, long answer", method: http.MethodPost, target: "/v1/messages", header: apiKey, body: messageBody(200, true), stream: true},
	{name: "stream: POST /v1/messages, 200 turns", method: http.MethodPost, target: "/v1/messages", header: apiKey, body: conversationBody(200), stream: true},
}

// seeds are sent once, before the answers are recorded: the records that the reads of the areas
// without fixtures (agents, sessions, batches) need, a page of each. A target's {name} is the ID
// that the last seed named name created.
var seeds = []struct {
	name, target string
	body         []byte
	times        int
}{
	{name: "agent", target: "/v1/agents", times: 20, body: []byte(`{"name":"load","model":"assistant-sonnet-4-5",` +
		`"tools":[{"type":"agent_toolset_20260401","configs":[{"name":"bash"}]}]}`)},
	{name: "environment", target: "/v1/environments", times: 1, body: []byte(`{"name":"load","config":{"type":"cloud"}}`)},
	{name: "session", target: "/v1/sessions", times: 20, body: []byte(`{"agent":"{agent}","environment_id":"{environment}","title":"load"}`)},
	{name: "event", target: "/v1/sessions/{session}/events", times: 5,
		body: []byte(`{"events":[{"type":"user.message","content":[{"type":"text","text":"hello"}]}]}`)},
	{name: "batch", target: "/v1/messages/batches", times: 20, body: []byte(`{"requests":[{"custom_id":"a","params":` +
		`{"model":"assistant-sonnet-4-5","max_tokens":16,"messages":[{"role":"user","content":"Hello"}]}}]}`)},
}

// seed sends the seeds and returns endpoints with their targets' names replaced by the IDs made.
func seed(client *http.Client, base string, eps []endpoint) ([]endpoint, error) {
	ids := map[string]string{}
	expand := func(s string) string {
		for name, id := range ids {
			s = strings.ReplaceAll(s, "{"+name+"}", id)
		}
		return s
	}
	for _, sd := range seeds {
		ep := endpoint{method: http.MethodPost, target: expand(sd.target), header: apiKey, body: []byte(expand(string(sd.body)))}
		for range sd.times {
			resp, err := client.Do(ep.request(base))
			if err != nil {
				return nil, fmt.Errorf("seeding %s: %w", sd.name, err)
			}
			var made struct{ ID string }
			err = json.NewDecoder(resp.Body).Decode(&made)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				return nil, fmt.Errorf("seeding %s: the fake answered %d (%v)", sd.name, resp.StatusCode, err)
			}
			ids[sd.name] = made.ID
		}
	}
	out := slices.Clone(eps)
	for i := range out {
		out[i].target = expand(out[i].target)
	}
	return out, nil
}

// messageBody is a Messages request. With docs > 1 it sends that many short documents with
// citations enabled, which the fake quotes one block each: a long answer.
func messageBody(docs int, stream bool) []byte {
	content := []any{}
	if docs > 1 {
		for i := range docs {
			content = append(content, map[string]any{
				"type":      "document",
				"source":    map[string]any{"type": "text", "media_type": "text/plain", "data": fmt.Sprintf("Document %d says that the weather in town %d was mild and dry all week long. More follows.", i, i)},
				"citations": map[string]any{"enabled": true},
			})
		}
	}
	content = append(content, map[string]any{"type": "text", "text": "Summarise what you were given."})
	body, err := json.Marshal(map[string]any{
		"model": "assistant-opus-4-5", "max_tokens": 32000, "stream": stream,
		"messages": []any{map[string]any{"role": "user", "content": content}},
	})
	if err != nil {
		panic(err)
	}
	return body
}

// conversationBody is a streamed Messages request of turns turns (user and assistant in turn),
// each a text block of about 40 words, with a short answer: its time to the first event is what
// reading and checking a long request costs.
func conversationBody(turns int) []byte {
	msgs := make([]any, turns)
	for i := range msgs {
		msgs[i] = map[string]any{"role": []string{"user", "assistant"}[i%2], "content": []any{map[string]any{"type": "text",
			"text": fmt.Sprintf("Turn %d: %s", i, strings.Repeat("the weather in town was mild and dry all week ", 4))}}}
	}
	body, err := json.Marshal(map[string]any{"model": "assistant-opus-4-5", "max_tokens": 64, "stream": true, "messages": msgs})
	if err != nil {
		panic(err)
	}
	return body
}

// answer is one recorded answer of the fake, which the bare handler serves as it is.
type answer struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Query   string            `json:"query"`
	BodyLen int64             `json:"body_len"` // of the request
	Check   map[string]string `json:"check"`    // request headers and the values they must have
	Status  int               `json:"status"`   // the fake's status, which every request must get
	Header  map[string]string `json:"header"`   // the answer's Content-Type, Content-Md5, ...
	Body    []byte            `json:"body"`
	Events  int               `json:"events"` // events of a stream
}

// record asks the fake once for each endpoint and keeps its answer.
func record(client *http.Client, base string, eps []endpoint) ([]answer, error) {
	var out []answer
	for _, ep := range eps {
		resp, err := client.Do(ep.request(base))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ep.name, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ep.name, err)
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: the fake answered %d: %s", ep.name, resp.StatusCode, body)
		}
		u, _ := url.Parse(ep.target)
		a := answer{Method: ep.method, Path: u.Path, Query: u.RawQuery, BodyLen: int64(len(ep.body)), Check: ep.header, Status: resp.StatusCode,
			Header: map[string]string{}, Body: body}
		for k := range resp.Header {
			if k != "Date" && k != "Request-Id" {
				a.Header[k] = resp.Header.Get(k)
			}
		}
		if ep.stream {
			a.Events = eventCount(body)
		}
		out = append(out, a)
	}
	return out, nil
}

func (ep endpoint) request(base string) *http.Request {
	req, err := http.NewRequest(ep.method, base+ep.target, bytes.NewReader(ep.body))
	if err != nil {
		panic(err)
	}
	if ep.body == nil {
		req.Body = nil
	} else {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range ep.header {
		req.Header.Set(k, v)
	}
	return req
}

// isCreate reports whether every request of the endpoint adds to the fake's data.
func (ep endpoint) isCreate() bool { return strings.HasPrefix(ep.name, "create:") }
