package fake

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// sessionRecord is what the reference filter of the session list reads of a session, as
// GET /v1/sessions/{id} answers it.
type sessionRecord struct {
	id, agent, status string
	version           int64
	created           time.Time
	archived, store   bool
}

// sessionFilter is a query of the session list and the plain filter it stands for.
type sessionFilter struct {
	query string
	keep  func(r sessionRecord) bool
	desc  bool
}

// Every page of the session list, for every filter, page size and place to start (the token of
// a page after or before any session, kept by the filter or not), is the span of a plain
// reference filter over the test's sessions (sorted by created_at then ID, many sharing their
// created_at), and carries next_page and prev_page exactly when a kept session lies on that side.
func TestSessionListPagesEqualReference(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	// The organization's sessions are the test's alone: the data set's go first.
	for _, id := range api.ok("GET", "/v1/sessions?include_archived=true&limit=100", nil).get("data.#.id").Array() {
		api.ok("DELETE", "/v1/sessions/"+id.String(), nil)
	}
	env := cloudEnv(t, api)
	agents := []string{newAgent(t, api, ""), newAgent(t, api, ""), newAgent(t, api, "")}
	var ids []string
	for i := range 30 {
		ref := any(agents[i%3])
		if i%3 == 0 && i >= 12 {
			if i == 12 {
				api.ok("POST", "/v1/agents/"+agents[0], map[string]any{"system": "Be brief.", "version": 1})
			}
			if i%2 == 0 {
				ref = map[string]any{"type": "agent", "id": agents[0], "version": 1}
			}
		}
		body := map[string]any{"agent": ref, "environment_id": env}
		if i%4 == 1 {
			body["resources"] = []any{map[string]any{"type": "memory_store", "memory_store_id": "memstore_01prefs"}}
		}
		id := api.ok("POST", "/v1/sessions", body).get("id").String()
		ids = append(ids, id)
		if i%5 == 2 {
			api.ok("POST", "/v1/sessions/"+id+"/archive", nil)
		}
		if i%4 == 3 { // four sessions to an instant: ties in created_at, broken by ID
			ts.Fake.AdvanceClock(time.Second)
		}
	}
	var records []sessionRecord
	for _, id := range ids {
		r := api.ok("GET", "/v1/sessions/"+id, nil)
		created, err := time.Parse(time.RFC3339Nano, r.get("created_at").String())
		if err != nil {
			t.Fatal(err)
		}
		records = append(records, sessionRecord{id: id, agent: r.get("agent.id").String(), version: r.get("agent.version").Int(),
			status: r.get("status").String(), created: created, archived: r.get("archived_at").Type != 0,
			store: r.get(`resources.#(memory_store_id=="memstore_01prefs")`).Exists()})
	}
	at := func(i int) string { return url.QueryEscape(records[i].created.Format(time.RFC3339Nano)) }
	live := func(r sessionRecord) bool { return !r.archived }
	all := func(sessionRecord) bool { return true }
	filters := []sessionFilter{
		{"", live, true},
		{"include_archived=true", all, true},
		{"order=asc", live, false},
		{"order=asc&include_archived=true", all, false},
		{"agent_id=" + agents[0], func(r sessionRecord) bool { return live(r) && r.agent == agents[0] }, true},
		{"agent_id=" + agents[0] + "&agent_version=1", func(r sessionRecord) bool { return live(r) && r.agent == agents[0] && r.version == 1 }, true},
		{"agent_id=" + agents[0] + "&agent_version=2&include_archived=true&order=asc", func(r sessionRecord) bool { return r.agent == agents[0] && r.version == 2 }, false},
		{"created_at[gte]=" + at(5) + "&created_at[lt]=" + at(21), func(r sessionRecord) bool {
			return live(r) && !r.created.Before(records[5].created) && r.created.Before(records[21].created)
		}, true},
		{"created_at[gt]=" + at(3) + "&created_at[lte]=" + at(17) + "&order=asc&include_archived=true", func(r sessionRecord) bool {
			return r.created.After(records[3].created) && !r.created.After(records[17].created)
		}, false},
		{"created_at[gt]=" + at(29), func(sessionRecord) bool { return false }, true},
		{"statuses[]=terminated&include_archived=true", func(r sessionRecord) bool { return r.status == "terminated" }, true},
		{"statuses[]=idle&statuses[]=terminated&include_archived=true&order=asc&agent_id=" + agents[1], func(r sessionRecord) bool {
			return (r.status == "idle" || r.status == "terminated") && r.agent == agents[1]
		}, false},
		{"memory_store_id=memstore_01prefs&created_at[lt]=" + at(25), func(r sessionRecord) bool { return live(r) && r.store && r.created.Before(records[25].created) }, true},
		{"deployment_id=depl_none&include_archived=true", func(sessionRecord) bool { return false }, true},
	}
	// The reference's order: created_at, then ID, both ascending; desc is its reverse.
	key := func(r sessionRecord) core.ListKey { return core.ListKey{At: r.created, ID: r.id} }
	sorted := slices.Clone(records)
	slices.SortFunc(sorted, func(a, b sessionRecord) int { return core.OldestFirst(key(a), key(b)) })
	checked := 0
	for _, f := range filters {
		var want []string // in list order
		cmp := core.OldestFirst
		order := "asc"
		if f.desc {
			cmp, order = core.NewestFirst, "desc"
		}
		for _, r := range sorted {
			if f.keep(r) {
				want = append(want, r.id)
			}
		}
		if f.desc {
			slices.Reverse(want)
		}
		keyOf := map[string]core.ListKey{}
		for _, r := range records {
			keyOf[r.id] = key(r)
		}
		// expect checks a page against want[lo:hi].
		expect := func(what string, got reply, lo, hi int) {
			t.Helper()
			checked++
			var gotIDs []string
			for _, x := range got.get("data.#.id").Array() {
				gotIDs = append(gotIDs, x.String())
			}
			wantIDs := want[lo:hi]
			if fmt.Sprint(gotIDs) != fmt.Sprint(wantIDs) {
				t.Fatalf("%s: data = %v, want %v", what, gotIDs, wantIDs)
			}
			hasNext, hasPrev := got.get("next_page").Type != 0, got.get("prev_page").Type != 0
			if wantNext, wantPrev := hi > lo && hi < len(want), hi > lo && lo > 0; hasNext != wantNext || hasPrev != wantPrev {
				t.Fatalf("%s: next_page %v, prev_page %v; want %v, %v", what, hasNext, hasPrev, wantNext, wantPrev)
			}
		}
		base := "/v1/sessions?" + f.query
		for _, limit := range []int{1, 2, 3, 7, 100} {
			path := fmt.Sprintf("%s&limit=%d", base, limit)
			// Walking forward from the first page, and back from each page.
			lo, page := 0, api.ok("GET", path, nil)
			for {
				hi := min(lo+limit, len(want))
				expect(fmt.Sprintf("%s from %d", path, lo), page, lo, hi)
				if prev := page.get("prev_page").String(); prev != "" {
					back := api.ok("GET", path+"&page="+prev, nil)
					expect(fmt.Sprintf("%s before %d", path, lo), back, max(0, lo-limit), lo)
					if next := back.get("next_page").String(); next != "" {
						expect(fmt.Sprintf("%s after the page before %d", path, lo), api.ok("GET", path+"&page="+next, nil), lo, min(lo+limit, len(want)))
					}
				}
				next := page.get("next_page").String()
				if next == "" {
					break
				}
				lo, page = hi, api.ok("GET", path+"&page="+next, nil)
			}
			// A token after and before every session, whether the filter keeps it or not.
			for _, r := range records {
				k := key(r)
				after := 0 // want's items up to k, in list order
				for after < len(want) && cmp(keyOf[want[after]], k) <= 0 {
					after++
				}
				before := after // want's items before k
				if before > 0 && want[before-1] == r.id {
					before--
				}
				fwd := core.EncodePageToken("sessions_"+order, k)
				expect(fmt.Sprintf("%s after %s", path, r.id), api.ok("GET", path+"&page="+fwd, nil), after, min(after+limit, len(want)))
				bwd := core.EncodePageToken("sessions_"+order+"_back", k)
				// A page before k is the last limit items before it.
				expect(fmt.Sprintf("%s before %s", path, r.id), api.ok("GET", path+"&page="+bwd, nil), max(0, before-limit), before)
			}
		}
	}
	t.Logf("%d pages checked", checked)
}

