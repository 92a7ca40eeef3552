package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The suite's own reading of event streams, written from the rules a client follows and
// independent of the fake's emitter: a bug the fake's emitter shared with a parser of its own
// would otherwise pass on both sides. ReadEventStream is the WHATWG HTML "server-sent events"
// interpretation of a text/event-stream body; AccumulateMessage and AccumulateCompletion are what
// the official SDKs make of the events of a streamed Create a Message and a streamed legacy
// completion (EXTENSIONS.md, "Reading event streams"), with the order of gaps §4 held on the way.

// SSEEvent is one dispatched server-sent event: its type (the last `event:` field, "message"
// when there was none) and its data (the `data:` fields joined with \n).
type SSEEvent struct {
	Name string
	Data []byte
}

// ReadEventStream splits body into the events a browser's EventSource would dispatch. Lines end
// in CRLF, LF or CR; one leading byte-order mark is skipped; a line starting with a colon is a
// comment; a field's value loses one leading space; `data` fields accumulate, joined with \n;
// `id`, `retry` and unknown fields are ignored; a blank line dispatches the event, unless it has
// no data. What follows the last blank line is not dispatched (the standard discards it, as the
// SDKs do); incomplete reports whether that tail held data: an event a client never sees.
func ReadEventStream(body []byte) (events []SSEEvent, incomplete bool) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	var name string
	var data bytes.Buffer
	hasData := false
	for len(body) > 0 {
		end := bytes.IndexAny(body, "\r\n")
		if end < 0 {
			// An unterminated last line is never processed: the standard discards it.
			field, _, _ := bytes.Cut(body, []byte(":"))
			return events, hasData || string(field) == "data"
		}
		line := body[:end]
		if body[end] == '\r' && end+1 < len(body) && body[end+1] == '\n' {
			end++
		}
		body = body[end+1:]
		switch {
		case len(line) == 0:
			if hasData {
				ev := SSEEvent{Name: name, Data: bytes.Clone(bytes.TrimSuffix(data.Bytes(), []byte("\n")))}
				if ev.Name == "" {
					ev.Name = "message"
				}
				events = append(events, ev)
			}
			name, hasData = "", false
			data.Reset()
			continue
		case line[0] == ':':
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			data.Write(value)
			data.WriteByte('\n')
			hasData = true
		}
	}
	return events, hasData
}

// A StreamError is an `error` event of a stream: the platform failed after the headers were
// sent. Envelope is its data, the error envelope of an answer that was not streamed.
type StreamError struct{ Envelope []byte }

func (e *StreamError) Error() string {
	return "the stream carried an error event: " + string(e.Envelope)
}

// DecodeObject decodes a JSON object, numbers kept as json.Number so that they compare exactly.
func DecodeObject(raw []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	return m, nil
}

// StreamedMessage is what a client makes of the events of a streamed Create a Message.
type StreamedMessage struct {
	Start   map[string]any // the message of message_start, as it came
	Message map[string]any // the message the events accumulate to
	// Interleaved describes the first block that started while another was open, "" when none
	// did: the SDKs accumulate such a stream, gaps §4 rules it out.
	Interleaved string
}

// openBlock is a started block whose stop has not come: the field its deltas grow (text,
// thinking or input) and what they have grown it to so far.
type openBlock struct {
	field string
	grown strings.Builder
}

