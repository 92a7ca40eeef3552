package fake

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/work"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fixtures"
)

const (
	acmePrimary   = "env_01AcmePrimary000000000001"
	acmeStaging   = "env_01AcmeStaging000000000001"
	globexPrimary = "env_01GlobexPrimary0000000001"
)

// workClient calls a test server with one credential header.
type workClient struct {
	t      testing.TB
	ts     *TestServer
	header string // "X-Api-Key" or "Authorization"
	secret string
}

func apiClient(t testing.TB, ts *TestServer) *workClient {
	return &workClient{t, ts, "X-Api-Key", "test-api-key"}
}

func envKeyClient(t testing.TB, ts *TestServer) *workClient {
	return &workClient{t, ts, "Authorization", "Bearer test-environment-key"}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) get(path string) gjson.Result { return gjson.GetBytes(r.body, path) }

func (wc *workClient) do(method, path string, body any, hdr ...string) reply {
	wc.t.Helper()
	return wc.doCtx(context.Background(), method, path, body, hdr...)
}

func (wc *workClient) doCtx(ctx context.Context, method, path string, body any, hdr ...string) reply {
	wc.t.Helper()
	header := []string{"vendor-version", core.APIVersion, "vendor-beta", "managed-agents-2026-04-01"}
	if wc.header != "" {
		header = append(header, wc.header, wc.secret)
	}
	status, h, data, err := roundTrip(ctx, wc.ts, method, path, body, append(header, hdr...)...)
	if err != nil {
		if ctx.Err() != nil {
			return reply{}
		}
		wc.t.Fatalf("%s %s: %v", method, path, err)
	}
	return reply{status, h, data}
}

// ok requires a 200 and returns the reply.
func (wc *workClient) ok(method, path string, body any, hdr ...string) reply {
	wc.t.Helper()
	r := wc.do(method, path, body, hdr...)
	if r.status != http.StatusOK {
		wc.t.Fatalf("%s %s = %d %s, want 200", method, path, r.status, r.body)
	}
	return r
}

// fails requires an error envelope of the status whose message mentions want.
func (wc *workClient) fails(status int, want, method, path string, body any, hdr ...string) reply {
	wc.t.Helper()
	r := wc.do(method, path, body, hdr...)
	if r.status != status || r.get("type").String() != "error" || !strings.Contains(r.get("error.message").String(), want) {
		wc.t.Fatalf("%s %s = %d %s, want %d mentioning %q", method, path, r.status, r.body, status, want)
	}
	return r
}

func workPath(env string, rest ...string) string {
	return "/v1/environments/" + env + "/work" + strings.Join(rest, "")
}

// newEnv creates an empty environment for a test of the queue, so fixture work does not interfere.
func newEnv(t testing.TB, ts *TestServer) string {
	t.Helper()
	return apiClient(t, ts).ok("POST", "/v1/environments", map[string]any{"name": "test"}).get("id").String()
}

func enqueue(t testing.TB, ts *TestServer, env string, meta map[string]string) work.WorkItem {
	t.Helper()
	it, err := ts.Fake.EnqueueWork(env, "", meta)
	if err != nil {
		t.Fatalf("EnqueueWork(%s) = %v", env, err)
	}
	return it
}

func advance(ts *TestServer, seconds float64) {
	ts.Fake.AdvanceClock(time.Duration(seconds * float64(time.Second)))
}

func TestFixtureEnvironments(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	list := api.ok("GET", "/v1/environments", nil)
	var ids []string
	for _, e := range list.get("data").Array() {
		ids = append(ids, e.Get("id").String())
	}
	if got, want := strings.Join(ids, ","), acmeStaging+","+acmePrimary; got != want {
		t.Fatalf("environments = %s, want %s (newest first, Acme's only)", got, want)
	}
	work := api.ok("GET", workPath(acmePrimary), nil)
	if n := work.get("data.#").Int(); n < 3 {
		t.Fatalf("primary environment has %d items, want at least 3", n)
	}
	for _, w := range work.get("data").Array() {
		if w.Get("state").String() != "queued" || len(w.Get("metadata").Map()) == 0 {
			t.Errorf("fixture item %s", w.Raw)
		}
	}
	api.fails(404, globexPrimary, "GET", "/v1/environments/"+globexPrimary, nil)
	api.fails(404, globexPrimary, "GET", workPath(globexPrimary), nil)
	other := &workClient{t, ts, "X-Api-Key", "test-api-key-2"}
	if got := other.ok("GET", "/v1/environments", nil).get("data.0.id").String(); got != globexPrimary {
		t.Fatalf("second organization sees %s", got)
	}
}

func TestEnvironmentKeyScope(t *testing.T) {
	ts := NewTestServer(t)
	ek := envKeyClient(t, ts)
	ek.ok("GET", workPath(acmePrimary), nil)
	ek.ok("GET", workPath(acmePrimary, "/stats"), nil)
	ek.fails(404, acmeStaging, "GET", workPath(acmeStaging), nil)
	ek.fails(404, globexPrimary, "GET", workPath(globexPrimary, "/poll"), nil)
	ek.fails(403, "environment key", "GET", "/v1/environments", nil)
	ek.fails(403, "environment key", "GET", "/v1/environments/"+acmePrimary, nil)
	admin := &workClient{t, ts, "X-Api-Key", "test-admin-key"}
	admin.fails(403, "admin", "GET", workPath(acmePrimary), nil)
	noVersion := apiClient(t, ts)
	noVersion.fails(400, "anthropic-version: header is required", "GET", workPath(acmePrimary), nil, "vendor-version", "")
}

