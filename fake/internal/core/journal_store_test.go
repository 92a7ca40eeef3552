package core

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestJournalStoreKeepsEntries records entries through the packed ring and compares what the
// journal answers with the entries as they were recorded, written out by hand here in the form
// the journal answered before it packed them (the entry as recorded, its headers as a map of
// lower-case names and Truncated never null): byte for byte the same JSON, and the same session
// and order for the session_id filter and the cursor.
func TestJournalStoreKeepsEntries(t *testing.T) {
	prev := "msg_0001"
	long := strings.Repeat("é", 300) // multi-byte, and a length past one byte of varint
	at := time.Date(2026, 11, 29, 2, 45, 0, 123456789, time.UTC)
	recorded := []struct {
		e       JournalEntry
		headers []string
		want    JournalEntry
	}{{
		e: JournalEntry{RequestID: "req_011", At: at, Method: "GET", Path: "/v1/models/m", Query: "a=1&b=" + long,
			Interface: "api", CredentialID: "key_1", CredentialHeader: "x-api-key", APIVersion: "2023-06-01",
			Status: 200, Valid: true, session: "sesn_1"},
		headers: []string{"Vendor-Version", "2023-06-01", "User-Agent", long, "X-Empty", ""},
		want: JournalEntry{RequestID: "req_011", At: at, Method: "GET", Path: "/v1/models/m", Query: "a=1&b=" + long,
			Interface: "api", CredentialID: "key_1", CredentialHeader: "x-api-key", APIVersion: "2023-06-01",
			Status: 200, Valid: true, session: "sesn_1", Truncated: []string{},
			Headers: map[string]string{"vendor-version": "2023-06-01", "user-agent": long, "x-empty": ""}},
	}, {
		e: JournalEntry{RequestID: "req_012/custom", At: at.Add(time.Second), Method: "POST", Path: "/v1/messages",
			Body: json.RawMessage(`{"model":"m"}`), BodyBytes: 13, Status: 429, ErrorType: ErrRateLimit,
			Fault: true, Stub: "stub_1", StubNearMiss: "stub_2 model", RateLimit: "organization rlg_1 requests_per_minute",
			Thread: &JournalThread{Type: "continue", PreviousMessageID: &prev}, SessionID: "sesn_2", session: "sesn_2",
			SessionEvents: []JournalSessionEvent{{ID: "sevt_1", Type: "agent.message"}},
			Batch:         &JournalBatch{ID: "msgbatch_1", CustomID: "custom"}, Truncated: []string{"path", "headers"}},
		want: JournalEntry{RequestID: "req_012/custom", At: at.Add(time.Second), Method: "POST", Path: "/v1/messages",
			Body: json.RawMessage(`{"model":"m"}`), BodyBytes: 13, Status: 429, ErrorType: ErrRateLimit,
			Fault: true, Stub: "stub_1", StubNearMiss: "stub_2 model", RateLimit: "organization rlg_1 requests_per_minute",
			Thread: &JournalThread{Type: "continue", PreviousMessageID: &prev}, SessionID: "sesn_2", session: "sesn_2",
			SessionEvents: []JournalSessionEvent{{ID: "sevt_1", Type: "agent.message"}},
			Batch:         &JournalBatch{ID: "msgbatch_1", CustomID: "custom"}, Truncated: []string{"path", "headers"},
			Headers: map[string]string{}},
	}, {
		e:    JournalEntry{}, // an entry with nothing: a dropped connection before anything was read
		want: JournalEntry{Headers: map[string]string{}, Truncated: []string{}},
	}}
	s := &Server{}
	for _, r := range recorded {
		s.RequestLog.add(&r.e, r.headers)
	}
	got := s.Journal()
	if len(got) != len(recorded) {
		t.Fatalf("%d entries, want %d", len(got), len(recorded))
	}
	for i, r := range recorded {
		g, _ := json.Marshal(got[i])
		w, _ := json.Marshal(r.want)
		if string(g) != string(w) {
			t.Errorf("entry %d:\n got %s\nwant %s", i, g, w)
		}
		if !got[i].At.Equal(r.want.At) || got[i].session != r.want.session || got[i].seq != uint64(i+1) {
			t.Errorf("entry %d: at %v session %q seq %d, want %v %q %d", i, got[i].At, got[i].session, got[i].seq, r.want.At, r.want.session, i+1)
		}
	}
	// An amended outcome and session events show in the entry; the others are untouched.
	s.RequestLog.amend(1, 400, ErrInvalidRequest, false)
	s.RequestLog.amendEvents(3, []JournalSessionEvent{{ID: "sevt_2", Type: "user.message"}}, true)
	got = s.Journal()
	if e := got[0]; e.Status != 400 || e.ErrorType != ErrInvalidRequest || e.Valid || e.Path != "/v1/models/m" {
		t.Errorf("amended entry: %+v", e)
	}
	if e := got[2]; len(e.SessionEvents) != 1 || e.SessionEvents[0].ID != "sevt_2" || strings.Join(e.Truncated, ",") != "session_events" {
		t.Errorf("entry with events amended: %+v", e)
	}
}

// TestJournalStoreReusesDroppedBlobs fills a journal past its bound, so that new entries are
// packed into the blobs of dropped ones, and checks that the entries held are the last ones
// recorded, each whole, and that entries read before are not changed by the entries packed
// after into the memory they were read from.
func TestJournalStoreReusesDroppedBlobs(t *testing.T) {
	s := &Server{}
	entry := func(i int) (JournalEntry, []string) {
		// Blobs of varied sizes, so that an entry is packed into the blob of a larger one, of
		// one its size, or, into none, in a blob of its own.
		path := "/v1/models/" + strings.Repeat("x", i%37)
		return JournalEntry{RequestID: fmt.Sprintf("req_%06d", i), Method: "GET", Path: path, Status: 200},
			[]string{"User-Agent", fmt.Sprintf("agent %06d", i)}
	}
	check := func(got []JournalEntry, first int) {
		t.Helper()
		for k, g := range got {
			i := first + k
			want, _ := entry(i)
			if g.RequestID != want.RequestID || g.Path != want.Path || g.Headers["user-agent"] != fmt.Sprintf("agent %06d", i) {
				t.Fatalf("entry %d: %s %s %v, want %s %s agent %06d", i, g.RequestID, g.Path, g.Headers, want.RequestID, want.Path, i)
			}
		}
	}
	for i := range JournalCap {
		e, h := entry(i)
		s.RequestLog.add(&e, h)
	}
	before := s.Journal()
	check(before, 0)
	for i := JournalCap; i < JournalCap+JournalCap/2; i++ {
		e, h := entry(i)
		s.RequestLog.add(&e, h)
	}
	check(before, 0)
	check(s.Journal(), JournalCap/2)
}
