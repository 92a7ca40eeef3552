package tape

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
)

// Redaction of the credentials a recorded request carried, in what the tape writes to disk.

// Redacted replaces a credential in a recording.
const Redacted = "[redacted]"

// ShortSecret is the length under which a credential is replaced only where it stands as a whole
// word (see redactString): a short value also occurs inside unrelated words.
const ShortSecret = 8

// SecretsOf collects the credential values a request carries, to be replaced should an upstream
// echo one into an answer: the token of Authorization (without its scheme; for Basic also the
// decoded user:password and the password), each cookie's value, and the value of every header
// whose name says key, token or secret. Longest first, so that a value containing another is
// replaced whole.
func SecretsOf(h http.Header) []string {
	seen := map[string]bool{}
	add := func(v string) {
		if v = strings.TrimSpace(v); v != "" {
			seen[v] = true
		}
	}
	for name, vs := range h {
		n := strings.ToLower(name)
		for _, v := range vs {
			switch {
			case n == "authorization" || n == "proxy-authorization":
				scheme, cred, ok := strings.Cut(strings.TrimSpace(v), " ")
				if !ok {
					add(v)
					continue
				}
				add(cred)
				if strings.EqualFold(scheme, "basic") {
					if dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil {
						_, pass, _ := strings.Cut(string(dec), ":")
						add(string(dec))
						add(pass)
					}
				}
			case n == "cookie":
				cookies, err := http.ParseCookie(v)
				if err != nil {
					add(v)
				}
				for _, c := range cookies {
					add(c.Value)
				}
			case strings.Contains(n, "key") || strings.Contains(n, "token") || strings.Contains(n, "secret"):
				add(v)
			}
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// RedactJSON replaces secrets in every string of the JSON document data, keys included, as the
// string reads once decoded: a credential written with escapes (json.Marshal writes <, > and & as
// \u003c, \u003e, \u0026; an upstream may escape any character) is found as well as a plain one.
// A string holding none keeps its bytes; one holding a secret is written again, re-escaped.
// data must be valid JSON (what json.Marshal wrote); other bytes are copied as they are.
func RedactJSON(data []byte, secrets []string) []byte {
	if len(secrets) == 0 {
		return data
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); {
		if data[i] != '"' {
			out = append(out, data[i])
			i++
			continue
		}
		j, escaped := i+1, false
		for ; j < len(data) && data[j] != '"'; j++ {
			if data[j] == '\\' {
				escaped = true
				j++
			}
		}
		if j >= len(data) { // not JSON: nothing more to read as a string
			return append(out, data[i:]...)
		}
		lit := data[i : j+1]
		i = j + 1
		var str string
		if escaped {
			if json.Unmarshal(lit, &str) != nil {
				out = append(out, lit...)
				continue
			}
		} else {
			str = string(lit[1 : len(lit)-1])
		}
		if r := redactString(str, secrets); r != str {
			enc, _ := json.Marshal(r)
			out = append(out, enc...)
			continue
		}
		out = append(out, lit...)
	}
	return out
}

// redactString replaces each secret in s: one of shortSecret characters or more wherever it
// occurs, a shorter one only where it stands as a whole word (no letter, digit, - or _ right
// before or after it), so that the key "k1" is redacted in "key k1 revoked" but "k10" and
// "bk1" stay as they are.
func redactString(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) >= ShortSecret {
			s = strings.ReplaceAll(s, sec, Redacted)
			continue
		}
		var b strings.Builder
		rest := s
		for {
			k := strings.Index(rest, sec)
			if k < 0 {
				break
			}
			end := k + len(sec)
			whole := (k == 0 || !wordByte(rest[k-1])) && (end == len(rest) || !wordByte(rest[end]))
			b.WriteString(rest[:k])
			if whole {
				b.WriteString(Redacted)
			} else {
				b.WriteString(sec)
			}
			rest = rest[end:]
		}
		if b.Len() > 0 {
			b.WriteString(rest)
			s = b.String()
		}
	}
	return s
}

// wordByte reports whether c can be part of a credential: a letter, digit, - or _ (or a byte of a
// multi-byte character, which is never a boundary).
func wordByte(c byte) bool {
	return c >= 0x80 || c == '-' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
