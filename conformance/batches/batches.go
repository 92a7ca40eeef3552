package batches

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/kit"
)

// route is the batches' collection.
const route = "/v1/messages/batches"

// hello is the body of a short Messages request, answered by any model.
func hello(model string, i int) map[string]any {
	return map[string]any{"model": model, "max_tokens": 16,
		"messages": []any{map[string]any{"role": "user", "content": fmt.Sprintf("Say hello, number %d.", i)}}}
}

// refused is the body of a Messages request every target refuses with 400 invalid_request_error
// (no messages): in a batch, it is the errored line.
func refused(model string) map[string]any {
	return map[string]any{"model": model, "max_tokens": 16, "messages": []any{}}
}

// entry is one request of a batch.
func entry(id string, params any) map[string]any {
	return map[string]any{"custom_id": id, "params": params}
}

// greetings are n requests of hello, custom_ids req-0 to req-n-1.
func greetings(model string, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = entry(fmt.Sprintf("req-%d", i), hello(model, i))
	}
	return out
}

func createReq(requests []any) kit.Request {
	return kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: route,
		Body: map[string]any{"requests": requests}, Schema: "batches/message_batch"}
}

func getReq(id string) kit.Request {
	return kit.Request{Area: kit.Messages, Path: route + "/" + id, Schema: "batches/message_batch"}
}

func listReq(q url.Values) kit.Request {
	return kit.Request{Area: kit.Messages, Path: route, Query: q, Schema: "batches/message_batch_list"}
}

func actionReq(method, id, rest, schema string) kit.Request {
	return kit.Request{Area: kit.Messages, Method: method, Path: route + "/" + id + rest, Schema: schema}
}

// create makes a batch of the requests, registers its deletion, and returns the answer; a
// target without batches makes the check unsupported.
func create(t *kit.T, requests []any) *kit.Response {
	resp := t.Do(createReq(requests))
	t.UnsupportedIfAbsent(resp, "the target has no message batches (POST %s answered %d)", route, resp.Status)
	t.ExpectWithOffset(1, resp.Status).To(Equal(http.StatusOK), "the batch is created: %s", resp)
	id := resp.Get("id").String()
	t.Cleanup("delete message batch "+id, deleteWhenEnded(t, id))
	return resp
}

// deleteWhenEnded is the cleanup of a batch: deleted, or, when it has not ended (the check
// stopped early), canceled and deleted once it has, within the run's patience.
func deleteWhenEnded(t *kit.T, id string) func() error {
	del := t.Delete(actionReq(http.MethodDelete, id, "", ""))
	return func() error {
		if del() == nil {
			return nil
		}
		ctx := context.Background()
		t.Target.Client.Do(ctx, &kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: route + "/" + id + "/cancel"})
		for waited := time.Duration(0); ; waited += time.Second {
			err := del()
			if err == nil || waited >= patience(t) {
				return err
			}
			switch {
			case t.Target.IsFake:
				t.Target.Client.Do(ctx, &kit.Request{Area: kit.Core, Method: http.MethodPost, Path: "/_fake/clock/advance",
					Body: map[string]any{"seconds": 1}, As: kit.NoCred, Header: http.Header{"vendor-version": {""}}})
			case t.Target.WaitFunc != nil:
				t.Target.WaitFunc(ctx, 1)
			default:
				time.Sleep(time.Second)
			}
		}
	}
}

// patience is how long the run waits for a batch to end: one request timeout.
func patience(t *kit.T) time.Duration { return t.Config().Timeout }

// awaitEnd polls the batch until it has ended and returns it. The fake's clock is moved a second
// at a time; a deployment is given its own time, polled four times a second. A batch still
// processing after the run's patience ends the check as unsupported, naming it.
func awaitEnd(t *kit.T, id string) *kit.Response {
	var waited time.Duration
	for {
		b := t.OK(getReq(id))
		if b.Get("processing_status").String() == "ended" {
			return b
		}
		if waited >= patience(t) {
			t.Unsupported("message batch %s has not ended within the run's patience (CONFORMANCE_TIMEOUT, %s): %s", id, patience(t), b)
		}
		step := 250 * time.Millisecond
		switch {
		case t.Target.IsFake:
			step = time.Second
			t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": 1})
		case t.Target.WaitFunc != nil:
			step = time.Second
			t.Wait(1)
		default:
			select {
			case <-time.After(step):
			case <-t.Context().Done():
				t.SuiteErrorf("stopped while waiting for message batch %s to end", id)
			}
		}
		waited += step
	}
}

