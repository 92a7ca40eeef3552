package wire

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
)

// Citations of the scripted model (spec 2.9): for every document and search result of the
// request with citations enabled, one text block that quotes it, with a citation pointing at
// the range the quote was taken from. The kind of citation follows the kind of source, and
// cited_text is exactly what the range holds.

// maxQuote bounds a quote, in characters.
const maxQuote = 200

// citedBlocks returns the quoting text blocks for req, in the order the sources appear.
// document_index counts every document block of the request and search_result_index every
// search_result block, each from 0 and separately (spec 2.9).
func CitedBlocks(req *MessageRequest) []Block {
	var out []Block
	docIndex, resultIndex := -1, -1
	_ = req.VisitBlocks(func(_ BlockAt, b Block) error {
		var cite map[string]any
		switch b["type"] {
		case "document":
			docIndex++
			if enabled(b) {
				cite = documentCitation(b, docIndex)
			}
		case "search_result":
			resultIndex++
			if enabled(b) {
				cite = searchResultCitation(b, resultIndex)
			}
		}
		if cite != nil && cite["cited_text"] != "" {
			out = append(out, Block{"type": "text", "text": cite["cited_text"], "citations": []any{cite}})
		}
		return nil
	})
	return out
}

func enabled(b Block) bool {
	c, _ := b["citations"].(map[string]any)
	on, _ := c["enabled"].(bool)
	return on
}

// firstSentence is the prefix of s up to and including its first sentence end or line break,
// at most maxQuote characters, as runes.
func firstSentence(s string) []rune {
	r := []rune(s)
	for i, c := range r {
		if i+1 >= maxQuote || c == '.' || c == '!' || c == '?' || c == '\n' {
			return r[:i+1]
		}
	}
	return r
}

func documentCitation(b Block, index int) map[string]any {
	src := b["source"].(map[string]any)
	title, _ := b["title"].(string)
	cite := map[string]any{"cited_text": "", "document_index": index, "document_title": nullable(title), "file_id": nil}
	switch src["type"] {
	case "text":
		q := firstSentence(src["data"].(string))
		cite["type"], cite["cited_text"] = "char_location", string(q)
		cite["start_char_index"], cite["end_char_index"] = 0, len(q)
	case "base64":
		data, _ := base64.StdEncoding.DecodeString(src["data"].(string))
		pages := pdfPageTexts(data)
		if len(pages) == 0 {
			return nil
		}
		cite["type"], cite["cited_text"] = "page_location", pages[0]
		cite["start_page_number"], cite["end_page_number"] = 1, 2
	case "content":
		texts := contentTexts(src["content"])
		end := min(len(texts), 2)
		if end == 0 {
			return nil
		}
		cite["type"], cite["cited_text"] = "content_block_location", strings.Join(texts[:end], "")
		cite["start_block_index"], cite["end_block_index"] = 0, end
	default: // a URL: the fake fetches nothing, so it has nothing to quote
		return nil
	}
	return cite
}

// contentTexts is the text of each block of a content document (an image block holds none).
func contentTexts(content any) []string {
	if s, ok := content.(string); ok {
		return []string{s}
	}
	var out []string
	for _, b := range content.([]any) {
		t, _ := b.(map[string]any)["text"].(string)
		out = append(out, t)
	}
	return out
}

func searchResultCitation(b Block, index int) map[string]any {
	content, _ := b["content"].([]any)
	if len(content) == 0 {
		return nil
	}
	return map[string]any{"type": "search_result_location", "cited_text": content[0].(map[string]any)["text"],
		"search_result_index": index, "source": b["source"], "title": b["title"],
		"start_block_index": 0, "end_block_index": 1}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

var (
	pdfPageObject = regexp.MustCompile(`/Type\s*/Page\b`)
	pdfStream     = regexp.MustCompile(`(?s)stream\r?\n(.*?)\r?\nendstream`)
	pdfShowText   = regexp.MustCompile(`\(((?:\\.|[^\\)])*)\)\s*Tj`)
)

// pdfPageTexts extracts the text of each page of a simple PDF: one whose pages' content
// streams are uncompressed and show text with the Tj operator, in page order. That is the
// kind of PDF a test writes by hand; for any other PDF it returns what it can, possibly nothing.
func pdfPageTexts(data []byte) []string {
	n := len(pdfPageObject.FindAllIndex(data, -1))
	var pages []string
	for _, m := range pdfStream.FindAllSubmatch(data, -1) {
		if len(pages) == n || !bytes.Contains(m[1], []byte("BT")) {
			continue
		}
		var sb strings.Builder
		for _, t := range pdfShowText.FindAllSubmatch(m[1], -1) {
			sb.WriteString(pdfUnescape(string(t[1])))
		}
		pages = append(pages, sb.String())
	}
	return pages
}

var pdfEscapes = strings.NewReplacer(`\(`, "(", `\)`, ")", `\\`, `\`, `\n`, "\n", `\r`, "\r", `\t`, "\t")

func pdfUnescape(s string) string { return pdfEscapes.Replace(s) }
