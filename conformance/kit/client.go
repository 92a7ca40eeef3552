package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/gjson"
)

// Cred names which credential a request presents.
type Cred int

const (
	AreaCred       Cred = iota // the credential of the request's area (the default)
	NoCred                     // none
	APIKey                     // X-Api-Key: API key
	AdminKey                   // X-Api-Key: admin key
	ComplianceKey              // Authorization: Bearer compliance key
	BearerToken                // Authorization: Bearer workload-identity token
	EnvironmentKey             // Authorization: Bearer environment key
)

// areaCred is the credential each area's interface takes (spec 5).
var areaCred = map[Label]Cred{
	Core: APIKey, Models: APIKey, Messages: APIKey, Memory: APIKey, Work: APIKey, Files: APIKey, Agents: APIKey, Vaults: APIKey, Skills: APIKey,
	Admin: AdminKey, Compliance: ComplianceKey, Tunnels: BearerToken,
}

// Request is one call of a check. The client adds the area's credential, vendor-version (spec 9.1,
// except on compliance) and, for tunnels, the required beta value (spec 9.4).
type Request struct {
	Area   Label  // whose credential and headers to send
	Method string // default GET
	Path   string // e.g. "/v1/models"; may include a query string
	Query  url.Values
	Body   any         // JSON-encoded unless []byte or string (sent as is); nil: no body
	Header http.Header // added after the defaults; a header set to "" is removed
	As     Cred        // which credential to present instead of the area's
	Org2   bool        // present the second organization's credential
	// ReferenceHeaders sends the request in the reference's header names whatever the run's
	// dialect (Config.VersionHeader), its Header's names as written: for a check whose statement
	// is about the header names themselves (which one decides, which one a refusal names).
	ReferenceHeaders bool
	// Schema is the schema of a 2xx body (package schemas); "" for bodies that are not JSON.
	// Every error body is validated against "error".
	Schema string
}

// Response is what the target answered.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	req    *Request
	// sent is the request as it went out (URL, headers with credentials, encoded body), so that a
	// report can show exactly what a failed check sent.
	sent *http.Request
	// sentBody is the encoded request body, nil when there was none.
	sentBody []byte
}

// JSON returns the body as a gjson result.
func (r *Response) JSON() gjson.Result { return gjson.ParseBytes(r.Body) }

// Get returns the value at a gjson path of the body.
func (r *Response) Get(path string) gjson.Result { return gjson.GetBytes(r.Body, path) }

func (r *Response) String() string {
	return fmt.Sprintf("%s %s -> %d %s", r.req.Method, r.req.Path, r.Status, truncate(r.Body, 600))
}

// mediaType is the answer's Content-Type without its parameters, "" when it has none.
func (r *Response) mediaType() string {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt
}

// kind is the status and media type of the answer, "404 text/html", as an operator reads what
// answered.
func (r *Response) kind() string {
	mt := r.mediaType()
	if mt == "" {
		mt = "without a Content-Type"
	}
	return fmt.Sprintf("%d %s", r.Status, mt)
}

// notAPIError says why r is not an error answer of the API itself, or "" when it is one: a JSON
// error envelope (spec 7) with a request-id header. A gateway's or another server's error page is
// not the API saying anything about a route.
func (r *Response) notAPIError() string {
	switch {
	case r.mediaType() != "application/json":
		return "not JSON"
	case r.Get("type").String() != "error" || r.Get("error.type").Type != gjson.String || r.Get("error.message").Type != gjson.String:
		return "not the error envelope"
	case r.Header.Get("request-id") == "":
		return "no request-id header"
	}
	return ""
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// Client sends requests to the target with the configured credentials.
type Client struct {
	BaseURL string
	Config  Config
	HTTP    *http.Client
	// progress, when not nil, is told every ProgressEvery that a request is still unanswered, so
	// that a target that accepts connections and never answers is not a minute of silence.
	progress io.Writer
}

// ProgressEvery is how often a request still waiting for its answer is said to be.
var ProgressEvery = 10 * time.Second

// NoAnswerError is a request the target did not answer within the configured timeout.
type NoAnswerError struct {
	Method, URL string
	Timeout     time.Duration
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("no answer to %s %s within %s (CONFORMANCE_TIMEOUT sets the timeout)", e.Method, e.URL, e.Timeout)
}

// timeout is the client's request timeout.
func (cl *Client) timeout() time.Duration {
	if cl.HTTP != nil && cl.HTTP.Timeout > 0 {
		return cl.HTTP.Timeout
	}
	return DefaultTimeout
}

// waiting prints, every ProgressEvery until the returned stop is called, that req is unanswered.
func (cl *Client) waiting(req *http.Request) (stop func()) {
	if cl.progress == nil {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(ProgressEvery)
		defer tick.Stop()
		start := time.Now()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				fmt.Fprintf(cl.progress, "conformance: waiting for an answer to %s %s (%s of %s)\n",
					req.Method, req.URL.Redacted(), time.Since(start).Round(time.Second), cl.timeout())
			}
		}
	}()
	// Waiting for the goroutine keeps a late line from following the answer's.
	return func() { close(done); <-finished }
}

