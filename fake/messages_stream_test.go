package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// flushRecorder keeps what had been written at each Flush.
type flushRecorder struct {
	*httptest.ResponseRecorder
	writes  int
	flushed []string
}

func (r *flushRecorder) Write(p []byte) (int, error) {
	r.writes++
	return r.ResponseRecorder.Write(p)
}

func (r *flushRecorder) Flush() {
	r.flushed = append(r.flushed, r.Body.String())
	r.ResponseRecorder.Flush()
}

// A stream's first event leaves on its own, flushed before the second is made; the rest of a long
// answer leaves in writes of up to 32 KiB, not one per event.
func TestStreamFlushesTheFirstEventThenWritesInChunks(t *testing.T) {
	var docs []any
	for i := range 200 {
		docs = append(docs, map[string]any{"type": "document", "citations": map[string]any{"enabled": true},
			"source": map[string]any{"type": "text", "media_type": "text/plain", "data": fmt.Sprintf("Document %d says that the weather in town %d was mild and dry all week long. More follows.", i, i)}})
	}
	body, _ := json.Marshal(msgBody("stream", true, "max_tokens", 32000,
		"messages", []any{map[string]any{"role": "user", "content": append(docs, map[string]any{"type": "text", "text": "Summarise."})}}))
	req := httptest.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(body))
	req.Header.Set("X-Api-Key", "test-api-key")
	req.Header.Set("vendor-version", core.APIVersion)
	req.Header.Set("Content-Type", "application/json")
	w := &flushRecorder{ResponseRecorder: httptest.NewRecorder()}
	New().ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if len(w.flushed) == 0 {
		t.Fatal("the stream was never flushed")
	}
	if strings.Count(w.flushed[0], "event: ") != 1 || !strings.HasPrefix(w.flushed[0], "event: message_start\n") {
		t.Fatalf("the first of %d flushes held %d events, want the message_start event alone", len(w.flushed), strings.Count(w.flushed[0], "event: "))
	}
	events := strings.Count(w.Body.String(), "event: ")
	// 1 write for the first event, then one per 32 KiB: the answer is about 300 KB.
	maxWrites := 2 + w.Body.Len()/(32<<10)
	if events < 1000 || w.writes > maxWrites {
		t.Errorf("%d events in %d writes of %d bytes; want over 1,000 events in at most %d writes", events, w.writes, w.Body.Len(), maxWrites)
	}
}
