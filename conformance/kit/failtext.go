package kit

import (
	"fmt"
	"strings"
)

// failureText is how a failed assertion of check c reads: the statement and the difference
// first, the evidence once. An assertion that quotes an answer in its description ("the answer
// is 200: POST /v1/messages -> 400 {...}") would open with the answer's body, before the words
// that say what is wrong, and every report shows that exchange in full below the message; so the
// quote is cut to the exchange's line, "POST /v1/messages -> 400", which names the exchange the
// report shows (failedExchange finds it by that line).
func failureText(c Check, msg string, recent []*Response) string {
	msg = described(c, msg)
	for i := len(recent) - 1; i >= 0; i-- {
		x := recent[i]
		if full := x.String(); strings.Contains(msg, full) {
			msg = strings.ReplaceAll(msg, full, exchangeLine(x))
		}
	}
	return msg
}

// exchangeLine names an exchange as failure messages and failedExchange do.
func exchangeLine(x *Response) string {
	return fmt.Sprintf("%s %s -> %d", x.req.Method, x.req.Path, x.Status)
}