func TestEnvironmentCRUD(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	created := api.ok("POST", "/v1/environments", map[string]any{
		"name": "ci", "metadata": map[string]string{"a": "1", "b": "2"},
		"config": map[string]any{"type": "cloud", "networking": map[string]any{"type": "unrestricted"}}, "scope": "account",
	})
	id := created.get("id").String()
	if created.get("config.networking.type").String() != "unrestricted" || created.get("scope").String() != "account" ||
		created.get("description").String() != "" || created.get("archived_at").Type != gjson.Null {
		t.Fatalf("created = %s", created.body)
	}
	plain := api.ok("POST", "/v1/environments", map[string]any{"name": "plain"})
	// cloud: the official SDK's examples (agents.py, agents_comprehensive.py) create an environment
	// without config and run a session in it with no worker, which only a cloud one ends.
	if plain.get("config.type").String() != "cloud" || plain.get("scope").String() != "organization" || plain.get("metadata").Raw != "{}" {
		t.Fatalf("defaults = %s", plain.body)
	}
	// A cloud config carries what the SDKs' BetaCloudConfig requires: networking and packages.
	if got := plain.get("config").Raw; got != `{"networking":{"type":"unrestricted"},"packages":{"apt":[],"cargo":[],"gem":[],"go":[],"npm":[],"pip":[],"type":"packages"},"type":"cloud"}` {
		t.Errorf("default config = %s, want a cloud config with unrestricted networking and no packages", got)
	}
	if got := created.get("config.packages.pip").Raw; got != "[]" || created.get("config.networking.type").String() != "unrestricted" {
		t.Errorf("a cloud config given without packages = %s, want packages completed and networking as given", created.get("config").Raw)
	}
	for _, bad := range []struct {
		body  any
		field string
	}{
		{map[string]any{}, "name"},
		{map[string]any{"name": ""}, "name"},
		{map[string]any{"name": strings.Repeat("x", 256)}, "name"},
		{map[string]any{"name": "x", "scope": "planet"}, "scope"},
		{map[string]any{"name": "x", "config": map[string]any{"type": "moon"}}, "config"},
		{map[string]any{"name": "x", "surprise": 1}, "surprise"},
		{map[string]any{"name": "x", "metadata": map[string]any{"k": 1}}, "metadata.k"},
	} {
		api.fails(400, bad.field, "POST", "/v1/environments", bad.body)
	}
	advance(ts, 60)
	upd := api.ok("POST", "/v1/environments/"+id, map[string]any{"name": "ci-2", "metadata": map[string]any{"a": nil, "c": "3"}})
	if upd.get("name").String() != "ci-2" || upd.get("metadata").Raw != `{"b":"2","c":"3"}` || upd.get("updated_at").String() == created.get("updated_at").String() {
		t.Fatalf("updated = %s", upd.body)
	}
	advance(ts, 60)
	same := api.ok("POST", "/v1/environments/"+id, map[string]any{"name": "ci-2"})
	if same.get("updated_at").String() != upd.get("updated_at").String() {
		t.Fatalf("a no-op update moved updated_at: %s", same.body)
	}
	many := map[string]any{}
	for i := range 15 {
		many[strings.Repeat("k", i+1)] = "v"
	}
	api.fails(400, "metadata", "POST", "/v1/environments/"+id, map[string]any{"metadata": many})
	if got := api.ok("GET", "/v1/environments/"+id, nil); string(got.body) != string(same.body) {
		t.Fatalf("a rejected update changed the environment: %s", got.body)
	}
	arch := api.ok("POST", "/v1/environments/"+id+"/archive", nil)
	again := api.ok("POST", "/v1/environments/"+id+"/archive", nil)
	if arch.get("archived_at").Type == gjson.Null || string(arch.body) != string(again.body) {
		t.Fatalf("archive %s, retried %s", arch.body, again.body)
	}
	api.fails(400, "archived", "POST", "/v1/environments/"+id, map[string]any{"name": "x"})
	if _, err := ts.Fake.EnqueueWork(id, "", nil); err == nil || !strings.Contains(err.Error(), "archived") {
		t.Fatalf("enqueue into an archived environment: %v", err)
	}
	for _, e := range api.ok("GET", "/v1/environments", nil).get("data").Array() {
		if e.Get("id").String() == id {
			t.Fatalf("archived environment listed without include_archived")
		}
	}
	if !strings.Contains(string(api.ok("GET", "/v1/environments?include_archived=true", nil).body), id) {
		t.Fatalf("archived environment missing with include_archived=true")
	}
	del := api.ok("DELETE", "/v1/environments/"+id, nil)
	if del.get("type").String() != "environment_deleted" || del.get("id").String() != id {
		t.Fatalf("delete = %s", del.body)
	}
	api.fails(404, id, "GET", "/v1/environments/"+id, nil)
	api.fails(404, id, "DELETE", "/v1/environments/"+id, nil)
	if strings.Contains(string(api.ok("GET", "/v1/environments?include_archived=true", nil).body), id) {
		t.Fatalf("deleted environment still listed")
	}
}

