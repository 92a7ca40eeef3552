package tape

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Recording: forwarding a request to the upstream, passing its answer through as it arrives,
// and writing the recording (named for the request) once the answer is whole.

// fileFor is where the recording of a request is written: named for the request (its route,
// words of its last user text, a hash of its canonical form), so that re-recording one test
// rewrites its own files only.
func (t *Tape) fileFor(dir, ns string, rec *Recording) string {
	if ns != "" {
		dir = filepath.Join(dir, ns)
	}
	return filepath.Join(dir, rec.Kind().Name+slug(rec)+"-"+rec.key[:16]+".json")
}

// slug is up to five words of the last user text of a Messages request, for a file name a person
// can find.
func slug(rec *Recording) string {
	if rec.Kind().Name != "messages" {
		return ""
	}
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(rec.Request.Body, &body) != nil || len(body.Messages) == 0 {
		return ""
	}
	last := body.Messages[len(body.Messages)-1]
	var text string
	if json.Unmarshal(last.Content, &text) != nil {
		var blocks []struct{ Type, Text string }
		_ = json.Unmarshal(last.Content, &blocks)
		for _, b := range blocks {
			if b.Type == "text" {
				text += " " + b.Text
			}
		}
	}
	if last.Role != "user" {
		return ""
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') })
	if len(words) == 0 {
		return ""
	}
	s := "-" + strings.Join(words[:min(len(words), 5)], "-")
	return s[:min(len(s), 48)]
}

// save writes rec as the recording of ns and adds it to the tape, after holding it to what
// loading it would: a recording written is one the next start loads. secrets are replaced
// in every string of it, whatever its escapes, should an upstream echo one (redactJSON). It
// returns the file written.
func (t *Tape) save(ns string, rec *Recording, secrets []string) (string, error) {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return "", err
	}
	data = RedactJSON(data, secrets)
	checked, err := ParseRecording(data)
	if err != nil {
		return "", err
	}
	file := t.fileFor(t.dir, ns, checked)
	checked.file = file
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	// Written whole, then renamed: a reader never sees half a recording.
	tmp, err := os.CreateTemp(filepath.Dir(file), ".recording-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	t.mu.Lock()
	t.byKey[ns+"\x00"+checked.key] = checked
	t.mu.Unlock()
	return file, nil
}

// hopHeaders are not forwarded either way: they belong to one connection. Accept-Encoding is
// left to the upstream client, which then decompresses what it receives, so that recordings hold
// the JSON itself.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Host", "Content-Length", "Accept-Encoding", "Content-Encoding"}

// forward sends the request to the upstream with the client's headers (its credential among
// them, but no cookie and none of the fake's own), and returns the answer to pass through.
func forward(s *core.Server, c *core.Call, body []byte) (any, error) {
	t := TapeOption.Of(&s.Cfg)
	r := c.Request
	u := *t.upstream
	u.Path = strings.TrimSuffix(u.Path, "/") + r.URL.Path
	u.RawPath = ""
	u.RawQuery = r.URL.RawQuery
	// The upstream gets the body in the client's own words (a real deployment knows only the
	// maker's); the recording keeps body, read in the reference's (core/dialect.go).
	sent := body
	if len(body) > 0 {
		sent = c.SentBody(body)
	}
	up, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(sent))
	if err != nil {
		return nil, core.NewError(core.ErrAPI, "the upstream request cannot be built: %v", err)
	}
	up.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		up.Header.Del(h)
	}
	up.Header.Del("Cookie")
	for name := range up.Header {
		if strings.HasPrefix(name, "Fake-") {
			up.Header.Del(name)
		}
	}
	if len(body) == 0 {
		up.Body = nil
	}
	resp, err := t.client.Do(up)
	if err != nil {
		if r.Context().Err() != nil {
			panic(http.ErrAbortHandler) // the client went away: nobody to answer
		}
		var re *redirectError
		if errors.As(err, &re) {
			return nil, core.NewError(core.ErrAPI, "%s", re.reason)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL and operation, which the message says
		}
		return nil, core.NewError(core.ErrAPI, "the upstream %s did not answer: %v", t.upstream.Host, err)
	}
	rec := &Recording{Request: recordedRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}}
	if len(body) > 0 {
		rec.Request.Body = body
	}
	for _, h := range recordedRequestHeaders {
		if v := r.Header.Get(h); v != "" {
			if rec.Request.Headers == nil {
				rec.Request.Headers = map[string]string{}
			}
			rec.Request.Headers[h] = v
		}
	}
	p := &passThrough{resp: resp, rec: rec, secrets: SecretsOf(r.Header)}
	if len(body) > MaxRecordedBytes {
		p.drop("the request body is over the limit of %d bytes", MaxRecordedBytes)
	}
	return p, nil
}

