package fake

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Record and replay: a tape of what a real deployment answered, served by the fake.
//
// Record mode forwards the inference requests (Messages, count_tokens, Completions, Models) that
// no stub answers to an upstream deployment with the client's own credential, passes the answer
// through as it arrives (a stream event by event, flushed), and writes it to one JSON file per
// request. Replay mode answers a request from the recording that matches it. Recordings load
// through parseRecording, which holds them to the same schemas and stream grammar as the fake's
// own answers, so a recording that loads is one the fake can serve; one that does not is refused
// at start with its file, field and reason. The rest of the API keeps being served by the fake's
// state, so a recorded or replayed run stays stateful.

// OnMiss says what a replaying server does with an inference request no recording matches.
type OnMiss string

const (
	// OnMissModel answers as without a tape: stubs, scenarios, the scripted model (the default).
	OnMissModel OnMiss = "model"
	// OnMissError answers 404 not_found_error naming the recording file it expected, so that a
	// test whose requests changed fails loudly.
	OnMissError OnMiss = "error"
	// OnMissUpstream forwards the request to the upstream and records the answer, as record mode.
	OnMissUpstream OnMiss = "upstream"
)

// MaxRecordedBytes bounds what one recording holds: a request body, or a response body or stream
// (the data of its events together), over it is passed through to the client but not recorded.
const MaxRecordedBytes = 8 << 20

// maxRecordingFile bounds a recording file read at start: its two bodies at MaxRecordedBytes
// each, indented.
const maxRecordingFile = 4 * MaxRecordedBytes

// What a replay loads at start, and what one recording holds (README "Limits"): start-up time
// and memory are bounded by what is loaded, whatever a directory holds.
const (
	// maxRecordingFiles bounds the recordings of a replay directory, its namespaces' included.
	maxRecordingFiles = 10_000
	// maxRecordingsBytes bounds the bytes of those files together.
	maxRecordingsBytes = 256 << 20
	// maxRecordedEvents bounds the events of one recorded stream: a real stream of 8 MiB of event
	// data (MaxRecordedBytes) has far fewer, and each costs a schema check at start.
	maxRecordedEvents = 100_000
	// maxOffsetMS bounds an event's offset_ms (an hour; also in the recording schema): a replay
	// at -replay-speed 1 waits that long.
	maxOffsetMS = 3_600_000
)

// TapeConfig configures record and replay. Record and Replay exclude each other: to replay what
// is recorded and record the rest, use Replay with OnMiss OnMissUpstream.
type TapeConfig struct {
	// Upstream is the base URL of the deployment to record from (http or https; a path prefix is
	// kept). It is contacted only with Record, or with OnMiss OnMissUpstream.
	Upstream string
	// Record is the directory to record into: every inference request no stub answers is
	// forwarded, and its answer written there (a namespace's under Record/<namespace>/).
	Record string
	// Replay is the directory of recordings to answer from (a namespace's under
	// Replay/<namespace>/); with OnMissUpstream, new recordings are written there too.
	Replay string
	// OnMiss decides what answers a replayed request no recording matches; "" is OnMissModel.
	OnMiss OnMiss
	// RecordErrors records answers with a status of 400 or more, and streams that end in an
	// error event; without it only successful answers are written.
	RecordErrors bool
	// Speed is the pace of a replayed stream: 0 as fast as possible (the default), 1 as
	// recorded, 2 twice as fast.
	Speed float64
	// Client sends the upstream requests; nil is a client of its own with no overall timeout,
	// since a stream lasts as long as it lasts. The request's context still ends it.
	Client *http.Client
}

// Tape is a loaded record and replay configuration (OpenTape), for WithTape. It is safe for
// concurrent use; recordings made while serving are added to it.
type Tape struct {
	cfg      TapeConfig
	upstream *url.URL
	dir      string // where recordings are written; "" when nothing is recorded
	client   *http.Client

	mu    sync.RWMutex
	byKey map[string]*recording // namespace + "\x00" + request key
}

