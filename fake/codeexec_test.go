package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake/internal/areas/files"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/model"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// The expected shapes of these tests come from the Platform API reference's response blocks
// (server_tool_use named code_execution or bash_code_execution; code_execution_tool_result with
// {type: code_execution_result, stdout, stderr, return_code, content: [{file_id, type:
// code_execution_output}]}, and the bash equivalents), the official SDKs' Message.container
// ("non-null if a container tool (e.g. code execution) was used") and the Files API's rule that
// files the code execution tool made are downloadable while uploaded ones are not.

// codeRequest is a Messages body that declares the code execution tool of version typ.
func codeRequest(typ, text string, extra ...string) string {
	return `{"model":"assistant-opus-4-7","max_tokens":400,"messages":[{"role":"user","content":` + fmt.Sprintf("%q", text) + `}],` +
		`"tools":[{"type":"` + typ + `","name":"code_execution"}]` + strings.Join(extra, "") + `}`
}

func postJSON(t testing.TB, s http.Handler, path, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	return send(t, s, http.MethodPost, path, body, append(append([]string{"Content-Type", "application/json"}, apiHeaders...), header...)...)
}

// outputFileID is the file_id of the first output of the tool result at content index i.
func outputFileID(msg gjson.Result, i int) string {
	return msg.Get(fmt.Sprintf("content.%d.content.content.0.file_id", i)).String()
}

// wantDownloadable checks that id is a file of the caller's, downloadable, whose bytes the
// download answers; it returns them.
func wantDownloadable(t *testing.T, s http.Handler, id, filename string) string {
	t.Helper()
	w := get(t, s, "/v1/files/"+id)
	meta := gjson.Parse(w.Body.String())
	if w.Code != 200 || meta.Get("downloadable").Type != gjson.True || meta.Get("filename").String() != filename || meta.Get("mime_type").String() != "text/csv" {
		t.Fatalf("metadata of %s: %d %s", id, w.Code, w.Body)
	}
	d := get(t, s, "/v1/files/"+id+"/content")
	if d.Code != 200 || !strings.HasPrefix(d.Body.String(), "row,word,value\n") || int64(d.Body.Len()) != meta.Get("size_bytes").Int() {
		t.Fatalf("download of %s: %d %q", id, d.Code, d.Body)
	}
	return d.Body.String()
}

// TestCodeExecutionMakesADownloadableFile: for each version of the tool, the scripted model
// calls it in the version's shape, and the output file it names is a file of the caller's,
// listed and downloadable; the answer carries its container; an uploaded file stays not
// downloadable. The same request to a new server makes the same bytes.
func TestCodeExecutionMakesADownloadableFile(t *testing.T) {
	for _, v := range []struct{ typ, call, result, output string }{
		{"code_execution_20250522", "code_execution", "code_execution_tool_result", "code_execution_output"},
		{"code_execution_20250825", "bash_code_execution", "bash_code_execution_tool_result", "bash_code_execution_output"},
		{"code_execution_20260120", "bash_code_execution", "bash_code_execution_tool_result", "bash_code_execution_output"},
	} {
		t.Run(v.typ, func(t *testing.T) {
			var bytes [2]string
			for i := range bytes {
				s := filesServer(t)
				uploaded := uploadOK(t, s, "in.txt", "text/plain", "hello")
				w := postJSON(t, s, "/v1/messages", codeRequest(v.typ, "Make me a small table"))
				if w.Code != 200 {
					t.Fatalf("%d %s", w.Code, w.Body)
				}
				msg := gjson.Parse(w.Body.String())
				use, res := msg.Get("content.0"), msg.Get("content.1")
				wantInput := "code"
				if v.call == "bash_code_execution" {
					wantInput = "command"
				}
				if use.Get("type").String() != "server_tool_use" || use.Get("name").String() != v.call || !strings.HasPrefix(use.Get("id").String(), "srvtoolu_") ||
					use.Get("input."+wantInput).String() == "" || use.Get("caller.type").String() != "direct" {
					t.Fatalf("the call: %s", use.Raw)
				}
				if res.Get("type").String() != v.result || res.Get("tool_use_id").String() != use.Get("id").String() ||
					res.Get("content.return_code").Int() != 0 || !strings.HasPrefix(res.Get("content.stdout").String(), "wrote output.csv: ") ||
					res.Get("content.content.0.type").String() != v.output || res.Get("content.content.#").Int() != 1 {
					t.Fatalf("the result: %s", res.Raw)
				}
				if last := msg.Get("content.@reverse.0"); last.Get("type").String() != "text" || msg.Get("stop_reason").String() != "end_turn" {
					t.Errorf("the answer ends with %s, stop_reason %s", last.Raw, msg.Get("stop_reason"))
				}
				if ct := msg.Get("container"); !strings.HasPrefix(ct.Get("id").String(), "container_") || ct.Get("expires_at").String() == "" {
					t.Errorf("container: %s", ct.Raw)
				}
				id := outputFileID(msg, 1)
				bytes[i] = wantDownloadable(t, s, id, "output.csv")
				if list := get(t, s, "/v1/files").Body.String(); gjson.Get(list, "data.0.id").String() != id {
					t.Errorf("the list does not start with the output file %s: %s", id, list)
				}
				wantFileError(t, get(t, s, "/v1/files/"+uploaded+"/content"), 400, core.ErrInvalidRequest, files.CodeNotDownloadable, "file: ")
			}
			if bytes[0] != bytes[1] {
				t.Errorf("the same request made different files:\n%s\n%s", bytes[0], bytes[1])
			}
		})
	}
}

