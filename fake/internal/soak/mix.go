package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"

	"github.com/platformkit/platformkit/fake/internal/hostile"
)

// threadsClient sends the soak's -mix threads traffic (issue 47): threads created with tools
// that decode to many times their bytes, continued by their owner and by another organization;
// stubs of 100 KB and prompts that nearly match them; tool inputs of uncharged consts, $refs of
// long names and allOf merges of long required lists; beta headers of many values; and the
// schema amplifiers of issue 38. Each request is of bounded size, so the soak is bounded in
// count (by -max-requests) and time (by -duration and the client's timeout).
type threadsClient struct {
	client *http.Client
	prev   map[int]string // the latest reply of a thread of each namespace
	cpu    []hostile.Case
}

func newThreadsClient(client *http.Client) *threadsClient {
	return &threadsClient{client: client, prev: map[int]string{}, cpu: hostile.CPU()}
}

// next sends one request to namespace ns (whose URL is base) and returns its answer.
func (c *threadsClient) next(r *rand.Rand, base string, ns, w, i int) answer {
	step := func(method, path string, h map[string]string, body string) answer {
		return sendStep(c.client, base, hostile.Step{Method: method, Path: path, Header: h, Body: body}, "")
	}
	switch k := r.IntN(20); {
	case k < 5: // a thread whose tool schema is an array of 100,000 zeros (200 KB)
		a := step("POST", "/v1/messages", hostile.ThreadHeader(""), hostile.ZerosThread(100_000))
		if a.status == http.StatusOK {
			c.prev[ns] = a.id
		}
		return a
	case k < 8: // its owner continues it
		if c.prev[ns] == "" {
			return step("GET", "/v1/models", nil, "")
		}
		a := step("POST", "/v1/messages", hostile.ThreadHeader(""), hostile.ContinueThread(c.prev[ns]))
		if a.status == http.StatusOK {
			c.prev[ns] = a.id
		}
		return a
	case k < 9: // another organization tries to
		if c.prev[ns] == "" {
			return step("GET", "/v1/models", nil, "")
		}
		return step("POST", "/v1/messages", hostile.ThreadHeader("test-api-key-2"), hostile.ContinueThread(c.prev[ns]))
	case k < 11: // a stub of 100 KB
		return step("POST", "/_fake/messages/stubs", nil, hostile.ZerosStub(fmt.Sprintf("never %d-%d", w, i), 50_000))
	case k < 12: // a stub that a long prompt nearly matches
		return step("POST", "/_fake/messages/stubs", nil, hostile.NearMissStub(w*1_000_000+i))
	case k < 14: // a prompt of 200 KB that nearly matches those
		return step("POST", "/v1/messages", nil, hostile.Prompt(200_000))
	case k < 15: // 100 consts of 10 KB: a 1 MB tool input
		return step("POST", "/v1/messages", nil, hostile.ConstItems(10_000, 100))
	case k < 16: // 1,000 lookups of a $ref of a 100 KB name
		return step("POST", "/v1/messages", nil, hostile.LongRef(100_000, 10, 100))
	case k < 17: // 100 allOf merges of a required list of 10,000
		return step("POST", "/v1/messages", nil, hostile.AllOfRequired(10_000, 100))
	case k < 18: // a beta header of 2,000 values
		return step("POST", "/v1/messages", map[string]string{"anthropic-beta": hostile.Betas(2000)}, hostile.Prompt(10))
	}
	cs := c.cpu[r.IntN(len(c.cpu))]
	return step("POST", cs.Path, nil, cs.Body)
}
