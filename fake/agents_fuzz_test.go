package fake

import (
	"net/http"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"
	"github.com/tidwall/gjson"
)

// FuzzAgentsBody: the bodies of managed agents (agents, sessions, a session's events, updates
// and resources), under the property every body target holds (fuzzCheck): a 4xx naming what it
// refuses and nothing changed, never a 5xx. Each input runs on a fresh server with one agent, a
// cloud environment and a session of its own, so that the routes with an ID reach their parsing.
func FuzzAgentsBody(f *testing.F) {
	routes := []fzRoute{
		{core.Post, "/v1/agents", core.IfAgents},
		{core.Post, "/v1/agents/{agent}", core.IfAgents},
		{core.Post, "/v1/sessions", core.IfAgents},
		{core.Post, "/v1/sessions/{session}", core.IfSessionWorker},
		{core.Post, "/v1/sessions/{session}/events", core.IfSessionWorker},
		{core.Post, "/v1/sessions/{session}/resources", core.IfAgents},
	}
	fuzzBodies(f, routes,
		`{"name":"a","model":"assistant-sonnet-4-5","tools":[{"type":"agent_toolset_20260401","configs":[{"name":"bash"}]}]}`,
		`{"name":"a","model":{"id":"claude-sonnet-4-5","effort":"high"},"tools":[{"type":"custom","name":"t","input_schema":{"type":"object"}}]}`,
		`{"version":1,"system":"s","metadata":{"k":null}}`,
		`{"agent":"{agent}","environment_id":"{env}","resources":[{"type":"file","file_id":"file_x"}]}`,
		`{"agent":{"type":"agent","id":"{agent}","version":1},"environment_id":"{env}","title":"t"}`,
		`{"title":"t","metadata":{"a":"b"},"agent":{"tools":[]}}`,
		`{"events":[{"type":"user.message","content":[{"type":"text","text":"$ pwd"}]}]}`,
		`{"events":[{"type":"user.tool_result","tool_use_id":"sevt_x","content":[]}]}`,
		`{"events":[{"type":"user.tool_confirmation","tool_use_id":"x","result":"allow"},{"type":"user.interrupt"}]}`,
		`{"events":[{"type":"user.custom_tool_result","custom_tool_use_id":"x"}]}`,
		`{"type":"file","file_id":"file_x"}`)
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		s := fuzzServer(t)
		made := func(path, body string) string {
			w := fuzzSend(s, http.MethodPost, path, "", body, headersFor(core.IfAgents)...)
			if w.Code != http.StatusOK {
				t.Fatalf("POST %s: %d %s", path, w.Code, w.Body)
			}
			return gjson.GetBytes(w.Body.Bytes(), "id").String()
		}
		agent := made("/v1/agents", `{"name":"fuzz","model":"assistant-sonnet-4-5","tools":[{"type":"agent_toolset_20260401"}]}`)
		env := made("/v1/environments", `{"name":"fuzz","config":{"type":"cloud"}}`)
		session := made("/v1/sessions", `{"agent":"`+agent+`","environment_id":"`+env+`"}`)
		ids := func(s string) string {
			return replaceAll(s, "{agent}", agent, "{env}", env, "{session}", session)
		}
		rt := routes[int(route)%len(routes)]
		rt.path = ids(rt.path)
		fuzzRequest(t, s, rt, "", ids(body), []fzRoute{
			{core.Get, "/v1/agents?limit=100&include_archived=true", core.IfAgents},
			{core.Get, "/v1/agents/" + agent + "/versions?limit=100", core.IfAgents},
			{core.Get, "/v1/sessions?limit=100&include_archived=true", core.IfAgents},
			{core.Get, "/v1/sessions/" + session + "/events?limit=1000", core.IfAgents},
			{core.Get, "/v1/sessions/" + session + "/resources", core.IfAgents},
		})
	})
}

// replaceAll replaces each old of the pairs by its new.
func replaceAll(s string, pairs ...string) string { return strings.NewReplacer(pairs...).Replace(s) }

// FuzzBatchesBody: a message batch's body, whose requests each go through the Messages rules:
// a malformed batch is refused whole with a 4xx naming the place, and no batch is half-made.
func FuzzBatchesBody(f *testing.F) {
	routes := []fzRoute{{core.Post, "/v1/messages/batches", core.IfMessages}}
	ok := `{"model":"assistant-sonnet-4-5","max_tokens":16,"messages":[{"role":"user","content":"Hi"}]}`
	fuzzBodies(f, routes,
		`{"requests":[{"custom_id":"a","params":`+ok+`}]}`,
		`{"requests":[{"custom_id":"a","params":`+ok+`},{"custom_id":"a","params":`+ok+`}]}`,
		`{"requests":[{"custom_id":"a","params":{"model":"assistant-sonnet-4-5","max_tokens":16,"stream":true,"messages":[]}}]}`,
		`{"requests":[{"custom_id":"a","params":[]}]}`,
		`{"requests":[{"custom_id":"","params":`+ok+`}]}`,
		`{"requests":[]}`)
	fuzzRouteBody(f, routes, []fzRoute{{core.Get, "/v1/messages/batches?limit=100", core.IfMessages}})
}
