package messages

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// The defects of the Messages area's checks (see Bug): requests the target reads wrongly or
// answers it gives wrongly, each as small as the title of one check.

var (
	msgCreate   = kit.On(http.MethodPost, "^/v1/messages$")
	msgCount    = kit.On(http.MethodPost, "^/v1/messages/count_tokens$")
	msgComplete = kit.On(http.MethodPost, "^/v1/complete$")
)

// msgEachBlock calls f with every content block of every message and of the system prompt of a
// Create a Message body, in render order.
func msgEachBlock(body map[string]any, f func(block map[string]any)) {
	lists := []any{body["system"]}
	for _, m := range kit.MessagesOf(body) {
		if turn, ok := m.(map[string]any); ok {
			lists = append(lists, turn["content"])
		}
	}
	for _, l := range lists {
		blocks, _ := l.([]any)
		for _, b := range blocks {
			if bm, ok := b.(map[string]any); ok {
				f(bm)
			}
		}
	}
}

// msgInRequests is InRequests for Create a Message and count_tokens alike.
func msgInRequests(edit func(body map[string]any)) func(http.Handler) http.Handler {
	return kit.Both(kit.InRequests(http.MethodPost, "/v1/messages", edit), kit.InRequests(http.MethodPost, "/v1/messages/count_tokens", edit))
}

// msgClamps is the bug of a target that takes a number field of the JSON body of requests to
// path outside [lo, hi] as the nearest bound instead of refusing it.
func msgClamps(path, field string, lo, hi float64) func(http.Handler) http.Handler {
	return kit.InRequests(http.MethodPost, path, func(b map[string]any) {
		if v, ok := b[field].(float64); ok {
			b[field] = min(max(v, lo), hi)
		}
	})
}

// msgDefaults is the bug of a target that fills a required field in when it is missing.
func msgDefaults(path, field string, value any) func(http.Handler) http.Handler {
	return kit.InRequests(http.MethodPost, path, func(b map[string]any) {
		if _, ok := b[field]; !ok {
			b[field] = value
		}
	})
}

// msgSkipsSecondTurn is the bug of a target that reads only the first of consecutive turns of
// one role.
func msgSkipsSecondTurn(b map[string]any) {
	var kept []any
	for i, m := range kit.MessagesOf(b) {
		if i == 0 || kit.RoleOf(m) != kit.RoleOf(kit.MessagesOf(b)[i-1]) {
			kept = append(kept, m)
		}
	}
	b["messages"] = kept
}

// msgDropsPrefill is the bug of a target that drops a last assistant turn and starts over.
func msgDropsPrefill(b map[string]any) {
	if msgs := kit.MessagesOf(b); len(msgs) > 1 && kit.RoleOf(msgs[len(msgs)-1]) == "assistant" {
		b["messages"] = msgs[:len(msgs)-1]
	}
}

// msgNoCache is the bug of a target that does not simulate prompt caching: the cache fields stay
// 0 and every token is uncached input.
func msgNoCache(_ *http.Request, m map[string]any) {
	if u, ok := m["usage"].(map[string]any); ok {
		in, _ := u["input_tokens"].(float64)
		read, _ := u["cache_read_input_tokens"].(float64)
		made, _ := u["cache_creation_input_tokens"].(float64)
		u["input_tokens"], u["cache_read_input_tokens"], u["cache_creation_input_tokens"] = in+read+made, 0, 0
		u["cache_creation"] = map[string]any{"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
	}
}

// msgFourBreakpoints is the bug of a target that takes any number of cache_control breakpoints:
// it reads past the fourth as if it had none.
func msgFourBreakpoints(b map[string]any) {
	n := 0
	msgEachBlock(b, func(bl map[string]any) {
		if _, ok := bl["cache_control"]; ok {
			if n++; n > 4 {
				delete(bl, "cache_control")
			}
		}
	})
}

// msgDropsThreadOnContinue is the bug of a target that answers a thread continue from its new
// messages alone.
func msgDropsThreadOnContinue(b map[string]any) {
	if th, _ := b["thread"].(map[string]any); th["type"] == "continue" {
		delete(b, "thread")
	}
}

// msgNoErrorDetails is the bug of a target whose 404 for a lost thread has no error.details.
func msgNoErrorDetails(_ *http.Request, status int, _ http.Header, body []byte) []byte {
	var m map[string]any
	if status != http.StatusNotFound || json.Unmarshal(body, &m) != nil {
		return body
	}
	if e, ok := m["error"].(map[string]any); ok {
		delete(e, "details")
	}
	out, _ := json.Marshal(m)
	return out
}

// msgContinueTwice serves h, but lets a reply be continued again: a continue from a reply that
// was already continued is sent on from the latest reply of its thread instead.
func msgContinueTwice(h http.Handler) http.Handler {
	var mu sync.Mutex
	latest := map[string]string{} // a continued reply's id -> the thread's latest reply
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		data, _ := io.ReadAll(r.Body)
		prev := ""
		if r.URL.Path == "/v1/messages" && json.Unmarshal(data, &body) == nil {
			if th, _ := body["thread"].(map[string]any); th["type"] == "continue" {
				prev, _ = th["previous_message_id"].(string)
				mu.Lock()
				if l, ok := latest[prev]; ok {
					th["previous_message_id"] = l
					data, _ = json.Marshal(body)
				}
				mu.Unlock()
			}
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var m struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &m)
		if prev != "" && rec.Code == http.StatusOK && m.ID != "" {
			mu.Lock()
			latest[prev] = m.ID
			for k, v := range latest {
				if v == prev {
					latest[k] = m.ID
				}
			}
			mu.Unlock()
		}
		kit.CopyAnswer(w, rec)
	})
}

