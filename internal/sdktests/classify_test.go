package main

import (
	"strings"
	"testing"

	"github.com/platformkit/platformkit/internal/refusal"
)

// Failures as the Python SDK 2.14.0's generated tests print them (pytest's JUnit text), copied
// from a run against the fake.
const (
	pyAbsent       = `anthropic.NotFoundError: Error code: 404 - {'type': 'error', 'error': {'type': 'not_found_error', 'message': 'model "model_id" was not found'}, 'request_id': 'req_010000000000000000000001'}`
	pyNoRoute      = `E   anthropic.NotFoundError: Error code: 404 - {'type': 'error', 'error': {'type': 'not_found_error', 'message': 'no route for GET /v1/dreams/dream_id'}, 'request_id': 'req_1'}`
	pyServed       = `E   anthropic.NotFoundError: Error code: 404 - {'type': 'error', 'error': {'type': 'not_found_error', 'message': 'no route for POST /v1/models/m/archive'}, 'request_id': 'req_1'}`
	pyKey          = `E   anthropic.PermissionDeniedError: Error code: 403 - {'type': 'error', 'error': {'type': 'permission_error', 'message': 'the administration interface does not accept an API key'}, 'request_id': 'req_3'}`
	pyAgentVersion = `E   anthropic.BadRequestError: Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'agent_version: must be an integer from 1 to 1073741824, got "0"'}, 'request_id': 'req_9'}`
	pyLimit        = `E   anthropic.BadRequestError: Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'limit: must be an integer from 1 to 100, got "0"'}, 'request_id': 'req_4'}`
	pyQuoted       = `E   anthropic.BadRequestError: Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': "diagnostics.previous_message_id: does not match pattern '^msg_'"}, 'request_id': 'req_5'}`
	pyUnknown      = `E   anthropic.BadRequestError: Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'stop_sequences: must be an array of at most 4 strings'}, 'request_id': 'req_6'}`
	pySHA          = `E   anthropic.BadRequestError: Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': "precondition.content_sha256: does not match pattern '^[0-9a-f]{64}$'"}, 'request_id': 'req_7'}`
	pyValidated    = "E   anthropic.APIResponseValidationError: Data returned by API invalid for expected schema.\nE   1 validation error for Model\nE   created_at\nE     Field required"
)

func TestPythonAnswers(t *testing.T) {
	for _, tc := range []struct {
		text         string
		status       int
		typ, message string
	}{
		{pyAbsent, 404, "not_found_error", `model "model_id" was not found`},
		{pyQuoted, 400, "invalid_request_error", `diagnostics.previous_message_id: does not match pattern '^msg_'`},
		{pyLimit, 400, "invalid_request_error", `limit: must be an integer from 1 to 100, got "0"`},
	} {
		got := pythonAnswers(tc.text)
		if len(got) != 1 || got[0].Status != tc.status || got[0].Type != tc.typ || got[0].Message != tc.message {
			t.Errorf("pythonAnswers(%.60q...) = %+v, want one %d %s %q", tc.text, got, tc.status, tc.typ, tc.message)
		}
	}
	if got := pythonAnswers(pyValidated); len(got) != 0 {
		t.Errorf("a validation error holds no answer of the fake, got %+v", got)
	}
}

// TestClassify: the categories, worked out by hand from the brief's rules: a family the fake
// does not serve is (a); a 404 for an ID, or a 400 a listed rule explains, is (b); the rest is
// (c), and a run that refused the key gives way to the one that took it.
func TestClassify(t *testing.T) {
	py := func(texts ...string) ([][]refusal.Answer, []string) {
		var as [][]refusal.Answer
		for _, s := range texts {
			as = append(as, pythonAnswers(s))
		}
		return as, texts
	}
	for _, tc := range []struct {
		name  string
		texts []string
		want  string
	}{
		{"absent ID", []string{pyAbsent, pyAbsent}, catPlaceholder},
		{"family not served", []string{pyNoRoute, pyNoRoute}, catNotServed},
		{"no route in a served family", []string{pyServed, pyServed}, catDrift},
		{"key refused in one run, a placeholder in the other", []string{pyKey, pyLimit}, catPlaceholder},
		{"key refused in both runs", []string{pyKey, pyKey}, catDrift},
		{"a pattern the SDK documents", []string{pyQuoted, pyQuoted}, catPlaceholder},
		{"a placeholder version of 0 in a filter", []string{pyAgentVersion, pyAgentVersion}, catPlaceholder},
		{"a 400 no rule explains", []string{pyUnknown, pyUnknown}, catDrift},
		{"a pattern whose metacharacters the rule quotes", []string{pySHA, pySHA}, catPlaceholder},
		{"strict validation rejected the answer", []string{pyValidated, pyValidated}, catDrift},
	} {
		as, texts := py(tc.texts...)
		if got := classify(as, texts); got.cat != tc.want {
			t.Errorf("%s: category %s (%s %s), want %s", tc.name, got.cat, got.group, got.detail, tc.want)
		}
	}
	// The key refused in one run and the answer rejected by strict validation in the other: the
	// drift named is the rejected answer, not the key.
	as, texts := py(pyKey, pyValidated)
	if got := classify(as, texts); got.cat != catDrift || !strings.Contains(got.detail, "Data returned by API invalid") {
		t.Errorf("key refused, then an invalid answer: %s %q, want drift naming the validation", got.cat, got.detail)
	}
}
