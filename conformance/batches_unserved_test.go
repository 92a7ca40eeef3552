package conformance

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// TestBatchChecksAgainstATargetWithoutBatches: against a target that serves no route of
// /v1/messages/batches (a web framework's 404, as mockllm's FastAPI answers, or the API's own
// not_found_error), the preflight names the one cause and every batch check ends blocked by it,
// none failed or differing: a route not served is the target's answer that it does not do this.
// (Against a target that serves batches with a bug, each check still fails:
// TestEveryCheckFailsAgainstItsOwnBug.)
func TestBatchChecksAgainstATargetWithoutBatches(t *testing.T) {
	t.Parallel()
	onBatches := func(r *http.Request) bool {
		return r.URL.Path == "/v1/messages/batches" || strings.HasPrefix(r.URL.Path, "/v1/messages/batches/")
	}
	for name, h := range map[string]http.Handler{
		"a web framework's 404": func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !onBatches(r) {
					h.ServeHTTP(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				_, _ = io.WriteString(w, `{"detail":"Not Found"}`)
			})
		}(fake.New()),
		"the API's 404": kit.Refuses(onBatches, http.StatusNotFound, "not_found_error", "no such route")(fake.New()),
	} {
		t.Run(name, func(t *testing.T) {
			r, out := brokenRun(t, h, "CONFORMANCE_SLOW", "1")
			const cause = "/v1/messages/batches is not served (POST answered 404 or 405): the checks of message batches do not run"
			if strings.Count(out, "conformance: cause: "+cause+"\n") != 1 {
				t.Errorf("the preflight does not name the missing batches once:\n%s", out)
			}
			n := 0
			for _, c := range kit.Checks() {
				if !strings.HasPrefix(c.ID, "messages/batch-") {
					continue
				}
				n++
				if o := kit.RunCheck(context.Background(), r.Target, c); len(o.Failures) > 0 || o.Skipped != kit.PrefixBlocked+cause {
					t.Errorf("%s: %+v, want blocked by the batches not served", c.ID, o)
				}
			}
			if n != 14 {
				t.Errorf("%d batch checks ran, want the 14 of conformance/batches", n)
			}
		})
	}
}