// msgClockFrozen is the bug of a fake whose threads never age: the clock's advance is answered
// but not made.
func msgClockFrozen(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_fake/clock/advance" {
			r = httptest.NewRequest(http.MethodGet, "/_fake/clock", nil)
		}
		h.ServeHTTP(w, r)
	})
}

// AsVersion2026 is the bug of a target that answers Messages at version 2026-10-21 whatever
// was asked.
func AsVersion2026(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/messages" {
			r.Header.Del("Anthropic-Version")
			r.Header.Set("Vendor-Version", fake.APIVersion20261021)
		}
		h.ServeHTTP(w, r)
	})
}

// msgUnprefixedErrors is the bug of a target whose error messages do not start with the path of
// the offending field: "messages.0.role: ..." becomes "Invalid request: ...".
func msgUnprefixedErrors(_ *http.Request, status int, _ http.Header, body []byte) []byte {
	var m map[string]any
	if status != http.StatusBadRequest || json.Unmarshal(body, &m) != nil {
		return body
	}
	if e, ok := m["error"].(map[string]any); ok {
		if msg, _ := e["message"].(string); strings.Contains(msg, ": ") {
			e["message"] = "Invalid request: " + msg[strings.Index(msg, ": ")+2:]
		}
	}
	out, _ := json.Marshal(m)
	return out
}

// msgCapsMaxTokens is the bug of a target that cuts a max_tokens above the model's maximum to
// it instead of refusing it: it looks the model up as the request's own credential may.
func msgCapsMaxTokens(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/messages" {
			data, _ := io.ReadAll(r.Body)
			var body map[string]any
			if json.Unmarshal(data, &body) == nil {
				model, _ := body["model"].(string)
				get := httptest.NewRequest(http.MethodGet, "/v1/models/"+model, nil)
				get.Header = r.Header.Clone()
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, get)
				var m struct {
					MaxTokens float64 `json:"max_tokens"`
				}
				if v, ok := body["max_tokens"].(float64); ok && json.Unmarshal(rec.Body.Bytes(), &m) == nil && m.MaxTokens > 0 && v > m.MaxTokens {
					body["max_tokens"] = m.MaxTokens
					data, _ = json.Marshal(body)
				}
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
		}
		h.ServeHTTP(w, r)
	})
}

// msgDropsJSONProperty is the bug of a target whose structured-output text lacks the property.
func msgDropsJSONProperty(name string) func(*http.Request, map[string]any) {
	return func(_ *http.Request, m map[string]any) {
		content, _ := m["content"].([]any)
		for _, b := range content {
			bl, _ := b.(map[string]any)
			text, _ := bl["text"].(string)
			var obj map[string]any
			if bl["type"] == "text" && json.Unmarshal([]byte(text), &obj) == nil {
				delete(obj, name)
				out, _ := json.Marshal(obj)
				bl["text"] = string(out)
			}
		}
	}
}

// msgStripsMinimum is the bug of a target that drops the keyword minimum from a structured-output
// schema instead of refusing it.
func msgStripsMinimum(b map[string]any) {
	var strip func(v any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "minimum")
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	if oc, _ := b["output_config"].(map[string]any); oc != nil {
		strip(oc["format"])
	}
}

