package core

import (
	"maps"
	"sync"
	"sync/atomic"
)

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// IDWidth is the number of characters after "01" in a generated ID. Fixed width makes the
// lexicographic order of IDs their order of creation, which lists use to break ties.
const IDWidth = 22

// IDs hands out deterministic identifiers: prefix + "01" + a fixed-width base-62 counter. One
// counter serves every prefix, so a server's IDs are unique across kinds and the same requests
// against a new server produce the same IDs. Fixture IDs are hand-written and never in this
// form ("01" followed by zero padding), so the two never collide.
type IDs struct{ N atomic.Uint64 }

// Next returns a new ID with the prefix (which includes its underscore, as in "msg_").
func (g *IDs) Next(prefix string) string {
	var buf [64]byte // on the stack: the string conversion is the only allocation
	b := append(append(buf[:0], prefix...), "01"...)
	return string(AppendBase62(b, g.N.Add(1), IDWidth))
}

// ControlRequestPrefix starts the request-id of a control call, so that it never equals the
// request-id of an API request.
const ControlRequestPrefix = "req_fake_"

// controlIDs hands out the IDs of the control API: its request-ids and what it creates (faults,
// tunnels, work items, sessions). They never come from the API's counters, so polling
// /_fake/health or injecting a fault leaves every later API answer byte-identical. Each prefix
// has its own counter, so the n-th work item enqueued is work_01...n however many other control
// calls came before it. Kinds the control API creates are never created by the API, so the two
// families of counters cannot hand out the same ID; the one kind both create, tunnels (POST
// /v1/tunnels), takes its IDs from here whichever creates it.
type controlIDs struct {
	mu sync.Mutex
	n  map[string]uint64
}

// Next returns the next control ID with the prefix, in the form of ids.next.
func (g *controlIDs) Next(prefix string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == nil {
		g.n = map[string]uint64{}
	}
	g.n[prefix]++
	return string(AppendBase62([]byte(prefix+"01"), g.n[prefix], IDWidth))
}

// set makes the counters n (prefix → IDs handed out), as a snapshot holds them; nil resets them.
func (g *controlIDs) set(n map[string]uint64) {
	g.mu.Lock()
	g.n = maps.Clone(n)
	g.mu.Unlock()
}

// issued returns how many IDs of each prefix were handed out, for a snapshot.
func (g *controlIDs) issued() map[string]uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.n)
}

// AppendBase62 appends n in base 62, left-padded with zeros to width digits. Any uint64 fits in
// 11 digits (62^11 > 2^64), so a width of idWidth never truncates.
func AppendBase62(b []byte, n uint64, width int) []byte {
	for range width {
		b = append(b, '0')
	}
	for i := len(b) - 1; n > 0; i-- {
		b[i] = idAlphabet[n%62]
		n /= 62
	}
	return b
}
