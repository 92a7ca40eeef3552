package typescriptsdk

import "testing"

// TestSentProblem: the summary lines that pass and fail the check, written by hand.
func TestSentProblem(t *testing.T) {
	const ok = "stream:\n  x\nwhat the SDK sent:\n  anthropic-version 2026-10-21, vendor-version not sent, key in authorization: 41 requests\ncoverage:\n  GET /v1/models: 1 requests\n"
	if p := sentProblem(ok); p != "" {
		t.Errorf("every request as the SDK sends it: %s", p)
	}
	for name, out := range map[string]string{
		"no summary":              "stream:\n  x\n",
		"a vendor-version added":  "what the SDK sent:\n  anthropic-version 2026-10-21, vendor-version 2023-06-01, key in authorization: 41 requests\ncoverage:\n",
		"the old version":         "what the SDK sent:\n  anthropic-version 2023-06-01, vendor-version not sent, key in authorization: 41 requests\ncoverage:\n",
		"a key in x-api-key":      "what the SDK sent:\n  anthropic-version 2026-10-21, vendor-version not sent, key in x-api-key: 41 requests\ncoverage:\n",
		"some requests otherwise": "what the SDK sent:\n  anthropic-version 2026-10-21, vendor-version not sent, key in authorization: 40 requests\n  anthropic-version 2026-10-21, vendor-version not sent, key in x-api-key: 1 requests\ncoverage:\n",
	} {
		if sentProblem(out) == "" {
			t.Errorf("%s: passed the check", name)
		}
	}
}
