package hostile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The reproductions of issue 47 (threads, stubs, generation budgets, tunnels, tape): one per row
// of its table, each the request of that row against the binary, as `go run
// ./fake/internal/soak -repro` sends them.

// ThreadsBeta is the beta value of message threads.
const ThreadsBeta = "message-threads-2026-08-12"

// Step is one request of a reproduction. Body and Path may hold {{id}}: the id of the last 2xx
// answer of the reproduction so far (the message a thread continues from).
type Step struct {
	Method, Path string
	Header       map[string]string // beyond X-Api-Key test-api-key, vendor-version 2023-06-01, Content-Type
	Body         string
}

// Repro is one row of the issue's table.
type Repro struct {
	Item int
	What string
	// Setup are sent first; Steps are the reproduction, whose last answer is reported and whose
	// CPU (until the server is idle again) is counted.
	Setup, Steps []Step
	// Timeout is how long the client waits for each step's answer (0: a minute): row 6 gives up,
	// as the issue's client did.
	Timeout time.Duration
	// Replay, when set, makes the row a start of the binary with -replay on the directory it
	// writes, instead of requests (row 15).
	Replay func(dir string) error
	// Fixed is the answer the issue asks for.
	Fixed string
}

func header(kv ...string) map[string]string {
	h := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return h
}

var threaded = header("anthropic-beta", ThreadsBeta)

// threadBody is a Messages body that creates a thread (prev "") or continues the one whose
// latest reply is prev, with the extra top-level fields (",..." JSON) and the messages given.
func threadBody(prev, messages, extra string) string {
	thread := `{"type":"create"}`
	if prev != "" {
		thread = `{"type":"continue","previous_message_id":` + quote(prev) + `}`
	}
	return `{"model":"` + Model + `","max_tokens":16,"messages":` + messages + extra + `,"thread":` + thread + `}`
}

const hi = `[{"role":"user","content":"Hi"}]`

// zeros is a JSON array of n zeros: 2 bytes a value as text, tens as decoded JSON.
func zeros(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]" }

// ConstItems is a Messages body forcing a tool whose input is items copies of a const of n bytes
// (row 2: a const is generated without being charged).
func ConstItems(n, items int) string {
	return tool(fmt.Sprintf(`{"type":"object","properties":{"a":{"type":"array","minItems":%d,"maxItems":%[1]d,"items":{"const":%s}}},"required":["a"]}`,
		items, quote(strings.Repeat("c", n))))
}

// LongRef is a Messages body forcing a tool whose input is outer arrays of inner values, each
// a $ref to a definition whose name is n bytes long (row 3: a lookup costs one step whatever
// the length of the name).
func LongRef(n, outer, inner int) string {
	name := strings.Repeat("r", n)
	return tool(fmt.Sprintf(`{"type":"object","properties":{"a":{"type":"array","minItems":%d,"maxItems":%[1]d,"items":{"type":"array","minItems":%d,"maxItems":%[2]d,"items":{"$ref":"#/$defs/%s"}}}},"required":["a"],"$defs":{"%[3]s":{"type":"integer"}}}`,
		outer, inner, name))
}

// AllOfRequired is a Messages body forcing a tool whose input is items values, each an allOf
// merge of a definition whose required list holds names names (row 4: the list is copied into
// every merge without a step).
func AllOfRequired(names, items int) string {
	req := list(names, func(i int) string { return fmt.Sprintf(`"%x"`, i) })
	return tool(fmt.Sprintf(`{"type":"object","properties":{"a":{"type":"array","minItems":%d,"maxItems":%[1]d,"items":{"allOf":[{"$ref":"#/$defs/d"}]}}},"required":["a"],"$defs":{"d":{"type":"object","required":[%s]}}}`,
		items, req))
}

// Betas is a beta header value of n distinct values (row 5: deduplicated in quadratic time).
func Betas(n int) string { return list(n, func(i int) string { return fmt.Sprintf("beta-%d", i) }) }

// NearMissStub is a stub registration whose one clause is a text of 100 bytes that a prompt of
// "a"s nearly holds at every byte (substring search falls back to Rabin-Karp, a hash a byte),
// told apart by i (row 6).
func NearMissStub(i int) string {
	return `{"match":{"user_text_contains":"` + strings.Repeat("a", 92) + fmt.Sprintf("%08d", i) + `"},"replies":[{"content":[{"type":"text","text":"stub"}]}]}`
}

// Prompt is a Messages body whose user text is n bytes of "a" (row 6, with NearMissStub).
func Prompt(n int) string {
	return `{"model":"` + Model + `","max_tokens":16,"messages":[{"role":"user","content":"` + strings.Repeat("a", n) + `"}]}`
}

