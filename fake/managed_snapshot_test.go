package fake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake/internal/areas/agents"
	"github.com/platformkit/platformkit/fake/internal/areas/skills"
	"github.com/platformkit/platformkit/fake/internal/areas/vaults"
	"github.com/platformkit/platformkit/fake/internal/core"
	"github.com/platformkit/platformkit/fixtures"
)

// Snapshots of agents (agents.json), vaults with their credentials (vaults.json) and skills with
// their versions and files (skills.json): a world built through the API continues exactly, and a
// fixture file's mistakes are refused naming their place.

// researchHeader is the header of Acme's API key of its research workspace (researchKey), whose
// vaults and skills no other credential sees.
var researchHeader = []string{"X-Api-Key", researchKey}

// acmeAgent is the default data set's agent of the first organization, which its sessions run.
const acmeAgent = "agent_01AcmeBuildBot000000001"

// globexKey is the second organization's API key, whose agents, vaults and skill the default data
// set holds.
var globexKey = []string{"X-Api-Key", "test-api-key-2"}

// managedReads is every GET of agents, vaults and skills the credential (header; none: Acme's
// default API key) reads: the lists, whole and by pages of one (whose next_page tokens name the
// records' places), each record, each agent version, credential and skill version, and each skill
// version's content. reads (snapshot_test.go) crawls them too.
func managedReads(w *world, header ...string) []string {
	var paths []string
	for _, list := range []string{"/v1/agents?limit=100&include_archived=true", "/v1/agents?limit=1",
		"/v1/vaults?limit=100&include_archived=true", "/v1/vaults?limit=1", "/v1/skills?limit=100", "/v1/skills?limit=1"} {
		paths = append(paths, list)
	}
	for _, id := range w.ids("/v1/agents?limit=100&include_archived=true", "data.#.id", header...) {
		base := "/v1/agents/" + id
		paths = append(paths, base, base+"/versions?limit=100", base+"/versions?limit=1")
		for _, v := range w.ids(base+"/versions?limit=100", "data.#.version", header...) {
			paths = append(paths, base+"?version="+v)
		}
	}
	for _, id := range w.ids("/v1/vaults?limit=100&include_archived=true", "data.#.id", header...) {
		creds := "/v1/vaults/" + id + "/credentials"
		paths = append(paths, "/v1/vaults/"+id, creds+"?limit=100&include_archived=true", creds+"?limit=1", creds+"?limit=100")
		for _, c := range w.ids(creds+"?limit=100&include_archived=true", "data.#.id", header...) {
			paths = append(paths, creds+"/"+c)
		}
	}
	for _, id := range w.ids("/v1/skills?limit=100", "data.#.id", header...) {
		base := "/v1/skills/" + id
		paths = append(paths, base, base+"/versions?limit=100", base+"/versions?limit=1", base+"/versions/latest")
		for _, v := range w.ids(base+"/versions?limit=100", "data.#.id", header...) {
			paths = append(paths, base+"/versions/"+v, base+"/versions/"+v+"/content")
		}
	}
	return paths
}

// skillForm is a skill upload's multipart body of files (path → content) and its Content-Type.
func skillForm(t *testing.T, files ...[2]string) (string, []string) {
	var parts []part
	for _, f := range files {
		parts = append(parts, part{"files[]", f[0], "application/octet-stream", []byte(f[1])})
	}
	body, ct := multipartBody(t, parts...)
	return body, []string{"Content-Type", ct}
}

// okJSON makes a request of w that must succeed, and returns its body.
func okJSON(t *testing.T, w *world, method, path, body string, header ...string) gjson.Result {
	t.Helper()
	a := w.do(method, path, body, header...)
	if a.status != 200 {
		t.Fatalf("%s %s = %d %s", method, path, a.status, a.body)
	}
	return gjson.Parse(a.body)
}

// The secrets a request gives in buildManagedWorld: no snapshot may hold them.
var requestSecrets = []string{"bearer-secret-1", "bearer-secret-2", "oauth-access", "oauth-refresh", "oauth-client-secret", "env-secret-value", "research-secret", "globex-new-secret"}

