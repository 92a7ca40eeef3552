package batches

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// The life of a batch on the clock. Its requests are answered at creation, in order, by the
// Messages pipeline (so a stub, a scenario or the rate limits act then), and the answers are
// kept; the clock decides what the batch shows. Request i (from 0) is done at created_at +
// (i+1)×pace. The batch ends when its last request is done; at expires_at (created_at + 24 h),
// with every request not done by then expired; or, once canceled at t, when the request in
// progress at t is done, with every later request canceled. Until it ends, request_counts
// show every request as processing, and the results are refused.

const (
	expiry  = 24 * time.Hour
	archive = 29 * 24 * time.Hour
)

// result kinds of a request that was processed.
const (
	succeeded = iota
	errored
)

// Batch is one message batch. Only cancelAt changes after creation (under the store's mutex);
// the results are immutable, so a results download reads them without the lock.
type Batch struct {
	ID        string
	org       *core.Org
	CreatedAt time.Time
	pace      time.Duration
	cancelAt  *time.Time
	// ids are the requests' custom_ids; kinds, whether each succeeded or errored; results, the
	// JSON of each request's result object, end to end, and ends, where each ends in results.
	ids     []string
	kinds   []uint8
	results []byte
	ends    []int
	// tally counts the succeeded and errored among the first tally.upTo requests: how many are
	// processed changes only with a cancel, so a batch is counted once, not on every read.
	tally struct{ upTo, succeeded, errored int }
	// encoded is the batch as answered, named by what the clock changes in it (ended, archived)
	// and by its cancel; the store's lock guards both.
	encoded core.RecordJSON
}

func (b *Batch) expiresAt() time.Time   { return b.CreatedAt.Add(expiry) }
func (b *Batch) doneAt(i int) time.Time { return b.CreatedAt.Add(time.Duration(i+1) * b.pace) }
func (b *Batch) result(i int) []byte    { return b.results[b.ends[i]-b.resultLen(i) : b.ends[i]] }
func (b *Batch) resultLen(i int) int {
	if i == 0 {
		return b.ends[0]
	}
	return b.ends[i] - b.ends[i-1]
}

// held is what the batch keeps in memory, charged to the budget.
func (b *Batch) held() int {
	n := 256 + cap(b.results) + cap(b.ends)*8 + cap(b.kinds) + cap(b.ids)*16
	for _, id := range b.ids {
		n += len(id)
	}
	return n
}

// end is when the batch ends, how many requests (the first ones) were processed, and what the
// rest are ("expired" or "canceled"; "" when none is left).
func (b *Batch) end() (at time.Time, processed int, rest string) {
	n := len(b.ids)
	at, processed = b.doneAt(n-1), n
	if b.pace > 0 && at.After(b.expiresAt()) {
		at, processed, rest = b.expiresAt(), int(expiry/b.pace), "expired"
	}
	if b.cancelAt != nil && b.pace > 0 {
		if k := int(b.cancelAt.Sub(b.CreatedAt) / b.pace); k+1 < processed {
			at, processed, rest = b.doneAt(k), k+1, "canceled"
		}
	}
	return at, processed, rest
}

type counts struct {
	Processing int `json:"processing"`
	Succeeded  int `json:"succeeded"`
	Errored    int `json:"errored"`
	Canceled   int `json:"canceled"`
	Expired    int `json:"expired"`
}

type batchJSON struct {
	ID                string     `json:"id"`
	Type              string     `json:"type"`
	ProcessingStatus  string     `json:"processing_status"`
	RequestCounts     counts     `json:"request_counts"`
	CreatedAt         time.Time  `json:"created_at"`
	ExpiresAt         time.Time  `json:"expires_at"`
	EndedAt           *time.Time `json:"ended_at"`
	CancelInitiatedAt *time.Time `json:"cancel_initiated_at"`
	ArchivedAt        *time.Time `json:"archived_at"`
	ResultsURL        *string    `json:"results_url"`
}

