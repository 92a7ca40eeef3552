package openapicheck

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/platformkit/platformkit/conformance"
	"github.com/platformkit/platformkit/fake"
)

// exchange is one request the fake answered, as it was sent and as it was answered.
type exchange struct {
	method, url string
	reqHeader   http.Header
	reqBody     []byte
	status      int
	header      http.Header
	body        []byte
}

// recorder serves the fake and keeps a copy of every exchange it completes. A handler that
// aborts (a fault that drops the connection) leaves no exchange: there is no answer to check.
type recorder struct {
	h         http.Handler
	mu        sync.Mutex
	exchanges []exchange
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqBody, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	tw := &teeWriter{ResponseWriter: w}
	rec.h.ServeHTTP(tw, r)
	status := tw.status
	if status == 0 {
		status = http.StatusOK
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.exchanges = append(rec.exchanges, exchange{
		method: r.Method, url: r.URL.String(), reqHeader: r.Header.Clone(), reqBody: reqBody,
		status: status, header: w.Header().Clone(), body: tw.body.Bytes(),
	})
}

// teeWriter passes a response through and keeps a copy of its status and body. It flushes, so
// streams reach the client as they are written, and unwraps, so the fake can still reach the
// connection.
type teeWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *teeWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *teeWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(p)
	return w.ResponseWriter.Write(p)
}

func (w *teeWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestConformanceRunMatchesDocuments runs every conformance check against the fake and checks
// every exchange against the OpenAPI documents with kin-openapi: each answer's status,
// headers and body against its operation (each event of a stream against the event schema), and
// each request the fake accepted (2xx) against the operation's parameters, security and body. So
// the documents describe what the fake does, and a change to one without the other fails here.
func TestConformanceRunMatchesDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole conformance suite")
	}
	rec := &recorder{h: fake.New(fake.WithViolationHandler(func(msg string) { t.Errorf("the fake reported a bug in itself: %s", msg) }))}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	cfg := conformance.ConfigFromEnv(func(string) string { return "" })
	cfg.BaseURL = srv.URL
	ctx := context.Background()
	tg, err := conformance.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range conformance.Checks() {
		if o := conformance.RunCheck(ctx, tg, c); len(o.Failures) > 0 {
			t.Errorf("conformance check %s failed against the fake: %v", c.ID, o.Failures)
		}
	}

	api, control := load(t, "openapi.json"), load(t, "openapi-control.json")
	// The exchanges are checked on every core: kin compiles a schema for each value it checks,
	// which makes checking the run take longer than the run.
	type result struct {
		op       string
		problems []string
	}
	results := make([]result, len(rec.exchanges))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				x := rec.exchanges[i]
				// The namespace server (/ns/{namespace}) is taken off the path here, as a
				// client would put it on; the router routes paths alone (see load).
				x.url = nsPrefix.ReplaceAllString(x.url, "")
				d := api
				if strings.HasPrefix(x.url, "/_fake/") {
					d = control
				}
				results[i].op, results[i].problems = check(d, x)
			}
		})
	}
	for i := range rec.exchanges {
		next <- i
	}
	close(next)
	wg.Wait()
	exercised, streams := map[string]bool{}, 0
	for i, x := range rec.exchanges {
		if strings.HasPrefix(x.header.Get("Content-Type"), "text/event-stream") {
			streams++
		}
		exercised[results[i].op] = true
		for _, p := range results[i].problems {
			t.Errorf("%s %s → %d: %s", x.method, nsPrefix.ReplaceAllString(x.url, ""), x.status, p)
		}
	}
	var missed []string
	for _, d := range []*document{api, control} {
		for _, op := range d.operations() {
			if !exercised[op] {
				missed = append(missed, op)
			}
		}
	}
	if streams == 0 {
		t.Error("the conformance run streamed nothing, so no event was checked against the documents")
	}
	t.Logf("%d exchanges (%d streams) checked; operations the conformance run does not exercise: %v", len(rec.exchanges), streams, missed)
}

