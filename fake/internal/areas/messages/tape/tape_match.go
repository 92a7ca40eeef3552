package tape

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
)

// Matching: the key that makes a request and a recording the same request.

// lookup is the recording of namespace ns whose request has key (requestKey), or nil.
func (t *Tape) lookup(ns, key string) *Recording {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.byKey[ns+"\x00"+key]
}

// ignoredFields are the top-level body fields that do not change an answer: a request that
// differs from a recording's only in them matches it. stream only shapes delivery (a recorded
// stream answers a plain request and the other way round), and metadata only tags the request.
var ignoredFields = []string{"stream", "metadata"}

// RequestKey is the canonical form of a request, hashed: its method, path, query parameters in
// name order and body with keys in order, without whitespace or ignoredFields. Numbers keep their
// digits.
func RequestKey(method, path, query string, body []byte) (string, error) {
	var v any
	if len(bytes.TrimSpace(body)) > 0 {
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return "", fmt.Errorf("body: %v", err)
		}
	}
	return requestKeyOf(method, path, query, v)
}

// requestKeyOf is requestKey of a body already decoded (numbers as json.Number; nil for no
// body), which it does not change.
func requestKeyOf(method, path, query string, v any) (string, error) {
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("query: %v", err)
	}
	if m, ok := v.(map[string]any); ok {
		kept := make(map[string]any, len(m))
		for k, x := range m {
			if !slices.Contains(ignoredFields, k) {
				kept[k] = x
			}
		}
		v = kept
	}
	canon, _ := json.Marshal(v) // map keys in order: canonical; nil is null
	sum := sha256.New()
	fmt.Fprintf(sum, "%s %s?%s\n", method, path, q.Encode())
	sum.Write(canon)
	return hex.EncodeToString(sum.Sum(nil)), nil
}
