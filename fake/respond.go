package fake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/platformkit/platformkit/schemas"
)

// call is one request as a handler sees it: the gin context, the server, and the credential and
// organization it was authenticated as (nil for the control API).
type call struct {
	*gin.Context
	x     *exchange // the request's exchange, which the journal and the coverage read
	srv   *Server
	st    *state
	route *route
	cred  *credential
	org   *org
	betas []string
	// work is the request's one meter of work (cost.go), started by each stage that charges it.
	work meter
	// version is the API version whose rules answer the request (versions.go); nil for an
	// interface without one.
	version *apiVersion
	// credHeader is the header that carried cred, lower-case, as the journal records it.
	credHeader string
	// op is the route's index in operations(), which the coverage counts; -1 for a route no
	// operation describes (the control API).
	op int
	// args is the request's query as url.ParseQuery reads it, parsed on the first read of a
	// parameter (params.go); argsBuf holds the usual few.
	args       []queryArg
	argsParsed bool
	argsOwn    bool // args holds the query; false: too many parameters, gin's url.Values answer
	argsBuf    [4]queryArg
}

// callOf returns the request's call, nil when no route's handler ran (no route, no method).
func callOf(gc *gin.Context) *call {
	if x := exchangeOf(gc); x.routed {
		return &x.call
	}
	return nil
}

// handler serves one route of a server. It returns the value to answer with JSON (nil answers
// null) or a responder for other bodies, or an error; it never writes to the response itself.
type handler func(s *Server, c *call) (any, error)

// responder is a response that is not one JSON value: bytes with their own content type, or a
// stream of events. The adapter calls respond once, after the handler returned.
type responder interface {
	respond(c *call)
}

// rawBody answers bytes with a content type and extra headers (file downloads).
type rawBody struct {
	contentType string
	header      map[string]string
	data        []byte
}

func (b rawBody) respond(c *call) {
	for k, v := range b.header {
		c.Header(k, v)
	}
	c.Data(http.StatusOK, b.contentType, b.data)
}

// adapt turns a route into a gin handler: authenticate, check the headers of spec 9, run the
// handler, and write what it returned. This is the only place responses are written.
func adapt(rt *route, op int) gin.HandlerFunc {
	return func(gc *gin.Context) {
		x := exchangeOf(gc)
		s := x.s
		x.call, x.routed = call{Context: gc, x: x, srv: s, st: s.state(), route: rt, op: op}, true
		c := &x.call
		v, err := s.serve(c)
		if err != nil {
			s.writeError(gc, err)
			return
		}
		if r, ok := v.(responder); ok {
			r.respond(c)
			return
		}
		s.writeJSON(gc, http.StatusOK, rt.schema, v)
	}
}

func (s *Server) serve(c *call) (any, error) {
	if ifc := c.route.ifc; ifc != nil {
		cred, header, err := c.st.fx.authenticate(c.Request, ifc)
		for _, a := range areaList {
			if err != nil && a.admit != nil {
				cred, header, err = a.admit(s, c.route, c.Request, ifc, err)
			}
		}
		if err != nil {
			return nil, err
		}
		c.cred, c.org, c.credHeader = cred, cred.org, lowerHeader(header)
		if c.version, c.betas, err = checkVersionHeaders(c.Request, ifc, c.meter(maxBetaSteps)); err != nil {
			return nil, err
		}
	}
	return c.route.h(s, c)
}

// lowerHeader is strings.ToLower for the names credentials come in, without a copy per request.
func lowerHeader(h string) string {
	switch h {
	case headerAPIKey:
		return "x-api-key"
	case headerAuthorization:
		return "authorization"
	}
	return strings.ToLower(h)
}

// writeJSON answers v as JSON. A json.RawMessage is a body encoded ahead of time (fixture data
// encoded at load, see encodeRecord) and is written as it is, so it must be compact; so is an
// *encoder, a body assembled in a pooled buffer (encodedPage), which goes back to the pool once
// written. Anything else is encoded once here. With a violation handler set, the body is first
// checked against the route's schema in strict mode.
func (s *Server) writeJSON(gc *gin.Context, status int, schema string, v any) {
	switch v := v.(type) {
	case json.RawMessage:
		// Shared bytes, which must not be appended to: copied beside the newline, since one
		// write of the answer costs less than the second write a large one would take.
		e := encoders.Get().(*encoder)
		defer e.release()
		e.buf.Write(v)
		e.buf.WriteByte('\n')
		s.writeBody(gc, status, schema, e.buf.Bytes())
		return
	case *encoder:
		defer v.release()
		v.buf.WriteByte('\n')
		s.writeBody(gc, status, schema, v.buf.Bytes())
		return
	case encodedDoc:
		s.writeBody(gc, status, schema, v)
		return
	}
	e := encoders.Get().(*encoder)
	defer e.release()
	if err := e.encode(v); err != nil {
		s.report("encoding the response of %s %s: %v", gc.Request.Method, gc.FullPath(), err)
		s.writeError(gc, newError(errAPI, "the fake could not encode its response"))
		return
	}
	s.writeBody(gc, status, schema, e.buf.Bytes()) // with the newline Encode adds
}

