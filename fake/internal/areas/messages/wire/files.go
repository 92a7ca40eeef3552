package wire

import (
	"strconv"
	"strings"
)

// FileRef is a place where a request names a file by its ID: a document's or an image's source
// {"type": "file", "file_id": ...}, or a container_upload block.
type FileRef struct {
	Kind   string         // the block's type: "document", "image" or "container_upload"
	ID     string         // the file_id
	Source map[string]any // the block's source; nil for a container_upload
	at     []string       // the field path's segments, file_id the last
}

// Path is the field path of the file_id, as in "messages.0.content.1.source.file_id".
func (r FileRef) Path() string { return strings.Join(r.at, ".") }

// VisitFileRefs calls f for every file the request's messages name, in the order of the blocks,
// at any depth: a tool_result's content and a content document's blocks included.
func (req *MessageRequest) VisitFileRefs(f func(FileRef) error) error {
	path := make([]string, 0, 8)
	for i, m := range req.Messages {
		for j, b := range m.Blocks {
			path = append(path[:0], "messages", strconv.Itoa(i), "content", strconv.Itoa(j))
			if err := visitFileRefs(b, path, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// FileRefsIn calls f for every file the block b names, in order, at any depth; the paths of
// what it reports start at the block (source.file_id, content.0.source.file_id).
func FileRefsIn(b any, f func(FileRef) error) error { return visitFileRefs(b, nil, f) }

// visitFileRefs walks v, at path, for file references: a block's own, then those of its source
// (a content document) and of its content (a tool_result), so that the order is the blocks'.
func visitFileRefs(v any, path []string, f func(FileRef) error) error {
	switch v := v.(type) {
	case map[string]any:
		typ, _ := v["type"].(string)
		src, _ := v["source"].(map[string]any)
		switch {
		case (typ == "document" || typ == "image") && src != nil && src["type"] == "file":
			id, _ := src["file_id"].(string)
			if err := f(FileRef{Kind: typ, ID: id, Source: src, at: join(path, "source", "file_id")}); err != nil {
				return err
			}
		case typ == "container_upload":
			id, _ := v["file_id"].(string)
			if err := f(FileRef{Kind: typ, ID: id, at: join(path, "file_id")}); err != nil {
				return err
			}
		}
		if src != nil {
			if err := visitFileRefs(src["content"], append(path, "source", "content"), f); err != nil {
				return err
			}
		}
		return visitFileRefs(v["content"], append(path, "content"), f)
	case []any:
		for i, x := range v {
			if err := visitFileRefs(x, append(path, strconv.Itoa(i)), f); err != nil {
				return err
			}
		}
	}
	return nil
}

// join is path and more in a slice of its own: the walk's path is reused as it goes.
func join(path []string, more ...string) []string {
	return append(append(make([]string, 0, len(path)+len(more)), path...), more...)
}
