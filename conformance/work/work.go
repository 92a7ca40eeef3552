package work

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/schemas"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Environments and the work queue (spec 2.16, 3.1, 4.8, 8; gaps §8).
//
// Every check works in an environment it creates (and deletes afterwards), so that pre-existing
// work is never consumed. The checks of the item lifecycle need work in that environment: the fake
// enqueues it through its control API, a deployment through the operator's CONFORMANCE_WORK_ENQUEUE
// command (kit/enqueue.go); without either they are unsupported. Time is let pass with elapse: the
// fake's virtual clock is advanced, a deployment is waited for.

const managedAgentsBeta = "managed-agents-2026-04-01"

// CreateEnv creates an environment for one check and registers its deletion.
func CreateEnv(t *kit.T) string {
	resp := t.Do(kit.Request{Area: kit.Work, Method: http.MethodPost, Path: "/v1/environments", Body: map[string]any{"name": "conformance"}, Schema: "work/environment"})
	t.UnsupportedIfAbsent(resp, "the target does not create environments (POST /v1/environments answered %d)", resp.Status)
	t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
	id := resp.Get("id").String()
	t.Cleanup("delete environment "+id, t.Delete(kit.Request{Area: kit.Work, Method: http.MethodDelete, Path: "/v1/environments/" + id}))
	return id
}

// Enqueue queues one work item in env (see EnqueueWork) and returns its ID, once the item reads
// back queued in that environment: a command that enqueued elsewhere is caught here, not later.
func Enqueue(t *kit.T, env string) string {
	id := t.EnqueueWork(env)
	item := t.OK(GetItem(env, id))
	t.ExpectWithOffset(1, item.Get("state").String()).To(Equal("queued"), "the work item just enqueued: %s", item)
	return id
}

// elapse lets seconds pass for the target: the fake's virtual clock is advanced; a deployment is
// waited for, so the lease and reclaim checks take that long there.
func elapse(t *kit.T, seconds float64) {
	if t.Target.IsFake {
		t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": seconds})
		return
	}
	select {
	case <-time.After(time.Duration(seconds * float64(time.Second))):
	case <-t.Context().Done():
		t.SuiteErrorf("interrupted while waiting for time to pass")
	}
}

// Req builds a request to a work endpoint of env; rest follows ".../work".
func Req(method, env, rest string, q url.Values, schema string) kit.Request {
	return kit.Request{Area: kit.Work, Method: method, Path: "/v1/environments/" + env + "/work" + rest, Query: q, Schema: schema,
		Header: http.Header{"vendor-beta": {managedAgentsBeta}}}
}

func poll(env string, q url.Values) kit.Request {
	return Req(http.MethodGet, env, "/poll", q, "work/poll")
}

func statsReq(env string) kit.Request {
	return Req(http.MethodGet, env, "/stats", nil, "work/stats")
}

func GetItem(env, id string) kit.Request {
	return Req(http.MethodGet, env, "/"+id, nil, "work/work")
}

func ack(env, id string) kit.Request {
	return Req(http.MethodPost, env, "/"+id+"/ack", nil, "work/work")
}

func heartbeat(env, id, expected string, ttl string) kit.Request {
	q := url.Values{"expected_last_heartbeat": {expected}}
	if ttl != "" {
		q.Set("desired_ttl_seconds", ttl)
	}
	return Req(http.MethodPost, env, "/"+id+"/heartbeat", q, "work/heartbeat")
}

func stopReq(env, id string, body any) kit.Request {
	r := Req(http.MethodPost, env, "/"+id+"/stop", nil, "work/work")
	r.Body = body
	return r
}

// acked enqueues an item in a new environment and acknowledges it.
func acked(t *kit.T) (env, id string) {
	env = CreateEnv(t)
	id = Enqueue(t, env)
	t.OK(ack(env, id))
	return env, id
}

// running enqueues an item in a new environment, acknowledges it and claims its lease with the
// TTL given; it returns the environment, the item and the last_heartbeat to echo.
func running(t *kit.T, ttl string) (env, id, last string) {
	env, id = acked(t)
	last = t.OK(heartbeat(env, id, "NO_HEARTBEAT", ttl)).Get("last_heartbeat").String()
	return env, id, last
}

// expectInvalid requires a 400 invalid_request_error whose message names what (a field or state).
func expectInvalid(t *kit.T, resp *kit.Response, what string) {
	t.ExpectWithOffset(1, resp.Status).To(Equal(http.StatusBadRequest), "%s", resp)
	t.ExpectWithOffset(1, resp.Get("error.type").String()).To(Equal("invalid_request_error"), "%s", resp)
	t.ExpectWithOffset(1, resp.Get("error.message").String()).To(ContainSubstring(what), "%s", resp)
}

// notFoundForOtherOrg requires each request, sent with the second organization's key, to be
// answered 404: another organization's IDs never leak.
func notFoundForOtherOrg(t *kit.T, reqs ...kit.Request) {
	if t.Config().APIKey2 == "" {
		t.NeedsSecondOrganization("CONFORMANCE_API_KEY_2")
	}
	for _, r := range reqs {
		r.Org2 = true
		t.ExpectError(t.Do(r), http.StatusNotFound, "not_found_error")
	}
}

func isNull(t *kit.T, resp *kit.Response, path string) {
	t.ExpectWithOffset(1, resp.Get(path).Type.String()).To(Equal("Null"), "%s should be null: %s", path, resp)
}

func init() {
	kit.Register(kit.InterfaceChecks(kit.Work, "/v1/environments", "work/environment_list")...)
	kit.Register(workEnvironmentChecks()...)
	kit.Register(workQueueChecks()...)
	kit.Register(workLeaseChecks()...)
}