// redirectError is an upstream redirect the recorder refused to follow: to another origin, where
// the client's credential must not go, or one too many.
type redirectError struct{ reason string }

func (e *redirectError) Error() string { return e.reason }

// sameOriginRedirects is the upstream client's redirect policy: a redirect is followed only within
// the upstream's origin (scheme, host and port), at most 10 in a row, and then by next (the
// caller's own policy), if any. net/http would carry X-Api-Key (and Authorization to a subdomain)
// to any host a redirect names.
func sameOriginRedirects(upstream *url.URL, next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if Origin(req.URL) != Origin(upstream) {
			return &redirectError{fmt.Sprintf("the upstream redirected to %s, another origin than %s; the recorder follows redirects within the upstream's origin only, so that the client's credential reaches no other host", req.URL.Redacted(), Origin(upstream))}
		}
		if len(via) >= 10 {
			return &redirectError{"the upstream redirected 10 times in a row; the recorder stops there"}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}

// Origin is scheme://host:port of u, the port written out even when it is the scheme's default.
func Origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// passThrough writes an upstream answer to the client as it arrives and records it: a stream
// event by event, each flushed as soon as its blank line arrives, a body chunk by chunk.
type passThrough struct {
	resp    *http.Response
	rec     *Recording
	secrets []string
	// unrecordable says why the answer is passed through but not recorded ("" while it is
	// recorded): over MaxRecordedBytes, or not an event stream the grammar reads.
	unrecordable string
	// held is the end of the answer, the last chunk of a body or the event that ends a stream,
	// written only once the recording is: a client that has the whole answer (and may stop
	// reading there) finds its recording written.
	held []byte
}

func (p *passThrough) Respond(c *core.Call) {
	resp := p.resp
	defer resp.Body.Close()
	h := c.Writer.Header()
	for name, vs := range resp.Header {
		if !slices.ContainsFunc(hopHeaders, equalFold(name)) {
			h[name] = vs
		}
	}
	c.Status(resp.StatusCode)
	kept := map[string]string{}
	for name := range resp.Header {
		if keptResponseHeader(name) {
			kept[strings.ToLower(name)] = resp.Header.Get(name)
		}
	}
	p.rec.Response = recordedResponse{Status: resp.StatusCode, Headers: kept}
	began := time.Now()
	var err error
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		err = p.copyEvents(c, began)
	} else {
		err = p.copyBody(c)
	}
	if err != nil {
		p.drop("%v", err)
	}
	p.finish(c)
	if len(p.held) > 0 {
		_, _ = c.Writer.Write(p.held)
		c.Writer.Flush()
	}
}

// finish writes the recording, or logs why there is none.
func (p *passThrough) finish(c *core.Call) {
	if p.unrecordable != "" {
		tapeLog(c.Srv, "not recorded", p.rec, p.unrecordable)
		return
	}
	failed := p.resp.StatusCode >= 400
	if evs := p.rec.Response.Events; len(evs) > 0 && evs[len(evs)-1].Event == "error" {
		failed = true
	}
	if failed && !TapeOption.Of(&c.Srv.Cfg).cfg.RecordErrors {
		return
	}
	file, err := TapeOption.Of(&c.Srv.Cfg).save(c.Srv.NsName, p.rec, p.secrets)
	if err != nil {
		tapeLog(c.Srv, "not recorded", p.rec, err.Error())
		return
	}
	tapeLog(c.Srv, "recorded", p.rec, file)
}