// json is view(now) as writeJSON would encode it, encoded again only when what it shows has
// changed: the batch ended, was archived or was canceled.
func (b *Batch) json(now time.Time) (json.RawMessage, error) {
	at, _, _ := b.end()
	key := strconv.FormatBool(now.Before(at)) + strconv.FormatBool(now.Before(b.CreatedAt.Add(archive))) + strconv.FormatBool(b.cancelAt != nil)
	return b.encoded.Get(key, func() any { return b.view(now) })
}

// view is the batch as it stands at now.
func (b *Batch) view(now time.Time) batchJSON {
	v := batchJSON{ID: b.ID, Type: "message_batch", ProcessingStatus: "in_progress", CreatedAt: b.CreatedAt,
		ExpiresAt: b.expiresAt(), CancelInitiatedAt: b.cancelAt}
	at, processed, rest := b.end()
	if now.Before(at) {
		if b.cancelAt != nil {
			v.ProcessingStatus = "canceling"
		}
		v.RequestCounts.Processing = len(b.ids)
		return v
	}
	v.ProcessingStatus, v.EndedAt = "ended", &at
	if t := &b.tally; t.upTo != processed {
		t.upTo, t.succeeded, t.errored = processed, 0, 0
		for _, k := range b.kinds[:processed] {
			if k == succeeded {
				t.succeeded++
			} else {
				t.errored++
			}
		}
	}
	v.RequestCounts.Succeeded, v.RequestCounts.Errored = b.tally.succeeded, b.tally.errored
	switch rest {
	case "expired":
		v.RequestCounts.Expired = len(b.ids) - processed
	case "canceled":
		v.RequestCounts.Canceled = len(b.ids) - processed
	}
	if arch := b.CreatedAt.Add(archive); !now.Before(arch) {
		v.ArchivedAt = &arch
	}
	// Relative, as the SDK's own tests serve it: the SDK fetches results_url as it is, and joins
	// only a relative URL to its base URL, which is the fake's wherever it is served.
	u := "/v1/messages/batches/" + b.ID + "/results"
	v.ResultsURL = &u
	return v
}

// Store is the batches of one server (or namespace), under one mutex.
type Store struct {
	mu   sync.Mutex
	byID map[string]*Batch
	// lists are each organization's batches, newest first.
	lists map[*core.Org][]*Batch
	core.Charged
}

func storeOf(st *core.State, budget *core.ByteBudget) *Store {
	return batchStores.In(st.Stores).Get(func() *Store { return build(st.Fx, budget) })
}

// StoreOf is the batches of the request's server.
func StoreOf(s *core.Server, st *core.State) *Store { return storeOf(st, s.Cfg.Budget(BatchesBudget)) }

func (bs *Store) release() {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.Leave()
	clear(bs.byID)
	clear(bs.lists)
}

func batchKey(b *Batch) core.ListKey { return core.ListKey{At: b.CreatedAt, ID: b.ID} }
func batchID(b *Batch) string        { return b.ID }

// createBody is the create request; params stay raw, each answered as a body of its own.
type createBody struct {
	Requests []struct {
		CustomID string          `json:"custom_id"`
		Params   json.RawMessage `json:"params"`
	} `json:"requests"`
}

