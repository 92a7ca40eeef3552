package conformance

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// node finds the first element below n that pass accepts, depth first.
func node(n *html.Node, pass func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && pass(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := node(c, pass); f != nil {
			return f
		}
	}
	return nil
}

// nodes finds every element below n that pass accepts.
func nodes(n *html.Node, pass func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	if n.Type == html.ElementNode && pass(n) {
		out = append(out, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, nodes(c, pass)...)
	}
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	if n == nil {
		return ""
	}
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(text(c))
	}
	return b.String()
}

func tag(name string) func(*html.Node) bool { return func(n *html.Node) bool { return n.Data == name } }

func withID(id string) func(*html.Node) bool {
	return func(n *html.Node) bool { return attr(n, "id") == id }
}

func withClass(tagName, class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == tagName && attr(n, "class") == class }
}

// checkHTMLReport reads the HTML report of a run back with an HTML parser: the verdict first,
// totals equal to the JSON results' counts, every check that failed or broke with its statement,
// clause and a curl line whose credentials are variable references, and nothing that loads or
// runs anything.
func checkHTMLReport(t *testing.T, page string, results kit.ResultsDocument, secrets ...string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("the HTML report does not parse: %v", err)
	}
	body := node(doc, tag("body"))
	first := node(body, func(n *html.Node) bool { return n.Data != "h1" && n.Data != "body" })
	wantVerdict := "FAIL: " + strings.TrimPrefix(results.Summary, "conformance: ")
	if results.Counts.Failed+results.Counts.Differ+results.Counts.Errors == 0 && !(results.Strict && results.Counts.Unsupported > 0) {
		wantVerdict = "PASS: " + strings.TrimPrefix(results.Summary, "conformance: ")
	}
	if first == nil || attr(first, "id") != "verdict" || text(first) != wantVerdict {
		t.Errorf("the first thing after the title is %q, want the verdict %q", text(first), wantVerdict)
	}
	if n := nodes(doc, func(n *html.Node) bool {
		return n.Data == "script" || n.Data == "link" || n.Data == "img" || n.Data == "iframe" || attr(n, "src") != ""
	}); len(n) > 0 {
		t.Errorf("the report loads or runs something: <%s>", n[0].Data)
	}

	if all := text(body); results.Run.APIVersion == "" || !strings.Contains(all, "api_version") || !strings.Contains(all, results.Run.APIVersion) {
		t.Errorf("the report does not name the run's API version %q", results.Run.APIVersion)
	}

	total := node(node(doc, withID("by-area")), tag("tfoot"))
	var cells []string
	for _, td := range nodes(total, tag("td")) {
		cells = append(cells, text(td))
	}
	c := results.Counts
	if want := []string{"total", fmt.Sprint(c.Passed), fmt.Sprint(c.Failed), fmt.Sprint(c.Differ), fmt.Sprint(c.Unsupported), fmt.Sprint(c.Disabled), fmt.Sprint(c.Errors)}; strings.Join(cells, " ") != strings.Join(want, " ") {
		t.Errorf("the report's totals are %v, the JSON results' %v", cells, want)
	}

	articles := nodes(doc, withClass("article", "check"))
	byID := map[string]*html.Node{}
	for _, a := range articles {
		byID[attr(a, "id")] = a
	}
	bad := 0
	for _, res := range results.Checks {
		if res.Outcome != kit.Failed && res.Outcome != kit.Error {
			continue
		}
		bad++
		a := byID[res.ID]
		if a == nil {
			t.Errorf("the report does not show %s check %s", res.Outcome, res.ID)
			continue
		}
		if s := text(node(a, withClass("p", "statement"))); s != res.Statement {
			t.Errorf("%s: statement %q, want %q", res.ID, s, res.Statement)
		}
		if m := text(node(a, withClass("p", "meta"))); !strings.Contains(m, "Clause "+res.Clause+" ") {
			t.Errorf("%s: %q does not name clause %s", res.ID, m, res.Clause)
		}
		if res.Exchange == nil {
			continue
		}
		curl := text(node(a, withClass("pre", "curl")))
		if curl != res.Exchange.Curl || !strings.HasPrefix(curl, "curl ") {
			t.Errorf("%s: curl line %q, want the results' %q", res.ID, curl, res.Exchange.Curl)
		}
		if strings.Contains(res.Exchange.Request, "[CONFORMANCE_API_KEY]") && !strings.Contains(curl, `"${CONFORMANCE_API_KEY}"`) {
			t.Errorf("%s: the curl line does not send the API key as a reference to its variable:\n%s", res.ID, curl)
		}
	}
	if len(articles) != bad || bad != c.Failed+c.Differ+c.Errors-len(results.Problems) {
		t.Errorf("the report shows %d failures, the JSON results hold %d (counts %+v)", len(articles), bad, c)
	}
	for _, s := range secrets {
		if strings.Contains(page, s) {
			t.Errorf("the HTML report shows a configured secret")
		}
	}
}

// TestCurlReproducesTheRequest runs a reproducer in a shell with real curl: the request it sends
// must be the one the check sent (the credential read from its variable, a body with quotes and
// shell metacharacters intact), and the command must not hold the credential.
func TestCurlReproducesTheRequest(t *testing.T) {
	curlPath, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	// got is written by the server's goroutine: the race detector does not see the loopback
	// round trip that orders it before the test's reads.
	var got struct {
		sync.Mutex
		key, body string
	}
	srv := deployment(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/messages/count_tokens" {
			b, _ := io.ReadAll(r.Body)
			got.Lock()
			got.key, got.body = r.Header.Get("X-Api-Key"), string(b)
			got.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		fake.New().ServeHTTP(w, r)
	}))
	r := kit.Begin(context.Background(), kit.ConfigFromEnv(env(srv.URL, "CONFORMANCE_API_KEY", secretAPIKey)), nil, io.Discard)
	body := `{"model":"assistant-haiku-4-5","messages":[{"role":"user","content":"it's $HOME, \"quoted\", !! and ` + "`id`" + `"}]}`
	resp, err := r.Target.Client.Do(context.Background(), &kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages/count_tokens", Body: body})
	if err != nil || resp.Status != http.StatusOK {
		t.Fatalf("the request to reproduce: %v %v", err, resp)
	}
	got.Lock()
	got.key, got.body = "", ""
	got.Unlock()
	cmd := r.Curl(resp)
	if strings.Contains(cmd, secretAPIKey) || !strings.Contains(cmd, `'"${CONFORMANCE_API_KEY}"'`) {
		t.Fatalf("the command holds the key, or no reference to its variable:\n%s", cmd)
	}
	sh := exec.Command("sh", "-c", strings.Replace(cmd, "curl ", curlPath+" ", 1))
	sh.Env = []string{"CONFORMANCE_API_KEY=" + secretAPIKey, "PATH=" + os.Getenv("PATH")}
	out, err := sh.CombinedOutput()
	if err != nil || !bytes.HasPrefix(out, []byte("HTTP/1.1 200")) {
		t.Fatalf("the reproducer failed (%v):\n%s\n%s", err, cmd, out)
	}
	got.Lock()
	defer got.Unlock()
	if got.key != kit.FakeAPIKey || got.body != body { // the deployment swapped the secret for the fake's key
		t.Errorf("the reproducer sent key %q and body %q; want the configured key and %q", got.key, got.body, body)
	}
}