func workEnvironmentChecks() []kit.Check {
	ext := []kit.Label{kit.Work, kit.Extension}
	return []kit.Check{
		{ID: "work/environment-create-read", Clause: "gaps §8", Labels: ext,
			Title: "a created environment echoes config and scope, reads back the same, and is listed",
			Run: func(t *kit.T) {
				resp := t.OK(kit.Request{Area: kit.Work, Method: http.MethodPost, Path: "/v1/environments", Schema: "work/environment", Body: map[string]any{
					"name": "conformance-cloud", "description": "d", "metadata": map[string]string{"k": "v"},
					"config": map[string]any{"type": "cloud"}, "scope": "account"}})
				id := resp.Get("id").String()
				t.Cleanup("delete environment "+id, t.Delete(kit.Request{Area: kit.Work, Method: http.MethodDelete, Path: "/v1/environments/" + id}))
				t.Expect(id).To(HavePrefix("env_"))
				t.Expect(resp.Get("config.type").String()).To(Equal("cloud"))
				t.Expect(resp.Get("scope").String()).To(Equal("account"))
				t.Expect(resp.Get("metadata.k").String()).To(Equal("v"))
				t.Expect(resp.Get("name").String()).To(Equal("conformance-cloud"))
				got := t.OK(kit.Request{Area: kit.Work, Path: "/v1/environments/" + id, Schema: "work/environment"})
				t.Expect(got.Body).To(MatchJSON(resp.Body))
				list := t.OK(kit.Request{Area: kit.Work, Path: "/v1/environments", Query: url.Values{"limit": {"100"}}, Schema: "work/environment_list"})
				t.Expect(list.Get("data.#(id==\""+id+"\").name").String()).To(Equal("conformance-cloud"), "the new environment is on the first page (newest first)")
			},
			Bug: &kit.Bug{Says: "a created environment does not echo the scope it was given",
				Break: kit.SetsField(kit.On(http.MethodPost, EnvsRoute), "scope", "organization")}},
		{ID: "work/environment-create-invalid-400", Clause: "gaps §1", Labels: ext,
			Title: "an environment create without a name, or with an unknown scope or config type, is refused with 400 naming the field, and creates nothing",
			Run: func(t *kit.T) {
				// A marker rather than a count: other checks create environments at the same time.
				marker := fmt.Sprintf("conformance-invalid-%d", time.Now().UnixNano())
				for field, body := range map[string]map[string]any{
					"name":   {"description": marker},
					"scope":  {"name": marker, "scope": "galaxy"},
					"config": {"name": marker, "config": map[string]any{"type": "submarine"}},
				} {
					resp := t.Do(kit.Request{Area: kit.Work, Method: http.MethodPost, Path: "/v1/environments", Body: body})
					expectInvalid(t, resp, field)
				}
				list := t.OK(kit.Request{Area: kit.Work, Path: "/v1/environments", Query: url.Values{"limit": {"100"}, "include_archived": {"true"}}, Schema: "work/environment_list"})
				t.Expect(list.Get(`data.#(name=="`+marker+`")#.id`).Array()).To(BeEmpty(), "a refused create stored an environment: %s", list)
				t.Expect(list.Get(`data.#(description=="`+marker+`")#.id`).Array()).To(BeEmpty(), "a refused create stored an environment: %s", list)
			},
			Bug: &kit.Bug{Says: "a refused environment create is stored all the same", Want: "a refused create stored an environment", Break: mwtStoresRefusedEnvironment}},
		{ID: "work/environment-update-patch", Clause: "gaps §8", Labels: ext,
			Title: "an environment update changes the fields given and patches metadata (a string upserts, null deletes); an update that changes nothing leaves the record as it was",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				path := "/v1/environments/" + env
				t.OK(kit.Request{Area: kit.Work, Method: http.MethodPost, Path: path, Body: map[string]any{"metadata": map[string]any{"a": "1", "b": "2"}}, Schema: "work/environment"})
				resp := t.OK(kit.Request{Area: kit.Work, Method: http.MethodPost, Path: path, Body: map[string]any{"name": "renamed", "metadata": map[string]any{"a": nil, "c": "3"}}, Schema: "work/environment"})
				t.Expect(resp.Get("name").String()).To(Equal("renamed"))
				t.Expect(resp.Get("metadata").Raw).To(MatchJSON(`{"b":"2","c":"3"}`))
				same := t.OK(kit.Request{Area: kit.Work, Method: http.MethodPost, Path: path, Body: map[string]any{"name": "renamed"}, Schema: "work/environment"})
				t.Expect(same.Body).To(MatchJSON(resp.Body), "an update that changes nothing changes no field, updated_at included")
			},
			Bug: &kit.Bug{Says: "a metadata key set to null in an environment update is kept, not deleted",
				Break: kit.InRouteRequests(http.MethodPost, mwtEnv, func(_ *http.Request, b map[string]any) {
					if meta, ok := b["metadata"].(map[string]any); ok {
						for k, v := range meta {
							if v == nil {
								delete(meta, k)
							}
						}
					}
				})}},
		{ID: "work/environment-archive", Clause: "gaps §8", Labels: ext,
			Title: "archive sets archived_at; archiving again returns the record unchanged; an archived environment refuses updates and is not listed by default",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				path := "/v1/environments/" + env
				first := t.OK(kit.Request{Area: kit.Work, Method: http.MethodPost, Path: path + "/archive", Schema: "work/environment"})
				t.Expect(first.Get("archived_at").Time().IsZero()).To(BeFalse(), "%s", first)
				again := t.OK(kit.Request{Area: kit.Work, Method: http.MethodPost, Path: path + "/archive", Schema: "work/environment"})
				t.Expect(again.Body).To(MatchJSON(first.Body))
				expectInvalid(t, t.Do(kit.Request{Area: kit.Work, Method: http.MethodPost, Path: path, Body: map[string]any{"name": "x"}}), "archived")
				list := t.OK(kit.Request{Area: kit.Work, Path: "/v1/environments", Query: url.Values{"limit": {"100"}}, Schema: "work/environment_list"})
				t.Expect(list.Get("data.#(id==\"" + env + "\")").Exists()).To(BeFalse())
			},
			Bug: &kit.Bug{Says: "archiving an archived environment stamps archived_at anew",
				Break: kit.InRouteOKAnswers(http.MethodPost, `^/v1/environments/[^/]+/archive$`, func(_ *http.Request, m map[string]any) {
					m["archived_at"] = time.Now().UTC().Format(time.RFC3339Nano)
				})}},
		{ID: "work/environment-delete", Clause: "gaps §8", Labels: ext,
			Title: "delete answers {id, type: environment_deleted}, after which the environment and its work endpoints are 404",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				resp := t.OK(kit.Request{Area: kit.Work, Method: http.MethodDelete, Path: "/v1/environments/" + env, Schema: "work/environment_deleted"})
				t.Expect(resp.Get("id").String()).To(Equal(env))
				t.Expect(resp.Get("type").String()).To(Equal("environment_deleted"))
				t.ExpectError(t.Do(kit.Request{Area: kit.Work, Path: "/v1/environments/" + env}), http.StatusNotFound, "not_found_error")
				t.ExpectError(t.Do(poll(env, nil)), http.StatusNotFound, "not_found_error")
			},
			Bug: &kit.Bug{Says: "a deleted environment still reads 200", Want: "404", Break: kit.DeletedStillReadable(mwtEnv)}},
		{ID: "work/environment-list-pages", Clause: "gaps §3", Labels: ext,
			Title: "the environment list pages with next_page, null on the last page; limit outside 1 to 100 and a forged page token are refused with 400",
			Run: func(t *kit.T) {
				mine := map[string]bool{CreateEnv(t): true, CreateEnv(t): true, CreateEnv(t): true}
				seen := 0
				for _, e := range t.WalkPages(kit.Request{Area: kit.Work, Path: "/v1/environments", Schema: "work/environment_list"}, 2) {
					if mine[e.Get("id").String()] {
						seen++
					}
				}
				t.Expect(seen).To(Equal(3))
				for _, bad := range []url.Values{{"limit": {"0"}}, {"limit": {"101"}}, {"page": {"not-a-token"}}} {
					resp := t.Do(kit.Request{Area: kit.Work, Path: "/v1/environments", Query: bad})
					t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				}
			},
			Bug: &kit.Bug{Says: "an environment-list limit outside 1 to 100 is ignored instead of refused", Want: "400", Break: kit.IgnoresInvalidQuery(http.MethodGet, EnvsRoute, "limit")}},
		{ID: "work/environment-other-org-404", Clause: "gaps §8", Labels: ext,
			Title: "another organization's environment is answered 404 on every operation, never leaked",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				notFoundForOtherOrg(t,
					kit.Request{Area: kit.Work, Path: "/v1/environments/" + env},
					kit.Request{Area: kit.Work, Method: http.MethodPost, Path: "/v1/environments/" + env + "/archive"},
					kit.Request{Area: kit.Work, Method: http.MethodDelete, Path: "/v1/environments/" + env},
					Req(http.MethodGet, env, "", nil, ""), poll(env, nil), Req(http.MethodGet, env, "/stats", nil, ""))
				t.Expect(t.OK(kit.Request{Area: kit.Work, Path: "/v1/environments/" + env, Schema: "work/environment"}).Get("archived_at").Type.String()).To(Equal("Null"))
			},
			Bug: &kit.Bug{Says: "environments do not tell organizations apart: another organization's key reaches the first's", Break: kit.AsFirstOrg(`^/v1/environments`)}},
		{ID: "work/environment-key-scope", Clause: "gaps §2", Labels: ext,
			Title: "an environment key reaches its own environment's work endpoints only: another environment is 404 and environment management is 403",
			Run: func(t *kit.T) {
				list := t.OK(kit.Request{Area: kit.Work, Path: "/v1/environments", Query: url.Values{"limit": {"100"}}, Schema: "work/environment_list"})
				own := ""
				for _, e := range list.Get("data").Array() {
					r := Req(http.MethodGet, e.Get("id").String(), "/stats", nil, "work/stats")
					r.As = kit.EnvironmentKey
					resp := t.Do(r)
					if resp.Status == http.StatusOK {
						t.Expect(own).To(BeEmpty(), "the environment key reaches two environments")
						own = e.Get("id").String()
						continue
					}
					t.ExpectError(resp, http.StatusNotFound, "not_found_error")
				}
				if own == "" {
					t.Unsupported("the environment key reaches none of the first page of environments")
				}
				other := CreateEnv(t)
				r := poll(other, nil)
				r.As = kit.EnvironmentKey
				t.ExpectError(t.Do(r), http.StatusNotFound, "not_found_error")
				t.ExpectError(t.Do(kit.Request{Area: kit.Work, Path: "/v1/environments", As: kit.EnvironmentKey}), http.StatusForbidden, "permission_error")
			},
			Bug: &kit.Bug{Says: "an environment key is taken for the organization's key on the environment list", Want: "403", Break: mwtEnvironmentKeyManages}},
	}
}