// createBatch serves POST /v1/messages/batches. It refuses a malformed batch whole, naming the
// place (the schema: count, custom_id's form, params an object; then a duplicate custom_id, a
// streamed request, Fake-Batch-Pace), then answers every request as POST /v1/messages would
// and keeps the answers: a request the Messages rules refuse is an errored result with the
// error it would get alone.
func createBatch(s *core.Server, c *core.Call) (any, error) {
	var body createBody
	if err := c.BindValid(&body); err != nil {
		return nil, err
	}
	pace := time.Duration(paceOf(s).Load())
	if h := c.DeclaredHeader(HeaderPace); h != "" {
		sec, err := strconv.ParseFloat(h, 64)
		if err != nil || sec < 0 || sec > MaxPaceSeconds {
			return nil, core.InvalidField(HeaderPace, "must be a number of seconds from 0 to %d, got %s", MaxPaceSeconds, core.Quoted(h, core.MaxExcerpt))
		}
		pace = time.Duration(sec * float64(time.Second))
	}
	seen := make(map[string]int, len(body.Requests))
	for i, r := range body.Requests {
		if j, dup := seen[r.CustomID]; dup {
			return nil, core.InvalidField(fmt.Sprintf("requests.%d.custom_id", i), "%s is also the custom_id of requests.%d; each must be unique within the batch", core.Quoted(r.CustomID, core.MaxExcerpt), j)
		}
		seen[r.CustomID] = i
		var p struct {
			Stream bool `json:"stream"`
		}
		if json.Unmarshal(r.Params, &p) == nil && p.Stream {
			return nil, core.InvalidField(fmt.Sprintf("requests.%d.params.stream", i), "a request of a batch cannot be streamed; omit stream or send false")
		}
	}
	seen = nil
	// The ID comes first, so that the journal entry of each request names its batch.
	b := &Batch{ID: s.IDs.Next("msgbatch_"), org: c.Org, CreatedAt: s.Now(), pace: pace,
		ids: make([]string, len(body.Requests)), kinds: make([]uint8, len(body.Requests)), ends: make([]int, len(body.Requests))}
	for i, r := range body.Requests {
		b.ids[i] = r.CustomID
		b.results, b.kinds[i] = answer(s, c, r.Params, b.results, &core.JournalBatch{ID: b.ID, CustomID: r.CustomID})
		b.ends[i] = len(b.results)
		body.Requests[i].Params = nil // let the body go as the batch is answered
	}
	if cap(b.results) > len(b.results)+len(b.results)/8 {
		b.results = append([]byte(nil), b.results...) // growing left up to half of it unused
	}
	bs := StoreOf(s, c.St)
	bs.mu.Lock()
	defer bs.mu.Unlock()
	n := b.held()
	if !bs.Reserve(n) {
		return nil, core.NewError(core.ErrRequestTooLarge, "the results of this batch would hold %d bytes, and the batches of this server and all its namespaces hold %d bytes of their budget of %d; delete batches, then create it again", n, bs.Budget.Bytes.Load(), bs.Budget.Limit)
	}
	bs.byID[b.ID] = b
	bs.lists[b.org] = core.InsertInOrder(bs.lists[b.org], b, batchKey, core.NewestFirst)
	return b.view(b.CreatedAt), nil
}

// answer appends the result object of one request to dst: succeeded with the message, or
// errored with the error the request would get sent alone. Its journal entry carries mark.
func answer(s *core.Server, c *core.Call, params json.RawMessage, dst []byte, mark *core.JournalBatch) ([]byte, uint8) {
	start := len(dst)
	dst = append(dst, `{"type":"succeeded","message":`...)
	dst, err := messages.Answer(s, c, params, dst, mark)
	if err == nil {
		return append(dst, '}'), succeeded
	}
	_, env := core.ErrorBody(err, c.X.RequestID[0])
	e, _ := json.Marshal(env)
	dst = append(append(dst[:start], `{"type":"errored","error":`...), e...)
	return append(dst, '}'), errored
}

// withBatch serves a route of one batch: serve runs with the batch the path names, under the
// store's lock; a batch unknown, deleted or of another organization is a 404. (Each route keeps
// a handler of its own name: the OpenAPI document takes its operation ID from it.)
func withBatch(s *core.Server, c *core.Call, serve func(bs *Store, b *Batch) (any, error)) (any, error) {
	bs := StoreOf(s, c.St)
	bs.mu.Lock()
	defer bs.mu.Unlock()
	id := c.Param("batch_id")
	b := bs.byID[id]
	if b == nil || b.org != c.Org {
		return nil, core.NotFound("message batch", id)
	}
	return serve(bs, b)
}

func getBatch(s *core.Server, c *core.Call) (any, error) {
	return withBatch(s, c, func(_ *Store, b *Batch) (any, error) { return b.json(s.Now()) })
}