// AccumulateMessage rebuilds the message a streamed Create a Message delivered, as the SDKs'
// accumulators do, and returns the first departure from the grammar of gaps §4 as an error:
//   - `ping` is skipped anywhere, an `error` event ends the stream (a *StreamError), an event of
//     a type it does not know is ignored (clients must ignore new event types);
//   - every other event's data is a JSON object whose "type" is the event's name;
//   - message_start comes first, once, with empty content; its message is the base, usage included;
//   - blocks start in index order from 0: content_block_start for the next index only; deltas
//     and the stop for a started block that has not stopped; a tool_use starts with input
//     written exactly {} (clients compare those bytes). A block that starts while another is
//     open is accumulated, as the SDKs do, and reported in Interleaved;
//   - text_delta appends to a text block's text, thinking_delta to a thinking block's thinking,
//     signature_delta to its signature, citations_delta adds its citation to the block's
//     citations, input_json_delta's partial_json pieces join to the block's input, which must be
//     a JSON object at the block's stop (none: the {} it started with); unknown deltas are ignored;
//   - message_delta, after every block stopped: its delta's stop_reason, stop_sequence and
//     stop_details replace the message's, its other non-null fields are set; each non-null count
//     of its usage replaces the message's (cumulative totals; message_start keeps the others);
//   - message_stop, after message_delta, ends the message: no event but ping may follow, and a
//     stream without it is incomplete.
func AccumulateMessage(events []SSEEvent) (*StreamedMessage, error) {
	var out StreamedMessage
	var msg map[string]any
	var content []any
	open := map[int]*openBlock{}
	deltaSeen, stopped := false, false
	for i, ev := range events {
		switch ev.Name {
		case "ping":
			continue
		case "error":
			return &out, &StreamError{Envelope: ev.Data}
		case "message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop":
		default:
			continue
		}
		where := fmt.Sprintf("event %d (%s)", i, ev.Name)
		d, err := DecodeObject(ev.Data)
		if err != nil {
			return &out, fmt.Errorf("%s: its data is not a JSON object: %v: %s", where, err, ev.Data)
		}
		if d["type"] != ev.Name {
			return &out, fmt.Errorf("%s: its data carries type %v, not the event's name", where, d["type"])
		}
		if stopped {
			return &out, fmt.Errorf("%s comes after message_stop", where)
		}
		if msg == nil && ev.Name != "message_start" {
			return &out, fmt.Errorf("%s comes before message_start; message_start must come first", where)
		}
		index, hasIndex := -1, false
		if n, ok := d["index"].(json.Number); ok {
			if v, err := n.Int64(); err == nil && v >= 0 {
				index, hasIndex = int(v), true
			}
		}
		switch ev.Name {
		case "message_start":
			if msg != nil {
				return &out, fmt.Errorf("%s: a second message_start", where)
			}
			m, ok := d["message"].(map[string]any)
			if !ok {
				return &out, fmt.Errorf("%s carries no message object", where)
			}
			if c, ok := m["content"].([]any); !ok || len(c) != 0 {
				return &out, fmt.Errorf("%s: the message starts with content %v; it must be empty", where, m["content"])
			}
			start, _ := DecodeObject(MustMarshal(m))
			out.Start, msg, content = start, m, []any{}
		case "content_block_start":
			if !hasIndex {
				return &out, fmt.Errorf("%s carries no index", where)
			}
			if index != len(content) {
				return &out, fmt.Errorf("%s: block %d starts, expected block %d; blocks start in index order from 0", where, index, len(content))
			}
			cb, ok := d["content_block"].(map[string]any)
			if !ok {
				return &out, fmt.Errorf("%s carries no content_block object", where)
			}
			if cb["type"] == "tool_use" {
				var raw struct {
					ContentBlock struct{ Input json.RawMessage } `json:"content_block"`
				}
				json.Unmarshal(ev.Data, &raw)
				if string(raw.ContentBlock.Input) != "{}" {
					return &out, fmt.Errorf("%s: a tool_use block starts with input %s; it must be written exactly {}", where, raw.ContentBlock.Input)
				}
			}
			if len(open) > 0 && out.Interleaved == "" {
				out.Interleaved = fmt.Sprintf("%s: block %d starts while %s open", where, index, openList(open))
			}
			content = append(content, cb)
			open[index] = &openBlock{}
		case "content_block_delta":
			if !hasIndex || index >= len(content) {
				return &out, fmt.Errorf("%s: a delta for block %v, which never started", where, d["index"])
			}
			ob := open[index]
			if ob == nil {
				return &out, fmt.Errorf("%s: a delta for block %d, which has stopped", where, index)
			}
			delta, ok := d["delta"].(map[string]any)
			if !ok {
				return &out, fmt.Errorf("%s carries no delta object", where)
			}
			cb := content[index].(map[string]any)
			field, piece := "", ""
			switch delta["type"] {
			case "text_delta":
				field, piece = "text", StringOf(delta["text"])
			case "thinking_delta":
				field, piece = "thinking", StringOf(delta["thinking"])
			case "input_json_delta":
				field, piece = "input", StringOf(delta["partial_json"])
			case "signature_delta":
				if cb["type"] != "thinking" {
					return &out, fmt.Errorf("%s: a signature_delta for a %v block", where, cb["type"])
				}
				cb["signature"] = StringOf(cb["signature"]) + StringOf(delta["signature"])
				continue
			case "citations_delta":
				if cb["type"] != "text" {
					return &out, fmt.Errorf("%s: a citations_delta for a %v block", where, cb["type"])
				}
				list, _ := cb["citations"].([]any)
				cb["citations"] = append(list, delta["citation"])
				continue
			default:
				continue
			}
			if _, ok := cb[field]; !ok {
				return &out, fmt.Errorf("%s: a %v for a %v block, which has no %s", where, delta["type"], cb["type"], field)
			}
			if ob.field == "" {
				if field != "input" {
					ob.grown.WriteString(StringOf(cb[field]))
				}
				ob.field = field
			} else if ob.field != field {
				return &out, fmt.Errorf("%s: a %v for block %d, whose deltas grew its %s", where, delta["type"], index, ob.field)
			}
			ob.grown.WriteString(piece)
		case "content_block_stop":
			ob := open[index]
			if !hasIndex || ob == nil {
				return &out, fmt.Errorf("%s: a stop for block %v, which is not an open block", where, d["index"])
			}
			cb := content[index].(map[string]any)
			switch ob.field {
			case "":
			case "input":
				in, err := DecodeObject([]byte(ob.grown.String()))
				if err != nil {
					return &out, fmt.Errorf("%s: the partial_json pieces of block %d do not make a JSON object: %v: %s", where, index, err, ob.grown.String())
				}
				cb["input"] = in
			default:
				cb[ob.field] = ob.grown.String()
			}
			delete(open, index)
		case "message_delta":
			if len(open) > 0 {
				return &out, fmt.Errorf("%s comes while %s open", where, openList(open))
			}
			delta, ok := d["delta"].(map[string]any)
			if !ok {
				return &out, fmt.Errorf("%s carries no delta object", where)
			}
			for k, v := range delta {
				if v != nil || k == "stop_reason" || k == "stop_sequence" || k == "stop_details" {
					msg[k] = v
				}
			}
			if u, ok := d["usage"].(map[string]any); ok {
				mu, _ := msg["usage"].(map[string]any)
				if mu == nil {
					mu = map[string]any{}
					msg["usage"] = mu
				}
				for k, v := range u {
					if v != nil {
						mu[k] = v
					}
				}
			}
			deltaSeen = true
		case "message_stop":
			if !deltaSeen {
				return &out, fmt.Errorf("%s comes before any message_delta; the stop reason never came", where)
			}
			stopped = true
		}
	}
	if msg == nil {
		return &out, fmt.Errorf("the stream has no message_start")
	}
	msg["content"] = content
	out.Message = msg
	if !stopped {
		return &out, fmt.Errorf("the stream ends without message_stop")
	}
	return &out, nil
}