// buildManagedWorld makes agents with versions (one unchanged by an update, one archived),
// vaults with credentials of each type (updated, archived, deleted; one vault archived, one in a
// workspace), and skills with versions (one deleted between two others, one skill in a
// workspace), the clock moving between the calls.
func buildManagedWorld(t *testing.T, w *world) {
	advance := func() { okJSON(t, w, "POST", "/_fake/clock/advance", `{"seconds":61}`) }
	agent := okJSON(t, w, "POST", "/v1/agents", `{"name":"planner","model":"assistant-opus-4-7","system":"Plan.",`+
		`"tools":[{"type":"agent_toolset_20260401","configs":[{"name":"bash","enabled":false}]},{"type":"mcp_toolset","mcp_server_name":"docs"},`+
		`{"type":"custom","name":"lookup","description":"Looks up.","input_schema":{"type":"object","properties":{"id":{"type":"string"}}}}],`+
		`"mcp_servers":[{"type":"url","name":"docs","url":"https://docs.example/mcp"}],"metadata":{"team":"a"},"multiagent":{"type":"coordinator","id":"shared","n":1.50}}`).Get("id").String()
	advance()
	okJSON(t, w, "POST", "/v1/agents/"+agent, `{"system":"Plan carefully.","model":{"id":"assistant-opus-4-7","effort":"low"}}`)
	okJSON(t, w, "POST", "/v1/agents/"+agent, `{"system":"Plan carefully."}`) // no change: no version
	advance()
	okJSON(t, w, "POST", "/v1/agents/"+agent, `{"description":"Plans.","metadata":{"team":null,"tier":"2"},"skills":[{"type":"custom","skill_id":"skill_x"}]}`)
	old := okJSON(t, w, "POST", "/v1/agents", `{"name":"old","model":"assistant-opus-4-7"}`).Get("id").String()
	okJSON(t, w, "POST", "/v1/agents/"+old, `{"name":"older"}`)
	advance()
	okJSON(t, w, "POST", "/v1/agents/"+old+"/archive", "")
	okJSON(t, w, "POST", "/v1/agents", `{"name":"same instant","model":{"id":"assistant-opus-4-7","speed":"fast"}}`)

	vault := okJSON(t, w, "POST", "/v1/vaults", `{"display_name":"prod","metadata":{"env":"prod"}}`).Get("id").String()
	creds := "/v1/vaults/" + vault + "/credentials"
	bearer := okJSON(t, w, "POST", creds, `{"display_name":"docs","auth":{"type":"static_bearer","mcp_server_url":"https://docs.example/mcp","token":"bearer-secret-1"}}`).Get("id").String()
	okJSON(t, w, "POST", creds, `{"auth":{"type":"mcp_oauth","mcp_server_url":"https://o.example/mcp","access_token":"oauth-access","expires_at":"2026-06-01T00:00:00Z",`+
		`"refresh":{"client_id":"c","refresh_token":"oauth-refresh","token_endpoint":"https://o.example/token","token_endpoint_auth":{"type":"client_secret_post","client_secret":"oauth-client-secret"},"scope":"read"}}}`)
	env := okJSON(t, w, "POST", creds, `{"metadata":{"k":"v"},"auth":{"type":"environment_variable","secret_name":"API_TOKEN","secret_value":"env-secret-value","networking":{"type":"unrestricted"},"injection_location":{"body":true}}}`).Get("id").String()
	gone := okJSON(t, w, "POST", creds, `{"auth":{"type":"static_bearer","mcp_server_url":"https://x.example","token":"gone"}}`).Get("id").String()
	advance()
	okJSON(t, w, "POST", creds+"/"+bearer, `{"display_name":"docs (rotated)","auth":{"type":"static_bearer","token":"bearer-secret-2"}}`)
	okJSON(t, w, "POST", creds+"/"+env+"/archive", "")
	okJSON(t, w, "DELETE", creds+"/"+gone, "")
	okJSON(t, w, "POST", "/v1/vaults/"+vault, `{"display_name":"production","metadata":{"env":null,"owner":"ops"}}`)
	closed := okJSON(t, w, "POST", "/v1/vaults", `{"display_name":"closed"}`).Get("id").String()
	okJSON(t, w, "POST", "/v1/vaults/"+closed+"/credentials", `{"auth":{"type":"static_bearer","mcp_server_url":"https://c.example","token":"bearer-secret-1"}}`)
	okJSON(t, w, "POST", "/v1/vaults/"+closed+"/archive", "")
	// A request's secret replaces one the fixtures gave: it is the request's now.
	okJSON(t, w, "POST", "/v1/vaults/vlt_01GlobexSupportTools00001/credentials/vcrd_01GlobexTrackerToken00001", `{"auth":{"type":"static_bearer","token":"globex-new-secret"}}`, globexKey...)
	okJSON(t, w, "POST", "/v1/vaults/vlt_01GlobexSupportTools00001/credentials/vcrd_01GlobexStatusPageKey0001", `{"display_name":"status page"}`, globexKey...)
	research := okJSON(t, w, "POST", "/v1/vaults", `{"display_name":"research"}`, researchHeader...).Get("id").String()
	okJSON(t, w, "POST", "/v1/vaults/"+research+"/credentials", `{"auth":{"type":"static_bearer","mcp_server_url":"https://r.example","token":"research-secret"}}`, researchHeader...)

	body, ct := skillForm(t, [2]string{"greeting/SKILL.md", skillMD}, [2]string{"greeting/scripts/hello.py", "print('hi')\n"}, [2]string{"greeting/empty.txt", ""})
	skill := okJSON(t, w, "POST", "/v1/skills", body, ct...).Get("id").String()
	advance()
	body, ct = skillForm(t, [2]string{"greeting/SKILL.md", skillMD + "v2\n"}, [2]string{"greeting/data.bin", "\x00\xff binary \x01"})
	middle := okJSON(t, w, "POST", "/v1/skills/"+skill+"/versions", body, ct...).Get("id").String()
	body, ct = skillForm(t, [2]string{"greeting/SKILL.md", "---\nname: greeting\ndescription: \"Says hello, v3.\"\n---\n"})
	okJSON(t, w, "POST", "/v1/skills/"+skill+"/versions", body, ct...)
	okJSON(t, w, "DELETE", "/v1/skills/"+skill+"/versions/"+middle, "")
	body, ct = skillForm(t, [2]string{"notes/SKILL.md", "# Notes\n"})
	okJSON(t, w, "POST", "/v1/skills", body, append(ct, researchHeader...)...)
	body, ct = skillForm(t, [2]string{"last/SKILL.md", "# Last\n"})
	last := okJSON(t, w, "POST", "/v1/skills", body, ct...).Get("id").String()
	body, ct = skillForm(t, [2]string{"last/SKILL.md", "# Last 2\n"})
	latest := okJSON(t, w, "POST", "/v1/skills/"+last+"/versions", body, ct...).Get("id").String()
	okJSON(t, w, "DELETE", "/v1/skills/"+last+"/versions/"+latest, "") // the skill has had more uploads than versions
}

