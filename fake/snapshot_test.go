package fake

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/agents"
	"github.com/platformkit/platformkit/fake/internal/areas/skills"
	"github.com/platformkit/platformkit/fake/internal/areas/tunnels"
	"github.com/platformkit/platformkit/fake/internal/areas/vaults"

	"github.com/platformkit/platformkit/fake/internal/areas/admin"

	"github.com/platformkit/platformkit/fake/internal/areas/memory"

	"github.com/platformkit/platformkit/fake/internal/areas/work"

	"github.com/platformkit/platformkit/fake/internal/areas/batches"
	"github.com/platformkit/platformkit/fake/internal/areas/compliance"
	"github.com/platformkit/platformkit/fake/internal/areas/files"
	"github.com/platformkit/platformkit/fake/internal/areas/sessions"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fixtures"
)

// handlerTransport serves requests with a handler in process, for a client over a *Server
// without a listener.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	w := httptest.NewRecorder()
	t.h.ServeHTTP(w, r)
	return w.Result(), nil
}

// world drives one server with each interface's default credential (Acme's).
type world struct {
	t      *testing.T
	h      http.Handler
	client *http.Client
}

func newWorld(t *testing.T, h http.Handler) *world {
	return &world{t: t, h: h, client: &http.Client{Transport: &CredentialTransport{Base: handlerTransport{h}}}}
}

// answer is a response as the comparison sees it: status, request-id and body.
type answer struct {
	status    int
	requestID string
	body      string
}

func (w *world) do(method, path, body string, header ...string) answer {
	w.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, "http://fake"+path, r)
	if err != nil {
		w.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := w.client.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("Request-Id"), string(b)}
}

// ids returns the string values at path in the body of a GET.
func (w *world) ids(path, jsonPath string, header ...string) []string {
	var out []string
	for _, v := range gjson.Get(w.do("GET", path, "", header...).body, jsonPath).Array() {
		out = append(out, v.String())
	}
	return out
}

// pick returns a random element of list, or "none" for an empty one (a call that then answers 404).
func pick(r *rand.Rand, list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return list[r.IntN(len(list))]
}

