package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Reading a stream, as a client does. Exported so that tests of clients and the package's own
// tests can hold a stream against the grammar of gaps §4 and compare what it accumulates to with
// a response. The conformance suite reads streams with a reader of its own, so that a defect this
// reader shared with the fake's emitter could not pass on both sides.

// StreamEvent is the face's StreamEvent (package fake), which documents it.
type StreamEvent struct {
	Name string
	Data json.RawMessage
}

// ParseEventStream is the face's ParseEventStream (package fake), which documents it.
func ParseEventStream(body []byte) ([]StreamEvent, error) {
	var out []StreamEvent
	text := strings.ReplaceAll(string(body), "\r\n", "\n")
	for _, chunk := range strings.Split(strings.TrimSpace(text), "\n\n") {
		var ev StreamEvent
		for _, line := range strings.Split(chunk, "\n") {
			switch {
			case strings.HasPrefix(line, "event:"):
				ev.Name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:"):
				if ev.Data != nil {
					return nil, fmt.Errorf("event %q has more than one data line", chunk)
				}
				ev.Data = json.RawMessage(strings.TrimSpace(strings.TrimPrefix(line, "data:")))
			}
		}
		if ev.Name == "" && ev.Data == nil {
			continue // only comments, which keep a connection alive
		}
		var head struct{ Type string }
		if ev.Name == "" || json.Unmarshal(ev.Data, &head) != nil {
			return nil, fmt.Errorf("event %q lacks an event: line or JSON data", chunk)
		}
		if head.Type != ev.Name {
			return nil, fmt.Errorf("event %s carries type %q", ev.Name, head.Type)
		}
		out = append(out, ev)
	}
	return out, nil
}

// AccumulateMessage is the face's AccumulateMessage (package fake), which documents it.
func AccumulateMessage(events []StreamEvent) (*Message, error) {
	var msg map[string]any
	content := []any{}
	var partial strings.Builder
	// The text and thinking of the open block, joined once at its stop: adding each delta to a
	// string would copy the block's text again for every delta (quadratic in a long stream).
	grown := map[string]*strings.Builder{}
	open := -1
	for i, ev := range events {
		var d map[string]any
		dec := json.NewDecoder(bytes.NewReader(ev.Data))
		dec.UseNumber()
		if err := dec.Decode(&d); err != nil {
			return nil, fmt.Errorf("event %d (%s): %v", i, ev.Name, err)
		}
		if ev.Name != "ping" && (i == 0) != (ev.Name == "message_start") {
			return nil, fmt.Errorf("event %d is %s; message_start must come first, once", i, ev.Name)
		}
		idx := -1
		if n, ok := d["index"].(json.Number); ok {
			v, _ := n.Int64()
			idx = int(v)
		}
		switch ev.Name {
		case "ping":
		case "message_start":
			msg, _ = d["message"].(map[string]any)
		case "content_block_start":
			if open != -1 || idx != len(content) {
				return nil, fmt.Errorf("content_block_start of block %d while block %d is open and %d are done", idx, open, len(content))
			}
			cb, _ := d["content_block"].(map[string]any)
			if cb["type"] == "tool_use" && !bytes.Contains(ev.Data, []byte(`"input":{}`)) {
				return nil, fmt.Errorf("content_block_start of a tool_use must carry input exactly {}: %s", ev.Data)
			}
			content = append(content, cb)
			open = idx
			partial.Reset()
			clear(grown)
		case "content_block_delta":
			if idx != open || open == -1 {
				return nil, fmt.Errorf("content_block_delta for block %d while block %d is open", idx, open)
			}
			if err := applyDelta(content[open].(map[string]any), d["delta"].(map[string]any), &partial, grown); err != nil {
				return nil, fmt.Errorf("block %d: %v", idx, err)
			}
		case "content_block_stop":
			if idx != open || open == -1 {
				return nil, fmt.Errorf("content_block_stop for block %d while block %d is open", idx, open)
			}
			for field, b := range grown {
				content[open].(map[string]any)[field] = b.String()
			}
			if partial.Len() > 0 {
				var in any
				dec := json.NewDecoder(strings.NewReader(partial.String()))
				dec.UseNumber()
				if err := dec.Decode(&in); err != nil {
					return nil, fmt.Errorf("block %d: the partial_json pieces do not make JSON: %v", idx, err)
				}
				content[open].(map[string]any)["input"] = in
			}
			open = -1
		case "message_delta":
			if open != -1 {
				return nil, fmt.Errorf("message_delta while block %d is open", open)
			}
			for k, v := range d["delta"].(map[string]any) {
				msg[k] = v
			}
			msg["usage"] = d["usage"]
		case "message_stop":
			if i != len(events)-1 {
				return nil, fmt.Errorf("message_stop is event %d of %d; it must be last", i, len(events))
			}
		case "error":
			return nil, &StreamFailure{ev.Data}
		default:
			return nil, fmt.Errorf("unknown event %s", ev.Name)
		}
	}
	if msg == nil || len(events) == 0 || events[len(events)-1].Name != "message_stop" {
		return nil, fmt.Errorf("the stream does not end with message_stop")
	}
	msg["content"] = content
	raw, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	var out Message
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("the accumulated message does not have the shape of a message: %v", err)
	}
	return &out, nil
}

// StreamFailure is AccumulateMessage's error for a stream that ends in an error event, the
// deployment failing mid-answer, as against one that breaks the event grammar before it.
type StreamFailure struct{ Data json.RawMessage }

func (e *StreamFailure) Error() string { return fmt.Sprintf("the stream failed: %s", e.Data) }

// applyDelta adds one content_block_delta to the block it belongs to.
func applyDelta(cb, d map[string]any, partial *strings.Builder, grown map[string]*strings.Builder) error {
	str := func(k string) string { s, _ := d[k].(string); return s }
	field := map[string]string{"text_delta": "text", "thinking_delta": "thinking"}[fmt.Sprint(d["type"])]
	switch d["type"] {
	case "text_delta", "thinking_delta":
		prev, ok := cb[field].(string)
		if !ok {
			return fmt.Errorf("%s on a %s block", d["type"], cb["type"])
		}
		b := grown[field]
		if b == nil {
			b = &strings.Builder{}
			b.WriteString(prev)
			grown[field] = b
		}
		b.WriteString(str(field))
	case "signature_delta":
		cb["signature"] = str("signature")
	case "citations_delta":
		list, _ := cb["citations"].([]any)
		cb["citations"] = append(list, d["citation"])
	case "input_json_delta":
		partial.WriteString(str("partial_json"))
	default:
		return fmt.Errorf("unknown delta %v", d["type"])
	}
	return nil
}
