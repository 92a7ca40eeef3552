package batches

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// TestBatchesFileIsIndentedJSON: the batches.json that exportBatches writes by hand is byte for
// byte what the snapshot's encoder (encoding/json, two-space indents, no HTML escapes) writes of
// the same file as a value, with text that encoding/json escapes in its own ways (quotes, <, >,
// &, U+2028, control characters, non-ASCII), a cancel and without, and no batch at all.
func TestBatchesFileIsIndentedJSON(t *testing.T) {
	org := &core.Org{ID: "org_01AcmeCorporation00000001"}
	created := time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.UTC)
	cancel := created.Add(1500*time.Millisecond + 7)
	results := []string{
		`{"type":"succeeded","message":{"id":"msg_1","content":[{"type":"text","text":"a <b> & \"c\" ` + "\u2028 \u2029 é \x7f" + `\n"}]}}`,
		`{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"x\ty"},"request_id":"req_1"}}`,
	}
	var kept []byte
	var ends []int
	for _, r := range results {
		kept = append(kept, r...)
		ends = append(ends, len(kept))
	}
	one := &Batch{ID: "msgbatch_1", org: org, CreatedAt: created, pace: 333333333, cancelAt: &cancel,
		ids: []string{"a-1", "B_2<&>\u2028\x01"}, kinds: []uint8{succeeded, errored}, results: kept, ends: ends}
	two := &Batch{ID: "msgbatch_2", org: org, CreatedAt: created.Add(time.Hour), pace: 2 * time.Second,
		ids: []string{"only"}, kinds: []uint8{succeeded}, results: []byte(results[0]), ends: []int{len(results[0])}}
	for _, list := range [][]*Batch{nil, {one}, {one, two}} {
		// The file as a value, encoded as core's indentedJSON encodes every other file.
		file := batchesFile{Batches: []batchFixture{}}
		for _, b := range list {
			f := batchFixture{OrganizationID: b.org.ID, ID: b.ID, CreatedAt: b.CreatedAt, PaceSeconds: paceTextOf(b.pace), CancelInitiatedAt: b.cancelAt}
			for i, id := range b.ids {
				f.Requests = append(f.Requests, requestFixture{CustomID: id, Result: encodedText(b.result(i))})
			}
			file.Batches = append(file.Batches, f)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(file); err != nil {
			t.Fatal(err)
		}
		if got := appendBatchesFile(nil, list); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%d batches: written\n%s\nencoded\n%s", len(list), got, want.Bytes())
		}
	}
}

// TestPaceTextIsExact: a pace written as decimal seconds reads back as the same duration, to the
// nanosecond, where a float64's seconds would not always.
func TestPaceTextIsExact(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 100 * time.Millisecond, 333333333, 999999999, time.Second, 86400 * time.Second, 86399*time.Second + 999999999} {
		p := paceTextOf(d)
		if got, err := p.duration(); err != nil || got != d {
			t.Errorf("%v written %s reads back %v, %v", d, p, got, err)
		}
	}
	for text, want := range map[string]time.Duration{"0.1": 100 * time.Millisecond, "1e-1": 100 * time.Millisecond, "2": 2 * time.Second, "0.0000000019": 1} {
		if got, err := paceText(text).duration(); err != nil || got != want {
			t.Errorf("%s reads %v, %v; want %v", text, got, err, want)
		}
	}
}
