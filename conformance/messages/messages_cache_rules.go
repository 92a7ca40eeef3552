package messages

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// The prompt cache's rules beyond a read on repeat (EXTENSIONS.md, "Prompt caching"): how a
// write splits by TTL, how the usage adds up, when entries expire, the minimums, the marker
// rules, the lookback, what invalidates an entry, the pre-warm and diagnostics. Every check
// starts its prompts with a fresh nonce, so that no other check's (or run's) entries are read.

func init() { kit.Register(cacheRuleChecks()...) }

// cacheNonce is a prefix no earlier request sent.
func cacheNonce(t *kit.T) string {
	var b [8]byte
	_, err := rand.Read(b[:])
	t.Expect(err).NotTo(HaveOccurred())
	return "Run " + hex.EncodeToString(b[:]) + ". "
}

// cacheSystem is a system prompt of one long block (past every model's minimum) opened by nonce,
// with a breakpoint of the TTL ("" for the default).
func cacheSystem(nonce, ttl string) []any {
	cc := map[string]any{"type": "ephemeral"}
	if ttl != "" {
		cc["ttl"] = ttl
	}
	return []any{map[string]any{"type": "text", "text": nonce + cacheWords(), "cache_control": cc}}
}

// cacheCount is count_tokens of a Create a Message body.
func cacheCount(t *kit.T, body map[string]any) int64 {
	b := maps.Clone(body)
	delete(b, "max_tokens")
	return t.OK(kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages/count_tokens", Body: b, Schema: "messages/count_tokens"}).Get("input_tokens").Int()
}

// cacheUsage is the usage of a message's answer, as numbers.
type cacheUsage struct{ input, read, creation, m5, h1 int64 }

func usageOf(resp *kit.Response) cacheUsage {
	u := resp.Get("usage")
	return cacheUsage{u.Get("input_tokens").Int(), u.Get("cache_read_input_tokens").Int(), u.Get("cache_creation_input_tokens").Int(),
		u.Get("cache_creation.ephemeral_5m_input_tokens").Int(), u.Get("cache_creation.ephemeral_1h_input_tokens").Int()}
}

func (u cacheUsage) String() string {
	return fmt.Sprintf("input_tokens %d, cache_read_input_tokens %d, cache_creation_input_tokens %d (5m %d, 1h %d)", u.input, u.read, u.creation, u.m5, u.h1)
}

// countTolerance is how far read + creation + input may be from count_tokens: the platform
// documents count_tokens as an estimate that "may differ by a small amount" from what a request
// uses, so 2% of the count, at least 8 tokens. A deployment that counts a cached prefix twice,
// or leaves it out, is off by thousands on these prompts.
func countTolerance(count int64) int64 { return max(count/50, 8) }

func cacheRuleChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/cache-creation-split-by-ttl", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a cache write is reported under its TTL: a 1h breakpoint's prefix in cache_creation.ephemeral_1h_input_tokens, a 5m one's in ephemeral_5m_input_tokens (both in one request: each its part), the two adding up to cache_creation_input_tokens",
			Bug: &kit.Bug{Says: "every cache write is reported as 5m", Want: "ephemeral_1h_input_tokens", Break: kit.InOKAnswers(msgCreate, func(_ *http.Request, m map[string]any) {
				if cc, _ := m["usage"].(map[string]any)["cache_creation"].(map[string]any); cc != nil {
					m5, _ := cc["ephemeral_5m_input_tokens"].(float64)
					h1, _ := cc["ephemeral_1h_input_tokens"].(float64)
					cc["ephemeral_5m_input_tokens"], cc["ephemeral_1h_input_tokens"] = m5+h1, 0
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, ttl := range []string{"1h", "5m"} {
					u := usageOf(t.OK(CreateRequest(Body(model, "max_tokens", 16, "system", cacheSystem(cacheNonce(t), ttl)))))
					if u.creation == 0 {
						t.Unsupported("a fresh %s breakpoint past 4,096 tokens wrote nothing: %s", ttl, u)
					}
					t.Expect(u.m5+u.h1).To(Equal(u.creation), "ephemeral_5m_input_tokens + ephemeral_1h_input_tokens add up to cache_creation_input_tokens: %s", u)
					if ttl == "1h" {
						t.Expect(u.h1).To(Equal(u.creation), "a write at a 1h breakpoint is counted in ephemeral_1h_input_tokens: %s", u)
					} else {
						t.Expect(u.m5).To(Equal(u.creation), "a write at a 5m breakpoint is counted in ephemeral_5m_input_tokens: %s", u)
					}
				}
				// Both in one request: the prefix through the 1h breakpoint is 1h, the rest through
				// the 5m one is 5m.
				both := append(cacheSystem(cacheNonce(t), "1h"), cacheSystem("And more. ", "5m")...)
				u := usageOf(t.OK(CreateRequest(Body(model, "max_tokens", 16, "system", both))))
				t.Expect(u.m5+u.h1).To(Equal(u.creation), "ephemeral_5m_input_tokens + ephemeral_1h_input_tokens add up to cache_creation_input_tokens: %s", u)
				t.Expect(u.h1).To(BeNumerically(">", u.creation/3), "the prefix through the 1h breakpoint, about half the prompt, is in ephemeral_1h_input_tokens: %s", u)
				t.Expect(u.m5).To(BeNumerically(">", u.creation/3), "what follows it through the 5m breakpoint, the other half, is in ephemeral_5m_input_tokens: %s", u)
			}},
		{ID: "messages/cache-usage-adds-up", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "cache_read_input_tokens + cache_creation_input_tokens + input_tokens is the whole prompt: within 2% (at least 8 tokens) of count_tokens, an estimate, on a write, a read and a read with new input",
			Bug: &kit.Bug{Says: "a cache read is counted in input_tokens too", Want: "the whole prompt", Break: kit.InOKAnswers(msgCreate, func(_ *http.Request, m map[string]any) {
				if u, _ := m["usage"].(map[string]any); u != nil {
					in, _ := u["input_tokens"].(float64)
					read, _ := u["cache_read_input_tokens"].(float64)
					u["input_tokens"] = in + read
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				body := Body(model, "max_tokens", 16, "system", cacheSystem(cacheNonce(t), ""))
				longer := Body(model, "max_tokens", 16, "system", body["system"], "messages", []any{UserTurn("Say hello in a few words, then name a colour and a river.")})
				for i, b := range []map[string]any{body, body, longer} {
					u := usageOf(t.OK(CreateRequest(b)))
					count := cacheCount(t, b)
					sum := u.read + u.creation + u.input
					t.Expect(sum).To(BeNumerically("~", count, countTolerance(count)),
						"request %d: read + creation + input (%d) is the whole prompt, which count_tokens estimates at %d (allowed: %d): %s", i+1, sum, count, countTolerance(count), u)
				}
			}},
		{ID: "messages/cache-expires-after-its-ttl", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension, kit.FakeOnly},
			Title: "a 5m cache entry is read 4:59 after it was written and gone at 5:00; a 1h entry is read at 59:59 and gone at 60:00",
			Bug:   &kit.Bug{Says: "cache entries never expire", Want: "gone", Break: msgClockFrozen},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				advance := func(s int) { t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": s}) }
				for _, tc := range []struct {
					ttl  string
					life int
				}{{"5m", 300}, {"1h", 3600}} {
					body := Body(model, "max_tokens", 16, "system", cacheSystem(cacheNonce(t), tc.ttl))
					t.OK(CreateRequest(body))
					advance(tc.life - 1)
					read := usageOf(t.OK(CreateRequest(body))) // refreshes the entry: it lives tc.life from now
					t.Expect(read.read).To(BeNumerically(">", 0), "a %s entry is read %d s after it was written: %s", tc.ttl, tc.life-1, read)
					advance(tc.life)
					gone := usageOf(t.OK(CreateRequest(body)))
					t.Expect(gone.read).To(BeZero(), "a %s entry is gone %d s after it was last read: %s", tc.ttl, tc.life, gone)
				}
			}},
		{ID: "messages/cache-model-minimums", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "on every listed model whose minimum is documented (1,024, 2,048 or 4,096 tokens), a breakpoint whose prompt counts below it writes nothing, and one past it writes",
			Bug: &kit.Bug{Says: "every model caches from 1,024 tokens", Want: "writes nothing", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if m, _ := b["model"].(string); cacheMinimumOf(m) > 1024 {
					b["model"] = "assistant-sonnet-4-6"
				}
			})},
			Run: func(t *kit.T) {
				listed := t.OK(kit.Request{Area: kit.Models, Path: "/v1/models", Query: url.Values{"limit": {"1000"}}, Schema: "models/model_list"})
				var models []string // every listed model whose minimum is documented
				for _, m := range listed.Get("data.#.id").Array() {
					if cacheMinimumOf(m.String()) > 0 {
						models = append(models, m.String())
					}
				}
				if len(models) == 0 {
					t.Unsupported("needs a listed model of a family whose cache minimum is documented (sonnet-4-6, sonnet-4-5, opus-4-1, opus-4, sonnet-4, opus-4-7, mythos-preview, haiku 3 and 3.5, opus-4-6, opus-4-5, haiku-4-5, under any prefix and date); the target lists %d models, none of them", len(listed.Get("data").Array()))
				}
				for _, model := range models {
					min := cacheMinimumOf(model)
					nonce := cacheNonce(t)
					below := cacheSizedSystem(t, model, nonce, min-300, min-1)
					u := usageOf(t.OK(CreateRequest(Body(model, "max_tokens", 16, "system", below))))
					t.Expect(u.creation).To(BeZero(), "%s: a prompt below the minimum of %d tokens writes nothing: %s", model, min, u)
					above := cacheSizedSystem(t, model, cacheNonce(t), min+200, min+600)
					u = usageOf(t.OK(CreateRequest(Body(model, "max_tokens", 16, "system", above))))
					t.Expect(u.creation).To(BeNumerically(">", 0), "%s: a prompt past the minimum of %d tokens is written to the cache: %s", model, min, u)
				}
			}},
		{ID: "messages/cache-1h-after-5m-refused", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a 1h cache_control after a 5m one (tools, then system, then messages) is refused 400 naming its ttl; a 5m after a 1h is accepted",
			Bug: &kit.Bug{Says: "a 1h breakpoint after a 5m one is accepted", Want: "400", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				seen5m := false
				msgEachBlock(b, func(bl map[string]any) {
					if cc, _ := bl["cache_control"].(map[string]any); cc != nil {
						if cc["ttl"] == "1h" && seen5m {
							cc["ttl"] = "5m"
						}
						seen5m = seen5m || cc["ttl"] != "1h"
					}
				})
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				block := func(ttl string) map[string]any {
					return map[string]any{"type": "text", "text": "Be brief, ttl " + ttl + ".", "cache_control": map[string]any{"type": "ephemeral", "ttl": ttl}}
				}
				t.OK(CreateRequest(Body(model, "system", []any{block("1h"), block("5m")})))
				resp := t.Do(CreateRequest(Body(model, "system", []any{block("5m")}, "messages", []any{UserTurn([]any{block("1h")})})))
				expectFieldError(t, resp, "messages.0.content.0.cache_control.ttl")
			}},
		{ID: "messages/cache-empty-text-block-refused", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "cache_control on an empty text block is refused 400 naming the block's text",
			Bug: &kit.Bug{Says: "cache_control on an empty text block is ignored", Want: "400", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				msgEachBlock(b, func(bl map[string]any) {
					if bl["type"] == "text" && bl["text"] == "" {
						delete(bl, "cache_control")
						bl["text"] = " "
					}
				})
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := t.Do(CreateRequest(Body(model, "system", []any{
					map[string]any{"type": "text", "text": "Be brief."},
					map[string]any{"type": "text", "text": "", "cache_control": map[string]any{"type": "ephemeral"}},
				})))
				expectFieldError(t, resp, "system.1.text")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("cache_control"), "the error says it is the cache_control that an empty block cannot have: %s", resp)
			}},
		{ID: "messages/cache-top-level-marker", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a top-level cache_control caches the prompt through its last block: the first request writes it, the same request again reads it",
			Bug:   &kit.Bug{Says: "the top-level cache_control is ignored", Want: "writes", Break: kit.IgnoresField(http.MethodPost, "/v1/messages", "cache_control")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				body := Body(model, "max_tokens", 16, "cache_control", map[string]any{"type": "ephemeral"},
					"system", cacheNonce(t)+cacheWords(), "messages", []any{UserTurn("Say hello in a few words.")})
				first := usageOf(t.OK(CreateRequest(body)))
				t.Expect(first.creation).To(BeNumerically(">", 0), "the top-level marker writes the prompt to the cache: %s", first)
				second := usageOf(t.OK(CreateRequest(body)))
				t.Expect(second.read).To(BeNumerically(">=", first.creation), "the same request again reads what the first wrote (%d): %s", first.creation, second)
			}},
		{ID: "messages/cache-lookback-20-blocks", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a breakpoint reads an entry written up to 20 blocks back (itself included), and not 21",
			Bug: &kit.Bug{Says: "the lookback spans 19 blocks, not 20", Want: "19 blocks back", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if msgs := kit.MessagesOf(b); len(msgs) == 1 {
					if blocks, _ := msgs[0].(map[string]any)["content"].([]any); len(blocks) == 19 {
						msgs[0].(map[string]any)["content"] = append([]any{map[string]any{"type": "text", "text": "Block 0."}}, blocks...)
					}
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				nonce := cacheNonce(t)
				written := usageOf(t.OK(CreateRequest(Body(model, "max_tokens", 16, "system", cacheSystem(nonce, "")))))
				if written.creation == 0 {
					t.Unsupported("a fresh breakpoint past 4,096 tokens wrote nothing: %s", written)
				}
				// The system block without its marker, then n short blocks, the last marked: the
				// entry is n blocks back from the breakpoint's (the breakpoint's own is the first).
				after := func(n int) cacheUsage {
					blocks := make([]any, n)
					for i := range blocks {
						blocks[i] = map[string]any{"type": "text", "text": fmt.Sprintf("Block %d.", i+1)}
					}
					blocks[n-1].(map[string]any)["cache_control"] = map[string]any{"type": "ephemeral"}
					sys := []any{map[string]any{"type": "text", "text": nonce + cacheWords()}}
					return usageOf(t.OK(CreateRequest(Body(model, "max_tokens", 16, "system", sys, "messages", []any{UserTurn(blocks)}))))
				}
				far := after(20) // first: it writes at its own breakpoint only, which the next does not reach
				t.Expect(far.read).To(BeZero(), "an entry 21 blocks back from the breakpoint (counting itself) is past the lookback: %s", far)
				near := after(19)
				t.Expect(near.read).To(BeNumerically(">", 0), "an entry 19 blocks back from the breakpoint (20 counting itself) is read: %s", near)
			}},
		{ID: "messages/cache-invalidation", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a cached system prompt is read again when only the messages or tool_choice change, and not once a tool is added before it or the system itself changes",
			Bug:   &kit.Bug{Says: "the tools are left out of the cache key: adding one keeps the cached system prompt", Want: "a tool", Break: kit.IgnoresField(http.MethodPost, "/v1/messages", "tools")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				system := cacheSystem(cacheNonce(t), "")
				ask := func(question string, kv ...any) cacheUsage {
					return usageOf(t.OK(CreateRequest(Body(model, append([]any{"max_tokens", 16, "system", system, "messages", []any{UserTurn(question)}}, kv...)...))))
				}
				first := ask("Say hello.")
				if first.creation == 0 {
					t.Unsupported("a fresh breakpoint past 4,096 tokens wrote nothing: %s", first)
				}
				other := ask("Name a colour.")
				t.Expect(other.read).To(BeNumerically(">=", first.creation), "other messages after the breakpoint still read the system prompt: %s", other)
				tooled := ask("Say hello.", "tools", []any{weatherTool})
				t.Expect(tooled.read).To(BeZero(), "a tool added before the system prompt invalidates its entry: %s", tooled)
				// tool_choice belongs to the messages level: it leaves the tools and system entry.
				chosen := ask("Say hello.", "tools", []any{weatherTool}, "tool_choice", map[string]any{"type": "any"})
				t.Expect(chosen.read).To(BeNumerically(">=", tooled.creation), "a changed tool_choice still reads the tools and system prompt: %s", chosen)
				changed := cacheSystem(cacheNonce(t), "")
				resp := usageOf(t.OK(CreateRequest(Body(model, "max_tokens", 16, "system", changed, "messages", []any{UserTurn("Say hello.")}))))
				t.Expect(resp.read).To(BeZero(), "a changed system prompt reads nothing: %s", resp)
			}},
		{ID: "messages/cache-prewarm-writes", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a pre-warm (max_tokens 0) answers no content and writes the cache: the same prompt then reads what it wrote",
			Bug: &kit.Bug{Says: "a pre-warm writes nothing to the cache", Want: "writes", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if b["max_tokens"] == float64(0) {
					msgEachBlock(b, func(bl map[string]any) { delete(bl, "cache_control") })
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				system := cacheSystem(cacheNonce(t), "")
				warm := t.OK(CreateRequest(Body(model, "max_tokens", 0, "system", system)))
				t.Expect(warm.Get("content.#").Int()).To(BeZero(), "a pre-warm answers no content: %s", warm)
				u := usageOf(warm)
				t.Expect(u.creation).To(BeNumerically(">", 0), "a pre-warm writes the prompt to the cache: %s", u)
				then := usageOf(t.OK(CreateRequest(Body(model, "max_tokens", 16, "system", system))))
				t.Expect(then.read).To(Equal(u.creation), "the same prompt then reads what the pre-warm wrote (%d): %s", u.creation, then)
			}},
		{ID: "messages/cache-diagnostics", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "diagnostics with the previous request's id names what changed: system_changed, tools_changed or messages_changed, and null when nothing did",
			Bug: &kit.Bug{Says: "diagnostics blames the messages for a changed system prompt", Want: "system_changed", Break: kit.InOKAnswers(msgCreate, func(_ *http.Request, m map[string]any) {
				if d, _ := m["diagnostics"].(map[string]any); d != nil {
					if r, _ := d["cache_miss_reason"].(map[string]any); r["type"] == "system_changed" {
						r["type"] = "messages_changed"
					}
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				diag := func(system []any, prev any, kv ...any) *kit.Response {
					r := CreateRequest(Body(model, append([]any{"max_tokens", 16, "system", system, "diagnostics", map[string]any{"previous_message_id": prev}}, kv...)...))
					r.Header = http.Header{"vendor-beta": {"cache-diagnosis-2026-04-07"}}
					resp := t.Do(r)
					if resp.Status == http.StatusBadRequest && strings.HasPrefix(resp.Get("error.message").String(), "diagnostics") {
						t.Unsupported("the target does not take diagnostics: %s", resp)
					}
					t.Expect(resp.Status).To(Equal(http.StatusOK), "the answer is 200: %s", resp)
					return resp
				}
				system := cacheSystem(cacheNonce(t), "")
				first := diag(system, nil)
				t.Expect(first.Get("diagnostics").Type).To(Equal(gjson.Null), "without a previous request, diagnostics is null: %s", first)
				same := diag(system, first.Get("id").String())
				t.Expect(same.Get("diagnostics").Type).To(Equal(gjson.Null), "nothing changed since the previous request: diagnostics is null: %s", same.Get("diagnostics"))
				changed := diag(cacheSystem(cacheNonce(t), ""), same.Get("id").String())
				t.Expect(changed.Get("diagnostics.cache_miss_reason.type").String()).To(Equal("system_changed"), "a new system prompt is system_changed: %s", changed.Get("diagnostics"))
				tooled := diag(system, same.Get("id").String(), "tools", []any{weatherTool})
				t.Expect(tooled.Get("diagnostics.cache_miss_reason.type").String()).To(Equal("tools_changed"), "an added tool is tools_changed: %s", tooled.Get("diagnostics"))
				other := diag(system, same.Get("id").String(), "messages", []any{UserTurn("Name a colour.")})
				t.Expect(other.Get("diagnostics.cache_miss_reason.type").String()).To(Equal("messages_changed"), "other messages are messages_changed: %s", other.Get("diagnostics"))
			}},
		{ID: "messages/cache-count-tokens-never-writes", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "count_tokens of a prompt with a breakpoint writes nothing to the cache: the first message of that prompt afterwards reads nothing and writes it",
			Bug:   &kit.Bug{Says: "count_tokens writes the prompt cache", Want: "count_tokens", Break: msgCountWrites},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				body := Body(model, "max_tokens", 16, "system", cacheSystem(cacheNonce(t), ""))
				cacheCount(t, body)
				u := usageOf(t.OK(CreateRequest(body)))
				t.Expect(u.read).To(BeZero(), "count_tokens wrote nothing, so the first message reads nothing: %s", u)
				t.Expect(u.creation).To(BeNumerically(">", 0), "the first message writes the prompt: %s", u)
			}},
		{ID: "messages/cache-top-level-ttl-conflict-refused", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a top-level cache_control whose ttl differs from the marker already on its target block is refused 400 naming cache_control.ttl; the same ttl is accepted",
			Bug: &kit.Bug{Says: "a top-level cache_control is ignored, so one whose ttl conflicts with its block's is not refused", Want: "400", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if cc, _ := b["cache_control"].(map[string]any); cc != nil {
					delete(b, "cache_control")
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				marked := []any{UserTurn([]any{map[string]any{"type": "text", "text": "Say hello.", "cache_control": map[string]any{"type": "ephemeral", "ttl": "1h"}}})}
				t.OK(CreateRequest(Body(model, "messages", marked, "cache_control", map[string]any{"type": "ephemeral", "ttl": "1h"})))
				resp := t.Do(CreateRequest(Body(model, "messages", marked, "cache_control", map[string]any{"type": "ephemeral", "ttl": "5m"})))
				expectFieldError(t, resp, "cache_control.ttl")
			}},
	}
}

// cacheMinimums are the documented minimum cacheable prompts, in tokens, by model family: the
// model's ID without the maker's prefix (assistant- in the reference, claude- on real
// deployments) and without its date.
var cacheMinimums = map[string]int64{
	"sonnet-4-6": 1024, "sonnet-4-5": 1024, "opus-4-1": 1024, "opus-4": 1024, "opus-4-0": 1024, "sonnet-4": 1024, "sonnet-4-0": 1024,
	"opus-4-7": 2048, "mythos-preview": 2048, "3-haiku": 2048, "3-5-haiku": 2048,
	"opus-4-6": 4096, "opus-4-5": 4096, "haiku-4-5": 4096,
}

var modelDate = regexp.MustCompile(`-20[0-9]{6}$`)

// cacheMinimumOf is the documented minimum cacheable prompt of model, 0 when none is documented.
func cacheMinimumOf(model string) int64 {
	_, family, ok := strings.Cut(model, "-")
	if !ok {
		return 0
	}
	return cacheMinimums[modelDate.ReplaceAllString(family, "")]
}

// cacheSizedSystem is a system prompt of one block with a breakpoint, opened by nonce, whose
// request counts from lo to hi tokens on model (by count_tokens, bisecting on the words).
func cacheSizedSystem(t *kit.T, model, nonce string, lo, hi int64) []any {
	words := strings.Fields(cacheWords())
	sys := func(n int) []any {
		return []any{map[string]any{"type": "text", "text": nonce + strings.Join(words[:n], " "), "cache_control": map[string]any{"type": "ephemeral"}}}
	}
	a, b := 1, len(words)
	for a <= b {
		n := (a + b) / 2
		c := cacheCount(t, Body(model, "system", sys(n)))
		switch {
		case c < lo:
			a = n + 1
		case c > hi:
			b = n - 1
		default:
			return sys(n)
		}
	}
	t.Unsupported("no prompt of the suite's words counts from %d to %d tokens on %s", lo, hi, model)
	return nil
}