// listBatches serves GET /v1/messages/batches: the organization's batches, newest first, by ID
// cursor ({data, first_id, last_id, has_more}).
func listBatches(s *core.Server, c *core.Call) (any, error) {
	q, err := c.CursorQuery()
	if err != nil {
		return nil, err
	}
	bs := StoreOf(s, c.St)
	bs.mu.Lock()
	defer bs.mu.Unlock()
	items := bs.lists[c.Org]
	page, err := core.PageByCursor(items, batchKey, batchID, core.NewestFirst, q, core.LookupIn(items, batchKey))
	if err != nil {
		return nil, err
	}
	now := s.Now()
	return core.EncodedCursorPage(page, func(b *Batch) (json.RawMessage, error) { return b.json(now) })
}

// cancelBatch serves POST .../cancel: an in-progress batch starts canceling (cancel again: the
// same batch); an ended one is a 400, which the documentation does not state (inferred).
func cancelBatch(s *core.Server, c *core.Call) (any, error) {
	return withBatch(s, c, func(_ *Store, b *Batch) (any, error) {
		now := s.Now()
		if at, _, _ := b.end(); !now.Before(at) {
			return nil, core.Invalid("message batch %s has ended (at %s): only a batch in progress can be canceled", b.ID, at.Format(time.RFC3339))
		}
		if b.cancelAt == nil {
			b.cancelAt = &now
		}
		return b.view(now), nil
	})
}

// deleteBatch serves DELETE: only a batch that has ended (a 400 before, inferred).
func deleteBatch(s *core.Server, c *core.Call) (any, error) {
	return withBatch(s, c, func(bs *Store, b *Batch) (any, error) {
		if v := b.view(s.Now()); v.EndedAt == nil {
			return nil, core.Invalid("message batch %s is %s: only a batch that has ended can be deleted; cancel it, then delete it once it has ended", b.ID, v.ProcessingStatus)
		}
		delete(bs.byID, b.ID)
		bs.lists[b.org] = core.RemoveInOrder(bs.lists[b.org], b, batchKey, core.NewestFirst)
		bs.Give(b.held())
		return struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		}{b.ID, "message_batch_deleted"}, nil
	})
}

// batchResults serves GET .../results: the JSONL of the results, one line per request in the
// order sent, once the batch has ended (a 400 before, inferred), until it is archived.
func batchResults(s *core.Server, c *core.Call) (any, error) {
	return withBatch(s, c, func(_ *Store, b *Batch) (any, error) {
		v := b.view(s.Now())
		switch {
		case v.EndedAt == nil:
			return nil, core.Invalid("message batch %s is %s: its results are available once it has ended", b.ID, v.ProcessingStatus)
		case v.ArchivedAt != nil:
			return nil, core.NewError(core.ErrNotFound, "the results of message batch %s were archived at %s, 29 days after its creation", b.ID, v.ArchivedAt.Format(time.RFC3339))
		}
		_, processed, rest := b.end()
		return &resultsBody{b: b, processed: processed, rest: rest}, nil
	})
}

// resultsBody writes the results line by line from what the batch keeps, through a small
// buffer: no copy of the whole file is made.
type resultsBody struct {
	b         *Batch
	processed int
	rest      string
}

func (r *resultsBody) Respond(c *core.Call) {
	c.Header("Content-Type", "application/x-jsonl")
	c.Status(http.StatusOK)
	w := bufio.NewWriterSize(c.Writer, 32<<10)
	line := make([]byte, 0, 256)
	for i, id := range r.b.ids {
		line = core.AppendJSONString(append(line[:0], `{"custom_id":`...), id, false)
		line = append(line, `,"result":`...)
		if i < r.processed {
			line = append(line, r.b.result(i)...)
		} else {
			line = append(append(append(line, `{"type":"`...), r.rest...), `"}`...)
		}
		line = append(line, "}\n"...)
		if _, err := w.Write(line); err != nil {
			return // the client went away
		}
	}
	_ = w.Flush()
}
