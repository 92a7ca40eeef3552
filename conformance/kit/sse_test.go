package kit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The suite's reader of text/event-stream, held to the WHATWG rules on hand-written bodies.
func TestSSEReaderFollowsTheStandard(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []SSEEvent
		incomplete bool
	}{
		{"event and data", "event: ping\ndata: {\"type\":\"ping\"}\n\n",
			[]SSEEvent{{"ping", []byte(`{"type":"ping"}`)}}, false},
		{"no space after the colon, and a space kept past the first", "event:a\ndata:  x\n\n",
			[]SSEEvent{{"a", []byte(" x")}}, false},
		{"multi-line data joined with LF", "event: a\ndata: one\ndata: two\ndata\n\n",
			[]SSEEvent{{"a", []byte("one\ntwo\n")}}, false},
		{"CRLF line ends", "event: a\r\ndata: 1\r\n\r\nevent: b\r\ndata: 2\r\n\r\n",
			[]SSEEvent{{"a", []byte("1")}, {"b", []byte("2")}}, false},
		{"CR line ends", "event: a\rdata: 1\r\revent: b\rdata: 2\r\r",
			[]SSEEvent{{"a", []byte("1")}, {"b", []byte("2")}}, false},
		{"mixed line ends", "event: a\r\ndata: 1\n\revent: b\rdata: 2\r\n\n",
			[]SSEEvent{{"a", []byte("1")}, {"b", []byte("2")}}, false},
		{"comments anywhere", ": keep-alive\n\nevent: a\n: between\ndata: 1\n\n:last\n",
			[]SSEEvent{{"a", []byte("1")}}, false},
		{"a leading BOM is skipped once", "\xef\xbb\xbfevent: a\ndata: 1\n\n",
			[]SSEEvent{{"a", []byte("1")}}, false},
		{"id, retry and unknown fields are ignored", "id: 7\nretry: 1000\nevent: a\nfoo: bar\ndata: 1\n\n",
			[]SSEEvent{{"a", []byte("1")}}, false},
		{"no event field: the type is message", "data: 1\n\n",
			[]SSEEvent{{"message", []byte("1")}}, false},
		{"an event without data is not dispatched, and its name does not carry over", "event: a\n\ndata: 1\n\n",
			[]SSEEvent{{"message", []byte("1")}}, false},
		{"the last event field wins", "event: a\nevent: b\ndata: 1\n\n",
			[]SSEEvent{{"b", []byte("1")}}, false},
		{"a final event without a blank line is discarded", "event: a\ndata: 1\n\nevent: b\ndata: 2\n",
			[]SSEEvent{{"a", []byte("1")}}, true},
		{"a final unterminated data line is discarded", "event: a\ndata: 1\n\nevent: b\ndata: 2",
			[]SSEEvent{{"a", []byte("1")}}, true},
		{"a final unterminated comment is nothing", "event: a\ndata: 1\n\n: bye",
			[]SSEEvent{{"a", []byte("1")}}, false},
		{"empty", "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, incomplete := ReadEventStream([]byte(tc.body))
			if !sameEvents(got, tc.want) || incomplete != tc.incomplete {
				t.Errorf("readEventStream(%q) = %q, %v; want %q, %v", tc.body, got, incomplete, tc.want, tc.incomplete)
			}
		})
	}
}

func sameEvents(a, b []SSEEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || string(a[i].Data) != string(b[i].Data) {
			return false
		}
	}
	return true
}

// sse writes events as a server does: event and data lines, a blank line after each.
func sse(pairs ...string) []SSEEvent {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString("event: " + pairs[i] + "\ndata: " + pairs[i+1] + "\n\n")
	}
	evs, _ := ReadEventStream([]byte(b.String()))
	return evs
}

const (
	evStart = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1,"cache_read_input_tokens":8,"cache_creation_input_tokens":0}}}`
	evDelta = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}`
	evStop  = `{"type":"message_stop"}`
)