// nsPrefix is the prefix of a namespace's base URL.
var nsPrefix = regexp.MustCompile(`^/ns/[^/]+`)

func init() {
	// The documents describe a stream under text/event-stream with the schema of one event; the
	// check validates each event's data, which is a JSON document, on its own.
	openapi3filter.RegisterBodyDecoder("text/event-stream", openapi3filter.JSONBodyDecoder)
}

// options are what ValidateRequest and ValidateResponse check beyond their defaults.
var options = func() *openapi3filter.Options {
	o := &openapi3filter.Options{
		MultiError:                        true, // every problem, not the first
		IncludeResponseStatus:             true, // an answer's status must be one the operation lists
		RejectWhenRequestBodyNotSpecified: true, // a body sent to an operation that takes none
		SkipSettingDefaults:               true, // validate the request as sent, without defaults added
		AuthenticationFunc:                credentialsInPlace,
	}
	o.WithCustomSchemaErrorFunc(schemaProblem)
	return o
}()

// schemaProblem says where a value does not match its schema and why, without the schema and
// the value, which kin's own message prints in full.
func schemaProblem(err *openapi3.SchemaError) string {
	if err.Reason == "" {
		return "" // kin's own message
	}
	if p := err.JSONPointer(); len(p) > 0 {
		return fmt.Sprintf("at /%s: %s", strings.Join(p, "/"), err.Reason)
	}
	return err.Reason // JSON Schema 2020-12's, which says where
}

// credentialsInPlace passes a security scheme when the request carries a credential where the
// scheme says: an apiKey's header, or Authorization: Bearer for an http bearer scheme. Whether
// the credential is right is the fake's business, tested with the conformance suite; here the
// document must name a scheme that the accepted request used.
func credentialsInPlace(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	s, h := in.SecurityScheme, in.RequestValidationInput.Request.Header
	switch {
	case s.Type == "apiKey" && s.In == "header":
		if h.Get(s.Name) == "" {
			return fmt.Errorf("no %s header", s.Name)
		}
		return nil
	case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"):
		if scheme, token, _ := strings.Cut(h.Get("Authorization"), " "); !strings.EqualFold(scheme, "Bearer") || token == "" {
			return errors.New("no Authorization: Bearer header")
		}
		return nil
	}
	return fmt.Errorf("security scheme %s (%s) is not one this check knows", in.SecuritySchemeName, s.Type)
}

// check validates one exchange; op is "METHOD /path/template" of the operation it matched, ""
// for a path the document does not have, which the fake must have answered 404 or 405.
func check(d *document, x exchange) (op string, problems []string) {
	ctx := context.Background()
	req := func() *http.Request {
		r := httptest.NewRequest(x.method, x.url, bytes.NewReader(x.reqBody))
		r.Header = x.reqHeader.Clone()
		// The document names the headers in the reference's words; a client of the maker's
		// sends them as anthropic-*, which the API reads alike (vendor-* decides when both are
		// sent): the request is checked as the reference's.
		for _, h := range []string{"Version", "Beta"} {
			if maker := r.Header.Values("Anthropic-" + h); len(maker) > 0 && r.Header.Get("Vendor-"+h) == "" {
				r.Header["Vendor-"+h] = maker
			}
		}
		return r
	}
	route, pathParams, err := d.router.FindRoute(req())
	if err != nil {
		if x.status == http.StatusNotFound || x.status == http.StatusMethodNotAllowed {
			return "", nil
		}
		return "", []string{"the document has no such operation:\n" + describe(err)}
	}
	op = x.method + " " + route.Path
	if x.status/100 == 2 {
		r := req()
		r.URL.RawQuery = bareArrayNames(r.URL.Query()).Encode()
		for k, vs := range r.Header {
			// A repeated header is its values joined with commas (RFC 9110, 5.3); kin reads
			// only the first value of a header that is not an array.
			r.Header[k] = []string{strings.Join(vs, ", ")}
		}
		in := &openapi3filter.RequestValidationInput{Request: r, PathParams: pathParams, Route: route, Options: options}
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			problems = append(problems, "the fake accepted a request the document does not allow:\n"+describe(err))
		}
	}
	bodies := [][]byte{x.body}
	if strings.HasPrefix(x.header.Get("Content-Type"), "text/event-stream") {
		bodies = eventData(x.body)
		if len(bodies) == 0 {
			problems = append(problems, "a stream without events")
		}
	}
	for _, body := range bodies {
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req(), PathParams: pathParams, Route: route, Options: options},
			Status:                 x.status,
			Header:                 x.header,
			Body:                   io.NopCloser(bytes.NewReader(body)),
			Options:                options,
		}
		if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
			problems = append(problems, "the answer is not what the document describes:\n"+describe(err)+"\tbody: "+truncate(body))
		}
	}
	return op, problems
}