// results reads the results of an ended batch from its results_url (a relative URL is the
// target's; an absolute one is read by its path on the target, as the SDKs read it) and returns
// its lines, each required to be one JSON object: JSONL, without a blank line.
func results(t *kit.T, batch *kit.Response) []gjson.Result {
	u := batch.Get("results_url").String()
	t.ExpectWithOffset(1, u).NotTo(BeEmpty(), "an ended batch has a results_url: %s", batch)
	if parsed, err := url.Parse(u); err == nil && parsed.IsAbs() {
		u = parsed.RequestURI()
	}
	resp := t.Do(kit.Request{Area: kit.Messages, Path: u, Header: http.Header{"Accept": {"application/binary"}}})
	t.ExpectWithOffset(1, resp.Status).To(Equal(http.StatusOK), "the results of an ended batch are answered 200: %s", resp)
	body := bytes.TrimSuffix(resp.Body, []byte("\n"))
	var lines []gjson.Result
	for i, l := range bytes.Split(body, []byte("\n")) {
		t.ExpectWithOffset(1, gjson.ValidBytes(l) && gjson.ParseBytes(l).IsObject()).To(BeTrue(),
			"line %d of the results is one JSON object (JSONL, no blank line): %q", i+1, l)
		lines = append(lines, gjson.ParseBytes(l))
	}
	return lines
}

// byID is the results' lines by custom_id; each custom_id is required once.
func byID(t *kit.T, lines []gjson.Result) map[string]gjson.Result {
	out := map[string]gjson.Result{}
	for _, l := range lines {
		id := l.Get("custom_id").String()
		t.ExpectWithOffset(1, out).NotTo(HaveKey(id), "each request has one line of the results: %s is there twice", id)
		out[id] = l
	}
	return out
}

// countsOf tallies the lines by result type, as request_counts names them.
func countsOf(lines []gjson.Result) map[string]int64 {
	c := map[string]int64{"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
	for _, l := range lines {
		c[l.Get("result.type").String()]++
	}
	return c
}

// requestCounts is the batch's request_counts, as countsOf.
func requestCounts(b *kit.Response) map[string]int64 {
	c := map[string]int64{}
	for _, k := range []string{"processing", "succeeded", "errored", "canceled", "expired"} {
		c[k] = b.Get("request_counts." + k).Int()
	}
	return c
}

// newestID is the ID of the organization's newest batch, "" when it has none: what a refused
// create must leave as it was.
func newestID(t *kit.T) string {
	page := t.Do(listReq(url.Values{"limit": {"1"}}))
	t.UnsupportedIfAbsent(page, "the target has no message batches (GET %s answered %d)", route, page.Status)
	t.ExpectWithOffset(1, page.Status).To(Equal(http.StatusOK), "the list is answered 200: %s", page)
	t.NoItemsNeeded()
	return page.Get("data.0.id").String()
}

// refusedWhole sends a create the API must refuse with 400 naming place, and requires that no
// batch came of it.
func refusedWhole(t *kit.T, requests []any, place string) {
	before := newestID(t)
	resp := t.Do(createReq(requests))
	t.UnsupportedIfAbsent(resp, "the target has no message batches (POST %s answered %d)", route, resp.Status)
	if resp.Status == http.StatusOK {
		t.Cleanup("delete message batch "+resp.Get("id").String(), deleteWhenEnded(t, resp.Get("id").String()))
	}
	t.ExpectWithOffset(1, resp.Status).To(Equal(http.StatusBadRequest), "the batch is refused whole with 400: %s", resp)
	t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
	t.ExpectWithOffset(1, resp.Get("error.message").String()).To(ContainSubstring(place), "the refusal names the place %s: %s", place, resp)
	t.ExpectWithOffset(1, newestID(t)).To(Equal(before), "a refused batch creates nothing: the newest batch is the one before it")
}

// ids are the IDs of a list answer's data, in order.
func ids(resp *kit.Response) []string {
	var out []string
	for _, v := range resp.Get("data.#.id").Array() {
		out = append(out, v.String())
	}
	return out
}

// mustTime is the RFC 3339 timestamp at path of resp.
func mustTime(t *kit.T, resp *kit.Response, path string) time.Time {
	at, err := time.Parse(time.RFC3339Nano, resp.Get(path).String())
	t.ExpectWithOffset(1, err).NotTo(HaveOccurred(), "%s is an RFC 3339 timestamp: %s", path, resp)
	return at
}

func init() {
	kit.Register(batchChecks()...)
	kit.Register(badInputChecks()...)
}

// clause is the decision of EXTENSIONS.md the checks verify.
const clause = "gaps §13"

var (
	ext  = []kit.Label{kit.Messages, kit.Extension}
	slow = []kit.Label{kit.Messages, kit.Extension, kit.Slow}
)
