package kit

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
)

// TestDoSendsAgainOnAClosedKeepAliveConnection: a server that closes a kept-alive connection
// after an answer (uvicorn after an exception in the application, as mockllm's 500s) resets the
// next request sent on it. The request never reached the application: Do sends it again on a new
// connection, as a client that retries would, rather than end the check as a suite error.
func TestDoSendsAgainOnAClosedKeepAliveConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func(conn net.Conn) {
				defer conn.Close()
				br := bufio.NewReader(conn)
				// The first request of a connection is answered; the second is reset, unread.
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
				if _, err := http.ReadRequest(br); err != nil {
					return
				}
				conn.(*net.TCPConn).SetLinger(0)
			}(conn)
		}
	}()
	cl := &Client{BaseURL: "http://" + ln.Addr().String(), HTTP: &http.Client{}}
	for i := range 3 {
		resp, err := cl.Do(context.Background(), &Request{Area: Messages, Method: http.MethodPost, Path: "/v1/messages", Body: map[string]any{"n": i}})
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		if resp.Status != http.StatusOK || string(resp.Body) != "{}" {
			t.Fatalf("request %d: %d %s", i+1, resp.Status, resp.Body)
		}
	}
}

// TestStaleConnectionErrors: the errors of a request sent on a connection the server had closed,
// as Go's client reports them (seen against mockllm: a reset on reading the answer, a broken
// pipe on writing the body), are sent again; a timeout is not.
func TestStaleConnectionErrors(t *testing.T) {
	opErr := func(op string, errno syscall.Errno) error {
		return &url.Error{Op: "Post", URL: "http://127.0.0.1/v1/messages", Err: &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, errno)}}
	}
	for _, tc := range []struct {
		err   error
		stale bool
	}{
		{opErr("read", syscall.ECONNRESET), true},
		{opErr("write", syscall.EPIPE), true},
		{&url.Error{Op: "Post", URL: "http://127.0.0.1/v1/messages", Err: io.EOF}, true},
		{&url.Error{Op: "Post", URL: "http://127.0.0.1/v1/messages", Err: context.DeadlineExceeded}, false},
	} {
		if got := staleConnection(tc.err); got != tc.stale {
			t.Errorf("staleConnection(%v) = %v, want %v", tc.err, got, tc.stale)
		}
	}
}