func TestEnvironmentListPages(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	for range 5 {
		newEnv(t, ts)
	}
	var all []string
	page := ""
	for {
		r := api.ok("GET", "/v1/environments?limit=2&page="+url.QueryEscape(page), nil)
		for _, e := range r.get("data").Array() {
			all = append(all, e.Get("id").String())
		}
		if r.get("next_page").Type == gjson.Null {
			break
		}
		page = r.get("next_page").String()
	}
	if len(all) != 7 || all[5] != acmeStaging || all[6] != acmePrimary {
		t.Fatalf("paged list = %v", all)
	}
	api.fails(400, "limit", "GET", "/v1/environments?limit=0", nil)
	api.fails(400, "limit", "GET", "/v1/environments?limit=101", nil)
	api.fails(400, "page", "GET", "/v1/environments?page=forged", nil)
	api.ok("GET", "/v1/environments?limit=100", nil)
}

func TestAckHeartbeatStopLifecycle(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := newEnv(t, ts)
	it := enqueue(t, ts, env, map[string]string{"job": "x"})
	item := workPath(env, "/", it.ID)
	polled := api.ok("GET", workPath(env, "/poll"), nil)
	if polled.get("id").String() != it.ID || polled.get("state").String() != "queued" {
		t.Fatalf("poll = %s", polled.body)
	}
	api.fails(400, "queued", "POST", item+"/heartbeat?expected_last_heartbeat=NO_HEARTBEAT", nil)
	advance(ts, 1)
	ack := api.ok("POST", item+"/ack", nil)
	if ack.get("state").String() != "starting" || ack.get("acknowledged_at").String() != "2026-01-01T00:00:01Z" || ack.get("started_at").Type != gjson.Null {
		t.Fatalf("ack = %s", ack.body)
	}
	api.fails(400, "starting", "POST", item+"/ack", nil)
	if api.ok("GET", workPath(env, "/poll"), nil).get("id").Exists() {
		t.Fatalf("an acknowledged item is still in the queue")
	}
	api.fails(412, "NO_HEARTBEAT", "POST", item+"/heartbeat?expected_last_heartbeat=2026-01-01T00:00:01Z", nil)
	advance(ts, 1)
	hb := api.ok("POST", item+"/heartbeat?expected_last_heartbeat=NO_HEARTBEAT&desired_ttl_seconds=20", nil)
	if hb.get("type").String() != "work_heartbeat" || !hb.get("lease_extended").Bool() || hb.get("state").String() != "active" ||
		hb.get("ttl_seconds").Float() != 20 || hb.get("last_heartbeat").String() != "2026-01-01T00:00:02Z" {
		t.Fatalf("first heartbeat = %s", hb.body)
	}
	got := api.ok("GET", item, nil)
	if got.get("started_at").String() != "2026-01-01T00:00:02Z" || got.get("latest_heartbeat_at").String() != "2026-01-01T00:00:02Z" {
		t.Fatalf("after first heartbeat: %s", got.body)
	}
	api.fails(412, "does not match", "POST", item+"/heartbeat?expected_last_heartbeat=NO_HEARTBEAT", nil)
	api.fails(412, "does not match", "POST", item+"/heartbeat?expected_last_heartbeat=2026-01-01T00:00:01Z", nil)
	advance(ts, 5)
	hb2 := api.ok("POST", item+"/heartbeat?expected_last_heartbeat="+url.QueryEscape(hb.get("last_heartbeat").String())+"&desired_ttl_seconds=1e12", nil)
	if hb2.get("ttl_seconds").Float() != work.MaxLeaseSeconds || hb2.get("last_heartbeat").String() != "2026-01-01T00:00:07Z" {
		t.Fatalf("second heartbeat = %s", hb2.body)
	}
	last := hb2.get("last_heartbeat").String()
	for _, bad := range []string{"0", "-1", "NaN", "Inf", "soon"} {
		api.fails(400, "desired_ttl_seconds", "POST", item+"/heartbeat?expected_last_heartbeat="+last+"&desired_ttl_seconds="+bad, nil)
	}
	api.fails(400, "expected_last_heartbeat", "POST", item+"/heartbeat?expected_last_heartbeat=", nil)
	advance(ts, 1)
	stop := api.ok("POST", item+"/stop", nil)
	if stop.get("state").String() != "stopping" || stop.get("stop_requested_at").String() != "2026-01-01T00:00:08Z" || stop.get("stopped_at").Type != gjson.Null {
		t.Fatalf("graceful stop = %s", stop.body)
	}
	if again := api.ok("POST", item+"/stop", map[string]any{"force": false}); string(again.body) != string(stop.body) {
		t.Fatalf("retried graceful stop changed the item: %s", again.body)
	}
	advance(ts, 2)
	hb3 := api.ok("POST", item+"/heartbeat?expected_last_heartbeat="+last, nil)
	if hb3.get("lease_extended").Bool() || hb3.get("state").String() != "stopping" || hb3.get("ttl_seconds").Float() != 300-3 {
		t.Fatalf("heartbeat while stopping = %s", hb3.body)
	}
	advance(ts, 297)
	done := api.ok("GET", item, nil)
	if done.get("state").String() != "stopped" || done.get("stopped_at").String() != "2026-01-01T00:05:07Z" {
		t.Fatalf("after the lease lapsed while stopping: %s", done.body)
	}
	api.fails(400, "stopped", "POST", item+"/stop", nil)
	api.fails(400, "stopped", "POST", item+"/heartbeat?expected_last_heartbeat="+hb3.get("last_heartbeat").String(), nil)
	api.fails(400, "stopped", "POST", item+"/ack", nil)
}