// copyEvents passes a stream through event by event: each is written and flushed as soon as the
// blank line that ends it arrives. It returns an error when the upstream or the client broke off,
// since a cut stream is no recording.
func (p *passThrough) copyEvents(c *core.Call, began time.Time) error {
	br := bufio.NewReaderSize(p.resp.Body, 64<<10)
	var event bytes.Buffer
	size := 0
	for {
		line, err := br.ReadSlice('\n')
		event.Write(line)
		ended := err == nil && len(bytes.TrimRight(line, "\r\n")) == 0 // a blank line ends an event
		if event.Len() > MaxRecordedBytes {
			// Too long to hold: pass it on as it comes, and record nothing.
			p.drop("an event is over the limit of %d bytes", MaxRecordedBytes)
			ended = true
		}
		if ended || (err != nil && err != bufio.ErrBufferFull) {
			at := time.Since(began)
			evs, perr := wire.ParseEventStream(event.Bytes())
			if len(p.held) > 0 && len(bytes.TrimSpace(event.Bytes())) > 0 { // the stream went on after what looked like its end
				if _, werr := c.Writer.Write(p.held); werr != nil {
					return fmt.Errorf("the client went away: %v", werr)
				}
				p.held = nil
			}
			if len(evs) == 1 && endsStream(evs[0]) {
				p.held = bytes.Clone(event.Bytes())
			} else {
				if _, werr := c.Writer.Write(event.Bytes()); werr != nil {
					return fmt.Errorf("the client went away: %v", werr)
				}
				c.Writer.Flush()
			}
			if p.unrecordable == "" {
				if perr != nil {
					p.drop("the upstream sent an event outside the event-stream grammar: %v", perr)
				}
				for _, ev := range evs {
					size += len(ev.Data)
					p.rec.Response.Events = append(p.rec.Response.Events, recordedEvent{
						OffsetMS: float64(at.Microseconds()) / 1000, Event: ev.Name, Data: core.InReferenceWords(ev.Data)})
				}
				switch {
				case size > MaxRecordedBytes:
					p.drop("the stream is over the limit of %d bytes", MaxRecordedBytes)
				case len(p.rec.Response.Events) > MaxRecordedEvents:
					p.drop("the stream is over the limit of %d events", MaxRecordedEvents)
				case at.Milliseconds() > MaxOffsetMS:
					p.drop("the stream lasted over the limit of %d ms", MaxOffsetMS)
				}
			}
			event.Reset()
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil && err != bufio.ErrBufferFull:
			return fmt.Errorf("the upstream broke off the stream: %v", err)
		}
	}
}

// endsStream reports whether ev is the last event of a stream: message_stop, an error, or the
// completion that carries the stop reason.
func endsStream(ev wire.StreamEvent) bool {
	switch ev.Name {
	case "message_stop", "error":
		return true
	case "completion":
		var d struct {
			StopReason *string `json:"stop_reason"`
		}
		return json.Unmarshal(ev.Data, &d) == nil && d.StopReason != nil
	}
	return false
}

// drop gives up the recording, saying why, and lets go of what it held.
func (p *passThrough) drop(format string, args ...any) {
	if p.unrecordable == "" {
		p.unrecordable = fmt.Sprintf(format, args...)
	}
	p.rec.Response.Events, p.rec.Response.Body = nil, nil
}

// copyBody passes a body through chunk by chunk, keeping it for the recording while it fits.
func (p *passThrough) copyBody(c *core.Call) error {
	var kept bytes.Buffer
	buf := make([]byte, 32<<10)
	for {
		n, err := p.resp.Body.Read(buf)
		if n > 0 {
			if len(p.held) > 0 { // the chunk before was not the last: out it goes
				if _, werr := c.Writer.Write(p.held); werr != nil {
					return fmt.Errorf("the client went away: %v", werr)
				}
				c.Writer.Flush()
			}
			p.held = append(p.held[:0], buf[:n]...)
			if p.unrecordable == "" && kept.Len()+n > MaxRecordedBytes {
				p.drop("the body is over the limit of %d bytes", MaxRecordedBytes)
				kept = bytes.Buffer{}
			}
			if p.unrecordable == "" {
				kept.Write(buf[:n])
			}
		}
		if err == io.EOF {
			if p.unrecordable == "" {
				// In the reference's words, as the fake's own records: a replay answers each
				// client in its dialect (core/dialect.go).
				p.rec.Response.Body = bytes.Clone(core.InReferenceWords(bytes.TrimSpace(kept.Bytes())))
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("the upstream broke off the body: %v", err)
		}
	}
}

// tapeLog tells what the tape did with an answer on the server's logger; an answer not
// recorded is told on the default logger when the server has none, since it must not go
// unnoticed.
func tapeLog(s *core.Server, what string, rec *Recording, detail string) {
	l, level := s.Logger, slog.LevelInfo
	if what != "recorded" {
		level = slog.LevelWarn
		if l == nil {
			l = slog.Default()
		}
	}
	if l == nil {
		return
	}
	l.Log(context.Background(), level, "tape: "+what, "method", rec.Request.Method, "path", rec.Request.Path, "namespace", s.NsName, "detail", detail)
}
