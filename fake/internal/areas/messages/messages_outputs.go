package messages

import (
	"maps"
	"slices"

	"github.com/platformkit/platformkit/fake/internal/areas/files"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/model"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// The output files of code execution: a file the code execution tool wrote is a file of the
// Files API, downloadable, in the organization and workspace of the request's key. The answer
// stage readies them (readyOutputs) and the commit stage stores them (storeOutputs), so a
// request refused at any stage stores none.

// output is one output file an answer names: the item of a tool result's content that carries
// its file_id, the result block it is in (at index at of the message's content), and the file.
type output struct {
	at   int
	item map[string]any
	file model.Output
}

// outputResults are the result blocks whose content lists output files, and the type of the
// items that name them.
var outputResults = map[string]string{
	"code_execution_tool_result":      "code_execution_output",
	"bash_code_execution_tool_result": "bash_code_execution_output",
}

// readyOutputs finds the output files of msg, the answer to req, that the fake makes: those of
// the scripted model (which name model.PendingFileID) and, when library is true (a scenario of
// the library answered), every one of the reply's, whose file_ids are placeholders. A stub's
// reply is the test's own and is kept as written. The blocks that carry them are copied first
// (a library scenario is shared by every server), and their file_ids set to
// model.PendingFileID until the commit stage stores the files. The n-th output's file is
// model.OutputFile of the request's seed, n and the container's first skill.
func readyOutputs(req *request, msg *wire.Message, library bool) []output {
	var outs []output
	var sum *[32]byte
	copied := false
	for i, b := range msg.Content {
		typ, _ := b["type"].(string)
		itemType, ok := outputResults[typ]
		if !ok {
			continue
		}
		content, _ := b["content"].(map[string]any)
		items, _ := content["content"].([]any)
		if !slices.ContainsFunc(items, func(it any) bool { return wanted(it, itemType, library) }) {
			continue
		}
		// A copy of the block down to its items: the placeholders are set in the copy only.
		nb, nc, nitems := maps.Clone(b), maps.Clone(content), slices.Clone(items)
		nb["content"], nc["content"] = nc, nitems
		if !copied { // the content itself may be the library's slice
			msg.Content, copied = slices.Clone(msg.Content), true
		}
		msg.Content[i] = nb
		for j, it := range nitems {
			if !wanted(it, itemType, library) {
				continue
			}
			item := maps.Clone(it.(map[string]any))
			item["file_id"] = model.PendingFileID
			nitems[j] = item
			if sum == nil {
				_, s := model.SeedOf(req.Raw)
				sum = &s
			}
			outs = append(outs, output{at: i, item: item, file: model.OutputFile(*sum, len(outs), model.FirstSkill(&req.MessageRequest))})
		}
	}
	return outs
}

// wanted reports whether it, an item of a result's content, is an output whose file the fake
// makes.
func wanted(it any, itemType string, library bool) bool {
	item, _ := it.(map[string]any)
	return item != nil && item["type"] == itemType && (library || item["file_id"] == model.PendingFileID)
}

// storeOutputs is the commit stage's part for the output files: each is stored (files.Create)
// and its item given the file's ID. When the files of the organization (or the server's budget)
// have no room for one, the file is not stored, and its result block becomes the tool's error
// instead (bash_code_execution_tool_result_error output_file_too_large, or
// code_execution_tool_result_error unavailable: that version's codes have no closer one), and
// the message's output tokens are counted again. A request without a key (which the fake's auth
// modes may let through) stores nothing and gets the same error.
func storeOutputs(s *core.Server, c *core.Call, req *request, msg *wire.Message, outs []output) {
	failed := map[int]bool{}
	for _, o := range outs {
		if failed[o.at] {
			// The result is an error already: its later outputs are not stored. (Its earlier ones
			// stay; neither the scripted model nor the library writes two outputs in one result.)
			continue
		}
		if c.Cred != nil {
			f, err := files.Create(s, c.St, c.Cred, files.Spec{Filename: o.file.Filename, MimeType: o.file.MimeType, Content: o.file.Content})
			if err == nil {
				o.item["file_id"] = f.ID
				continue
			}
		}
		failed[o.at] = true
		b := msg.Content[o.at]
		code := "unavailable"
		if b["type"] == "bash_code_execution_tool_result" {
			code = "output_file_too_large"
		}
		msg.Content[o.at] = wire.Block{"type": b["type"], "tool_use_id": b["tool_use_id"],
			"content": map[string]any{"type": b["type"].(string) + "_error", "error_code": code}}
	}
	if len(failed) > 0 {
		msg.Usage.OutputTokens = model.OutputTokens(msg.Content) + req.OmittedThinking
	}
}
