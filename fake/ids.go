package fake

import "sync/atomic"

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// idWidth is the number of characters after "01" in a generated ID. Fixed width makes the
// lexicographic order of IDs their order of creation, which lists use to break ties.
const idWidth = 22

// ids hands out deterministic identifiers: prefix + "01" + a fixed-width base-62 counter. One
// counter serves every prefix, so a server's IDs are unique across kinds and the same requests
// against a new server produce the same IDs. Fixture IDs are hand-written and never in this
// form ("01" followed by zero padding), so the two never collide.
type ids struct{ n atomic.Uint64 }

// next returns a new ID with the prefix (which includes its underscore, as in "msg_").
func (g *ids) next(prefix string) string {
	var buf [64]byte // on the stack: the string conversion is the only allocation
	b := append(append(buf[:0], prefix...), "01"...)
	return string(appendBase62(b, g.n.Add(1), idWidth))
}

func (g *ids) reset() { g.n.Store(0) }

// appendBase62 appends n in base 62, left-padded with zeros to width digits. Any uint64 fits in
// 11 digits (62^11 > 2^64), so a width of idWidth never truncates.
func appendBase62(b []byte, n uint64, width int) []byte {
	for range width {
		b = append(b, '0')
	}
	for i := len(b) - 1; n > 0; i-- {
		b[i] = idAlphabet[n%62]
		n /= 62
	}
	return b
}
