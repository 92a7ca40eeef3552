package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Sub is a call that answers body as the route rt answers it, inside the request c serves: the
// same server, state, credential, API version, beta values and headers, with body as its only
// body and the route's path as its URL's. It has an exchange of its own, so that what the inner
// answer records (its body, its stub, the limit that refused it) does not overwrite the outer
// request's journal entry, and it counts for no route's coverage. Headers it sets go to the outer response. An area that answers
// requests inside a request of its own uses it (a message batch answers each of its requests as
// POST /v1/messages would).
func (c *Call) Sub(rt *Route, body []byte) *Call {
	r := c.Request.Clone(c.Request.Context())
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	// The route's own path, without the outer query: what reads the request's URL (the tape,
	// which forwards and keys it) sees the request answered, not the one that made it.
	r.URL.Path, r.URL.RawPath, r.URL.RawQuery = rt.Path, "", ""
	gc := c.Context.Copy()
	gc.Request, gc.Writer = r, c.Context.Writer
	x := &Exchange{s: c.X.s, RequestID: c.X.RequestID}
	sub := &Call{Context: gc, X: x, Srv: c.Srv, St: c.St, Route: rt, Cred: c.Cred, Org: c.Org,
		betas: c.betas, Version: c.Version, credHeader: c.credHeader, op: -1}
	return sub
}

// Fault uses up the first injected fault that matches a request of the sub-call's route (its
// method and path, not the outer request's), and returns the error the fault answers with: its
// status's, or an api_error for a fault that drops the connection (the request the fake makes
// has none to drop). A fault that only delays or cuts a stream is used up and changes nothing:
// the fake waits for no one inside a request, and the sub-call's answer is no stream. Nil when
// no fault matches.
func (c *Call) Fault() error {
	f, ok := c.Srv.faults.take(c.Route.Method, c.Route.Path)
	if !ok {
		return nil
	}
	c.X.fault = true
	switch {
	case f.Status != 0:
		return (&APIError{Typ: FaultStatusTypes[f.Status], Message: fmt.Sprintf("injected fault %s", f.ID)}).WithStatus(f.Status)
	case f.Drop:
		return NewError(ErrAPI, "injected fault %s dropped the connection", f.ID)
	}
	return nil
}

// Journal records the sub-call in the server's journal as a request of its own, which the fake
// made while serving the outer request: the method and path of its route, the body it answered,
// what its exchange learned (stub, near miss, rate limit, thread, fault), its status (200, or
// err's), and a request ID of its own; sessionID marks it as a turn of that session's agent.
// An area journals the sub-calls a test must see (a session's model requests); a batch's
// requests stay inside its own entry.
func (c *Call) Journal(sessionID string, err error) {
	x, s := c.X, c.Srv
	status := http.StatusOK
	if err != nil {
		ae, _ := ErrorBody(err, "")
		status, x.ErrorType = ae.httpStatus(), ae.Typ
	}
	e := JournalEntry{
		RequestID: s.requestID(false), At: s.Clock.Now(), Method: c.Route.Method, Path: c.Route.Path,
		Status: status, ErrorType: x.ErrorType, Fault: x.fault, Stub: x.Stub, StubNearMiss: x.StubNearMiss,
		RateLimit: x.RateLimit, Thread: x.Thread, SessionID: sessionID, APIVersion: c.versionName(),
	}
	if c.Route.Ifc != nil {
		e.Interface = c.Route.Ifc.Name
	}
	if c.Cred != nil {
		e.CredentialID, e.CredentialHeader = c.Cred.ID, c.credHeader
	}
	e.headers = e.recordHeaders(c.Request.Header)
	e.Valid = e.ErrorType != ErrInvalidRequest && e.ErrorType != ErrRequestTooLarge
	if b := x.body; b != nil {
		e.BodyBytes = len(b)
		if len(b) > JournalBodyCap {
			e.Truncated = append(e.Truncated, "body")
		} else {
			e.Body = json.RawMessage(b)
		}
	}
	if s.RequestLog.Add(&e) {
		s.Root().trimIdleJournals(s)
	}
}

// ErrorBody is the body an error is answered with ({type: "error", error: {type, message,
// details?}, request_id}), and the error as an *APIError: an error of another kind is the
// fake's own bug, answered as an api_error (writeError).
func ErrorBody(err error, requestID string) (*APIError, any) {
	var ae *APIError
	if !errors.As(err, &ae) {
		ae = NewError(ErrAPI, "internal error in the fake")
	}
	body := errorBody{Type: "error", RequestID: requestID}
	body.Error.Type, body.Error.Message, body.Error.Details = ae.Typ, ae.Message, ae.details
	return ae, body
}

type errorBody struct {
	Type  string `json:"type"`
	Error struct {
		Type    string        `json:"type"`
		Message string        `json:"message"`
		Details *ErrorDetails `json:"details,omitempty"`
	} `json:"error"`
	RequestID string `json:"request_id"`
}
