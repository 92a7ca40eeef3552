// Package refusal reads the fake's refusals out of a client's output (a Go SDK error, a
// TypeScript SDK error, a test's log) and names what was refused: the API version, the key, a
// beta, a field, a route. The proofs that run official SDKs against the fake (Go SDK v2's own
// suite, make sdk-drift) report with it, so that each says what the fake could not take.
package refusal

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Answer is one error answer of the fake found in an output.
type Answer struct {
	Status  int    // the HTTP status, as the client printed it
	Request string // what the client printed before the status: often the method and URL
	Type    string // error.type of the envelope, e.g. invalid_request_error
	Message string // error.message
}

// Classes of a refusal.
const (
	Version = "version" // the API version header: missing, or a value the fake does not serve
	Key     = "key"     // the credential: unknown (401), or not taken here (403)
	Beta    = "beta"    // a beta value the route requires, or one it does not know
	Field   = "field"   // a body or query field the fake does not know
	Route   = "route"   // no route for the method and path
	Absent  = "absent"  // 404 for a resource that does not exist
	Other   = "other"   // any other refusal, e.g. a value the fake validates
)

// answerStart finds where a client printed an error answer: ": " and a 3-digit status (as the
// Go and TypeScript SDKs print it; a log's "file.go:113:" is no status), then, on the same line
// after the reason phrase and the request ID, the envelope.
var answerStart = regexp.MustCompile(`(?m): ([1-5][0-9]{2}) [^{\n]*(\{"type":\s*"error")`)

// Find returns the error answers in out, in order.
func Find(out string) []Answer {
	var answers []Answer
	for _, m := range answerStart.FindAllStringSubmatchIndex(out, -1) {
		status, _ := strconv.Atoi(out[m[2]:m[3]])
		var env struct {
			Error struct{ Type, Message string } `json:"error"`
		}
		if json.NewDecoder(strings.NewReader(out[m[4]:])).Decode(&env) != nil {
			continue
		}
		lineStart := strings.LastIndexByte(out[:m[2]], '\n') + 1
		req := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(out[lineStart:m[2]]), ":"))
		answers = append(answers, Answer{Status: status, Request: req, Type: env.Error.Type, Message: env.Error.Message})
	}
	return answers
}

// String prints the answer as the Go SDK prints an error, which Find reads back.
func (a Answer) String() string {
	type body struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	env, _ := json.Marshal(struct {
		Type  string `json:"type"`
		Error body   `json:"error"`
	}{"error", body{a.Type, a.Message}})
	return fmt.Sprintf("%s: %d %s", a.Request, a.Status, env)
}

// Class names what the answer refused.
func (a Answer) Class() string {
	msg := a.Message
	switch {
	case strings.HasPrefix(msg, "anthropic-version:") || strings.HasPrefix(msg, "vendor-version:"):
		return Version
	case a.Status == 401 || a.Status == 403:
		return Key
	case strings.HasPrefix(msg, "anthropic-beta:") || strings.HasPrefix(msg, "vendor-beta:"):
		return Beta
	case strings.HasSuffix(msg, ": unknown field") || strings.HasSuffix(msg, ": Extra inputs are not permitted"):
		return Field
	case strings.HasPrefix(msg, "no route for "):
		return Route
	case a.Status == 404:
		return Absent
	}
	return Other
}

// Path is the path of a Route refusal ("no route for POST /v1/x" gives /v1/x), else "".
func (a Answer) Path() string {
	rest, ok := strings.CutPrefix(a.Message, "no route for ")
	if !ok {
		return ""
	}
	_, path, _ := strings.Cut(rest, " ")
	return path
}
