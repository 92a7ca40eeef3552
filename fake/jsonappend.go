package fake

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"unicode/utf8"
)

// appendJSON appends what encoding/json writes for v, a value of the types JSON decodes to (and
// int), without its reflection and a copy of each map's keys: a map's keys sorted, and <, > and
// & escaped when html (as json.Marshal does; the seed of a request, seedOf) or written as they
// are (as the fake's Encoders, with SetEscapeHTML(false), write its answers). keep, when set,
// chooses the top-level keys written. A value of another type is encoding/json's own, and so is
// its error. FuzzAppendJSON holds it to encoding/json.
func appendJSON(dst []byte, v any, html bool, keep func(string) bool) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case string:
		return appendJSONString(dst, v, html), nil
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case json.Number:
		if v == "" {
			return append(dst, '0'), nil
		}
		return append(dst, v...), nil
	case []any:
		dst = append(dst, '[')
		for i, item := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendJSON(dst, item, html, nil); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			if keep == nil || keep(k) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(appendJSONString(dst, k, html), ':')
			var err error
			if dst, err = appendJSON(dst, v[k], html, nil); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	if html {
		data, err := json.Marshal(v)
		return append(dst, data...), err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(dst, bytes.TrimSuffix(b.Bytes(), newline)...), nil
}

// appendStringOrNull appends *s as appendJSONString does (without HTML escapes), or null for nil.
func appendStringOrNull(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, *s, false)
}

// appendJSONString appends s as encoding/json writes a string: the control characters, U+2028,
// U+2029 and each invalid UTF-8 byte (as U+FFFD) escaped, and <, > and & too when html.
func appendJSONString(dst []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plain8(s[i:i+8]) { // the usual text: eight bytes that need nothing
			i += 8
			continue
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!html || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// plain8 reports whether none of the 8 bytes of s needs appendJSONString's attention (a control
// character, a quote, a backslash, <, > or &, or a byte beyond ASCII), testing them at once in a
// word: (x - 0x01..*n) &^ x & 0x80.. is non-zero exactly when a byte of x is below n, and a byte
// equal to c is a zero byte of x ^ 0x01..*c.
func plain8(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	below := func(x, n uint64) uint64 { return (x - ones*n) &^ x & highs }
	return (x&highs |
		below(x, 0x20) |
		below(x^(ones*'"'), 1) | below(x^(ones*'\\'), 1) |
		below(x^(ones*'<'), 1) | below(x^(ones*'>'), 1) | below(x^(ones*'&'), 1)) == 0
}
