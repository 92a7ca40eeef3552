package fake

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"

	"github.com/tidwall/gjson"
)

// TestTapeSendsNoCredentialToAnotherHost: an upstream that redirects to another server (another
// port on loopback: another origin) does not get that server a request, let alone the client's
// X-Api-Key or Authorization; the client gets a 500 naming the redirect. A redirect within the
// upstream's origin is followed.
func TestTapeSendsNoCredentialToAnotherHost(t *testing.T) {
	var mu sync.Mutex
	var seen []string // what the other host received: method path x-api-key authorization
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Api-Key")+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer other.Close()
	up := newUpstream(t, 0, nil)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			http.Redirect(w, r, "/moved/v1/models", http.StatusTemporaryRedirect) // same origin
		case "/moved/v1/models":
			r.URL.Path = "/v1/models"
			up.Config.Handler.ServeHTTP(w, r)
		default:
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}
	}))
	defer front.Close()
	ts := tapeServer(t, TapeConfig{Upstream: front.URL, Record: t.TempDir()})

	status, _, out := tapeCall(t, ts, http.MethodPost, "/v1/messages", msgBody(), "Authorization", "Bearer "+liveKey)
	if status != http.StatusInternalServerError || !strings.Contains(gjson.GetBytes(out, "error.message").String(), "the upstream redirected to "+other.URL+"/v1/messages, another origin") {
		t.Errorf("a redirect to another host: %d %s; want 500 naming it", status, out)
	}
	status, _, out = tapeCall(t, ts, http.MethodPost, "/v1/messages/count_tokens", map[string]any{"model": testModel, "messages": userTurn("Hi")})
	if status != http.StatusInternalServerError {
		t.Errorf("a redirect to another host: %d %s; want 500", status, out)
	}
	mu.Lock()
	if len(seen) != 0 {
		t.Errorf("the other host received %q; want nothing", seen)
	}
	mu.Unlock()
	if status, _, out := tapeCall(t, ts, http.MethodGet, "/v1/models", nil); status != http.StatusOK || !gjson.GetBytes(out, "data.0.id").Exists() {
		t.Errorf("a redirect within the upstream: %d %s; want it followed", status, out)
	}
}

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"http://Example.COM/v1":     "http://example.com:80",
		"https://example.com:443/x": "https://example.com:443",
		"https://example.com":       "https://example.com:443",
		"http://127.0.0.1:8080":     "http://127.0.0.1:8080",
		"http://[::1]:9/":           "http://::1:9",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := tape.Origin(u); got != want {
			t.Errorf("origin(%s) = %s; want %s", in, got, want)
		}
	}
}
