package core

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
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

// AddBeta selects the beta value v for the sub-call, as its request's anthropic-beta header
// would, and adds it to that header, so that what reads the request's headers (the journal,
// the tape when it forwards) sees the request the fake made.
func (c *Call) AddBeta(v string) {
	if c.HasBeta(v) {
		return
	}
	c.betas = append(slices.Clip(c.betas), v)
	c.Request.Header.Add("Anthropic-Beta", v)
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

// SubMark says which request of the fake's own a sub-call is, for its journal entry: a turn of
// a session's agent (SessionID), or one request of a message batch (Batch).
type SubMark struct {
	SessionID string
	Batch     *JournalBatch
}

// Journal records the sub-call (Sub) in the server's journal as the request it is, which the
// fake made while serving the outer request: its route's method and path, the outer request's
// headers, its own body, what its exchange noted (fault, stub, near miss, rate limit, thread),
// the status and error type of err (nil: 200), and mark, at the server's time now. A turn gets
// a request_id of its own; a batch's request the outer request's, then "/" and its custom_id,
// so that the journal's pages (after_id, before_id) step over it like any entry. It goes in
// once the sub-call is answered: a batch's requests come in their order, before the entry of
// the request that carried them, and a turn after the send that made it run.
func (c *Call) Journal(err error, mark SubMark) {
	x, s := c.X, c.Srv
	id := s.requestID(false)
	if mark.Batch != nil {
		id = x.RequestID[0] + "/" + mark.Batch.CustomID
	}
	e := JournalEntry{RequestID: id, At: s.Now(), Method: c.Route.Method, Path: c.Route.Path, Status: http.StatusOK,
		Fault: x.fault, Stub: x.Stub, StubNearMiss: x.StubNearMiss, RateLimit: x.RateLimit, Thread: x.Thread,
		SessionID: mark.SessionID, Batch: mark.Batch, APIVersion: c.versionName()}
	e.recordSession(x, mark.SessionID)
	if err != nil {
		ae, _ := ErrorBody(err, "")
		e.Status, e.ErrorType = ae.httpStatus(), ae.Typ
	}
	if c.Route.Ifc != nil {
		e.Interface = c.Route.Ifc.Name
	}
	if c.Cred != nil {
		e.CredentialID, e.CredentialHeader = c.Cred.ID, c.credHeader
	}
	var pairs [24]string
	headers := e.recordHeaders(pairs[:0], c.Request.Header)
	e.recordBody(x)
	over := s.RequestLog.add(&e, headers)
	x.entry.seq = e.seq // what the request appends later amends the entry (NoteSessionEvents)
	if over {
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
