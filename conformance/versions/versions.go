package versions

import (
	"encoding/json"
	"net/http"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"

	"github.com/platformkit/platformkit/conformance/messages"

	"github.com/platformkit/platformkit/conformance/admin"
)

// The rules that differ between API versions (EXTENSIONS.md, "API versions"). Each check carries
// the label of the version whose rule it verifies and runs only when the suite sends that
// version (CONFORMANCE_API_VERSION): a deployment is right to answer the other version by the
// other rule.

// versionDocument is a small text document; versionCitation cites it.
const (
	versionDocument = `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"The sky is blue."},"title":"Sky"}`
	versionCitation = `{"type":"char_location","cited_text":"The sky is blue.","document_index":0,"start_char_index":0,"end_char_index":16}`
)

// jsonValue decodes a JSON literal of a check's request.
func jsonValue(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic("conformance: a check's JSON literal does not parse: " + err.Error())
	}
	return v
}

// expectFieldRefused requires a 400 invalid_request_error whose message names field.
func expectFieldRefused(t *kit.T, resp *kit.Response, field string) {
	t.ExpectWithOffset(1, resp.Status).To(Equal(http.StatusBadRequest), "a request with %s is refused 400: %s", field, resp)
	t.ExpectWithOffset(1, resp.Get("error.type").String()).To(Equal("invalid_request_error"), "a request with %s is refused as invalid_request_error: %s", field, resp)
	t.ExpectWithOffset(1, resp.Get("error.message").String()).To(ContainSubstring(field), "the message names %s: %s", field, resp)
}

func countReq(body any) kit.Request {
	return kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages/count_tokens", Body: body, Schema: "messages/count_tokens"}
}

