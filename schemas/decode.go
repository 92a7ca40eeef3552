package schemas

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// parse decodes the JSON document doc as encoding/json's Decoder with UseNumber does (objects as
// map[string]any, the last of duplicate keys winning; arrays as []any, empty ones non-nil; numbers
// as json.Number holding their text; strings unescaped), about four times faster: it reads the
// bytes once, without the Decoder's reflection and its scan of every byte twice. ok is false
// when it cannot tell (a document that is not JSON, has data after its value, or nests deeper
// than parseDepth): Decode then asks encoding/json, for the value or for the error to report.
// FuzzParse holds it to encoding/json's answer on every document both accept.
//
// fits reports whether every number of the document fits a 64-bit float (numberProblem), noted
// on the way so that validating the value need not walk it again to find out.
func parse(doc []byte) (v any, fits, ok bool) {
	p := parser{data: doc, fits: true}
	p.space()
	if v, ok = p.value(0); !ok {
		return nil, false, false
	}
	p.space()
	if p.i != len(p.data) {
		return nil, false, false
	}
	return v, p.fits, true
}

// parseDepth is the deepest nesting parse reads; encoding/json decides for deeper documents.
const parseDepth = 1000

type parser struct {
	data  []byte
	i     int
	stack []any // the items of the arrays being read
	fits  bool  // every number read so far fits a 64-bit float
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, bool) {
	if p.i >= len(p.data) || depth > parseDepth {
		return nil, false
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, boxed, ok := p.str()
		if boxed != nil {
			return boxed, true // a string put in an interface is an allocation of its own
		}
		return s, ok
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range [...]struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(p.data)-p.i >= len(lit.text) && string(p.data[p.i:p.i+len(lit.text)]) == lit.text {
			p.i += len(lit.text)
			return lit.v, true
		}
	}
	return nil, false
}

func (p *parser) object(depth int) (any, bool) {
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return m, true
	}
	for {
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, false
		}
		k, _, ok := p.str()
		if !ok {
			return nil, false
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, false
		}
		p.i++
		p.space()
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[k] = v
		if more, ok := p.next('}'); !ok || !more {
			return m, ok
		}
	}
}

func (p *parser) array(depth int) (any, bool) {
	p.i++ // [
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return []any{}, true
	}
	// The items gather on the parser's stack, and the array is allocated once at its size.
	base := len(p.stack)
	defer func() { clear(p.stack[base:]); p.stack = p.stack[:base] }()
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		p.stack = append(p.stack, v)
		if more, ok := p.next(']'); !ok || !more {
			return slices.Clone(p.stack[base:]), ok
		}
	}
}

// next reads what follows a member or an item: a comma (more follows) or closing (the end).
func (p *parser) next(closing byte) (more, ok bool) {
	p.space()
	if p.i < len(p.data) {
		switch p.data[p.i] {
		case ',':
			p.i++
			p.space()
			return true, true
		case closing:
			p.i++
			return false, true
		}
	}
	return false, false
}

// str reads a string. One without escapes or control characters, in valid UTF-8, is its bytes;
// any other is unquoted by encoding/json, so that every escape means what it means there. A
// common string is also returned boxed, as an interface that costs no allocation.
func (p *parser) str() (s string, boxed any, ok bool) {
	start := p.i
	p.i++ // "
	plain, ascii := true, true
	for ; p.i < len(p.data); p.i++ {
		c := p.data[p.i]
		if !strSpecial[c] {
			continue
		}
		switch {
		case c == '"':
			p.i++
			raw := p.data[start+1 : p.i-1]
			if plain && (ascii || utf8.Valid(raw)) {
				if len(raw) <= commonLen {
					if v, ok := common[string(raw)]; ok {
						return v.(string), v, true
					}
				}
				return string(raw), nil, true
			}
			var unquoted string // not s: its address would move s to the heap on every call
			if json.Unmarshal(p.data[start:p.i], &unquoted) != nil {
				return "", nil, false
			}
			return unquoted, nil, true
		case c == '\\':
			plain = false
			p.i++ // the escaped byte: not the end of the string, even if it is a quote
		case c < 0x20:
			return "", nil, false
		default:
			ascii = false
		}
	}
	return "", nil, false
}

// strSpecial marks the bytes str stops at: the quote, the backslash, control characters, and
// the bytes of UTF-8 beyond ASCII, which are checked once at the end.
var strSpecial = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return t
}()

// common holds the property names and values that nearly every request sends, each a string in
// an interface, so that parse allocates neither a copy of each "type", "text" and "user" of a long
// conversation nor its box. commonLen is the longest: a longer string is not looked up (hashing
// each text of a conversation cost more than its copy).
var common, commonLen = func() (map[string]any, int) {
	m, n := map[string]any{}, 0
	for _, s := range strings.Fields(`type text role content user assistant model messages max_tokens stream
		system name input_schema tool_use tool_result tool_use_id id input source data media_type document
		image base64 url cache_control ephemeral ttl citations enabled thinking signature metadata tools
		tool_choice auto any none description properties object string is_error title`) {
		m[s], n = s, max(n, len(s))
	}
	return m, n
}()

// number reads a number as the JSON grammar writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number() (any, bool) {
	start := p.i
	if p.data[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.data) && p.data[p.i] == '0':
		p.i++
	case p.digits() == 0:
		return nil, false
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return nil, false
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return nil, false
		}
	}
	n := string(p.data[start:p.i])
	if p.fits && numberProblem(n) != "" {
		p.fits = false
	}
	return json.Number(n), true
}

func (p *parser) digits() int {
	n := 0
	for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}