// buildWorld makes n random valid calls across every area that changes state, with the clock
// moving between them.
func buildWorld(t *testing.T, w *world, seed uint64, n int) {
	r := rand.New(rand.NewPCG(seed, 1))
	const admin = "/v1/organizations"
	for i := range n {
		users := w.ids(admin+"/users?limit=1000", "data.#(role!=admin)#.id")
		switch r.IntN(22) {
		case 0:
			w.do("POST", admin+"/invites", fmt.Sprintf(`{"email":"p%d-%d@acme.example","role":"developer"}`, seed, i))
		case 1:
			w.do("DELETE", admin+"/invites/"+pick(r, w.ids(admin+"/invites?limit=1000", "data.#.id")), "")
		case 2:
			w.do("POST", admin+"/users/"+pick(r, users), `{"role":"billing"}`)
		case 3:
			w.do("DELETE", admin+"/users/"+pick(r, users), "")
		case 4:
			if r.IntN(2) == 0 {
				w.do("POST", admin+"/workspaces", fmt.Sprintf(`{"name":"ws %d"}`, i))
			} else {
				w.do("POST", admin+"/workspaces", fmt.Sprintf(`{"name":"ws %d","external_key_id":"ekm_%d","user_profile_id":"uprof_%d","inference_data_privacy":{"transcripts_storage":{"type":"external","external_storage_id":"exst_%d"}}}`, i, i, i, i), "anthropic-beta", EFSBeta)
			}
		case 5:
			ws := w.ids(admin+"/workspaces?limit=1000", "data.#.id")
			switch r.IntN(3) {
			case 0:
				w.do("POST", admin+"/workspaces/"+pick(r, ws), fmt.Sprintf(`{"name":"renamed %d"}`, i))
			case 1:
				// Set one override and clear another: the workspace rate limits a snapshot carries.
				rl := pick(r, w.ids(admin+"/rate_limits?limit=1000", "data.#.id"))
				w.do("POST", admin+"/workspaces/"+pick(r, ws)+"/rate_limits/"+rl,
					fmt.Sprintf(`{"limits":[{"type":"requests_per_minute","value":%d},{"type":"requests_per_day","value":null}]}`, 10+i))
			default:
				w.do("POST", admin+"/workspaces/"+pick(r, ws)+"/archive", "")
			}
		case 6:
			w.do("POST", "/_fake/tunnels", fmt.Sprintf(`{"display_name":"t%d"}`, i))
		case 7, 8:
			tn := pick(r, w.ids(admin+"/tunnels?limit=1000", "data.#.id"))
			switch r.IntN(4) {
			case 0:
				w.do("POST", admin+"/tunnels/"+tn+"/rotate_token", `{"reason":"drill"}`)
			case 1:
				w.do("POST", admin+"/tunnels/"+tn+"/certificates", mustJSON(t, map[string]string{"ca_certificate_pem": fixedCA}))
			case 2:
				certs := w.ids(admin+"/tunnels/"+tn+"/certificates?limit=1000", "data.#.id")
				w.do("POST", admin+"/tunnels/"+tn+"/certificates/"+pick(r, certs)+"/archive", "")
			default:
				w.do("POST", admin+"/tunnels/"+tn+"/archive", "")
			}
		case 9:
			w.do("POST", "/v1/environments", fmt.Sprintf(`{"name":"env-%d","metadata":{"n":"%d"}}`, i, i))
		case 10:
			env := pick(r, w.ids("/v1/environments?limit=100", "data.#.id"))
			switch r.IntN(3) {
			case 0:
				w.do("POST", "/v1/environments/"+env, `{"description":"changed"}`)
			case 1:
				w.do("POST", "/v1/environments/"+env+"/archive", "")
			default:
				w.do("DELETE", "/v1/environments/"+env, "")
			}
		case 11, 12, 13:
			env := pick(r, w.ids("/v1/environments?limit=100", "data.#.id"))
			base := "/v1/environments/" + env + "/work"
			key := []string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}
			items := w.ids(base+"?limit=100", "data.#.id", key...)
			item := base + "/" + pick(r, items)
			switch r.IntN(5) {
			case 0:
				w.do("POST", "/_fake/environments/"+env+"/work", fmt.Sprintf(`{"metadata":{"i":"%d"}}`, i))
			case 1:
				w.do("GET", base+"/poll", "", append(key, work.HeaderWorkerID, fmt.Sprintf("worker-%d", r.IntN(3)))...)
			case 2:
				polled := w.ids(base+"?limit=100", "data.#(state==queued)#.id", key...)
				w.do("POST", base+"/"+pick(r, polled)+"/ack", "", key...)
			case 3:
				last := gjson.Get(w.do("GET", item, "", key...).body, "latest_heartbeat_at").String()
				if last == "" {
					last = work.NoHeartbeat
				}
				w.do("POST", item+"/heartbeat?desired_ttl_seconds=20&expected_last_heartbeat="+url.QueryEscape(last), "", key...)
			default:
				w.do("POST", item+"/stop", "", key...)
			}
		case 14:
			users := w.ids(admin+"/users?limit=1000", "data.#.id")
			chats := w.ids("/v1/compliance/apps/chats?limit=1000&user_ids[]="+pick(r, users), "data.#.id")
			w.do("DELETE", "/v1/compliance/apps/chats/"+pick(r, chats), "")
		case 15:
			w.do("DELETE", fmt.Sprintf("/v1/compliance/apps/chats/files/assistant_file_01Acme%04d", 1+r.IntN(8)), "")
		case 16:
			w.do("POST", "/v1/memory_stores", fmt.Sprintf(`{"name":"store %d"}`, i))
		case 17, 18, 19:
			store := pick(r, w.ids("/v1/memory_stores?limit=100", "data.#.id"))
			base := "/v1/memory_stores/" + store
			mems := w.ids(base+"/memories?limit=100", "data.#(type==memory)#.id")
			switch r.IntN(5) {
			case 0, 1:
				w.do("POST", base+"/memories", fmt.Sprintf(`{"path":"/p/%d.md","content":"note %d"}`, i, i))
			case 2:
				w.do("POST", base+"/memories/"+pick(r, mems), fmt.Sprintf(`{"content":"edit %d"}`, i))
			case 3:
				w.do("DELETE", base+"/memories/"+pick(r, mems), "")
			default:
				vers := w.ids(base+"/memory_versions?limit=100", "data.#.id")
				w.do("POST", base+"/memory_versions/"+pick(r, vers)+"/redact", "")
			}
		case 20:
			store := pick(r, w.ids("/v1/memory_stores?limit=100", "data.#.id"))
			if r.IntN(2) == 0 {
				w.do("POST", "/v1/memory_stores/"+store+"/archive", "")
			} else {
				w.do("DELETE", "/v1/memory_stores/"+store, "")
			}
		default:
			w.do("POST", "/_fake/clock/advance", fmt.Sprintf(`{"seconds":%d}`, r.IntN(40)))
		}
	}
}

