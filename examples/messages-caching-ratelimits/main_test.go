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
	// turn     clock  cache read  written 1h  written 5m  uncached  total  count_tokens
	//      1  00:00:00           0        2181          10         0   2191          2191
	//      2  00:00:00        2191           0          35         0   2226          2226
	//      3  00:00:00        2226           0          64         0   2290          2290
	//      4  00:07:00        2181           0         152         0   2333          2333
	//
	// Research workspace: requests_per_minute lowered to 3 for assistant-sonnet-4-5
	// request 1: 200  requests remaining 2 of 3, full again at 2026-01-01T00:07:20Z
	// request 2: 200  requests remaining 1 of 3, full again at 2026-01-01T00:07:40Z
	// request 3: 200  requests remaining 0 of 3, full again at 2026-01-01T00:08:00Z
	// request 4: 429  This request would exceed your workspace's rate limit of 3 requests per minute (workspace: wrkspc_01AcmeResearch0000000001, model: assistant-sonnet-4-5). You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.
	//            retry-after: 20, requests remaining 0, full again at 2026-01-01T00:08:00Z
	// request 4: 200  after 20 s: requests remaining 0
	// request 5: 429  This request would exceed your workspace's rate limit of 3 requests per minute (workspace: wrkspc_01AcmeResearch0000000001, model: assistant-sonnet-4-5). You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.
	//            retry-after: 20, requests remaining 0, full again at 2026-01-01T00:08:20Z
	// request 5: 200  after 20 s: requests remaining 0
	// journal: 429 refused by workspace rlg_83f163acb55a4c985093fb2c requests_per_minute
	// journal: 429 refused by workspace rlg_83f163acb55a4c985093fb2c requests_per_minute
}