// AccumulateCompletion joins the pieces of a streamed legacy completion (gaps §5), as a client
// does: `completion` events carry pieces of the text, `ping` is skipped, an `error` event ends
// the stream (a *StreamError), other events are ignored. It returns the completion with the
// joined text and the fields of its last piece, and the data of each piece in order; a piece
// whose data is not a JSON object of type completion is an error.
func AccumulateCompletion(events []SSEEvent) (completion map[string]any, pieces []map[string]any, err error) {
	var text strings.Builder
	for i, ev := range events {
		switch ev.Name {
		case "completion":
		case "error":
			return completion, pieces, &StreamError{Envelope: ev.Data}
		default:
			continue
		}
		d, err := DecodeObject(ev.Data)
		if err != nil {
			return completion, pieces, fmt.Errorf("event %d (completion): its data is not a JSON object: %v: %s", i, err, ev.Data)
		}
		if d["type"] != "completion" {
			return completion, pieces, fmt.Errorf("event %d (completion): its data carries type %v, not the event's name", i, d["type"])
		}
		pieces = append(pieces, d)
		text.WriteString(StringOf(d["completion"]))
		completion = d
	}
	if completion != nil {
		completion = maps.Clone(completion)
		completion["completion"] = text.String()
	}
	return completion, pieces, nil
}

// openList names the open blocks, in index order: "block 2 is", "blocks 0, 2 are".
func openList(open map[int]*openBlock) string {
	idx := slices.Sorted(maps.Keys(open))
	if len(idx) == 1 {
		return fmt.Sprintf("block %d is", idx[0])
	}
	return "blocks " + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(idx)), ", "), "[]") + " are"
}

func StringOf(v any) string { s, _ := v.(string); return s }

func MustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
