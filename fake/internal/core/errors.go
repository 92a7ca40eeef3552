package core

import (
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// The closed set of error types (spec 7, gaps §1). Every error the fake answers has one of them.
const (
	ErrInvalidRequest     = "invalid_request_error"
	ErrAuthentication     = "authentication_error"
	errBilling            = "billing_error"
	ErrPermission         = "permission_error"
	ErrNotFound           = "not_found_error"
	ErrRequestTooLarge    = "request_too_large"
	ErrRateLimit          = "rate_limit_error"
	ErrAPI                = "api_error"
	errTimeout            = "timeout_error"
	ErrOverloaded         = "overloaded_error"
	ErrPreconditionFailed = "memory_precondition_failed_error"
	ErrMemoryPathConflict = "memory_path_conflict_error"
)

// StatusOf maps each error type to its HTTP status (gaps §1). It is the only such table.
var StatusOf = map[string]int{
	ErrInvalidRequest:     http.StatusBadRequest,
	ErrAuthentication:     http.StatusUnauthorized,
	errBilling:            http.StatusPaymentRequired,
	ErrPermission:         http.StatusForbidden,
	ErrNotFound:           http.StatusNotFound,
	ErrRequestTooLarge:    http.StatusRequestEntityTooLarge,
	ErrRateLimit:          http.StatusTooManyRequests,
	ErrAPI:                http.StatusInternalServerError,
	errTimeout:            http.StatusGatewayTimeout,
	ErrOverloaded:         529,
	ErrPreconditionFailed: http.StatusConflict,
	ErrMemoryPathConflict: http.StatusConflict,
}

// APIError is an error answered to the client as the envelope of spec 7. Handlers return it; the
// adapter (respond.go) is the only code that writes it.
type APIError struct {
	Typ     string
	Message string
	status  int // 0: the status of typ
	// reason is the kind of an invalid request, a Reason code of coverage.go: set where the kind
	// is known (body.go); "" is classified when counted (reasonOf).
	reason string
	field  string // the field invalidField named
	// details is the envelope's optional error.details: set only where the platform names a
	// cause in it (message threads' error_code, package threads); nil leaves it out.
	details *ErrorDetails
}

// ErrorDetails is error.details of the envelope: the machine-readable cause the official SDKs
// read (error_code) and, for thread_unsupported_request, the fields or settings at fault.
type ErrorDetails struct {
	ErrorCode   string   `json:"error_code"`
	Unsupported []string `json:"unsupported,omitempty"`
}

// WithDetails adds error.details to the envelope.
func (e *APIError) WithDetails(d ErrorDetails) *APIError {
	e.details = &d
	return e
}

func (e *APIError) Error() string { return e.Typ + ": " + e.Message }

// Code is the error's error.details.error_code, "" without details: what a caller of the fake's
// own requests (a session's turn) recovers by, as a client does.
func (e *APIError) Code() string {
	if e.details == nil {
		return ""
	}
	return e.details.ErrorCode
}

// httpStatus is the status the error is answered with.
func (e *APIError) httpStatus() int {
	if e.status != 0 {
		return e.status
	}
	return StatusOf[e.Typ]
}

// WithStatus answers the error with a status other than its type's, for the cases the
// specification fixes (412 on a heartbeat mismatch, 405 on a wrong method).
func (e *APIError) WithStatus(status int) *APIError {
	e.status = status
	return e
}

func NewError(typ, format string, args ...any) *APIError {
	if _, ok := StatusOf[typ]; !ok {
		panic("fake: unknown error type " + typ)
	}
	msg := fmt.Sprintf(format, args...)
	if len(msg) > MaxErrorMessage {
		// A value quoted whole somewhere (a field path of the request's own keys, a validator's
		// message): the envelope stays bounded all the same.
		c, _ := Cut(msg, MaxErrorMessage)
		msg = c + fmt.Sprintf("... (%d bytes more)", len(msg)-len(c))
	}
	return &APIError{Typ: typ, Message: msg}
}

// The bounds of what an error message quotes of a request (issue 47): a request of megabytes
// never makes an error of megabytes. Each value a message quotes is an excerpt of at most
// maxExcerpt bytes (quoted, excerpt); a whole message is at most maxErrorMessage bytes and a
// note of how much was cut.
const (
	MaxExcerpt      = 128
	MaxErrorMessage = 4096
)

// Cut is s, or its first max bytes cut back to a character boundary when s is longer (by at
// most 3 bytes: in bytes that are not UTF-8 there may be none), and whether it cut.
func Cut(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	n := max
	for n > 0 && n > max-utf8.UTFMax+1 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// Excerpt is s, or its first max bytes (cut) followed by "..." when it is longer: for a text
// that is already unambiguous as it stands, such as JSON.
func Excerpt(s string, max int) string {
	if c, more := Cut(s, max); more {
		return c + "..."
	}
	return s
}

// Quoted quotes a string a request supplied, for an error message or a header line: as %q does
// but in ASCII (an invisible or look-alike character shows as its escape, and a header can
// carry it), at most max bytes of s (cut), with "..." after the closing quote when cut.
func Quoted(s string, max int) string {
	c, more := Cut(s, max)
	if more {
		return strconv.QuoteToASCII(c) + "..."
	}
	return strconv.QuoteToASCII(c)
}

// Invalid reports a malformed or invalid request.
func Invalid(format string, args ...any) *APIError {
	return NewError(ErrInvalidRequest, format, args...)
}

// InvalidField reports an invalid request naming the offending field by its path, as in
// "messages.0.content.1.source.media_type: ..." (gaps §1).
func InvalidField(path, format string, args ...any) *APIError {
	e := NewError(ErrInvalidRequest, "%s: %s", path, fmt.Sprintf(format, args...))
	e.field = path
	return e
}

// At names the field an error is about, as InvalidField does ("path: message"), for an error
// made where its place was not known: a lookup that several routes share, such as a file_id's.
func (e *APIError) At(path string) *APIError {
	e.Message = path + ": " + e.Message
	e.field = path
	return e
}

// Because names the kind of an invalid request, for the coverage's reasons.
func (e *APIError) Because(reason string) *APIError {
	e.reason = reason
	return e
}

// NotFound reports that no resource of the kind has the ID, for the caller's organization.
// Another organization's resource is answered the same way, so that nothing leaks.
func NotFound(kind, id string) *APIError {
	return NewError(ErrNotFound, "%s %s was not found", kind, Quoted(id, MaxExcerpt))
}

func PermissionDenied(format string, args ...any) *APIError {
	return NewError(ErrPermission, format, args...)
}

func unauthenticated(format string, args ...any) *APIError {
	return NewError(ErrAuthentication, format, args...)
}
