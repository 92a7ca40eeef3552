package main

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"

	"github.com/platformkit/platformkit/fake"
)

// What a client's test learns from the fake's coverage after running the client: which
// operations it called, which query parameters it never sent (here: before_id, since it only
// pages forward), and whether the fake refused any of its requests as invalid. A test in any
// language gets the same from GET /_fake/coverage, or from platformfake -coverage-on-exit FILE.
func Example_coverage() {
	s := fake.New()
	srv := httptest.NewServer(s)
	defer srv.Close()
	if err := printModels(io.Discard, srv.URL, "test-api-key"); err != nil {
		panic(err)
	}
	c := s.Coverage()
	fmt.Printf("operations called: %d, requests: %d, invalid: %d\n", c.OperationsExercised, c.Requests, c.Invalid)
	for _, op := range c.Operations {
		if op.Requests > 0 {
			fmt.Printf("%s: %d requests; query parameters sent: %s; never sent: %s\n", op.Operation, op.Requests,
				strings.Join(op.QueryParameters.Sent, ", "), strings.Join(op.QueryParameters.NotSent, ", "))
		}
	}
	// Output:
	// operations called: 1, requests: 3, invalid: 0
	// GET /v1/models: 3 requests; query parameters sent: after_id, limit; never sent: before_id
}
