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
)

// TestRunAsDeployment: in the run mode that treats the fake as a deployment, the fake (whose
// control API answers) is not taken for the fake: no request reaches /_fake/, fake-only checks
// are disabled, destructive ones too, and a credential not exported is not filled in with the
// fake's, so its checks are unsupported naming the variable.
func TestRunAsDeployment(t *testing.T) {
	var control atomic.Int64
	srv := fake.New()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/_fake/") {
			control.Add(1)
		}
		srv.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	cfg := kit.ConfigFromEnv(env(ts.URL, "CONFORMANCE_AS_DEPLOYMENT", "1", "CONFORMANCE_API_KEY", kit.FakeAPIKey))
	if !cfg.AsDeployment {
		t.Fatal("CONFORMANCE_AS_DEPLOYMENT=1 does not select the mode")
	}
	tg, err := kit.Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tg.IsFake || tg.Config.AdminKey != "" || tg.Config.Destructive {
		t.Fatalf("the fake run as a deployment: IsFake %v, admin key %q, destructive %v; want false, unset, false", tg.IsFake, tg.Config.AdminKey, tg.Config.Destructive)
	}
	for id, want := range map[string]string{
		"core/control-health":                kit.PrefixDisabled,
		"admin/organization-me":              kit.PrefixNotConfigured + "CONFORMANCE_ADMIN_API_KEY is not set",
		"models/interface-request-id-header": "",
	} {
		o := kit.RunCheck(context.Background(), tg, checkByID(t, id))
		if len(o.Failures) > 0 || !strings.HasPrefix(o.Skipped, want) || (want == "" && o.Skipped != "") {
			t.Errorf("%s: %+v; want it to end %q", id, o, want)
		}
	}
	if n := control.Load(); n != 0 {
		t.Errorf("a run as a deployment sent %d requests to the control API; want none", n)
	}
}

// TestFailureLeadsWithTheStatement: a failure that quotes an answer opens with what was
// expected and the difference, and names the exchange by its line only (the reports show it in
// full once): against billing_policy ignored, not with the message's JSON.
func TestFailureLeadsWithTheStatement(t *testing.T) {
	c := checkByID(t, "messages/billing-policy")
	o := kit.RunCheck(context.Background(), bugTarget(t, c, c.Bug.Break), c)
	msg := strings.Join(o.Failures, "\n")
	if !strings.HasPrefix(msg, "bill_to user_profile, with no profile linked, is refused 400") || !strings.Contains(msg, "POST /v1/messages -> 200") || strings.Contains(msg, `"content"`) {
		t.Errorf("the failure reads:\n%s\nwant the statement first, the exchange named by its line, no answer body", msg)
	}
}
