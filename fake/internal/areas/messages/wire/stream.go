package wire

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Streaming (gaps §4, §5): server-sent events built from the complete response, so that
// accumulating a stream gives exactly the response the same request gets without streaming.
// The response is computed before the first event (a request error must still be answered as a
// 400, and the events carry the answer's usage and IDs), but the events are built and encoded one
// at a time as they are written: the first leaves without waiting for the last to be made.

// sseEvent is one server-sent event; data carries "type": name.
type SseEvent struct {
	Name string
	Data any
}

// sseStream is a responder that writes events. The first event is flushed at once, so that a
// client sees the stream begin as soon as the request is known valid; the events after it are
// made as fast as the fake can encode them, so they leave in writes of up to streamChunk bytes,
// not one system call each (1,800 events of a long answer were 1,800 writes, most of its time).
// A paced stream (a recording replayed at its speed) waits between events and flushes each one.
// With a violation handler set, every event's data is checked against the event schema of the
// route's line in the table.
type SseStream struct {
	Events iter.Seq[SseEvent]
	Paced  bool
}

// streamChunk is the most a stream holds before writing it out.
const streamChunk = 32 << 10

func (st SseStream) Respond(c *core.Call) {
	c.Header("Content-Type", "text/event-stream")
	c.Header("Cache-Control", "no-cache")
	c.Status(http.StatusOK)
	cut := -1
	var cutBy core.Fault
	if f := c.X.StreamCut; f != nil {
		cutBy = *f
		cut = cutBy.StreamEvents
	}
	e := core.Encoders.Get().(*core.Encoder)
	defer e.Release()
	// flush writes out the events held; false when the client went away.
	flush := func() bool {
		if e.Buf.Len() == 0 {
			return true
		}
		_, err := c.Writer.Write(e.Buf.Bytes())
		e.Buf.Reset()
		c.Writer.Flush()
		return err == nil
	}
	i := 0
	maker := c.Dialect() == core.Maker
	for ev := range st.Events {
		if i == cut {
			if !flush() {
				return
			}
			if cutBy.Status == 0 {
				panic(http.ErrAbortHandler) // the connection drops mid-stream
			}
			writeErrorEvent(c, core.FaultStatusTypes[cutBy.Status], "injected fault "+cutBy.ID)
			return
		}
		i++
		start := e.Buf.Len()
		e.Buf.WriteString("event: " + ev.Name + "\ndata: ")
		dataStart := e.Buf.Len()
		if err := e.Encode(ev.Data); err != nil {
			c.Srv.Report("encoding the %s event of %s: %v", ev.Name, c.Request.URL.Path, err)
			e.Buf.Truncate(start)
			if flush() {
				writeErrorEvent(c, core.ErrAPI, "the fake could not encode its response")
			}
			return
		}
		c.Srv.CheckSchema(c.Context, c.Route.Events, e.Buf.Bytes()[dataStart:e.Buf.Len()-1])
		if maker {
			core.RewriteTail(&e.Buf, dataStart) // the model's name in the request's dialect
		}
		e.Buf.WriteString("\n") // Encode ended the data line; a blank line ends the event
		if (i == 1 || st.Paced || e.Buf.Len() >= streamChunk) && !flush() {
			return
		}
	}
	flush()
}

// A content block's events write their own JSON (jsonAppender): a long answer has thousands.

func (ev blockStartEvent) AppendJSON(dst []byte) ([]byte, error) {
	dst, err := core.AppendJSON(append(dst, `{"content_block":`...), ev.ContentBlock, false, nil)
	if err != nil {
		return nil, err
	}
	return appendIndexType(append(dst, ','), ev.Index, ev.Type), nil
}

