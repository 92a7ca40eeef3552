package kit

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
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
