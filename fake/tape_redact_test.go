package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

func TestSecretsOf(t *testing.T) {
	h := http.Header{}
	h.Set("X-Api-Key", " k1 ")
	h.Set("Authorization", "Bearer tok<en>&")
	h.Add("Cookie", "session=c00kie; theme=dark")
	h.Set("Proxy-Authorization", "Basic dXNlcjpwYXNz") // user:pass
	h.Set("Vendor-Version", "2023-06-01")
	got := tape.SecretsOf(h)
	want := []string{"dXNlcjpwYXNz", "user:pass", "tok<en>&", "c00kie", "dark", "pass", "k1"}
	if !slices.Equal(got, want) {
		t.Errorf("secretsOf = %q; want %q", got, want)
	}
}

func TestRedactJSON(t *testing.T) {
	secrets := []string{"sk-<live>&0123", "k1"}
	for _, c := range []struct{ in, want string }{
		// json.Marshal's escapes of <, > and &.
		{`{"m":"key sk-\u003clive\u003e\u00260123 revoked"}`, `{"m":"key [redacted] revoked"}`},
		// Any other escape of any character, and the plain form.
		{`{"m":"\u0073k-<live>&\u0030123","n":"sk-<live>&0123"}`, `{"m":"[redacted]","n":"[redacted]"}`},
		// A short key, as a whole word only; in a key of an object too.
		{`{"m":"key k1 is revoked; k10, bk1 and k1_x stay","k1":"\u006b1"}`, `{"m":"key [redacted] is revoked; k10, bk1 and k1_x stay","[redacted]":"[redacted]"}`},
		// Strings without a secret keep their bytes, escapes included; other values are untouched.
		{`{"a":"\u00e9\n","b":[1,true,null,"k"],"c":"\"k1\""}`, `{"a":"\u00e9\n","b":[1,true,null,"k"],"c":"\"[redacted]\""}`},
	} {
		if got := string(tape.RedactJSON([]byte(c.in), secrets)); got != c.want {
			t.Errorf("redactJSON(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// TestTapeRedactsEveryFormOfTheCredential: an upstream that echoes the credential it got into an
// error (JSON-encoded, so <, > and & come escaped; or with every character escaped) has every
// form of it replaced in the recording, for a long key with <, > and &, a key under 8
// characters and a Bearer token. (The fake forwards no Basic credential; secretsOf covers it.)
func TestTapeRedactsEveryFormOfTheCredential(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cred := r.Header.Get("X-Api-Key") + "|" + r.Header.Get("Authorization")
		plain, _ := json.Marshal(cred) // <, > and & escaped
		var all strings.Builder        // every character escaped
		for _, c := range cred {
			fmt.Fprintf(&all, `\u%04x`, c)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":"credential %s revoked; %s"},"request_id":"req_up"}`, plain[1:len(plain)-1], all.String())
	}))
	defer up.Close()
	for _, c := range []struct {
		header, value string
		secret        []string // what must never reach the file, in any form
	}{
		{"X-Api-Key", "sk-<live>&key-0123456789", []string{"sk-<live>&key-0123456789", `sk-\u003clive\u003e\u0026key-0123456789`}},
		{"X-Api-Key", "k1", []string{" k1 ", `\u006b\u0031`}},
		{"Authorization", "Bearer sk-bearer-<9876543210>", []string{"sk-bearer-<9876543210>", `sk-bearer-\u003c9876543210\u003e`}},
	} {
		dir := t.TempDir()
		ts := tapeServer(t, TapeConfig{Upstream: up.URL, Record: dir, RecordErrors: true})
		status, _, _, err := roundTrip(t.Context(), ts, http.MethodGet, "/v1/models", nil, c.header, c.value, "vendor-version", core.APIVersion)
		if err != nil || status != http.StatusUnauthorized {
			t.Fatalf("%s %s: %d %v", c.header, c.value, status, err)
		}
		files := recordings(t, dir)
		if len(files) != 1 {
			t.Fatalf("%s %s: recorded %v; want one file", c.header, c.value, files)
		}
		data, err := os.ReadFile(filepath.Join(dir, files[0]))
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range c.secret {
			if strings.Contains(string(data), bad) {
				t.Errorf("%s %s: the recording holds %s:\n%s", c.header, c.value, bad, data)
			}
		}
		msg := gjson.GetBytes(data, "response.body.error.message").String()
		if !strings.Contains(msg, "[redacted]") || !strings.HasPrefix(msg, "credential ") {
			t.Errorf("%s %s: message %q; want the credential replaced and the rest kept", c.header, c.value, msg)
		}
	}
}

// FuzzRedactJSON: whatever the document and the secret, the result is valid JSON, and no string
// of it, decoded, holds a secret of 8 characters or more.
func FuzzRedactJSON(f *testing.F) {
	f.Add(`{"m":"key sk-\u003clive\u003e\u00260123 revoked"}`, "sk-<live>&0123")
	f.Add(`["\u0073k-live-0123456789", {"sk-live-0123456789": 1}]`, "sk-live-0123456789")
	f.Add(`{"m":"key k1 is revoked; k10 stays"}`, "k1")
	f.Add(`"\"quoted\\\" secret-value\""`, `secret-value"`)
	f.Fuzz(func(t *testing.T, doc, secret string) {
		if !json.Valid([]byte(doc)) || strings.TrimSpace(secret) != secret || secret == "" {
			return
		}
		out := tape.RedactJSON([]byte(doc), []string{secret})
		if !json.Valid(out) {
			t.Fatalf("redactJSON(%s, %q) = %s: not JSON", doc, secret, out)
		}
		if len(secret) < tape.ShortSecret || strings.Contains(tape.Redacted, secret) {
			return
		}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				if strings.Contains(v, secret) {
					t.Fatalf("redactJSON(%s, %q) = %s: a string still holds the secret", doc, secret, out)
				}
			case []any:
				for _, e := range v {
					walk(e)
				}
			case map[string]any:
				for k, e := range v {
					walk(k)
					walk(e)
				}
			}
		}
		var v any
		_ = json.Unmarshal(out, &v)
		walk(v)
	})
}
