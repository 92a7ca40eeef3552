package core

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

// Call is one request as a handler sees it: the gin context, the server, and the credential and
// organization it was authenticated as (nil for the control API).
type Call struct {
	*gin.Context
	X     *Exchange // the request's exchange, which the journal and the coverage read
	Srv   *Server
	St    *State
	Route *Route
	Cred  *Credential
	Org   *Org
	betas []string
	// Work is the request's one meter of work (cost.go), started by each stage that charges it.
	Work Meter
	// Version is the API version whose rules answer the request (versions.go); nil for an
	// interface without one.
	Version *apiVersion
	// credHeader is the header that carried cred, lower-case, as the journal records it.
	credHeader string
	// op is the route's index in operations(), which the coverage counts; -1 for a route no
	// operation describes (the control API).
	op int
	// args is the request's query as url.ParseQuery reads it, parsed on the first read of a
	// parameter (params.go); argsBuf holds the usual few.
	args       []QueryArg
	argsParsed bool
	argsOwn    bool // args holds the query; false: too many parameters, gin's url.Values answer
	argsBuf    [4]QueryArg
}

// callOf returns the request's call, nil when no route's handler ran (no route, no method).
func callOf(gc *gin.Context) *Call {
	if x := exchangeOf(gc); x.routed {
		return &x.call
	}
	return nil
}

// handler serves one route of a server. It returns the value to answer with JSON (nil answers
// null) or a responder for other bodies, or an error; it never writes to the response itself.
type handler func(s *Server, c *Call) (any, error)

// responder is a response that is not one JSON value: bytes with their own content type, or a
// stream of events. The adapter calls respond once, after the handler returned.
type responder interface {
	Respond(c *Call)
}

// RawBody answers bytes with a content type and extra headers (file downloads).
type RawBody struct {
	ContentType string
	Header      map[string]string
	Data        []byte
}

func (b RawBody) Respond(c *Call) {
	for k, v := range b.Header {
		c.Header(k, v)
	}
	c.Data(http.StatusOK, b.ContentType, b.Data)
}

// adapt turns a route into a gin handler: authenticate, check the headers of spec 9, run the
// handler, and write what it returned. This is the only place responses are written.
func adapt(rt *Route, op int) gin.HandlerFunc {
	return func(gc *gin.Context) {
		x := exchangeOf(gc)
		s := x.s
		// Field by field: the exchange's call is zero, and copying a whole Call into it would
		// pass every one of its pointer words through the write barrier.
		c := &x.call
		c.Context, c.X, c.Srv, c.St, c.Route, c.op = gc, x, s, s.State(), rt, op
		x.routed = true
		v, err := s.serve(c)
		if err != nil {
			s.writeError(gc, err)
			return
		}
		if r, ok := v.(responder); ok {
			r.Respond(c)
			return
		}
		s.WriteJSON(gc, http.StatusOK, rt.Schema, v)
	}
}

func (s *Server) serve(c *Call) (any, error) {
	if ifc := c.Route.Ifc; ifc != nil {
		cred, header, err := c.St.Fx.authenticate(c.Request, ifc)
		for _, a := range areaList {
			if err != nil && a.Admit != nil {
				cred, header, err = a.Admit(s, c.Route, c.Request, ifc, err)
			}
		}
		if err != nil {
			return nil, err
		}
		c.Cred, c.Org, c.credHeader = cred, cred.Org, lowerHeader(header)
		if c.Version, c.betas, err = checkVersionHeaders(c.Request, ifc, c.Meter(MaxBetaSteps)); err != nil {
			return nil, err
		}
	}
	return c.Route.H(s, c)
}

// lowerHeader is strings.ToLower for the names credentials come in, without a copy per request.
func lowerHeader(h string) string {
	switch h {
	case HeaderAPIKey:
		return "x-api-key"
	case HeaderAuthorization:
		return "authorization"
	}
	return strings.ToLower(h)
}

