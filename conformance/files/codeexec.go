package files

import (
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// The files the code execution tool makes: the one kind of file a client can download.

// codeExecutionTool is the version of the code execution tool the check declares, and the beta
// value that version takes on the platform.
const (
	codeExecutionTool = "code_execution_20250825"
	codeExecutionBeta = "code-execution-2025-08-25"
)

// codeExecutionReq asks the model to write a small file with the code execution tool.
func codeExecutionReq(model string) kit.Request {
	body := map[string]any{"model": model, "max_tokens": 2048,
		"tools": []any{map[string]any{"type": codeExecutionTool, "name": "code_execution"}},
		"messages": []any{map[string]any{"role": "user", "content": "Use the code execution tool to write a CSV file named output.csv " +
			"with a header row and three data rows of small numbers, so that I can download it. Keep your answer short."}}}
	return kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages", Body: body, Schema: "messages/message",
		Header: http.Header{"vendor-beta": {codeExecutionBeta}}}
}

// outputFileIDs are the file_ids of the outputs the answer's code execution results name, in
// order: code_execution_output and bash_code_execution_output items.
func outputFileIDs(resp *kit.Response) []string {
	var out []string
	for _, b := range resp.Get("content").Array() {
		for _, it := range b.Get("content.content").Array() {
			if typ := it.Get("type").String(); strings.HasSuffix(typ, "code_execution_output") {
				out = append(out, it.Get("file_id").String())
			}
		}
	}
	return out
}

func codeExecutionChecks() []kit.Check {
	return []kit.Check{
		{ID: "files/code-execution-output-downloadable", Clause: "gaps §12", Labels: []kit.Label{kit.Files, kit.Extension, kit.Costly},
			Title: "a file the code execution tool wrote is a file of the caller's, downloadable: its metadata says downloadable: true and its content is its bytes, while an uploaded file's content is refused with file_not_downloadable",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				uploaded := Upload(t, "mine.txt", "text/plain", "uploaded, not for download").Get("id").String()
				resp := t.Do(codeExecutionReq(model))
				if resp.Status == http.StatusBadRequest && strings.Contains(resp.Get("error.message").String(), "code_execution") {
					t.Unsupported("the target does not serve the code execution tool %s: %s", codeExecutionTool, resp.Get("error.message"))
				}
				t.Expect(resp.Status).To(Equal(http.StatusOK), "the request is answered: %s", resp)
				ids := outputFileIDs(resp)
				if len(ids) == 0 {
					t.Unsupported("the model wrote no output file with the code execution tool (the answer names none): %s", resp)
				}
				for _, id := range ids {
					t.Cleanup("delete file "+id, t.Delete(kit.Request{Area: kit.Files, Method: http.MethodDelete, Path: "/v1/files/" + id}))
				}
				id := ids[0]
				meta := t.Do(getReq(id, ""))
				t.Expect(meta.Status).To(Equal(http.StatusOK), "the output's file_id %s names a file of the caller's: %s", id, meta)
				t.Expect(meta.Get("downloadable").Bool()).To(BeTrue(), "a file the code execution tool wrote is downloadable: %s", meta)
				content := t.Do(getReq(id, "/content"))
				t.Expect(content.Status).To(Equal(http.StatusOK), "its content is served: %s", content)
				t.Expect(int64(len(content.Body))).To(Equal(meta.Get("size_bytes").Int()), "the content is size_bytes long")
				refused := t.Do(getReq(uploaded, "/content"))
				t.ExpectError(refused, http.StatusBadRequest, "invalid_request_error")
				t.Expect(refused.Get("error.details.error_code").String()).To(Equal("file_not_downloadable"), "%s", refused)
			},
			Bug: &kit.Bug{Says: "a code execution output names a file the target never made", Want: "names a file of the caller's",
				Break: kit.InRouteOKAnswers(http.MethodPost, `^/v1/messages$`, func(_ *http.Request, m map[string]any) {
					content, _ := m["content"].([]any)
					for i, b := range content {
						block, _ := b.(map[string]any)
						inner, _ := block["content"].(map[string]any)
						items, _ := inner["content"].([]any)
						for _, it := range items {
							if it, _ := it.(map[string]any); it != nil && it["file_id"] != nil {
								it["file_id"] = fmt.Sprintf("file_01NeverMade%d", i)
							}
						}
					}
				})}},
	}
}
