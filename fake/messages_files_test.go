package fake

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake/internal/areas/files"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// A file_id in a Messages request. The shapes come from the official SDKs' types (Python
// 2.14.0: the file sources {"type": "file", "file_id"} of document and image blocks, and
// container_upload blocks); the token counts are checked against the same request with the
// file's content inline (base64, or a plain-text source), which is what "counted like the
// inline form" means, not against the counter's own arithmetic.

// uploadAs uploads one file with the key and answers its ID; more parts (expires_in_seconds)
// may follow.
func uploadAs(t *testing.T, ts *TestServer, key, filename, contentType string, data []byte, more ...part) string {
	t.Helper()
	body, ct := multipartBody(t, append([]part{{"file", filename, contentType, data}}, more...)...)
	w := send(t, ts.Fake, http.MethodPost, "/v1/files", body, "Content-Type", ct, "X-Api-Key", key, "anthropic-version", core.APIVersion20261021)
	if w.Code != http.StatusOK {
		t.Fatalf("upload %s: %d %s", filename, w.Code, w.Body)
	}
	return gjson.Get(w.Body.String(), "id").String()
}

func fileSource(id string) map[string]any { return map[string]any{"type": "file", "file_id": id} }

func base64Source(mediaType string, data []byte) map[string]any {
	return map[string]any{"type": "base64", "media_type": mediaType, "data": base64.StdEncoding.EncodeToString(data)}
}

func docBlock(src map[string]any) map[string]any {
	return map[string]any{"type": "document", "source": src}
}

func imageBlock(src map[string]any) map[string]any {
	return map[string]any{"type": "image", "source": src}
}

// countOf is count_tokens's figure for the messages, with the key.
func countOf(t *testing.T, ts *TestServer, messages []any, header ...string) int64 {
	t.Helper()
	status, out := postMessages(t, ts, "/v1/messages/count_tokens", map[string]any{"model": testModel, "messages": messages}, header...)
	if status != http.StatusOK {
		t.Fatalf("count_tokens = %d %s", status, out)
	}
	return gjson.GetBytes(out, "input_tokens").Int()
}

var (
	pdfBytes  = []byte("%PDF-1.7\n1 0 obj << /Type /Page >> endobj\n" + strings.Repeat("stream\nBT (A page of the report.) Tj ET\nendstream\n", 60))
	pngBytes  = append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 3000)...)
	textBytes = []byte(strings.Repeat("The quarterly report says revenue grew. ", 120))
)

// TestMessagesFileIDCountsAsTheInlineForm: a document or image named by file_id counts, in
// count_tokens and in a message's usage, exactly as the same content sent inline; so does one in
// a tool_result's content.
func TestMessagesFileIDCountsAsTheInlineForm(t *testing.T) {
	ts := NewTestServer(t)
	pdf := uploadAs(t, ts, "test-api-key", "report.pdf", "application/pdf", pdfBytes)
	txt := uploadAs(t, ts, "test-api-key", "report.txt", "text/plain", textBytes)
	png := uploadAs(t, ts, "test-api-key", "chart.png", "image/png", pngBytes)
	ask := map[string]any{"type": "text", "text": "Summarize it."}
	toolResult := func(b any) map[string]any {
		return map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": []any{b}}
	}
	call := map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "get_chart", "input": map[string]any{}}}}
	for _, c := range []struct {
		name         string
		byID, inline []any
	}{
		{"PDF document", userTurn([]any{docBlock(fileSource(pdf)), ask}), userTurn([]any{docBlock(base64Source("application/pdf", pdfBytes)), ask})},
		{"plain-text document", userTurn([]any{docBlock(fileSource(txt)), ask}),
			userTurn([]any{docBlock(map[string]any{"type": "text", "media_type": "text/plain", "data": string(textBytes)}), ask})},
		{"PNG image", userTurn([]any{imageBlock(fileSource(png)), ask}), userTurn([]any{imageBlock(base64Source("image/png", pngBytes)), ask})},
		{"image in a content document", userTurn([]any{docBlock(map[string]any{"type": "content", "content": []any{imageBlock(fileSource(png))}}), ask}),
			userTurn([]any{docBlock(map[string]any{"type": "content", "content": []any{imageBlock(base64Source("image/png", pngBytes))}}), ask})},
		{"image in a tool_result", append(append(userTurn("Chart?"), call), userTurn([]any{toolResult(imageBlock(fileSource(png)))})...),
			append(append(userTurn("Chart?"), call), userTurn([]any{toolResult(imageBlock(base64Source("image/png", pngBytes)))})...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			byID, inline := countOf(t, ts, c.byID), countOf(t, ts, c.inline)
			if byID != inline {
				t.Errorf("count_tokens by file_id = %d, inline = %d: want the same", byID, inline)
			}
			m := create(t, ts, map[string]any{"model": testModel, "max_tokens": 50, "messages": c.byID})
			if got := m.Get("usage.input_tokens").Int(); got != inline {
				t.Errorf("usage.input_tokens by file_id = %d, want the inline count %d", got, inline)
			}
		})
	}
}

// TestMessagesFileIDCaches: a cache_control on a document named by file_id writes the prefix
// the inline form of the same content writes, and the same request then reads it.
func TestMessagesFileIDCaches(t *testing.T) {
	ts := NewTestServer(t)
	txt := uploadAs(t, ts, "test-api-key", "report.txt", "text/plain", textBytes)
	body := func(src map[string]any) map[string]any {
		doc := docBlock(src)
		doc["cache_control"] = cc5m
		return cacheBody("messages", userTurn([]any{doc, map[string]any{"type": "text", "text": "Summarize it."}}))
	}
	first := usageOf(create(t, ts, body(fileSource(txt))))
	inline := usageOf(create(t, ts, body(map[string]any{"type": "text", "media_type": "text/plain", "data": string(textBytes)})))
	if first[1] == 0 || first != inline {
		t.Errorf("by file_id, the first request's usage (read, creation, 5m, 1h, input) = %v, want the inline form's %v, with a write", first, inline)
	}
	again := usageOf(create(t, ts, body(fileSource(txt))))
	if want := [5]int64{first[1], 0, 0, 0, first[4]}; again != want {
		t.Errorf("the same request again = %v, want %v: the prefix read", again, want)
	}
}

// TestMessagesFileIDRefusals: a file_id the request's key cannot use is refused with the files
// area's error, naming the file_id's path, by Messages, by count_tokens and in a thread's
// continue (which stands for the whole conversation).
func TestMessagesFileIDRefusals(t *testing.T) {
	ts := NewTestServer(t)
	pdf := uploadAs(t, ts, "test-api-key", "report.pdf", "application/pdf", pdfBytes)
	gone := uploadAs(t, ts, "test-api-key", "gone.pdf", "application/pdf", pdfBytes)
	if w := send(t, ts.Fake, http.MethodDelete, "/v1/files/"+gone, "", "X-Api-Key", "test-api-key", "anthropic-version", core.APIVersion); w.Code != 200 {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	soon := uploadAs(t, ts, "test-api-key", "soon.pdf", "application/pdf", pdfBytes, part{"expires_in_seconds", "", "", []byte("3600")})
	otherOrg := uploadAs(t, ts, filesKey, "theirs.pdf", "application/pdf", pdfBytes)
	ts.Fake.AdvanceClock(time.Hour)
	const at = "messages.0.content.1.source.file_id"
	doc := func(id string) []any {
		return userTurn([]any{map[string]any{"type": "text", "text": "Read:"}, docBlock(fileSource(id))})
	}
	cases := []struct {
		name      string
		messages  []any
		key       string
		status    int
		code, msg string
	}{
		{"unknown", doc("file_01Unknown"), "test-api-key", 404, "", at + `: file "file_01Unknown" was not found`},
		{"deleted", doc(gone), "test-api-key", 404, "", at + ": file "},
		{"expired", doc(soon), "test-api-key", 404, files.CodeExpired, at + ": file "},
		{"another workspace's", doc(pdf), "test-api-key-research", 404, "", at + ": file "},
		{"another organization's", doc(otherOrg), "test-api-key", 404, "", at + ": file "},
		{"a PDF as an image", userTurn([]any{map[string]any{"type": "text", "text": "See:"}, imageBlock(fileSource(pdf))}), "test-api-key", 400, "", at + ": file "},
		{"an unknown container upload", userTurn([]any{map[string]any{"type": "text", "text": "Run:"}, map[string]any{"type": "container_upload", "file_id": "file_01Unknown"}}),
			"test-api-key", 404, "", "messages.0.content.1.file_id: file "},
		{"in a tool_result", append(append(userTurn("Chart?"), map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "get_chart", "input": map[string]any{}}}}),
			userTurn([]any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": []any{imageBlock(fileSource(gone))}}})...),
			"test-api-key", 404, "", "messages.2.content.0.content.0.source.file_id: file "},
	}
	for _, c := range cases {
		for _, route := range []string{"/v1/messages", "/v1/messages/count_tokens"} {
			body := map[string]any{"model": testModel, "max_tokens": 50, "messages": c.messages}
			if strings.HasSuffix(route, "count_tokens") {
				delete(body, "max_tokens")
			}
			status, out := postMessages(t, ts, route, body, "X-Api-Key", c.key)
			e := gjson.GetBytes(out, "error")
			wantType := map[int]string{404: core.ErrNotFound, 400: core.ErrInvalidRequest}[c.status]
			if status != c.status || e.Get("type").String() != wantType || e.Get("details.error_code").String() != c.code || !strings.HasPrefix(e.Get("message").String(), c.msg) {
				t.Errorf("%s, %s: %d %s\nwant %d %s error_code %q, message starting %q", c.name, route, status, out, c.status, wantType, c.code, c.msg)
			}
		}
	}
}

