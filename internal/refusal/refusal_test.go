package refusal

import (
	"reflect"
	"testing"
)

// TestFind: the answers as Go SDK v2, the TypeScript SDK and a test log print them, read and
// classified; expected values worked out by hand.
func TestFind(t *testing.T) {
	const out = `    x_test.go:113: err should be nil: GET "http://127.0.0.1:1/v1/models": 400 Bad Request (Request-ID: req_1) {"type":"error","error":{"type":"invalid_request_error","message":"anthropic-version: \"2026-10-21\" is not a supported version; send \"2023-06-01\""},"request_id":"req_1"}
BadRequestError: 400 {"type":"error","error":{"type":"invalid_request_error","message":"thread: unknown field"},"request_id":"req_2"}
    at APIError.generate (file:///x/error.mjs:55:24)
POST "http://h/v1/organizations/users/u/sign_out": 404 Not Found (Request-ID: req_3) {"type":"error","error":{"type":"not_found_error","message":"no route for POST /v1/organizations/users/u/sign_out"}}
GET "http://h/v1/organizations/me": 403 Forbidden (Request-ID: req_4) {"type":"error","error":{"type":"permission_error","message":"the administration interface does not accept an API key"}}
GET "http://h/v1/users/x": 404 Not Found {"type":"error","error":{"type":"not_found_error","message":"user \"x\" was not found"}}
POST "http://h/v1/tunnels": 400 Bad Request {"type":"error","error":{"type":"invalid_request_error","message":"vendor-beta: the tunnels interface requires the beta value \"mcp-tunnels-2026-05-19\""}}
GET "http://h/v1/models?limit=0": 400 Bad Request {"type":"error","error":{"type":"invalid_request_error","message":"limit: must be an integer from 1 to 1000, got \"0\""}}
a 200 {"type":"message"} is no error, and neither is status 404 without an envelope
`
	type got struct {
		Status               int
		Class, Path, Request string
	}
	var gots []got
	for _, a := range Find(out) {
		gots = append(gots, got{a.Status, a.Class(), a.Path(), a.Request})
	}
	want := []got{
		{400, Version, "", `x_test.go:113: err should be nil: GET "http://127.0.0.1:1/v1/models"`},
		{400, Field, "", "BadRequestError"},
		{404, Route, "/v1/organizations/users/u/sign_out", `POST "http://h/v1/organizations/users/u/sign_out"`},
		{403, Key, "", `GET "http://h/v1/organizations/me"`},
		{404, Absent, "", `GET "http://h/v1/users/x"`},
		{400, Beta, "", `POST "http://h/v1/tunnels"`},
		{400, Other, "", `GET "http://h/v1/models?limit=0"`},
	}
	if !reflect.DeepEqual(gots, want) {
		t.Errorf("Find:\n got %+v\nwant %+v", gots, want)
	}
}

// TestStringReadsBack: an answer printed by String is found again, the same.
func TestStringReadsBack(t *testing.T) {
	a := Answer{Status: 400, Request: `POST "http://h/v1/messages"`, Type: "invalid_request_error", Message: `thread: unknown "field"`}
	const want = `POST "http://h/v1/messages": 400 {"type":"error","error":{"type":"invalid_request_error","message":"thread: unknown \"field\""}}`
	if a.String() != want {
		t.Errorf("String() = %s\nwant        %s", a.String(), want)
	}
	if got := Find("x: " + a.String()); len(got) != 1 || got[0] != (Answer{Status: 400, Request: `x: POST "http://h/v1/messages"`, Type: a.Type, Message: a.Message}) {
		t.Errorf("Find(String()) = %+v", got)
	}
}