// holdLease leaves a work item with a live lease and a polled item in line, whatever the random
// calls left, so that the comparison covers both.
func holdLease(t *testing.T, w *world) {
	env := gjson.Get(w.do("POST", "/v1/environments", `{"name":"leases"}`).body, "id").String()
	base, key := "/v1/environments/"+env+"/work", []string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}
	var id string
	for range 2 {
		id = gjson.Get(w.do("POST", "/_fake/environments/"+env+"/work", `{}`).body, "id").String()
	}
	polled := gjson.Get(w.do("GET", base+"/poll", "", key...).body, "id").String()
	w.do("POST", base+"/"+polled+"/ack", "", key...)
	if got := w.do("POST", base+"/"+polled+"/heartbeat?desired_ttl_seconds=300&expected_last_heartbeat="+work.NoHeartbeat, "", key...); got.status != 200 {
		t.Fatalf("heartbeat: %+v", got)
	}
	w.do("GET", base+"/poll", "", key...) // hands out the second item, which stays queued
	if id == polled {
		t.Fatal("the second item was polled first")
	}
}

// reads returns every GET of every route that reads the world, for the IDs the world holds:
// the lists, then each record they list and what hangs below it. Polls change the world and are
// left to nextWrites.
func reads(w *world) []string {
	const admin = "/v1/organizations"
	paths := []string{"/v1/models?limit=1000", admin + "/me", admin + "/rate_limits",
		admin + "/invites?limit=1000", admin + "/users?limit=1000", admin + "/workspaces?limit=1000&include_archived=true",
		admin + "/tunnels?limit=1000&include_archived=true", "/v1/environments?limit=100&include_archived=true",
		"/v1/memory_stores?limit=100&include_archived=true", "/v1/compliance/organizations",
		"/v1/compliance/apps/projects?limit=100", "/_fake/clock", "/_fake/messages/scenarios"}
	for _, id := range w.ids("/v1/models?limit=1000", "data.#.id") {
		paths = append(paths, "/v1/models/"+id)
	}
	for _, id := range w.ids(admin+"/invites?limit=1000", "data.#.id") {
		paths = append(paths, admin+"/invites/"+id)
	}
	users := w.ids(admin+"/users?limit=1000", "data.#.id")
	for _, id := range users {
		paths = append(paths, admin+"/users/"+id)
	}
	for _, id := range w.ids(admin+"/workspaces?limit=1000&include_archived=true", "data.#.id") {
		paths = append(paths, admin+"/workspaces/"+id, admin+"/workspaces/"+id+"/rate_limits")
	}
	for _, id := range w.ids(admin+"/tunnels?limit=1000&include_archived=true", "data.#.id") {
		certs := admin + "/tunnels/" + id + "/certificates"
		paths = append(paths, admin+"/tunnels/"+id, certs+"?limit=1000&include_archived=true")
		for _, c := range w.ids(certs+"?limit=1000&include_archived=true", "data.#.id") {
			paths = append(paths, certs+"/"+c)
		}
	}
	for _, id := range w.ids("/v1/environments?limit=100&include_archived=true", "data.#.id") {
		base := "/v1/environments/" + id
		paths = append(paths, base, base+"/work?limit=100", base+"/work/stats")
		for _, item := range w.ids(base+"/work?limit=100", "data.#.id") {
			paths = append(paths, base+"/work/"+item)
		}
	}
	for _, id := range w.ids("/v1/memory_stores?limit=100&include_archived=true", "data.#.id") {
		base := "/v1/memory_stores/" + id
		paths = append(paths, base, base+"/memories?limit=100&view=full", base+"/memory_versions?limit=100&view=full")
		for _, m := range w.ids(base+"/memories?limit=100", "data.#(type==memory)#.id") {
			paths = append(paths, base+"/memories/"+m+"?view=full")
		}
		for _, v := range w.ids(base+"/memory_versions?limit=100", "data.#.id") {
			paths = append(paths, base+"/memory_versions/"+v+"?view=full")
		}
	}
	paths = append(paths, managedReads(w)...)
	for _, org := range w.ids("/v1/compliance/organizations", "data.#.id") {
		paths = append(paths, "/v1/compliance/organizations/"+org+"/users?limit=100")
	}
	for i := 1; i <= 8; i++ { // the files of the fixtures, deleted or not
		f := fmt.Sprintf("/v1/compliance/apps/chats/files/assistant_file_01Acme%04d", i)
		paths = append(paths, f, f+"/content")
	}
	for _, u := range users {
		chats := "/v1/compliance/apps/chats?limit=1000&user_ids[]=" + u
		paths = append(paths, chats)
		for _, ch := range w.ids(chats, "data.#.id") {
			msgs := "/v1/compliance/apps/chats/" + ch + "/messages?limit=1000"
			paths = append(paths, msgs)
			body := w.do("GET", msgs, "").body
			for _, kind := range []struct{ path, prefix string }{
				{"data.#.files|@flatten|#.id", "/v1/compliance/apps/chats/files/"},
				{"data.#.generated_files|@flatten|#.id", "/v1/compliance/apps/chats/generated-files/"},
				{"data.#.artifacts|@flatten|#.id", "/v1/compliance/apps/artifacts/"},
			} {
				for _, id := range gjson.Get(body, kind.path).Array() {
					paths = append(paths, kind.prefix+id.String(), kind.prefix+id.String()+"/content")
				}
			}
		}
	}
	return paths
}

