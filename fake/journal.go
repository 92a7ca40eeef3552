package fake

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// JournalEntry is one API request the server answered (GET /_fake/journal). Control
// requests (/_fake/) are never recorded, and no credential is: only the ID of the key used.
type JournalEntry struct {
	RequestID    string            `json:"request_id"`
	At           time.Time         `json:"at"` // on the server's clock, when the request arrived
	Method       string            `json:"method"`
	Path         string            `json:"path"`
	Query        string            `json:"query"`
	Headers      map[string]string `json:"headers"`       // as sent, less X-Api-Key and Authorization
	Body         json.RawMessage   `json:"body"`          // the JSON body, if any and at most 64 KiB; never for tunnels
	BodyBytes    int               `json:"body_bytes"`    // the size of the body the handler read
	Interface    string            `json:"interface"`     // which interface of spec 5; "" if no route matched
	CredentialID string            `json:"credential_id"` // the ID of the key used; "" if none was accepted
	// CredentialHeader is the header that carried the accepted credential, "x-api-key" or
	// "authorization" (never its value); "" if none was accepted.
	CredentialHeader string `json:"credential_header"`
	Status           int    `json:"status"`     // 0 when the connection was dropped
	ErrorType        string `json:"error_type"` // "" on success
	// Valid is false when the fake refused the request as malformed (invalid_request_error or
	// request_too_large): a client test asserts it to prove it sent what the API accepts.
	Valid bool   `json:"valid"`
	Fault bool   `json:"fault"` // answered by an injected fault
	Stub  string `json:"stub"`  // the ID of the stub whose reply answered; "" if none did
}

// journalCap bounds the journal's memory; older entries are dropped first.
const journalCap = 10000

// journalBodyCap is the largest body the journal keeps.
const journalBodyCap = 64 << 10

// journal is a ring of the last journalCap entries: recording costs the same however long the
// server has run.
type journal struct {
	mu      sync.Mutex
	entries []JournalEntry // grows to journalCap, then is overwritten from next
	next    int            // where the next entry goes once the ring is full
}

func (j *journal) add(e JournalEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.entries) < journalCap {
		j.entries = append(j.entries, e)
		return
	}
	j.entries[j.next] = e
	j.next = (j.next + 1) % journalCap
}

// Journal returns the API requests the server answered since it started or was last reset or
// cleared, oldest first (at most the last 10,000).
func (s *Server) Journal() []JournalEntry {
	j := &s.journal
	j.mu.Lock()
	defer j.mu.Unlock()
	return append(append(make([]JournalEntry, 0, len(j.entries)), j.entries[j.next:]...), j.entries[:j.next]...)
}

// ClearJournal forgets the recorded requests and returns how many there were.
func (s *Server) ClearJournal() int {
	j := &s.journal
	j.mu.Lock()
	defer j.mu.Unlock()
	n := len(j.entries)
	j.entries, j.next = nil, 0
	return n
}

// Context keys the adapter and the writers leave for the journal.
const (
	keyInterface        = "platformkit.interface"
	keyCredentialID     = "platformkit.credential_id"
	keyCredentialHeader = "platformkit.credential_header"
	keyErrorType        = "platformkit.error_type"
	keyBody             = "platformkit.body"
	keyFault            = "platformkit.fault"
	keyStub             = "platformkit.stub"
)

// record adds the finished request to the journal.
func (s *Server) record(gc *gin.Context, at time.Time, status int) {
	r := gc.Request
	e := JournalEntry{
		RequestID:        gc.GetString(requestIDKey),
		At:               at,
		Method:           r.Method,
		Path:             r.URL.Path,
		Query:            r.URL.RawQuery,
		Headers:          journalHeaders(r.Header),
		Interface:        gc.GetString(keyInterface),
		CredentialID:     gc.GetString(keyCredentialID),
		CredentialHeader: gc.GetString(keyCredentialHeader),
		Status:           status,
		ErrorType:        gc.GetString(keyErrorType),
		Fault:            gc.GetBool(keyFault),
		Stub:             gc.GetString(keyStub),
	}
	e.Valid = e.ErrorType != errInvalidRequest && e.ErrorType != errRequestTooLarge
	if body, ok := gc.Get(keyBody); ok {
		b := body.([]byte)
		e.BodyBytes = len(b)
		// A tunnel token is a secret handed out only by reveal and rotate (spec 5 rule 2); a
		// careless client might send one back in a body, so tunnel bodies are not kept.
		if e.Interface != ifTunnels.name && len(b) <= journalBodyCap && json.Valid(b) {
			e.Body = json.RawMessage(b)
		}
	}
	s.journal.add(e)
}

func journalHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		if strings.EqualFold(k, headerAPIKey) || strings.EqualFold(k, headerAuthorization) {
			continue
		}
		out[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	return out
}

// isControl reports whether the request is for the test-control API, which is never journaled
// and never faulted.
func isControl(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/_fake/") }

func (s *Server) getJournal(c *call) (any, error) {
	return struct {
		Data []JournalEntry `json:"data"`
	}{s.Journal()}, nil
}

type clearedBody struct {
	Cleared int `json:"cleared"`
}

func (s *Server) clearJournal(c *call) (any, error) {
	return clearedBody{s.ClearJournal()}, nil
}
