package messages

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Defects of event streams, for the bugs of the checks that read them. A bug rewrites the events a
// target sent (read with the suite's own reader) and writes them again as a server does: an
// `event:` line, a `data:` line, a blank line.

// streamedEvent is one event of a stream a bug rewrites: its name and its data, decoded.
type streamedEvent struct {
	Name string
	Data map[string]any
}

// inStreams is the bug of a target whose 2xx event streams, answering requests match accepts,
// pass through edit: the events in, the events it sends instead out.
func inStreams(match func(*http.Request) bool, edit func(evs []streamedEvent) []streamedEvent) func(http.Handler) http.Handler {
	return kit.InAnswers(match, func(_ *http.Request, status int, h http.Header, body []byte) []byte {
		if status/100 != 2 || !strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
			return body
		}
		read, _ := kit.ReadEventStream(body)
		evs := make([]streamedEvent, 0, len(read))
		for _, ev := range read {
			d, _ := kit.DecodeObject(ev.Data)
			evs = append(evs, streamedEvent{ev.Name, d})
		}
		var out bytes.Buffer
		for _, ev := range edit(evs) {
			out.WriteString("event: " + ev.Name + "\ndata: ")
			out.Write(kit.MustMarshal(ev.Data))
			out.WriteString("\n\n")
		}
		return out.Bytes()
	})
}

// streamDropsLastTextDelta is the bug of a stream that loses the last text_delta of every text
// block: the text a client joins is cut short.
func streamDropsLastTextDelta(evs []streamedEvent) []streamedEvent {
	last := map[any]int{} // block index → position of its last text_delta
	for i, ev := range evs {
		if delta, _ := ev.Data["delta"].(map[string]any); ev.Name == "content_block_delta" && delta["type"] == "text_delta" {
			last[ev.Data["index"]] = i
		}
	}
	var out []streamedEvent
	for i, ev := range evs {
		if ev.Name == "content_block_delta" && last[ev.Data["index"]] == i {
			if delta, _ := ev.Data["delta"].(map[string]any); delta["type"] == "text_delta" {
				continue
			}
		}
		out = append(out, ev)
	}
	return out
}

// streamedAnswers matches the answers to Create a Message; inStreams edits only its streams.
var streamedAnswers = kit.On(http.MethodPost, "^/v1/messages$")

// ignoresFieldWhenStreaming is the bug of a target that ignores a top-level field of a Create a
// Message body that asks for a stream, and reads it when answering whole.
func ignoresFieldWhenStreaming(field string) func(http.Handler) http.Handler {
	return kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
		if b["stream"] == true {
			delete(b, field)
		}
	})
}

// streamSetsInMessageStart is the bug of a stream whose message_start event carries value at each
// usage field named, whatever the message says elsewhere.
func streamSetsInMessageStart(value any, fields ...string) func(evs []streamedEvent) []streamedEvent {
	return func(evs []streamedEvent) []streamedEvent {
		for _, ev := range evs {
			if ev.Name != "message_start" {
				continue
			}
			msg, _ := ev.Data["message"].(map[string]any)
			if u, ok := msg["usage"].(map[string]any); ok {
				for _, f := range fields {
					u[f] = value
				}
			}
		}
		return evs
	}
}

// streamStartsToolInputWhole is the bug of a stream whose tool_use blocks start with their whole
// input instead of {}; the input_json_delta pieces still follow, so a client that appends them
// to the start's input gets the input twice.
func streamStartsToolInputWhole(evs []streamedEvent) []streamedEvent {
	joined := map[any]string{} // block index → its partial_json pieces joined
	for _, ev := range evs {
		if delta, _ := ev.Data["delta"].(map[string]any); ev.Name == "content_block_delta" && delta["type"] == "input_json_delta" {
			joined[ev.Data["index"]] += kit.StringOf(delta["partial_json"])
		}
	}
	for _, ev := range evs {
		if cb, _ := ev.Data["content_block"].(map[string]any); ev.Name == "content_block_start" && cb["type"] == "tool_use" {
			if in, err := kit.DecodeObject([]byte(joined[ev.Data["index"]])); err == nil {
				cb["input"] = in
			}
		}
	}
	return evs
}

// streamStopReasonOnEveryPiece is the bug of a streamed completion whose every piece carries the
// stop_reason only the last should.
func streamStopReasonOnEveryPiece(evs []streamedEvent) []streamedEvent {
	var stop any
	for _, ev := range evs {
		if ev.Name == "completion" && ev.Data["stop_reason"] != nil {
			stop = ev.Data["stop_reason"]
		}
	}
	for _, ev := range evs {
		if ev.Name == "completion" {
			ev.Data["stop_reason"] = stop
		}
	}
	return evs
}

// streamEmptiesCompletionPieces is the bug of a streamed completion whose every piece is empty.
func streamEmptiesCompletionPieces(evs []streamedEvent) []streamedEvent {
	for _, ev := range evs {
		if ev.Name == "completion" {
			ev.Data["completion"] = ""
		}
	}
	return evs
}