// nextWrites is one write of each kind, in an order that every world accepts.
var nextWrites = []struct{ method, path, body string }{
	{"POST", "/v1/organizations/invites", `{"email":"next@acme.example","role":"user"}`},
	{"POST", "/v1/organizations/workspaces", `{"name":"next"}`},
	{"POST", "/_fake/tunnels", `{"display_name":"next"}`},
	{"POST", "/v1/organizations/tunnels/tnl_01AcmeProduction000000001/rotate_token", `{}`},
	{"POST", "/v1/environments", `{"name":"next-env"}`},
	{"POST", "/_fake/environments/env_01AcmePrimary000000000001/work", `{}`},
	{"GET", "/v1/environments/env_01AcmePrimary000000000001/work/poll", ""},
	{"POST", "/v1/memory_stores", `{"name":"next"}`},
	{"POST", "/v1/agents", `{"name":"next","model":"assistant-opus-4-7"}`},
	{"POST", "/v1/vaults", `{"display_name":"next"}`},
	{"POST", "/v1/messages", `{"model":"assistant-opus-4-7","max_tokens":20,"messages":[{"role":"user","content":"hi"}]}`},
	{"POST", "/_fake/clock/advance", `{"seconds":3600}`},
	{"GET", "/v1/environments/env_01AcmePrimary000000000001/work?limit=100", ""},
	{"GET", "/v1/organizations/invites?limit=1000", ""},
}

// sameWorld fails t unless every read, then every next write, answers the same in both.
func sameWorld(t *testing.T, a, b *world) {
	t.Helper()
	pa, pb := reads(a), reads(b)
	if !slices.Equal(pa, pb) {
		t.Fatalf("the worlds list different records:\n%v\n%v", pa, pb)
	}
	if len(pa) < 100 {
		t.Fatalf("only %d reads: the crawl found too little to compare", len(pa))
	}
	for _, p := range pa {
		if x, y := a.do("GET", p, ""), b.do("GET", p, ""); x.status != y.status || x.body != y.body {
			t.Fatalf("GET %s:\noriginal %d %s\nloaded   %d %s", p, x.status, x.body, y.status, y.body)
		}
	}
	// Revealing a token reads the rotation state and changes nothing.
	tunnels := "/v1/organizations/tunnels?limit=1000&include_archived=true"
	ta, tb := a.ids(tunnels, "data.#.id"), b.ids(tunnels, "data.#.id")
	if !slices.Equal(ta, tb) {
		t.Fatalf("tunnels %v, loaded %v", ta, tb)
	}
	for _, id := range ta {
		p := "/v1/organizations/tunnels/" + id + "/reveal_token"
		if x, y := a.do("POST", p, ""), b.do("POST", p, ""); x.status != y.status || x.body != y.body {
			t.Fatalf("POST %s:\noriginal %+v\nloaded   %+v", p, x, y)
		}
	}
	for _, wr := range nextWrites {
		if x, y := a.do(wr.method, wr.path, wr.body), b.do(wr.method, wr.path, wr.body); x != y {
			t.Fatalf("%s %s:\noriginal %+v\nloaded   %+v", wr.method, wr.path, x, y)
		}
	}
}

