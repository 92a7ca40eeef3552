package core

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// Fault is the face's Fault (package fake), which documents it.
type Fault struct {
	ID     string // set by InjectFault
	Method string // "" matches every method
	// Path is an exact request path, or a prefix followed by "*" ("/v1/messages*"); "" matches
	// every path.
	Path string
	// Status answers the request with this error status and the envelope of its error type
	// (gaps §1: 400, 401, 402, 403, 404, 413, 429, 500, 504, 529) instead of serving it; 0
	// serves it normally (after the latency).
	Status int
	// RetryAfter is the wait a 429 or 529 asks for, in whole milliseconds up to maxRetryAfter
	// (gaps §1). The answer carries it exactly as retry-after-ms, and as retry-after in whole
	// seconds rounded up (HTTP's delay-seconds has no fraction; a client never waits less than
	// asked). InjectFault makes 0 the default, 1s; the control API's "retry_after": 0 sends 0.
	RetryAfter time.Duration
	Latency    time.Duration // wait this long (real time, at most maxFaultLatency) before answering
	Drop       bool          // close the connection without an answer
	// StreamEvents serves the request, but cuts a streamed (SSE) answer after this many events:
	// the connection drops, or, with a Status, the stream ends with an error event of that
	// status's type (gaps §4). An answer that is not a stream is not changed.
	StreamEvents int
	Times        int // how many requests it applies to (default 1)
}

// Bounds of a fault's durations: longer waits would only hang the client under test.
const (
	MaxFaultLatency = 10 * time.Minute
	maxRetryAfter   = 24 * time.Hour
)

// faultJSON is the JSON form of a Fault.
type faultJSON struct {
	ID           string   `json:"id"`
	Method       string   `json:"method"`
	Path         string   `json:"path"`
	Status       int      `json:"status"`
	RetryAfter   *float64 `json:"retry_after"` // seconds; absent: the default (1)
	LatencyMS    int64    `json:"latency_ms"`
	Drop         bool     `json:"drop_connection"`
	StreamEvents int      `json:"stream_events"`
	Times        int      `json:"times"`
}

// MarshalJSON writes the JSON form of the control API.
func (f Fault) MarshalJSON() ([]byte, error) {
	retry := f.RetryAfter.Seconds()
	return json.Marshal(faultJSON{f.ID, f.Method, f.Path, f.Status, &retry,
		f.Latency.Milliseconds(), f.Drop, f.StreamEvents, f.Times})
}

// UnmarshalJSON reads the JSON form of the control API.
func (f *Fault) UnmarshalJSON(data []byte) error {
	var w faultJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	got, err := w.fault()
	if err != nil {
		return err
	}
	*f = got
	return nil
}

// fault converts the JSON form, refusing durations that do not fit a time.Duration before
// converting them. An absent retry_after is the default; a present one is kept as given, 0
// included.
func (w faultJSON) fault() (Fault, error) {
	retry := defaultRetryAfter
	if w.RetryAfter != nil {
		secs := *w.RetryAfter
		ms := math.Round(secs * 1000)
		switch {
		case secs < 0 || secs > maxRetryAfter.Seconds():
			return Fault{}, InvalidField("retry_after", "must be from 0 to %v seconds, got %v", maxRetryAfter.Seconds(), secs)
		case math.Abs(secs*1000-ms) > 1e-6:
			return Fault{}, InvalidField("retry_after", "must be a whole number of milliseconds (retry-after-ms carries milliseconds), got %v seconds", secs)
		}
		retry = time.Duration(ms) * time.Millisecond
	}
	switch {
	case w.LatencyMS < 0 || w.LatencyMS > MaxFaultLatency.Milliseconds():
		return Fault{}, InvalidField("latency_ms", "must be from 0 to %d, got %d", MaxFaultLatency.Milliseconds(), w.LatencyMS)
	}
	return Fault{ID: w.ID, Method: w.Method, Path: w.Path, Status: w.Status,
		RetryAfter: retry, Latency: time.Duration(w.LatencyMS) * time.Millisecond,
		Drop: w.Drop, StreamEvents: w.StreamEvents, Times: w.Times}, nil
}

// defaultRetryAfter is the wait a 429 or 529 fault asks for when none is given.
const defaultRetryAfter = time.Second

// FaultStatusTypes maps the statuses a fault may answer with to their error types (gaps §1).
var FaultStatusTypes = func() map[int]string {
	m := map[int]string{}
	for typ, st := range StatusOf {
		if _, taken := m[st]; !taken && typ != ErrPreconditionFailed && typ != ErrMemoryPathConflict {
			m[st] = typ
		}
	}
	return m
}()

type faults struct {
	mu   sync.Mutex
	list []*Fault
}

// InjectFault is the face's Server.InjectFault (package fake), which documents it.
func (s *Server) InjectFault(f Fault) (Fault, error) {
	if f.RetryAfter == 0 {
		f.RetryAfter = defaultRetryAfter
	}
	return s.AddFault(f)
}

