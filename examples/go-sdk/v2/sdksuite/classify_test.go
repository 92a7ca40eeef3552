package sdksuite

import "testing"

// TestClassify: the classes of the fake's answers as the generated tests print them, worked
// out by hand; a test that failed in both key runs is judged by the run that took the key.
func TestClassify(t *testing.T) {
	const (
		version  = `    x_test.go:9: err should be nil: GET "http://127.0.0.1:1/v1/models": 400 Bad Request (Request-ID: req_1) {"type":"error","error":{"type":"invalid_request_error","message":"anthropic-version: \"2026-10-21\" is not a supported version; send \"2023-06-01\""},"request_id":"req_1"}`
		key401   = `    x_test.go:9: err should be nil: GET "http://127.0.0.1:1/v1/models": 401 Unauthorized (Request-ID: req_2) {"type":"error","error":{"type":"authentication_error","message":"invalid authorization: the credential is not known"},"request_id":"req_2"}`
		key403   = `    x_test.go:9: err should be nil: GET "http://127.0.0.1:1/v1/organizations/me": 403 Forbidden (Request-ID: req_3) {"type":"error","error":{"type":"permission_error","message":"the administration interface does not accept an API key"},"request_id":"req_3"}`
		field    = `    x_test.go:9: err should be nil: POST "http://127.0.0.1:1/v1/organizations/workspaces": 400 Bad Request (Request-ID: req_4) {"type":"error","error":{"type":"invalid_request_error","message":"user_profile_id: unknown field"},"request_id":"req_4"}`
		served   = `    x_test.go:9: err should be nil: POST "http://127.0.0.1:1/v1/organizations/users/u/sign_out": 404 Not Found (Request-ID: req_5) {"type":"error","error":{"type":"not_found_error","message":"no route for POST /v1/organizations/users/u/sign_out"},"request_id":"req_5"}`
		webhooks = `    x_test.go:9: err should be nil: GET "http://127.0.0.1:1/v1/webhooks": 404 Not Found (Request-ID: req_6) {"type":"error","error":{"type":"not_found_error","message":"no route for GET /v1/webhooks"},"request_id":"req_6"}`
		absent   = `    x_test.go:9: err should be nil: GET "http://127.0.0.1:1/v1/organizations/users/user_id": 404 Not Found (Request-ID: req_7) {"type":"error","error":{"type":"not_found_error","message":"user user_id not found"},"request_id":"req_7"}`
		invalid  = `    x_test.go:9: err should be nil: GET "http://127.0.0.1:1/v1/models?limit=0": 400 Bad Request (Request-ID: req_8) {"type":"error","error":{"type":"invalid_request_error","message":"limit: must be between 1 and 1000"},"request_id":"req_8"}`
		noHTTP   = "    x_test.go:9: expected 3 blocks, got 2\n--- FAIL: TestX (0.00s)"
	)
	for _, tc := range []struct {
		name string
		outs []string
		want string
	}{
		{"version", []string{version, version}, classVersion},
		{"key refused in both runs", []string{key401, key403}, classKey},
		{"key refused in one run, a field in the other", []string{key403, field}, classField},
		{"route the fake is meant to serve", []string{served, key403}, classRoute},
		{"route listed as unserved", []string{webhooks, webhooks}, classUnserved},
		{"absent resource", []string{key403, absent}, classAbsent},
		{"a placeholder value", []string{invalid, invalid}, classOther},
		{"no HTTP answer", []string{noHTTP, noHTTP}, classOther},
	} {
		if got, detail := classify(tc.outs); got != tc.want {
			t.Errorf("%s: class %q (%s), want %q", tc.name, got, detail, tc.want)
		}
	}
}
