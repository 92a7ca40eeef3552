package core

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"time"
)

// storedEntry is a JournalEntry as the journal's ring holds it. Recording is on every request's
// path and the ring holds up to JournalCap entries, so an entry keeps few pointers: its strings
// and headers are copied into one block without pointers (blob), which the collector does not
// scan, recording does not copy pointer by pointer under a write barrier, and which pins no
// string of the request; what most requests do not have (a thread, session events, a batch,
// truncations) is behind one pointer, nil when all are empty. entry turns it back into the
// JournalEntry the journal answers, field for field.
type storedEntry struct {
	blob      []byte          // the strings of entryStrings, then the header pairs, each as uvarint length and bytes
	body      json.RawMessage // the body the handler read, as JournalEntry.Body
	more      *entryMore
	at        time.Time
	errorType string // amended apart from the rest (amend), and one of a few constants
	seq       uint64
	size      int // estimated bytes held, for the journal's byte bound
	bodyBytes int
	status    int
	valid     bool
	fault     bool
}

// entryMore holds the parts of an entry most requests leave empty.
type entryMore struct {
	thread    *JournalThread
	events    []JournalSessionEvent
	batch     *JournalBatch
	truncated []string
}

// entryStrings returns pointers to e's string fields in the order a blob holds them.
func entryStrings(e *JournalEntry) [13]*string {
	return [13]*string{&e.RequestID, &e.Method, &e.Path, &e.Query, &e.Interface, &e.CredentialID,
		&e.CredentialHeader, &e.APIVersion, &e.Stub, &e.StubNearMiss, &e.RateLimit, &e.SessionID, &e.session}
}

// storeEntry packs e and its headers (name, value pairs) for the ring, its blob in spare when
// that has room (the blob of an entry the ring dropped, which nothing else holds: entry copies
// it) or else in one allocation, and allocates once more only for an entry with a thread,
// session events, a batch or truncations.
func storeEntry(e *JournalEntry, headers []string, spare []byte) storedEntry {
	fields := entryStrings(e)
	n := 0
	for _, f := range fields {
		n += uvarintLen(len(*f)) + len(*f)
	}
	for _, h := range headers {
		n += uvarintLen(len(h)) + len(h)
	}
	blob := spare[:0]
	if cap(blob) < n {
		blob = make([]byte, 0, n)
	}
	for _, f := range fields {
		blob = appendString(blob, *f)
	}
	for _, h := range headers {
		blob = appendString(blob, h)
	}
	st := storedEntry{blob: blob, body: e.Body, at: e.At, errorType: e.ErrorType, bodyBytes: e.BodyBytes,
		status: e.Status, valid: e.Valid, fault: e.Fault}
	if e.Thread != nil || e.SessionEvents != nil || e.Batch != nil || e.Truncated != nil {
		st.more = &entryMore{thread: e.Thread, events: e.SessionEvents, batch: e.Batch, truncated: e.Truncated}
	}
	return st
}

// uvarintLen is the length of n as binary.AppendUvarint writes it.
func uvarintLen(n int) int {
	k := 1
	for ; n >= 0x80; n >>= 7 {
		k++
	}
	return k
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// entry unpacks the stored entry as the journal answers it: its strings share one allocation,
// its headers are a map of lower-case names, as HTTP/2 sends them, and Truncated is never nil.
func (st *storedEntry) entry() JournalEntry {
	e := JournalEntry{At: st.at, Body: st.body, BodyBytes: st.bodyBytes, Status: st.status,
		ErrorType: st.errorType, Valid: st.valid, Fault: st.fault, seq: st.seq}
	if m := st.more; m != nil {
		e.Thread, e.SessionEvents, e.Batch, e.Truncated = m.thread, m.events, m.batch, m.truncated
	}
	if e.Truncated == nil {
		e.Truncated = []string{}
	}
	rest := string(st.blob)
	next := func() string {
		n, k := binary.Uvarint([]byte(rest[:min(len(rest), binary.MaxVarintLen64)]))
		v := rest[k : k+int(n)]
		rest = rest[k+int(n):]
		return v
	}
	for _, f := range entryStrings(&e) {
		*f = next()
	}
	e.Headers = map[string]string{}
	for rest != "" {
		name := next()
		e.Headers[strings.ToLower(name)] = next()
	}
	return e
}