func init() {
	kit.Register(
		kit.Check{ID: "messages/v2026-sampling-fields-refused", Clause: "9", Labels: []kit.Label{kit.Messages, kit.Extension, kit.V20261021},
			Title: "at API version 2026-10-21, temperature (even at its default 1.0), top_p and top_k are each refused 400 invalid_request_error naming the field, on Messages and count_tokens",
			Bug:   &kit.Bug{Says: "top_k is still taken at 2026-10-21", Want: "top_k", Break: kit.IgnoresField(http.MethodPost, "/v1/messages", "top_k")},
			Run: func(t *kit.T) {
				model, _ := messages.PickModel(t)
				for _, f := range []struct {
					name  string
					value any
				}{{"temperature", 1.0}, {"temperature", 0}, {"top_p", 0.9}, {"top_k", 5}} {
					expectFieldRefused(t, t.Do(messages.CreateRequest(messages.Body(model, f.name, f.value))), f.name)
					expectFieldRefused(t, t.Do(countReq(messages.Body(model, f.name, f.value, "max_tokens", nil))), f.name)
				}
			}},
		kit.Check{ID: "messages/v2026-assistant-document-refused", Clause: "9", Labels: []kit.Label{kit.Messages, kit.Extension, kit.V20261021},
			Title: "at API version 2026-10-21, a document block directly in an assistant message is refused 400 naming its path, while a document nested in a web fetch result of an assistant message is answered",
			Bug:   &kit.Bug{Says: "a document directly in an assistant message is taken at 2026-10-21", Want: "messages.1.content.0", Break: kit.InRequests(http.MethodPost, "/v1/messages", messages.AssistantDocumentAsText)},
			Run: func(t *kit.T) {
				model, _ := messages.PickModel(t)
				direct := []any{messages.UserTurn("Read it"), jsonValue(`{"role":"assistant","content":[` + versionDocument + `]}`), messages.UserTurn("Sum it up")}
				expectFieldRefused(t, t.Do(messages.CreateRequest(messages.Body(model, "messages", direct))), "messages.1.content.0")
				nested := []any{messages.UserTurn("Fetch it"), jsonValue(`{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_fetch","input":{"url":"https://example.com"}},` +
					`{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"web_fetch_result","url":"https://example.com","content":` + versionDocument + `}}]}`), messages.UserTurn("Sum it up")}
				t.OK(messages.CreateRequest(messages.Body(model, "messages", nested)))
			}},
		kit.Check{ID: "messages/v2026-user-citations-refused", Clause: "9", Labels: []kit.Label{kit.Messages, kit.Extension, kit.V20261021},
			Title: "at API version 2026-10-21, a non-empty citations array on a text block of a user message is refused 400 naming that citations field, while an empty array is answered",
			Bug:   &kit.Bug{Says: "an empty citations array on a user text block is refused like a non-empty one", Want: "the answer is 200", Break: kit.InRequests(http.MethodPost, "/v1/messages", messages.FillsEmptyCitations)},
			Run: func(t *kit.T) {
				model, _ := messages.PickModel(t)
				cited := []any{jsonValue(`{"role":"user","content":[{"type":"text","text":"As the sky is blue","citations":[` + versionCitation + `]}]}`)}
				expectFieldRefused(t, t.Do(messages.CreateRequest(messages.Body(model, "messages", cited))), "messages.0.content.0.citations")
				empty := []any{jsonValue(`{"role":"user","content":[{"type":"text","text":"Hello","citations":[]}]}`)}
				t.OK(messages.CreateRequest(messages.Body(model, "messages", empty)))
			}},
		kit.Check{ID: "messages/v2023-temperature-accepted", Clause: "9", Labels: []kit.Label{kit.Messages, kit.Extension, kit.V20230601},
			Title: "at API version 2023-06-01, a message with temperature (1.0 or 0) is answered 200, not refused",
			Bug:   &kit.Bug{Says: "temperature is refused at 2023-06-01 too", Want: "the answer is 200", Break: messages.AsVersion2026},
			Run: func(t *kit.T) {
				model, _ := messages.PickModel(t)
				for _, v := range []float64{1.0, 0} {
					t.OK(messages.CreateRequest(messages.Body(model, "temperature", v)))
				}
			}},
		kit.Check{ID: "admin/v2026-rate-limits-without-group-type", Clause: "9", Labels: []kit.Label{kit.Admin, kit.Extension, kit.V20261021},
			Title: "at API version 2026-10-21, organization rate-limit entries leave out group_type (group.type names the group)",
			Bug: &kit.Bug{Says: "rate-limit entries keep group_type at 2026-10-21", Want: "no group_type",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, admin.RateLimitsRoute), func(_ *http.Request, m map[string]any) {
					kit.EachDataItem(m, func(e map[string]any) {
						if g, ok := e["group"].(map[string]any); ok {
							e["group_type"] = g["type"]
						}
					})
				})},
			Run: func(t *kit.T) {
				entries := admin.OrgRateLimits(t)
				t.Need("rate-limit entries", len(entries), 1)
				for _, e := range entries {
					t.Expect(e.Get("group_type").Exists()).To(BeFalse(), "an entry has no group_type at 2026-10-21: %s", e.Raw)
					t.Expect(e.Get("group.type").String()).NotTo(BeEmpty(), "an entry names its group.type: %s", e.Raw)
				}
			}},
		kit.Check{ID: "admin/v2023-rate-limits-group-type", Clause: "9", Labels: []kit.Label{kit.Admin, kit.Extension, kit.V20230601},
			Title: "at API version 2023-06-01, every organization rate-limit entry carries group_type equal to its group.type",
			Bug: &kit.Bug{Says: "group_type differs from group.type at 2023-06-01", Want: "group_type equals group.type",
				Break: kit.SetsField(kit.On(http.MethodGet, admin.RateLimitsRoute), "data.*.group_type", "batch")},
			Run: func(t *kit.T) {
				entries := admin.OrgRateLimits(t)
				t.Need("rate-limit entries", len(entries), 1)
				for _, e := range entries {
					t.Expect(e.Get("group_type").Exists()).To(BeTrue(), "an entry has group_type at 2023-06-01: %s", e.Raw)
					t.Expect(e.Get("group_type").String()).To(Equal(e.Get("group.type").String()), "group_type equals group.type: %s", e.Raw)
				}
			}},
	)
}