// TestCodeExecutionRule: the scripted model runs the tool as it calls a custom tool under
// "auto", and a request answered without it, or cut short before it, makes no file.
func TestCodeExecutionRule(t *testing.T) {
	const typ = "code_execution_20250825"
	toolResult := `{"model":"assistant-opus-4-7","max_tokens":400,"tools":[{"type":"` + typ + `","name":"code_execution"},{"name":"get","input_schema":{"type":"object"}}],` +
		`"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`
	for name, body := range map[string]string{
		"tool_choice none":       codeRequest(typ, "Make a table", `,"tool_choice":{"type":"none"}`),
		"a tool_result turn":     toolResult,
		"max_tokens too small":   strings.Replace(codeRequest(typ, "Make a table"), `"max_tokens":400`, `"max_tokens":20`, 1),
		"structured output":      codeRequest(typ, "Make a table", `,"output_config":{"format":{"type":"json_schema","schema":{"type":"object","additionalProperties":false}}}`),
		"no code execution tool": strings.Replace(codeRequest(typ, "Make a table"), `"type":"`+typ+`",`, `"type":"web_search_20250305",`, 1),
		"an assistant turn ends": strings.Replace(codeRequest(typ, "Make a table"), `}],"tools"`, `},{"role":"assistant","content":"Sure"}],"tools"`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			s := filesServer(t)
			w := postJSON(t, s, "/v1/messages", body)
			if w.Code != 200 {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if strings.Contains(w.Body.String(), "code_execution") || gjson.Get(w.Body.String(), "container").Type != gjson.Null {
				t.Errorf("ran code: %s", w.Body)
			}
			if n := gjson.Get(get(t, s, "/v1/files").Body.String(), "data.#").Int(); n != 0 {
				t.Errorf("%d files made", n)
			}
		})
	}
	// With a custom tool as well, under auto, the model runs the code, then calls the tool.
	s := filesServer(t)
	w := postJSON(t, s, "/v1/messages", strings.Replace(codeRequest(typ, "Make a table"), `"name":"code_execution"}]`, `"name":"code_execution"},{"name":"get","input_schema":{"type":"object"}}]`, 1))
	msg := gjson.Parse(w.Body.String())
	if msg.Get("content.0.name").String() != "bash_code_execution" || msg.Get("content.@reverse.0.type").String() != "tool_use" || msg.Get("stop_reason").String() != "tool_use" {
		t.Errorf("code and a custom tool: %s", w.Body)
	}
}

