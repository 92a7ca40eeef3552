package fake

import (
	"strings"
	"sync/atomic"
)

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
	return prefix + "01" + encodeBase62(g.n.Add(1), idWidth)
}

func (g *ids) reset() { g.n.Store(0) }

func encodeBase62(n uint64, width int) string {
	var b [16]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = idAlphabet[n%62]
		n /= 62
	}
	s := string(b[i:])
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}
