package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The recordings of a tape: the file format, what a recording may hold (its bounds, its headers,
// the schemas and stream grammar of its route), and loading a replay directory at start.

// MaxRecordedBytes bounds what one recording holds: a request body, or a response body or stream
// (the data of its events together), over it is passed through to the client but not recorded.
const MaxRecordedBytes = 8 << 20

// MaxRecordingFile bounds a recording file read at start: its two bodies at MaxRecordedBytes
// each, indented.
const MaxRecordingFile = 4 * MaxRecordedBytes

// What a replay loads at start, and what one recording holds (docs/limits.md): start-up time
// and memory are bounded by what is loaded, whatever a directory holds.
const (
	// MaxRecordingFiles bounds the recordings of a replay directory, its namespaces' included.
	MaxRecordingFiles = 10_000
	// MaxRecordingsBytes bounds the bytes of those files together.
	MaxRecordingsBytes = 256 << 20
	// MaxRecordedEvents bounds the events of one recorded stream: a real stream of 8 MiB of event
	// data (MaxRecordedBytes) has far fewer, and each costs a schema check at start.
	MaxRecordedEvents = 100_000
	// MaxOffsetMS bounds an event's offset_ms (an hour; also in the recording schema): a replay
	// at -replay-speed 1 waits that long.
	MaxOffsetMS = 3_600_000
)

// load reads the recordings of dir: its *.json files for the default server, and those of each
// subdirectory for the namespace it names. Their number, their kind (regular files) and their
// bytes, each and together, are checked from the directory and a stat of each before any is
// read; the bytes again as they are read, in case a file grew meanwhile.
func (t *Tape) load(dir string) error {
	type recordingFile struct{ ns, path string }
	var files []recordingFile
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			if filepath.Ext(e.Name()) == ".json" {
				files = append(files, recordingFile{"", filepath.Join(dir, e.Name())})
			}
			continue
		}
		if !core.ValidNamespaceName(e.Name()) {
			return fmt.Errorf("%s: a subdirectory holds a namespace's recordings, and %s", filepath.Join(dir, e.Name()), core.NamespaceGrammar)
		}
		sub, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		for _, f := range sub {
			if !f.IsDir() && filepath.Ext(f.Name()) == ".json" {
				files = append(files, recordingFile{e.Name(), filepath.Join(dir, e.Name(), f.Name())})
			}
		}
		if len(files) > MaxRecordingFiles {
			break // enough to refuse
		}
	}
	if len(files) > MaxRecordingFiles {
		return fmt.Errorf("%s: more than %d recordings (its *.json files and its namespaces'); a replay loads at most %d", dir, MaxRecordingFiles, MaxRecordingFiles)
	}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f.path) // never blocks, a FIFO included
		if err != nil {
			return fmt.Errorf("replay: %w", err) // names the file
		}
		if err := checkRecordingFile(f.path, st); err != nil {
			return err
		}
		total += st.Size()
	}
	if total > MaxRecordingsBytes {
		return fmt.Errorf("%s: its %d recordings hold %d bytes together, more than the %d a replay loads; none was loaded", dir, len(files), total, MaxRecordingsBytes)
	}
	total = 0
	for _, f := range files {
		if err := t.loadFile(f.ns, f.path, &total); err != nil {
			return err
		}
	}
	return nil
}

// checkRecordingFile refuses a file that cannot be a recording from its stat: one that is not a
// regular file, or larger than a recording file is.
func checkRecordingFile(file string, st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s); a recording is a JSON file", file, fileKind(st.Mode()))
	}
	if st.Size() > MaxRecordingFile {
		return fmt.Errorf("%s: the file is larger than %d bytes, more than a recording holds", file, MaxRecordingFile)
	}
	return nil
}