// TestCodeExecutionStreamNamesTheFile: a streamed answer names the file the commit stage made.
func TestCodeExecutionStreamNamesTheFile(t *testing.T) {
	s := filesServer(t)
	w := postJSON(t, s, "/v1/messages", codeRequest("code_execution_20250522", "Make a table", `,"stream":true`))
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	events, err := ParseEventStream(w.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	msg, err := AccumulateMessage(events)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := msg.Content[1]["content"].(map[string]any)["content"].([]any)[0].(map[string]any)["file_id"].(string)
	if !strings.HasPrefix(id, "file_") || id == "file_pending" || msg.Container == nil {
		t.Fatalf("stream: %s", w.Body)
	}
	wantDownloadable(t, s, id, "output.csv")
}

// TestCodeExecutionOutputOverQuota: when the organization's files have no room, no file is
// made and the tool's result is its error; the message counts its output tokens again.
func TestCodeExecutionOutputOverQuota(t *testing.T) {
	s := filesServer(t)
	for i := range files.MaxOrgFiles {
		uploadOK(t, s, fmt.Sprintf("f%d.txt", i), "text/plain", "x")
	}
	for typ, want := range map[string]string{
		"code_execution_20250522": `code_execution_tool_result_error unavailable`,
		"code_execution_20250825": `bash_code_execution_tool_result_error output_file_too_large`,
	} {
		w := postJSON(t, s, "/v1/messages", codeRequest(typ, "Make a table"))
		msg := gjson.Parse(w.Body.String())
		if w.Code != 200 || msg.Get("content.1.content.type").String()+" "+msg.Get("content.1.content.error_code").String() != want ||
			len(msg.Get("content.1.content").Map()) != 2 || msg.Get("content.1.tool_use_id").String() != msg.Get("content.0.id").String() {
			t.Errorf("%s over quota: %d %s", typ, w.Code, w.Body)
		}
		if strings.Contains(w.Body.String(), "file_pending") {
			t.Errorf("%s: a placeholder left: %s", typ, w.Body)
		}
		var m Message
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if n := model.OutputTokens(m.Content); m.Usage.OutputTokens != n {
			t.Errorf("%s: output_tokens %d, the content answered counts %d", typ, m.Usage.OutputTokens, n)
		}
	}
	if n := gjson.Get(get(t, s, "/v1/files?limit=1000").Body.String(), "data.#").Int(); n != files.MaxOrgFiles {
		t.Errorf("%d files, want the %d uploaded", n, files.MaxOrgFiles)
	}
}

// TestCodeExecutionScenarioFiles: a library scenario's output file_ids are placeholders: each
// answer names files made for it, downloadable, and the library itself is unchanged. A stub's
// file_ids are the test's own and kept as written.
func TestCodeExecutionScenarioFiles(t *testing.T) {
	s := filesServer(t)
	body := `{"model":"assistant-opus-4-7","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`
	var ids []string
	for _, sc := range []struct {
		name string
		at   int
	}{{"code-execution", 1}, {"code-execution", 1}, {"bash", 2}} {
		w := postJSON(t, s, "/v1/messages", body, scenarios.HeaderScenario, sc.name)
		msg := gjson.Parse(w.Body.String())
		id := outputFileID(msg, sc.at)
		if w.Code != 200 || !strings.HasPrefix(id, "file_01") || id == "file_01CodeOutput" || id == "file_01BashOutput" {
			t.Fatalf("%s: %d %s", sc.name, w.Code, w.Body)
		}
		if !strings.HasPrefix(msg.Get("container.id").String(), "container_") {
			t.Errorf("%s: container %s", sc.name, msg.Get("container").Raw)
		}
		wantDownloadable(t, s, id, "output.csv")
		ids = append(ids, id)
	}
	if ids[0] == ids[1] {
		t.Errorf("two answers named one file %s", ids[0])
	}
	lib := scenarios.ScenariosSection.In(s.srv.State().Fx.Sections)
	sc, _ := lib.Named("code-execution")
	if got := sc.Response.Content[1]["content"].(map[string]any)["content"].([]any)[0].(map[string]any)["file_id"]; got != "file_01CodeOutput" {
		t.Errorf("the library's scenario was changed: file_id %v", got)
	}
	// A stub's reply is kept as written.
	st := Stub{Replies: []Reply{{Content: []map[string]any{
		{"type": "server_tool_use", "id": "srvtoolu_s", "name": "code_execution", "input": map[string]any{"code": "1"}, "caller": map[string]any{"type": "direct"}},
		{"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_s", "content": map[string]any{"type": "code_execution_result", "stdout": "", "stderr": "", "return_code": 0,
			"content": []any{map[string]any{"type": "code_execution_output", "file_id": "file_mine"}}}},
	}}}}
	if _, err := s.AddStub(st); err != nil {
		t.Fatal(err)
	}
	w := postJSON(t, s, "/v1/messages", body)
	if got := outputFileID(gjson.Parse(w.Body.String()), 1); got != "file_mine" {
		t.Errorf("the stub's file_id: %q (%s)", got, w.Body)
	}
}

// TestCodeExecutionSkillFile: with skills in the container, the scripted model runs the first
// skill, and its output file is named after it; the container echoes the skills.
func TestCodeExecutionSkillFile(t *testing.T) {
	s := filesServer(t)
	w := postJSON(t, s, "/v1/messages", codeRequest("code_execution_20250825", "Make a deck",
		`,"container":{"skills":[{"type":"custom","skill_id":"skill_01Deck","version":"latest"}]}`), "anthropic-beta", "skills-2025-10-02")
	msg := gjson.Parse(w.Body.String())
	if w.Code != 200 || msg.Get("container.skills.0.skill_id").String() != "skill_01Deck" || !strings.Contains(msg.Get("content.0.input.command").String(), "skill_01Deck") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	wantDownloadable(t, s, outputFileID(msg, 1), "skill_01Deck_output.csv")
}

// TestCodeExecutionInABatch: a batch's request is answered as sent alone, at the batch's
// creation: its output file is made then, in the batch's organization, and the result line
// names it.
func TestCodeExecutionInABatch(t *testing.T) {
	s := filesServer(t)
	b := createBatchOK(t, s, batchBody(batchRequest("code", codeRequest("code_execution_20250825", "Make a table"))), "Fake-Batch-Pace", "0")
	id := b.Get("id").String()
	w := batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id+"/results", "")
	lines := resultLines(t, w.Body.String())
	if len(lines) != 1 || lines[0].Get("result.type").String() != "succeeded" {
		t.Fatalf("results: %s", w.Body)
	}
	// The batch's key is the default one: the file is its organization's.
	file := outputFileID(lines[0].Get("result.message"), 1)
	if w := get(t, s, "/v1/files/"+file); w.Code != 404 {
		t.Errorf("another organization sees the batch's file: %d %s", w.Code, w.Body)
	}
	if w := batchSend(t, s, http.MethodGet, "/v1/files/"+file+"/content", ""); w.Code != 200 || !strings.HasPrefix(w.Body.String(), "row,word,value\n") {
		t.Errorf("download with the batch's key: %d %s", w.Code, w.Body)
	}
}

