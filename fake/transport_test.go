package fake

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// TestClientSendsDefaultCredentials: the package documentation's own example works, and every
// interface is reached with its default credential and headers.
func TestClientSendsDefaultCredentials(t *testing.T) {
	ts := NewTestServer(t)
	for _, path := range []string{
		"/v1/models",
		"/v1/organizations/me",
		"/v1/compliance/organizations",
		"/v1/organizations/tunnels",
		"/v1/memory_stores",
		"/v1/environments",
		"/v1/environments/" + core.DefaultEnvironmentID + "/work/stats",
	} {
		resp, err := ts.Client().Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d %s, want 200", path, resp.StatusCode, body)
		}
	}
}

// TestClientKeepsWhatTheRequestSets: a credential the request carries is not replaced, so tests
// of the second organization or of refusals still use ts.Client().
func TestClientKeepsWhatTheRequestSets(t *testing.T) {
	ts := NewTestServer(t)
	for _, c := range []struct {
		header, value string
		want          int
	}{
		{"X-Api-Key", core.DefaultAPIKey + core.SecondOrganizationSuffix, http.StatusOK},
		{"X-Api-Key", "not-a-key", http.StatusUnauthorized},
		{"Authorization", "Bearer " + core.DefaultAdminKey, http.StatusForbidden},
	} {
		req, _ := http.NewRequest("GET", ts.URL+"/v1/models", nil)
		req.Header.Set(c.header, c.value)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: %s = %d, want %d", c.header, c.value, resp.StatusCode, c.want)
		}
		if got := req.Header.Get("vendor-version"); got != "" {
			t.Errorf("the transport changed the caller's request: vendor-version = %q", got)
		}
	}
	resp, err := ts.Server.Client().Get(ts.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the plain client got %d, want 401", resp.StatusCode)
	}
}

// TestInterfaceOfPathFollowsTheRouteTable: every API route's path, with its parameters filled
// in, maps to the route's own interface, and control and unknown paths to none. This is what
// makes the first match of interfaceOfPath the right one.
func TestInterfaceOfPathFollowsTheRouteTable(t *testing.T) {
	for _, rt := range core.Routes() {
		segs := strings.Split(rt.Path, "/")
		for i, s := range segs {
			if strings.HasPrefix(s, ":") {
				segs[i] = "x"
			}
		}
		path := strings.Join(segs, "/")
		for _, p := range []string{path, "/ns/t-1" + path} { // and in a namespace
			if got := interfaceOfPath(p); got != rt.Ifc {
				t.Errorf("%s %s: interface %v, want %v", rt.Method, p, got, rt.Ifc)
			}
		}
	}
	for _, path := range []string{"/", "/v1", "/v1/models/", "/v1/models/a/b", "/_fake/health", "/ns/t-1/_fake/health", "/ns/v1/models"} {
		if got := interfaceOfPath(path); got != nil {
			t.Errorf("%s: interface %s, want none", path, got.Name)
		}
	}
}
