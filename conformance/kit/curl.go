package kit

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Curl writes the request of x as a curl command an operator can paste into a shell to send it
// again: the method, the URL, every header the suite set and the body. Credentials become
// references to their variables, so the command can be shared and works once they are exported;
// a tunnel_token in the body is redacted, as in every report.
func (r *Run) Curl(x *Response) string {
	var b strings.Builder
	b.WriteString("curl -sS -i")
	if x.sent.Method != http.MethodGet {
		b.WriteString(" -X " + x.sent.Method)
	}
	b.WriteString(" " + r.shellWord(x.sent.URL.String()))
	names := make([]string, 0, len(x.sent.Header))
	for k := range x.sent.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range x.sent.Header[k] {
			b.WriteString(" \\\n  -H " + r.shellWord(k+": "+v))
		}
	}
	switch {
	case len(x.sentBody) > reportBodyLimit:
		// A body of megabytes does not belong in a report; the command says what it left out.
		b.WriteString(fmt.Sprintf(" \\\n  --data-binary @body.json  # the request body, %d bytes, is not shown; its start is in the request above", len(x.sentBody)))
	case len(x.sentBody) > 0:
		b.WriteString(" \\\n  --data-binary " + r.shellWord(r.Redact(string(x.sentBody))))
	}
	return b.String()
}

// shellWord quotes s as one single-quoted shell word (where nothing is special, not even "!"
// in an interactive shell), with each configured credential in it a double-quoted reference to
// its variable, as in 'X-Api-Key: '"${CONFORMANCE_API_KEY}" followed by an empty quoted word.
func (r *Run) shellWord(s string) string {
	return "'" + r.shellVars.Replace(shellEscape(s)) + "'"
}

// shellEscape escapes s for the inside of single quotes: a quote ends them, is written
// escaped, and opens them again.
func shellEscape(s string) string {
	return strings.ReplaceAll(s, "'", `'\''`)
}