// TestSnapshotContinuesManagedAgents: agents, vaults and skills made through the API are written
// into a snapshot that loads into a new server, where every read of them (and every read of the
// rest of the world, by sameWorld) answers byte for byte as before, for each credential that sees
// them; and the next writes (a create of each, a skill version, a credential update, a
// validation) answer as they would have, IDs included.
func TestSnapshotContinuesManagedAgents(t *testing.T) {
	orig := New()
	buildManagedWorld(t, newWorld(t, orig))
	snap, err := orig.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range requestSecrets {
		for name, content := range snap {
			if strings.Contains(content, secret) {
				t.Errorf("%s holds the secret %q a request gave", name, secret)
			}
		}
	}
	if !strings.Contains(snap["vaults.json"], `"secret_value": "test-status-page-key"`) {
		t.Errorf("vaults.json lost the secret of the default data set that no request changed, which a snapshot writes as the fixtures gave it")
	}
	loaded := checked(t)
	if err := loaded.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	again, err := loaded.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agents.json", "vaults.json", "skills.json"} {
		if snap[name] != again[name] {
			t.Errorf("%s changed through load and export:\n%s\n---\n%s", name, snap[name], again[name])
		}
	}
	a, b := newWorld(t, orig), newWorld(t, loaded)
	if pa, pb := managedReads(a), managedReads(b); len(pa) < 40 || !slices.Equal(pa, pb) { // both, so that both have answered as many requests
		t.Fatalf("%d reads of agents, vaults and skills (at least 40 built), loaded %d:\n%v\n%v", len(pa), len(pb), pa, pb)
	}
	for _, key := range [][]string{researchHeader, globexKey} {
		pa, pb := managedReads(a, key...), managedReads(b, key...)
		if !slices.Equal(pa, pb) || len(pa) < 8 {
			t.Fatalf("%s: the worlds list different records:\n%v\n%v", key[1], pa, pb)
		}
		for _, p := range pa {
			if x, y := a.do("GET", p, "", key...), b.do("GET", p, "", key...); x.status != y.status || x.body != y.body {
				t.Fatalf("%s GET %s:\noriginal %d %s\nloaded   %d %s", key[1], p, x.status, x.body, y.status, y.body)
			}
		}
	}
	sameWorld(t, a, b) // every read of the default key, agents, vaults and skills included; the next creates
	// The next writes of what only this world holds: a version of each kind, on its records, and
	// the reads after them.
	id := func(list, path string) string { // looked up in both, which then have answered as many requests
		x, y := a.ids(list, path), b.ids(list, path)
		if len(x) != 1 || !slices.Equal(x, y) {
			t.Fatalf("%s %s: %v, loaded %v", list, path, x, y)
		}
		return x[0]
	}
	agent := id("/v1/agents?limit=100", "data.#(name==\"planner\")#.id")
	vault := id("/v1/vaults?limit=100", "data.#(display_name==\"production\")#.id")
	creds := "/v1/vaults/" + vault + "/credentials"
	oauth := id(creds+"?limit=100", "data.#(auth.type==\"mcp_oauth\")#.id")
	skill := id("/v1/skills?limit=100", "data.#(display_name==\"greeting\")#.id")
	last := id("/v1/skills?limit=100", "data.#(display_name==\"last\")#.id")
	third, act := skillForm(t, [2]string{"last/SKILL.md", "# Last 3\n"})
	body, ct := skillForm(t, [2]string{"greeting/SKILL.md", skillMD})
	upload, uct := skillForm(t, [2]string{"fresh/SKILL.md", "# Fresh\n"})
	for _, wr := range []struct {
		method, path, body string
		header             []string
	}{
		{"POST", "/v1/agents/" + agent, `{"name":"planner 2"}`, nil},
		{"POST", creds + "/" + oauth, `{"auth":{"type":"mcp_oauth","mcp_server_url":"https://o2.example/mcp"}}`, nil},
		{"POST", creds + "/" + oauth + "/mcp_oauth_validate", "", nil},
		{"POST", "/v1/skills/" + skill + "/versions", body, ct},
		{"POST", "/v1/skills/" + last + "/versions", third, act}, // after a deleted latest: ordered after it
		{"GET", "/v1/skills/" + skill + "/versions?limit=1", "", nil},
		{"POST", "/v1/skills", upload, uct},
		{"POST", "/v1/vaults", `{"display_name":"next"}`, globexKey},
	} {
		if x, y := a.do(wr.method, wr.path, wr.body, wr.header...), b.do(wr.method, wr.path, wr.body, wr.header...); x != y {
			t.Fatalf("%s %s:\noriginal %+v\nloaded   %+v", wr.method, wr.path, x, y)
		}
	}
	pa, pb := managedReads(a), managedReads(b) // both, so that both have answered as many requests
	if !slices.Equal(pa, pb) {
		t.Fatalf("after the next writes the worlds list different records:\n%v\n%v", pa, pb)
	}
	for _, p := range pa {
		if x, y := a.do("GET", p, ""), b.do("GET", p, ""); x != y {
			t.Fatalf("after the next writes, GET %s:\noriginal %+v\nloaded   %+v", p, x, y)
		}
	}
}