func TestForcedStopAndStopWithoutLease(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := newEnv(t, ts)
	running := enqueue(t, ts, env, nil)
	queued := enqueue(t, ts, env, nil)
	api.ok("POST", workPath(env, "/", running.ID, "/ack"), nil)
	api.ok("POST", workPath(env, "/", running.ID, "/heartbeat?expected_last_heartbeat=NO_HEARTBEAT"), nil)
	forced := api.ok("POST", workPath(env, "/", running.ID, "/stop"), map[string]any{"force": true})
	if forced.get("state").String() != "stopped" || forced.get("stopped_at").Type == gjson.Null || forced.get("stop_requested_at").Type == gjson.Null {
		t.Fatalf("forced stop = %s", forced.body)
	}
	api.fails(400, "stopped", "POST", workPath(env, "/", running.ID, "/heartbeat?expected_last_heartbeat=NO_HEARTBEAT"), nil)
	gentle := api.ok("POST", workPath(env, "/", queued.ID, "/stop"), nil)
	if gentle.get("state").String() != "stopped" {
		t.Fatalf("graceful stop of a queued item (no lease to wait for) = %s", gentle.body)
	}
	if r := api.ok("GET", workPath(env, "/poll"), nil); string(r.body) != "null\n" && string(r.body) != "null" {
		t.Fatalf("poll after stopping everything = %s", r.body)
	}
	api.fails(400, "force", "POST", workPath(env, "/", queued.ID, "/stop"), map[string]any{"force": "yes"})

	starting := enqueue(t, ts, env, nil)
	api.ok("POST", workPath(env, "/", starting.ID, "/ack"), nil)
	if r := api.ok("POST", workPath(env, "/", starting.ID, "/stop"), nil); r.get("state").String() != "stopped" {
		t.Fatalf("graceful stop of a starting item (no lease claimed yet) = %s", r.body)
	}

	stopping := enqueue(t, ts, env, nil)
	api.ok("POST", workPath(env, "/", stopping.ID, "/ack"), nil)
	api.ok("POST", workPath(env, "/", stopping.ID, "/heartbeat?expected_last_heartbeat=NO_HEARTBEAT"), nil)
	api.ok("POST", workPath(env, "/", stopping.ID, "/stop"), nil)
	advance(ts, 1)
	r := api.ok("POST", workPath(env, "/", stopping.ID, "/stop"), map[string]any{"force": true})
	if r.get("state").String() != "stopped" || r.get("stop_requested_at").String() != "2026-01-01T00:00:00Z" || r.get("stopped_at").String() != "2026-01-01T00:00:01Z" {
		t.Fatalf("forced stop of a stopping item = %s", r.body)
	}
	advance(ts, 60)
	if r := api.ok("GET", workPath(env, "/", stopping.ID), nil); r.get("stopped_at").String() != "2026-01-01T00:00:01Z" {
		t.Fatalf("the old lease's lapse changed a stopped item: %s", r.body)
	}
}

func TestLeaseLapseRequeues(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := newEnv(t, ts)
	it := enqueue(t, ts, env, nil)
	item := workPath(env, "/", it.ID)
	api.ok("POST", item+"/ack", nil)
	hb := api.ok("POST", item+"/heartbeat?expected_last_heartbeat=NO_HEARTBEAT", nil)
	if hb.get("ttl_seconds").Float() != work.DefaultLeaseSeconds {
		t.Fatalf("default ttl = %s", hb.body)
	}
	advance(ts, 29.999)
	if api.ok("GET", item, nil).get("state").String() != "active" {
		t.Fatalf("lease lapsed early")
	}
	advance(ts, 0.001)
	back := api.ok("GET", item, nil)
	if back.get("state").String() != "queued" || back.get("latest_heartbeat_at").Type != gjson.Null || back.get("acknowledged_at").Type != gjson.Null {
		t.Fatalf("after lapse: %s", back.body)
	}
	api.fails(412, "lapsed", "POST", item+"/heartbeat?expected_last_heartbeat="+hb.get("last_heartbeat").String(), nil)
	stats := api.ok("GET", workPath(env, "/stats"), nil)
	if stats.get("depth").Int() != 1 || stats.get("oldest_queued_at").String() != "2026-01-01T00:00:30Z" {
		t.Fatalf("stats after lapse = %s", stats.body)
	}
	if api.ok("GET", workPath(env, "/poll"), nil).get("id").String() != it.ID {
		t.Fatalf("the requeued item is not pollable")
	}
}

func TestPollOrderAndReclaim(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := newEnv(t, ts)
	a := enqueue(t, ts, env, nil)
	b := enqueue(t, ts, env, nil) // same instant: the ID breaks the tie
	poll := func(q string, hdr ...string) string {
		r := api.ok("GET", workPath(env, "/poll"+q), nil, hdr...)
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("poll Content-Type = %q", ct)
		}
		return r.get("id").String()
	}
	if got := poll("", "Vendor-Worker-ID", "w1"); got != a.ID {
		t.Fatalf("first poll = %s, want the oldest %s", got, a.ID)
	}
	if got := poll("", "Vendor-Worker-ID", "w2"); got != b.ID {
		t.Fatalf("second poll = %s, want %s (a is invisible)", got, b.ID)
	}
	if got := poll(""); got != "" {
		t.Fatalf("third poll = %s, want null", got)
	}
	stats := api.ok("GET", workPath(env, "/stats"), nil)
	if stats.get("depth").Int() != 2 || stats.get("pending").Int() != 2 || stats.get("workers_polling").Int() != 2 {
		t.Fatalf("stats = %s", stats.body)
	}
	advance(ts, 4.999)
	if got := poll(""); got != "" {
		t.Fatalf("reclaimed before 5000 ms: %s", got)
	}
	advance(ts, 0.001)
	if got := poll(""); got != a.ID {
		t.Fatalf("after 5000 ms = %s, want %s", got, a.ID)
	}
	if got := poll("?reclaim_older_than_ms=0"); got != a.ID {
		t.Fatalf("reclaim_older_than_ms=0 = %s, want %s again", got, a.ID)
	}
	advance(ts, 61)
	if n := api.ok("GET", workPath(env, "/stats"), nil).get("workers_polling").Int(); n != 0 {
		t.Fatalf("workers_polling after 61 s = %d", n)
	}
	for _, bad := range []string{"?block_ms=0", "?block_ms=1000", "?block_ms=-5", "?block_ms=x", "?reclaim_older_than_ms=-1"} {
		api.fails(400, strings.Split(bad[1:], "=")[0], "GET", workPath(env, "/poll"+bad), nil)
	}
	empty := newEnv(t, ts)
	if r := api.ok("GET", workPath(empty, "/poll"), nil); strings.TrimSpace(string(r.body)) != "null" {
		t.Fatalf("empty poll body = %q", r.body)
	}
	s := api.ok("GET", workPath(empty, "/stats"), nil)
	if s.get("depth").Int() != 0 || s.get("oldest_queued_at").Type != gjson.Null {
		t.Fatalf("empty stats = %s", s.body)
	}
}