// loadFile reads one recording, a regular file only: a FIFO or a device named x.json is refused
// at once (opened without blocking, then looked at), since reading it could wait forever. total
// counts the bytes of the recordings read so far.
func (t *Tape) loadFile(ns, file string, total *int64) error {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("replay: %w", err) // names the file
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if err := checkRecordingFile(file, st); err != nil {
		return err // it changed since load looked at it
	}
	if *total += st.Size(); *total > MaxRecordingsBytes {
		return fmt.Errorf("%s: the recordings up to this one hold %d bytes, more than the %d a replay loads", file, *total, MaxRecordingsBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxRecordingFile+1))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > MaxRecordingFile {
		return fmt.Errorf("%s: the file is larger than %d bytes, more than a recording holds", file, MaxRecordingFile)
	}
	if err := core.CheckSyntax(file, data); err != nil {
		return err // file:line:column
	}
	return t.add(ns, file, data)
}

// add checks the recording data of file and adds it to the recordings of namespace ns.
func (t *Tape) add(ns, file string, data []byte) error {
	rec, err := ParseRecording(data)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	rec.file = file
	k := ns + "\x00" + rec.key
	if prev := t.byKey[k]; prev != nil {
		return fmt.Errorf("%s: records the same request as %s (method, path, query and canonical body); keep one of them", file, prev.file)
	}
	t.byKey[k] = rec
	return nil
}

// Recording is one recording file: a request and the answer the upstream gave it.
type Recording struct {
	Request  recordedRequest  `json:"request"`
	Response recordedResponse `json:"response"`

	file string
	key  string
	Msg  *wire.Message    `json:"-"` // a successful Messages answer, accumulated when streamed
	comp *wire.Completion // a successful Completions answer, accumulated when streamed
}

