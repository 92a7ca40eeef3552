package tape

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Drain reads the whole upstream answer v passes through (forward's, while the tape records), and
// records it as Respond would: for a request the fake makes itself (a session's agent turn), which
// has no client to pass the answer to. It returns the answer's status and body, in the
// reference's words; ok is false when v is not a forwarded answer. A stream (the fake never asks
// for one inside a request) or a body over MaxRecordedBytes is an error, and is not recorded.
func Drain(c *core.Call, v any) (status int, body []byte, ok bool, err error) {
	p, ok := v.(*passThrough)
	if !ok {
		return 0, nil, false, nil
	}
	resp := p.resp
	defer resp.Body.Close()
	kept := map[string]string{}
	for name := range resp.Header {
		if keptResponseHeader(name) {
			kept[strings.ToLower(name)] = resp.Header.Get(name)
		}
	}
	p.rec.Response = recordedResponse{Status: resp.StatusCode, Headers: kept}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		p.drop("the upstream answered a request the fake made itself with a stream")
		p.finish(c)
		return 0, nil, true, core.NewError(core.ErrAPI, "the upstream answered with a stream, which was not asked for")
	}
	b, rerr := io.ReadAll(io.LimitReader(resp.Body, MaxRecordedBytes+1))
	switch {
	case rerr != nil:
		p.drop("the upstream broke off the body: %v", rerr)
	case len(b) > MaxRecordedBytes:
		p.drop("the body is over the limit of %d bytes", MaxRecordedBytes)
	default:
		p.rec.Response.Body = bytes.Clone(core.InReferenceWords(bytes.TrimSpace(b)))
	}
	p.finish(c)
	if p.unrecordable != "" {
		return 0, nil, true, core.NewError(core.ErrAPI, "%s", fmt.Sprint(p.unrecordable))
	}
	return resp.StatusCode, p.rec.Response.Body, true, nil
}