// bareArrayNames renames name[] to name. The fake takes a list parameter as name=a&name=b,
// name[]=a&name[]=b or name=a,b (gaps §2); an OpenAPI parameter has one name, so the documents
// describe the first form and say in the parameter's description that the others are accepted.
func bareArrayNames(q url.Values) url.Values {
	out := url.Values{}
	for k, vs := range q {
		k = strings.TrimSuffix(k, "[]")
		out[k] = append(out[k], vs...)
	}
	return out
}

// eventData returns the data of each server-sent event of a stream.
func eventData(stream []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, len(stream)+1)
	for sc.Scan() {
		if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
			out = append(out, bytes.Clone(bytes.TrimSpace(data)))
		}
	}
	return out
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

// TestCheckCatchesDrift: check passes what the fake answers and refuses an answer outside its
// operation's schema, a stream event outside the event schema, an accepted request the document
// does not allow, and an operation the document does not have.
func TestCheckCatchesDrift(t *testing.T) {
	d := load(t, "openapi.json")
	rec := &recorder{h: fake.New()}
	authed := http.Header{"X-Api-Key": {conformance.FakeAPIKey}, "Vendor-Version": {"2023-06-01"}}
	r := httptest.NewRequest(http.MethodGet, "/v1/models?limit=2", nil)
	r.Header = authed.Clone()
	rec.ServeHTTP(httptest.NewRecorder(), r)
	good := rec.exchanges[0]
	if op, problems := check(d, good); op != "GET /v1/models" || len(problems) > 0 {
		t.Fatalf("the fake's own answer: operation %q, problems %v", op, problems)
	}
	jsonRequest := authed.Clone()
	jsonRequest.Set("Content-Type", "application/json")
	jsonHeader := http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_1"}}
	sseHeader := http.Header{"Content-Type": {"text/event-stream"}, "Request-Id": {"req_1"}}
	for _, c := range []struct {
		name string
		x    exchange
		want string
	}{
		{"a body outside the schema", exchange{method: "GET", url: "/v1/models/m", reqHeader: authed, status: 200, header: jsonHeader, body: []byte(`{"id":1}`)},
			"is not what the document describes"},
		{"an event outside the event schema", exchange{method: "POST", url: "/v1/messages", reqHeader: jsonRequest, reqBody: []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}],"stream":true}`),
			status: 200, header: sseHeader, body: []byte("event: message_start\ndata: {\"type\":\"message_start\"}\n\n")}, "is not what the document describes"},
		{"a request without vendor-version accepted", exchange{method: "GET", url: good.url, reqHeader: http.Header{"X-Api-Key": {conformance.FakeAPIKey}}, status: 200, header: good.header, body: good.body},
			"accepted a request the document does not allow"},
		{"an operation the document does not have", exchange{method: "GET", url: "/v1/nothing", reqHeader: authed, status: 500, header: jsonHeader, body: []byte(`{}`)},
			"no such operation"},
	} {
		_, problems := check(d, c.x)
		t.Logf("%s:\n%s", c.name, strings.Join(problems, "\n"))
		if !strings.Contains(strings.Join(problems, "\n"), c.want) {
			t.Errorf("%s: problems %q, want one saying %q", c.name, problems, c.want)
		}
	}
}