// TestMessagesFileIDInAThreadContinue: a continue is checked as the conversation it expands to,
// so a file its earlier turn named and that is gone since is refused, at its place in the whole
// conversation.
func TestMessagesFileIDInAThreadContinue(t *testing.T) {
	ts := NewTestServer(t)
	pdf := uploadAs(t, ts, "test-api-key", "report.pdf", "application/pdf", pdfBytes)
	status, _, first := threadPost(t, ts, map[string]any{"model": testModel, "max_tokens": 50, "thread": threadCreate(),
		"messages": userTurn([]any{docBlock(fileSource(pdf)), map[string]any{"type": "text", "text": "Summarize it."}})})
	if status != http.StatusOK {
		t.Fatalf("thread create: %d %s", status, first.Raw)
	}
	next := map[string]any{"model": testModel, "max_tokens": 50, "thread": threadContinue(first.Get("id").String()), "messages": userTurn("And the totals?")}
	if status, _, m := threadPost(t, ts, next); status != http.StatusOK {
		t.Fatalf("continue with the file there: %d %s", status, m.Raw)
	} else {
		next["thread"] = threadContinue(m.Get("id").String())
	}
	if w := send(t, ts.Fake, http.MethodDelete, "/v1/files/"+pdf, "", "X-Api-Key", "test-api-key", "anthropic-version", core.APIVersion); w.Code != 200 {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	status, _, m := threadPost(t, ts, next)
	if msg := m.Get("error.message").String(); status != http.StatusNotFound || !strings.HasPrefix(msg, "messages.0.content.0.source.file_id: file ") {
		t.Errorf("continue after the file was deleted: %d %s, want 404 naming messages.0.content.0.source.file_id", status, m.Raw)
	}
}
