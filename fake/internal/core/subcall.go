package core

import (
	"bytes"
	"errors"
	"io"
)

// Sub is a call that answers body as the route rt answers it, inside the request c serves: the
// same server, state, credential, API version, beta values and headers, with body as its only
// body. It has an exchange of its own, so that what the inner answer records (its body, its
// stub, the limit that refused it) does not overwrite the outer request's journal entry, and it
// counts for no route's coverage. Headers it sets go to the outer response. An area that answers
// requests inside a request of its own uses it (a message batch answers each of its requests as
// POST /v1/messages would).
func (c *Call) Sub(rt *Route, body []byte) *Call {
	r := c.Request.Clone(c.Request.Context())
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	gc := c.Context.Copy()
	gc.Request, gc.Writer = r, c.Context.Writer
	x := &Exchange{s: c.X.s, RequestID: c.X.RequestID}
	sub := &Call{Context: gc, X: x, Srv: c.Srv, St: c.St, Route: rt, Cred: c.Cred, Org: c.Org,
		betas: c.betas, Version: c.Version, credHeader: c.credHeader, op: -1}
	return sub
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