// worldWrites are the writes a random world must have made at least once (with a 2xx), so that
// the comparison covers the state each of them leaves.
var worldWrites = []*regexp.Regexp{
	regexp.MustCompile(`^POST /v1/organizations/invites$`), regexp.MustCompile(`^DELETE /v1/organizations/invites/`),
	regexp.MustCompile(`^POST /v1/organizations/users/`), regexp.MustCompile(`^DELETE /v1/organizations/users/`),
	regexp.MustCompile(`^POST /v1/organizations/workspaces$`), regexp.MustCompile(`^POST /v1/organizations/workspaces/.*/archive$`),
	regexp.MustCompile(`^POST /v1/organizations/tunnels/.*/rotate_token$`), regexp.MustCompile(`^POST /v1/organizations/tunnels/[^/]*/certificates$`),
	regexp.MustCompile(`^POST /v1/environments$`), regexp.MustCompile(`^GET /v1/environments/.*/poll$`),
	regexp.MustCompile(`^POST /v1/environments/.*/ack$`), regexp.MustCompile(`^POST /v1/environments/.*/heartbeat$`),
	regexp.MustCompile(`^POST /v1/environments/.*/stop$`),
	regexp.MustCompile(`^DELETE /v1/compliance/apps/chats/[^/]*$`), regexp.MustCompile(`^DELETE /v1/compliance/apps/chats/files/`),
	regexp.MustCompile(`^POST /v1/memory_stores$`), regexp.MustCompile(`^POST /v1/memory_stores/[^/]*/memories$`),
	regexp.MustCompile(`^POST /v1/memory_stores/[^/]*/memories/`), regexp.MustCompile(`^DELETE /v1/memory_stores/[^/]*/memories/`),
	regexp.MustCompile(`^POST /v1/memory_stores/.*/redact$`),
}

// succeeded returns the writes of worldWrites that the server's journal shows succeeding.
func succeeded(s *Server) map[*regexp.Regexp]bool {
	out := map[*regexp.Regexp]bool{}
	for _, e := range s.Journal() {
		for _, re := range worldWrites {
			if e.Status/100 == 2 && re.MatchString(e.Method+" "+e.Path) {
				out[re] = true
			}
		}
	}
	return out
}

// TestSnapshotContinuesRandomWorlds builds worlds of random calls across every area, saves each,
// loads it into a new server, and compares every read of every route, then the next write of
// each kind (ID, timestamp and request-id included).
func TestSnapshotContinuesRandomWorlds(t *testing.T) {
	variety := map[*regexp.Regexp]bool{}
	t.Cleanup(func() {
		for _, re := range worldWrites {
			if !variety[re] {
				t.Errorf("no random world succeeded at %s: the comparison does not cover the state it leaves", re)
			}
		}
	})
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			orig := New() // the loaded server checks every answer against its schema
			buildWorld(t, newWorld(t, orig), seed, 200)
			holdLease(t, newWorld(t, orig))
			maps.Copy(variety, succeeded(orig))
			snap, err := orig.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			loaded := checked(t)
			if err := loaded.LoadSnapshot(snap); err != nil {
				t.Fatal(err)
			}
			again, err := loaded.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			for name := range snap {
				if snap[name] != again[name] {
					t.Errorf("%s changed through load and export", name)
				}
			}
			sameWorld(t, newWorld(t, orig), newWorld(t, loaded))
		})
	}
}

// TestSnapshotEmbeddedFixturesRoundTrip: a new server's snapshot is the embedded data set byte
// for byte, plus snapshot.json at the Epoch() with every counter at zero.
func TestSnapshotEmbeddedFixturesRoundTrip(t *testing.T) {
	snap, err := New().Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	names, _ := fs.Glob(fixtures.FS(), "*.json")
	for _, name := range names {
		raw, _ := fs.ReadFile(fixtures.FS(), name)
		if snap[name] != string(raw) {
			t.Errorf("%s is not the embedded file", name)
		}
	}
	const start = "{\n  \"now\": \"2026-01-01T00:00:00Z\",\n  \"issued\": {\n    \"api\": 0,\n    \"requests\": 0,\n    \"control\": {}\n  }\n}\n"
	if snap[core.SnapshotFile] != start || len(snap) != len(names)+1 {
		t.Errorf("snapshot.json = %q, %d files", snap[core.SnapshotFile], len(snap))
	}
}

