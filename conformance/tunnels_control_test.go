package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
	"github.com/platformkit/platformkit/conformance/tunnels"
)

// TestTunnelControlCreateNeedsTheSecondOrganizationFirst: against the binary with
// CONFORMANCE_BEARER_TOKEN exported and CONFORMANCE_BEARER_TOKEN_2 not, tunnels/control-create
// is disabled, like the other checks of a second organization, before it creates anything, and
// sends no request without a credential; with both it passes and leaves no tunnel behind.
func TestTunnelControlCreateNeedsTheSecondOrganizationFirst(t *testing.T) {
	var creates, bare atomic.Int64
	srv := fake.New()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/_fake/tunnels" {
			creates.Add(1)
		}
		if strings.HasPrefix(r.URL.Path, "/v1/") && r.Header.Get("Authorization") == "" && r.Header.Get("X-Api-Key") == "" {
			bare.Add(1)
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c := checkByID(t, "tunnels/control-create")
	tg, err := kit.Open(context.Background(), kit.ConfigFromEnv(env(ts.URL, "CONFORMANCE_BEARER_TOKEN", kit.FakeBearerToken)), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := kit.RunCheck(context.Background(), tg, c)
	if !strings.HasPrefix(o.Skipped, kit.PrefixDisabled) || !strings.Contains(o.Skipped, "CONFORMANCE_BEARER_TOKEN_2") || len(o.CleanupFailures) > 0 {
		t.Errorf("without CONFORMANCE_BEARER_TOKEN_2: %+v; want disabled, naming it, with no cleanup failure", o)
	}
	if n := creates.Load(); n != 0 {
		t.Errorf("without CONFORMANCE_BEARER_TOKEN_2 the check created %d tunnels", n)
	}
	tg, err = kit.Open(context.Background(), kit.ConfigFromEnv(env(ts.URL)), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The live tunnels of both organizations, as their bearer tokens list them.
	liveTunnels := func() int {
		n := 0
		for _, org2 := range []bool{false, true} {
			resp, err := tg.Client.Do(context.Background(), &kit.Request{Area: kit.Tunnels, Org2: org2, Path: tunnels.Path, Query: map[string][]string{"limit": {"1000"}}})
			if err != nil || resp.Status != http.StatusOK {
				t.Fatalf("listing tunnels: %v %v", err, resp)
			}
			n += len(resp.Get("data").Array())
		}
		return n
	}
	before := liveTunnels()
	if o := kit.RunCheck(context.Background(), tg, c); !o.Passed() || len(o.CleanupFailures) > 0 {
		t.Errorf("with both organizations' tokens: %+v", o)
	}
	if n, live := bare.Load(), liveTunnels(); n != 0 || live > before {
		t.Errorf("%d requests sent without a credential, %d live tunnels after the run (%d before)", n, live, before)
	}
}
