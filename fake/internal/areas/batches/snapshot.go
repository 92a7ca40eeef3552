package batches

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// batchesFile is batches.json: every batch with its requests' results as they were answered at
// creation (schema fixtures/batches). A snapshot writes it; a hand-written data set may too.
type batchesFile struct {
	Batches []batchFixture `json:"batches"`
}

// batchFixture is a batch as batches.json holds it: what was fixed at its creation (its pace
// and every request's result, done or not yet) and its cancel. What the clock decides (status,
// counts, end, archival) is not written: the loading server works it out from its own clock,
// as the original would have.
type batchFixture struct {
	OrganizationID    string     `json:"organization_id"`
	ID                string     `json:"id"`
	CreatedAt         time.Time  `json:"created_at"`
	PaceSeconds       paceText   `json:"pace_seconds"`
	CancelInitiatedAt *time.Time `json:"cancel_initiated_at,omitempty"`
	// Requests' results are written as the batch keeps them, the JSON text of each result
	// object as a string, so that a loaded batch serves them byte for byte.
	Requests []requestFixture `json:"requests"`
}

type requestFixture struct {
	CustomID string      `json:"custom_id"`
	Result   encodedText `json:"result"`
}

// encodedText is JSON text a batch keeps, written as a JSON string of exactly those bytes and
// read back as them.
type encodedText []byte

func (e encodedText) MarshalJSON() ([]byte, error) {
	return core.AppendJSONString(make([]byte, 0, len(e)+len(e)/8+2), string(e), false), nil
}

func (e *encodedText) UnmarshalJSON(raw []byte) error {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	*e = encodedText(s)
	return nil
}

// paceText is a pace as a decimal number of seconds, written exactly (nanoseconds as up to nine
// decimals) so that it reads back as the same duration, where a float64 might not.
type paceText string

func (p paceText) MarshalJSON() ([]byte, error) { return []byte(p), nil }

func (p *paceText) UnmarshalJSON(raw []byte) error { *p = paceText(raw); return nil }

func paceTextOf(d time.Duration) paceText {
	s := strconv.FormatInt(int64(d/time.Second), 10)
	if ns := int64(d % time.Second); ns != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", ns), "0")
	}
	return paceText(s)
}