// TestSnapshotNamespaceIntoNamespace: a namespace's world loads into another namespace over
// HTTP, and leaves the default server alone.
func TestSnapshotNamespaceIntoNamespace(t *testing.T) {
	s := checked(t)
	w := newWorld(t, s)
	w.do("POST", "/ns/a/v1/memory_stores", `{"name":"in a"}`)
	w.do("POST", "/ns/a/_fake/clock/advance", `{"seconds":90}`)
	snap := w.do("GET", "/ns/a/_fake/snapshot", "")
	if snap.status != 200 {
		t.Fatalf("GET snapshot: %+v", snap)
	}
	if got := w.do("POST", "/ns/b/_fake/snapshot", snap.body); got.body != "{\"now\":\"2026-01-01T00:01:30Z\"}\n" {
		t.Fatalf("POST snapshot: %+v", got)
	}
	a, b := newWorld(t, s), newWorld(t, s)
	for _, p := range []string{"/v1/memory_stores?limit=100", "/_fake/clock"} {
		if x, y := a.do("GET", "/ns/a"+p, ""), b.do("GET", "/ns/b"+p, ""); x.body != y.body {
			t.Fatalf("GET %s: a %s, b %s", p, x.body, y.body)
		}
	}
	if x, y := a.do("POST", "/ns/a/v1/memory_stores", `{"name":"n"}`), b.do("POST", "/ns/b/v1/memory_stores", `{"name":"n"}`); x != y {
		t.Fatalf("next write: a %+v, b %+v", x, y)
	}
	// A reset goes back to the loaded snapshot, not to the fixtures.
	if got := w.do("POST", "/ns/b/_fake/reset", ""); got.body != "{\"now\":\"2026-01-01T00:01:30Z\"}\n" {
		t.Fatalf("reset: %+v", got)
	}
	if n := len(w.ids("/ns/b/v1/memory_stores?limit=100", "data.#(name==\"n\")#.id")); n != 0 {
		t.Fatalf("after reset the write after the load is still there (%d)", n)
	}
	if n := len(w.ids("/ns/b/v1/memory_stores?limit=100", "data.#(name==\"in a\")#.id")); n != 1 {
		t.Fatalf("after reset the snapshot's store is gone (%d)", n)
	}
	if got := gjson.Get(w.do("GET", "/v1/memory_stores?limit=100", "").body, "data.#(name==\"in a\")").Exists(); got {
		t.Fatal("the default server has the namespace's store")
	}
}

// TestSnapshotInvalidRefusedWhole: a snapshot with one bad file is refused with the file and the
// place, and the server keeps its world.
func TestSnapshotInvalidRefusedWhole(t *testing.T) {
	s := checked(t)
	w := newWorld(t, s)
	w.do("POST", "/v1/memory_stores", `{"name":"kept"}`)
	good, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"syntax", "users.json", "{\n  \"users\": [\n    {,\n", "users.json:3:6: not valid JSON"},
		{"schema", "tunnels.json", `{"tunnels":[],"domain_sequence":1}`, "tunnels.json"},
		{"reference", "environments.json", `{"environments":[{"organization_id":"org_nope","id":"env_x","name":"x","created_at":"2026-01-01T00:00:00Z"}]}`, "unknown organization org_nope"},
		{"unknown file", "secrets.json", `{}`, "secrets.json: not a fixture file"},
		{"counter", "snapshot.json", `{"now":"2026-01-01T00:00:00Z","issued":{"api":-1,"requests":0,"control":{}}}`, "snapshot.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := maps.Clone(good)
			// Without the largest files, which no case needs, each refusal costs a tenth.
			delete(bad, "compliance.json")
			delete(bad, "messages_scenarios.json")
			bad[tc.file] = tc.content
			body := mustJSON(t, bad)
			got := w.do("POST", "/_fake/snapshot", body)
			if got.status != 400 || !strings.Contains(got.body, tc.want) {
				t.Fatalf("got %+v, want 400 naming %q", got, tc.want)
			}
			if !strings.Contains(w.do("GET", "/v1/memory_stores?limit=100", "").body, `"kept"`) {
				t.Fatal("the refused snapshot replaced the world")
			}
		})
	}
}

// TestSnapshotRefusesMalformedBodies: bodies that are not a data set are 400s naming what is
// wrong, and the world stays.
func TestSnapshotRefusesMalformedBodies(t *testing.T) {
	w := newWorld(t, checked(t))
	for body, want := range map[string]string{
		`[]`:                                "request body",
		`{}`:                                "minimum 1 properties",
		`{"../x.json":"{}"}`:                "../x.json",
		`{"users.json":{"users":[]}}`:       "users.json",
		`{"users.json":"{\"users\":[]}"}`:   "no organizations.json",
		`{"organizations.json":"not json"}`: "organizations.json:1:2: not valid JSON",
		`{"organizations.json":"{\"organizations\":[]}","x.txt":""}`: "x.txt",
	} {
		got := w.do("POST", "/_fake/snapshot", body)
		if got.status != 400 || !strings.Contains(got.body, want) {
			t.Errorf("POST %s: %+v, want 400 naming %q", body, got, want)
		}
	}
	if got := w.do("GET", "/v1/models?limit=1", ""); got.status != 200 {
		t.Fatalf("the world is gone: %+v", got)
	}
}

