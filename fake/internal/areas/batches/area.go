// Package batches is the area of message batches (/v1/messages/batches): a batch's requests are
// each answered by the Messages pipeline as POST /v1/messages answers them sent alone
// (messages.Answer), and the batch runs to its end on the server's clock at a documented pace.
package batches

import (
	"sync/atomic"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// Area is the area of message batches. A snapshot writes every batch (batches.json), and a
// world loaded from it continues each as the original would; a reset returns to the batches of
// the fixtures and puts the pace back to DefaultPace (conformance/EXTENSIONS.md).
var Area = &core.Area{
	Routes:   batchRoutes,
	Load:     loadBatches,
	Snapshot: batchesSnapshot,
	Release:  func(st *core.State) { storeOf(st, nil).release() },
	Reset:    func(s *core.Server) { paceOf(s).Store(int64(DefaultPace * time.Millisecond)) },
}

// paceSlot is the pace of the batches a server (or namespace) creates without Fake-Batch-Pace:
// DefaultPace until PUT /_fake/batch_pace sets it, in nanoseconds.
var paceSlot = core.NewSlot(&core.ServerSlots, func(*core.Server) *atomic.Int64 {
	p := new(atomic.Int64)
	p.Store(int64(DefaultPace * time.Millisecond))
	return p
})

func paceOf(s *core.Server) *atomic.Int64 { return paceSlot.In(s.Areas) }

// paceBody is the body of GET and PUT /_fake/batch_pace (control/batch_pace).
type paceBody struct {
	Seconds float64 `json:"seconds"`
}

// Pace is Server.BatchPace of the face (package fake).
func Pace(s *core.Server) time.Duration { return time.Duration(paceOf(s).Load()) }

// SetPace is Server.SetBatchPace of the face (package fake): the pace of the batches s creates
// from now on without Fake-Batch-Pace; batches already created keep theirs.
func SetPace(s *core.Server, d time.Duration) error {
	if d < 0 || d > MaxPaceSeconds*time.Second {
		return core.InvalidField("seconds", "must be from 0 to %d, got %g", MaxPaceSeconds, d.Seconds())
	}
	paceOf(s).Store(int64(d))
	return nil
}

func getPace(s *core.Server, c *core.Call) (any, error) {
	return paceBody{Pace(s).Seconds()}, nil
}

// putPace serves PUT /_fake/batch_pace (SetPace) for the server or the namespace addressed.
func putPace(s *core.Server, c *core.Call) (any, error) {
	var req paceBody // required, 0 to MaxPaceSeconds: control/batch_pace
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	if err := SetPace(s, time.Duration(req.Seconds*float64(time.Second))); err != nil {
		return nil, err
	}
	return getPace(s, c)
}

var (
	batchStores = core.NewStore[Store]()
	// BatchesBudget is the budget of BatchesBytes that every batch store of a server shares.
	BatchesBudget = core.NewBudget(BatchesBytes)
)

// The bounds of batches (conformance/EXTENSIONS.md, "Message batches").
const (
	// MaxRequests is the most requests one batch takes: the documentation's 100,000 (the API
	// reference's "1 - 10000 elements" conflicts with it; the larger is served).
	MaxRequests = 100_000
	// BatchesBytes is what the results of every batch of a server and its namespaces may hold
	// together; a batch whose results would pass it is refused, and deleting batches frees it.
	BatchesBytes = 256 << 20
	// DefaultPace is the virtual time each request of a batch takes, one after the other, when
	// the create request sends no Fake-Batch-Pace header and PUT /_fake/batch_pace has set no
	// other: a batch of n requests ends n×100 ms after its creation (unless canceled or expired
	// first).
	DefaultPace = 100 // milliseconds
	// MaxPaceSeconds bounds Fake-Batch-Pace.
	MaxPaceSeconds = 86_400
)

// HeaderPace is the fake-only header of a create request that sets its batch's pace.
const HeaderPace = "Fake-Batch-Pace"

func batchRoutes() []*core.Route {
	return []*core.Route{
		// Message batches (GA; no beta header).
		core.Line(core.Post, "/v1/messages/batches", core.IfMessages, core.In{Body: "batches/create_request", Headers: hCreate}, "batches/message_batch", createBatch),
		core.Line(core.Get, "/v1/messages/batches", core.IfMessages, core.In{Query: core.CursorParams(20, 1000)}, "batches/message_batch_list", listBatches),
		core.Line(core.Get, "/v1/messages/batches/:batch_id", core.IfMessages, core.In{}, "batches/message_batch", getBatch),
		core.Line(core.Post, "/v1/messages/batches/:batch_id/cancel", core.IfMessages, core.In{}, "batches/message_batch", cancelBatch),
		core.Line(core.Del, "/v1/messages/batches/:batch_id", core.IfMessages, core.In{}, "batches/message_batch_deleted", deleteBatch),
		core.Line(core.Get, "/v1/messages/batches/:batch_id/results", core.IfMessages, core.In{}, "", batchResults),
		// Test control: the pace of the batches created without Fake-Batch-Pace.
		core.Line(core.Get, "/_fake/batch_pace", nil, core.In{}, "control/batch_pace", getPace),
		core.Line(core.Put, "/_fake/batch_pace", nil, core.In{Body: "control/batch_pace"}, "control/batch_pace", putPace),
	}
}

var hCreate = []core.Param{
	{Name: HeaderPace, Kind: core.PString,
		Doc: "Fake only: the virtual seconds each request of the batch takes, one after the other (a decimal, 0 to 86400; default: the pace PUT /_fake/batch_pace set, else 0.1). The batch ends when the clock passes its last request, or at 24 h with the rest expired."},
	{Name: scenarios.HeaderScenario, Kind: core.PString,
		Doc: "Fake only: every request of the batch is answered with this canned scenario, as POST /v1/messages would answer it."},
}
