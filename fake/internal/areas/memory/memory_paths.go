package memory

import (
	"strings"
	"unicode"

	"github.com/platformkit/platformkit/fake/internal/core"

	"golang.org/x/text/unicode/norm"
)

// checkMemoryPath applies the path rule of spec 4.7 to the request field: it starts with "/",
// has at least one segment, no empty, "." or ".." segment, no control or format character, is
// NFC-normalized and at most 1,024 bytes. Input that is not NFC is refused, not normalized:
// paths are compared byte for byte, so a silently normalized path would not be the one the
// client asked for.
func checkMemoryPath(field, p string) error {
	if len(p) > maxMemoryPath {
		return core.InvalidField(field, "is %d bytes long; a path is at most %d bytes (UTF-8)", len(p), maxMemoryPath)
	}
	if !strings.HasPrefix(p, "/") || p == "/" {
		return core.InvalidField(field, "must start with \"/\" and name at least one segment, as in /notes/todo.md, got %s", core.Quoted(p, core.MaxExcerpt))
	}
	for i, seg := range strings.Split(p[1:], "/") {
		switch seg {
		case "":
			return core.InvalidField(field, "segment %d is empty (a doubled or trailing \"/\") in %s; segments must not be empty", i+1, core.Quoted(p, core.MaxExcerpt))
		case ".", "..":
			return core.InvalidField(field, "segment %d is %q in %s; \".\" and \"..\" segments are not allowed", i+1, seg, core.Quoted(p, core.MaxExcerpt))
		}
	}
	for i, r := range p {
		if unicode.In(r, unicode.Cc, unicode.Cf) {
			return core.InvalidField(field, "has the control or format character U+%04X at byte %d; such characters are not allowed", r, i)
		}
	}
	if !norm.NFC.IsNormalString(p) {
		return core.InvalidField(field, "%s is not NFC-normalized; send the NFC form (%s)", core.Quoted(p, core.MaxExcerpt), core.Quoted(norm.NFC.String(p), core.MaxExcerpt))
	}
	return nil
}

// checkMemoryContent applies the content limit of spec 8.
func checkMemoryContent(content string) error {
	if len(content) > MaxMemoryContent {
		return core.InvalidField("content", "is %d bytes; content is at most %d bytes (UTF-8)", len(content), MaxMemoryContent)
	}
	return nil
}

// isContentSHA256 reports whether s has the form of content_sha256: 64 lowercase hex characters.
func isContentSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}