// writeBody answers doc, a JSON document followed by a newline as an Encoder writes it, with its
// length (a known length spares the client a chunked body), in one write: a body larger than the
// server's write buffer goes to the connection at once, and a newline written after it would
// take a second system call and packet.
func (s *Server) writeBody(gc *gin.Context, status int, schema string, doc []byte) {
	s.checkSchema(gc, schema, doc[:len(doc)-1])
	h := gc.Writer.Header()
	h["Content-Type"] = jsonContentType
	x := exchangeOf(gc)
	x.contentLength[0] = strconv.Itoa(len(doc))
	h["Content-Length"] = x.contentLength[:]
	gc.Status(status)
	_, _ = gc.Writer.Write(doc)
}

var (
	jsonContentType = []string{"application/json"} // shared, read-only: set on every JSON answer
	newline         = []byte{'\n'}
)

// encoder is a reusable buffer and the Encoder writing into it: a response encodes into memory
// that earlier responses grew, instead of allocating it each time.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// jsonAppender is a value that writes its JSON itself, byte for byte as an Encoder with
// SetEscapeHTML(false) writes it (TestEventsAppendAsEncoded, TestMessageAppendsAsEncoded): the
// thousands of deltas of a long answer, and the message of a short one.
type jsonAppender interface {
	appendJSON(dst []byte) ([]byte, error)
}

// encode writes v and a newline into the buffer as the Encoder does: itself, when it can
// (jsonAppender).
func (e *encoder) encode(v any) error {
	a, ok := v.(jsonAppender)
	if !ok {
		return e.enc.Encode(v)
	}
	b, err := a.appendJSON(e.buf.AvailableBuffer())
	if err != nil {
		return err
	}
	e.buf.Write(b)
	e.buf.WriteByte('\n')
	return nil
}