// TestSnapshotManagedAgentsCharged: a loaded agent, vault (with its credentials) or skill (with
// its versions) counts against its area's byte bound as its create did: by the held size of what
// the API answers for it, the secrets the API keeps besides, and each version's archive.
func TestSnapshotManagedAgentsCharged(t *testing.T) {
	orig := New()
	w := newWorld(t, orig)
	agent := okJSON(t, w, "POST", "/v1/agents", `{"name":"a","model":"assistant-opus-4-7","system":"S."}`).Get("id").String()
	okJSON(t, w, "POST", "/v1/agents/"+agent, `{"system":"T."}`)
	vault := okJSON(t, w, "POST", "/v1/vaults", `{"display_name":"v"}`).Get("id").String()
	okJSON(t, w, "POST", "/v1/vaults/"+vault+"/credentials", `{"auth":{"type":"static_bearer","mcp_server_url":"https://x.example","token":"0123456789abcdefghij"}}`)
	body, ct := skillForm(t, [2]string{"greeting/SKILL.md", skillMD})
	skill := okJSON(t, w, "POST", "/v1/skills", body, ct...).Get("id").String()
	snap, err := orig.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	loaded := New()
	if err := loaded.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	st := loaded.srv.State()
	r := newWorld(t, loaded)
	size := func(path string, header ...string) int {
		return core.HeldSizeOf(json.RawMessage(r.do("GET", path, "", header...).body))
	}
	// The default data set's records (Globex's, and Acme's agent) count too.
	wantAgents := size("/v1/agents/"+agent+"?version=1") + size("/v1/agents/"+agent+"?version=2") + size("/v1/agents/"+acmeAgent+"?version=1") +
		size("/v1/agents/agent_01GlobexTriage000000001?version=1", globexKey...) + size("/v1/agents/agent_01GlobexTriage000000001?version=2", globexKey...)
	if got := agents.StoreOf(loaded.srv, st).Bytes; got != wantAgents {
		t.Errorf("the loaded agents are charged %d bytes, want %d", got, wantAgents)
	}
	secrets := func(m map[string]any) int { return core.HeldSizeOf(m) }
	wantVaults := size("/v1/vaults/"+vault) + size("/v1/vaults/"+vault+"/credentials/"+gjson.Get(r.do("GET", "/v1/vaults/"+vault+"/credentials", "").body, "data.0.id").String()) +
		secrets(map[string]any{"token": "0123456789abcdefghij"}) +
		size("/v1/vaults/vlt_01GlobexSupportTools00001", globexKey...) +
		size("/v1/vaults/vlt_01GlobexSupportTools00001/credentials/vcrd_01GlobexTrackerToken00001", globexKey...) + secrets(map[string]any{"token": "test-tracker-token"}) +
		size("/v1/vaults/vlt_01GlobexSupportTools00001/credentials/vcrd_01GlobexStatusPageKey0001", globexKey...) + secrets(map[string]any{"secret_value": "test-status-page-key"})
	if got := vaults.StoreOf(loaded.srv, st).Bytes; got != wantVaults {
		t.Errorf("the loaded vaults are charged %d bytes, want %d", got, wantVaults)
	}
	content := func(path string, header ...string) int {
		return core.AllocSize(len(r.do("GET", path, "", header...).body))
	}
	ver := gjson.Get(r.do("GET", "/v1/skills/"+skill, "").body, "latest_version_id").String()
	const gv = "/v1/skills/skill_01GlobexReleaseNotes00001/versions/skver_01GlobexReleaseNotes0001"
	wantSkills := size("/v1/skills/"+skill) + size("/v1/skills/"+skill+"/versions/"+ver) + content("/v1/skills/"+skill+"/versions/"+ver+"/content") +
		size("/v1/skills/skill_01GlobexReleaseNotes00001", globexKey...) + size(gv, globexKey...) + content(gv+"/content", globexKey...)
	if got := skills.StoreOf(loaded.srv, st).Bytes; got != wantSkills {
		t.Errorf("the loaded skills are charged %d bytes, want %d", got, wantSkills)
	}
}