// AddFault adds a fault as given; InjectFault first puts in the defaults a Go zero value cannot
// tell from an explicit 0.
func (s *Server) AddFault(f Fault) (Fault, error) {
	if err := f.validate(); err != nil {
		return Fault{}, err
	}
	if f.Status != http.StatusTooManyRequests && f.Status != 529 {
		f.RetryAfter = 0 // only 429 and 529 send it: the fault says what its answers carry
	}
	if f.Times == 0 {
		f.Times = 1
	}
	f.ID = s.CtlIDs.Next("fault_")
	s.faults.mu.Lock()
	s.faults.list = append(s.faults.list, &f)
	s.faults.mu.Unlock()
	return f, nil
}

func (f *Fault) validate() error {
	switch {
	case f.Status != 0 && FaultStatusTypes[f.Status] == "":
		statuses := make([]int, 0, len(FaultStatusTypes))
		for st := range FaultStatusTypes {
			statuses = append(statuses, st)
		}
		slices.Sort(statuses)
		return InvalidField("status", "%d has no error type; use one of %v, or 0 to answer normally", f.Status, statuses)
	case f.Times < 0:
		return InvalidField("times", "must be at least 1, got %d", f.Times)
	case f.Latency < 0 || f.Latency > MaxFaultLatency:
		return InvalidField("latency_ms", "must be from 0 to %d (Latency from 0 to %v), got %v", MaxFaultLatency.Milliseconds(), MaxFaultLatency, f.Latency)
	case f.RetryAfter < 0 || f.RetryAfter > maxRetryAfter:
		return InvalidField("retry_after", "must be from 0 to %v seconds (RetryAfter from 0 to %v), got %v", maxRetryAfter.Seconds(), maxRetryAfter, f.RetryAfter)
	case f.RetryAfter%time.Millisecond != 0:
		return InvalidField("retry_after", "must be a whole number of milliseconds (retry-after-ms carries milliseconds), got %v", f.RetryAfter)
	case f.Path != "" && !strings.HasPrefix(f.Path, "/"):
		return InvalidField("path", "must start with /, got %s", Quoted(f.Path, MaxExcerpt))
	case f.StreamEvents < 0:
		return InvalidField("stream_events", "must not be negative, got %d", f.StreamEvents)
	case f.StreamEvents > 0 && f.Drop:
		return InvalidField("stream_events", "cuts a stream itself; drop_connection drops the request before it is served: give one of them")
	case f.Status == 0 && f.Latency == 0 && !f.Drop && f.StreamEvents == 0:
		return Invalid("a fault needs a status, a latency_ms, drop_connection or stream_events")
	}
	return nil
}

// Faults is the face's Server.Faults (package fake), which documents it.
func (s *Server) Faults() []Fault {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	out := make([]Fault, len(s.faults.list))
	for i, f := range s.faults.list {
		out[i] = *f
	}
	return out
}

// ClearFaults is the face's Server.ClearFaults (package fake), which documents it.
func (s *Server) ClearFaults() int {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	n := len(s.faults.list)
	s.faults.list = nil
	return n
}

// take uses up the first fault that matches the request, if any.
func (fs *faults) take(method, path string) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, f := range fs.list {
		if f.matches(method, path) {
			got := *f
			if f.Times--; f.Times == 0 {
				fs.list = slices.Delete(fs.list, i, i+1)
			}
			return got, true
		}
	}
	return Fault{}, false
}

func (f *Fault) matches(method, path string) bool {
	if f.Method != "" && !strings.EqualFold(f.Method, method) {
		return false
	}
	if prefix, ok := strings.CutSuffix(f.Path, "*"); ok {
		return strings.HasPrefix(path, prefix)
	}
	return f.Path == "" || f.Path == path
}

// applyFault runs the fault that matches the request, if any: it waits, drops the connection or
// answers the error. It reports whether the request was answered.
func (s *Server) applyFault(gc *gin.Context) bool {
	f, ok := s.faults.take(gc.Request.Method, gc.Request.URL.Path)
	if !ok {
		return false
	}
	x := exchangeOf(gc)
	x.fault = true
	if f.Latency > 0 {
		select {
		case <-time.After(f.Latency):
		case <-gc.Request.Context().Done():
		}
	}
	if f.StreamEvents > 0 {
		cut := f           // only this copy escapes: a request without a fault allocates none
		x.StreamCut = &cut // the stream writer cuts the answer (sseStream.respond)
		return false
	}
	if f.Drop {
		panic(http.ErrAbortHandler) // net/http closes the connection without an answer
	}
	if f.Status == 0 {
		return false
	}
	if f.Status == http.StatusTooManyRequests || f.Status == 529 {
		s.WriteRetryAfter(gc, f.RetryAfter)
	}
	s.writeError(gc, (&APIError{Typ: FaultStatusTypes[f.Status], Message: fmt.Sprintf("injected fault %s", f.ID)}).WithStatus(f.Status))
	return true
}

func (s *Server) injectFault(c *Call) (any, error) {
	var w faultJSON
	if err := c.BindValid(&w); err != nil { // control/fault_request has no id: the server sets it
		return nil, err
	}
	f, err := w.fault()
	if err != nil {
		return nil, err
	}
	return s.AddFault(f)
}

func (s *Server) listFaults(c *Call) (any, error) {
	return struct {
		Data []Fault `json:"data"`
	}{s.Faults()}, nil
}

func (s *Server) clearFaults(c *Call) (any, error) {
	return ClearedBody{s.ClearFaults()}, nil
}
