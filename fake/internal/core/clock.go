package core

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Epoch is the face's Epoch (package fake), which documents it.
func Epoch() time.Time { return epoch }

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// clock is the server's source of time: virtual by default, moving only when advanced, or the
// wall clock when the server was built with WithWallClock.
type clock struct {
	wall bool

	mu      sync.Mutex
	now     time.Time
	changed chan struct{} // closed and replaced on every move

	// date is the last Date header value formatted, kept while the clock stays in its second:
	// a virtual clock rarely leaves it, so answers do not each format and allocate one.
	date atomic.Pointer[httpDate]
}

type httpDate struct {
	unix  int64
	value []string // shared by the answers of that second; never modified
}

// dateHeader is the Date header value of time t (HTTP's IMF-fixdate).
func (c *clock) dateHeader(t time.Time) []string {
	if d := c.date.Load(); d != nil && d.unix == t.Unix() {
		return d.value
	}
	d := &httpDate{unix: t.Unix(), value: []string{t.UTC().Format(http.TimeFormat)}}
	c.date.Store(d)
	return d.value
}

func newClock(wall bool) *clock {
	return &clock{wall: wall, now: epoch, changed: make(chan struct{})}
}

// Now returns the current time in UTC.
func (c *clock) Now() time.Time {
	if c.wall {
		return time.Now().UTC()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// advance moves a virtual clock forward by d (d >= 0) and wakes everything waiting on Changed.
// A wall clock does not move; advance then only wakes the waiters.
func (c *clock) advance(d time.Duration) time.Time {
	c.mu.Lock()
	if !c.wall {
		c.now = c.now.Add(d)
	}
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	return c.Now()
}

// advanceTo moves a virtual clock forward to t if it is behind t, waking the waiters; a clock at
// or past t, or a wall clock, stays.
func (c *clock) advanceTo(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wall || !c.now.Before(t) {
		return
	}
	c.now = t
	close(c.changed)
	c.changed = make(chan struct{})
}

// set puts a virtual clock back to t (reset) and wakes the waiters.
func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// Changed returns a channel that is closed the next time the clock moves. Code that waits for
// virtual time to pass (leases, reclaim, blocking polls) selects on it.
func (c *clock) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}