func TestBlockingPoll(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := newEnv(t, ts)

	start := time.Now()
	if r := api.ok("GET", workPath(env, "/poll?block_ms=150"), nil); r.get("id").Exists() {
		t.Fatalf("blocking poll of an empty queue = %s", r.body)
	}
	if d := time.Since(start); d < 140*time.Millisecond || d > 2*time.Second {
		t.Fatalf("blocking poll took %v, want about 150ms", d)
	}

	// A poll is waiting once its worker shows in the queue's stats (its first look records it):
	// only then is the queue changed, so that only a wake-up can bring the poll the item. At its
	// deadline a poll answers null, so the item proves the wake-up without a wall-clock bound.
	waitForPollers := func(n int64) {
		for i := 0; api.ok("GET", workPath(env, "/stats"), nil).get("workers_polling").Int() < n; i++ {
			if i == 1000 {
				t.Fatalf("the blocked poll never showed in workers_polling")
			}
			time.Sleep(time.Millisecond)
		}
	}
	got := make(chan reply, 1)
	go func() { got <- api.do("GET", workPath(env, "/poll?block_ms=999"), nil, work.HeaderWorkerID, "w1") }()
	waitForPollers(1) // its stats answering beside it shows that the waiting poll holds no lock
	it := enqueue(t, ts, env, nil)
	if r := <-got; r.get("id").String() != it.ID {
		t.Fatalf("blocking poll = %d %s, want %s", r.status, r.body, it.ID)
	}

	// Reclaim happens when the virtual clock moves: a blocked poll wakes for it.
	go func() { got <- api.do("GET", workPath(env, "/poll?block_ms=999"), nil, work.HeaderWorkerID, "w2") }()
	waitForPollers(2)
	advance(ts, 6)
	if r := <-got; r.get("id").String() != it.ID {
		t.Fatalf("blocking poll after reclaim = %s", r.body)
	}

	// A client that goes away ends its poll: the server does not wait out block_ms. Close
	// blocks until every request's handler has returned, so it measures the handler.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	gone := NewTestServer(t)
	other := newEnv(t, gone)
	apiClient(t, gone).doCtx(ctx, "GET", workPath(other, "/poll?block_ms=999"), nil)
	if err := ctx.Err(); err == nil {
		t.Fatalf("the poll answered before the client went away")
	}
	start = time.Now()
	gone.Close()
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Fatalf("the poll went on %v after its client left", d)
	}
}

