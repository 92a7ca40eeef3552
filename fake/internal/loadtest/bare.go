package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/gin-gonic/gin"
)

// serveBare serves the recorded answers of file with a gin engine configured as the fake's (no
// redirects, 405 on a known path), until SIGINT or SIGTERM: one route per path, which checks the
// request's headers, reads its body, and writes the recorded answer. Two endpoints of one path
// and query (two Messages requests) are told apart by the length of the body they send.
func serveBare(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var answers []answer
	if err := json.Unmarshal(data, &answers); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.RedirectTrailingSlash, e.RedirectFixedPath, e.HandleMethodNotAllowed = false, false, true
	byRoute := map[string]map[string]answer{} // method and path, then query and body length
	for _, a := range answers {
		key := a.Method + " " + a.Path
		if byRoute[key] == nil {
			byRoute[key] = map[string]answer{}
			byQuery := byRoute[key]
			e.Handle(a.Method, a.Path, func(gc *gin.Context) { bareAnswer(gc, byQuery) })
		}
		byRoute[key][answerKey(a.Query, a.BodyLen, a.Check[makerVersion] != "")] = a
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	go func() { <-stop; _ = srv.Close() }()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

func bareAnswer(gc *gin.Context, byQuery map[string]answer) {
	a, ok := byQuery[answerKey(gc.Request.URL.RawQuery, gc.Request.ContentLength, gc.GetHeader(makerVersion) != "")]
	if !ok {
		gc.AbortWithStatus(http.StatusNotFound)
		return
	}
	for k, v := range a.Check {
		if gc.GetHeader(k) != v {
			gc.AbortWithStatus(http.StatusUnauthorized)
			return
		}
	}
	if gc.Request.Body != nil {
		_, _ = io.Copy(io.Discard, gc.Request.Body)
	}
	for k, v := range a.Header {
		gc.Header(k, v)
	}
	gc.Data(a.Status, a.Header["Content-Type"], a.Body)
}

// answerKey is the key of an answer among those of its path: the query, the body's length and
// whether the request is in the maker's words (its answer is too).
func answerKey(query string, bodyLen int64, maker bool) string {
	return query + " " + strconv.FormatInt(bodyLen, 10) + " " + strconv.FormatBool(maker)
}