var encoders = sync.Pool{New: func() any {
	e := &encoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// encodeRecord encodes v as writeJSON would, without the newline, into memory of its own: a
// record encoded once (at load, or once per change) and then written as it is, alone or spliced
// into list pages (splicePage), must be the bytes writeJSON would have written for it.
func encodeRecord(v any) ([]byte, error) {
	e := encoders.Get().(*encoder)
	defer e.release()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimSuffix(e.buf.Bytes(), newline)), nil
}

// recordJSON is a changeable record's JSON as encodeRecord writes it, encoded on the first read
// after a change and kept until the next: list pages splice it in (splicePage) and single reads
// answer it, so a record is encoded once per change, not once per page. key names what else the
// bytes depend on ("" when nothing): a status the clock moves, a beta that shows a field; a read
// with another key encodes anew. Whatever changes the record calls drop, under the lock that
// guards the record, which guards its recordJSON too.
type recordJSON struct {
	key string
	b   json.RawMessage
}

// get returns the bytes for key, encoding what view returns when they are missing or for
// another key.
func (r *recordJSON) get(key string, view func() any) (json.RawMessage, error) {
	if r.b == nil || r.key != key {
		b, err := encodeRecord(view())
		if err != nil {
			return nil, err
		}
		r.key, r.b = key, b
	}
	return r.b, nil
}

// drop forgets the bytes: the record changed.
func (r *recordJSON) drop() { r.b = nil }

// encodedDoc is a whole answer encoded ahead of time, a compact JSON document followed by its
// newline, shared and never changed: writeJSON writes it as it is, without a copy.
type encodedDoc []byte

// docCache keeps the answers of an unchanging list, by what the page depends on, up to
// docCacheMax of them (those past it are assembled per request, as without the cache).
type docCache[K comparable] struct {
	mu   sync.RWMutex
	docs map[K]encodedDoc
}

const docCacheMax = 256

// get returns the document kept for k, nil if none (or no cache).
func (dc *docCache[K]) get(k K) encodedDoc {
	if dc == nil {
		return nil
	}
	dc.mu.RLock()
	defer dc.mu.RUnlock()
	return dc.docs[k]
}

// put answers the page assembled in e as a document of its own, kept for k while the cache has
// room, and returns e to the pool.
func (dc *docCache[K]) put(k K, e *encoder) encodedDoc {
	e.buf.WriteByte('\n')
	doc := encodedDoc(bytes.Clone(e.buf.Bytes()))
	e.release()
	if dc == nil {
		return doc
	}
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if dc.docs == nil {
		dc.docs = map[K]encodedDoc{}
	}
	if len(dc.docs) < docCacheMax {
		dc.docs[k] = doc
	}
	return doc
}

// maxPooledBuffer keeps a rare huge answer from pinning its buffer in the pool.
const maxPooledBuffer = 1 << 20

func (e *encoder) release() {
	if e.buf.Cap() > maxPooledBuffer {
		return
	}
	e.buf.Reset()
	encoders.Put(e)
}

// checkSchema reports a body that does not match its schema, when the server checks them.
func (s *Server) checkSchema(gc *gin.Context, schema string, body []byte) {
	if s.violation == nil || schema == "" {
		return
	}
	if err := schemas.Validate(schema, body, schemas.Strict); err != nil {
		s.report("%s %s: response does not match its schema: %v\n%s", gc.Request.Method, gc.Request.URL.Path, err, body)
	}
}

// writeError answers err as the envelope of spec 7 with the status of gaps §1. An error that is
// not an *apiError is a bug in the fake: it is answered as api_error and reported.
func (s *Server) writeError(gc *gin.Context, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		s.report("%s %s: unexpected error: %v", gc.Request.Method, gc.Request.URL.Path, err)
		ae = newError(errAPI, "internal error in the fake")
	}
	status := ae.httpStatus()
	x := exchangeOf(gc)
	x.errorType, x.apiError = ae.typ, ae
	if status == http.StatusConflict {
		// A retry cannot succeed; clients otherwise retry 409 (gaps §1).
		gc.Header("x-should-retry", "false")
	}
	body := struct {
		Type  string `json:"type"`
		Error struct {
			Type    string        `json:"type"`
			Message string        `json:"message"`
			Details *errorDetails `json:"details,omitempty"`
		} `json:"error"`
		RequestID string `json:"request_id"`
	}{Type: "error", RequestID: x.requestID[0]}
	body.Error.Type, body.Error.Message, body.Error.Details = ae.typ, ae.message, ae.details
	s.writeJSON(gc, status, "error", body)
}

// report tells the violation handler (and the log) about a bug in the fake.
func (s *Server) report(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if s.logger != nil {
		s.logger.Error("fake bug", "detail", msg)
	}
	if s.violation != nil {
		s.violation(msg)
	}
}

// releaseAfterBytes is the size of a refused body past which the memory its reading took is
// handed back to the system soon after (at most one release a second): a refused 64 MiB snapshot
// takes a few hundred MiB to decode and check, and a 1.2 MB schema of 100,000 $defs about 50, which
// the Go runtime would otherwise keep for minutes.
const releaseAfterBytes = 1 << 20

// releasing is set while a release is scheduled, so that many refusals schedule one.
var releasing atomic.Bool

// releaseSoon returns the freed heap to the system a second from now, once the request that
// refused is answered and its buffers are garbage.
func releaseSoon() {
	if releasing.CompareAndSwap(false, true) {
		time.AfterFunc(time.Second, func() {
			releasing.Store(false)
			debug.FreeOSMemory()
		})
	}
}

// frame runs around every request, matched or not: the request-id and Date headers (gaps §1),
// injected faults, panic recovery, the journal, the coverage and the request log.
func frame(gc *gin.Context) {
	x := exchangeOf(gc)
	s := x.s
	control := isControl(gc.Request)
	var start time.Time
	if s.logger != nil {
		start = time.Now()
	}
	if !control {
		s.catchUpRetry(gc.Request) // before the request's time is read: it arrives after the wait
	}
	at := s.clock.Now()
	id := s.requestID(control)
	x.requestID[0] = id
	gc.Writer.Header()["Request-Id"] = x.requestID[:] // canonical already: Set would canonicalise per request
	// The Date header follows the server's clock, as everything else does, so that answers are
	// byte-identical at the header level too; net/http adds the wall clock's only when it is unset.
	gc.Writer.Header()["Date"] = s.clock.dateHeader(at)
	defer func() {
		p := recover()
		status := gc.Writer.Status()
		if p == http.ErrAbortHandler {
			status = 0 // the connection is dropped without an answer
		}
		if !control {
			s.record(gc, at, status)
			if !s.cfg.noCoverage {
				s.countCoverage(gc, x.fault)
			}
		}
		// The body is garbage once recorded and counted: the pooled gin context must not keep a
		// large one alive until it serves its next request. A large body refused hands the
		// memory its reading and checking took back to the system soon after.
		if len(x.body) > releaseAfterBytes && status >= 400 {
			releaseSoon()
		}
		x.body = nil
		if s.logger != nil {
			s.logger.Info("request", "method", gc.Request.Method, "path", gc.Request.URL.Path,
				"status", status, "duration", time.Since(start), "request_id", id)
		}
		switch {
		case p == nil:
		case p == http.ErrAbortHandler:
			panic(p)
		default:
			s.report("%s %s: panic: %v\n%s", gc.Request.Method, gc.Request.URL.Path, p, debug.Stack())
			if !gc.Writer.Written() {
				s.writeError(gc, newError(errAPI, "internal error in the fake"))
			}
			gc.Abort()
		}
	}()
	if !control && s.applyFault(gc) {
		gc.Abort()
		return
	}
	gc.Next()
}

