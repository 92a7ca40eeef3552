package fake

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/batches"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// The contract these tests hold batches to is docs/snapshots.md's: a loaded snapshot continues
// the world exactly. The expected answers are the original server's own, read at the same
// virtual instants: every read of the loaded server must be byte for byte the original's.

// batchWorld is a server with a batch in every state: ended (with an errored request and a
// library scenario), in progress at an uneven pace, canceling, canceled and ended, one that
// will expire, one deleted, and one of another organization. ids are the batches, in order.
func batchWorld(t *testing.T) (s *Server, ids []string) {
	t.Helper()
	s = batchServer(t)
	tooMany := strings.Replace(msgParams("Hello", `,"max_tokens":9999999`), `"max_tokens":200,`, "", 1)
	mk := func(n int, pace string, header ...string) string {
		var reqs []string
		for i := range n {
			params := msgParams(fmt.Sprintf("Request %d of %d", i, n))
			switch i % 3 {
			case 1:
				params = tooMany
			case 2:
				params = msgParams("please write malware for me")
			}
			reqs = append(reqs, batchRequest(fmt.Sprintf("r-%d", i), params))
		}
		id := createBatchOK(t, s, batchBody(reqs...), append([]string{batches.HeaderPace, pace}, header...)...).Get("id").String()
		ids = append(ids, id)
		return id
	}
	mk(4, "0")                                  // ended at once
	mk(7, "0.333333333")                        // in progress; a pace a float64 would not keep exactly
	canceling := mk(5, "1")                     // canceled at 1.5 s, while its second request is in progress
	canceled := mk(3, "0.1")                    // canceled at once, ended by the snapshot
	mk(30, "3600")                              // expires at 24 h with 6 requests not done
	deleted := mk(2, "0")                       // deleted
	mk(2, "0.5", "X-Api-Key", "test-api-key-2") // another organization's
	if w := batchSend(t, s, http.MethodPost, "/v1/messages/batches/"+canceled+"/cancel", ""); w.Code != http.StatusOK {
		t.Fatalf("cancel: %d %s", w.Code, w.Body)
	}
	if w := batchSend(t, s, http.MethodDelete, "/v1/messages/batches/"+deleted, ""); w.Code != http.StatusOK {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	s.AdvanceClock(1500 * time.Millisecond)
	if w := batchSend(t, s, http.MethodPost, "/v1/messages/batches/"+canceling+"/cancel", ""); w.Code != http.StatusOK {
		t.Fatalf("cancel: %d %s", w.Code, w.Body)
	}
	return s, ids
}

// continued is another server that loaded the snapshot of orig, and the snapshot.
func continued(t *testing.T, orig *Server) (*Server, Snapshot) {
	t.Helper()
	snap, err := orig.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	loaded := batchServer(t)
	if err := loaded.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	return loaded, snap
}

// batchReads is everything a client can read of the batches ids, from both organizations:
// each batch, its results, and the lists, each as status, request-id and body.
func batchReads(t *testing.T, s *Server, ids []string) []string {
	t.Helper()
	var out []string
	read := func(path string, header ...string) {
		w := batchSend(t, s, http.MethodGet, path, "", header...)
		out = append(out, fmt.Sprintf("GET %s %v → %d %s\n%s", path, header, w.Code, w.Header().Get("Request-Id"), w.Body))
	}
	for _, key := range []string{core.DefaultAPIKey, "test-api-key-2"} {
		read("/v1/messages/batches?limit=1000", "X-Api-Key", key)
		read("/v1/messages/batches?limit=2", "X-Api-Key", key)
		for _, id := range ids {
			read("/v1/messages/batches/"+id, "X-Api-Key", key)
			read("/v1/messages/batches/"+id+"/results", "X-Api-Key", key)
		}
	}
	return out
}

func sameReads(t *testing.T, when string, want, got []string) {
	t.Helper()
	for i := range want {
		if want[i] != got[i] {
			at := 0
			for at < min(len(want[i]), len(got[i])) && want[i][at] == got[i][at] {
				at++
			}
			head, _, _ := strings.Cut(want[i], "\n")
			from := max(at-120, 0)
			t.Fatalf("%s: %s: from byte %d the loaded world answers\n…%s\nwhere the original answers\n…%s", when, head, at, got[i][from:min(at+120, len(got[i]))], want[i][from:min(at+120, len(want[i]))])
		}
	}
}

// TestBatchSnapshotContinuesEveryBatch: a world with batches in every state, snapshotted and
// loaded into another server, answers every read byte for byte as the original while both
// clocks move the same steps through the in-progress batch's requests, the cancel's end, the
// 24 h expiry and the 29-day archival, and while both get the same writes (a cancel, a create,
// a delete).
func TestBatchSnapshotContinuesEveryBatch(t *testing.T) {
	orig, ids := batchWorld(t)
	loaded, snap := continued(t, orig)
	again, err := loaded.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if again["batches.json"] != snap["batches.json"] {
		t.Errorf("the loaded world's batches.json differs from the one it loaded:\n%s\nloaded:\n%s", again["batches.json"], snap["batches.json"])
	}
	steps := []time.Duration{0, 200 * time.Millisecond, 300 * time.Millisecond, time.Second, 500 * time.Millisecond, 10 * time.Second, 24 * time.Hour, 29 * 24 * time.Hour}
	for i, d := range steps {
		orig.AdvanceClock(d)
		loaded.AdvanceClock(d)
		sameReads(t, fmt.Sprintf("step %d (+%v)", i, d), batchReads(t, orig, ids), batchReads(t, loaded, ids))
		switch i {
		case 1: // cancel the in-progress batch in both worlds, then create one in each
			for _, s := range []*Server{orig, loaded} {
				batchSend(t, s, http.MethodPost, "/v1/messages/batches/"+ids[1]+"/cancel", "")
				id := createBatchOK(t, s, batchBody(batchRequest("new", msgParams("After the snapshot"))), batches.HeaderPace, "2").Get("id").String()
				if s == orig {
					ids = append(ids, id)
				} else if id != ids[len(ids)-1] {
					t.Fatalf("the loaded world's next batch is %s, the original's %s", id, ids[len(ids)-1])
				}
			}
		case 5: // delete the batch that ended at once, in both
			for _, s := range []*Server{orig, loaded} {
				if w := batchSend(t, s, http.MethodDelete, "/v1/messages/batches/"+ids[0], ""); w.Code != http.StatusOK {
					t.Fatalf("delete: %d %s", w.Code, w.Body)
				}
			}
		}
	}
}

// batchesHeld is what the batches of s hold of their byte budget.
func batchesHeld(s *Server) int64 { return s.srv.Cfg.Budget(batches.BatchesBudget).Bytes.Load() }

// TestBatchSnapshotResetAndBudget: POST /_fake/reset after changes returns to the loaded batches
// (every read as right after the load); the loaded batches are charged to the batches' byte
// budget (no more than the original's), a reset charges them again as the load did, and
// deleting every one of them gives all of it back.
func TestBatchSnapshotResetAndBudget(t *testing.T) {
	orig, ids := batchWorld(t)
	loaded, _ := continued(t, orig)
	want := batchReads(t, loaded, ids)
	// The original's may hold more: a created batch's results may keep up to an eighth unused.
	loadedHeld := batchesHeld(loaded)
	if held := batchesHeld(orig); loadedHeld <= 0 || loadedHeld > held {
		t.Errorf("the loaded batches hold %d bytes of the budget, the original's %d", loadedHeld, held)
	}
	batchSend(t, loaded, http.MethodPost, "/v1/messages/batches/"+ids[1]+"/cancel", "")
	createBatchOK(t, loaded, batchBody(batchRequest("new", msgParams("After the snapshot"))))
	loaded.AdvanceClock(time.Hour)
	batchSend(t, loaded, http.MethodDelete, "/v1/messages/batches/"+ids[0], "")
	if w := send(t, loaded, http.MethodPost, "/_fake/reset", ""); w.Code != http.StatusOK {
		t.Fatalf("reset: %d %s", w.Code, w.Body)
	}
	sameReads(t, "after the reset", want, batchReads(t, loaded, ids))
	if held := batchesHeld(loaded); held != loadedHeld {
		t.Errorf("after the reset the batches hold %d bytes of the budget, right after the load %d", held, loadedHeld)
	}

	loaded.AdvanceClock(25 * time.Hour) // every batch has ended
	for _, key := range []string{core.DefaultAPIKey, "test-api-key-2"} {
		for _, id := range ids {
			batchSend(t, loaded, http.MethodDelete, "/v1/messages/batches/"+id, "", "X-Api-Key", key)
		}
	}
	if held := batchesHeld(loaded); held != 0 {
		t.Errorf("with every loaded batch deleted, the batches hold %d bytes of the budget, want 0", held)
	}
}

// TestBatchFixturesNameTheirPlace: a batches.json with a mistake the schema cannot see is
// refused whole, naming the batch, the field and the reason; a batch ID used elsewhere in the
// data set is refused by the data set's check of IDs.
func TestBatchFixturesNameTheirPlace(t *testing.T) {
	snap, err := New().Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	const ok = `{"type":"succeeded","message":{"id":"msg_1","type":"message"}}`
	batch := func(fields, requests string) string {
		return `{"batches":[{"organization_id":"org_01AcmeCorporation00000001","id":"msgbatch_1","created_at":"2026-01-01T00:00:00Z","pace_seconds":1` + fields + `,"requests":[` + requests + `]}]}`
	}
	req := func(id, result string) string {
		return fmt.Sprintf(`{"custom_id":%q,"result":%q}`, id, result)
	}
	for _, tc := range []struct{ name, file, want string }{
		{"fine", batch("", req("a", ok)), ""},
		{"unknown organization", strings.Replace(batch("", req("a", ok)), "org_01AcmeCorporation00000001", "org_nobody", 1), "batches.json: batches.0.organization_id: names unknown organization org_nobody"},
		{"custom_id twice", batch("", req("a", ok)+","+req("b", ok)+","+req("a", ok)), `batches.json: batches.0.requests.2.custom_id: "a" is also the custom_id of requests.0`},
		{"result not JSON", batch("", req("a", ok)+","+req("b", `{"type":`)), "batches.json: batches.0.requests.1.result: not JSON text"},
		{"result canceled", batch("", req("a", `{"type":"canceled"}`)), "batches.json: batches.0.requests.0.result: must be the JSON of a result object"},
		{"succeeded without message", batch("", req("a", `{"type":"succeeded","error":{}}`)), "batches.json: batches.0.requests.0.result: must be"},
		{"cancel before creation", batch(`,"cancel_initiated_at":"2025-12-31T00:00:00Z"`, req("a", ok)), "batches.json: batches.0.cancel_initiated_at: 2025-12-31T00:00:00Z is outside the batch's processing"},
		{"cancel after the end", batch(`,"cancel_initiated_at":"2026-01-01T00:00:01Z"`, req("a", ok)), "batches.json: batches.0.cancel_initiated_at: 2026-01-01T00:00:01Z is outside"},
		{"pace too slow", strings.Replace(batch("", req("a", ok)), `"pace_seconds":1`, `"pace_seconds":86401`, 1), "batches.json: fixtures/batches: batches.0.pace_seconds: must be <= 86400"},
		{"custom_id malformed", batch("", req("a b", ok)), "batches.json: fixtures/batches: batches.0.requests.0.custom_id: does not match pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := maps.Clone(snap)
			s["batches.json"] = tc.file
			err := New().LoadSnapshot(s)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// Two batches with one ID: the data set's check of IDs names both places.
	two := strings.Replace(batch("", req("a", ok)), `]}]}`, `]},{"organization_id":"org_01AcmeCorporation00000001","id":"msgbatch_1","created_at":"2026-01-01T00:00:00Z","pace_seconds":0,"requests":[`+req("a", ok)+`]}]}`, 1)
	s := maps.Clone(snap)
	s["batches.json"] = two
	if err := New().LoadSnapshot(s); err == nil || !strings.Contains(err.Error(), `id "msgbatch_1" is used twice: at batches.json:1:`) || !strings.Contains(err.Error(), "(batches.1.id)") {
		t.Errorf("two batches with one ID: %v", err)
	}
}

// BenchmarkBatchSnapshot measures a snapshot of a world holding one ended batch of 10,000
// requests, and loading it: results_bytes is what the batch keeps of results, file_bytes the
// size of batches.json.
//
//	go test -run '^$' -bench 'BatchSnapshot' -benchmem ./fake
func BenchmarkBatchSnapshot(b *testing.B) {
	s := New()
	reqs := make([]string, 10_000)
	for i := range reqs {
		reqs[i] = batchRequest(fmt.Sprintf("r-%d", i), msgParams(fmt.Sprintf("Request %d", i)))
	}
	id := createBatchOK(b, s, batchBody(reqs...), batches.HeaderPace, "0").Get("id").String()
	size := len(batchSend(b, s, http.MethodGet, "/v1/messages/batches/"+id+"/results", "").Body.String())
	snap, err := s.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("save", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Snapshot(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(size), "results_bytes")
		b.ReportMetric(float64(len(snap["batches.json"])), "file_bytes")
	})
	b.Run("load", func(b *testing.B) {
		l := New()
		b.ReportAllocs()
		for b.Loop() {
			if err := l.LoadSnapshot(snap); err != nil {
				b.Fatal(err)
			}
		}
	})
}
