package core

import (
	"bytes"
	"regexp"
	"slices"
	"strings"

	"github.com/platformkit/platformkit/schemas"
)

// Dialects. The reference writes a neutral word where the interface carries the maker's name
// (`vendor` in header names, `assistant` in ID prefixes, type constants, model names and role
// values); real clients and the official SDKs write the maker's name (`anthropic-version`,
// `claude-sonnet-4-5`, `claude_code_user`). The fake speaks both, by one mechanism:
//
//   - Input, in either dialect, is read in the reference's words: a request body is rewritten
//     once when read (Call.Body), and path parameters (Call.Param) and query values (getQuery,
//     QueryStrings) likewise, so that both forms name the same record, and the journal, the
//     coverage, snapshots, recordings and fixtures hold only the reference's form.
//   - Output is written in the dialect of the request (Call.Dialect): every JSON body
//     (writeBody) and every event of a stream (RewriteTail) passes through the same table.
//
// The table of every place where the two dialects differ, each with its source, is schemas.Words:
// the schemas, and so the conformance kit, accept both forms by the same table. The message role
// "assistant" is the role of a turn, not the maker's name: it is in no row and never changes,
// nor do the free texts of a request or an answer (only the values of the keys a row names).

// Dialect is the words a request is answered in.
type Dialect uint8

const (
	// Reference is the reference's words: vendor-version requests, and requests with no
	// version header (the fake's own clients, the control API, curl by hand), whose answers
	// stay as they were before the maker's dialect existed.
	Reference Dialect = iota
	// Maker is the maker's words, for requests that name their version in anthropic-version
	// alone (every official SDK).
	Maker
)

// Dialect is the dialect of the request: the maker's when it names its version in
// anthropic-version and not in vendor-version (which decides when both are sent, as it does for
// the version), else the reference's.
func (c *Call) Dialect() Dialect {
	h := c.Request.Header
	if headerOf(h, HeaderVendorVersion) == "" && headerOf(h, HeaderAnthropicVersion) != "" {
		return Maker
	}
	return Reference
}

// keyMatches reports whether key is one of keys (a "*" pattern matching a suffix; nil matches
// every key).
func keyMatches(keys []string, key []byte) bool {
	if keys == nil {
		return true
	}
	for _, k := range keys {
		if suffix, ok := strings.CutPrefix(k, "*"); ok {
			if bytes.HasSuffix(key, []byte(suffix)) {
				return true
			}
		} else if string(key) == k {
			return true
		}
	}
	return false
}

// translate appends val, the value under key, in dialect to's words to dst, and reports whether
// a row of the table applied (dst is returned as it was when none did).
func translate(dst, key, val []byte, to Dialect) ([]byte, bool) {
	for i := range schemas.Words {
		w := &schemas.Words[i]
		from, into := w.Maker, w.Ref
		if to == Maker {
			from, into = w.Ref, w.Maker
		}
		switch {
		case !w.Prefix && string(val) != from,
			w.Prefix && (!bytes.HasPrefix(val, []byte(from)) || len(val) == len(from)):
			continue
		}
		if !keyMatches(w.Keys, key) {
			continue
		}
		return append(append(dst, into...), val[len(from):]...), true
	}
	return dst, false
}

// Canonical is the parameter value v (path parameter or query value named name) in the
// reference's words.
func Canonical(name, v string) string {
	if !strings.Contains(v, "claude") && !strings.Contains(v, "Claude") {
		return v
	}
	if out, ok := translate(nil, []byte(name), []byte(v), Reference); ok {
		return string(out)
	}
	return v
}

// Param is gin's path parameter in the reference's words: both dialects' IDs name one record.
func (c *Call) Param(key string) string { return Canonical(key, c.Context.Param(key)) }

// quotedInDialect is an error message for a request in the maker's dialect: each value the
// message quotes (Quoted: "assistant-nope") that a row of the table applies to, in the maker's
// words, since the client sent it so; the rest of the message as it was.
func quotedInDialect(msg string) string {
	if !strings.Contains(msg, `"assistant`) && !strings.Contains(msg, `"Assistant`) {
		return msg
	}
	for _, w := range schemas.Words {
		if w.Prefix {
			msg = strings.ReplaceAll(msg, `"`+w.Ref, `"`+w.Maker)
		} else {
			msg = strings.ReplaceAll(msg, `"`+w.Ref+`"`, `"`+w.Maker+`"`)
		}
	}
	return msg
}

// quotedRef is a value an error message quotes (Quoted) that is in the reference's words.
var quotedRef = regexp.MustCompile(`"[Aa]ssistant[^"]*"`)