// TestConcurrentPollersAckEachItemOnce has many workers poll and acknowledge one queue at once:
// every item is acknowledged exactly once and none is lost.
func TestConcurrentPollersAckEachItemOnce(t *testing.T) {
	ts := NewTestServer(t)
	env := newEnv(t, ts)
	const items, workers = 200, 16
	want := map[string]bool{}
	for range items {
		want[enqueue(t, ts, env, nil).ID] = true
	}
	var mu sync.Mutex
	acked := map[string]int{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			api := apiClient(t, ts)
			worker := "worker-" + string(rune('a'+w))
			for misses := 0; misses < 3; {
				r := api.do("GET", workPath(env, "/poll?block_ms=20"), nil, "Vendor-Worker-ID", worker)
				id := r.get("id").String()
				if id == "" {
					misses++
					continue
				}
				if a := api.do("POST", workPath(env, "/", id, "/ack"), nil); a.status == http.StatusOK {
					mu.Lock()
					acked[id]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(acked) != items {
		t.Fatalf("%d items acknowledged, want %d", len(acked), items)
	}
	for id, n := range acked {
		if n != 1 || !want[id] {
			t.Fatalf("item %s acknowledged %d times", id, n)
		}
	}
	stats := apiClient(t, ts).ok("GET", workPath(env, "/stats"), nil)
	if stats.get("depth").Int() != 0 || stats.get("workers_polling").Int() != workers {
		t.Fatalf("stats = %s", stats.body)
	}
}

// TestHeartbeatRace has two workers claim one lease at once, then race on its echo: each time
// exactly one keeps the lease and the other gets 412.
func TestHeartbeatRace(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := newEnv(t, ts)
	for round := range 20 {
		it := enqueue(t, ts, env, nil)
		item := workPath(env, "/", it.ID)
		api.ok("POST", item+"/ack", nil)
		expected := "NO_HEARTBEAT"
		for step := range 2 {
			var wg sync.WaitGroup
			results := make([]reply, 2)
			for w := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[w] = apiClient(t, ts).do("POST", item+"/heartbeat?expected_last_heartbeat="+url.QueryEscape(expected), nil)
				}()
			}
			wg.Wait()
			won, lost := 0, 0
			for _, r := range results {
				switch r.status {
				case http.StatusOK:
					won++
					expected = r.get("last_heartbeat").String()
				case http.StatusPreconditionFailed:
					lost++
				}
			}
			if won != 1 || lost != 1 {
				t.Fatalf("round %d step %d: %d kept the lease, %d got 412: %s / %s", round, step, won, lost, results[0].body, results[1].body)
			}
			advance(ts, 1)
		}
	}
}

func TestEnqueueControl(t *testing.T) {
	ts := NewTestServer(t)
	ctl := &workClient{t, ts, "", ""}
	r := ctl.ok("POST", "/_fake/environments/"+acmeStaging+"/work", map[string]any{"session_id": "session_abc", "metadata": map[string]string{"k": "v"}})
	if r.get("data.id").String() != "session_abc" || r.get("data.type").String() != "session" || r.get("environment_id").String() != acmeStaging ||
		r.get("state").String() != "queued" || r.get("metadata.k").String() != "v" {
		t.Fatalf("enqueue = %s", r.body)
	}
	gen := ctl.ok("POST", "/_fake/environments/"+globexPrimary+"/work", nil)
	if !strings.HasPrefix(gen.get("data.id").String(), "session_") || !strings.HasPrefix(gen.get("id").String(), "work_") {
		t.Fatalf("enqueue without body = %s", gen.body)
	}
	ctl.fails(404, "env_nope", "POST", "/_fake/environments/env_nope/work", nil)
	ctl.fails(400, "session_id", "POST", "/_fake/environments/"+acmeStaging+"/work", map[string]any{"session_id": "sess ion"})
	ctl.fails(400, "bogus", "POST", "/_fake/environments/"+acmeStaging+"/work", map[string]any{"bogus": true})
	if n := apiClient(t, ts).ok("GET", workPath(acmeStaging), nil).get("data.#").Int(); n != 1 {
		t.Fatalf("staging holds %d items after one good and two bad enqueues", n)
	}
}

func TestWorkNotFoundAndDeterminism(t *testing.T) {
	run := func() string {
		ts := NewTestServer(t)
		api := apiClient(t, ts)
		api.fails(404, "work_nope", "GET", workPath(acmePrimary, "/work_nope"), nil)
		api.fails(404, "work_nope", "POST", workPath(acmePrimary, "/work_nope/ack"), nil)
		api.fails(404, "env_nope", "GET", workPath("env_nope", "/poll"), nil)
		glob := &workClient{t, ts, "X-Api-Key", "test-api-key-2"}
		glob.fails(404, "work_01AcmeQueuedBuild00000001", "GET", workPath(globexPrimary, "/work_01AcmeQueuedBuild00000001"), nil)
		var out []string
		p := api.ok("GET", workPath(acmePrimary, "/poll"), nil)
		out = append(out, string(p.body))
		id := p.get("id").String()
		out = append(out, string(api.ok("POST", workPath(acmePrimary, "/", id, "/ack"), nil).body))
		out = append(out, string(api.ok("POST", workPath(acmePrimary, "/", id, "/heartbeat?expected_last_heartbeat=NO_HEARTBEAT"), nil).body))
		out = append(out, string(api.ok("GET", workPath(acmePrimary, "?limit=2"), nil).body))
		return strings.Join(out, "")
	}
	first := run()
	if !strings.Contains(first, "work_01AcmeQueuedBuild00000001") {
		t.Fatalf("the oldest fixture item was not polled first: %s", first)
	}
	if second := run(); first != second {
		t.Fatalf("two runs differ:\n%s\n%s", first, second)
	}
}

func TestWorkListPages(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := newEnv(t, ts)
	var want []string
	for range 5 {
		want = append(want, enqueue(t, ts, env, nil).ID)
	}
	var got []string
	page := ""
	for {
		r := api.ok("GET", workPath(env, "?limit=2&page="+url.QueryEscape(page)), nil)
		for _, w := range r.get("data").Array() {
			got = append(got, w.Get("id").String())
		}
		if r.get("next_page").Type == gjson.Null {
			break
		}
		page = r.get("next_page").String()
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("work pages = %v, want %v", got, want)
	}
	api.fails(400, "page", "GET", workPath(env, "?page="+url.QueryEscape(page+"x")), nil)
	api.fails(400, "limit", "GET", workPath(env, "?limit=101"), nil)
}

func TestEnvironmentFixturesChecked(t *testing.T) {
	fx, err := core.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	if len(*work.EnvsSection.In(fx.Sections)) < 3 {
		t.Fatalf("%d fixture environments", len(*work.EnvsSection.In(fx.Sections)))
	}
	orgs, _ := fs.ReadFile(fixtures.FS(), "organizations.json")
	envs := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for name, tc := range map[string]struct {
		envs *fstest.MapFile
		want string
	}{
		"no environments file": {nil, ""},
		"key without its environment": {envs(`{"environments": [{"organization_id": "org_01AcmeCorporation00000001", "id": "env_01AcmePrimary000000000001", "name": "a", "created_at": "2025-01-01T00:00:00Z"}]}`),
			"envkey_01GlobexPrimaryEnvKey001"},
		"key of another organization's environment": {envs(`{"environments": [
			{"organization_id": "org_01AcmeCorporation00000001", "id": "env_01AcmePrimary000000000001", "name": "a", "created_at": "2025-01-01T00:00:00Z"},
			{"organization_id": "org_01AcmeCorporation00000001", "id": "env_01GlobexPrimary0000000001", "name": "b", "created_at": "2025-01-01T00:00:00Z"}]}`),
			"envkey_01GlobexPrimaryEnvKey001"},
		"duplicate ID": {envs(`{"environments": [
			{"organization_id": "org_01AcmeCorporation00000001", "id": "env_01AcmePrimary000000000001", "name": "a", "created_at": "2025-01-01T00:00:00Z",
			 "work": [{"id": "work_x", "session_id": "session_x", "created_at": "2025-01-01T00:00:00Z"}, {"id": "work_x", "session_id": "session_y", "created_at": "2025-01-01T00:00:00Z"}]},
			{"organization_id": "org_01GlobexIndustries0000001", "id": "env_01GlobexPrimary0000000001", "name": "b", "created_at": "2025-01-01T00:00:00Z"}]}`),
			`"work_x" is used twice`},
	} {
		fsys := fstest.MapFS{"organizations.json": {Data: orgs}}
		if tc.envs != nil {
			fsys["environments.json"] = tc.envs
		}
		_, err := core.LoadFixtures(fsys)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: LoadFixtures = %v, want an error mentioning %q", name, err, tc.want)
		}
	}
}