// TestManagedFixturesRefusedNamingThePlace: a mistake in agents.json, vaults.json or skills.json
// refuses the data set, naming the file and the field (or both places of a duplicate ID).
func TestManagedFixturesRefusedNamingThePlace(t *testing.T) {
	const org, ts = `"organization_id":"org_01AcmeCorporation00000001"`, `"2026-01-01T00:00:00Z"`
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	version := func(id, files string) string {
		return fmt.Sprintf(`{"id":%q,"created_at":%s,"files":[%s]}`, id, ts, files)
	}
	file := func(path, content string) string { return fmt.Sprintf(`{"path":%q,"content":%q}`, path, b64(content)) }
	skill := func(extra, versions string) string {
		return `{"skills":[{` + org + extra + `,"id":"skill_a","created_at":` + ts + `,"display_name":"a","updated_at":` + ts + `,"versions":[` + versions + `]}]}`
	}
	agent := func(orgID, versions string) string {
		return `{"agents":[{"organization_id":"` + orgID + `","id":"agent_a","created_at":` + ts + `,"versions":[` + versions + `]}]}`
	}
	vault := func(extra, creds string) string {
		return `{"vaults":[{` + org + extra + `,"id":"vlt_a","created_at":` + ts + `,"display_name":"v","updated_at":` + ts + `,"credentials":[` + creds + `]}]}`
	}
	const v1 = `{"updated_at":"2026-01-01T00:00:00Z","name":"a","model":"assistant-opus-4-7"}`
	cred := `{"id":"vcrd_a","auth":{"type":"static_bearer","mcp_server_url":"https://x","token":"t"},"created_at":` + ts + `,"updated_at":` + ts + `}`
	for _, tc := range []struct{ name, file, content, want string }{
		{"agent organization", "agents.json", agent("org_nope", v1), "agents.json: agents.0.organization_id: agent agent_a names unknown organization org_nope"},
		{"agent tools", "agents.json", agent("org_01AcmeCorporation00000001", `{"updated_at":`+ts+`,"name":"a","model":"m","tools":[{"type":"agent_toolset_20260401"},{"type":"agent_toolset_20260401"}]}`),
			"agents.json: agents.0.versions.0.tools.1.type: an agent has at most one agent_toolset_20260401"},
		{"agent updated before created", "agents.json", agent("org_01AcmeCorporation00000001", v1+`,{"updated_at":"2025-01-01T00:00:00Z","name":"a","model":"m"}`),
			"agents.json: agents.0.versions.1.updated_at: 2025-01-01T00:00:00Z is before the agent's created_at"},
		{"agent schema", "agents.json", agent("org_01AcmeCorporation00000001", ""), "agents.json"},
		{"agent duplicate", "agents.json", `{"agents":[{` + org + `,"id":"agent_a","created_at":` + ts + `,"versions":[` + v1 + `]},{` + org + `,"id":"agent_a","created_at":` + ts + `,"versions":[` + v1 + `]}]}`,
			`id "agent_a" is used twice: at agents.json:1:`},
		{"vault workspace", "vaults.json", vault(`,"workspace_id":"wrkspc_nope"`, ""), "vaults.json: vaults.0.workspace_id: vault vlt_a names workspace wrkspc_nope, which no API key of organization org_01AcmeCorporation00000001 belongs to"},
		{"vault organization", "vaults.json", strings.Replace(vault("", ""), "org_01AcmeCorporation00000001", "org_nope", 1), "vaults.json: vaults.0.organization_id: vault vlt_a names unknown organization org_nope"},
		{"credential auth", "vaults.json", vault("", `{"id":"vcrd_a","auth":{"type":"static_bearer","mcp_server_url":"https://x"},"created_at":`+ts+`,"updated_at":`+ts+`}`), "vaults.0.credentials.0.auth"},
		{"credential duplicate", "vaults.json", vault("", cred+","+cred), `id "vcrd_a" is used twice`},
		{"skill organization", "skills.json", strings.Replace(skill("", version("skver_a", file("a/SKILL.md", "# A"))), "org_01AcmeCorporation00000001", "org_nope", 1),
			"skills.json: skills.0.organization_id: skill skill_a names unknown organization org_nope"},
		{"skill workspace", "skills.json", skill(`,"workspace_id":"wrkspc_nope"`, version("skver_a", file("a/SKILL.md", "# A"))), "skills.json: skills.0.workspace_id: skill skill_a names workspace wrkspc_nope"},
		{"skill path", "skills.json", skill("", version("skver_a", file("../a/SKILL.md", "# A"))), "skills.json: skills.0.versions.0.files.0.path: filename \"../a/SKILL.md\" is not a clean relative path"},
		{"skill directories", "skills.json", skill("", version("skver_a", file("a/SKILL.md", "# A")+","+file("b/x", "x"))), "skills.json: skills.0.versions.0.files.1.path: file \"b/x\" is not in a/"},
		{"skill without SKILL.md", "skills.json", skill("", version("skver_a", file("a/README.md", "# A"))), "skills.json: skills.0.versions.0.files: no a/SKILL.md"},
		{"skill name", "skills.json", skill("", version("skver_a", file("a/SKILL.md", "# A"))+","+version("skver_b", file("b/SKILL.md", "# B"))),
			"skills.json: skills.0.versions.1.files: the version's name \"b\" is not the skill's, a"},
		{"skill upload order", "skills.json", skill("", strings.Replace(version("skver_a", file("a/SKILL.md", "# A")), `"files"`, `"upload":2,"files"`, 1)+","+version("skver_b", file("a/SKILL.md", "# A"))),
			"skills.json: skills.0.versions.1.upload: 2 does not come after the version before's, 2"},
		{"skill uploads", "skills.json", skill(`,"uploads":1`, version("skver_a", file("a/SKILL.md", "# A"))+","+version("skver_b", file("a/SKILL.md", "# A"))),
			"skills.json: skills.0.uploads: 1 is fewer than the last version's upload, 2"},
		{"skill duplicate", "skills.json", skill("", version("skver_a", file("a/SKILL.md", "# A"))+","+version("skver_a", file("a/SKILL.md", "# A"))), `id "skver_a" is used twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, name := range []string{"organizations.json", "admin.json", "models.json"} {
				raw, _ := fs.ReadFile(fixtures.FS(), name)
				fsys[name] = &fstest.MapFile{Data: raw}
			}
			fsys[tc.file] = &fstest.MapFile{Data: []byte(tc.content)}
			_, err := LoadFixtures(fsys)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// TestManagedFixturesExportAsLoaded: the default data set's agents.json, vaults.json,
// skills.json and sessions.json are what a snapshot writes of them, byte for byte, once a request
// built each area: the files are in the snapshot's own form, and a snapshot of an untouched world
// diffs as nothing.
func TestManagedFixturesExportAsLoaded(t *testing.T) {
	s := New()
	w := newWorld(t, s)
	for _, p := range []string{"/v1/agents", "/v1/vaults", "/v1/skills", "/v1/sessions"} {
		okJSON(t, w, "GET", p, "", globexKey...)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agents.json", "vaults.json", "skills.json", "sessions.json"} {
		raw, err := fs.ReadFile(fixtures.FS(), name)
		if err != nil {
			t.Fatal(err)
		}
		if snap[name] != string(raw) {
			t.Errorf("the snapshot of the built default %s differs from the file:\n%s", name, snap[name])
		}
	}
}

// TestAgentsBuiltBySessionAreCharged: a session of a fixture agent, made before any request of
// the agents area, builds the agents' store charged to the byte budget its namespaces share, as
// the agents area's own requests would.
func TestAgentsBuiltBySessionAreCharged(t *testing.T) {
	s := New()
	w := newWorld(t, s)
	okJSON(t, w, "POST", "/v1/sessions", `{"agent":"agent_01GlobexTriage000000001","environment_id":"env_01GlobexPrimary0000000001"}`, globexKey...)
	a := agents.StoreOf(s.srv, s.srv.State())
	if a.Budget == nil || a.Bytes == 0 || a.Budget.Bytes.Load() != int64(a.Bytes) {
		t.Fatalf("the agents' store a session built keeps %d bytes, charged to %+v", a.Bytes, a.Budget)
	}
}
