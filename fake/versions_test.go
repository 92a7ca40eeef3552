package fake

import (
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// The bodies of TestMessageRulesPerVersion: each differs from a plain valid request in one place.
const (
	vUser     = `{"role":"user","content":"Read it"}`
	vDocument = `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"The sky is blue."},"title":"Sky"}`
	vCitation = `{"type":"char_location","cited_text":"The sky is blue.","document_index":0,"start_char_index":0,"end_char_index":16}`
)

func versionBody(extra, messages string) string {
	return `{"model":"` + testModel + `","max_tokens":50` + extra + `,"messages":[` + messages + `]}`
}

// TestMessageRulesPerVersion pins every rule of the version table on Messages and count_tokens:
// each body is answered at 2023-06-01 and at 2026-10-21 either answered or refused with the
// literal message, which names the field path.
func TestMessageRulesPerVersion(t *testing.T) {
	assistantDoc := `{"role":"assistant","content":[` + vDocument + `]}`
	nestedDoc := `{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_fetch","input":{"url":"https://example.com"}},` +
		`{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"web_fetch_result","url":"https://example.com","content":` + vDocument + `}}]}`
	userCited := `{"role":"user","content":[{"type":"text","text":"As the sky is blue","citations":[` + vCitation + `]}]}`
	searchCited := `{"role":"user","content":[{"type":"text","text":"Here"},{"type":"search_result","source":"https://example.com","title":"Sky","content":[{"type":"text","text":"Blue"},{"type":"text","text":"The sky","citations":[` + vCitation + `]}]}]}`
	toolSearchCited := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"search_result","source":"s","title":"t","content":[{"type":"text","text":"x","citations":[` + vCitation + `]}]}]}]}`
	toolUse := `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"search","input":{}}]}`
	for _, tc := range []struct {
		name string
		body string
		// want2026 is the message at 2026-10-21, "" when answered (2023-06-01 answers every body).
		want2026 string
		// countOnly2023 is the count_tokens message at 2023-06-01 when it differs from Messages'.
		count2023 string
	}{
		{"plain", versionBody("", vUser), "", ""},
		{"temperature default", versionBody(`,"temperature":1.0`, vUser), "temperature: Extra inputs are not permitted", "temperature: unknown field"},
		{"temperature 0", versionBody(`,"temperature":0`, vUser), "temperature: Extra inputs are not permitted", "temperature: unknown field"},
		{"top_p", versionBody(`,"top_p":0.9`, vUser), "top_p: Extra inputs are not permitted", "top_p: unknown field"},
		{"top_k", versionBody(`,"top_k":5`, vUser), "top_k: Extra inputs are not permitted", "top_k: unknown field"},
		{"document in assistant", versionBody("", vUser+","+assistantDoc+","+vUser),
			"messages.1.content.0: a document block cannot be sent in an assistant message at API version 2026-10-21; send documents in user messages", ""},
		{"document nested in assistant", versionBody("", vUser+","+nestedDoc+","+vUser), "", ""},
		{"document in user, citations enabled", versionBody("", `{"role":"user","content":[`+vDocument[:len(vDocument)-1]+`,"citations":{"enabled":true}},{"type":"text","text":"Sum up"}]}`), "", ""},
		{"citations in user text", versionBody("", userCited),
			"messages.0.content.0.citations: text blocks of user messages cannot carry citations at API version 2026-10-21; send them without citations", ""},
		{"citations in search_result", versionBody("", searchCited),
			"messages.0.content.1.content.1.citations: text blocks of user messages cannot carry citations at API version 2026-10-21; send them without citations", ""},
		{"citations in tool_result's search_result", versionBody("", vUser+","+toolUse+","+toolSearchCited),
			"messages.2.content.0.content.0.content.0.citations: text blocks of user messages cannot carry citations at API version 2026-10-21; send them without citations", ""},
		{"empty citations in user text", versionBody("", `{"role":"user","content":[{"type":"text","text":"Hi","citations":[]}]}`), "", ""},
		{"search_result citations enabled", versionBody("", `{"role":"user","content":[{"type":"search_result","source":"s","title":"t","citations":{"enabled":true},"content":[{"type":"text","text":"x"}]}]}`), "", ""},
		{"citations in assistant text", versionBody("", vUser+`,{"role":"assistant","content":[{"type":"text","text":"Blue","citations":[`+vCitation+`]}]},`+vUser), "", ""},
	} {
		for _, path := range []string{"/v1/messages", "/v1/messages/count_tokens"} {
			for _, version := range []string{core.APIVersion, core.APIVersion20261021} {
				t.Run(tc.name+" "+path+" "+version, func(t *testing.T) {
					s := checked(t)
					want := ""
					switch {
					case version == core.APIVersion20261021:
						want = tc.want2026
					case path == "/v1/messages/count_tokens":
						want = tc.count2023
					}
					// The version in the name the official SDKs send it in, the key as they send it.
					body := tc.body
					if path == "/v1/messages/count_tokens" { // which takes no max_tokens
						body = strings.Replace(body, `"max_tokens":50,`, "", 1)
					}
					w := send(t, s, "POST", path, body, "Authorization", "Bearer test-api-key", "anthropic-version", version, "Content-Type", "application/json")
					if want == "" {
						if w.Code != 200 {
							t.Fatalf("status %d, want 200: %s", w.Code, w.Body)
						}
						return
					}
					wantError(t, w, 400, core.ErrInvalidRequest, want)
					if got := gjson.GetBytes(w.Body.Bytes(), "error.message").String(); got != want {
						t.Fatalf("message %q, want exactly %q", got, want)
					}
				})
			}
		}
	}
}

// TestRateLimitGroupTypePerVersion: admin rate-limit entries carry group_type, equal to
// group.type, at 2023-06-01 and leave it out at 2026-10-21, on every route that answers them.
func TestRateLimitGroupTypePerVersion(t *testing.T) {
	const ws = "wrkspc_01AcmeProduction00000001"
	for _, tc := range []struct {
		method, path, body, entry string
	}{
		{"GET", "/v1/organizations/rate_limits?group_type=token_count", "", "data.0"},
		{"GET", "/v1/organizations/workspaces/" + ws + "/rate_limits?include_inherited=true&group_type=token_count", "", "data.0"},
	} {
		for version, want := range map[string]string{core.APIVersion: `"token_count"`, core.APIVersion20261021: ""} {
			s := checked(t)
			w := send(t, s, tc.method, tc.path, tc.body, "Authorization", "Bearer test-admin-key", "anthropic-version", version)
			if w.Code != 200 {
				t.Fatalf("%s %s at %s: status %d: %s", tc.method, tc.path, version, w.Code, w.Body)
			}
			e := gjson.GetBytes(w.Body.Bytes(), tc.entry)
			if got := e.Get("group_type").Raw; got != want {
				t.Errorf("%s at %s: group_type = %s, want %q (entry %s)", tc.path, version, got, want, e.Raw)
			}
			if got := e.Get("group.type").String(); got != "token_count" {
				t.Errorf("%s at %s: group.type = %q, want token_count", tc.path, version, got)
			}
		}
	}
}

// TestJournalNamesVersion: the journal shows the version each request spoke, and none for a
// request refused for its version.
func TestJournalNamesVersion(t *testing.T) {
	s := checked(t)
	for _, v := range []string{"2026-10-21", "2023-06-01", "2020-01-01"} {
		send(t, s, "GET", "/v1/models", "", "Authorization", "Bearer test-api-key", "anthropic-version", v)
	}
	w := send(t, s, "GET", "/_fake/journal", "")
	var got []string
	for _, e := range gjson.GetBytes(w.Body.Bytes(), "data").Array() {
		got = append(got, e.Get("api_version").String()+"/"+e.Get("status").String())
	}
	if want := "2026-10-21/200 2023-06-01/200 /400"; strings.Join(got, " ") != want {
		t.Fatalf("journal versions %q, want %q", strings.Join(got, " "), want)
	}
}

// TestBillingPolicy: the new majors' billing_policy is accepted with bill_to "self" (or without
// bill_to) on Messages and count_tokens, and "user_profile" is refused naming the field.
func TestBillingPolicy(t *testing.T) {
	for _, path := range []string{"/v1/messages", "/v1/messages/count_tokens"} {
		for bp, want := range map[string]string{
			`{"type":"billing_policy","bill_to":"self"}`:         "",
			`{"type":"billing_policy"}`:                          "",
			`{"type":"billing_policy","bill_to":"user_profile"}`: `billing_policy.bill_to: "user_profile": no user profile of this request has linked an organization that allows it to be billed; send "self" or omit billing_policy`,
			`{"type":"billing_policy","bill_to":"team"}`:         "billing_policy.bill_to: value must be one of",
		} {
			body := versionBody(`,"billing_policy":`+bp, vUser)
			if path == "/v1/messages/count_tokens" {
				body = strings.Replace(body, `"max_tokens":50,`, "", 1)
			}
			w := send(t, checked(t), "POST", path, body, "Authorization", "Bearer test-api-key", "anthropic-version", core.APIVersion20261021)
			if want == "" {
				if w.Code != 200 {
					t.Errorf("%s %s: status %d: %s", path, bp, w.Code, w.Body)
				}
				continue
			}
			wantError(t, w, 400, core.ErrInvalidRequest, want)
		}
	}
}

// TestWorkspaceUserProfileID: the new majors' user_profile_id is stored by create and update and
// answered (null until set).
func TestWorkspaceUserProfileID(t *testing.T) {
	s := checked(t)
	h := []string{"Authorization", "Bearer test-admin-key", "anthropic-version", core.APIVersion20261021, "Content-Type", "application/json"}
	w := send(t, s, "POST", "/v1/organizations/workspaces", `{"name":"Profiled","user_profile_id":"uprof_1"}`, h...)
	if got := gjson.GetBytes(w.Body.Bytes(), "user_profile_id").Raw; got != `"uprof_1"` {
		t.Fatalf("create: user_profile_id %s, want \"uprof_1\": %s", got, w.Body)
	}
	id := gjson.GetBytes(w.Body.Bytes(), "id").String()
	w = send(t, s, "POST", "/v1/organizations/workspaces/"+id, `{"user_profile_id":"uprof_2"}`, h...)
	if got := gjson.GetBytes(w.Body.Bytes(), "user_profile_id").Raw; got != `"uprof_2"` {
		t.Fatalf("update: user_profile_id %s, want \"uprof_2\": %s", got, w.Body)
	}
	w = send(t, s, "GET", "/v1/organizations/workspaces/"+id, "", h...)
	if got := gjson.GetBytes(w.Body.Bytes(), "user_profile_id").Raw; got != `"uprof_2"` {
		t.Fatalf("get: user_profile_id %s, want \"uprof_2\": %s", got, w.Body)
	}
	w = send(t, s, "POST", "/v1/organizations/workspaces", `{"name":"Plain"}`, h...)
	if got := gjson.GetBytes(w.Body.Bytes(), "user_profile_id").Raw; got != "null" {
		t.Fatalf("create without: user_profile_id %s, want null", got)
	}
}

// TestWorkspaceDataPrivacy: inference_data_privacy needs the efs beta to be set, keeps the members
// an update omits, is answered (its defaults until set) only to requests that send the beta, and a
// storage member "external" needs the External Storage it names.
func TestWorkspaceDataPrivacy(t *testing.T) {
	s := checked(t)
	h := []string{"Authorization", "Bearer test-admin-key", "anthropic-version", core.APIVersion20261021, "Content-Type", "application/json"}
	efs := append(h, "anthropic-beta", "efs-2026-10-01")
	w := send(t, s, "POST", "/v1/organizations/workspaces", `{"name":"Private","inference_data_privacy":{"human_review":{"type":"disabled"}}}`, h...)
	if want := `{"type":"error","error":{"type":"invalid_request_error","message":"inference_data_privacy: requires the anthropic-beta value \"efs-2026-10-01\""}`; w.Code != 400 || !strings.HasPrefix(w.Body.String(), want) {
		t.Fatalf("without the beta: %d %s, want 400 %s", w.Code, w.Body, want)
	}
	w = send(t, s, "POST", "/v1/organizations/workspaces", `{"name":"Private","inference_data_privacy":{"human_review":{"type":"disabled"}}}`, efs...)
	want := `{"human_review":{"type":"disabled"},"safeguards_storage":{"type":"internal"},"transcripts_storage":{"type":"internal"}}`
	if got := gjson.GetBytes(w.Body.Bytes(), "inference_data_privacy").Raw; w.Code != 200 || got != want {
		t.Fatalf("create: %d inference_data_privacy %s, want %s", w.Code, got, want)
	}
	id := gjson.GetBytes(w.Body.Bytes(), "id").String()
	w = send(t, s, "POST", "/v1/organizations/workspaces/"+id, `{"inference_data_privacy":{"transcripts_storage":{"type":"external","external_storage_id":"exst_1"}}}`, efs...)
	want = `{"human_review":{"type":"disabled"},"safeguards_storage":{"type":"internal"},"transcripts_storage":{"type":"external","external_storage_id":"exst_1"}}`
	if got := gjson.GetBytes(w.Body.Bytes(), "inference_data_privacy").Raw; w.Code != 200 || got != want {
		t.Fatalf("update: %d inference_data_privacy %s, want %s", w.Code, got, want)
	}
	w = send(t, s, "GET", "/v1/organizations/workspaces/"+id, "", h...)
	if got := gjson.GetBytes(w.Body.Bytes(), "inference_data_privacy"); got.Exists() {
		t.Fatalf("get without the beta answered inference_data_privacy %s", got.Raw)
	}
	w = send(t, s, "GET", "/v1/organizations/workspaces/wrkspc_01AcmeResearch0000000001", "", efs...)
	want = `{"human_review":{"type":"enabled"},"safeguards_storage":{"type":"internal"},"transcripts_storage":{"type":"internal"}}`
	if got := gjson.GetBytes(w.Body.Bytes(), "inference_data_privacy").Raw; got != want {
		t.Fatalf("never set: inference_data_privacy %s, want the defaults %s", got, want)
	}
	w = send(t, s, "POST", "/v1/organizations/workspaces/"+id, `{"inference_data_privacy":{"safeguards_storage":{"type":"external"}}}`, efs...)
	if w.Code != 400 || !strings.Contains(w.Body.String(), "inference_data_privacy.safeguards_storage") {
		t.Fatalf("external without its ID: %d %s, want 400 naming inference_data_privacy.safeguards_storage", w.Code, w.Body)
	}
}

// TestWorkspaceListIDs: the list's ids filter (ids[]=, as the SDKs send it) keeps only the named
// workspaces, still minus the archived ones, and takes at most 100 IDs.
func TestWorkspaceListIDs(t *testing.T) {
	s := checked(t)
	h := []string{"Authorization", "Bearer test-admin-key", "anthropic-version", core.APIVersion20261021}
	w := send(t, s, "GET", "/v1/organizations/workspaces?ids[]=wrkspc_01AcmeResearch0000000001&ids[]=wrkspc_nope", "", h...)
	if got := gjson.GetBytes(w.Body.Bytes(), "data.#.id").Raw; w.Code != 200 || got != `["wrkspc_01AcmeResearch0000000001"]` {
		t.Fatalf("ids: %d %s, want only the Research workspace", w.Code, got)
	}
	many := strings.Repeat("ids[]=wrkspc_x&", 101)
	w = send(t, s, "GET", "/v1/organizations/workspaces?"+many, "", h...)
	if w.Code != 400 || !strings.Contains(w.Body.String(), "ids: at most 100 workspace IDs, got 101") {
		t.Fatalf("101 ids: %d %s", w.Code, w.Body)
	}
}

// TestUserSignOut: the beta sign-out answers the member, needs its beta value, and a missing
// member is a 404.
func TestUserSignOut(t *testing.T) {
	s := checked(t)
	h := []string{"Authorization", "Bearer test-admin-key", "anthropic-version", core.APIVersion20261021}
	beta := append(h, "anthropic-beta", "admin-user-sign-out-2026-10-08")
	w := send(t, s, "POST", "/v1/organizations/users/user_01AcmeGraceDeveloper00001/sign_out", "", beta...)
	if w.Code != 200 || gjson.GetBytes(w.Body.Bytes(), "email").String() != "grace@acme.example" {
		t.Fatalf("sign out: %d %s", w.Code, w.Body)
	}
	wantError(t, send(t, s, "POST", "/v1/organizations/users/user_01AcmeGraceDeveloper00001/sign_out", "", h...), 400, core.ErrInvalidRequest,
		`requires the beta value "admin-user-sign-out-2026-10-08"`)
	wantError(t, send(t, s, "POST", "/v1/organizations/users/user_nobody/sign_out", "", beta...), 404, core.ErrNotFound, "user_nobody")
}
