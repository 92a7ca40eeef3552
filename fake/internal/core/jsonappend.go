package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AppendJSON appends what encoding/json writes for v, a value of the types JSON decodes to (and
// int), without its reflection and a copy of each map's keys: a map's keys sorted, and <, > and
// & escaped when html (as json.Marshal does; the seed of a request, seedOf) or written as they
// are (as the fake's Encoders, with SetEscapeHTML(false), write its answers). keep, when set,
// chooses the top-level keys written. A value of another type is encoding/json's own, and so is
// its error. FuzzAppendJSON holds it to encoding/json.
func AppendJSON(dst []byte, v any, html bool, keep func(string) bool) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case string:
		return AppendJSONString(dst, v, html), nil
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
			if dst, err = AppendJSON(dst, item, html, nil); err != nil {
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
			dst = append(AppendJSONString(dst, k, html), ':')
			var err error
			if dst, err = AppendJSON(dst, v[k], html, nil); err != nil {
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

// AppendStringOrNull appends *s as appendJSONString does (without HTML escapes), or null for nil.
func AppendStringOrNull(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return AppendJSONString(dst, *s, false)
}

// AppendJSONString appends s as encoding/json writes a string: the control characters, U+2028,
// U+2029 and each invalid UTF-8 byte (as U+FFFD) escaped, and <, > and & too when html.
func AppendJSONString(dst []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && Plain8(s[i:i+8]) { // the usual text: eight bytes that need nothing
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

// Plain8 reports whether none of the 8 bytes of s needs appendJSONString's attention (a control
// character, a quote, a backslash, <, > or &, or a byte beyond ASCII), testing them at once in a
// word: (x - 0x01..*n) &^ x & 0x80.. is non-zero exactly when a byte of x is below n, and a byte
// equal to c is a zero byte of x ^ 0x01..*c.
func Plain8(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	below := func(x, n uint64) uint64 { return (x - ones*n) &^ x & highs }
	return (x&highs |
		below(x, 0x20) |
		below(x^(ones*'"'), 1) | below(x^(ones*'\\'), 1) |
		below(x^(ones*'<'), 1) | below(x^(ones*'>'), 1) | below(x^(ones*'&'), 1)) == 0
}

// CanonicalJSON is the JSON text of a decoded value (numbers as json.Number) in one form for its
// value: object keys in order, and every number as canonicalNumber writes it. Two values are
// equal as JSON values (numbers by value, objects whatever their key order: the validator's
// equality of const and enum) exactly when their canonical texts are the same.
func CanonicalJSON(v any) string {
	data, err := AppendJSON(nil, canonicalNumbers(v), false, nil)
	if err != nil {
		return fmt.Sprintf("%v", v) // not a decoded value: never from a request
	}
	return string(data)
}

// canonicalNumbers is v with every json.Number in canonicalNumber's form; it copies the arrays
// and objects on the way and changes nothing of v.
func canonicalNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		return CanonicalNumber(v)
	case float64:
		return CanonicalNumber(json.Number(strconv.FormatFloat(v, 'g', -1, 64)))
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = canonicalNumbers(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = canonicalNumbers(x)
		}
		return out
	}
	return v
}

// CanonicalNumber writes the JSON number n in the one form of its value, from its decimal digits
// (exact, whatever their count, in time linear in them): 1024, 1024.0, 1.024e3 and 10240E-1 are
// all 1024, -0 is 0. It writes as JavaScript does: plainly from 1e-6 up to below 1e21, else as
// d.ddde±N. A number whose exponent does not fit 40 bits is left as written (the schemas refuse
// every number that does not fit a 64-bit float before this sees it).
func CanonicalNumber(n json.Number) json.Number {
	s := string(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 1<<40 || e < -1<<40 {
			return n
		}
		s, exp = s[:i], e
	}
	whole, frac, _ := strings.Cut(s, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	exp -= len(frac)
	if digits == "" {
		return "0"
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	digits = trimmed
	point := len(digits) + exp // the digits before the decimal point
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case exp >= 0 && point <= 21:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", exp))
	case exp < 0 && point > 0:
		b.WriteString(digits[:point])
		b.WriteByte('.')
		b.WriteString(digits[point:])
	case exp < 0 && point > -6:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -point))
		b.WriteString(digits)
	default:
		b.WriteString(digits[:1])
		if len(digits) > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		b.WriteString(strconv.Itoa(point - 1))
	}
	return json.Number(b.String())
}
