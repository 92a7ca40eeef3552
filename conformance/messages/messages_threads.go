package messages

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Message threads (beta message-threads-2026-08-12; EXTENSIONS.md, "Message threads"): a
// create keeps the conversation under the reply's id, a continue sends only the new messages and
// is answered as the whole conversation. What the platform documents is checked on any target;
// expiry needs the fake's clock. A target that does not take the thread field (a deployment
// without the beta answers 400 naming it, or refuses it as thread_unsupported_request) makes
// each check unsupported.

func init() { kit.Register(threadChecks()...) }

// threadsBeta is the beta value a threaded request carries.
const threadsBeta = "message-threads-2026-08-12"

// threadReq is a Create a Message request carrying the threads beta.
func threadReq(body any) kit.Request {
	r := CreateRequest(body)
	r.Header = http.Header{"vendor-beta": {threadsBeta}}
	return r
}

func threadCreate() map[string]any { return map[string]any{"type": "create"} }

func threadContinue(prev string) map[string]any {
	return map[string]any{"type": "continue", "previous_message_id": prev}
}

// threadOK sends a threaded request and requires a 200, unless the target does not do threads:
// a 400 naming the thread field, or thread_unsupported_request, ends the check as unsupported.
func threadOK(t *kit.T, body map[string]any) *kit.Response {
	resp := t.Do(threadReq(body))
	if resp.Status == http.StatusBadRequest && (strings.HasPrefix(resp.Get("error.message").String(), "thread:") ||
		resp.Get("error.details.error_code").String() == "thread_unsupported_request") {
		t.Unsupported("the target does not take message threads (beta %s): %s", threadsBeta, resp)
	}
	t.ExpectWithOffset(1, resp.Status).To(Equal(http.StatusOK), "the answer is 200: %s", resp)
	return resp
}

// expectThreadError requires the error envelope of status and type with error.details.error_code.
func expectThreadError(t *kit.T, resp *kit.Response, status int, errType, code string) {
	t.ExpectWithOffset(1, resp.Status).To(Equal(status), "the answer is %d %s with error_code %s: %s", status, errType, code, resp)
	t.ExpectError(resp, status, errType)
	t.ExpectWithOffset(1, resp.Get("error.details.error_code").String()).To(Equal(code), "error.details.error_code is %s, which the official SDK helpers read: %s", code, resp)
}

// allInput is every input token a reply counts: uncached, read from and written to the cache.
func allInput(resp *kit.Response) int64 {
	u := resp.Get("usage")
	return u.Get("input_tokens").Int() + u.Get("cache_read_input_tokens").Int() + u.Get("cache_creation_input_tokens").Int()
}

func threadChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/thread-continue-is-the-whole-conversation", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a thread continue that sends only the new message counts the input tokens of the whole conversation sent in full",
			Bug:   &kit.Bug{Says: "a continue is answered from its new messages alone", Want: "answered as the whole conversation", Break: kit.InRequests(http.MethodPost, "/v1/messages", msgDropsThreadOnContinue)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				system := "You answer in one short sentence."
				first := []any{UserTurn("Name a colour.")}
				created := threadOK(t, Body(model, "system", system, "messages", first, "thread", threadCreate()))
				next := UserTurn("Name another one.")
				cont := threadOK(t, Body(model, "messages", []any{next}, "thread", threadContinue(created.Get("id").String())))
				// The reply goes back as it was answered, numbers as they were written.
				var content any
				d := json.NewDecoder(bytes.NewReader([]byte(created.Get("content").Raw)))
				d.UseNumber()
				t.Expect(d.Decode(&content)).To(Succeed())
				whole := []any{first[0], map[string]any{"role": "assistant", "content": content}, next}
				full := t.OK(CreateRequest(Body(model, "system", system, "messages", whole)))
				t.Expect(allInput(cont)).To(Equal(allInput(full)),
					"the continue is answered as the whole conversation, so it counts what the full request counts: continue %s, full %s", cont.Get("usage"), full.Get("usage"))
			}},
		{ID: "messages/thread-continue-once", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a reply that was continued once is refused a second continue: 400 invalid_request_error with error_code thread_already_continued",
			Bug:   &kit.Bug{Says: "a reply can be continued more than once", Want: "thread_already_continued", Break: msgContinueTwice},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				created := threadOK(t, Body(model, "thread", threadCreate()))
				id := created.Get("id").String()
				threadOK(t, Body(model, "messages", []any{UserTurn("And again.")}, "thread", threadContinue(id)))
				again := t.Do(threadReq(Body(model, "messages", []any{UserTurn("Once more.")}, "thread", threadContinue(id))))
				expectThreadError(t, again, http.StatusBadRequest, "invalid_request_error", "thread_already_continued")
			}},
		{ID: "messages/thread-unknown-previous-404", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a continue from a reply no thread holds is answered 404 not_found_error with error_code thread_not_found",
			Bug:   &kit.Bug{Says: "a lost thread is answered 404 without error.details", Want: "thread_not_found", Break: kit.InAnswers(msgCreate, msgNoErrorDetails)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				// A create first, so that a target without threads is told apart from one that
				// has them and lost this one.
				threadOK(t, Body(model, "thread", threadCreate()))
				resp := t.Do(threadReq(Body(model, "thread", threadContinue("msg_01conformanceNoSuchReply"))))
				expectThreadError(t, resp, http.StatusNotFound, "not_found_error", "thread_not_found")
			}},
		{ID: "messages/thread-expires-after-five-minutes", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension, kit.FakeOnly},
			Title: "a thread continues 4:59 after its last reply, and 5:00 after it is gone: 404 thread_not_found",
			Bug:   &kit.Bug{Says: "a thread never expires", Want: "thread_not_found", Break: msgClockFrozen},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				created := threadOK(t, Body(model, "thread", threadCreate()))
				t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": 299})
				cont := threadOK(t, Body(model, "messages", []any{UserTurn("Still there?")}, "thread", threadContinue(created.Get("id").String())))
				t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": 300})
				gone := t.Do(threadReq(Body(model, "messages", []any{UserTurn("And now?")}, "thread", threadContinue(cont.Get("id").String()))))
				expectThreadError(t, gone, http.StatusNotFound, "not_found_error", "thread_not_found")
			}},
	}
}
