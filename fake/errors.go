package fake

import (
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// The closed set of error types (spec 7, gaps §1). Every error the fake answers has one of them.
const (
	errInvalidRequest     = "invalid_request_error"
	errAuthentication     = "authentication_error"
	errBilling            = "billing_error"
	errPermission         = "permission_error"
	errNotFound           = "not_found_error"
	errRequestTooLarge    = "request_too_large"
	errRateLimit          = "rate_limit_error"
	errAPI                = "api_error"
	errTimeout            = "timeout_error"
	errOverloaded         = "overloaded_error"
	errPreconditionFailed = "memory_precondition_failed_error"
	errMemoryPathConflict = "memory_path_conflict_error"
)

// statusOf maps each error type to its HTTP status (gaps §1). It is the only such table.
var statusOf = map[string]int{
	errInvalidRequest:     http.StatusBadRequest,
	errAuthentication:     http.StatusUnauthorized,
	errBilling:            http.StatusPaymentRequired,
	errPermission:         http.StatusForbidden,
	errNotFound:           http.StatusNotFound,
	errRequestTooLarge:    http.StatusRequestEntityTooLarge,
	errRateLimit:          http.StatusTooManyRequests,
	errAPI:                http.StatusInternalServerError,
	errTimeout:            http.StatusGatewayTimeout,
	errOverloaded:         529,
	errPreconditionFailed: http.StatusConflict,
	errMemoryPathConflict: http.StatusConflict,
}

// apiError is an error answered to the client as the envelope of spec 7. Handlers return it; the
// adapter (respond.go) is the only code that writes it.
type apiError struct {
	typ     string
	message string
	status  int // 0: the status of typ
	// reason is the kind of an invalid request, a Reason code of coverage.go: set where the kind
	// is known (body.go); "" is classified when counted (reasonOf).
	reason string
	field  string // the field invalidField named
	// details is the envelope's optional error.details: set only where the platform names a
	// cause in it (message threads' error_code, messages_threads.go); nil leaves it out.
	details *errorDetails
}

// errorDetails is error.details of the envelope: the machine-readable cause the official SDKs
// read (error_code) and, for thread_unsupported_request, the fields or settings at fault.
type errorDetails struct {
	ErrorCode   string   `json:"error_code"`
	Unsupported []string `json:"unsupported,omitempty"`
}

// withDetails adds error.details to the envelope.
func (e *apiError) withDetails(d errorDetails) *apiError {
	e.details = &d
	return e
}

func (e *apiError) Error() string { return e.typ + ": " + e.message }

// httpStatus is the status the error is answered with.
func (e *apiError) httpStatus() int {
	if e.status != 0 {
		return e.status
	}
	return statusOf[e.typ]
}

// withStatus answers the error with a status other than its type's, for the cases the
// specification fixes (412 on a heartbeat mismatch, 405 on a wrong method).
func (e *apiError) withStatus(status int) *apiError {
	e.status = status
	return e
}

func newError(typ, format string, args ...any) *apiError {
	if _, ok := statusOf[typ]; !ok {
		panic("fake: unknown error type " + typ)
	}
	msg := fmt.Sprintf(format, args...)
	if len(msg) > maxErrorMessage {
		// A value quoted whole somewhere (a field path of the request's own keys, a validator's
		// message): the envelope stays bounded all the same.
		c, _ := cut(msg, maxErrorMessage)
		msg = c + fmt.Sprintf("... (%d bytes more)", len(msg)-len(c))
	}
	return &apiError{typ: typ, message: msg}
}

// The bounds of what an error message quotes of a request (issue 47): a request of megabytes
// never makes an error of megabytes. Each value a message quotes is an excerpt of at most
// maxExcerpt bytes (quoted, excerpt); a whole message is at most maxErrorMessage bytes and a
// note of how much was cut.
const (
	maxExcerpt      = 128
	maxErrorMessage = 4096
)

// cut is s, or its first max bytes cut back to a character boundary when s is longer (by at
// most 3 bytes: in bytes that are not UTF-8 there may be none), and whether it cut.
func cut(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	n := max
	for n > 0 && n > max-utf8.UTFMax+1 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// excerpt is s, or its first max bytes (cut) followed by "..." when it is longer: for a text
// that is already unambiguous as it stands, such as JSON.
func excerpt(s string, max int) string {
	if c, more := cut(s, max); more {
		return c + "..."
	}
	return s
}

// quoted quotes a string a request supplied, for an error message or a header line: as %q does
// but in ASCII (an invisible or look-alike character shows as its escape, and a header can
// carry it), at most max bytes of s (cut), with "..." after the closing quote when cut.
func quoted(s string, max int) string {
	c, more := cut(s, max)
	if more {
		return strconv.QuoteToASCII(c) + "..."
	}
	return strconv.QuoteToASCII(c)
}

// invalid reports a malformed or invalid request.
func invalid(format string, args ...any) *apiError {
	return newError(errInvalidRequest, format, args...)
}

// invalidField reports an invalid request naming the offending field by its path, as in
// "messages.0.content.1.source.media_type: ..." (gaps §1).
func invalidField(path, format string, args ...any) *apiError {
	e := newError(errInvalidRequest, "%s: %s", path, fmt.Sprintf(format, args...))
	e.field = path
	return e
}

// because names the kind of an invalid request, for the coverage's reasons.
func (e *apiError) because(reason string) *apiError {
	e.reason = reason
	return e
}

// notFound reports that no resource of the kind has the ID, for the caller's organization.
// Another organization's resource is answered the same way, so that nothing leaks.
func notFound(kind, id string) *apiError {
	return newError(errNotFound, "%s %s was not found", kind, quoted(id, maxExcerpt))
}

func permissionDenied(format string, args ...any) *apiError {
	return newError(errPermission, format, args...)
}

func unauthenticated(format string, args ...any) *apiError {
	return newError(errAuthentication, format, args...)
}
