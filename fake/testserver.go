package fake

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestServer is a fake running on a local listener for the length of one test.
type TestServer struct {
	*httptest.Server         // URL has no trailing slash
	Fake             *Server // the server behind it, for the control methods
}

// Client returns an HTTP client for the server that sends the default credential and headers
// of each request's interface (see CredentialTransport), so that
// ts.Client().Get(ts.URL + "/v1/models") answers 200. Headers a request sets itself are kept.
// ts.Server.Client() is the plain client, for requests that must go without a credential.
func (ts *TestServer) Client() *http.Client {
	c := *ts.Server.Client()
	c.Transport = &CredentialTransport{Base: c.Transport}
	return &c
}

// NewTestServer starts a fake on a loopback listener and closes it when the test ends. Every
// response is checked against its schema, and a response that does not match or a panic in
// the fake fails the test.
func NewTestServer(t testing.TB, opts ...Option) *TestServer {
	t.Helper()
	opts = append([]Option{WithViolationHandler(func(msg string) { t.Errorf("fake: %s", msg) })}, opts...)
	s := New(opts...)
	ts := &TestServer{Server: httptest.NewServer(s), Fake: s}
	t.Cleanup(ts.Close)
	return ts
}
