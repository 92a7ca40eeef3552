package fake

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strconv"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/threads"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// TestThreadFingerprintComparesValues (issue 47, item 14): a continue that sends the thread's
// fields as other JSON text of the same values (1024.0 for 1024, keys in another order) is not a
// fingerprint mismatch: it is answered as the whole conversation sent at once would be (which
// reads budget_tokens into an integer, and so refuses 1024.0 as every request does); another
// value is still a mismatch.
func TestThreadFingerprintComparesValues(t *testing.T) {
	ts := NewTestServer(t)
	const model = "assistant-mythos-preview" // a model that thinks
	const servers = `"mcp_servers":[{"type":"url","name":"s","url":"https://a.example/"}]`
	first := create(t, ts, `{"model":"`+model+`","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},`+servers+
		`,"messages":[{"role":"user","content":"Hi"}],"thread":{"type":"create"}}`, threadBeta...)
	latest := first.Get("id").String()
	cont := func(thinking, servers string) (int, gjson.Result) {
		status, _, out := threadPost(t, ts, `{"model":"`+model+`","max_tokens":2048,"thinking":`+thinking+`,`+servers+
			`,"messages":[{"role":"user","content":"More"}],"thread":{"type":"continue","previous_message_id":`+strconv.Quote(latest)+`}}`)
		if status == http.StatusOK {
			latest = out.Get("id").String()
		}
		return status, out
	}
	if status, out := cont(`{"budget_tokens":1024,"type":"enabled"}`, `"mcp_servers":[{"url":"https://a.example/","type":"url","name":"s"}]`); status != http.StatusOK {
		t.Fatalf("the same values, keys in another order: %d %s", status, out.Raw)
	}
	// The whole conversation sent at once, with budget_tokens written 1024.0.
	wholeStatus, wholeOut := postMessages(t, ts, "/v1/messages", `{"model":"`+model+`","max_tokens":2048,"thinking":{"budget_tokens":1024.0,"type":"enabled"},`+servers+
		`,"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"ok"},{"role":"user","content":"More"}]}`)
	whole := gjson.GetBytes(wholeOut, "error.message").String()
	status, out := cont(`{"budget_tokens":1024.0,"type":"enabled"}`, servers)
	if status != wholeStatus || out.Get("error.message").String() != whole || out.Get("error.details.error_code").String() == threads.ThreadFingerprintMismatch {
		t.Fatalf("budget_tokens 1024.0: %d %s; want the whole conversation's answer, %d %q", status, out.Raw, wholeStatus, whole)
	}
	status, out = cont(`{"budget_tokens":1025,"type":"enabled"}`, servers)
	if status != http.StatusBadRequest || out.Get("error.details.error_code").String() != threads.ThreadFingerprintMismatch {
		t.Fatalf("another budget: %d %s, want 400 %s", status, out.Raw, threads.ThreadFingerprintMismatch)
	}
}

// TestCanonicalNumbers: numbers of the same value are written alike, on values worked out by
// hand; FuzzCanonicalNumber holds the rule to math/big at random.
func TestCanonicalNumbers(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1024", "1024"}, {"1024.0", "1024"}, {"1.024e3", "1024"}, {"1024e0", "1024"}, {"10240E-1", "1024"},
		{"-0", "0"}, {"0.000", "0"}, {"-0e5", "0"}, {"0.5", "0.5"}, {"5e-1", "0.5"}, {"-1.50", "-1.5"},
		{"1e21", "1e21"}, {"1e20", "100000000000000000000"}, {"123e-10", "1.23e-8"}, {"0.000001", "0.000001"},
		{"1e-7", "1e-7"}, {"12.5e1", "125"},
	} {
		if got := core.CanonicalNumber(json.Number(tc.in)); string(got) != tc.want {
			t.Errorf("canonicalNumber(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzCanonicalNumber holds canonicalNumber to math/big: two JSON numbers are written alike
// exactly when big.Rat reads them as the same value, and what it writes is a JSON number of that
// value.
func FuzzCanonicalNumber(f *testing.F) {
	for _, pair := range [][2]string{{"1024", "1024.0"}, {"1e3", "1000"}, {"-0", "0.0"}, {"0.5", "5e-1"}, {"1e21", "1e20"}, {"123e-10", "1.23e-8"}, {"1.5", "1.50000000000000000001"}} {
		f.Add(pair[0], pair[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ra, oka := ratOf(a)
		rb, okb := ratOf(b)
		if !oka || !okb {
			return
		}
		ca, cb := core.CanonicalNumber(json.Number(a)), core.CanonicalNumber(json.Number(b))
		if (ca == cb) != (ra.Cmp(rb) == 0) {
			t.Fatalf("%s and %s: canonical %s and %s, but big.Rat compares them %d", a, b, ca, cb, ra.Cmp(rb))
		}
		if rc, ok := ratOf(string(ca)); !ok || rc.Cmp(ra) != 0 {
			t.Fatalf("canonicalNumber(%s) = %s, not a JSON number of the same value", a, ca)
		}
	})
}

// ratOf is the value of a JSON number of at most 40 characters and an exponent of at most 3
// digits (what math/big reads in little time), and false for anything else.
func ratOf(s string) (*big.Rat, bool) {
	var n json.Number
	if len(s) > 40 || json.Unmarshal([]byte(s), &n) != nil || string(n) != s {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			exp := s[i+1:]
			if len(exp) > 0 && (exp[0] == '+' || exp[0] == '-') {
				exp = exp[1:]
			}
			if len(exp) > 3 {
				return nil, false
			}
		}
	}
	return new(big.Rat).SetString(s)
}
