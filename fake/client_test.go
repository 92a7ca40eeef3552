package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// roundTrip sends one request to ts and reads the whole answer: the one place the package's
// tests build requests, so each area's test client only adds its own credentials and headers.
// body is sent as is when it is a string or []byte, JSON-encoded otherwise, and not at all when
// nil; a request with a body says Content-Type: application/json. header holds name/value pairs
// applied in order after that; an empty value removes the header. It returns an error rather
// than failing the test, so that goroutines other than the test's may call it.
func roundTrip(ctx context.Context, ts *TestServer, method, path string, body any, header ...string) (status int, h http.Header, data []byte, err error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			return 0, nil, nil, err
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequestWithContext(ctx, method, ts.URL+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := ts.Server.Client().Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err = io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, data, err
}

// idsOf returns the "id" of each item of a JSON array, in order.
func idsOf(items gjson.Result) []string {
	var out []string
	for _, it := range items.Array() {
		out = append(out, it.Get("id").String())
	}
	return out
}