// Every page of a session's events, for every filter, page size and token (after any event), is
// the span of a plain reference filter over the session's log, and carries next_page exactly when
// a kept event lies past it; in a log in processed_at order (created_at bounded by search) and in
// a log whose events a data set put ahead of the clock (walked).
func TestSessionEventPagesEqualReference(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := cloudSession(t, api)
	for i := range 6 { // each send's events share an instant: ties in processed_at
		api.ok("POST", "/v1/sessions/"+id+"/events", userMessage(fmt.Sprint("hello ", i)))
		if i%2 == 1 {
			ts.Fake.AdvanceClock(time.Second)
		}
	}
	checkEventPages(t, api, id)

	// The same session loaded with its events ten hours ahead of the clock, then sent more.
	snap, err := ts.Fake.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	snap = editSessions(t, ownSessions(t, snap), func(list []map[string]any) []map[string]any {
		for _, s := range list {
			for i, x := range s["events"].([]any) {
				var ev map[string]any
				if err := json.Unmarshal([]byte(x.(string)), &ev); err != nil {
					t.Fatal(err)
				}
				at, _ := time.Parse(time.RFC3339Nano, ev["processed_at"].(string))
				ev["processed_at"] = at.Add(10 * time.Hour).Format(time.RFC3339Nano)
				b, _ := json.Marshal(ev)
				s["events"].([]any)[i] = string(b)
			}
		}
		return list
	})
	ahead := NewTestServer(t)
	if err := ahead.Fake.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	api = apiClient(t, ahead)
	for i := range 3 {
		api.ok("POST", "/v1/sessions/"+id+"/events", userMessage(fmt.Sprint("again ", i)))
		ahead.Fake.AdvanceClock(time.Second)
	}
	checkEventPages(t, api, id)
}

