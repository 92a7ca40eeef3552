package kit

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestReportsBoundARequestBodyOfMegabytes: a check that sent 100,001 messages (the limit check)
// and failed shows its request in every report cut, with its size, and its curl reproducer
// without the body: the HTML report of such a run once weighed 6.7 MB.
func TestReportsBoundARequestBodyOfMegabytes(t *testing.T) {
	msgs := make([]any, 100_001)
	for i := range msgs {
		msgs[i] = map[string]any{"role": "user", "content": "x"}
	}
	body, _ := json.Marshal(map[string]any{"model": "m", "max_tokens": 1, "messages": msgs})
	req, _ := http.NewRequest(http.MethodPost, "http://deployment.example/v1/messages", bytes.NewReader(body))
	x := &Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"type":"message"}`),
		req: &Request{Method: http.MethodPost, Path: "/v1/messages"}, sent: req, sentBody: body}
	r := &Run{Config: Config{BaseURL: "http://deployment.example"}}
	r.setSecrets(r.Config)
	c := Check{ID: "messages/messages-limit", Clause: "8", Title: "a request with more than 100,000 messages is refused", Labels: []Label{Messages}}
	r.Add(c, Failed, "POST /v1/messages -> 200: the answer is 400", 0, []*Response{x}, nil)
	page, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	results, _ := r.JSON()
	for name, report := range map[string]string{"HTML": string(page), "Markdown": r.Markdown(), "JSON": string(results)} {
		if len(report) > 64<<10 {
			t.Errorf("the %s report is %d bytes for a request body of %d: want it bounded", name, len(report), len(body))
		}
	}
	size := "(cut: " + strings.TrimSpace(jsonInt(len(body))) + " bytes in all)"
	if !strings.Contains(r.Markdown(), size) {
		t.Errorf("the Markdown report does not give the cut body's size %q", size)
	}
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }
