package fake

import (
	"slices"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// TestOutOfRangeMessagesNameTheRange: a refused parameter names its declared range as integers,
// however large (not 8.64e+07).
func TestOutOfRangeMessagesNameTheRange(t *testing.T) {
	w := send(t, checked(t), "GET", "/v1/environments/env_01AcmePrimary000000000001/work/poll?reclaim_older_than_ms=-1", "", modelsHeaders...)
	wantError(t, w, 400, "invalid_request_error", "reclaim_older_than_ms: must be an integer from 0 to 86400000")
}

// TestQueryArgsReadAsParseQuery: the query is read as url.ParseQuery reads it: escapes decoded,
// pairs with a semicolon or a bad escape left out, empty pairs skipped, a key without = kept
// with an empty value.
func TestQueryArgsReadAsParseQuery(t *testing.T) {
	got := core.ParseQueryArgs(nil, "a=1&b=%zz&c=x;y&&d=%41+b&e&f%5B%5D=2&a=3")
	want := []core.QueryArg{{Key: "a", Value: "1"}, {Key: "d", Value: "A b"}, {Key: "e", Value: ""}, {Key: "f[]", Value: "2"}, {Key: "a", Value: "3"}}
	if !slices.Equal(got, want) {
		t.Errorf("parseQueryArgs = %q, want %q", got, want)
	}
}

// TestQueryParametersReadInEveryForm: a list page reads its parameters from the query whatever
// its length: the first of repeated values, and past the parameters it parses itself (a query
// of more than maxScannedArgs parameters is read through gin), the same answer.
func TestQueryParametersReadInEveryForm(t *testing.T) {
	s := checked(t)
	for _, q := range []string{"limit=1&limit=3", strings.Repeat("x=1&", core.MaxScannedArgs+1) + "limit=1"} {
		w := send(t, s, "GET", "/v1/models?"+q, "", modelsHeaders...)
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", q[len(q)-20:], w.Code, w.Body)
		}
		if n := strings.Count(w.Body.String(), `"type":"model"`); n != 1 {
			t.Errorf("%s: %d models, want 1", q[len(q)-20:], n)
		}
	}
	w := send(t, s, "GET", "/v1/models?"+strings.Repeat("x=1&", core.MaxScannedArgs+1)+"limit=0", "", modelsHeaders...)
	wantError(t, w, 400, "invalid_request_error", "limit: must be an integer from 1 to 1000")
}

// TestComplianceUserIDsInEveryForm: user_ids given as user_ids=a,b, user_ids[]=a and repeated,
// through the query parsed here and through gin's (a long query), select the same chats.
func TestComplianceUserIDsInEveryForm(t *testing.T) {
	s := checked(t)
	long := strings.Repeat("x=1&", core.MaxScannedArgs+1)
	var bodies []string
	for _, q := range []string{
		"user_ids=" + ccGrace + ",+" + ccAlan,
		"user_ids[]=" + ccAlan + "&user_ids=" + ccGrace,
		"user_ids%5B%5D=" + ccGrace + "&user_ids%5B%5D=" + ccAlan,
		long + "user_ids=" + ccGrace + "&user_ids[]=" + ccAlan,
	} {
		w := send(t, s, "GET", "/v1/compliance/apps/chats?limit=3&"+q, "", "Authorization", "Bearer test-compliance-key")
		if w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		bodies = append(bodies, w.Body.String())
	}
	for i, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("form %d answers\n%s\nwant\n%s", i+1, b, bodies[0])
		}
	}
	if !strings.Contains(bodies[0], ccGrace) || !strings.Contains(bodies[0], `"has_more":true`) {
		t.Errorf("no page of Grace's chats: %s", bodies[0])
	}
}