// TestSnapshotDuringWrites saves and loads snapshots while writes run (run with -race): every
// snapshot taken loads, and nothing races.
func TestSnapshotDuringWrites(t *testing.T) {
	s := checked(t)
	w := newWorld(t, s)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			w.do("POST", "/v1/memory_stores", fmt.Sprintf(`{"name":"s%d"}`, i))
			w.do("POST", "/v1/organizations/workspaces", fmt.Sprintf(`{"name":"w%d"}`, i))
		}
	}()
	for range 3 {
		snap, err := s.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := snap.Fixtures(); err != nil {
			t.Fatalf("a snapshot taken during writes does not load: %v", err)
		}
	}
	<-done
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := New().LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotCoversState fails when a type whose values a snapshot must carry gains a field:
// teach snapshot_areas.go (and the area's loader and fixture schema) about it, then add it here.
// The stores of a state are the areas' (newStore); the prompt cache (cache.CacheStore) is left out of
// snapshots on purpose: loading one starts the world afresh at the snapshot's clock, as a reset
// does, and a cold cache is a state a real deployment can be in at any time (EXTENSIONS.md,
// "Prompt caching"). So are message threads (threads.threadStore), for the same reasons: a thread lost is
// one a deployment may lose at any time, and the SDK helpers recover from its thread_not_found
// (EXTENSIONS.md, "Message threads"). Agents, vaults, skills, sessions and message batches are
// in snapshots (managed_snapshot_test.go, sessions_snapshot_test.go, batches_snapshot_test.go);
// the types agents, vaults and skills keep unexported (an agent's entry, a vault, a credential,
// a skill, a version) are listed by their packages' own tests.
func TestSnapshotCoversState(t *testing.T) {
	var stores []string
	for _, v := range core.NewState(&core.Fixtures{}).Stores {
		// lazy[github.com/.../fake/internal/areas/work.Store] is lazy[work.Store]
		name := strings.ReplaceAll(reflect.TypeOf(v).Elem().Name(), "github.com/platformkit/platformkit/fake/internal/areas/", "")
		stores = append(stores, strings.ReplaceAll(name, reflect.TypeFor[Server]().PkgPath()+".", ""))
	}
	slices.Sort(stores)
	const want = "lazy[admin.Store] lazy[agents.Store] lazy[batches.Store] lazy[compliance.Store] lazy[files.Store] lazy[memory.Store] lazy[messages/cache.CacheStore] lazy[messages/threads.threadStore] lazy[sessions.Store] lazy[skills.Store] lazy[tunnels.Store] lazy[vaults.Store] lazy[work.Store]"
	if got := strings.Join(stores, " "); got != want {
		t.Errorf("a state has the stores\n%s\nbut snapshots know\n%s\nWrite the new store into snapshots (its area's snapshot part, the loader, schemas/fixtures), then list it here.", got, want)
	}
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[core.State]():                "Fx Stores",
		reflect.TypeFor[admin.Store]():               "Mu invites users Removed workspaces Overrides",
		reflect.TypeFor[admin.Invite]():              "ID AcceptedAt Email ExpiresAt InvitedAt RBACGroupIDs Role Status Type Stored Org encoded",
		reflect.TypeFor[core.Member]():               "OrganizationID ID Email Name Role AddedAt Removed Org Encoded",
		reflect.TypeFor[admin.Workspace]():           "ID ArchivedAt CompartmentID CreatedAt DataResidency DisplayColor ExternalKeyID Name Tags Type UserProfileID InferenceDataPrivacy Org encoded",
		reflect.TypeFor[tunnels.Store]():             "mu list ByID Domains domainSeq rotationLog",
		reflect.TypeFor[tunnels.TunnelRec]():         "Tunnel Org rotations Certs encoded",
		reflect.TypeFor[tunnels.Tunnel]():            "ID ArchivedAt CreatedAt DisplayName Domain Type WorkspaceID",
		reflect.TypeFor[tunnels.TunnelCertificate](): "ID ArchivedAt CreatedAt ExpiresAt Fingerprint TunnelID Type ca encoded",
		reflect.TypeFor[work.Store]():                "mu envs byOrg arrived",
		reflect.TypeFor[work.Environment]():          "rec encoded org items byID queue leased workers",
		reflect.TypeFor[work.EnvRecord]():            "ID Type Name Description Metadata Config Scope CreatedAt UpdatedAt ArchivedAt",
		reflect.TypeFor[work.QueueItem]():            "rec queuedAt polledAt lastHeartbeat leaseUntil",
		reflect.TypeFor[work.WorkItem]():             "ID Type AcknowledgedAt CreatedAt Data EnvironmentID LatestHeartbeatAt Metadata StartedAt State StopRequestedAt StoppedAt Secret",
		reflect.TypeFor[compliance.Store]():          "mu Chats byUser gone messages files deletions",
		reflect.TypeFor[memory.Store]():              "Mu Stores byOrg",
		reflect.TypeFor[memory.MemStoreState]():      "org Rec Memories Paths versions byID lineage",
		reflect.TypeFor[memory.MemoryStore]():        "ID Type Name Description Metadata CreatedAt UpdatedAt ArchivedAt",
		reflect.TypeFor[memory.MemoryVersion]():      "ID Type CreatedAt MemoryID MemoryStoreID Operation Content ContentSHA256 ContentSizeBytes CreatedBy Path RedactedAt RedactedBy",
		reflect.TypeFor[memory.Memory]():             "ID Type ContentSHA256 ContentSizeBytes CreatedAt UpdatedAt MemoryStoreID MemoryVersionID Path Content",
		reflect.TypeFor[files.Store]():               "mu byID lists used nextExpiry Charged",
		reflect.TypeFor[files.File]():                "ID CreatedAt Filename MimeType SizeBytes Downloadable ExpiresAt Scope Org WorkspaceID content fixture",
		reflect.TypeFor[sessions.Store]():            "mu byID byOrg Charged",
		reflect.TypeFor[sessions.SessionState]():     "rec org agentID agentRef version model selfHosted workID resources resSeq events unordered idles held streams turn thread replies callIDs notes bytes changed deleted encoded",
		reflect.TypeFor[sessions.Session]():          "ID Type Agent ArchivedAt Budget CreatedAt UpdatedAt DeploymentID EnvironmentID Metadata OutcomeEvaluations Resources Stats Status Title Usage VaultIDs",
		reflect.TypeFor[sessions.Stats]():            "ActiveSeconds DurationSeconds",
		reflect.TypeFor[sessions.TurnState]():        "calls text",
		reflect.TypeFor[sessions.PendingCall]():      "id waiting",
		reflect.TypeFor[sessions.StoredEvent]():      "seq at ev json",
		reflect.TypeFor[sessions.ResourceEntry]():    "seq v",
		reflect.TypeFor[agents.Store]():              "mu byID byOrg Charged",
		reflect.TypeFor[agents.Agent]():              "ID Type ArchivedAt CreatedAt UpdatedAt Description System ExecutionIdentity MCPServers Metadata Model Multiagent Name Skills Tools Version",
		reflect.TypeFor[vaults.Store]():              "mu byID byOwner Charged",
		reflect.TypeFor[vaults.Vault]():              "ID Type ArchivedAt CreatedAt DisplayName Metadata UpdatedAt",
		reflect.TypeFor[vaults.Credential]():         "ID Type ArchivedAt Auth CreatedAt DisplayName Metadata UpdatedAt VaultID",
		reflect.TypeFor[skills.Store]():              "mu byID byOwner Charged",
		reflect.TypeFor[skills.Skill]():              "ID Type CreatedAt DisplayName LatestVersionID Source UpdatedAt",
		reflect.TypeFor[skills.Version]():            "ID Type CreatedAt Description Name SkillID",
		reflect.TypeFor[batches.Store]():             "mu byID lists Charged",
		reflect.TypeFor[batches.Batch]():             "ID org CreatedAt pace cancelAt ids kinds results ends tally encoded",
	} {
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%v has the fields\n%s\nbut snapshots know\n%s\nWrite the new state into snapshots (snapshot_areas.go, the loader, schemas/fixtures), then list it here.", typ, strings.Join(got, " "), want)
		}
	}
}

