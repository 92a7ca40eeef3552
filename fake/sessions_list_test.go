package fake

import (
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
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
	env := api.ok("POST", "/v1/environments", map[string]any{"name": "cloud", "config": map[string]any{"type": "cloud"}}).get("id").String()
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