// ZerosThread is a Messages body creating a thread whose tool's schema holds an array of n zeros:
// 2n bytes as text, many times that as decoded JSON (row 7: a thread is counted in request bytes
// and kept decoded).
func ZerosThread(n int) string {
	return threadBody("", hi, `,"tools":[{"name":"t","input_schema":{"type":"object","x":`+zeros(n)+`}}]`)
}

// ContinueThread is a Messages body continuing the thread whose latest reply is prev with one
// user turn.
func ContinueThread(prev string) string { return threadBody(prev, hi, "") }

// ZerosStub is a stub registration (never matching: needle) whose reply is a tool call whose
// input holds an array of n zeros (row 8: stubs are bounded in number, not bytes).
func ZerosStub(needle string, n int) string {
	return `{"match":{"user_text_contains":` + quote(needle) + `},"replies":[{"content":[{"type":"tool_use","id":"toolu_1","name":"t","input":{"z":` + zeros(n) + `},"caller":{"type":"direct"}}]}]}`
}

// ThreadHeader is the header of a threaded request, with the key given ("" keeps the default).
func ThreadHeader(key string) map[string]string {
	h := header("anthropic-beta", ThreadsBeta)
	if key != "" {
		h["X-Api-Key"] = key
	}
	return h
}

// Issue47 are the reproductions of the issue's table, in its order.
func Issue47() []Repro {
	big := func(n int, c string) string { return strings.Repeat(c, n) }
	betas := Betas(50_000)
	var stubs []Step
	for i := range 1000 {
		stubs = append(stubs, Step{"POST", "/ns/r6/_fake/messages/stubs", nil, NearMissStub(i)})
	}
	var threads []Step
	for ns := range 6 {
		for range 15 {
			threads = append(threads, Step{"POST", fmt.Sprintf("/ns/r7-%d/v1/messages", ns), threaded, ZerosThread(500_000)})
		}
	}
	var bigStubs []Step
	for i := range 150 {
		bigStubs = append(bigStubs, Step{"POST", "/ns/r8/_fake/messages/stubs", nil, ZerosStub(fmt.Sprintf("never %d", i), 500_000)})
	}
	// 10: a thread whose conversation holds a document block in an assistant message, which
	// API version 2026-10-21 refuses, continued at that version.
	docTurns := `[{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"x"}}]},{"role":"user","content":"Go on"}]`
	// 11: a thread of 99,999 messages continued with 99,999 more.
	many := func(n int) string {
		return "[" + list(n, func(i int) string {
			if i%2 == 1 {
				return `{"role":"assistant","content":"a"}`
			}
			return `{"role":"user","content":"u"}`
		}) + "]"
	}
	// 13: a thread of one MCP server with a 1.7 MB URL, continued with another.
	server := func(host string) string {
		return `,"mcp_servers":[{"type":"url","name":"s","url":"https://` + host + `.example/` + big(1_700_000, "u") + `"}]`
	}
	thinking := func(budget string) string {
		return `,"thinking":{"type":"enabled","budget_tokens":` + budget + `}`
	}
	const thinkingModel = `"model":"assistant-mythos-preview","max_tokens":2048`
	tunnels := header("vendor-beta", "mcp-tunnels-2026-06-22", "X-Api-Key", "wrong-key", "Authorization", "Bearer test-bearer-token")
	return []Repro{
		{Item: 1, What: "another organization continues a thread", Fixed: "404 thread_not_found",
			Setup: []Step{{"POST", "/ns/r1/v1/messages", threaded, threadBody("", hi, `,"system":"the owner's secret"`)}},
			Steps: []Step{{"POST", "/ns/r1/v1/messages", ThreadHeader("test-api-key-2"), ContinueThread("{{id}}")}}},
		{Item: 2, What: "const values generated uncharged (100 KB request)", Fixed: "4xx naming the place, or an answer within the 1 MiB budget",
			Steps: []Step{{"POST", "/ns/r2/v1/messages", nil, ConstItems(100_000, 1000)}}},
		{Item: 3, What: "$ref of a 1 MB name looked up 20,000 times (2 MB request)", Fixed: "4xx naming the place within 1 s CPU",
			Steps: []Step{{"POST", "/ns/r3/v1/messages", nil, LongRef(1<<20, 20, 1000)}}},
		{Item: 4, What: "allOf merges copying a required list of 100,000 (1 MB request)", Fixed: "4xx naming the place within 1 s CPU",
			Steps: []Step{{"POST", "/ns/r4/v1/messages", nil, AllOfRequired(100_000, 1000)}}},
		{Item: 5, What: fmt.Sprintf("beta header of %d KB of distinct values", len(betas)/1000), Fixed: "4xx naming the header within 1 s CPU",
			Steps: []Step{{"POST", "/ns/r5/v1/messages", header("anthropic-beta", betas), `{"model":"` + Model + `","max_tokens":16,"messages":` + hi + `}`}}},
		{Item: 6, What: "1,000 near-miss stubs × 3 MB prompt, client gone after 2 s", Fixed: "4xx within 1 s CPU, nothing after the client left",
			Setup:   stubs,
			Steps:   []Step{{"POST", "/ns/r6/v1/messages", nil, Prompt(3_000_000)}},
			Timeout: 2 * time.Second},
		{Item: 7, What: "threads of 1 MB requests (500,000 zeros) in 6 namespaces", Fixed: "RSS within the stated bound",
			Steps: threads},
		{Item: 8, What: "150 stubs of 1 MB (500,000 zeros)", Fixed: "4xx past a byte bound, RSS within it",
			Steps: bigStubs},
		{Item: 9, What: "a key of another workspace continues a thread", Fixed: "as decided (404 if per workspace)",
			Setup: []Step{{"POST", "/ns/r9/v1/messages", threaded, threadBody("", hi, "")}},
			Steps: []Step{{"POST", "/ns/r9/v1/messages", ThreadHeader("test-api-key-research"), ContinueThread("{{id}}")}}},
		{Item: 10, What: "continue at 2026-10-21 of a conversation that version refuses", Fixed: "400 as the whole request",
			Setup: []Step{{"POST", "/ns/r10/v1/messages", threaded, threadBody("", docTurns, "")}},
			Steps: []Step{{"POST", "/ns/r10/v1/messages", header("anthropic-beta", ThreadsBeta, "vendor-version", "2026-10-21"), threadBody("{{id}}", hi, "")}}},
		{Item: 11, What: "a thread of 99,999 messages continued with 99,999 more", Fixed: "400 naming messages (100,000 bound)",
			Setup: []Step{{"POST", "/ns/r11/v1/messages", threaded, threadBody("", many(99_999), "")}},
			Steps: []Step{{"POST", "/ns/r11/v1/messages", threaded, threadBody("{{id}}", many(99_999), "")}}},
		{Item: 12, What: "/v1/tunnels: wrong X-Api-Key, right bearer token", Fixed: "401",
			Steps: []Step{{"GET", "/ns/r12/v1/tunnels", tunnels, ""}}},
		{Item: 13, What: "fingerprint mismatch of two 1.7 MB MCP server URLs (3.5 MB request)", Fixed: "400 quoting an excerpt",
			Setup: []Step{{"POST", "/ns/r13/v1/messages", threaded, threadBody("", hi, server("a"))}},
			Steps: []Step{{"POST", "/ns/r13/v1/messages", threaded, threadBody("{{id}}", hi, server("b"))}}},
		{Item: 14, What: "continue with budget_tokens 1024.0 where the thread has 1024", Fixed: "as the whole request (not thread_fingerprint_mismatch)",
			Setup: []Step{{"POST", "/ns/r14/v1/messages", threaded, `{` + thinkingModel + thinking("1024") + `,"messages":` + hi + `,"thread":{"type":"create"}}`}},
			Steps: []Step{{"POST", "/ns/r14/v1/messages", threaded, `{` + thinkingModel + thinking("1024.0") + `,"messages":` + hi + `,"thread":{"type":"continue","previous_message_id":"{{id}}"}}`}}},
		{Item: 15, What: "-replay of a directory over 256 MiB (17 recordings of 16 MB)", Fixed: "refused before loading anything",
			Replay: writeLargeReplay},
	}
}