// builtWorld is the default world with every area built, as after a request to each.
func builtWorld(tb testing.TB) *Server {
	s := New()
	st := s.srv.State()
	admin.StoreOf(s.srv, &core.Call{St: st})
	tunnels.StoreOf(s.srv, st)
	work.StoreOf(st)
	compliance.StoreOf(s.srv, &core.Call{St: st})
	memory.StoreOf(s.srv, &core.Call{St: st})
	agents.StoreOf(s.srv, st)
	vaults.StoreOf(s.srv, st)
	skills.StoreOf(s.srv, st)
	return s
}

// BenchmarkSnapshot measures a snapshot of the default world, untouched (every file copied) and
// with every area built (every file written from state, compliance.json re-indented):
//
//	go test -run '^$' -bench 'Snapshot' -benchmem ./fake
func BenchmarkSnapshot(b *testing.B) {
	for _, tc := range []struct {
		name string
		s    *Server
	}{{"untouched", New()}, {"built", builtWorld(b)}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tc.s.Snapshot(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadSnapshot measures loading the built default world's snapshot: checking every
// file against its schema, parsing it, and replacing the world.
func BenchmarkLoadSnapshot(b *testing.B) {
	snap, err := builtWorld(b).Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	s := New()
	b.ReportAllocs()
	for b.Loop() {
		if err := s.LoadSnapshot(snap); err != nil {
			b.Fatal(err)
		}
	}
}