func workQueueChecks() []kit.Check {
	ext := []kit.Label{kit.Work, kit.Extension}
	plain := []kit.Label{kit.Work}
	return []kit.Check{
		{ID: "work/beta-header-optional", Clause: "4.8", Labels: []kit.Label{kit.Work},
			Title: "the work operations accept the vendor-beta header managed-agents-2026-04-01 and do not require it",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				t.OK(statsReq(env))
				r := statsReq(env)
				r.Header = nil
				t.OK(r)
			},
			Bug: &kit.Bug{Says: "the work operations require the vendor-beta header", Want: "400",
				Break: kit.Refuses400(func(r *http.Request) bool {
					return regexp.MustCompile(`^/v1/environments/[^/]+/work`).MatchString(r.URL.Path) && r.Header.Get("vendor-beta") == "" && r.Header.Get("anthropic-beta") == ""
				}, "vendor-beta: managed-agents-2026-04-01 is required")}},
		{ID: "work/worker-id-not-credential", Clause: "5", Labels: ext,
			Title: "Vendor-Worker-ID identifies a worker and is not a credential: a poll carrying only it is refused with 401",
			Run: func(t *kit.T) {
				r := poll(CreateEnv(t), nil)
				r.As = kit.NoCred
				r.Header.Set("Vendor-Worker-ID", t.Config().APIKey)
				t.ExpectError(t.Do(r), http.StatusUnauthorized, "authentication_error")
			},
			Bug: &kit.Bug{Says: "Vendor-Worker-ID is taken as the API key when no credential is sent", Want: "401",
				Break: func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if id := r.Header.Get("Vendor-Worker-ID"); id != "" && r.Header.Get("X-Api-Key") == "" && r.Header.Get("Authorization") == "" {
							r.Header.Set("X-Api-Key", id)
						}
						h.ServeHTTP(w, r)
					})
				}}},
		{ID: "work/version-header-required", Clause: "9", Labels: ext,
			Title: "a work request without vendor-version is refused with 400 naming the header",
			Run: func(t *kit.T) {
				r := poll(CreateEnv(t), nil)
				r.Header.Set("vendor-version", "")
				expectInvalid(t, t.Do(r), "-version: header is required")
			},
			Bug: &kit.Bug{Says: "a work request without vendor-version is served at a default version", Want: "400",
				Break: mwtDefaultVersion(func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/v1/environments/") })}},
		{ID: "work/poll-empty-null", Clause: "gaps §8", Labels: ext,
			Title: "a poll with nothing available answers 200, Content-Type application/json, body null",
			Run: func(t *kit.T) {
				resp := t.OK(poll(CreateEnv(t), nil))
				t.Expect(resp.Header.Get("Content-Type")).To(HavePrefix("application/json"))
				t.Expect(strings.TrimSpace(string(resp.Body))).To(Equal("null"))
			},
			Bug: &kit.Bug{Says: "a poll with nothing available answers null as text/plain",
				Break: kit.InAnswers(kit.On(http.MethodGet, mwtPoll), func(_ *http.Request, status int, h http.Header, b []byte) []byte {
					if status == http.StatusOK && strings.TrimSpace(string(b)) == "null" {
						h.Set("Content-Type", "text/plain; charset=utf-8")
					}
					return b
				})}},
		{ID: "work/poll-block-ms-range", Clause: "8", Labels: ext,
			Title: "block_ms accepts 1 to 999; 0, 1000 and non-numbers are refused with 400 naming block_ms",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				for _, bad := range []string{"0", "1000", "-1", "soon"} {
					resp := t.Do(poll(env, url.Values{"block_ms": {bad}}))
					expectInvalid(t, resp, "block_ms")
				}
				t.OK(poll(env, url.Values{"block_ms": {"1"}}))
				t.OK(poll(env, url.Values{"block_ms": {"999"}}))
			},
			Bug: &kit.Bug{Says: "a block_ms outside 1 to 999 is ignored instead of refused", Want: "-> 200", Break: kit.IgnoresInvalidQuery(http.MethodGet, mwtPoll, "block_ms")}},
		{ID: "work/poll-block-waits", Clause: "gaps §8", Labels: ext,
			Title: "a blocking poll of an empty queue waits about block_ms before answering null",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				start := time.Now()
				resp := t.OK(poll(env, url.Values{"block_ms": {"400"}}))
				t.Expect(time.Since(start)).To(BeNumerically(">=", 350*time.Millisecond))
				t.Expect(strings.TrimSpace(string(resp.Body))).To(Equal("null"))
			},
			Bug: &kit.Bug{Says: "a poll ignores block_ms and answers at once", Break: kit.IgnoresQuery(kit.On(http.MethodGet, mwtPoll), "block_ms")}},
		{ID: "work/poll-block-wakes-on-enqueue", Clause: "gaps §8", Labels: ext,
			Title: "a blocking poll answers as soon as work is enqueued, with that item",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				r := poll(env, url.Values{"block_ms": {"999"}})
				r.Header = http.Header{"Vendor-Worker-ID": {"conformance-blocked-poller"}}
				got := make(chan *kit.Response, 1)
				go func() {
					resp, _ := t.Target.Client.Do(context.Background(), &r)
					got <- resp
				}()
				// The poll is waiting once its worker shows in the queue's stats: enqueue only then,
				// so that the item can only reach it by waking it.
				for i := 0; t.OK(statsReq(env)).Get("workers_polling").Int() == 0; i++ {
					if i == 200 {
						t.Failf("the blocked poll's worker did not show in workers_polling within 200 reads of the stats")
					}
					time.Sleep(5 * time.Millisecond)
				}
				start := time.Now()
				id := t.EnqueueWork(env)
				enqueued := time.Since(start)
				resp := <-got
				t.Expect(resp).NotTo(BeNil(), "the blocked poll answers")
				if strings.TrimSpace(string(resp.Body)) == "null" && enqueued > 900*time.Millisecond {
					t.Unsupported("enqueueing took %s, longer than a poll can block (999 ms)", enqueued.Round(time.Millisecond))
				}
				// At its deadline a poll answers null: the item proves that the enqueue woke it.
				t.Expect(resp.Get("id").String()).To(Equal(id), "the blocked poll wakes on the enqueue and answers the item: %s", resp)
			},
			Bug: &kit.Bug{Says: "a blocking poll looks at the queue only when it starts, so an item enqueued while it waits does not wake it", Want: "wakes on the enqueue", Break: mwtPollMissesEnqueued}},
		{ID: "work/poll-oldest-first", Clause: "4.8", Labels: plain,
			Title: "poll hands out the oldest queued item first, and a polled item is not handed out again at once",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				a, b := Enqueue(t, env), Enqueue(t, env)
				t.Expect(t.OK(poll(env, nil)).Get("id").String()).To(Equal(a))
				t.Expect(t.OK(poll(env, nil)).Get("id").String()).To(Equal(b))
				t.Expect(t.OK(poll(env, nil)).Get("id").Exists()).To(BeFalse())
			},
			Bug: &kit.Bug{Says: "a polled item is handed out again at once (reclaimed after 0 ms by default)",
				Break: kit.InRouteQuery(http.MethodGet, mwtPoll, func(q url.Values) {
					if !q.Has("reclaim_older_than_ms") {
						q.Set("reclaim_older_than_ms", "0")
					}
				})}},
		{ID: "work/poll-reclaim", Clause: "4.8", Labels: plain,
			Title: "an item polled but not acknowledged is handed out again once older than reclaim_older_than_ms (default 5000)",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				id := Enqueue(t, env)
				t.Expect(t.OK(poll(env, nil)).Get("id").String()).To(Equal(id))
				elapse(t, 4)
				t.Expect(t.OK(poll(env, nil)).Get("id").Exists()).To(BeFalse(), "reclaimed before 5000 ms")
				elapse(t, 2)
				t.Expect(t.OK(poll(env, nil)).Get("id").String()).To(Equal(id), "not reclaimed after 6000 ms")
				elapse(t, 2)
				t.Expect(t.OK(poll(env, nil)).Get("id").Exists()).To(BeFalse(), "reclaimed 2000 ms after the last poll")
				t.Expect(t.OK(poll(env, url.Values{"reclaim_older_than_ms": {"1000"}})).Get("id").String()).To(Equal(id), "reclaim_older_than_ms=1000 after 2000 ms")
			},
			Bug: &kit.Bug{Says: "reclaim_older_than_ms defaults to 10000, not 5000", Want: "not reclaimed after 6000 ms",
				Break: kit.InRouteQuery(http.MethodGet, mwtPoll, func(q url.Values) {
					if !q.Has("reclaim_older_than_ms") {
						q.Set("reclaim_older_than_ms", "10000")
					}
				})}},
		{ID: "work/item-fields", Clause: "2.16", Labels: plain,
			Title: "a work item has prefix work_, type work, data {id: session_..., type: session}, its environment_id, a metadata map, and state queued",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				id := Enqueue(t, env)
				resp := t.OK(GetItem(env, id))
				t.Expect(id).To(HavePrefix("work_"))
				t.Expect(resp.Get("id").String()).To(Equal(id))
				t.Expect(resp.Get("type").String()).To(Equal("work"))
				t.Expect(resp.Get("data.id").String()).To(HavePrefix("session_"))
				t.Expect(resp.Get("data.type").String()).To(Equal("session"))
				t.Expect(resp.Get("environment_id").String()).To(Equal(env))
				t.Expect(resp.Get("metadata").IsObject()).To(BeTrue(), "%s", resp)
				t.Expect(resp.Get("state").String()).To(Equal("queued"))
				t.Expect(resp.Get("created_at").Time().IsZero()).To(BeFalse())
			},
			Bug: &kit.Bug{Says: "a work item names another environment_id than its own",
				Break: kit.InRouteOKAnswers(http.MethodGet, mwtItem, func(_ *http.Request, m map[string]any) { m["environment_id"] = kit.Str(m, "environment_id") + "0" })}},
		{ID: "work/item-timestamps-null-until-set", Clause: "gaps §8", Labels: ext,
			Title: "a queued item's acknowledged_at, started_at, latest_heartbeat_at, stop_requested_at and stopped_at are null",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				resp := t.OK(GetItem(env, Enqueue(t, env)))
				for _, f := range []string{"acknowledged_at", "started_at", "latest_heartbeat_at", "stop_requested_at", "stopped_at"} {
					isNull(t, resp, f)
				}
			},
			Bug: &kit.Bug{Says: "a queued item's started_at is its created_at, not null", Want: "started_at",
				Break: kit.InRouteOKAnswers(http.MethodGet, mwtItem, func(_ *http.Request, m map[string]any) {
					if m["state"] == "queued" && m["started_at"] == nil {
						m["started_at"] = m["created_at"]
					}
				})}},
		{ID: "work/control-enqueue", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Work, kit.FakeOnly},
			Title: "POST /_fake/environments/{id}/work queues an item with the session_id and metadata given and answers it; an unknown environment is 404",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				resp := t.Control(http.MethodPost, "/_fake/environments/"+env+"/work", map[string]any{"session_id": "session_conformance1", "metadata": map[string]string{"a": "b"}})
				t.Expect(schemas.Validate("work/work", resp.Body, t.Target.SchemaMode)).To(Succeed())
				t.Expect(resp.Get("state").String()).To(Equal("queued"))
				t.Expect(resp.Get("data.id").String()).To(Equal("session_conformance1"))
				t.Expect(resp.Get("metadata").Raw).To(MatchJSON(`{"a":"b"}`))
				t.Expect(t.OK(GetItem(env, resp.Get("id").String())).Body).To(MatchJSON(resp.Body))
				t.Expect(t.OK(statsReq(env)).Get("depth").Int()).To(BeNumerically("==", 1))
				bad := t.Do(kit.Request{Area: kit.Core, Method: http.MethodPost, Path: "/_fake/environments/env_conformance_none/work", As: kit.NoCred})
				t.ExpectError(bad, http.StatusNotFound, "not_found_error")
			},
			Bug: &kit.Bug{Says: "the control API's enqueue drops the metadata it was given",
				Break: kit.InRouteRequests(http.MethodPost, `^/_fake/environments/[^/]+/work$`, func(_ *http.Request, b map[string]any) { delete(b, "metadata") })}},
		{ID: "work/get-unknown-404", Clause: "gaps §1", Labels: ext,
			Title: "an unknown work ID, or an unknown environment, is answered 404 not_found_error",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				t.ExpectError(t.Do(GetItem(env, "work_conformance_none")), http.StatusNotFound, "not_found_error")
				t.ExpectError(t.Do(ack(env, "work_conformance_none")), http.StatusNotFound, "not_found_error")
				t.ExpectError(t.Do(poll("env_conformance_none", nil)), http.StatusNotFound, "not_found_error")
			},
			Bug: &kit.Bug{Says: "an unknown work ID is answered 400, not 404", Want: "404", Break: kit.RouteAnswersStatus(http.MethodGet, mwtItem, http.StatusNotFound, http.StatusBadRequest)}},
		{ID: "work/other-org-item-404", Clause: "gaps §8", Labels: ext,
			Title: "another organization cannot read, acknowledge, heartbeat or stop an item: 404, and the item is unchanged",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				id := Enqueue(t, env)
				notFoundForOtherOrg(t, GetItem(env, id), ack(env, id), heartbeat(env, id, "NO_HEARTBEAT", ""), stopReq(env, id, nil))
				t.Expect(t.OK(GetItem(env, id)).Get("state").String()).To(Equal("queued"))
			},
			Bug: &kit.Bug{Says: "work items do not tell organizations apart: another organization's key acts on the first's", Break: kit.AsFirstOrg(`^/v1/environments`)}},
		{ID: "work/stats-empty", Clause: "gaps §8", Labels: ext,
			Title: "the stats of an empty queue are type work_queue_stats, depth 0, pending 0, oldest_queued_at null",
			Run: func(t *kit.T) {
				resp := t.OK(statsReq(CreateEnv(t)))
				t.Expect(resp.Get("type").String()).To(Equal("work_queue_stats"))
				t.Expect(resp.Get("depth").Int()).To(BeZero())
				t.Expect(resp.Get("pending").Int()).To(BeZero())
				isNull(t, resp, "oldest_queued_at")
			},
			Bug: &kit.Bug{Says: "an empty queue's oldest_queued_at is the zero time, not null", Want: "oldest_queued_at",
				Break: kit.SetsField(kit.On(http.MethodGet, mwtStats), "oldest_queued_at", "1970-01-01T00:00:00Z")}},
		{ID: "work/stats-counts", Clause: "gaps §8", Labels: ext,
			Title: "stats count queued items (depth), polled but unacknowledged ones (pending), the oldest queue entry, and distinct Vendor-Worker-ID pollers",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				a := Enqueue(t, env)
				Enqueue(t, env)
				created := t.OK(GetItem(env, a)).Get("created_at").String()
				for _, w := range []string{"worker-1", "worker-2", "worker-1"} {
					r := poll(env, nil)
					r.Header.Set("Vendor-Worker-ID", w)
					t.OK(r)
				}
				resp := t.OK(statsReq(env))
				t.Expect(resp.Get("depth").Int()).To(BeNumerically("==", 2))
				t.Expect(resp.Get("pending").Int()).To(BeNumerically("==", 2))
				t.Expect(resp.Get("workers_polling").Int()).To(BeNumerically("==", 2))
				t.Expect(resp.Get("oldest_queued_at").String()).To(Equal(created))
				t.OK(ack(env, a))
				t.Expect(t.OK(statsReq(env)).Get("depth").Int()).To(BeNumerically("==", 1))
			},
			Bug: &kit.Bug{Says: "the stats do not count polled but unacknowledged items as pending", Break: kit.SetsField(kit.On(http.MethodGet, mwtStats), "pending", 0)}},
		{ID: "work/work-list", Clause: "gaps §8", Labels: ext,
			Title: "the work list holds every item of the environment, oldest first, in pages of next_page tokens",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				want := []string{Enqueue(t, env), Enqueue(t, env), Enqueue(t, env)}
				var got []string
				for _, w := range t.WalkPages(Req(http.MethodGet, env, "", nil, "work/work_list"), 2) {
					got = append(got, w.Get("id").String())
				}
				t.Expect(got).To(Equal(want))
			},
			Bug: &kit.Bug{Says: "the work list is newest first",
				Break: kit.InRouteOKAnswers(http.MethodGet, mwtWorkList, func(_ *http.Request, m map[string]any) {
					if data, ok := m["data"].([]any); ok {
						slices.Reverse(data)
					}
				})}},
	}
}