// AssistantDocumentAsText is the bug of a target that takes a document directly in an
// assistant message: it reads such a lone block as text.
func AssistantDocumentAsText(b map[string]any) {
	for _, m := range kit.MessagesOf(b) {
		if kit.RoleOf(m) == "assistant" {
			if blocks, _ := m.(map[string]any)["content"].([]any); len(blocks) == 1 {
				m.(map[string]any)["content"] = "Read."
			}
		}
	}
}

// FillsEmptyCitations is the bug of a target that refuses an empty citations array on a
// user text block as it refuses a non-empty one.
func FillsEmptyCitations(b map[string]any) {
	msgEachBlock(b, func(bm map[string]any) {
		if cs, ok := bm["citations"].([]any); ok && len(cs) == 0 {
			bm["citations"] = []any{map[string]any{"type": "char_location", "cited_text": "x", "document_index": 0, "start_char_index": 0, "end_char_index": 1}}
		}
	})
}

// msgVaries is the bug of a scripted model whose reply to the same request changes: each
// answer's first text block ends with how many answers came before it.
func msgVaries(h http.Handler) http.Handler {
	var mu sync.Mutex
	n := 0
	return kit.InOKAnswers(msgCreate, func(_ *http.Request, m map[string]any) {
		content, _ := m["content"].([]any)
		for _, b := range content {
			if bl, _ := b.(map[string]any); bl["type"] == "text" {
				mu.Lock()
				n++
				bl["text"] = bl["text"].(string) + strings.Repeat(" again", n)
				mu.Unlock()
				return
			}
		}
	})(h)
}

// msgIgnoresUnknownScenario is the bug of a fake that answers an unknown Fake-Scenario name as
// if there were no header.
func msgIgnoresUnknownScenario(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" || r.Header.Get(headerScenario) == "" {
			h.ServeHTTP(w, r)
			return
		}
		data, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(data))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code == http.StatusBadRequest {
			r.Header.Del(headerScenario)
			r.Body = io.NopCloser(bytes.NewReader(data))
			h.ServeHTTP(w, r)
			return
		}
		kit.CopyAnswer(w, rec)
	})
}

// msgRulesMissUpperCase is the bug of a fake whose scenario rules select nothing: a request
// without Fake-Scenario is read with its user texts upper-cased, which no rule matches.
func msgRulesMissUpperCase(h http.Handler) http.Handler {
	up := kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
		for _, m := range kit.MessagesOf(b) {
			if turn, _ := m.(map[string]any); kit.RoleOf(m) == "user" {
				if s, ok := turn["content"].(string); ok {
					turn["content"] = strings.ToUpper(s)
				}
			}
		}
	})(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(headerScenario) != "" {
			h.ServeHTTP(w, r)
			return
		}
		up.ServeHTTP(w, r)
	})
}

// msgStubTypoAccepted is the bug of a fake that registers a stub whose block type is unknown,
// reading "txt" as "text".
func msgStubTypoAccepted(b map[string]any) {
	replies, _ := b["replies"].([]any)
	for _, rp := range replies {
		content, _ := rp.(map[string]any)["content"].([]any)
		for _, bl := range content {
			if bm, _ := bl.(map[string]any); bm["type"] == "txt" {
				bm["type"] = "text"
			}
		}
	}
}

// msgRewriteBody passes the JSON body of r through edit before the target reads it.
func msgRewriteBody(r *http.Request, edit func(body map[string]any)) {
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	if json.Unmarshal(data, &body) == nil {
		edit(body)
		data, _ = json.Marshal(body)
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
}

// msgCountWrites is the bug of a target whose count_tokens writes the prompt cache: it also
// serves each count as a pre-warm (max_tokens 0) of the same prompt.
func msgCountWrites(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msgCount(r) {
			data, _ := io.ReadAll(r.Body)
			var body map[string]any
			if json.Unmarshal(data, &body) == nil {
				body["max_tokens"] = 0
				warm, _ := json.Marshal(body)
				pre := r.Clone(r.Context())
				pre.URL.Path, pre.RequestURI = "/v1/messages", ""
				pre.Body, pre.ContentLength = io.NopCloser(bytes.NewReader(warm)), int64(len(warm))
				h.ServeHTTP(httptest.NewRecorder(), pre)
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
		}
		h.ServeHTTP(w, r)
	})
}