// writeLargeReplay writes 17 recordings of about 16 MB each into dir (272 MB together, over the
// 256 MiB a replay loads): a Messages request of an 8 MB prompt and its answer of 8 MB of text.
func writeLargeReplay(dir string) error {
	for i := range 17 {
		req := map[string]any{"model": Model, "max_tokens": 16, "messages": []any{map[string]any{"role": "user",
			"content": fmt.Sprintf("%d ", i) + strings.Repeat("p", 8_000_000)}}}
		var resp map[string]any
		if err := json.Unmarshal([]byte(recordedAnswer), &resp); err != nil {
			return err
		}
		resp["content"] = []any{map[string]any{"type": "text", "text": strings.Repeat("a", 8_000_000), "citations": nil}}
		rec := map[string]any{
			"request":  map[string]any{"method": "POST", "path": "/v1/messages", "body": req},
			"response": map[string]any{"status": 200, "body": resp},
		}
		data, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%02d.json", i)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// recordedAnswer is a Messages answer as the fake writes it, for writeLargeReplay.
const recordedAnswer = `{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"` + Model + `",
"stop_reason":"end_turn","stop_sequence":null,"stop_details":null,"usage":{"input_tokens":1,"output_tokens":1,
"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},
"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard","inference_geo":"global","speed":"standard",
"output_tokens_details":{"thinking_tokens":0},"iterations":null,"fallback_credit":null},"container":null,"context_management":null,"diagnostics":null}`