func workLeaseChecks() []kit.Check {
	ext := []kit.Label{kit.Work, kit.Extension}
	plain := []kit.Label{kit.Work}
	return []kit.Check{
		{ID: "work/ack-queued-to-starting", Clause: "3.1", Labels: plain,
			Title: "acknowledge moves a queued item to starting and removes it from the queue",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				id := Enqueue(t, env)
				t.OK(poll(env, nil))
				resp := t.OK(ack(env, id))
				t.Expect(resp.Get("state").String()).To(Equal("starting"))
				t.Expect(resp.Get("acknowledged_at").Time().IsZero()).To(BeFalse())
				elapse(t, 1)
				t.Expect(t.OK(poll(env, url.Values{"reclaim_older_than_ms": {"100"}})).Get("id").Exists()).To(BeFalse(), "an acknowledged item was handed out again")
				t.Expect(t.OK(statsReq(env)).Get("depth").Int()).To(BeZero())
			},
			Bug: &kit.Bug{Says: "acknowledge answers the item still queued", Break: kit.SetsField(kit.On(http.MethodPost, mwtAck), "state", "queued")}},
		{ID: "work/ack-without-poll", Clause: "3.1", Labels: plain,
			Title: "an item that exists can be acknowledged without having been polled",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				t.Expect(t.OK(ack(env, Enqueue(t, env))).Get("state").String()).To(Equal("starting"))
			},
			Bug: &kit.Bug{Says: "an item can be acknowledged only after a poll handed it out", Break: mwtAckOnlyPolled}},
		{ID: "work/ack-twice-400", Clause: "3.1", Labels: ext,
			Title: "acknowledging an item that is not queued is refused with 400 naming its state, and changes nothing",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				id := Enqueue(t, env)
				first := t.OK(ack(env, id))
				resp := t.Do(ack(env, id))
				expectInvalid(t, resp, "starting")
				t.Expect(t.OK(GetItem(env, id)).Body).To(MatchJSON(first.Body))
			},
			Bug: &kit.Bug{Says: "acknowledging an item that is not queued answers it, unchanged, with 200", Want: "-> 200", Break: kit.ActionIdempotent(mwtAck, "/ack")}},
		{ID: "work/heartbeat-claim", Clause: "4.8", Labels: plain,
			Title: "the first heartbeat claims the lease with NO_HEARTBEAT and answers type work_heartbeat, lease_extended, state, ttl_seconds and last_heartbeat",
			Run: func(t *kit.T) {
				env, id := acked(t)
				resp := t.OK(heartbeat(env, id, "NO_HEARTBEAT", ""))
				t.Expect(resp.Get("type").String()).To(Equal("work_heartbeat"))
				t.Expect(resp.Get("lease_extended").Bool()).To(BeTrue())
				t.Expect(resp.Get("last_heartbeat").String()).NotTo(BeEmpty())
				t.Expect(resp.Get("ttl_seconds").Float()).To(BeNumerically(">", 0))
			},
			Bug: &kit.Bug{Says: "the first heartbeat answers lease_extended false",
				Break: kit.InRouteOKAnswers(http.MethodPost, mwtHeartbeat, func(r *http.Request, m map[string]any) {
					if r.URL.Query().Get("expected_last_heartbeat") == "NO_HEARTBEAT" {
						m["lease_extended"] = false
					}
				})}},
		{ID: "work/heartbeat-first-starts", Clause: "gaps §8", Labels: ext,
			Title: "the first heartbeat moves starting to active and sets started_at and latest_heartbeat_at; ttl_seconds defaults to 30",
			Run: func(t *kit.T) {
				env, id := acked(t)
				hb := t.OK(heartbeat(env, id, "NO_HEARTBEAT", ""))
				t.Expect(hb.Get("state").String()).To(Equal("active"))
				t.Expect(hb.Get("ttl_seconds").Float()).To(BeNumerically("==", 30))
				item := t.OK(GetItem(env, id))
				t.Expect(item.Get("state").String()).To(Equal("active"))
				t.Expect(item.Get("started_at").Time()).To(Equal(hb.Get("last_heartbeat").Time()))
				t.Expect(item.Get("latest_heartbeat_at").Time()).To(Equal(hb.Get("last_heartbeat").Time()))
			},
			Bug: &kit.Bug{Says: "ttl_seconds defaults to 60, not 30",
				Break: kit.InRouteQuery(http.MethodPost, mwtHeartbeat, func(q url.Values) {
					if !q.Has("desired_ttl_seconds") {
						q.Set("desired_ttl_seconds", "60")
					}
				})}},
		{ID: "work/heartbeat-echo", Clause: "4.8", Labels: plain,
			Title: "a later heartbeat that echoes the previous last_heartbeat exactly keeps the lease and applies desired_ttl_seconds",
			Run: func(t *kit.T) {
				env, id, last := running(t, "")
				elapse(t, 1)
				resp := t.OK(heartbeat(env, id, last, "12"))
				t.Expect(resp.Get("lease_extended").Bool()).To(BeTrue())
				t.Expect(resp.Get("ttl_seconds").Float()).To(BeNumerically("==", 12))
				t.Expect(resp.Get("last_heartbeat").String()).NotTo(Equal(last), "the clock moved, so the recorded heartbeat is new")
				t.OK(heartbeat(env, id, resp.Get("last_heartbeat").String(), ""))
			},
			Bug: &kit.Bug{Says: "a heartbeat ignores desired_ttl_seconds", Break: kit.IgnoresQuery(kit.On(http.MethodPost, mwtHeartbeat), "desired_ttl_seconds")}},
		{ID: "work/heartbeat-mismatch-412", Clause: "7", Labels: plain,
			Title: "a heartbeat whose expected_last_heartbeat does not match the stored value is answered HTTP 412, and NO_HEARTBEAT on a claimed lease too",
			Run: func(t *kit.T) {
				env, id, last := running(t, "")
				elapse(t, 1)
				current := t.OK(heartbeat(env, id, last, "")).Get("last_heartbeat").String()
				for _, stale := range []string{last, "NO_HEARTBEAT", current + "x"} {
					resp := t.Do(heartbeat(env, id, stale, ""))
					t.Expect(resp.Status).To(Equal(http.StatusPreconditionFailed), "%s", resp)
					t.Expect(resp.Get("type").String()).To(Equal("error"))
				}
				t.OK(heartbeat(env, id, current, ""))
			},
			Bug: &kit.Bug{Says: "a heartbeat mismatch is answered 409, not 412", Want: "412", Break: kit.RouteAnswersStatus(http.MethodPost, mwtHeartbeat, http.StatusPreconditionFailed, http.StatusConflict)}},
		{ID: "work/heartbeat-412-type", Clause: "gaps §1", Labels: ext,
			Title: "the 412 of a heartbeat mismatch carries error type invalid_request_error",
			Run: func(t *kit.T) {
				env, id, _ := running(t, "")
				t.ExpectError(t.Do(heartbeat(env, id, "NO_HEARTBEAT", "")), http.StatusPreconditionFailed, "invalid_request_error")
			},
			Bug: &kit.Bug{Says: "the 412 of a heartbeat mismatch carries error type api_error", Want: "invalid_request_error",
				Break: kit.InAnswers(kit.On(http.MethodPost, mwtHeartbeat), func(_ *http.Request, status int, _ http.Header, b []byte) []byte {
					if status != http.StatusPreconditionFailed {
						return b
					}
					return []byte(strings.Replace(string(b), `"invalid_request_error"`, `"api_error"`, 1))
				})}},
		{ID: "work/heartbeat-queued-400", Clause: "gaps §8", Labels: ext,
			Title: "a heartbeat on a queued item (never acknowledged) is refused with 400 naming the state",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				resp := t.Do(heartbeat(env, Enqueue(t, env), "NO_HEARTBEAT", ""))
				expectInvalid(t, resp, "queued")
			},
			Bug: &kit.Bug{Says: "a heartbeat on a queued item is answered 412, as a mismatch", Want: "400", Break: kit.RouteAnswersStatus(http.MethodPost, mwtHeartbeat, http.StatusBadRequest, http.StatusPreconditionFailed)}},
		{ID: "work/heartbeat-unconditional", Clause: "gaps §8", Labels: ext,
			Title: "a heartbeat without expected_last_heartbeat (optional in the official SDKs' types) is unconditional: it extends the lease, and the next conditional heartbeat echoes its last_heartbeat",
			Run: func(t *kit.T) {
				env, id, _ := running(t, "")
				r := heartbeat(env, id, "", "")
				r.Query.Del("expected_last_heartbeat")
				resp := t.OK(r)
				t.Expect(resp.Get("lease_extended").Bool()).To(BeTrue(), "%s", resp)
				t.OK(heartbeat(env, id, resp.Get("last_heartbeat").String(), ""))
			},
			Bug: &kit.Bug{Says: "a heartbeat without expected_last_heartbeat is refused, as if the field were required", Want: "the answer is 200",
				Break: kit.InRouteQuery(http.MethodPost, mwtHeartbeat, func(q url.Values) {
					if !q.Has("expected_last_heartbeat") {
						q.Set("expected_last_heartbeat", "")
					}
				})}},
		{ID: "work/heartbeat-bad-params-400", Clause: "gaps §1", Labels: ext,
			Title: "a heartbeat with a desired_ttl_seconds that is not a positive number is refused with 400 naming it",
			Run: func(t *kit.T) {
				env, id, last := running(t, "")
				for _, bad := range []string{"0", "-5", "ten"} {
					resp := t.Do(heartbeat(env, id, last, bad))
					expectInvalid(t, resp, "desired_ttl_seconds")
				}
				t.OK(heartbeat(env, id, last, ""))
			},
			Bug: &kit.Bug{Says: "a desired_ttl_seconds that is not a positive number is ignored instead of refused", Want: "-> 200", Break: kit.IgnoresInvalidQuery(http.MethodPost, mwtHeartbeat, "desired_ttl_seconds")}},
		{ID: "work/lease-lapse-requeues", Clause: "gaps §8", Labels: ext,
			Title: "when the lease of an active item lapses it returns to queued with its heartbeat record cleared, and the old worker's next heartbeat gets 412",
			Run: func(t *kit.T) {
				env, id, last := running(t, "4")
				elapse(t, 2)
				t.Expect(t.OK(GetItem(env, id)).Get("state").String()).To(Equal("active"))
				elapse(t, 4)
				item := t.OK(GetItem(env, id))
				t.Expect(item.Get("state").String()).To(Equal("queued"))
				isNull(t, item, "latest_heartbeat_at")
				t.Expect(t.Do(heartbeat(env, id, last, "")).Status).To(Equal(http.StatusPreconditionFailed))
				t.Expect(t.OK(poll(env, nil)).Get("id").String()).To(Equal(id))
			},
			Bug: &kit.Bug{Says: "a lapsed lease goes unnoticed: the item reads active, with its last heartbeat", Want: "queued", Break: mwtLeasesNeverLapse}},
		{ID: "work/stop-graceful", Clause: "gaps §8", Labels: ext,
			Title: "a stop without force makes an active item stopping (stop_requested_at); its heartbeats answer lease_extended false; it is stopped (stopped_at) when the lease lapses",
			Run: func(t *kit.T) {
				env, id, last := running(t, "4")
				resp := t.OK(stopReq(env, id, nil))
				t.Expect(resp.Get("state").String()).To(Equal("stopping"))
				t.Expect(resp.Get("stop_requested_at").Time().IsZero()).To(BeFalse())
				isNull(t, resp, "stopped_at")
				t.Expect(t.OK(stopReq(env, id, map[string]any{"force": false})).Body).To(MatchJSON(resp.Body), "a retried graceful stop changes nothing")
				elapse(t, 1)
				hb := t.OK(heartbeat(env, id, last, "60"))
				t.Expect(hb.Get("lease_extended").Bool()).To(BeFalse())
				t.Expect(hb.Get("state").String()).To(Equal("stopping"))
				elapse(t, 5)
				done := t.OK(GetItem(env, id))
				t.Expect(done.Get("state").String()).To(Equal("stopped"))
				t.Expect(done.Get("stopped_at").Time().IsZero()).To(BeFalse())
			},
			Bug: &kit.Bug{Says: "a stop without force stops the item at once, as if forced", Want: "stopping",
				Break: kit.InRouteRequests(http.MethodPost, mwtStop, func(_ *http.Request, b map[string]any) { b["force"] = true })}},
		{ID: "work/stop-force", Clause: "4.8", Labels: plain,
			Title: "a stop with force true stops the item at once",
			Run: func(t *kit.T) {
				env, id, _ := running(t, "")
				resp := t.OK(stopReq(env, id, map[string]any{"force": true}))
				t.Expect(resp.Get("state").String()).To(Equal("stopped"))
				t.Expect(resp.Get("stopped_at").Time().IsZero()).To(BeFalse())
			},
			Bug: &kit.Bug{Says: "a stop ignores force", Break: kit.InRouteRequests(http.MethodPost, mwtStop, func(_ *http.Request, b map[string]any) { delete(b, "force") })}},
		{ID: "work/stop-stopped-400", Clause: "gaps §8", Labels: ext,
			Title: "stop, heartbeat and acknowledge of a stopped item are refused with 400 naming the state",
			Run: func(t *kit.T) {
				env, id, last := running(t, "")
				t.OK(stopReq(env, id, map[string]any{"force": true}))
				for _, r := range []kit.Request{stopReq(env, id, nil), heartbeat(env, id, last, ""), ack(env, id)} {
					expectInvalid(t, t.Do(r), "stopped")
				}
			},
			Bug: &kit.Bug{Says: "a stop of a stopped item answers it, unchanged, with 200", Want: "-> 200", Break: kit.ActionIdempotent(mwtStop, "/stop")}},
		{ID: "work/item-timestamps-follow-lifecycle", Clause: "2.16", Labels: plain,
			Title: "through poll, acknowledge, heartbeat and forced stop, an item reads the state each answer gave, latest_heartbeat_at is the heartbeat's last_heartbeat, and created_at <= acknowledged_at <= latest_heartbeat_at <= stopped_at",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				id := Enqueue(t, env)
				polled := t.OK(poll(env, nil))
				t.Expect(polled.Get("id").String()).To(Equal(id))
				t.Expect(polled.Get("environment_id").String()).To(Equal(env))
				acked := t.OK(ack(env, id))
				hb := t.OK(heartbeat(env, id, "NO_HEARTBEAT", ""))
				item := t.OK(GetItem(env, id))
				t.Expect(item.Get("state").String()).To(Equal(hb.Get("state").String()), "the heartbeat answered the item's state: %s", item)
				t.Expect(item.Get("latest_heartbeat_at").Time()).To(Equal(hb.Get("last_heartbeat").Time()), "latest_heartbeat_at is the recorded heartbeat: %s", item)
				t.Expect(item.Get("acknowledged_at").Time()).To(Equal(acked.Get("acknowledged_at").Time()), "acknowledged_at does not move: %s", item)
				stopped := t.OK(stopReq(env, id, map[string]any{"force": true}))
				t.Expect(t.OK(GetItem(env, id)).Body).To(MatchJSON(stopped.Body), "the item reads as the stop answered it")
				var last time.Time
				for _, f := range []string{"created_at", "acknowledged_at", "latest_heartbeat_at", "stopped_at"} {
					at := stopped.Get(f).Time()
					t.Expect(at.IsZero()).To(BeFalse(), "%s is set once the item went through it: %s", f, stopped)
					t.Expect(at.Before(last)).To(BeFalse(), "%s is before the previous step: %s", f, stopped)
					last = at
				}
			},
			Bug: &kit.Bug{Says: "an item's latest_heartbeat_at is a second off the heartbeat's last_heartbeat", Want: "latest_heartbeat_at",
				Break: kit.InRouteOKAnswers(http.MethodGet, mwtItem, func(_ *http.Request, m map[string]any) { kit.ShiftTime(m, "latest_heartbeat_at", time.Second) })}},
		{ID: "work/stats-agree-with-list", Clause: "gaps §8", Labels: ext,
			Title: "the queue stats agree with the work list: depth counts its queued items and oldest_queued_at is the earliest created_at among them",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				ids := []string{Enqueue(t, env), Enqueue(t, env), Enqueue(t, env)}
				t.OK(ack(env, ids[0]))
				queued, oldest := 0, time.Time{}
				for _, w := range t.WalkPages(Req(http.MethodGet, env, "", nil, "work/work_list"), 0) {
					if w.Get("state").String() != "queued" {
						continue
					}
					queued++
					if at := w.Get("created_at").Time(); oldest.IsZero() || at.Before(oldest) {
						oldest = at
					}
				}
				t.Expect(queued).To(Equal(2))
				stats := t.OK(statsReq(env))
				t.Expect(stats.Get("depth").Int()).To(BeNumerically("==", queued), "%s", stats)
				t.Expect(stats.Get("oldest_queued_at").Time()).To(Equal(oldest), "%s", stats)
			},
			Bug: &kit.Bug{Says: "oldest_queued_at is a second off the earliest created_at of the queued items",
				Break: kit.InRouteOKAnswers(http.MethodGet, mwtStats, func(_ *http.Request, m map[string]any) { kit.ShiftTime(m, "oldest_queued_at", time.Second) })}},
		{ID: "work/item-of-other-environment-404", Clause: "4.8", Labels: plain,
			Title: "an item belongs to its environment: another environment's poll does not hand it out, and reading, acknowledging, heartbeating or stopping it through another environment's path is 404 and changes nothing",
			Run: func(t *kit.T) {
				home, other := CreateEnv(t), CreateEnv(t)
				id := Enqueue(t, home)
				t.Expect(strings.TrimSpace(string(t.OK(poll(other, nil)).Body))).To(Equal("null"), "the poll of another environment")
				for _, r := range []kit.Request{GetItem(other, id), ack(other, id), heartbeat(other, id, "NO_HEARTBEAT", ""), stopReq(other, id, nil)} {
					t.ExpectError(t.Do(r), http.StatusNotFound, "not_found_error")
				}
				t.Expect(t.OK(GetItem(home, id)).Get("state").String()).To(Equal("queued"))
				t.Expect(t.OK(poll(home, nil)).Get("id").String()).To(Equal(id))
			},
			Bug: &kit.Bug{Says: "an item is found by its ID under any environment's path", Want: "404", Break: mwtItemsAnyEnvironment}},
		{ID: "work/work-list-reads-as-get", Clause: "gaps §8", Labels: ext,
			Title: "every item of the work list reads by its ID exactly as the list gives it, in every state",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				Enqueue(t, env)
				acked := Enqueue(t, env)
				t.OK(ack(env, acked))
				stopped := Enqueue(t, env)
				t.OK(stopReq(env, stopped, map[string]any{"force": true}))
				items := t.WalkPages(Req(http.MethodGet, env, "", nil, "work/work_list"), 0)
				t.Expect(items).To(HaveLen(3))
				for _, w := range items {
					t.Expect(t.OK(GetItem(env, w.Get("id").String())).Body).To(MatchJSON(w.Raw))
				}
			},
			Bug: &kit.Bug{Says: "an item read by its ID gives a created_at a second off the list's",
				Break: kit.InRouteOKAnswers(http.MethodGet, mwtItem, func(_ *http.Request, m map[string]any) { kit.ShiftTime(m, "created_at", time.Second) })}},
		{ID: "work/stop-queued", Clause: "gaps §8", Labels: ext,
			Title: "a queued item holds no lease, so even a graceful stop stops it at once and takes it off the queue",
			Run: func(t *kit.T) {
				env := CreateEnv(t)
				id := Enqueue(t, env)
				t.Expect(t.OK(stopReq(env, id, nil)).Get("state").String()).To(Equal("stopped"))
				t.Expect(t.OK(poll(env, nil)).Get("id").Exists()).To(BeFalse())
			},
			Bug: &kit.Bug{Says: "a graceful stop of a queued item makes it stopping and leaves it on the queue", Break: mwtQueuedStopWaits}},
	}
}
