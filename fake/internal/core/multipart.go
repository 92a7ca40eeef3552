package core

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"strings"
)

// Multipart bodies (file uploads). A route that takes one declares the schema of its form fields
// in In.Multipart, which the OpenAPI document publishes as multipart/form-data; its handler reads
// the parts through MultipartReader, never from the request itself, so that every upload is
// bounded and refused alike.

// MultipartReader returns a reader of the request's multipart/form-data body, of at most limit
// bytes: a Content-Length over it is refused (413 request_too_large) before a byte is read, and a
// body that turns out longer fails the read that passes it (answered by MultipartError). A
// Content-Type that is not multipart/form-data with a boundary is a 400 naming the header.
func (c *Call) MultipartReader(limit int64) (*multipart.Reader, error) {
	if c.Route.Multipart == "" {
		panic(fmt.Sprintf("%s %s reads a multipart body, but its line of the route table declares no form", c.Route.Method, c.Route.Path))
	}
	if c.Request.ContentLength > limit {
		return nil, NewError(ErrRequestTooLarge, "request body is %d bytes; the limit is %d bytes", c.Request.ContentLength, limit)
	}
	ct := c.Request.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, InvalidField("Content-Type", "must be multipart/form-data with a boundary, got %s", Quoted(ct, MaxExcerpt)).Because(ReasonContentType)
	}
	if c.Request.Body == nil {
		return nil, Invalid("the request body is empty; send the form's parts").Because(ReasonBodyCut)
	}
	return multipart.NewReader(&limitedBody{r: c.Request.Body, left: limit, limit: limit}, params["boundary"]), nil
}

// limitedBody reads at most limit bytes of r, and fails with a *bodyTooLarge past them.
type limitedBody struct {
	r           io.Reader
	left, limit int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more tells a body of exactly limit bytes from a longer one.
		var b [1]byte
		if n, _ := io.ReadFull(l.r, b[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, &bodyTooLarge{l.limit}
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

type bodyTooLarge struct{ limit int64 }

func (e *bodyTooLarge) Error() string { return "request body too large" }

// MultipartError answers an error met while reading the parts of a MultipartReader: 413 for a
// body over the limit, otherwise a 400 saying the framing is malformed or cut short. Go's own
// text (which names package internals) is never shown.
func MultipartError(err error) error {
	var big *bodyTooLarge
	if errors.As(err, &big) {
		return NewError(ErrRequestTooLarge, "request body exceeds the limit of %d bytes", big.limit)
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	reason := "its multipart/form-data framing is malformed"
	if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "EOF") {
		reason = "it ends before the closing boundary of its multipart/form-data framing"
	}
	return Invalid("the request body: %s", reason).Because(ReasonBodyNotJSON)
}

// EachPart calls part for each part of mr in order, with its number (from 0) and its form
// name, until the body ends or part fails. It refuses, naming the part, a part past max
// (tooMany says what an upload holds) and a part without a name; a body cut short or over its
// limit is MultipartError's answer.
func EachPart(mr *multipart.Reader, max int, tooMany string, part func(n int, name string, p *multipart.Part) error) error {
	for n := 0; ; n++ {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return MultipartError(err)
		}
		if n == max {
			return Invalid("the request body has more than %d parts; %s", max, tooMany)
		}
		name := p.FormName()
		if name == "" {
			return Invalid("the request body: part %d has no name (Content-Disposition: form-data; name=...)", n+1)
		}
		if err := part(n, name, p); err != nil {
			return err
		}
	}
}

// FieldPart reads a part that holds a form field's value, at most max bytes of it.
func FieldPart(p *multipart.Part, max int64) (string, error) {
	raw, err := io.ReadAll(io.LimitReader(p, max))
	if err != nil {
		return "", MultipartError(err)
	}
	return string(raw), nil
}
