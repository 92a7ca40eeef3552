package model

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"
)

// The scripted model's use of the code execution tool. When it runs the tool (RunsCode), the
// answer holds, before its text, one server_tool_use block of the tool's shape for its version
// and the tool's result: a program that writes one file, its stdout, and that file as the
// result's one output. The file's name, type and bytes are a function of the request's seed
// (OutputFile), so the messages area makes the same file at its commit stage from the request
// alone; until then the output names PendingFileID.

// Placeholders the scripted model writes until the answer is known: the messages area gives the
// server tool call its id once the message has its own (as PendingToolUseID), and each output its
// file's ID once the commit stage has stored the file. Each is one token, as every ID is.
const (
	PendingServerToolUseID = "srvtoolu_pending"
	PendingFileID          = "file_pending"
)

// LegacyCodeExecution is the first version of the code execution tool: the model calls it as
// code_execution with Python code. Every later version (code_execution_20250825 and on) gives
// the model bash and a text editor instead: bash_code_execution and
// text_editor_code_execution.
const LegacyCodeExecution = "code_execution_20250522"

// CodeTool is the code execution tool the request declares (a tool whose type is
// code_execution_ and a date), nil without one.
func CodeTool(req *wire.MessageRequest) *wire.ToolDef {
	for i := range req.Tools {
		if strings.HasPrefix(req.Tools[i].Type, "code_execution_") {
			return &req.Tools[i]
		}
	}
	return nil
}

// RunsCode is the code execution tool the scripted model runs for req, nil when it runs none.
// It runs it once, by the rule pickTool has for a custom tool under "auto": when the request
// declares the tool, tool_choice is absent or "auto", no structured output is asked for, and the
// last turn is the user's and carries no tool_result. ("any" and "tool" force a custom tool,
// "none" forbids tools.)
func RunsCode(req *wire.MessageRequest) *wire.ToolDef {
	t := CodeTool(req)
	if t == nil || (req.ToolChoice != nil && req.ToolChoice.Type != "auto") || req.ResponseFormat() != nil {
		return nil
	}
	role, blocks := req.LastTurn()
	if role != "user" {
		return nil
	}
	for _, b := range blocks {
		if b["type"] == "tool_result" {
			return nil
		}
	}
	return t
}

// FirstSkill is the skill_id of the first skill the request's container loads ("" for none):
// the skill whose script the scripted model runs, and after which it names the output file.
func FirstSkill(req *wire.MessageRequest) string {
	var spec struct {
		Skills []struct {
			SkillID string `json:"skill_id"`
		} `json:"skills"`
	}
	if len(req.Container) == 0 || req.Container[0] != '{' || json.Unmarshal(req.Container, &spec) != nil || len(spec.Skills) == 0 {
		return ""
	}
	return spec.Skills[0].SkillID
}

// Output is a file a code execution answer made: its name, MIME type and bytes.
type Output struct {
	Filename, MimeType string
	Content            []byte
	Rows               int // the CSV's data rows, which the program's stdout reports
}

// OutputFile is the n-th output file (from 0) of an answer to a request whose seed hash is sum
// (SeedOf), made by the skill (its skill_id, "" for none): a small CSV, output.csv (output_2.csv
// and on for later ones; the skill's name first, as in xlsx_output.csv, when a skill made it),
// of a header and 3 to 7 rows.
func OutputFile(sum [32]byte, n int, skill string) Output {
	r := &Rng{State: binary.BigEndian.Uint64(sum[8:16]) + uint64(n)}
	name := "output.csv"
	if n > 0 {
		name = fmt.Sprintf("output_%d.csv", n+1)
	}
	if s := fileSafe(skill); s != "" {
		name = s + "_" + name
	}
	rows := 3 + r.Intn(5)
	var sb strings.Builder
	sb.WriteString("row,word,value\n")
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(&sb, "%d,%s,%d\n", i, Vocabulary[r.Intn(len(Vocabulary))], r.Intn(1000))
	}
	return Output{Filename: name, MimeType: "text/csv", Content: []byte(sb.String()), Rows: rows}
}

// fileSafe is s with every character but letters, digits, - and _ left out, at most 64 bytes.
func fileSafe(s string) string {
	var sb strings.Builder
	for _, c := range s {
		if sb.Len() == 64 {
			break
		}
		if c == '-' || c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
			sb.WriteRune(c)
		}
	}
	return sb.String()
}

// codeBlocks are the call of the code execution tool t and its result, for a request whose seed
// hash is sum: a server_tool_use block of the tool's shape for its version and its result block,
// with the ids and the output's file_id still placeholders.
func codeBlocks(t *wire.ToolDef, sum [32]byte, skill string) []wire.Block {
	out := OutputFile(sum, 0, skill)
	stdout := fmt.Sprintf("wrote %s: %d rows\n", out.Filename, out.Rows)
	direct := map[string]any{"type": "direct"}
	what := "the data"
	if skill != "" {
		what = "the skill " + skill
	}
	if t.Type == LegacyCodeExecution {
		code := fmt.Sprintf("# %s\nrows = make_rows()\nwrite_csv(%q, rows)\nprint(f\"wrote %s: {len(rows)} rows\")", what, out.Filename, out.Filename)
		return []wire.Block{
			{"type": "server_tool_use", "id": PendingServerToolUseID, "name": "code_execution", "input": map[string]any{"code": code}, "caller": direct},
			{"type": "code_execution_tool_result", "tool_use_id": PendingServerToolUseID, "content": map[string]any{
				"type": "code_execution_result", "stdout": stdout, "stderr": "", "return_code": 0,
				"content": []any{map[string]any{"type": "code_execution_output", "file_id": PendingFileID}}}},
		}
	}
	command := fmt.Sprintf("python3 make_rows.py > %s && echo \"wrote %s: $(($(wc -l < %s) - 1)) rows\"", out.Filename, out.Filename, out.Filename)
	if skill != "" {
		command = "# " + what + "\n" + command
	}
	return []wire.Block{
		{"type": "server_tool_use", "id": PendingServerToolUseID, "name": "bash_code_execution", "input": map[string]any{"command": command}, "caller": direct},
		{"type": "bash_code_execution_tool_result", "tool_use_id": PendingServerToolUseID, "content": map[string]any{
			"type": "bash_code_execution_result", "stdout": stdout, "stderr": "", "return_code": 0,
			"content": []any{map[string]any{"type": "bash_code_execution_output", "file_id": PendingFileID}}}},
	}
}