// OpenTape checks cfg and loads the recordings of cfg.Replay. A recording that the fake could not
// serve as it is (outside the schemas of its route, events out of the stream grammar, a
// credential in it, two files for one request) is an error naming the file, the field and the
// reason.
func OpenTape(cfg TapeConfig) (*Tape, error) {
	t := &Tape{cfg: cfg, client: cfg.Client, byKey: map[string]*recording{}}
	if t.client == nil {
		t.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	switch cfg.OnMiss {
	case "":
		t.cfg.OnMiss = OnMissModel
	case OnMissModel, OnMissError, OnMissUpstream:
	default:
		return nil, fmt.Errorf("on-miss: %q is not one of model, error, upstream", cfg.OnMiss)
	}
	switch {
	case cfg.Record != "" && cfg.Replay != "":
		return nil, errors.New("record and replay exclude each other; to replay what is recorded and record the rest, replay with on-miss upstream")
	case cfg.Record == "" && cfg.Replay == "":
		return nil, errors.New("a tape needs a directory to record into or to replay from")
	case cfg.Record != "" && cfg.OnMiss != "" && cfg.OnMiss != OnMissModel:
		return nil, errors.New("on-miss applies to replay only")
	case cfg.Speed < 0:
		return nil, fmt.Errorf("speed: want 0 (as fast as possible) or a positive factor, got %v", cfg.Speed)
	}
	t.dir = cfg.Record
	if t.cfg.OnMiss == OnMissUpstream {
		t.dir = cfg.Replay
	}
	if t.dir != "" {
		if cfg.Upstream == "" {
			return nil, errors.New("upstream: recording needs the URL of the deployment to record from")
		}
		u, err := url.Parse(cfg.Upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			return nil, fmt.Errorf("upstream: %q is not an http or https base URL", cfg.Upstream)
		}
		t.upstream = u
		// A copy, so that a client the caller shares keeps its own policy.
		client := *t.client
		client.CheckRedirect = sameOriginRedirects(u, client.CheckRedirect)
		t.client = &client
		if err := os.MkdirAll(t.dir, 0o755); err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
	}
	if cfg.Replay != "" {
		if err := t.load(cfg.Replay); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// WithTape records or replays inference requests as t says (see OpenTape).
func WithTape(t *Tape) Option { return func(c *config) { c.tape = t } }

// load reads the recordings of dir: its *.json files for the default server, and those of each
// subdirectory for the namespace it names. Their number is checked before any is read, and their
// bytes as they are read.
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
		if !validNamespaceName(e.Name()) {
			return fmt.Errorf("%s: a subdirectory holds a namespace's recordings, and %s", filepath.Join(dir, e.Name()), namespaceGrammar)
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
		if len(files) > maxRecordingFiles {
			break // enough to refuse
		}
	}
	if len(files) > maxRecordingFiles {
		return fmt.Errorf("%s: more than %d recordings (its *.json files and its namespaces'); a replay loads at most %d", dir, maxRecordingFiles, maxRecordingFiles)
	}
	var total int64
	for _, f := range files {
		if err := t.loadFile(f.ns, f.path, &total); err != nil {
			return err
		}
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
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s); a recording is a JSON file", file, fileKind(st.Mode()))
	}
	if st.Size() > maxRecordingFile {
		return fmt.Errorf("%s: the file is larger than %d bytes, more than a recording holds", file, maxRecordingFile)
	}
	if *total += st.Size(); *total > maxRecordingsBytes {
		return fmt.Errorf("%s: the recordings up to this one hold %d bytes, more than the %d a replay loads", file, *total, maxRecordingsBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRecordingFile+1))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > maxRecordingFile {
		return fmt.Errorf("%s: the file is larger than %d bytes, more than a recording holds", file, maxRecordingFile)
	}
	if err := checkSyntax(file, data); err != nil {
		return err // file:line:column
	}
	return t.add(ns, file, data)
}

// add checks the recording data of file and adds it to the recordings of namespace ns.
func (t *Tape) add(ns, file string, data []byte) error {
	rec, err := parseRecording(data)
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

func (t *Tape) lookup(ns, key string) *recording {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.byKey[ns+"\x00"+key]
}

// fileFor is where the recording of a request is written: named for the request (its route,
// words of its last user text, a hash of its canonical form), so that re-recording one test
// rewrites its own files only.
func (t *Tape) fileFor(dir, ns string, rec *recording) string {
	if ns != "" {
		dir = filepath.Join(dir, ns)
	}
	return filepath.Join(dir, rec.kind().name+slug(rec)+"-"+rec.key[:16]+".json")
}

// slug is up to five words of the last user text of a Messages request, for a file name a person
// can find.
func slug(rec *recording) string {
	if rec.kind().name != "messages" {
		return ""
	}
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(rec.Request.Body, &body) != nil || len(body.Messages) == 0 {
		return ""
	}
	last := body.Messages[len(body.Messages)-1]
	var text string
	if json.Unmarshal(last.Content, &text) != nil {
		var blocks []struct{ Type, Text string }
		_ = json.Unmarshal(last.Content, &blocks)
		for _, b := range blocks {
			if b.Type == "text" {
				text += " " + b.Text
			}
		}
	}
	if last.Role != "user" {
		return ""
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') })
	if len(words) == 0 {
		return ""
	}
	s := "-" + strings.Join(words[:min(len(words), 5)], "-")
	return s[:min(len(s), 48)]
}

// tapeKind is what the tape knows of an inference route: its name in file names and the route
// table's line, for the schemas a recording is held to.
type tapeKind struct {
	name string
	rt   *route
}

// tapedRoutes are the routes a tape records and replays, by the pattern of the route table.
var tapedRoutes = map[string]string{
	"/v1/messages":              "messages",
	"/v1/messages/count_tokens": "count_tokens",
	"/v1/complete":              "complete",
	"/v1/models":                "models",
	"/v1/models/:model_id":      "model",
}

// tapeKinds holds the taped routes by method and pattern. It is filled by init, since the route
// table's handlers reach back here.
var tapeKinds = map[string]tapeKind{}

func init() {
	for _, rt := range routes() {
		if name, ok := tapedRoutes[rt.path]; ok {
			tapeKinds[rt.method+" "+rt.path] = tapeKind{name, rt}
		}
	}
}

// kindOf finds the taped route of a request path; ok is false for any other.
func kindOf(method, path string) (tapeKind, bool) {
	pattern := path
	if id, ok := strings.CutPrefix(path, "/v1/models/"); ok && id != "" && !strings.Contains(id, "/") {
		pattern = "/v1/models/:model_id"
	}
	k, ok := tapeKinds[method+" "+pattern]
	return k, ok
}

// taped reports whether the route is one a tape records and replays.
func (t *Tape) taped(rt *route) bool { return t != nil && tapedRoutes[rt.path] != "" }

// ignoredFields are the top-level body fields that do not change an answer: a request that
// differs from a recording's only in them matches it. stream only shapes delivery (a recorded
// stream answers a plain request and the other way round), and metadata only tags the request.
var ignoredFields = []string{"stream", "metadata"}

// requestKey is the canonical form of a request, hashed: its method, path, query parameters in
// name order and body with keys in order, without whitespace or ignoredFields. Numbers keep their
// digits.
func requestKey(method, path, query string, body []byte) (string, error) {
	var v any
	if len(bytes.TrimSpace(body)) > 0 {
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return "", fmt.Errorf("body: %v", err)
		}
	}
	return requestKeyOf(method, path, query, v)
}

// requestKeyOf is requestKey of a body already decoded (numbers as json.Number; nil for no
// body), which it does not change.
func requestKeyOf(method, path, query string, v any) (string, error) {
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("query: %v", err)
	}
	if m, ok := v.(map[string]any); ok {
		kept := make(map[string]any, len(m))
		for k, x := range m {
			if !slices.Contains(ignoredFields, k) {
				kept[k] = x
			}
		}
		v = kept
	}
	canon, _ := json.Marshal(v) // map keys in order: canonical; nil is null
	sum := sha256.New()
	fmt.Fprintf(sum, "%s %s?%s\n", method, path, q.Encode())
	sum.Write(canon)
	return hex.EncodeToString(sum.Sum(nil)), nil
}

// recording is one recording file: a request and the answer the upstream gave it.
type recording struct {
	Request  recordedRequest  `json:"request"`
	Response recordedResponse `json:"response"`

	file string
	key  string
	msg  *Message    // a successful Messages answer, accumulated when streamed
	comp *completion // a successful Completions answer, accumulated when streamed
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

func (r *recording) kind() tapeKind {
	k, _ := kindOf(r.Request.Method, r.Request.Path)
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

// parseRecording reads a recording and holds it to what the fake could serve. Errors name the
// field of the file: "response.events.3.data.delta.type: ...".
func parseRecording(data []byte) (*recording, error) {
	// The number of events first, before decoding them: a []struct{} takes no memory per item.
	var count struct {
		Response struct {
			Events []struct{} `json:"events"`
		} `json:"response"`
	}
	if json.Unmarshal(data, &count) == nil && len(count.Response.Events) > maxRecordedEvents {
		return nil, fmt.Errorf("response.events: %d events, more than the %d a recording holds", len(count.Response.Events), maxRecordedEvents)
	}
	if err := validateBody("messages/recording", data); err != nil {
		return nil, recordingError(err, "")
	}
	rec := &recording{}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(rec); err != nil {
		return nil, recordingError(decodeError(err), "")
	}
	req, resp := &rec.Request, &rec.Response
	// Compact, as the fake writes JSON: a file is indented for people, and clients compare some
	// bytes of a stream exactly (a tool_use starts with "input":{}).
	req.Body, resp.Body = compactJSON(req.Body), compactJSON(resp.Body)
	for i := range resp.Events {
		resp.Events[i].Data = compactJSON(resp.Events[i].Data)
	}
	k, ok := kindOf(req.Method, req.Path)
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
	case k.rt.body == "" && len(req.Body) > 0:
		return nil, fmt.Errorf("request.body: %s %s takes no body", req.Method, req.Path)
	case k.rt.body != "":
		if err := validateBody(k.rt.body, req.Body); err != nil {
			return nil, recordingError(err, "request.body.")
		}
	}
	var err error
	if rec.key, err = requestKey(req.Method, req.Path, req.Query, req.Body); err != nil {
		return nil, fmt.Errorf("request.%v", err)
	}
	if (len(resp.Body) > 0) == (resp.Events != nil) {
		return nil, errors.New("response: give the body or the events of the answer, one of them")
	}
	if resp.Events != nil {
		return rec, rec.checkEvents(k)
	}
	schema := k.rt.schema
	switch {
	case resp.Status >= 400:
		schema = "error"
	case resp.Status != http.StatusOK:
		return nil, fmt.Errorf("response.status: %d; a recording holds a 200 answer or an error (400 or more)", resp.Status)
	}
	if err := validateBody(schema, resp.Body); err != nil {
		return nil, recordingError(err, "response.body.")
	}
	if resp.Status == http.StatusOK {
		switch k.name {
		case "messages":
			rec.msg = &Message{}
			if err = decodeNumbers(resp.Body, rec.msg); err == nil {
				err = checkReply(rec.msg, "response.body.")
			}
		case "complete":
			rec.comp = &completion{}
			err = decodeNumbers(resp.Body, rec.comp)
		}
	}
	return rec, err
}

// checkEvents holds a recorded stream to its route's event schema and grammar, and accumulates
// the answer it streamed. A stream may end in an error event, as a real one does when the
// deployment fails mid-answer.
func (rec *recording) checkEvents(k tapeKind) error {
	evs := rec.Response.Events
	if k.rt.events == "" {
		return fmt.Errorf("response.events: %s %s does not stream; give the body", rec.Request.Method, rec.Request.Path)
	}
	if rec.Response.Status != http.StatusOK {
		return fmt.Errorf("response.status: a stream is answered with 200, not %d", rec.Response.Status)
	}
	if len(evs) == 0 {
		return errors.New("response.events: a stream has at least one event")
	}
	stream := make([]StreamEvent, len(evs))
	// The data of events already held to the route's event schema: a stream repeats pings and
	// short deltas, and a schema check costs hundreds of allocations.
	checked := map[string]bool{}
	for i, ev := range evs {
		schema := k.rt.events
		if ev.Event == "error" {
			schema = "messages/stream_event"
			if i != len(evs)-1 {
				return fmt.Errorf("response.events.%d: an error event ends a stream; %d events follow it", i, len(evs)-1-i)
			}
		}
		if !checked[string(ev.Data)] || schema != k.rt.events {
			if err := validateBody(schema, ev.Data); err != nil {
				return recordingError(err, fmt.Sprintf("response.events.%d.data.", i))
			}
			if schema == k.rt.events && len(ev.Data) <= 256 {
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
		stream[i] = StreamEvent{Name: ev.Event, Data: ev.Data}
	}
	failed := evs[len(evs)-1].Event == "error"
	if k.name == "complete" {
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
	msg, err := AccumulateMessage(stream)
	switch {
	case failed && (err == nil || !strings.HasPrefix(err.Error(), "the stream failed")):
		return fmt.Errorf("response.events: before its error event, the stream breaks the event grammar: %v", err)
	case !failed && err != nil:
		return fmt.Errorf("response.events: %v", err)
	}
	rec.msg = msg
	if msg != nil {
		return checkReply(msg, "response.events, accumulated: ")
	}
	return nil
}

// checkReply holds a recorded message to the rules a stub's reply is held to (Reply.checkStop):
// stop fields that agree with each other and with the content.
func checkReply(msg *Message, path string) error {
	r := Reply{Content: msg.Content, StopSequence: msg.StopSequence, StopDetails: msg.StopDetails}
	if msg.StopReason != nil {
		r.StopReason = *msg.StopReason
	}
	if err := r.checkStop(""); err != nil {
		return recordingError(err, path)
	}
	return nil
}

// accumulateCompletion rebuilds a streamed completion (gaps §5): completion events and pings,
// the stop reason on the last completion event only (when complete).
func accumulateCompletion(events []StreamEvent, complete bool) (*completion, error) {
	var out *completion
	for i, ev := range events {
		switch ev.Name {
		case "ping":
			continue
		case "completion":
		default:
			return nil, fmt.Errorf("event %d is %s; a completion stream has completion and ping events", i, ev.Name)
		}
		var piece completion
		if err := decodeNumbers(ev.Data, &piece); err != nil {
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

func decodeNumbers(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// recordingError turns a validation error into one naming the field of the recording file.
func recordingError(err error, prefix string) error {
	var ae *apiError
	if errors.As(err, &ae) {
		msg := ae.message
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

// save writes rec as the recording of ns and adds it to the tape, after holding it to what
// loading it would: a recording written is one the next start loads. secrets are replaced
// in every string of it, whatever its escapes, should an upstream echo one (redactJSON). It
// returns the file written.
func (t *Tape) save(ns string, rec *recording, secrets []string) (string, error) {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return "", err
	}
	data = redactJSON(data, secrets)
	checked, err := parseRecording(data)
	if err != nil {
		return "", err
	}
	file := t.fileFor(t.dir, ns, checked)
	checked.file = file
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	// Written whole, then renamed: a reader never sees half a recording.
	tmp, err := os.CreateTemp(filepath.Dir(file), ".recording-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	t.mu.Lock()
	t.byKey[ns+"\x00"+checked.key] = checked
	t.mu.Unlock()
	return file, nil
}

// tapeRequest is what the tape matches a request by: its body as sent and the key of the body
// the handler decoded. taped is false on a route the tape does not serve, or without a tape.
type tapeRequest struct {
	taped  bool
	data   []byte
	key    string
	keyErr error
}

// tapeRequestOf is the tape's view of a request whose body decoded to v; the key is worked out
// only when the tape serves the route.
func (s *Server) tapeRequestOf(c *call, data []byte, v any) tapeRequest {
	if !s.cfg.tape.taped(c.route) {
		return tapeRequest{}
	}
	r := c.Request
	tr := tapeRequest{taped: true, data: data}
	tr.key, tr.keyErr = requestKeyOf(r.Method, r.URL.Path, r.URL.RawQuery, v)
	return tr
}

// tapePick is the tape's answer to a request, as the choose stage picked it: a recording to
// replay, or the upstream to forward to (recording, or a miss with -on-miss upstream).
type tapePick struct {
	rec     *recording
	forward []byte // the body to forward, when forwarding
	miss    error  // a miss that -on-miss error answers
}

// tapePick says whether the tape answers the request, and how: nil when the fake is to answer
// as it does without one.
func (s *Server) tapePick(c *call, tr tapeRequest) *tapePick {
	t := s.cfg.tape
	if !tr.taped {
		return nil
	}
	r := c.Request
	if t.cfg.Record != "" {
		return &tapePick{forward: tr.data}
	}
	if tr.keyErr != nil {
		return nil // the fake's own validation answers it
	}
	rec := t.lookup(s.nsName, tr.key)
	if rec == nil {
		switch t.cfg.OnMiss {
		case OnMissError:
			probe := &recording{Request: recordedRequest{Method: r.Method, Path: r.URL.Path, Body: tr.data}, key: tr.key}
			return &tapePick{miss: newError(errNotFound, "no recording matches %s %s: replaying from %s, it would be %s; record it with -record and -upstream, or replay with -on-miss model",
				r.Method, r.URL.Path, t.cfg.Replay, t.fileFor(t.cfg.Replay, s.nsName, probe))}
		case OnMissUpstream:
			return &tapePick{forward: tr.data}
		}
		return nil
	}
	return &tapePick{rec: rec}
}

// answerFromTape answers as the tape picked: forwarded, or replayed; msg is the replayed
// message the fake numbered, for the commit stage (nil otherwise).
func (s *Server) answerFromTape(c *call, pick *tapePick, req *messageRequest, plan *cachePlan, stream bool) (any, *Message, error) {
	switch {
	case pick.miss != nil:
		return nil, nil, pick.miss
	case pick.rec == nil:
		v, err := s.forward(c, pick.forward)
		return v, nil, err
	}
	return s.replay(c, pick.rec, req, plan, stream)
}

// fromTape answers a request without a body (the models routes) from the tape: ok is false when
// the fake is to answer as it does without one.
func (s *Server) fromTape(c *call) (any, bool, error) {
	pick := s.tapePick(c, s.tapeRequestOf(c, nil, nil))
	if pick == nil {
		return nil, false, nil
	}
	v, _, err := s.answerFromTape(c, pick, nil, nil, false)
	return v, true, err
}

// replay answers from a recording. What the fake numbers follows its own rules, so a replay is
// as deterministic as any answer of the fake: the request-id, the message or completion id, and
// usage (the input tokens count_tokens counts, split by the request's cache plan, which the
// commit stage then writes; output tokens from the content); so does count_tokens, whose
// recording only tells the request was expected.
func (s *Server) replay(c *call, rec *recording, req *messageRequest, plan *cachePlan, stream bool) (any, *Message, error) {
	resp := rec.Response
	for k, v := range resp.Headers {
		if !strings.EqualFold(k, "request-id") && !strings.EqualFold(k, "content-type") {
			c.Header(k, v)
		}
	}
	if resp.Status >= 400 {
		return recordedError{resp.Status, resp.Body}, nil, nil
	}
	speed := s.cfg.tape.cfg.Speed
	switch rec.kind().name {
	case "count_tokens":
		return map[string]int{"input_tokens": req.layout.total}, nil, nil
	case "models", "model":
		return json.RawMessage(resp.Body), nil, nil
	case "complete":
		id := s.ids.next("compl_")
		switch {
		case stream && resp.Events != nil:
			return replayedStream(c, rec, speed, func(name string, data json.RawMessage) json.RawMessage {
				if name == "completion" {
					return setFields(data, map[string]any{"id": id})
				}
				return data
			}), nil, nil
		case rec.comp == nil: // a stream that failed
			return nil, nil, failedStream(rec)
		}
		comp := *rec.comp
		comp.ID = id
		if stream {
			return completionStream(comp), nil, nil
		}
		return comp, nil, nil
	}
	if rec.msg == nil { // a stream that failed: its events as recorded, under the fake's id
		if !stream {
			return nil, nil, failedStream(rec)
		}
		id := s.ids.next("msg_")
		return replayedStream(c, rec, speed, func(name string, data json.RawMessage) json.RawMessage {
			if name == "message_start" {
				var d struct{ Message json.RawMessage }
				_ = json.Unmarshal(data, &d)
				return setFields(data, map[string]any{"message": setFields(d.Message, map[string]any{"id": id})})
			}
			return data
		}), nil, nil
	}
	msg := *rec.msg
	msg.Content = cloneBlocks(msg.Content)
	msg.ID = s.ids.next("msg_")
	setUsage(&msg, req, plan)
	switch {
	case stream && resp.Events != nil:
		return replayedStream(c, rec, speed, func(name string, data json.RawMessage) json.RawMessage {
			switch name {
			case "message_start":
				start := msg.Usage
				start.OutputTokens = 0
				var d struct{ Message json.RawMessage }
				_ = json.Unmarshal(data, &d)
				return setFields(data, map[string]any{"message": setFields(d.Message, map[string]any{"id": msg.ID, "usage": start})})
			case "message_delta":
				return setFields(data, map[string]any{"usage": msg.Usage})
			}
			return data
		}), &msg, nil
	case stream:
		return messageStream(&msg, c.hasBeta(betaThinkingTokenCount)), &msg, nil
	}
	return &msg, &msg, nil
}

// failedStream is the error a recorded stream ended with, for a request that does not stream:
// the envelope with the status of its type.
func failedStream(rec *recording) error {
	evs := rec.Response.Events
	var d struct {
		Error struct{ Type, Message string }
	}
	_ = json.Unmarshal(evs[len(evs)-1].Data, &d)
	if _, known := statusOf[d.Error.Type]; !known {
		d.Error.Type = errAPI
	}
	return newError(d.Error.Type, "%s", d.Error.Message)
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

// recordedError answers a recorded error: its status and envelope, with the request_id of this
// answer.
type recordedError struct {
	status int
	body   json.RawMessage
}

func (e recordedError) respond(c *call) {
	var env map[string]any
	_ = json.Unmarshal(e.body, &env)
	env["request_id"] = c.GetString(requestIDKey)
	c.srv.writeJSON(c.Context, e.status, "error", env)
}

// replayedStream serves a recorded stream with its event boundaries, each event's data changed
// by rewrite (the fake's ids and usage), and an error event's request_id this answer's. At speed
// s > 0 an event leaves at its recorded offset divided by s, counted from the first; a client
// that goes away ends the wait.
func replayedStream(c *call, rec *recording, speed float64, rewrite func(name string, data json.RawMessage) json.RawMessage) sseStream {
	ctx := c.Request.Context()
	evs := rec.Response.Events
	return sseStream{events: func(yield func(sseEvent) bool) {
		start := time.Now()
		for _, ev := range evs {
			if speed > 0 {
				due := time.Duration((ev.OffsetMS - evs[0].OffsetMS) / speed * float64(time.Millisecond))
				timer := time.NewTimer(due - time.Since(start))
				select {
				case <-ctx.Done():
					timer.Stop()
					return
				case <-timer.C:
				}
			}
			data := rewrite(ev.Event, ev.Data)
			if ev.Event == "error" {
				data = setFields(data, map[string]any{"request_id": c.GetString(requestIDKey)})
			}
			if !yield(sseEvent{ev.Event, data}) {
				return
			}
		}
	}}
}

// setFields returns the JSON object obj with the values of the keys in set replaced (or added at
// the end), every other key kept in its place and its bytes: a replayed event differs from its
// recording only where the fake's rules say.
func setFields(obj json.RawMessage, set map[string]any) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(obj))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return obj
	}
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(key string, v json.RawMessage) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	done := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		key, _ := t.(string)
		var v json.RawMessage
		if err != nil || d.Decode(&v) != nil {
			return obj
		}
		if nv, ok := set[key]; ok {
			v, _ = json.Marshal(nv)
			done[key] = true
		}
		field(key, v)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !done[k] {
			v, _ := json.Marshal(set[k])
			field(k, v)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// hopHeaders are not forwarded either way: they belong to one connection. Accept-Encoding is
// left to the upstream client, which then decompresses what it receives, so that recordings hold
// the JSON itself.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Host", "Content-Length", "Accept-Encoding", "Content-Encoding"}

// forward sends the request to the upstream with the client's headers (its credential among
// them, but no cookie and none of the fake's own), and returns the answer to pass through.
func (s *Server) forward(c *call, body []byte) (any, error) {
	t := s.cfg.tape
	r := c.Request
	u := *t.upstream
	u.Path = strings.TrimSuffix(u.Path, "/") + r.URL.Path
	u.RawPath = ""
	u.RawQuery = r.URL.RawQuery
	up, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, newError(errAPI, "the upstream request cannot be built: %v", err)
	}
	up.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		up.Header.Del(h)
	}
	up.Header.Del("Cookie")
	for name := range up.Header {
		if strings.HasPrefix(name, "Fake-") {
			up.Header.Del(name)
		}
	}
	if len(body) == 0 {
		up.Body = nil
	}
	resp, err := t.client.Do(up)
	if err != nil {
		if r.Context().Err() != nil {
			panic(http.ErrAbortHandler) // the client went away: nobody to answer
		}
		var re *redirectError
		if errors.As(err, &re) {
			return nil, newError(errAPI, "%s", re.reason)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL and operation, which the message says
		}
		return nil, newError(errAPI, "the upstream %s did not answer: %v", t.upstream.Host, err)
	}
	rec := &recording{Request: recordedRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}}
	if len(body) > 0 {
		rec.Request.Body = body
	}
	for _, h := range recordedRequestHeaders {
		if v := r.Header.Get(h); v != "" {
			if rec.Request.Headers == nil {
				rec.Request.Headers = map[string]string{}
			}
			rec.Request.Headers[h] = v
		}
	}
	p := &passThrough{resp: resp, rec: rec, secrets: secretsOf(r.Header)}
	if len(body) > MaxRecordedBytes {
		p.drop("the request body is over the limit of %d bytes", MaxRecordedBytes)
	}
	return p, nil
}

// redirectError is an upstream redirect the recorder refused to follow: to another origin, where
// the client's credential must not go, or one too many.
type redirectError struct{ reason string }

func (e *redirectError) Error() string { return e.reason }

// sameOriginRedirects is the upstream client's redirect policy: a redirect is followed only within
// the upstream's origin (scheme, host and port), at most 10 in a row, and then by next (the
// caller's own policy), if any. net/http would carry X-Api-Key (and Authorization to a subdomain)
// to any host a redirect names.
func sameOriginRedirects(upstream *url.URL, next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if origin(req.URL) != origin(upstream) {
			return &redirectError{fmt.Sprintf("the upstream redirected to %s, another origin than %s; the recorder follows redirects within the upstream's origin only, so that the client's credential reaches no other host", req.URL.Redacted(), origin(upstream))}
		}
		if len(via) >= 10 {
			return &redirectError{"the upstream redirected 10 times in a row; the recorder stops there"}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}

// origin is scheme://host:port of u, the port written out even when it is the scheme's default.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// passThrough writes an upstream answer to the client as it arrives and records it: a stream
// event by event, each flushed as soon as its blank line arrives, a body chunk by chunk.
type passThrough struct {
	resp    *http.Response
	rec     *recording
	secrets []string
	// unrecordable says why the answer is passed through but not recorded ("" while it is
	// recorded): over MaxRecordedBytes, or not an event stream the grammar reads.
	unrecordable string
	// held is the end of the answer, the last chunk of a body or the event that ends a stream,
	// written only once the recording is: a client that has the whole answer (and may stop
	// reading there) finds its recording written.
	held []byte
}

func (p *passThrough) respond(c *call) {
	resp := p.resp
	defer resp.Body.Close()
	h := c.Writer.Header()
	for name, vs := range resp.Header {
		if !slices.ContainsFunc(hopHeaders, equalFold(name)) {
			h[name] = vs
		}
	}
	c.Status(resp.StatusCode)
	kept := map[string]string{}
	for name := range resp.Header {
		if keptResponseHeader(name) {
			kept[strings.ToLower(name)] = resp.Header.Get(name)
		}
	}
	p.rec.Response = recordedResponse{Status: resp.StatusCode, Headers: kept}
	began := time.Now()
	var err error
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		err = p.copyEvents(c, began)
	} else {
		err = p.copyBody(c)
	}
	if err != nil {
		p.drop("%v", err)
	}
	p.finish(c)
	if len(p.held) > 0 {
		_, _ = c.Writer.Write(p.held)
		c.Writer.Flush()
	}
}

// finish writes the recording, or logs why there is none.
func (p *passThrough) finish(c *call) {
	if p.unrecordable != "" {
		c.srv.tapeLog("not recorded", p.rec, p.unrecordable)
		return
	}
	failed := p.resp.StatusCode >= 400
	if evs := p.rec.Response.Events; len(evs) > 0 && evs[len(evs)-1].Event == "error" {
		failed = true
	}
	if failed && !c.srv.cfg.tape.cfg.RecordErrors {
		return
	}
	file, err := c.srv.cfg.tape.save(c.srv.nsName, p.rec, p.secrets)
	if err != nil {
		c.srv.tapeLog("not recorded", p.rec, err.Error())
		return
	}
	c.srv.tapeLog("recorded", p.rec, file)
}

// copyEvents passes a stream through event by event: each is written and flushed as soon as the
// blank line that ends it arrives. It returns an error when the upstream or the client broke off,
// since a cut stream is no recording.
func (p *passThrough) copyEvents(c *call, began time.Time) error {
	br := bufio.NewReaderSize(p.resp.Body, 64<<10)
	var event bytes.Buffer
	size := 0
	for {
		line, err := br.ReadSlice('\n')
		event.Write(line)
		ended := err == nil && len(bytes.TrimRight(line, "\r\n")) == 0 // a blank line ends an event
		if event.Len() > MaxRecordedBytes {
			// Too long to hold: pass it on as it comes, and record nothing.
			p.drop("an event is over the limit of %d bytes", MaxRecordedBytes)
			ended = true
		}
		if ended || (err != nil && err != bufio.ErrBufferFull) {
			at := time.Since(began)
			evs, perr := ParseEventStream(event.Bytes())
			if len(p.held) > 0 && len(bytes.TrimSpace(event.Bytes())) > 0 { // the stream went on after what looked like its end
				if _, werr := c.Writer.Write(p.held); werr != nil {
					return fmt.Errorf("the client went away: %v", werr)
				}
				p.held = nil
			}
			if len(evs) == 1 && endsStream(evs[0]) {
				p.held = bytes.Clone(event.Bytes())
			} else {
				if _, werr := c.Writer.Write(event.Bytes()); werr != nil {
					return fmt.Errorf("the client went away: %v", werr)
				}
				c.Writer.Flush()
			}
			if p.unrecordable == "" {
				if perr != nil {
					p.drop("the upstream sent an event outside the event-stream grammar: %v", perr)
				}
				for _, ev := range evs {
					size += len(ev.Data)
					p.rec.Response.Events = append(p.rec.Response.Events, recordedEvent{
						OffsetMS: float64(at.Microseconds()) / 1000, Event: ev.Name, Data: ev.Data})
				}
				switch {
				case size > MaxRecordedBytes:
					p.drop("the stream is over the limit of %d bytes", MaxRecordedBytes)
				case len(p.rec.Response.Events) > maxRecordedEvents:
					p.drop("the stream is over the limit of %d events", maxRecordedEvents)
				case at.Milliseconds() > maxOffsetMS:
					p.drop("the stream lasted over the limit of %d ms", maxOffsetMS)
				}
			}
			event.Reset()
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil && err != bufio.ErrBufferFull:
			return fmt.Errorf("the upstream broke off the stream: %v", err)
		}
	}
}

// endsStream reports whether ev is the last event of a stream: message_stop, an error, or the
// completion that carries the stop reason.
func endsStream(ev StreamEvent) bool {
	switch ev.Name {
	case "message_stop", "error":
		return true
	case "completion":
		var d struct {
			StopReason *string `json:"stop_reason"`
		}
		return json.Unmarshal(ev.Data, &d) == nil && d.StopReason != nil
	}
	return false
}

// drop gives up the recording, saying why, and lets go of what it held.
func (p *passThrough) drop(format string, args ...any) {
	if p.unrecordable == "" {
		p.unrecordable = fmt.Sprintf(format, args...)
	}
	p.rec.Response.Events, p.rec.Response.Body = nil, nil
}

// copyBody passes a body through chunk by chunk, keeping it for the recording while it fits.
func (p *passThrough) copyBody(c *call) error {
	var kept bytes.Buffer
	buf := make([]byte, 32<<10)
	for {
		n, err := p.resp.Body.Read(buf)
		if n > 0 {
			if len(p.held) > 0 { // the chunk before was not the last: out it goes
				if _, werr := c.Writer.Write(p.held); werr != nil {
					return fmt.Errorf("the client went away: %v", werr)
				}
				c.Writer.Flush()
			}
			p.held = append(p.held[:0], buf[:n]...)
			if p.unrecordable == "" && kept.Len()+n > MaxRecordedBytes {
				p.drop("the body is over the limit of %d bytes", MaxRecordedBytes)
				kept = bytes.Buffer{}
			}
			if p.unrecordable == "" {
				kept.Write(buf[:n])
			}
		}
		if err == io.EOF {
			if p.unrecordable == "" {
				p.rec.Response.Body = bytes.Clone(bytes.TrimSpace(kept.Bytes()))
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("the upstream broke off the body: %v", err)
		}
	}
}

// tapeLog tells what the tape did with an answer on the server's logger; an answer not
// recorded is told on the default logger when the server has none, since it must not go
// unnoticed.
func (s *Server) tapeLog(what string, rec *recording, detail string) {
	l, level := s.logger, slog.LevelInfo
	if what != "recorded" {
		level = slog.LevelWarn
		if l == nil {
			l = slog.Default()
		}
	}
	if l == nil {
		return
	}
	l.Log(context.Background(), level, "tape: "+what, "method", rec.Request.Method, "path", rec.Request.Path, "namespace", s.nsName, "detail", detail)
}

// upstreamCredential lets a credential the fixtures do not know through to a taped route: it is
// the upstream's to judge when recording, and a replayed suite runs with the configuration it
// recorded with, real key included. A request without any credential is still refused with
// err, as are the fake's own credentials sent where they do not belong.
func upstreamCredential(r *http.Request, ifc *iface, err error) (*credential, string, error) {
	var ae *apiError
	if !errors.As(err, &ae) || ae.typ != errAuthentication {
		return nil, "", err
	}
	for _, h := range ifc.headers() {
		if presented(r, h) != "" {
			return &credential{Kind: kindAPIKey, Name: "upstream credential"}, h, nil
		}
	}
	return nil, "", err
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