// asSent is the error message msg with each value it quotes in the reference's words (Quoted:
// "assistant-nope") that the client sent in the maker's ("claude-nope": the body, a path
// parameter and query values were read in the reference's words) quoted as the client sent it,
// whichever dialect the answer is in: the name the client wrote is the one a user recognises.
func (c *Call) asSent(msg string) string {
	if !strings.Contains(msg, `"assistant`) && !strings.Contains(msg, `"Assistant`) {
		return msg
	}
	return quotedRef.ReplaceAllStringFunc(msg, func(q string) string {
		if maker := quotedInDialect(q); maker != q && c.sentValue(maker[1:len(maker)-1]) {
			return maker
		}
		return q
	})
}

// sentValue reports whether the client sent v: as a string of the body, a segment of the path,
// or a query value.
func (c *Call) sentValue(v string) bool {
	if bytes.Contains(c.X.sent, []byte(`"`+v+`"`)) || slices.Contains(strings.Split(c.Request.URL.Path, "/"), v) {
		return true
	}
	for _, vs := range c.Request.URL.Query() {
		if slices.Contains(vs, v) {
			return true
		}
	}
	return false
}

// SentBody is body, the request's body as Body read it (in the reference's words), as the
// client sent it: what a proxy forwards to a real deployment.
func (c *Call) SentBody(body []byte) []byte {
	if c.X.sent != nil && len(body) == len(c.X.body) && (len(body) == 0 || &body[0] == &c.X.body[0]) {
		return c.X.sent
	}
	return body
}

// InReferenceWords is the JSON document doc in the reference's words: doc itself when nothing in
// it is the maker's, else a rewritten copy.
func InReferenceWords(doc []byte) []byte {
	if !bytes.Contains(doc, []byte("laude")) {
		return doc
	}
	return rewriteJSON(doc, Reference)
}

// InDialect is the JSON document doc (in the reference's words) in dialect d.
func InDialect(doc []byte, d Dialect) []byte {
	if d == Reference || !bytes.Contains(doc, []byte("ssistant")) {
		return doc
	}
	return rewriteJSON(doc, d)
}

// RewriteTail rewrites the bytes of buf from start (one JSON document an encoder just wrote, in
// the reference's words) in the maker's: the data of one event of a stream to a Maker request.
func RewriteTail(buf *bytes.Buffer, start int) {
	doc := buf.Bytes()[start:]
	out := InDialect(doc, Maker)
	if len(out) == len(doc) && &out[0] == &doc[0] {
		return
	}
	out = append([]byte(nil), out...)
	buf.Truncate(start)
	buf.Write(out)
}

// rewriteJSON returns doc with every string value that a row of dialectWords applies to (by the
// value's key: a value in an array goes by the array's key) written in dialect to. It scans the
// bytes once and copies only when a value changes, so the rest of the document stays byte for
// byte as it was. Keys and values with escapes are left alone: no word of the table has one.
func rewriteJSON(doc []byte, to Dialect) []byte {
	type frame struct {
		obj bool
		key []byte
	}
	var (
		out       []byte
		last      int
		stack     = make([]frame, 0, 16)
		expectKey bool
		// stem is in every value a row of the table changes into dialect to.
		stem = []byte("ssistant")
	)
	if to == Reference {
		stem = []byte("laude")
	}
	keyOf := func() []byte {
		if len(stack) == 0 {
			return nil
		}
		return stack[len(stack)-1].key
	}
	for i := 0; i < len(doc); i++ {
		switch doc[i] {
		case '{':
			stack = append(stack, frame{obj: true})
			expectKey = true
		case '[':
			stack = append(stack, frame{key: keyOf()})
			expectKey = false
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1].obj
		case '"':
			j, escaped := stringEnd(doc, i+1)
			if j < 0 {
				return doc // not JSON: left as it is
			}
			val := doc[i+1 : j]
			switch {
			case expectKey:
				if len(stack) > 0 {
					stack[len(stack)-1].key = val
				}
				expectKey = false
			case !escaped && len(val) > 0 && bytes.Contains(val, stem):
				if out == nil {
					// One allocation for the whole answer: a row changes a value by a few bytes.
					out = make([]byte, 0, len(doc)+len(doc)/8)
				}
				if n, ok := translate(append(out, doc[last:i+1]...), keyOf(), val, to); ok {
					out, last = n, j
				}
			}
			i = j
		}
	}
	if out == nil {
		return doc
	}
	return append(out, doc[last:]...)
}

// stringEnd is the index of the quote that closes the JSON string whose contents begin at
// doc[from], and whether the string holds an escape; -1 when it is not closed.
func stringEnd(doc []byte, from int) (int, bool) {
	escaped := false
	for j := from; j < len(doc); {
		q := bytes.IndexByte(doc[j:], '"')
		if q < 0 {
			return -1, escaped
		}
		seg := doc[j : j+q]
		if bytes.IndexByte(seg, '\\') < 0 {
			return j + q, escaped
		}
		escaped = true
		// The quote is escaped when an odd number of backslashes stands before it.
		n := 0
		for k := j + q - 1; k >= from && doc[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j + q, escaped
		}
		j += q + 1
	}
	return -1, escaped
}