// requestID returns the next request-id: a control call's comes from the control counters, so
// that it does not move the request-ids of the API answers that follow.
func (s *Server) requestID(control bool) string {
	if control {
		return s.ctlIDs.next(controlRequestPrefix)
	}
	return s.reqIDs.next("req_")
}

// exchange is one request while the fake serves it: the Server it is for, its call once a
// route's handler runs, and what the handler learns that the frame's journal and coverage read
// when it is done. It travels through the process-wide router as the ResponseWriter that gin's
// wraps (exchangeOf), one typed allocation a request, where gin's Keys took a map, a boxed value
// a key and a lock, and a context value took a copy of the whole *http.Request.
type exchange struct {
	http.ResponseWriter
	s      *Server
	call   call // valid when routed
	routed bool
	// requestID and contentLength are the values of those headers, held here so that setting
	// them allocates no slice.
	requestID     [1]string
	contentLength [1]string
	// body is the request body as read (call.body), nil when none was; bodyJSON, that it
	// decoded as JSON (decodeBody, bindValid), so that the journal keeps it without reading it
	// again to tell; bodySent, when bodyCounted, the body fields the decoded body holds
	// (sentFields).
	body         []byte
	bodyJSON     bool
	bodySent     [maxFieldWords]uint64
	bodyCounted  bool
	errorType    string
	apiError     *apiError // the error answered, for the coverage
	fault        bool      // a fault answered or shaped the request
	streamCut    *Fault    // the fault that cuts this request's event stream
	stub         string    // the stub that answered
	stubNearMiss string    // the stub that nearly did
	rateLimit    string    // the limit that refused the request
	thread       *JournalThread
}

// Unwrap lets http.ResponseController reach the connection's writer; Flush and Hijack are
// those of the writer wrapped, for the streams and the faults that cut a connection.
func (x *exchange) Unwrap() http.ResponseWriter { return x.ResponseWriter }

func (x *exchange) Flush() { _ = http.NewResponseController(x.ResponseWriter).Flush() }

func (x *exchange) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(x.ResponseWriter).Hijack()
}

// exchangeOf returns the exchange gc serves (serveOn).
func exchangeOf(gc *gin.Context) *exchange {
	return gc.Writer.(interface{ Unwrap() http.ResponseWriter }).Unwrap().(*exchange)
}

func serverOf(gc *gin.Context) *Server { return exchangeOf(gc).s }

// router is built once per process from the route table: building gin's tree per server cost
// most of New.
var router = sync.OnceValue(func() *gin.Engine { return newEngine(routes()) })

// serveOn serves r for s with the router e.
func (s *Server) serveOn(e *gin.Engine, w http.ResponseWriter, r *http.Request) {
	e.ServeHTTP(&exchange{ResponseWriter: w, s: s}, r)
}

func newEngine(table []*route) *gin.Engine {
	e := gin.New()
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true
	e.Use(frame)
	e.NoRoute(func(gc *gin.Context) {
		serverOf(gc).writeError(gc, newError(errNotFound, "no route for %s %s", excerpt(gc.Request.Method, maxExcerpt), excerpt(gc.Request.URL.Path, maxExcerpt)))
	})
	e.NoMethod(func(gc *gin.Context) {
		serverOf(gc).writeError(gc, invalid("method %s is not allowed on %s", excerpt(gc.Request.Method, maxExcerpt), excerpt(gc.Request.URL.Path, maxExcerpt)).withStatus(http.StatusMethodNotAllowed))
	})
	ops := operations()
	for _, rt := range table {
		op, ok := ops.index[operationKey{rt.method, rt.path}]
		if !ok {
			op = -1
		}
		e.Handle(rt.method, rt.path, adapt(rt, op))
	}
	return e
}
