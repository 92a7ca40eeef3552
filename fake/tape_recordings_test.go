package fake

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"
)

// A recorded stream that ends in an error event: the fake's own message_start, then what follows.
const failedStreamStart = `{"offset_ms":0,"event":"message_start","data":{"message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"assistant-opus-4-7","stop_reason":null,"stop_sequence":null,"stop_details":null,"usage":{"input_tokens":5,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard","inference_geo":"global","speed":"standard","output_tokens_details":{"thinking_tokens":0},"iterations":null,"fallback_credit":null},"container":null,"context_management":null,"diagnostics":null},"type":"message_start"}}`

const failedStreamError = `{"offset_ms":2,"event":"error","data":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}}`

func failedStreamRecording(events ...string) []byte {
	return []byte(`{"request":{"method":"POST","path":"/v1/messages","body":{"model":"assistant-opus-4-7","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"Hi"}]}},` +
		`"response":{"status":200,"events":[` + strings.Join(events, ",") + `]}}`)
}

// TestAccumulateMessageTellsAFailedStreamByItsType: a stream that ends in an error event is a
// *streamFailure carrying the event's data, whatever its message; a grammar break before the
// error event is not one.
func TestAccumulateMessageTellsAFailedStreamByItsType(t *testing.T) {
	start := StreamEvent{Name: "message_start", Data: json.RawMessage(`{"type":"message_start","message":{"id":"msg_1"}}`)}
	failed := StreamEvent{Name: "error", Data: json.RawMessage(`{"type":"error","error":{"type":"api_error","message":"x"}}`)}
	_, err := wire.AccumulateMessage([]wire.StreamEvent{start, failed})
	var sf *wire.StreamFailure
	if !errors.As(err, &sf) || string(sf.Data) != `{"type":"error","error":{"type":"api_error","message":"x"}}` {
		t.Errorf("a stream ending in an error event: %v, want a *streamFailure with the event's data", err)
	}
	if want := `the stream failed: {"type":"error","error":{"type":"api_error","message":"x"}}`; err == nil || err.Error() != want {
		t.Errorf("message = %v, want %s", err, want)
	}
	stray := StreamEvent{Name: "content_block_delta", Data: json.RawMessage(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}`)}
	if _, err := wire.AccumulateMessage([]wire.StreamEvent{start, stray, failed}); errors.As(err, &sf) {
		t.Errorf("a grammar break before the error event: %v, want no *streamFailure", err)
	}
}

// TestRecordingOfAFailedStream: a recorded stream that ends in an error event loads; one that
// breaks the event grammar before its error event is refused, saying so.
func TestRecordingOfAFailedStream(t *testing.T) {
	rec, err := tape.ParseRecording(failedStreamRecording(failedStreamStart, failedStreamError))
	if err != nil {
		t.Fatalf("a failed stream: %v, want it loaded", err)
	}
	if rec.Msg != nil {
		t.Errorf("a failed stream accumulated to a message: %+v", rec.Msg)
	}
	stray := `{"offset_ms":1,"event":"content_block_delta","data":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}}`
	_, err = tape.ParseRecording(failedStreamRecording(failedStreamStart, stray, failedStreamError))
	want := "response.events: before its error event, the stream breaks the event grammar: content_block_delta for block 0 while block -1 is open"
	if err == nil || err.Error() != want {
		t.Errorf("a grammar break before the error event: %v\nwant %s", err, want)
	}
}