// WriteJSON answers v as JSON. A json.RawMessage is a body encoded ahead of time (fixture data
// encoded at load, see encodeRecord) and is written as it is, so it must be compact; so is an
// *encoder, a body assembled in a pooled buffer (encodedPage), which goes back to the pool once
// written. Anything else is encoded once here. With a violation handler set, the body is first
// checked against the route's schema in strict mode.
func (s *Server) WriteJSON(gc *gin.Context, status int, schema string, v any) {
	switch v := v.(type) {
	case json.RawMessage:
		// Shared bytes, which must not be appended to: copied beside the newline, since one
		// write of the answer costs less than the second write a large one would take.
		e := Encoders.Get().(*Encoder)
		defer e.Release()
		e.Buf.Write(v)
		e.Buf.WriteByte('\n')
		s.writeBody(gc, status, schema, e.Buf.Bytes())
		return
	case *Encoder:
		defer v.Release()
		v.Buf.WriteByte('\n')
		s.writeBody(gc, status, schema, v.Buf.Bytes())
		return
	case EncodedDoc:
		s.writeBody(gc, status, schema, v)
		return
	}
	e := Encoders.Get().(*Encoder)
	defer e.Release()
	if err := e.Encode(v); err != nil {
		s.Report("encoding the response of %s %s: %v", gc.Request.Method, gc.FullPath(), err)
		s.writeError(gc, NewError(ErrAPI, "the fake could not encode its response"))
		return
	}
	s.writeBody(gc, status, schema, e.Buf.Bytes()) // with the newline Encode adds
}

// writeBody answers doc, a JSON document followed by a newline as an Encoder writes it, with its
// length (a known length spares the client a chunked body), in one write: a body larger than the
// server's write buffer goes to the connection at once, and a newline written after it would
// take a second system call and packet.
func (s *Server) writeBody(gc *gin.Context, status int, schema string, doc []byte) {
	s.CheckSchema(gc, schema, doc[:len(doc)-1])
	// Checked in the reference's words, written in the request's; a read's answer in the
	// maker's words is kept, as clients read the same pages again (dialect_cache.go).
	if c := callOf(gc); c != nil && c.Dialect() == Maker {
		if gc.Request.Method == http.MethodGet {
			doc = makerOf(doc)
		} else {
			doc = InDialect(doc, Maker)
		}
	}
	h := gc.Writer.Header()
	h["Content-Type"] = jsonContentType
	x := exchangeOf(gc)
	x.values[1] = strconv.Itoa(len(doc))
	h["Content-Length"] = x.values[1:2:2]
	gc.Status(status)
	_, _ = gc.Writer.Write(doc)
}

var (
	jsonContentType = []string{"application/json"} // shared, read-only: set on every JSON answer
	newline         = []byte{'\n'}
)

// Encoder is a reusable buffer and the Encoder writing into it: a response encodes into memory
// that earlier responses grew, instead of allocating it each time.
type Encoder struct {
	Buf bytes.Buffer
	enc *json.Encoder
}

// JSONAppender is a value that writes its JSON itself, byte for byte as an Encoder with
// SetEscapeHTML(false) writes it (TestEventsAppendAsEncoded, TestMessageAppendsAsEncoded): the
// thousands of deltas of a long answer, and the message of a short one.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// Encode writes v and a newline into the buffer as the Encoder does: itself, when it can
// (jsonAppender).
func (e *Encoder) Encode(v any) error {
	a, ok := v.(JSONAppender)
	if !ok {
		return e.enc.Encode(v)
	}
	b, err := a.AppendJSON(e.Buf.AvailableBuffer())
	if err != nil {
		return err
	}
	e.Buf.Write(b)
	e.Buf.WriteByte('\n')
	return nil
}