func (ev blockDeltaEvent) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"delta":`...)
	if d, ok := ev.Delta.(textDelta); ok {
		dst = core.AppendJSONString(append(dst, `{"text":`...), d.Text, false)
		dst = append(core.AppendJSONString(append(dst, `,"type":`...), d.Type, false), '}')
	} else {
		var err error
		if dst, err = core.AppendJSON(dst, ev.Delta, false, nil); err != nil {
			return nil, err
		}
	}
	return appendIndexType(append(dst, ','), ev.Index, ev.Type), nil
}

func (ev blockStopEvent) AppendJSON(dst []byte) ([]byte, error) {
	return appendIndexType(append(dst, '{'), ev.Index, ev.Type), nil
}

// appendIndexType ends the JSON of a block's event: its index and type, and the closing brace.
func appendIndexType(dst []byte, index int, typ string) []byte {
	dst = strconv.AppendInt(append(dst, `"index":`...), int64(index), 10)
	return append(core.AppendJSONString(append(dst, `,"type":`...), typ, false), '}')
}

// writeErrorEvent ends a stream whose headers are out with an error event carrying the error
// envelope (gaps §4).
func writeErrorEvent(c *core.Call, typ, message string) {
	data, _ := json.Marshal(map[string]any{
		"type":       "error",
		"error":      map[string]string{"type": typ, "message": message},
		"request_id": c.X.RequestID[0],
	})
	c.X.ErrorType = typ
	fmt.Fprintf(c.Writer, "event: error\ndata: %s\n\n", data)
	c.Writer.Flush()
}

// Chunk sizes of deltas: fixed, so that the same response always streams the same way.
const (
	tokensPerDelta = 3
	bytesPerJSON   = 24
)

// BetaThinkingTokenCount is the beta under which thinking deltas carry estimated_tokens.
const BetaThinkingTokenCount = "thinking-token-count-2026-05-13"

// The data of the Messages events, their fields in the order encoding/json writes a map's keys,
// so that each encodes to the bytes the same map would, without a map built and sorted for each
// of a long answer's thousands of events.
type (
	MessageStartEvent struct {
		Message Message `json:"message"`
		Type    string  `json:"type"`
	}
	blockStartEvent struct {
		ContentBlock Block  `json:"content_block"`
		Index        int    `json:"index"`
		Type         string `json:"type"`
	}
	blockDeltaEvent struct {
		Delta any    `json:"delta"` // a map, or a textDelta
		Index int    `json:"index"`
		Type  string `json:"type"`
	}
	// textDelta is a text_delta, of all deltas the most frequent, as a struct rather than a map.
	textDelta struct {
		Text string `json:"text"`
		Type string `json:"type"`
	}
	blockStopEvent struct {
		Index int    `json:"index"`
		Type  string `json:"type"`
	}
	messageDeltaEvent struct {
		ContextManagement *ContextManagement `json:"context_management"`
		Delta             map[string]any     `json:"delta"`
		Type              string             `json:"type"`
		Usage             Usage              `json:"usage"`
	}
	typeOnlyEvent struct {
		Type string `json:"type"`
	}
)

// MessageStream is the event sequence of gaps §4 for msg. With estimate (the thinking token
// count beta), thinking deltas carry estimated_tokens: null while the text is shown, and an
// omitted thinking block streams one delta with no text whose estimate is its hidden tokens.
func MessageStream(msg *Message, estimate bool) SseStream {
	start := *msg
	start.Content = []Block{}
	start.StopReason, start.StopSequence, start.StopDetails = nil, nil, nil
	start.Usage.OutputTokens = 0
	events := func(yield func(SseEvent) bool) {
		if !yield(SseEvent{"message_start", MessageStartEvent{start, "message_start"}}) || !yield(SseEvent{"ping", typeOnlyEvent{"ping"}}) {
			return
		}
		for i, b := range msg.Content {
			first, deltas := splitBlock(b)
			if estimate && b["type"] == "thinking" {
				deltas = estimateThinking(deltas, b, msg.Usage.OutputTokensDetails.ThinkingTokens)
			}
			if !yield(SseEvent{"content_block_start", blockStartEvent{first, i, "content_block_start"}}) {
				return
			}
			for _, d := range deltas {
				if !yield(SseEvent{"content_block_delta", blockDeltaEvent{d, i, "content_block_delta"}}) {
					return
				}
			}
			if !yield(SseEvent{"content_block_stop", blockStopEvent{i, "content_block_stop"}}) {
				return
			}
		}
		delta := map[string]any{"stop_reason": msg.StopReason, "stop_sequence": msg.StopSequence, "stop_details": msg.StopDetails, "container": msg.Container}
		if yield(SseEvent{"message_delta", messageDeltaEvent{msg.ContextManagement, delta, "message_delta", msg.Usage}}) {
			yield(SseEvent{"message_stop", typeOnlyEvent{"message_stop"}})
		}
	}
	return SseStream{Events: events}
}

// splitBlock returns what content_block_start carries for b and the deltas that complete it.
// Blocks without a delta type come whole in the start event.
func splitBlock(b Block) (Block, []any) {
	first := maps.Clone(b)
	var deltas []any
	switch b["type"] {
	case "text":
		first["text"] = ""
		if cs, ok := b["citations"].([]any); ok {
			first["citations"] = []any{}
			for _, c := range cs {
				deltas = append(deltas, map[string]any{"type": "citations_delta", "citation": c})
			}
		}
		for _, t := range ChunkTokens(b["text"].(string)) {
			deltas = append(deltas, textDelta{t, "text_delta"})
		}
	case "thinking":
		first["thinking"], first["signature"] = "", ""
		for _, t := range ChunkTokens(b["thinking"].(string)) {
			deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": t})
		}
		deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": b["signature"]})
	case "tool_use", "server_tool_use", "mcp_tool_use":
		// Written exactly as {}: clients compare these bytes (gaps §4).
		first["input"] = map[string]any{}
		in, _ := json.Marshal(b["input"])
		if string(in) != "{}" {
			for _, p := range chunkBytes(string(in), bytesPerJSON) {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": p})
			}
		}
	}
	return first, deltas
}

// estimateThinking adds estimated_tokens to the thinking deltas of b: null on deltas with text,
// and for a block whose text is omitted, one delta carrying the hidden tokens (the fake makes
// one thinking block a message, so they are all of the message's thinking tokens).
func estimateThinking(deltas []any, b Block, hidden int) []any {
	if b["thinking"] == "" {
		return append([]any{map[string]any{"type": "thinking_delta", "thinking": "", "estimated_tokens": hidden}}, deltas...)
	}
	for _, d := range deltas {
		if d, ok := d.(map[string]any); ok && d["type"] == "thinking_delta" {
			d["estimated_tokens"] = nil
		}
	}
	return deltas
}

// ChunkTokens groups the tokens of s, tokensPerDelta at a time.
// Tokens are consecutive pieces of s, so a group is a substring of s and costs no copy.
func ChunkTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := i
		for range tokensPerDelta {
			if j < len(s) {
				j = TokenEnd(s, j)
			}
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// chunkBytes cuts s into pieces of about n bytes, never inside a UTF-8 sequence.
func chunkBytes(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}
