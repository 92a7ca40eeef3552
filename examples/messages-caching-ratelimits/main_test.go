package main

import (
	"net/http/httptest"
	"os"

	"github.com/platformkit/platformkit/fake"
)

// The example as a user runs it, against the fake in-process.
func Example() {
	srv := httptest.NewServer(fake.New())
	defer srv.Close()
	if err := run(&client{hc: srv.Client(), base: srv.URL + "/ns/example"}, os.Stdout); err != nil {
		panic(err)
	}
	// Output:
}