func BenchmarkPollAck(b *testing.B) {
	ts := NewTestServer(b)
	env := newEnv(b, ts)
	api := apiClient(b, ts)
	b.ResetTimer()
	for range b.N {
		it := enqueue(b, ts, env, nil)
		api.ok("GET", workPath(env, "/poll"), nil)
		api.ok("POST", workPath(env, "/", it.ID, "/ack"), nil)
	}
}

// BenchmarkPollAckParallel measures the queue under contention: every goroutine enqueues, polls
// and acknowledges through HTTP, on one environment whose history keeps growing.
func BenchmarkPollAckParallel(b *testing.B) {
	ts := NewTestServer(b)
	env := newEnv(b, ts)
	b.RunParallel(func(pb *testing.PB) {
		api := apiClient(b, ts)
		for pb.Next() {
			if _, err := ts.Fake.EnqueueWork(env, "", nil); err != nil {
				b.Error(err)
				return
			}
			id := api.do("GET", workPath(env, "/poll"), nil).get("id").String()
			if id == "" {
				continue // another goroutine took the item just enqueued
			}
			if r := api.do("POST", workPath(env, "/", id, "/ack"), nil); r.status != http.StatusOK {
				b.Errorf("ack = %d %s", r.status, r.body)
				return
			}
		}
	})
}

// TestEnvironmentListAfterChange: a list page splices each environment's record, encoded once
// per change. After every change (create, update, a no-op update, archive) each listed record
// is byte for byte what reading the environment answers, which encodes it anew.
func TestEnvironmentListAfterChange(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := api.ok("POST", "/v1/environments", map[string]any{
		"name": "cached", "metadata": map[string]string{"a": "1"},
		"config": map[string]any{"type": "cloud", "networking": map[string]any{"type": "unrestricted"}},
	}).get("id").String()
	check := func(after string) {
		t.Helper()
		seen := 0
		for _, item := range api.ok("GET", "/v1/environments?include_archived=true&limit=100", nil).get("data").Array() {
			one := strings.TrimSpace(string(api.ok("GET", "/v1/environments/"+item.Get("id").String(), nil).body))
			if item.Raw != one {
				t.Fatalf("after %s the list gives\n%s\nand reading the environment\n%s", after, item.Raw, one)
			}
			seen++
		}
		if seen < 2 {
			t.Fatalf("after %s only %d environments are listed", after, seen)
		}
	}
	check("create")
	check("a second list") // answered from the bytes the first encoded
	advance(ts, 60)
	api.ok("POST", "/v1/environments/"+id, map[string]any{"name": "renamed", "metadata": map[string]any{"a": nil, "b": "2"}})
	check("update")
	api.ok("POST", "/v1/environments/"+id, map[string]any{"name": "renamed"})
	check("an update that changes nothing")
	advance(ts, 60)
	api.ok("POST", "/v1/environments/"+id+"/archive", nil)
	check("archive")
	if got := api.ok("GET", "/v1/environments?include_archived=true&limit=100", nil).get(`data.#(id=="` + id + `").name`).String(); got != "renamed" {
		t.Fatalf("the listed name is %q after the rename", got)
	}
}

