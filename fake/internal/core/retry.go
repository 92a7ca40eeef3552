package core

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// Retries on the virtual clock (conformance/EXTENSIONS.md, "Retries on the virtual clock").
//
// Every 429 and 529 that asks a client to wait (a refusal of the rate limits, an injected fault)
// says how long in retry-after-ms and retry-after. The waits are virtual-clock time, but a client
// sleeps them in real time, and its sleeping does not move the virtual clock: an official SDK's
// default retry of a rate limit's 429 would sleep seconds and then meet the same 429. A retry-after
// scale (WithRetryAfterScale, the binary's -retry-after-scale, PUT /_fake/retry_after per server or
// namespace; off by default) fixes both:
//
//   - the two headers say the wait times the scale (whole milliseconds, rounded up, so never 0 for
//     a wait above 0: the official SDKs take a 0 as "no advice" and back off half a second), and
//     fake-retry-after-ms says the true wait;
//   - when a retry arrives (an official SDK's x-stainless-retry-count above 0) before the end of
//     the last true wait the server asked for, the virtual clock moves to that end, as if the
//     client had waited it, so the retry meets the buckets the true wait would have left.

// scaleUnit is the scale's resolution: a scale is a whole number of millionths, so that a scaled
// wait is exact integer arithmetic.
const scaleUnit = 1_000_000

// retryScale is one server's (or namespace's) scale and the end of the wait last asked for.
type retryScale struct {
	mu  sync.Mutex
	ppm int64     // the scale in millionths; scaleUnit sends the true waits
	due time.Time // on the virtual clock, the end of the last scaled wait asked for; zero: none pending
}

// CheckRetryAfterScale is the face's CheckRetryAfterScale (package fake), which documents it.
func CheckRetryAfterScale(scale float64) error {
	if _, err := ScalePPM(scale); err != nil {
		return errors.New(err.Message)
	}
	return nil
}

func ScalePPM(scale float64) (int64, *APIError) {
	ppm := math.Round(scale * scaleUnit)
	switch {
	case !(scale > 0 && scale <= 1):
		return 0, InvalidField("scale", "must be more than 0 and at most 1 (1 sends the true waits), got %v", scale)
	case math.Abs(scale*scaleUnit-ppm) > 1e-6 || ppm < 1:
		return 0, InvalidField("scale", "must be a whole number of millionths (0.001, 0.000001), got %v", scale)
	}
	return int64(ppm), nil
}

// builtScale is the scale the server was built with, in millionths.
func (c *Config) builtScale() int64 {
	if c.RetryAfterPPM == 0 || c.WallClock {
		return scaleUnit
	}
	return c.RetryAfterPPM
}

// RetryAfterScale is the face's Server.RetryAfterScale (package fake), which documents it.
func (s *Server) RetryAfterScale() float64 {
	rt := &s.retries
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return float64(rt.ppm) / scaleUnit
}

// SetRetryAfterScale is the face's Server.SetRetryAfterScale (package fake), which documents it.
func (s *Server) SetRetryAfterScale(scale float64) error {
	ppm, e := ScalePPM(scale)
	if e != nil {
		return e
	}
	if s.Clock.wall && ppm != scaleUnit {
		return InvalidField("scale", "a server on the wall clock sends the true waits: only 1 is accepted, got %v", scale)
	}
	rt := &s.retries
	rt.mu.Lock()
	rt.ppm, rt.due = ppm, time.Time{}
	rt.mu.Unlock()
	return nil
}

// resetRetryScale puts the scale back to what the server was built with, nothing pending.
func (s *Server) resetRetryScale() {
	rt := &s.retries
	rt.mu.Lock()
	rt.ppm, rt.due = s.Cfg.builtScale(), time.Time{}
	rt.mu.Unlock()
}

// WriteRetryAfter asks the client to wait d (gaps §1): in whole milliseconds rounded up, as
// retry-after-ms, and in whole seconds rounded up as retry-after, so that a client waiting either
// never waits less than asked. Under a scale below 1 both say the scaled wait (at least 1 ms when
// d is above 0), fake-retry-after-ms the true one, and the true wait's end is kept for the retry.
func (s *Server) WriteRetryAfter(gc *gin.Context, d time.Duration) {
	ms := int64((d + time.Millisecond - 1) / time.Millisecond)
	rt := &s.retries
	rt.mu.Lock()
	ppm := rt.ppm
	if ppm != scaleUnit {
		rt.due = s.Clock.Now().Add(time.Duration(ms) * time.Millisecond)
	}
	rt.mu.Unlock()
	sent := ms
	if ppm != scaleUnit {
		sent = ScaleMillis(ms, ppm)
		gc.Header("fake-retry-after-ms", strconv.FormatInt(ms, 10))
	}
	gc.Header("retry-after", strconv.FormatInt((sent+999)/1000, 10))
	gc.Header("retry-after-ms", strconv.FormatInt(sent, 10))
}

// ScaleMillis is ms × ppm / 1,000,000 rounded up, exactly (no product overflows for any ms).
func ScaleMillis(ms, ppm int64) int64 {
	return ms/scaleUnit*ppm + (ms%scaleUnit*ppm+scaleUnit-1)/scaleUnit
}

// HeaderRetryCount is the header an official SDK numbers its retries in.
const HeaderRetryCount = "X-Stainless-Retry-Count"

// catchUpRetry moves the virtual clock to the end of the pending wait when r is an official
// SDK's retry (x-stainless-retry-count above 0): the client waited the scaled time in real time,
// which stands for the true wait. The wait is used up either way; a clock already past it stays.
func (s *Server) catchUpRetry(r *http.Request) {
	v := headerOf(r.Header, HeaderRetryCount)
	if v == "" { // the usual request: Atoi would allocate the error it answers
		return
	}
	if n, err := strconv.Atoi(v); err != nil || n < 1 {
		return
	}
	rt := &s.retries
	rt.mu.Lock()
	due := rt.due
	rt.due = time.Time{}
	rt.mu.Unlock()
	if !due.IsZero() {
		s.Clock.advanceTo(due)
	}
}

// retryAfterBody is the JSON of GET and PUT /_fake/retry_after (control/retry_after).
type retryAfterBody struct {
	Scale float64 `json:"scale"`
}

func (s *Server) getRetryAfter(c *Call) (any, error) {
	return retryAfterBody{s.RetryAfterScale()}, nil
}

func (s *Server) putRetryAfter(c *Call) (any, error) {
	var req retryAfterBody // required: control/retry_after
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	if err := s.SetRetryAfterScale(req.Scale); err != nil {
		return nil, err
	}
	return retryAfterBody{s.RetryAfterScale()}, nil
}