var Encoders = sync.Pool{New: func() any {
	e := &Encoder{}
	e.enc = json.NewEncoder(&e.Buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// EncodeRecord encodes v as writeJSON would, without the newline, into memory of its own: a
// record encoded once (at load, or once per change) and then written as it is, alone or spliced
// into list pages (splicePage), must be the bytes writeJSON would have written for it.
func EncodeRecord(v any) ([]byte, error) {
	e := Encoders.Get().(*Encoder)
	defer e.Release()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimSuffix(e.Buf.Bytes(), newline)), nil
}

// RecordJSON is a changeable record's JSON as encodeRecord writes it, encoded on the first read
// after a change and kept until the next: list pages splice it in (splicePage) and single reads
// answer it, so a record is encoded once per change, not once per page. key names what else the
// bytes depend on ("" when nothing): a status the clock moves, a beta that shows a field; a read
// with another key encodes anew. Whatever changes the record calls drop, under the lock that
// guards the record, which guards its recordJSON too.
type RecordJSON struct {
	key string
	b   json.RawMessage
}

// Get returns the bytes for key, encoding what view returns when they are missing or for
// another key.
func (r *RecordJSON) Get(key string, view func() any) (json.RawMessage, error) {
	if r.b == nil || r.key != key {
		b, err := EncodeRecord(view())
		if err != nil {
			return nil, err
		}
		r.key, r.b = key, b
	}
	return r.b, nil
}

// Drop forgets the bytes: the record changed.
func (r *RecordJSON) Drop() { r.b = nil }

// EncodedDoc is a whole answer encoded ahead of time, a compact JSON document followed by its
// newline, shared and never changed: writeJSON writes it as it is, without a copy.
type EncodedDoc []byte

// DocCache keeps the answers of an unchanging list, by what the page depends on, up to
// docCacheMax of them (those past it are assembled per request, as without the cache).
type DocCache[K comparable] struct {
	mu   sync.RWMutex
	Docs map[K]EncodedDoc
}

const DocCacheMax = 256

// Get returns the document kept for k, nil if none (or no cache).
func (dc *DocCache[K]) Get(k K) EncodedDoc {
	if dc == nil {
		return nil
	}
	dc.mu.RLock()
	defer dc.mu.RUnlock()
	return dc.Docs[k]
}

// Put answers the page assembled in e as a document of its own, kept for k while the cache has
// room, and returns e to the pool.
func (dc *DocCache[K]) Put(k K, e *Encoder) EncodedDoc {
	e.Buf.WriteByte('\n')
	doc := EncodedDoc(bytes.Clone(e.Buf.Bytes()))
	e.Release()
	if dc == nil {
		return doc
	}
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if dc.Docs == nil {
		dc.Docs = map[K]EncodedDoc{}
	}
	if len(dc.Docs) < DocCacheMax {
		dc.Docs[k] = doc
	}
	return doc
}

// MaxPooledBuffer keeps a rare huge answer from pinning its buffer in the pool.
const MaxPooledBuffer = 1 << 20

func (e *Encoder) Release() {
	if e.Buf.Cap() > MaxPooledBuffer {
		return
	}
	e.Buf.Reset()
	Encoders.Put(e)
}

// CheckSchema reports a body that does not match its schema, when the server checks them.
func (s *Server) CheckSchema(gc *gin.Context, schema string, body []byte) {
	if s.violation == nil || schema == "" {
		return
	}
	if err := schemas.Validate(schema, body, schemas.Strict); err != nil {
		s.Report("%s %s: response does not match its schema: %v\n%s", gc.Request.Method, gc.Request.URL.Path, err, body)
	}
}

// writeError answers err as the envelope of spec 7 with the status of gaps §1. An error that is
// not an *apiError is a bug in the fake: it is answered as api_error and reported.
func (s *Server) writeError(gc *gin.Context, err error) {
	var ae *APIError
	if !errors.As(err, &ae) {
		s.Report("%s %s: unexpected error: %v", gc.Request.Method, gc.Request.URL.Path, err)
		ae = NewError(ErrAPI, "internal error in the fake")
	}
	status := ae.httpStatus()
	x := exchangeOf(gc)
	x.ErrorType, x.apiError = ae.Typ, ae
	if status == http.StatusConflict {
		// A retry cannot succeed; clients otherwise retry 409 (gaps §1).
		gc.Header("x-should-retry", "false")
	}
	body := errorBody{Type: "error", RequestID: x.RequestID[0]}
	body.Error.Type, body.Error.Message, body.Error.Details = ae.Typ, ae.Message, ae.details
	if c := callOf(gc); c != nil {
		body.Error.Message = c.asSent(body.Error.Message)
		if c.Dialect() == Maker {
			body.Error.Message = quotedInDialect(body.Error.Message)
		}
	}
	s.WriteJSON(gc, status, "error", body)
}

// Report tells the violation handler (and the log) about a bug in the fake.
func (s *Server) Report(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if s.Logger != nil {
		s.Logger.Error("fake bug", "detail", msg)
	}
	if s.violation != nil {
		s.violation(msg)
	}
}

// ReleaseAfterBytes is the size of a refused body past which the memory its reading took is
// handed back to the system soon after (at most one release a second): a refused 64 MiB snapshot
// takes a few hundred MiB to decode and check, and a 1.2 MB schema of 100,000 $defs about 50, which
// the Go runtime would otherwise keep for minutes.
const ReleaseAfterBytes = 1 << 20

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
	if s.Logger != nil {
		start = time.Now()
	}
	if !control {
		s.catchUpRetry(gc.Request) // before the request's time is read: it arrives after the wait
	}
	at := s.Clock.Now()
	if !control {
		x.unrecorded, x.at = gc, at
	}
	id := s.requestID(control)
	x.RequestID[0] = id
	// The answer's headers outlive the exchange, which is reused (ServeOn): their values are
	// held apart, in one small allocation for both.
	x.values = new([2]string)
	x.values[0] = id
	gc.Writer.Header()["Request-Id"] = x.values[0:1:1] // canonical already: Set would canonicalise per request
	// The Date header follows the server's clock, as everything else does, so that answers are
	// byte-identical at the header level too; net/http adds the wall clock's only when it is unset.
	gc.Writer.Header()["Date"] = s.Clock.dateHeader(at)
	defer func() {
		p := recover()
		status := gc.Writer.Status()
		if p == http.ErrAbortHandler {
			status = 0 // the connection is dropped without an answer
		}
		if !control {
			x.settle(status)
			if !s.Cfg.NoCoverage {
				s.countCoverage(gc, x.fault)
			}
		}
		// The body is garbage once recorded and counted: the pooled gin context must not keep a
		// large one alive until it serves its next request. A large body refused hands the
		// memory its reading and checking took back to the system soon after.
		if len(x.body) > ReleaseAfterBytes && status >= 400 {
			releaseSoon()
		}
		x.body, x.sent = nil, nil
		if s.Logger != nil {
			s.Logger.Info("request", "method", gc.Request.Method, "path", gc.Request.URL.Path,
				"status", status, "duration", time.Since(start), "request_id", id)
		}
		switch {
		case p == nil:
		case p == http.ErrAbortHandler:
			panic(p)
		default:
			s.Report("%s %s: panic: %v\n%s", gc.Request.Method, gc.Request.URL.Path, p, debug.Stack())
			if !gc.Writer.Written() {
				s.writeError(gc, NewError(ErrAPI, "internal error in the fake"))
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
		return s.CtlIDs.Next(ControlRequestPrefix)
	}
	return s.reqIDs.Next("req_")
}

// Exchange is one request while the fake serves it: the Server it is for, its call once a
// route's handler runs, and what the handler learns that the frame's journal and coverage read
// when it is done. It travels through the process-wide router as the ResponseWriter that gin's
// wraps (exchangeOf), one typed allocation a request, where gin's Keys took a map, a boxed value
// a key and a lock, and a context value took a copy of the whole *http.Request.
type Exchange struct {
	http.ResponseWriter
	s      *Server
	call   Call // valid when routed
	routed bool
	// RequestID is the request's ID; values holds the values of the Request-Id and
	// Content-Length headers, so that setting them allocates no slice of their own.
	RequestID [1]string
	values    *[2]string
	// body is the request body as read (call.body), nil when none was; bodyJSON, that it
	// decoded as JSON (decodeBody, bindValid), so that the journal keeps it without reading it
	// again to tell; bodySent, when bodyCounted, the body fields the decoded body holds
	// (sentFields).
	body     []byte
	bodyJSON bool
	// sent is the body as the client sent it when reading it in the reference's words changed
	// it (Body, dialect.go); else nil.
	sent         []byte
	bodySent     [MaxFieldWords]uint64
	bodyCounted  bool
	ErrorType    string
	apiError     *APIError // the error answered, for the coverage
	fault        bool      // a fault answered or shaped the request
	StreamCut    *Fault    // the fault that cuts this request's event stream
	Stub         string    // the stub that answered
	StubNearMiss string    // the stub that nearly did
	RateLimit    string    // the limit that refused the request
	Thread       *JournalThread
	// Session is the session the request works on (set by the sessions area), for the
	// journal's session_id filter; sessionEvents the session events it appended
	// (NoteSessionEvents), eventsCut that some were left out.
	Session       string
	sessionEvents []JournalSessionEvent
	eventsCut     bool
	// unrecorded is the request's context while its journal entry is still to be made, at
	// its time at; nil for a control request, and once made (WriteHeader, frame).
	unrecorded *gin.Context
	at         time.Time
	// entry is the journal entry made, and the outcome it holds, for amend.
	entry struct {
		seq       uint64
		status    int
		errorType string
		fault     bool
	}
}

// WriteHeader makes the request's journal entry just before its status goes out, so that a
// client that reads the journal as soon as it has its answer finds the request there: an
// answer larger than the connection's buffer reaches the client before the handler returns.
func (x *Exchange) WriteHeader(code int) {
	x.recordAs(code)
	x.ResponseWriter.WriteHeader(code)
}

// Write is the body's; a body written without a status is a 200's.
func (x *Exchange) Write(b []byte) (int, error) {
	x.recordAs(http.StatusOK)
	return x.ResponseWriter.Write(b)
}

// recordAs makes the journal entry with status, once.
func (x *Exchange) recordAs(status int) {
	if gc := x.unrecorded; gc != nil {
		x.unrecorded = nil
		x.entry.seq = x.s.record(gc, x.at, status)
		x.entry.status, x.entry.errorType, x.entry.fault = status, x.ErrorType, x.fault
	}
}

// settle makes the journal entry if nothing was written (a panic, a dropped connection), or
// sets the outcome a stream ended with on the entry its status made.
func (x *Exchange) settle(status int) {
	if x.unrecorded != nil {
		x.recordAs(status)
		return
	}
	if e := x.entry; status != e.status || x.ErrorType != e.errorType || x.fault != e.fault {
		x.s.RequestLog.amend(e.seq, status, x.ErrorType, x.fault)
	}
}

// Unwrap lets http.ResponseController reach the connection's writer; Flush and Hijack are
// those of the writer wrapped, for the streams and the faults that cut a connection.
func (x *Exchange) Unwrap() http.ResponseWriter { return x.ResponseWriter }

func (x *Exchange) Flush() { _ = http.NewResponseController(x.ResponseWriter).Flush() }

func (x *Exchange) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(x.ResponseWriter).Hijack()
}

// exchangeOf returns the exchange gc serves (serveOn).
func exchangeOf(gc *gin.Context) *Exchange {
	return gc.Writer.(interface{ Unwrap() http.ResponseWriter }).Unwrap().(*Exchange)
}

func serverOf(gc *gin.Context) *Server { return exchangeOf(gc).s }

// router is built once per process from the route table: building gin's tree per server cost
// most of New.
var router = sync.OnceValue(func() *gin.Engine { return NewEngine(Routes()) })

// ServeOn serves r for s with the router e. The exchange is taken from a pool and returned to it
// cleared once the request is served (as gin does with its contexts): it is some 700 bytes, the
// largest allocation of a cheap read. Nothing keeps it past the request: the answer's header
// values are held apart (frame), and the journal copies what it keeps. A request that panics
// out of the router leaves its exchange to the collector.
func (s *Server) ServeOn(e *gin.Engine, w http.ResponseWriter, r *http.Request) {
	x := exchanges.Get().(*Exchange)
	x.ResponseWriter, x.s = w, s
	e.ServeHTTP(x, r)
	*x = Exchange{}
	exchanges.Put(x)
}

var exchanges = sync.Pool{New: func() any { return new(Exchange) }}

func NewEngine(table []*Route) *gin.Engine {
	e := gin.New()
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true
	e.Use(frame)
	e.NoRoute(func(gc *gin.Context) {
		serverOf(gc).writeError(gc, NewError(ErrNotFound, "no route for %s %s", Excerpt(gc.Request.Method, MaxExcerpt), Excerpt(gc.Request.URL.Path, MaxExcerpt)))
	})
	e.NoMethod(func(gc *gin.Context) {
		serverOf(gc).writeError(gc, Invalid("method %s is not allowed on %s", Excerpt(gc.Request.Method, MaxExcerpt), Excerpt(gc.Request.URL.Path, MaxExcerpt)).WithStatus(http.StatusMethodNotAllowed))
	})
	ops := Operations()
	for _, rt := range table {
		op, ok := ops.index[operationKey{rt.Method, rt.Path}]
		if !ok {
			op = -1
		}
		e.Handle(rt.Method, rt.Path, adapt(rt, op))
	}
	return e
}