// TestWorkUpdateMergesMetadata: the SDKs' work update is a metadata patch: a string upserts its
// key, null deletes it, keys not named stay; with the environment key too; other fields and the
// item's state are untouched; the 16-pair limit holds for the result.
func TestWorkUpdateMergesMetadata(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := newEnv(t, ts)
	it := enqueue(t, ts, env, map[string]string{"keep": "1", "drop": "2", "change": "3"})
	path := workPath(env, "/", it.ID)
	got := api.ok("POST", path, map[string]any{"metadata": map[string]any{"drop": nil, "change": "three", "add": "4", "absent": nil}})
	if md := got.get("metadata").Raw; md != `{"add":"4","change":"three","keep":"1"}` {
		t.Fatalf("metadata after patch = %s", md)
	}
	if got.get("state").String() != "queued" || got.get("id").String() != it.ID {
		t.Fatalf("update changed more than metadata: %s", got.body)
	}
	if md := api.ok("GET", path, nil).get("metadata").Raw; md != `{"add":"4","change":"three","keep":"1"}` {
		t.Fatalf("metadata read back = %s", md)
	}
	if md := api.ok("POST", path, map[string]any{"metadata": map[string]any{}}).get("metadata").Raw; md != `{"add":"4","change":"three","keep":"1"}` {
		t.Fatalf("an empty patch changed metadata: %s", md)
	}
	// The environment key reaches its own environment's items.
	primary := workPath(acmePrimary, "/work_01AcmeQueuedBuild00000001")
	if v := envKeyClient(t, ts).ok("POST", primary, map[string]any{"metadata": map[string]any{"by": "worker"}}).get("metadata.by").String(); v != "worker" {
		t.Fatalf("update with the environment key: metadata.by = %q", v)
	}
	many := map[string]any{}
	for i := range 14 {
		many[fmt.Sprintf("k%02d", i)] = "v"
	}
	api.fails(400, "at most 16", "POST", path, map[string]any{"metadata": many})
	for _, tc := range []struct {
		body any
		want string
	}{
		{nil, "metadata"},
		{map[string]any{}, "metadata"},
		{map[string]any{"metadata": "x"}, "metadata"},
		{map[string]any{"metadata": map[string]any{"k": 1}}, "metadata.k"},
		{map[string]any{"metadata": map[string]any{"": "v"}}, "metadata"},
		{map[string]any{"metadata": map[string]any{"k": strings.Repeat("v", 513)}}, "metadata.k"},
		{map[string]any{"metadata": map[string]any{}, "state": "stopped"}, "state: unknown field"},
	} {
		api.fails(400, tc.want, "POST", path, tc.body)
	}
	api.fails(404, "work_nope", "POST", workPath(env, "/work_nope"), map[string]any{"metadata": map[string]any{}})
	if md := api.ok("GET", path, nil).get("metadata").Raw; md != `{"add":"4","change":"three","keep":"1"}` {
		t.Fatalf("refused updates changed metadata: %s", md)
	}
}

// TestWorkSecret: every answer for a work item carries its secret, the same one each time, and
// another item has another; it decodes as the official Python SDK 2.14.0's worker decodes it
// (_sessions_token_from_secret: URL-safe base64, padding optional, JSON with a string
// sessions_token), so the worker uses the token rather than the environment key.
func TestWorkSecret(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	want := api.ok("GET", workPath(acmePrimary, "/work_01AcmeQueuedBuild00000001"), nil).get("secret").String()
	polled := api.ok("GET", workPath(acmePrimary, "/poll"), nil)
	if polled.get("id").String() != "work_01AcmeQueuedBuild00000001" || polled.get("secret").String() != want {
		t.Fatalf("poll = %s, want the secret %q", polled.body, want)
	}
	if other := api.ok("GET", workPath(acmePrimary, "/work_01AcmeQueuedReview0000001"), nil).get("secret").String(); other == want || other == "" {
		t.Fatalf("another item's secret = %q", other)
	}
	if tok := sessionsToken(t, want); tok == "" {
		t.Fatalf("secret %q carries no sessions_token", want)
	}
}

// sessionsToken decodes a work item's secret as the official Python SDK's worker does.
func sessionsToken(t testing.TB, secret string) string {
	t.Helper()
	raw, err := base64.URLEncoding.DecodeString(secret + strings.Repeat("=", (4-len(secret)%4)%4))
	if err != nil {
		t.Fatalf("secret %q is not URL-safe base64: %v", secret, err)
	}
	var payload map[string]any
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatalf("secret %q is not JSON: %v", raw, err)
	}
	tok, _ := payload["sessions_token"].(string)
	return tok
}

// The official SDKs type expected_last_heartbeat optional (Python anthropic 2.14.0,
// types/beta/environments/work_heartbeat_params.py: Optional[str]): a heartbeat without it is
// unconditional, claiming an unclaimed lease and extending a claimed one whoever holds it.
func TestUnconditionalHeartbeat(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := newEnv(t, ts)
	it := enqueue(t, ts, env, map[string]string{"job": "x"})
	item := workPath(env, "/", it.ID)
	api.ok("GET", workPath(env, "/poll"), nil)
	api.fails(400, "queued", "POST", item+"/heartbeat", nil) // a queued item holds no lease to heartbeat
	api.ok("POST", item+"/ack", nil)
	advance(ts, 1)
	first := api.ok("POST", item+"/heartbeat?desired_ttl_seconds=20", nil)
	if first.get("state").String() != "active" || !first.get("lease_extended").Bool() || first.get("ttl_seconds").Float() != 20 || first.get("last_heartbeat").String() != "2026-01-01T00:00:01Z" {
		t.Fatalf("unconditional first heartbeat = %s", first.body)
	}
	// The lease is claimed now: a conditional claim is refused, and another unconditional
	// heartbeat extends it.
	api.fails(412, "does not match", "POST", item+"/heartbeat?expected_last_heartbeat=NO_HEARTBEAT", nil)
	advance(ts, 2)
	if again := api.ok("POST", item+"/heartbeat", nil); again.get("last_heartbeat").String() != "2026-01-01T00:00:03Z" || !again.get("lease_extended").Bool() {
		t.Fatalf("unconditional second heartbeat = %s", again.body)
	}
	api.ok("POST", item+"/heartbeat?expected_last_heartbeat="+url.QueryEscape("2026-01-01T00:00:03Z"), nil)
}