type recordedRequest struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Query   string            `json:"query,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    json.RawMessage   `json:"body,omitempty"`
}

type recordedResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    json.RawMessage   `json:"body,omitempty"`
	Events  []recordedEvent   `json:"events,omitempty"`
}

// recordedEvent is one server-sent event and when it arrived, after the response headers.
type recordedEvent struct {
	OffsetMS float64         `json:"offset_ms"`
	Event    string          `json:"event"`
	Data     json.RawMessage `json:"data"`
}

func (r *Recording) Kind() tapeKind {
	k, _ := KindOf(r.Request.Method, r.Request.Path)
	return k
}

// recordedRequestHeaders are the request headers a recording keeps: the version and betas, which
// a reader needs to tell what was asked. Nothing else is written, so no credential can be.
var recordedRequestHeaders = []string{"vendor-version", "anthropic-version", "vendor-beta", "anthropic-beta"}

// keptResponseHeader reports whether a recording keeps a response header: what a client reads
// (the request-id, the content type, rate-limit and retry advice), never a cookie.
func keptResponseHeader(name string) bool {
	switch name = strings.ToLower(name); name {
	case "request-id", "content-type", "retry-after", "retry-after-ms", "x-should-retry":
		return true
	}
	return strings.Contains(name, "ratelimit")
}

// ParseRecording reads a recording and holds it to what the fake could serve. Errors name the
// field of the file: "response.events.3.data.delta.type: ...".
func ParseRecording(data []byte) (*Recording, error) {
	// The number of events first, before decoding them: a []struct{} takes no memory per item.
	var count struct {
		Response struct {
			Events []struct{} `json:"events"`
		} `json:"response"`
	}
	if json.Unmarshal(data, &count) == nil && len(count.Response.Events) > MaxRecordedEvents {
		return nil, fmt.Errorf("response.events: %d events, more than the %d a recording holds", len(count.Response.Events), MaxRecordedEvents)
	}
	if err := core.ValidateBody("messages/recording", data); err != nil {
		return nil, recordingError(err, "")
	}
	rec := &Recording{}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(rec); err != nil {
		return nil, recordingError(core.DecodeError(err), "")
	}
	req, resp := &rec.Request, &rec.Response
	// Compact, as the fake writes JSON: a file is indented for people, and clients compare some
	// bytes of a stream exactly (a tool_use starts with "input":{}).
	req.Body, resp.Body = compactJSON(req.Body), compactJSON(resp.Body)
	for i := range resp.Events {
		resp.Events[i].Data = compactJSON(resp.Events[i].Data)
	}
	k, ok := KindOf(req.Method, req.Path)
	if !ok {
		return nil, fmt.Errorf("request.path: %s %s is not an inference route a tape records (POST /v1/messages, /v1/messages/count_tokens, /v1/complete; GET /v1/models, /v1/models/{id})", req.Method, req.Path)
	}
	for name := range req.Headers {
		if !slices.ContainsFunc(recordedRequestHeaders, equalFold(name)) {
			return nil, fmt.Errorf("request.headers.%s: a recording keeps only %s; credentials and other headers are never written", name, strings.Join(recordedRequestHeaders, ", "))
		}
	}
	for name := range resp.Headers {
		if !keptResponseHeader(name) {
			return nil, fmt.Errorf("response.headers.%s: a recording keeps only request-id, content-type, retry and rate-limit headers", name)
		}
	}
	switch {
	case k.Rt.Body == "" && len(req.Body) > 0:
		return nil, fmt.Errorf("request.body: %s %s takes no body", req.Method, req.Path)
	case k.Rt.Body != "":
		if err := core.ValidateBody(k.Rt.Body, req.Body); err != nil {
			return nil, recordingError(err, "request.body.")
		}
	}
	var err error
	if rec.key, err = RequestKey(req.Method, req.Path, req.Query, req.Body); err != nil {
		return nil, fmt.Errorf("request.%v", err)
	}
	if (len(resp.Body) > 0) == (resp.Events != nil) {
		return nil, errors.New("response: give the body or the events of the answer, one of them")
	}
	if resp.Events != nil {
		return rec, rec.checkEvents(k)
	}
	schema := k.Rt.Schema
	switch {
	case resp.Status >= 400:
		schema = "error"
	case resp.Status != http.StatusOK:
		return nil, fmt.Errorf("response.status: %d; a recording holds a 200 answer or an error (400 or more)", resp.Status)
	}
	if err := core.ValidateBody(schema, resp.Body); err != nil {
		return nil, recordingError(err, "response.body.")
	}
	if resp.Status == http.StatusOK {
		switch k.Name {
		case "messages":
			rec.Msg = &wire.Message{}
			if err = DecodeNumbers(resp.Body, rec.Msg); err == nil {
				err = checkReply(rec.Msg, "response.body.")
			}
		case "complete":
			rec.comp = &wire.Completion{}
			err = DecodeNumbers(resp.Body, rec.comp)
		}
	}
	return rec, err
}

// checkEvents holds a recorded stream to its route's event schema and grammar, and accumulates
// the answer it streamed. A stream may end in an error event, as a real one does when the
// deployment fails mid-answer.
func (rec *Recording) checkEvents(k tapeKind) error {
	evs := rec.Response.Events
	if k.Rt.Events == "" {
		return fmt.Errorf("response.events: %s %s does not stream; give the body", rec.Request.Method, rec.Request.Path)
	}
	if rec.Response.Status != http.StatusOK {
		return fmt.Errorf("response.status: a stream is answered with 200, not %d", rec.Response.Status)
	}
	if len(evs) == 0 {
		return errors.New("response.events: a stream has at least one event")
	}
	stream := make([]wire.StreamEvent, len(evs))
	// The data of events already held to the route's event schema: a stream repeats pings and
	// short deltas, and a schema check costs hundreds of allocations.
	checked := map[string]bool{}
	for i, ev := range evs {
		schema := k.Rt.Events
		if ev.Event == "error" {
			schema = "messages/stream_event"
			if i != len(evs)-1 {
				return fmt.Errorf("response.events.%d: an error event ends a stream; %d events follow it", i, len(evs)-1-i)
			}
		}
		if !checked[string(ev.Data)] || schema != k.Rt.Events {
			if err := core.ValidateBody(schema, ev.Data); err != nil {
				return recordingError(err, fmt.Sprintf("response.events.%d.data.", i))
			}
			if schema == k.Rt.Events && len(ev.Data) <= 256 {
				checked[string(ev.Data)] = true
			}
		}
		var head struct{ Type string }
		if json.Unmarshal(ev.Data, &head); head.Type != ev.Event {
			return fmt.Errorf("response.events.%d.event: %q, but its data has type %q", i, ev.Event, head.Type)
		}
		if i > 0 && ev.OffsetMS < evs[i-1].OffsetMS {
			return fmt.Errorf("response.events.%d.offset_ms: %v is before the previous event's %v", i, ev.OffsetMS, evs[i-1].OffsetMS)
		}
		stream[i] = wire.StreamEvent{Name: ev.Event, Data: ev.Data}
	}
	failed := evs[len(evs)-1].Event == "error"
	if k.Name == "complete" {
		if failed {
			stream = stream[:len(stream)-1]
		}
		comp, err := accumulateCompletion(stream, !failed)
		if err != nil {
			return fmt.Errorf("response.events: %v", err)
		}
		if !failed {
			rec.comp = comp
		}
		return nil
	}
	msg, err := wire.AccumulateMessage(stream)
	var failure *wire.StreamFailure
	switch {
	case failed && !errors.As(err, &failure):
		return fmt.Errorf("response.events: before its error event, the stream breaks the event grammar: %v", err)
	case !failed && err != nil:
		return fmt.Errorf("response.events: %v", err)
	}
	rec.Msg = msg
	if msg != nil {
		return checkReply(msg, "response.events, accumulated: ")
	}
	return nil
}

// checkReply holds a recorded message to the rules a stub's reply is held to (Reply.checkStop):
// stop fields that agree with each other and with the content.
func checkReply(msg *wire.Message, path string) error {
	r := stubs.Reply{Content: msg.Content, StopSequence: msg.StopSequence, StopDetails: msg.StopDetails}
	if msg.StopReason != nil {
		r.StopReason = *msg.StopReason
	}
	if err := stubs.CheckStop(&r, ""); err != nil {
		return recordingError(err, path)
	}
	return nil
}

// accumulateCompletion rebuilds a streamed completion (gaps §5): completion events and pings,
// the stop reason on the last completion event only (when complete).
func accumulateCompletion(events []wire.StreamEvent, complete bool) (*wire.Completion, error) {
	var out *wire.Completion
	for i, ev := range events {
		switch ev.Name {
		case "ping":
			continue
		case "completion":
		default:
			return nil, fmt.Errorf("event %d is %s; a completion stream has completion and ping events", i, ev.Name)
		}
		var piece wire.Completion
		if err := DecodeNumbers(ev.Data, &piece); err != nil {
			return nil, fmt.Errorf("event %d: %v", i, err)
		}
		if out == nil {
			out = &piece
			continue
		}
		if out.StopReason != nil {
			return nil, fmt.Errorf("event %d follows the event that carried the stop reason", i)
		}
		out.Completion += piece.Completion
		out.StopReason = piece.StopReason
	}
	if complete && (out == nil || out.StopReason == nil) {
		return nil, errors.New("the stream ends without an event that carries the stop reason")
	}
	return out, nil
}

func DecodeNumbers(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// recordingError turns a validation error into one naming the field of the recording file.
func recordingError(err error, prefix string) error {
	var ae *core.APIError
	if errors.As(err, &ae) {
		msg := ae.Message
		if rest, ok := strings.CutPrefix(msg, "the request body: "); ok {
			if prefix == "" { // the document itself, which has no field name
				return fmt.Errorf("the file's top level: %s; a recording is an object with request and response", rest)
			}
			return fmt.Errorf("%s%s", strings.TrimSuffix(prefix, "."), ": "+rest)
		}
		return fmt.Errorf("%s%s", prefix, msg)
	}
	return err
}

// equalFold matches strings equal to s under Unicode case folding, as header names compare.
func equalFold(s string) func(string) bool {
	return func(x string) bool { return strings.EqualFold(x, s) }
}

// compactJSON is data without insignificant whitespace; nil stays nil.
func compactJSON(data []byte) []byte {
	if data == nil {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		return data // not JSON: validation says so
	}
	return b.Bytes()
}

// fileKind names what a path that is not a regular file is, for an error message.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.Type().String()
}

// TapeOf is a replaying tape (OnMissError) of the one recording data holds, as file would hold
// it, loaded as OpenTape loads a file but without the file system: the fuzz target of the
// recording format uses it. The error names file.
func TapeOf(file string, data []byte) (*Tape, *Recording, error) {
	t := &Tape{cfg: TapeConfig{OnMiss: OnMissError}, byKey: map[string]*Recording{}}
	if err := t.add("", file, data); err != nil {
		return nil, nil, err
	}
	for _, r := range t.byKey {
		return t, r, nil
	}
	return t, nil, nil
}