// A stream with every kind of block and delta accumulates to the message written out by hand.
func TestStreamAccumulatesEveryBlockKind(t *testing.T) {
	evs := sse(
		"message_start", evStart,
		"ping", `{"type":"ping"}`,
		"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me "}}`,
		"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"think."}}`,
		"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}`,
		"content_block_stop", `{"type":"content_block_stop","index":0}`,
		"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
		"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"It is "}}`,
		"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"sunny","document_index":0,"start_char_index":0,"end_char_index":5}}}`,
		"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"sunny."}}`,
		"content_block_stop", `{"type":"content_block_stop","index":1}`,
		"some_future_event", `{"type":"some_future_event","x":1}`,
		"content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`,
		"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`,
		"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Os"}}`,
		"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"lo\", \"days\": 3}"}}`,
		"content_block_stop", `{"type":"content_block_stop","index":2}`,
		"content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_2","name":"now","input":{}}}`,
		"content_block_stop", `{"type":"content_block_stop","index":3}`,
		"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null,"container":null},"usage":{"output_tokens":42,"input_tokens":null,"cache_read_input_tokens":8}}`,
		"ping", `{"type":"ping"}`,
		"message_stop", evStop,
	)
	got, err := AccumulateMessage(evs)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"content":[` +
		`{"signature":"c2ln","thinking":"Let me think.","type":"thinking"},` +
		`{"citations":[{"cited_text":"sunny","document_index":0,"end_char_index":5,"start_char_index":0,"type":"char_location"}],"text":"It is sunny.","type":"text"},` +
		`{"id":"toolu_1","input":{"city":"Oslo","days":3},"name":"get_weather","type":"tool_use"},` +
		`{"id":"toolu_2","input":{},"name":"now","type":"tool_use"}],` +
		`"id":"msg_1","model":"m","role":"assistant","stop_reason":"tool_use","stop_sequence":null,"type":"message",` +
		`"usage":{"cache_creation_input_tokens":0,"cache_read_input_tokens":8,"input_tokens":12,"output_tokens":42}}`
	if raw, _ := json.Marshal(got.Message); string(raw) != want {
		t.Errorf("accumulated\n%s\nwant\n%s", raw, want)
	}
	wantStart := `{"content":[],"id":"msg_1","model":"m","role":"assistant","stop_reason":null,"stop_sequence":null,"type":"message","usage":{"cache_creation_input_tokens":0,"cache_read_input_tokens":8,"input_tokens":12,"output_tokens":1}}`
	if raw, _ := json.Marshal(got.Start); string(raw) != wantStart {
		t.Errorf("message_start kept as\n%s\nwant\n%s", raw, wantStart)
	}
}

// Each malformed stream is refused, naming what is wrong.
func TestStreamAccumulationRefusesMalformedStreams(t *testing.T) {
	text0 := `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	stop0 := `{"type":"content_block_stop","index":0}`
	for _, tc := range []struct {
		name string
		evs  []SSEEvent
		want string
	}{
		{"a delta for a block never started", sse("message_start", evStart,
			"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}`,
			"message_delta", evDelta, "message_stop", evStop),
			"event 1 (content_block_delta): a delta for block 0, which never started"},
		{"a block started out of order", sse("message_start", evStart,
			"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
			"content_block_stop", `{"type":"content_block_stop","index":1}`, "message_delta", evDelta, "message_stop", evStop),
			"block 1 starts, expected block 0"},
		{"a delta for a stopped block", sse("message_start", evStart, "content_block_start", text0, "content_block_stop", stop0,
			"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"late"}}`),
			"a delta for block 0, which has stopped"},
		{"invalid JSON in data", sse("message_start", evStart, "content_block_start", `{"type":"content_block_start","index":0,`),
			"event 1 (content_block_start): its data is not a JSON object"},
		{"a type that is not the event's name", sse("message_start", evStart, "message_stop", `{"type":"message_delta"}`),
			"event 1 (message_stop): its data carries type message_delta"},
		{"ends without message_stop", sse("message_start", evStart, "content_block_start", text0, "content_block_stop", stop0, "message_delta", evDelta),
			"the stream ends without message_stop"},
		{"no message_start", sse("ping", `{"type":"ping"}`), "the stream has no message_start"},
		{"a block before message_start", sse("content_block_start", text0), "comes before message_start"},
		{"message_stop without message_delta", sse("message_start", evStart, "message_stop", evStop), "comes before any message_delta"},
		{"an event after message_stop", sse("message_start", evStart, "message_delta", evDelta, "message_stop", evStop, "message_delta", evDelta),
			"event 3 (message_delta) comes after message_stop"},
		{"message_delta while a block is open", sse("message_start", evStart, "content_block_start", text0, "message_delta", evDelta),
			"event 2 (message_delta) comes while block 0 is open"},
		{"message_delta while two blocks are open", sse("message_start", evStart, "content_block_start", text0,
			"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`, "message_delta", evDelta),
			"event 3 (message_delta) comes while blocks 0, 1 are open"},
		{"a stop for a block never started", sse("message_start", evStart, "content_block_stop", stop0),
			"event 1 (content_block_stop): a stop for block 0, which is not an open block"},
		{"a thinking delta for a text block", sse("message_start", evStart, "content_block_start", text0,
			"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x"}}`),
			"a thinking_delta for a text block, which has no thinking"},
		{"tool_use input not written {}", sse("message_start", evStart,
			"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{ }}}`),
			"a tool_use block starts with input { }"},
		{"partial JSON that makes no object", sse("message_start", evStart,
			"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}`,
			"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`,
			"content_block_stop", stop0),
			"the partial_json pieces of block 0 do not make a JSON object"},
		{"a text delta for a tool_use block", sse("message_start", evStart,
			"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}`,
			"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`),
			"a text_delta for a tool_use block, which has no text"},
		{"message_start with content", sse("message_start", strings.Replace(evStart, `"content":[]`, `"content":[{"type":"text","text":"x"}]`, 1)),
			"it must be empty"},
		{"two message_starts", sse("message_start", evStart, "message_start", evStart), "a second message_start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := AccumulateMessage(tc.evs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one saying %q", err, tc.want)
			}
		})
	}
}