// duration reads the seconds exactly to the nanosecond (further decimals are dropped, as
// Fake-Batch-Pace's are); the schema holds them to 0 through MaxPaceSeconds.
func (p paceText) duration() (time.Duration, error) {
	s := string(p)
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f > MaxPaceSeconds {
			return 0, fmt.Errorf("must be a number of seconds from 0 to %d, got %s", MaxPaceSeconds, s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	whole, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || sec < 0 || sec > MaxPaceSeconds {
		return 0, fmt.Errorf("must be a number of seconds from 0 to %d, got %s", MaxPaceSeconds, s)
	}
	frac = (frac + "000000000")[:9]
	ns, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("must be a number of seconds from 0 to %d, got %s", MaxPaceSeconds, s)
	}
	return time.Duration(sec)*time.Second + time.Duration(ns), nil
}

// batchesSection is the batches of the fixtures, as loaded: each a Batch that build copies
// into every store it makes (the requests and results are shared; they never change).
var batchesSection = core.NewSection[[]*Batch]()

// loadBatches reads batches.json, naming the place of every mistake the schema cannot see:
// an unknown organization, a custom_id used twice in a batch, a result that is not a
// succeeded or errored result object, a cancel outside the batch's processing, and batches
// holding more than BatchesBytes together (each is charged to that budget when loaded).
func loadBatches(fsys fs.FS, fx *core.Fixtures) error {
	var file batchesFile
	if _, err := core.ReadFixture(fsys, "batches.json", &file); err != nil {
		return err
	}
	list := make([]*Batch, len(file.Batches))
	held := 0
	for i := range file.Batches {
		f := &file.Batches[i]
		b, err := f.batch(fx)
		if err != nil {
			return fmt.Errorf("batches.json: batches.%d%s", i, err)
		}
		if held += b.held(); held > BatchesBytes {
			return fmt.Errorf("batches.json: batches.%d: the batches up to this one hold %d bytes, more than the %d all batches of a server may hold", i, held, BatchesBytes)
		}
		list[i] = b
		file.Batches[i].Requests = nil // let the decoded results go as they are copied
	}
	*batchesSection.In(fx.Sections) = list
	return nil
}

// batch makes the batch f describes; an error starts with the place under the batch
// (".requests.3.result: ...").
func (f *batchFixture) batch(fx *core.Fixtures) (*Batch, error) {
	org := fx.OrgByID(f.OrganizationID)
	if org == nil {
		return nil, fmt.Errorf(".organization_id: names unknown organization %s", f.OrganizationID)
	}
	pace, err := f.PaceSeconds.duration()
	if err != nil {
		return nil, fmt.Errorf(".pace_seconds: %v", err)
	}
	n := len(f.Requests)
	b := &Batch{ID: f.ID, org: org, CreatedAt: f.CreatedAt, pace: pace,
		ids: make([]string, n), kinds: make([]uint8, n), ends: make([]int, n)}
	size := 0
	for _, r := range f.Requests {
		size += len(r.Result)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	seen := make(map[string]int, n)
	for j, r := range f.Requests {
		if k, dup := seen[r.CustomID]; dup {
			return nil, fmt.Errorf(".requests.%d.custom_id: %s is also the custom_id of requests.%d; each must be unique within the batch", j, core.Quoted(r.CustomID, core.MaxExcerpt), k)
		}
		seen[r.CustomID] = j
		// Compact, so that a hand-written result's line breaks cannot break the JSONL; a
		// result a snapshot wrote is compact already and stays byte for byte.
		if err := json.Compact(buf, r.Result); err != nil {
			return nil, fmt.Errorf(".requests.%d.result: not JSON text: %v", j, err)
		}
		res := gjson.ParseBytes(buf.Bytes()[b.endOf(j-1):])
		switch typ := res.Get("type").String(); {
		case typ == "succeeded" && res.Get("message").IsObject():
			b.kinds[j] = succeeded
		case typ == "errored" && res.Get("error").IsObject():
			b.kinds[j] = errored
		default:
			return nil, fmt.Errorf(`.requests.%d.result: must be the JSON of a result object, {"type":"succeeded","message":{...}} or {"type":"errored","error":{...}} (canceled and expired results follow from the clock), got %s`, j, core.Quoted(string(r.Result), core.MaxExcerpt))
		}
		b.ids[j], b.ends[j] = r.CustomID, buf.Len()
	}
	b.results = buf.Bytes()
	if c := f.CancelInitiatedAt; c != nil {
		end, _, _ := b.end()
		if c.Before(b.CreatedAt) || !c.Before(end) {
			return nil, fmt.Errorf(".cancel_initiated_at: %s is outside the batch's processing, from created_at %s to its end at %s; only a batch in progress is canceled", c.Format(time.RFC3339Nano), b.CreatedAt.Format(time.RFC3339Nano), end.Format(time.RFC3339Nano))
		}
		b.cancelAt = c
	}
	return b, nil
}

// endOf is where the result of request i ends in results (0 before the first).
func (b *Batch) endOf(i int) int {
	if i < 0 {
		return 0
	}
	return b.ends[i]
}

// build makes a server's store from its fixtures, each batch charged to budget (nil: none) as a
// created one is, so that deleting it gives back what loading it took.
func build(fx *core.Fixtures, budget *core.ByteBudget) *Store {
	bs := &Store{byID: map[string]*Batch{}, lists: map[*core.Org][]*Batch{}, Charged: core.Charged{Budget: budget}}
	for _, f := range *batchesSection.In(fx.Sections) {
		b := &Batch{ID: f.ID, org: f.org, CreatedAt: f.CreatedAt, pace: f.pace, cancelAt: f.cancelAt,
			ids: f.ids, kinds: f.kinds, results: f.results, ends: f.ends}
		bs.Grow(b.held())
		bs.byID[b.ID] = b
		bs.lists[b.org] = core.InsertInOrder(bs.lists[b.org], b, batchKey, core.NewestFirst)
	}
	return bs
}

// batchesSnapshot is the area's part of a snapshot (batches.json).
var batchesSnapshot = &core.SnapshotArea{Lock: core.LockArea(batchStores, func(s *Store) *sync.Mutex { return &s.mu }), Export: exportBatches}

// exportBatches writes batches.json itself, as one buffer, each result quoted from the bytes
// the batch keeps: encoded as a value, the file would be held several times over while it is
// indented (the results of a server's batches may be 256 MiB). The format is the one every
// fixture file has (appendBatchesFile).
func exportBatches(st *core.State, out map[string]any) error {
	bs := batchStores.In(st.Stores).Built()
	list := core.OldestFirstOf(bs.byID, batchKey)
	size := 64
	for _, b := range list {
		size += 512 + len(b.results) + len(b.results)/4 + len(b.ids)*64
	}
	out["batches.json"] = core.EncodedFile(appendBatchesFile(make([]byte, 0, size), list))
	return nil
}

// appendBatchesFile appends batches.json of list as the snapshot's encoder writes a file
// (two-space indents, fields in schema order, no HTML escapes, a final newline), which
// TestBatchesFileIsIndentedJSON holds it to.
func appendBatchesFile(dst []byte, list []*Batch) []byte {
	str := func(dst []byte, s string) []byte { return core.AppendJSONString(dst, s, false) }
	at := func(dst []byte, t time.Time) []byte {
		return append(t.AppendFormat(append(dst, '"'), time.RFC3339Nano), '"')
	}
	if len(list) == 0 {
		return append(dst, "{\n  \"batches\": []\n}\n"...)
	}
	dst = append(dst, "{\n  \"batches\": ["...)
	for i, b := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = str(append(dst, "\n    {\n      \"organization_id\": "...), b.org.ID)
		dst = str(append(dst, ",\n      \"id\": "...), b.ID)
		dst = at(append(dst, ",\n      \"created_at\": "...), b.CreatedAt)
		dst = append(append(dst, ",\n      \"pace_seconds\": "...), paceTextOf(b.pace)...)
		if b.cancelAt != nil {
			dst = at(append(dst, ",\n      \"cancel_initiated_at\": "...), *b.cancelAt)
		}
		dst = append(dst, ",\n      \"requests\": ["...)
		for j, id := range b.ids {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = str(append(dst, "\n        {\n          \"custom_id\": "...), id)
			dst = str(append(dst, ",\n          \"result\": "...), string(b.result(j)))
			dst = append(dst, "\n        }"...)
		}
		dst = append(dst, "\n      ]\n    }"...)
	}
	return append(dst, "\n  ]\n}\n"...)
}