// checkEventPages holds the event list's pages of session id to a reference filter of its log.
func checkEventPages(t *testing.T, api *workClient, id string) {
	t.Helper()
	type event struct {
		id, typ string
		at      time.Time
	}
	// The log, as one unfiltered page holds it: the records the filters are checked over.
	var log []event
	for _, x := range api.ok("GET", "/v1/sessions/"+id+"/events?limit=1000", nil).get("data").Array() {
		at, err := time.Parse(time.RFC3339Nano, x.Get("processed_at").String())
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, event{x.Get("id").String(), x.Get("type").String(), at})
	}
	times := map[time.Time]bool{}
	for _, e := range log {
		times[e.at] = true
	}
	instants := slices.SortedFunc(maps.Keys(times), time.Time.Compare)
	q := func(t time.Time) string { return url.QueryEscape(t.Format(time.RFC3339Nano)) }
	first, mid, last := instants[0], instants[len(instants)/2], instants[len(instants)-1]
	type filter struct {
		query string
		keep  func(e event) bool
	}
	all := func(event) bool { return true }
	filters := []filter{
		{"", all},
		{"order=desc", all},
		{"types[]=agent.message", func(e event) bool { return e.typ == "agent.message" }},
		{"types[]=user.message&types[]=session.status_idle&order=desc", func(e event) bool { return e.typ == "user.message" || e.typ == "session.status_idle" }},
		{"created_at[gte]=" + q(mid), func(e event) bool { return !e.at.Before(mid) }},
		{"created_at[gt]=" + q(first) + "&created_at[lt]=" + q(last) + "&order=desc", func(e event) bool { return e.at.After(first) && e.at.Before(last) }},
		{"created_at[lte]=" + q(mid) + "&types[]=agent.message", func(e event) bool { return !e.at.After(mid) && e.typ == "agent.message" }},
		{"created_at[gt]=" + q(last), func(event) bool { return false }},
	}
	for _, f := range filters {
		desc := strings.Contains(f.query, "order=desc")
		var want []int // places in the log, in list order
		for i, e := range log {
			if f.keep(e) {
				want = append(want, i)
			}
		}
		if desc {
			slices.Reverse(want)
		}
		for _, limit := range []int{1, 2, 5, 100} {
			path := fmt.Sprintf("/v1/sessions/%s/events?%s&limit=%d", id, f.query, limit)
			expect := func(what string, got reply, lo int) {
				t.Helper()
				hi := min(lo+limit, len(want))
				var gotIDs, wantIDs []string
				for _, x := range got.get("data.#.id").Array() {
					gotIDs = append(gotIDs, x.String())
				}
				for _, i := range want[lo:hi] {
					wantIDs = append(wantIDs, log[i].id)
				}
				if fmt.Sprint(gotIDs) != fmt.Sprint(wantIDs) {
					t.Fatalf("%s: data = %v, want %v", what, gotIDs, wantIDs)
				}
				if has, wantNext := got.get("next_page").Type != 0, hi > lo && hi < len(want); has != wantNext {
					t.Fatalf("%s: next_page %v, want %v", what, has, wantNext)
				}
			}
			lo, page := 0, api.ok("GET", path, nil)
			for {
				expect(fmt.Sprintf("%s from %d", path, lo), page, lo)
				next := page.get("next_page").String()
				if next == "" {
					break
				}
				lo, page = min(lo+limit, len(want)), api.ok("GET", path+"&page="+next, nil)
			}
			// A token after every event of the log, kept by the filter or not.
			for i, e := range log {
				after := 0
				for after < len(want) && ((!desc && want[after] <= i) || (desc && want[after] >= i)) {
					after++
				}
				tok := core.EncodePageToken("session_events", core.ListKey{At: time.Unix(int64(i), 0), ID: e.id})
				expect(fmt.Sprintf("%s after %s", path, e.id), api.ok("GET", path+"&page="+tok, nil), after)
			}
		}
	}
}