// Interleaved blocks accumulate, as the SDKs accumulate them, each delta to its own block, and
// are reported: gaps §4 rules them out, and only the grammar check holds a stream to that.
func TestStreamInterleavedBlocksAccumulateAndAreReported(t *testing.T) {
	got, err := AccumulateMessage(sse("message_start", evStart,
		"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"A"}}`,
		"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}`,
		"content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"text","text":"C"}}`,
		"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"k\":"}}`,
		"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"B"}}`,
		"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1}"}}`,
		"content_block_stop", `{"type":"content_block_stop","index":1}`,
		"content_block_stop", `{"type":"content_block_stop","index":0}`,
		"content_block_stop", `{"type":"content_block_stop","index":2}`,
		"message_delta", evDelta, "message_stop", evStop))
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(got.Message["content"]); string(raw) != `[{"text":"AB","type":"text"},{"id":"t","input":{"k":1},"name":"n","type":"tool_use"},{"text":"C","type":"text"}]` {
		t.Errorf("content %s", raw)
	}
	if want := "event 3 (content_block_start): block 1 starts while block 0 is open"; got.Interleaved != want {
		t.Errorf("Interleaved %q, want %q", got.Interleaved, want)
	}
	in, err := AccumulateMessage(sse("message_start", evStart, "message_delta", evDelta, "message_stop", evStop))
	if err != nil || in.Interleaved != "" {
		t.Errorf("a stream without blocks: %v, Interleaved %q", err, in.Interleaved)
	}
}

// An error event mid-stream ends it with the envelope the platform sent.
func TestStreamErrorEventEndsTheStream(t *testing.T) {
	envelope := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	_, err := AccumulateMessage(sse("message_start", evStart,
		"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		"error", envelope))
	var se *StreamError
	if !errors.As(err, &se) || string(se.Envelope) != envelope {
		t.Errorf("error %v; want the stream error %s", err, envelope)
	}
	_, _, err = AccumulateCompletion(sse("completion", `{"type":"completion","completion":"Hi","stop_reason":null,"model":"m"}`, "error", envelope))
	if !errors.As(err, &se) || string(se.Envelope) != envelope {
		t.Errorf("completion: error %v; want the stream error %s", err, envelope)
	}
}

// A streamed legacy completion joins its pieces, takes the last piece's fields and skips pings
// and unknown events.
func TestStreamCompletionJoinsItsPieces(t *testing.T) {
	c, pieces, err := AccumulateCompletion(sse(
		"completion", `{"type":"completion","id":"compl_1","completion":" Hello","stop_reason":null,"model":"m"}`,
		"ping", `{"type":"ping"}`,
		"whatever", `not json`,
		"completion", `{"type":"completion","id":"compl_1","completion":" there.","stop_reason":"stop_sequence","model":"m"}`,
	))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(c)
	if want := `{"completion":" Hello there.","id":"compl_1","model":"m","stop_reason":"stop_sequence","type":"completion"}`; string(raw) != want {
		t.Errorf("got %s, want %s", raw, want)
	}
	if len(pieces) != 2 || pieces[0]["completion"] != " Hello" {
		t.Errorf("pieces %v", pieces)
	}
	if _, _, err := AccumulateCompletion(sse("completion", `{"type":"ping"}`)); err == nil || !strings.Contains(err.Error(), "carries type ping") {
		t.Errorf("a completion event of another type: %v", err)
	}
}

// Whatever a deployment sends, reading and accumulating it ends in events and an error, never a
// panic: the suite reads streams from targets it does not trust.
func FuzzStreamAccumulation(f *testing.F) {
	f.Add("event: message_start\ndata: " + evStart + "\n\nevent: message_delta\ndata: " + evDelta + "\n\nevent: message_stop\ndata: " + evStop + "\n\n")
	f.Add("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":-1}\r\r")
	f.Add("\xef\xbb\xbfdata: [1]\n\nevent: completion\ndata: {\"type\":\"completion\",\"completion\":7}\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		evs, _ := ReadEventStream([]byte(body))
		AccumulateMessage(evs)
		AccumulateCompletion(evs)
	})
}