// secret is the header credential c is sent in and its value ("Bearer <token>" for
// Authorization); the value is "" when the credential is not set.
func (cl *Client) secret(c Cred, org2 bool) (header, value string) {
	cfg := cl.Config
	pick := func(a, b string) string {
		if org2 {
			return b
		}
		return a
	}
	bearer := func(token string) string {
		if token == "" {
			return ""
		}
		return "Bearer " + token
	}
	switch c {
	case APIKey:
		if cfg.KeyHeader == KeyInAuthorization {
			return "Authorization", bearer(pick(cfg.APIKey, cfg.APIKey2))
		}
		return "X-Api-Key", pick(cfg.APIKey, cfg.APIKey2)
	case AdminKey:
		return "X-Api-Key", pick(cfg.AdminKey, cfg.AdminKey2)
	case ComplianceKey:
		return "Authorization", bearer(pick(cfg.ComplianceKey, cfg.ComplianceKey2))
	case BearerToken:
		return "Authorization", bearer(pick(cfg.BearerToken, cfg.BearerToken2))
	case EnvironmentKey:
		return "Authorization", bearer(cfg.EnvironmentKey)
	}
	return "", ""
}

// credVar is the variable that sets credential c, of the second organization when org2.
func credVar(c Cred, org2 bool) string {
	name := map[Cred]string{APIKey: "CONFORMANCE_API_KEY", AdminKey: "CONFORMANCE_ADMIN_API_KEY", ComplianceKey: "CONFORMANCE_COMPLIANCE_API_KEY",
		BearerToken: "CONFORMANCE_BEARER_TOKEN", EnvironmentKey: "CONFORMANCE_ENVIRONMENT_KEY"}[c]
	if org2 && c != EnvironmentKey {
		name += "_2"
	}
	return name
}

// Do sends r. A transport error is returned as is; HTTP errors are responses.
func (cl *Client) Do(ctx context.Context, r *Request) (*Response, error) {
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	u := cl.BaseURL + r.Path
	if len(r.Query) > 0 {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + r.Query.Encode()
	}
	var data []byte
	switch b := r.Body.(type) {
	case nil:
	case []byte:
		data = b
	case string:
		data = []byte(b)
	default:
		var err error
		if data, err = json.Marshal(b); err != nil {
			return nil, err
		}
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	cred := r.As
	if cred == AreaCred {
		cred = areaCred[r.Area]
	}
	if h, v := cl.secret(cred, r.Org2); h != "" && v != "" {
		req.Header.Set(h, v)
	}
	dialect := cl.Config
	if r.ReferenceHeaders {
		dialect.VersionHeader = VendorVersion
	}
	if r.Area != Compliance {
		req.Header.Set(dialect.dialectHeader("vendor-version"), cl.Config.APIVersion)
	}
	if r.Area == Tunnels {
		req.Header.Set(dialect.dialectHeader("vendor-beta"), "mcp-tunnels-2026-05-19")
	}
	for k, vs := range r.Header {
		k = dialect.dialectHeader(k)
		req.Header.Del(k)
		for _, v := range vs {
			if v != "" {
				req.Header.Add(k, v)
			}
		}
	}
	hc := cl.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	stop := cl.waiting(req)
	defer stop()
	// A timeout of the client (not of ctx, which is the caller's) names the request and the
	// setting, rather than Go's "Client.Timeout exceeded while awaiting headers".
	timedOut := func(err error) error {
		var ue *url.Error
		if ctx.Err() == nil && errors.As(err, &ue) && ue.Timeout() {
			return &NoAnswerError{Method: r.Method, URL: req.URL.Redacted(), Timeout: cl.timeout()}
		}
		return err
	}
	resp, err := sendAgainIfStale(hc, req, data)
	if err != nil {
		return nil, timedOut(err)
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, timedOut(err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: respBody, req: r, sent: req, sentBody: data}, nil
}

// sendAgainIfStale sends req and, when it failed on a kept-alive connection that the server had
// closed (reset, or closed without an answer: uvicorn does so after an exception in the
// application), sends it again on another connection, at most twice. The request never reached
// the application, so sending it again is what a client that retries does; without it a server
// that drops connections turns the next check into a suite error.
func sendAgainIfStale(hc *http.Client, req *http.Request, body []byte) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		var reused bool
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
		try := req.Clone(httptrace.WithClientTrace(req.Context(), trace))
		if req.Body != nil {
			try.Body = io.NopCloser(bytes.NewReader(body))
		}
		resp, err := hc.Do(try)
		if err == nil || !reused || attempt == 2 || req.Context().Err() != nil || !staleConnection(err) {
			return resp, err
		}
	}
}

// staleConnection reports whether err is a connection the server closed (a reset on reading the
// answer, a broken pipe on writing the body, an end of file), not a timeout.
func staleConnection(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