// TestCodeExecutionTapeMakesNoFile: a recorded answer is the upstream's, and a replayed one the
// recording's: neither the recording server nor the replaying one makes a file for it (the
// file_ids are the upstream's), however often it is replayed.
func TestCodeExecutionTapeMakesNoFile(t *testing.T) {
	var body map[string]any
	if err := json.Unmarshal([]byte(codeRequest("code_execution_20250825", "Make a table")), &body); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	up := newUpstream(t, 0, nil)
	rec := tapeServer(t, TapeConfig{Upstream: up.URL, Record: dir})
	_, _, recorded := tapeCall(t, rec, http.MethodPost, "/v1/messages", body)
	id := outputFileID(gjson.ParseBytes(recorded), 1)
	if !strings.HasPrefix(id, "file_01") {
		t.Fatalf("recorded: %s", recorded)
	}
	play := tapeServer(t, TapeConfig{Replay: dir, OnMiss: OnMissError})
	for range 2 {
		if _, _, out := tapeCall(t, play, http.MethodPost, "/v1/messages", body); outputFileID(gjson.ParseBytes(out), 1) != id {
			t.Errorf("replayed: %s", out)
		}
	}
	for name, ts := range map[string]*TestServer{"recording": rec, "replaying": play} {
		// A taped route takes any key and forwards it; the files are the fake's own keys'.
		for _, key := range []string{core.DefaultAPIKey, filesKey} {
			list := func(h http.Handler) *httptest.ResponseRecorder {
				return send(t, h, http.MethodGet, "/v1/files", "", "X-Api-Key", key, "anthropic-version", core.APIVersion)
			}
			if w, fixtures := list(ts.Fake), list(New()); w.Code != 200 || w.Body.String() != fixtures.Body.String() {
				t.Errorf("the %s server made files: %d %s\nthe fixtures' list: %s", name, w.Code, w.Body, fixtures.Body)
			}
		}
	}
}