// The lists of the area read their filters first, then limit, include_archived and the page: of
// several wrong parameters, the first in that order is the one a 400 names.
func TestSessionListErrorOrder(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := cloudSession(t, api)
	thread := api.ok("GET", "/v1/sessions/"+id+"/threads", nil).get("data.0.id").String()
	type bad struct{ param, field string }
	for path, params := range map[string][]bad{
		"/v1/sessions": {{"agent_version=0", "agent_version"}, {"order=sideways", "order"}, {"created_at[gte]=soon", "created_at[gte]"},
			{"statuses[]=sleeping", "statuses"}, {"limit=0", "limit"}, {"include_archived=maybe", "include_archived"}, {"page=forged", "page"}},
		"/v1/sessions/" + id + "/events":                        {{"order=sideways", "order"}, {"created_at[lt]=soon", "created_at[lt]"}, {"limit=1001", "limit"}, {"page=forged", "page"}},
		"/v1/sessions/" + id + "/threads":                       {{"limit=0", "limit"}, {"page=forged", "page"}},
		"/v1/sessions/" + id + "/resources":                     {{"limit=0", "limit"}, {"page=forged", "page"}},
		"/v1/sessions/" + id + "/threads/" + thread + "/events": {{"order=sideways", "order"}, {"limit=0", "limit"}, {"page=forged", "page"}},
	} {
		for k := range params {
			var query []string
			for _, p := range params[k:] {
				query = append(query, p.param)
			}
			slices.Reverse(query) // the order they are sent in is not the order they are read in
			r := api.do("GET", path+"?"+strings.Join(query, "&"), nil)
			if msg := r.get("error.message").String(); r.status != 400 || !strings.HasPrefix(msg, params[k].field+":") {
				t.Errorf("GET %s?%s = %d %s, want 400 naming %s", path, strings.Join(query, "&"), r.status, msg, params[k].field)
			}
		}
	}
	// A prev_page is read as a token of the backward list after limit and include_archived.
	prev := core.EncodePageToken("sessions_desc_back", core.ListKey{At: time.Now(), ID: id})
	if r := api.do("GET", "/v1/sessions?limit=0&page="+prev, nil); r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), "limit:") {
		t.Errorf("a prev_page with limit=0 = %d %s, want 400 naming limit", r.status, r.body)
	}
	if r := api.do("GET", "/v1/sessions?order=asc&page="+prev, nil); r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), "page:") {
		t.Errorf("a prev_page of the other order = %d %s, want 400 naming page", r.status, r.body)
	}
}

// A page of the session list allocates what its 20 sessions need, not what the organization's
// sessions do: the same at 1,000 sessions as at 100, within 1 KiB. A page that copied the
// organization's list (as the list did before it walked from its token) allocates 8 bytes more a
// session, 7 KiB more at 1,000.
func TestSessionPageAllocatesForItsPage(t *testing.T) {
	if raceDetector {
		t.Skip("an allocation bound: make resources holds it without -race, whose allocations grow with what a page walks")
	}
	perPage := func(n int) float64 {
		s, do, ids, _ := benchSessionServer(t, n)
		mid := ids[n/2]
		at, err := time.Parse(time.RFC3339Nano, gjson.GetBytes(do("GET", "/v1/sessions/"+mid, nil), "created_at").String())
		if err != nil {
			t.Fatal(err)
		}
		path := "/v1/sessions?limit=20&page=" + core.EncodePageToken("sessions_desc", core.ListKey{At: at, ID: mid})
		for range 10 { // the page's sessions encoded once, as every later page finds them
			do("GET", path, nil)
		}
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("X-Api-Key", core.DefaultAPIKey)
		req.Header.Set("Vendor-Version", core.APIVersion)
		w := &discardWriter{header: http.Header{}}
		const pages = 200
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range pages {
			clear(w.header)
			s.ServeHTTP(w, req)
		}
		runtime.ReadMemStats(&after)
		if w.status != http.StatusOK {
			t.Fatalf("%s: %d", path, w.status)
		}
		return float64(after.TotalAlloc-before.TotalAlloc) / pages
	}
	small, large := perPage(100), perPage(1000)
	if large > small+1024 {
		t.Errorf("a page of 20 allocates %.0f bytes at 1,000 sessions against %.0f at 100: it grows with the organization's sessions", large, small)
	}
	t.Logf("bytes a page: %.0f at 100 sessions, %.0f at 1,000", small, large)
}
