package fake

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/compliance"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fixtures"
)

const (
	ccGrace  = "user_01AcmeGraceDeveloper00001"
	ccAlan   = "user_01AcmeAlanUser00000000001"
	ccKen    = "user_01AcmeKenCodeUser00000001"
	ccMarg   = "user_01AcmeMargaretUser0000001"
	ccHank   = "user_01GlobexHankAdmin00000001"
	ccChats  = "/v1/compliance/apps/chats"
	ccFiles  = "/v1/compliance/apps/chats/files/"
	ccPrefix = "/v1/compliance/apps/"
)

// ccResp is one answer of the compliance API.
type ccResp struct {
	status int
	header http.Header
	body   []byte
}

// get reads a gjson path of the body.
func (r ccResp) get(path string) gjson.Result { return gjson.GetBytes(r.body, path) }

// ccDo sends a compliance request with the first organization's key (or the given headers).
func ccDo(t *testing.T, ts *TestServer, method, path string, hdr ...string) ccResp {
	t.Helper()
	if len(hdr) == 0 {
		hdr = []string{"Authorization", "Bearer test-compliance-key"}
	}
	status, h, body, err := roundTrip(context.Background(), ts, method, path, nil, hdr...)
	if err != nil {
		t.Fatal(err)
	}
	return ccResp{status, h, body}
}

// ccOK requires a 200.
func ccOK(t *testing.T, ts *TestServer, path string) ccResp {
	t.Helper()
	r := ccDo(t, ts, http.MethodGet, path)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s = %d %s, want 200", path, r.status, r.body)
	}
	return r
}

// ccBad requires a 400 whose message names the parameter.
func ccBad(t *testing.T, ts *TestServer, path, param string) {
	t.Helper()
	r := ccDo(t, ts, http.MethodGet, path)
	if r.status != http.StatusBadRequest || r.get("error.type").String() != core.ErrInvalidRequest || !strings.Contains(r.get("error.message").String(), param) {
		t.Fatalf("GET %s = %d %s, want 400 naming %s", path, r.status, r.body, param)
	}
}

// ccNotFound requires a 404 not_found_error.
func ccNotFound(t *testing.T, ts *TestServer, method, path string) {
	t.Helper()
	if r := ccDo(t, ts, method, path); r.status != http.StatusNotFound || r.get("error.type").String() != core.ErrNotFound {
		t.Fatalf("%s %s = %d %s, want 404", method, path, r.status, r.body)
	}
}

// ccWalkChats pages through a chat list with the query q and page size, forwards, and returns the IDs.
func ccWalkChats(t *testing.T, ts *TestServer, q url.Values, size int) []string {
	t.Helper()
	var all []string
	q.Set("limit", strconv.Itoa(size))
	q.Del("after_id")
	for range 2000 {
		r := ccOK(t, ts, ccChats+"?"+q.Encode())
		page := idsOf(r.get("data"))
		if len(page) > size {
			t.Fatalf("page of %d with limit %d", len(page), size)
		}
		all = append(all, page...)
		if !r.get("has_more").Bool() {
			return all
		}
		if len(page) == 0 {
			t.Fatal("has_more with an empty page")
		}
		q.Set("after_id", r.get("last_id").String())
	}
	t.Fatal("the list did not end")
	return nil
}

// TestComplianceRoutesBesideChatID proves gin routes the static files and generated-files
// segments beside :chat_id to their own handlers.
func TestComplianceRoutesBesideChatID(t *testing.T) {
	ts := NewTestServer(t)
	if r := ccOK(t, ts, ccFiles+"assistant_file_01Acme0001"); r.get("filename").String() != "bombe-design.pdf" {
		t.Fatalf("files/:file_id answered %s", r.body)
	}
	ccOK(t, ts, ccPrefix+"chats/generated-files/assistant_gen_file_010001")
	ccOK(t, ts, ccPrefix+"chats/assistant_chat_01Acme000264/messages")
	// "files" as a chat ID reaches the chat handler, which does not know it.
	ccNotFound(t, ts, http.MethodGet, ccPrefix+"chats/files/messages")
	ccNotFound(t, ts, http.MethodDelete, ccPrefix+"chats/no-such-chat")
}

// TestComplianceCredentials: only the compliance key as a bearer token; x-api-key tolerated beside it (spec 5, gaps §10).
func TestComplianceCredentials(t *testing.T) {
	ts := NewTestServer(t)
	path := ccChats + "?user_ids=" + ccAlan
	for _, c := range []struct {
		hdr  []string
		want int
	}{
		{[]string{"Authorization", "Bearer test-compliance-key", "X-Api-Key", "anything"}, 200},
		{[]string{"Authorization", "Bearer test-compliance-key", "X-Api-Key", "test-api-key"}, 200},
		{[]string{"X-Api-Key", "test-admin-key"}, 403},
		{[]string{"X-Api-Key", "test-api-key"}, 403},
		{[]string{"X-Api-Key", "test-compliance-key"}, 403},
		{[]string{"Authorization", "Bearer nope"}, 401},
	} {
		if r := ccDo(t, ts, http.MethodGet, path, c.hdr...); r.status != c.want {
			t.Errorf("%v: status %d %s, want %d", c.hdr, r.status, r.body, c.want)
		}
	}
}

// TestComplianceChatListUserIDs: user_ids is required, 1 to 10, in every array form (spec 4.1, gaps §2).
func TestComplianceChatListUserIDs(t *testing.T) {
	ts := NewTestServer(t)
	ccBad(t, ts, ccChats, "user_ids")
	ccBad(t, ts, ccChats+"?user_ids=", "user_ids")
	var eleven []string
	for i := range 11 {
		eleven = append(eleven, fmt.Sprintf("user_%02d", i))
	}
	ccBad(t, ts, ccChats+"?user_ids="+strings.Join(eleven, ","), "user_ids")
	ccOK(t, ts, ccChats+"?user_ids="+strings.Join(eleven[:10], ","))
	// Repeats count once.
	ccOK(t, ts, ccChats+"?user_ids="+strings.Join(append(eleven[:10:10], eleven[0]), ","))
	want := idsOf(ccOK(t, ts, ccChats+"?limit=1000&user_ids="+ccAlan+"&user_ids="+ccKen).get("data"))
	if len(want) != 6 {
		t.Fatalf("Alan and Ken have %d chats, want 6", len(want))
	}
	for _, form := range []string{"user_ids[]=" + ccAlan + "&user_ids[]=" + ccKen, "user_ids=" + ccAlan + "," + ccKen, "user_ids=" + ccKen + "&user_ids[]=" + ccAlan} {
		if got := idsOf(ccOK(t, ts, ccChats+"?limit=1000&"+form).get("data")); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", form, got, want)
		}
	}
	// Unknown users and the other organization's users have no chats here.
	if n := ccOK(t, ts, ccChats+"?user_ids=user_nobody,"+ccHank).get("data.#").Int(); n != 0 {
		t.Fatalf("%d chats of unknown or foreign users", n)
	}
}

// TestComplianceChatListOrderAndPages: created_at order with id ties, exact pages both ways, default limit, empty last page.
func TestComplianceChatListOrderAndPages(t *testing.T) {
	ts := NewTestServer(t)
	q := url.Values{"user_ids": {ccGrace + "," + ccAlan + "," + ccKen}}
	all := ccWalkChats(t, ts, q, 1000)
	if len(all) != 266 {
		t.Fatalf("%d chats, want 266", len(all))
	}
	r := ccOK(t, ts, ccChats+"?limit=1000&"+q.Encode())
	data := r.get("data").Array()
	ties := 0
	for i := 1; i < len(data); i++ {
		a, b := data[i-1], data[i]
		ta, tb := a.Get("created_at").Time(), b.Get("created_at").Time()
		if ta.After(tb) || (ta.Equal(tb) && a.Get("id").String() >= b.Get("id").String()) {
			t.Fatalf("%s listed before %s", a.Get("id"), b.Get("id"))
		}
		if ta.Equal(tb) {
			ties++
		}
	}
	if ties == 0 {
		t.Fatal("the fixtures have no chats sharing a created_at")
	}
	for _, size := range []int{1, 2, 7, 100, 265, 266} {
		if got := ccWalkChats(t, ts, q, size); !slices.Equal(got, all) {
			t.Fatalf("page size %d: %d chats, differ from the whole list", size, len(got))
		}
	}
	// Backwards from the end with before_id.
	var back []string
	before := all[len(all)-1]
	for {
		r := ccOK(t, ts, ccChats+"?limit=9&before_id="+before+"&"+q.Encode())
		back = append(idsOf(r.get("data")), back...)
		if !r.get("has_more").Bool() {
			break
		}
		before = r.get("first_id").String()
	}
	if !slices.Equal(back, all[:len(all)-1]) {
		t.Fatalf("backwards: %d chats, want %d", len(back), len(all)-1)
	}
	// Default limit 100, first and last IDs, empty last page.
	r = ccOK(t, ts, ccChats+"?"+url.Values{"user_ids": q["user_ids"]}.Encode())
	if n := r.get("data.#").Int(); n != 100 || !r.get("has_more").Bool() || r.get("first_id").String() != all[0] || r.get("last_id").String() != all[99] {
		t.Fatalf("default page: %d items, has_more %v, first %s, last %s", n, r.get("has_more"), r.get("first_id"), r.get("last_id"))
	}
	r = ccOK(t, ts, ccChats+"?after_id="+all[len(all)-1]+"&user_ids="+ccGrace)
	if r.get("data.#").Int() != 0 || r.get("has_more").Bool() || r.get("first_id").Type != gjson.Null || r.get("last_id").Type != gjson.Null {
		t.Fatalf("page after the last chat: %s", r.body)
	}
}

// TestComplianceChatListBadParameters: every malformed or out-of-range parameter is a 400 naming it.
func TestComplianceChatListBadParameters(t *testing.T) {
	ts := NewTestServer(t)
	base := ccChats + "?user_ids=" + ccAlan
	for _, l := range []string{"0", "1001", "-5", "many"} {
		ccBad(t, ts, base+"&limit="+l, "limit")
	}
	ccOK(t, ts, base+"&limit=1")
	ccOK(t, ts, base+"&limit=1000")
	ccBad(t, ts, base+"&after_id=assistant_chat_nope", "after_id")
	ccBad(t, ts, base+"&before_id=assistant_chat_01Glob000270", "before_id") // another organization's chat
	ccBad(t, ts, base+"&after_id=assistant_chat_01Acme000001&before_id=assistant_chat_01Acme000002", "after_id")
	for _, p := range []string{"created_at[gt]", "created_at[gte]", "created_at[lt]", "updated_at[lte]"} {
		ccBad(t, ts, base+"&"+url.QueryEscape(p)+"=yesterday", p)
	}
}

// TestComplianceChatListFilters: each time bound at a tie, both bounds together, project_ids and organization_ids.
func TestComplianceChatListFilters(t *testing.T) {
	ts := NewTestServer(t)
	q := url.Values{"user_ids": {ccGrace}, "limit": {"1000"}}
	all := ccOK(t, ts, ccChats+"?"+q.Encode()).get("data").Array()
	// The tied pair: created_at[gte] includes both, [gt] neither.
	var tie time.Time
	for i := 1; i < len(all); i++ {
		if all[i].Get("created_at").Time().Equal(all[i-1].Get("created_at").Time()) {
			tie = all[i].Get("created_at").Time()
		}
	}
	count := func(field, op string, at time.Time, pred func(time.Time) bool) {
		t.Helper()
		qq := url.Values{"user_ids": {ccGrace}, "limit": {"1000"}, field + "[" + op + "]": {at.Format(time.RFC3339)}}
		got := idsOf(ccOK(t, ts, ccChats+"?"+qq.Encode()).get("data"))
		var want []string
		for _, c := range all {
			if pred(c.Get(field).Time()) {
				want = append(want, c.Get("id").String())
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s[%s]=%s: %d chats, want %d", field, op, at, len(got), len(want))
		}
	}
	for _, field := range []string{"created_at", "updated_at"} {
		at := tie
		if field == "updated_at" {
			at = all[40].Get("updated_at").Time()
		}
		count(field, "gt", at, func(x time.Time) bool { return x.After(at) })
		count(field, "gte", at, func(x time.Time) bool { return !x.Before(at) })
		count(field, "lt", at, func(x time.Time) bool { return x.Before(at) })
		count(field, "lte", at, func(x time.Time) bool { return !x.After(at) })
	}
	// Both bounds together.
	lo, hi := all[20].Get("created_at").String(), all[30].Get("created_at").String()
	got := ccOK(t, ts, ccChats+"?"+url.Values{"user_ids": {ccGrace}, "created_at[gte]": {lo}, "created_at[lt]": {hi}}.Encode())
	if n := got.get("data.#").Int(); n != 10 {
		t.Fatalf("created_at in [%s, %s): %d chats, want 10", lo, hi, n)
	}
	// project_ids and organization_ids (org_ ID or UUID; another organization's: nothing).
	proj := all[4].Get("project_id").String()
	byProject := idsOf(ccOK(t, ts, ccChats+"?"+url.Values{"user_ids": {ccGrace}, "limit": {"1000"}, "project_ids[]": {proj}}.Encode()).get("data"))
	want := 0
	for _, c := range all {
		if c.Get("project_id").String() == proj {
			want++
		}
	}
	if len(byProject) != want || want == 0 || want == len(all) {
		t.Fatalf("project %s: %d chats, want %d of %d", proj, len(byProject), want, len(all))
	}
	for _, o := range []string{"org_01AcmeCorporation00000001", "3f1c2a9e-5b7d-4e21-9c3a-1d2e3f4a5b6c"} {
		if n := ccOK(t, ts, ccChats+"?limit=1000&user_ids="+ccGrace+"&organization_ids="+o).get("data.#").Int(); n != int64(len(all)) {
			t.Fatalf("organization_ids=%s: %d chats, want %d", o, n, len(all))
		}
	}
	if n := ccOK(t, ts, ccChats+"?user_ids="+ccGrace+"&organization_ids=org_01GlobexIndustries0000001").get("data.#").Int(); n != 0 {
		t.Fatalf("another organization's ID selected %d chats", n)
	}
}

// TestComplianceChatIdentity: chat fields, and the second organization's data is a 404 to the first.
func TestComplianceChatIdentity(t *testing.T) {
	ts := NewTestServer(t)
	r := ccOK(t, ts, ccChats+"?user_ids="+ccAlan)
	c := r.get("data.0")
	if c.Get("model").Type != gjson.Null || c.Get("organization_id").String() != "org_01AcmeCorporation00000001" ||
		c.Get("organization_uuid").String() != "3f1c2a9e-5b7d-4e21-9c3a-1d2e3f4a5b6c" ||
		c.Get("user.id").String() != ccAlan || c.Get("user.email_address").String() != "alan@acme.example" ||
		c.Get("href").String() != compliance.HrefBase+c.Get("id").String() {
		t.Fatalf("legacy chat: %s", c.Raw)
	}
	// The second organization's chats are its own.
	r2 := ccDo(t, ts, http.MethodGet, ccChats+"?user_ids="+ccHank, "Authorization", "Bearer test-compliance-key-2")
	if n := r2.get("data.#").Int(); r2.status != 200 || n != 3 {
		t.Fatalf("Globex lists %d chats of Hank: %s", n, r2.body)
	}
	foreign := r2.get("data.0.id").String()
	ccNotFound(t, ts, http.MethodGet, ccChats+"/"+foreign+"/messages")
	ccNotFound(t, ts, http.MethodDelete, ccChats+"/"+foreign)
	ccNotFound(t, ts, http.MethodGet, ccFiles+"assistant_file_01Glob0007")
	ccNotFound(t, ts, http.MethodGet, ccFiles+"assistant_file_01Glob0007/content")
	ccNotFound(t, ts, http.MethodDelete, ccFiles+"assistant_file_01Glob0007")
	// The refused deletes changed nothing for the owner; the owner cannot read the first
	// organization's generated files, artifacts or users either.
	as2 := []string{"Authorization", "Bearer test-compliance-key-2"}
	for _, p := range []string{ccChats + "/" + foreign + "/messages", ccFiles + "assistant_file_01Glob0007/content"} {
		if r := ccDo(t, ts, http.MethodGet, p, as2...); r.status != 200 {
			t.Fatalf("owner reads %s: %d", p, r.status)
		}
	}
	for _, p := range []string{ccPrefix + "chats/generated-files/assistant_gen_file_010001", ccPrefix + "artifacts/assistant_artifact_version_01000101/content",
		"/v1/compliance/organizations/3f1c2a9e-5b7d-4e21-9c3a-1d2e3f4a5b6c/users", ccChats + "/assistant_chat_01Acme000001/messages"} {
		if r := ccDo(t, ts, http.MethodGet, p, as2...); r.status != 404 {
			t.Fatalf("second organization reads %s: %d %s", p, r.status, r.body)
		}
	}
}

// TestComplianceMessages: the whole chat without limit, both orders, pages both ways, filters, bad parameters.
func TestComplianceMessages(t *testing.T) {
	ts := NewTestServer(t)
	const long = "assistant_chat_01Acme000261"
	whole := ccOK(t, ts, ccChats+"/"+long+"/messages")
	all := idsOf(whole.get("chat_messages"))
	if len(all) != 36 || whole.get("has_more").Bool() || whole.get("first_id").String() != all[0] || whole.get("last_id").String() != all[35] {
		t.Fatalf("whole chat: %d messages, has_more %v", len(all), whole.get("has_more"))
	}
	if whole.get("name").String() != "Enigma rotor settings" || whole.get("user.id").String() != ccAlan {
		t.Fatalf("chat fields: %s", whole.body[:300])
	}
	desc := idsOf(ccOK(t, ts, ccChats+"/"+long+"/messages?order=desc").get("chat_messages"))
	if !slices.Equal(desc, ccReversed(all)) {
		t.Fatalf("desc is not the reverse of asc")
	}
	for _, order := range []string{"asc", "desc"} {
		want := all
		if order == "desc" {
			want = desc
		}
		var got []string
		after := ""
		for {
			r := ccOK(t, ts, ccChats+"/"+long+"/messages?limit=5&order="+order+after)
			got = append(got, idsOf(r.get("chat_messages"))...)
			if !r.get("has_more").Bool() {
				break
			}
			after = "&after_id=" + r.get("last_id").String()
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s in pages of 5: %v", order, got)
		}
		var back []string
		before := want[len(want)-1]
		for {
			r := ccOK(t, ts, ccChats+"/"+long+"/messages?limit=4&order="+order+"&before_id="+before)
			back = append(idsOf(r.get("chat_messages")), back...)
			if !r.get("has_more").Bool() {
				break
			}
			before = r.get("first_id").String()
		}
		if !slices.Equal(back, want[:len(want)-1]) {
			t.Fatalf("%s backwards: %v", order, back)
		}
	}
	at := whole.get("chat_messages.10.created_at").String()
	if n := ccOK(t, ts, ccChats+"/"+long+"/messages?created_at[gt]="+at).get("chat_messages.#").Int(); n != 25 {
		t.Fatalf("created_at[gt]: %d, want 25", n)
	}
	if n := ccOK(t, ts, ccChats+"/"+long+"/messages?created_at[gte]="+at).get("chat_messages.#").Int(); n != 26 {
		t.Fatalf("created_at[gte]: %d, want 26", n)
	}
	for _, l := range []string{"0", "1001", "x"} {
		ccBad(t, ts, ccChats+"/"+long+"/messages?limit="+l, "limit")
	}
	ccOK(t, ts, ccChats+"/"+long+"/messages?limit=1000")
	ccBad(t, ts, ccChats+"/"+long+"/messages?order=newest", "order")
	ccBad(t, ts, ccChats+"/"+long+"/messages?after_id=assistant_chat_msg_nope", "after_id")
	ccNotFound(t, ts, http.MethodGet, ccChats+"/assistant_chat_nope/messages")
}

// TestComplianceChatDeletedByUser: such a chat lists, with emptied messages (gaps §10).
func TestComplianceChatDeletedByUser(t *testing.T) {
	ts := NewTestServer(t)
	list := ccOK(t, ts, ccChats+"?user_ids="+ccAlan).get("data").Array()
	var gone string
	for _, c := range list {
		if c.Get("deleted_at").Type != gjson.Null {
			gone = c.Get("id").String()
		}
	}
	if gone == "" {
		t.Fatal("the chat Alan deleted is not listed")
	}
	r := ccOK(t, ts, ccChats+"/"+gone+"/messages")
	for _, m := range r.get("chat_messages").Array() {
		if m.Get("content").Raw != "[]" || m.Get("files").Type != gjson.Null || m.Get("generated_files").Type != gjson.Null || m.Get("artifacts").Type != gjson.Null {
			t.Fatalf("message of a chat its user deleted: %s", m.Raw)
		}
	}
}

// TestComplianceFiles: metadata, exact bytes, Content-MD5, null mime_type without content, shared files.
func TestComplianceFiles(t *testing.T) {
	ts := NewTestServer(t)
	fx, _ := core.DefaultFixtures()
	for id, f := range compliance.Section.In(fx.Sections).Files {
		if f.Org.ID != "org_01AcmeCorporation00000001" {
			continue
		}
		meta := ccOK(t, ts, ccFiles+id)
		if f.Data == nil {
			if meta.get("mime_type").Type != gjson.Null || meta.get("md5").Type != gjson.Null {
				t.Fatalf("%s: %s", id, meta.body)
			}
			ccNotFound(t, ts, http.MethodGet, ccFiles+id+"/content")
			continue
		}
		r := ccOK(t, ts, ccFiles+id+"/content")
		sum := md5.Sum(r.body)
		if string(r.body) != string(f.Data) || r.header.Get("Content-MD5") != base64.StdEncoding.EncodeToString(sum[:]) ||
			r.header.Get("Content-Type") != meta.get("mime_type").String() || meta.get("size_bytes").Int() != int64(len(f.Data)) {
			t.Fatalf("%s: content %q, headers %v, metadata %s", id, r.body, r.header, meta.body)
		}
		if h := meta.get("md5"); h.Type != gjson.Null && h.String() != fmt.Sprintf("%x", sum) {
			t.Fatalf("%s: md5 %s", id, h)
		}
	}
	// The PDF is attached to two messages of one chat; the notes to messages of two chats.
	if got := ccOK(t, ts, ccFiles+"assistant_file_01Acme0001").get("message_ids.#").Int(); got != 2 {
		t.Fatalf("the PDF lists %d messages, want 2", got)
	}
	if got := ccOK(t, ts, ccFiles+"assistant_file_01Acme0003").get("message_ids.#").Int(); got != 2 {
		t.Fatalf("the notes list %d messages, want 2", got)
	}
	if got := ccOK(t, ts, ccFiles+"assistant_file_01Acme0002").get("md5"); got.Type != gjson.Null {
		t.Fatalf("the PNG has md5 %s, want null", got)
	}
	ccNotFound(t, ts, http.MethodGet, ccFiles+"assistant_file_nope")
}

// TestComplianceGeneratedFilesAndArtifacts: metadata agrees with the downloads (spec 4.2, gaps §10).
func TestComplianceGeneratedFilesAndArtifacts(t *testing.T) {
	ts := NewTestServer(t)
	r := ccOK(t, ts, ccChats+"/assistant_chat_01Acme000267/messages")
	var versions []string
	for _, m := range r.get("chat_messages").Array() {
		for _, a := range m.Get("artifacts").Array() {
			versions = append(versions, a.Get("version_id").String())
			meta := ccOK(t, ts, ccPrefix+"artifacts/"+a.Get("version_id").String())
			body := ccOK(t, ts, ccPrefix+"artifacts/"+a.Get("version_id").String()+"/content")
			sum := md5.Sum(body.body)
			if meta.get("id").String() != a.Get("id").String() || meta.get("md5").String() != fmt.Sprintf("%x", sum) ||
				meta.get("size_bytes").Int() != int64(len(body.body)) || body.header.Get("Content-MD5") != base64.StdEncoding.EncodeToString(sum[:]) ||
				meta.get("chat_id").String() != "assistant_chat_01Acme000267" {
				t.Fatalf("artifact %s: %s", a.Get("version_id"), meta.body)
			}
		}
		for _, g := range m.Get("generated_files").Array() {
			meta := ccOK(t, ts, ccPrefix+"chats/generated-files/"+g.Get("id").String())
			body := ccOK(t, ts, ccPrefix+"chats/generated-files/"+g.Get("id").String()+"/content")
			if meta.get("md5").String() != fmt.Sprintf("%x", md5.Sum(body.body)) || meta.get("filename").String() != g.Get("filename").String() ||
				body.header.Get("Content-Type") != g.Get("mime_type").String() {
				t.Fatalf("generated file %s: %s", g.Get("id"), meta.body)
			}
		}
	}
	if len(versions) != 3 {
		t.Fatalf("the checklist chat has %d artifact versions, want 3", len(versions))
	}
	ccNotFound(t, ts, http.MethodGet, ccPrefix+"artifacts/assistant_artifact_version_nope")
	ccNotFound(t, ts, http.MethodGet, ccPrefix+"chats/generated-files/assistant_gen_file_nope/content")
}

// TestComplianceDeleteChat: the cascade of spec 4.1, cursors of deleted chats, and Reset.
func TestComplianceDeleteChat(t *testing.T) {
	ts := NewTestServer(t)
	const k1, k2 = "assistant_chat_01Acme000265", "assistant_chat_01Acme000266"
	msgs := idsOf(ccOK(t, ts, ccChats+"/"+k1+"/messages").get("chat_messages"))
	r := ccDo(t, ts, http.MethodDelete, ccChats+"/"+k1)
	if r.status != 200 || r.get("id").String() != k1 || r.get("type").String() != "assistant_chat_deleted" {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	ccNotFound(t, ts, http.MethodDelete, ccChats+"/"+k1)
	ccNotFound(t, ts, http.MethodGet, ccChats+"/"+k1+"/messages")
	if got := idsOf(ccOK(t, ts, ccChats+"?user_ids="+ccKen).get("data")); !slices.Equal(got, []string{k2}) {
		t.Fatalf("Ken's chats after the delete: %v", got)
	}
	// Only-this-chat files are gone, the shared one lost this chat's message.
	for _, id := range []string{"assistant_file_01Acme0002", "assistant_file_01Acme0004"} {
		ccNotFound(t, ts, http.MethodGet, ccFiles+id)
		ccNotFound(t, ts, http.MethodGet, ccFiles+id+"/content")
		ccNotFound(t, ts, http.MethodDelete, ccFiles+id)
	}
	shared := ccOK(t, ts, ccFiles+"assistant_file_01Acme0003").get("message_ids").Array()
	if len(shared) != 1 || slices.Contains(msgs, shared[0].String()) {
		t.Fatalf("shared file message_ids after the delete: %v", shared)
	}
	ccNotFound(t, ts, http.MethodGet, ccPrefix+"chats/generated-files/assistant_gen_file_010001")
	ccNotFound(t, ts, http.MethodGet, ccPrefix+"chats/generated-files/assistant_gen_file_010001/content")
	// The deleted chat's ID stays a cursor, so an exporter that deletes as it pages goes on.
	if got := idsOf(ccOK(t, ts, ccChats+"?user_ids="+ccKen+"&after_id="+k1).get("data")); !slices.Equal(got, []string{k2}) {
		t.Fatalf("after the deleted chat: %v", got)
	}
	if n := ccOK(t, ts, ccChats+"?user_ids="+ccKen+"&before_id="+k1).get("data.#").Int(); n != 0 {
		t.Fatalf("before the deleted chat: %d", n)
	}
	// A new server starts from the fixtures again.
	ccOK(t, NewTestServer(t), ccChats+"/"+k1+"/messages")
	ts.Fake.Reset()
	ccOK(t, ts, ccChats+"/"+k1+"/messages")
}

// TestComplianceDeleteFile: the file is gone and no message lists it (spec 4.2).
func TestComplianceDeleteFile(t *testing.T) {
	ts := NewTestServer(t)
	const pdf, chat = "assistant_file_01Acme0001", "assistant_chat_01Acme000264"
	r := ccDo(t, ts, http.MethodDelete, ccFiles+pdf)
	if r.status != 200 || r.get("id").String() != pdf || r.get("type").String() != "assistant_file_deleted" {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	ccNotFound(t, ts, http.MethodGet, ccFiles+pdf)
	ccNotFound(t, ts, http.MethodGet, ccFiles+pdf+"/content")
	ccNotFound(t, ts, http.MethodDelete, ccFiles+pdf)
	if got := ccOK(t, ts, ccChats+"/"+chat+"/messages").get("chat_messages.#.files.#").String(); got != "[0,0,0,0]" {
		t.Fatalf("files per message after the delete: %s", got)
	}
	// The change moved the messages' update time: the updated_at filter finds them.
	since := url.QueryEscape(ts.Fake.Now().Format(time.RFC3339))
	if n := ccOK(t, ts, ccChats+"/"+chat+"/messages?updated_at[gte]="+since).get("chat_messages.#").Int(); n != 2 {
		t.Fatalf("%d messages updated by the delete, want 2", n)
	}
}

// TestComplianceProjects: order, page tokens, default and bounds of limit, filters, tenancy (spec 4.3).
func TestComplianceProjects(t *testing.T) {
	ts := NewTestServer(t)
	const path = ccPrefix + "projects"
	var all []gjson.Result
	page := ""
	for {
		r := ccOK(t, ts, path+"?limit=3"+page)
		data := r.get("data").Array()
		if len(data) == 0 || len(data) > 3 || r.get("has_more").Bool() != (r.get("next_page").Type != gjson.Null) {
			t.Fatalf("page: %s", r.body)
		}
		all = append(all, data...)
		if r.get("next_page").Type == gjson.Null {
			break
		}
		page = "&page=" + url.QueryEscape(r.get("next_page").String())
	}
	if len(all) != 26 {
		t.Fatalf("%d projects, want 26", len(all))
	}
	private, deleted, ties := 0, 0, 0
	for i, p := range all {
		if p.Get("is_private").Bool() {
			private++
		}
		if p.Get("deleted_at").Type != gjson.Null {
			deleted++
		}
		if i > 0 {
			a, b := all[i-1].Get("created_at").Time(), p.Get("created_at").Time()
			if a.After(b) || (a.Equal(b) && all[i-1].Get("id").String() > p.Get("id").String()) {
				t.Fatalf("%s before %s", all[i-1].Get("id"), p.Get("id"))
			}
			if a.Equal(b) {
				ties++
			}
		}
	}
	if private == 0 || deleted == 0 || ties == 0 {
		t.Fatalf("private %d, deleted %d, ties %d", private, deleted, ties)
	}
	r := ccOK(t, ts, path)
	if r.get("data.#").Int() != 20 || !r.get("has_more").Bool() {
		t.Fatalf("default page: %d items", r.get("data.#").Int())
	}
	ccOK(t, ts, path+"?limit=100")
	for _, l := range []string{"0", "101", "x"} {
		ccBad(t, ts, path+"?limit="+l, "limit")
	}
	ccBad(t, ts, path+"?page=forged", "page")
	ccBad(t, ts, path+"?created_at[gt]=soon", "created_at[gt]")
	at := all[1].Get("created_at").String() // shared by projects 1 and 2
	if n := ccOK(t, ts, path+"?limit=100&created_at[gte]="+at).get("data.#").Int(); n != 25 {
		t.Fatalf("created_at[gte]: %d, want 25", n)
	}
	if n := ccOK(t, ts, path+"?limit=100&created_at[gt]="+at).get("data.#").Int(); n != 24 {
		t.Fatalf("created_at[gt]: %d, want 24", n)
	}
	if got := idsOf(ccOK(t, ts, path+"?user_ids="+ccAlan).get("data")); len(got) != 1 {
		t.Fatalf("Alan's projects: %v", got)
	}
	if n := ccOK(t, ts, path+"?organization_ids=org_01GlobexIndustries0000001").get("data.#").Int(); n != 0 {
		t.Fatalf("another organization's projects: %d", n)
	}
	r2 := ccDo(t, ts, http.MethodGet, path, "Authorization", "Bearer test-compliance-key-2")
	if r2.get("data.#").Int() != 2 || r2.get("data.0.organization_id").String() != "org_01GlobexIndustries0000001" {
		t.Fatalf("Globex projects: %s", r2.body)
	}
}

// TestComplianceOrganizationsAndUsers: the listings of gaps §10.
func TestComplianceOrganizationsAndUsers(t *testing.T) {
	ts := NewTestServer(t)
	r := ccOK(t, ts, "/v1/compliance/organizations")
	uuid := r.get("data.0.uuid").String()
	if r.get("data.#").Int() != 1 || uuid != "3f1c2a9e-5b7d-4e21-9c3a-1d2e3f4a5b6c" || r.get("has_more").Bool() {
		t.Fatalf("organizations: %s", r.body)
	}
	var users []string
	page := ""
	for {
		u := ccOK(t, ts, "/v1/compliance/organizations/"+uuid+"/users?limit=4"+page)
		users = append(users, idsOf(u.get("data"))...)
		if u.get("next_page").Type == gjson.Null {
			break
		}
		page = "&page=" + url.QueryEscape(u.get("next_page").String())
	}
	fx, _ := core.DefaultFixtures()
	members := 0
	for _, m := range fx.Users {
		if m.Org.UUID == uuid {
			members++
		}
	}
	if len(users) != members || !slices.Contains(users, ccGrace) {
		t.Fatalf("users: %v, want the organization's %d members", users, members)
	}
	ccNotFound(t, ts, http.MethodGet, "/v1/compliance/organizations/9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d/users")
	ccBad(t, ts, "/v1/compliance/organizations/"+uuid+"/users?limit=0", "limit")
}

// TestComplianceConcurrent lists, reads and deletes at once; run with -race.
func TestComplianceConcurrent(t *testing.T) {
	ts := NewTestServer(t)
	list := idsOf(ccOK(t, ts, ccChats+"?limit=60&user_ids="+ccGrace).get("data"))
	var wg sync.WaitGroup
	for i, id := range list {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if r := ccDo(t, ts, http.MethodDelete, ccChats+"/"+id); r.status != 200 {
				t.Errorf("delete %s: %d", id, r.status)
			}
		}()
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				ccOK(t, ts, ccChats+"?limit=7&user_ids="+ccGrace+"&after_id="+id)
			} else {
				ccOK(t, ts, ccFiles+"assistant_file_01Acme0003")
			}
		}()
	}
	wg.Wait()
	if got := ccWalkChats(t, ts, url.Values{"user_ids": {ccGrace}}, 50); len(got) != 200 {
		t.Fatalf("%d chats left, want 200", len(got))
	}
}

// TestComplianceFixtureReferences: a fixture naming another organization's user, file or project does not load.
func TestComplianceFixtureReferences(t *testing.T) {
	good, _ := core.DefaultFixtures()
	if len(compliance.Section.In(good.Sections).Chats) == 0 {
		t.Fatal("no compliance fixtures")
	}
	for _, c := range []struct{ name, from, to string }{
		{"unknown user", `"user_id": "user_01AcmeKenCodeUser00000001"`, `"user_id": "user_01GlobexHankAdmin00000001"`},
		{"unknown file", `"assistant_file_01Acme0002",`, `"assistant_file_01Glob0007",`},
		{"foreign project", `"project_id": "assistant_proj_01Acme0004"`, `"project_id": "assistant_proj_01Glob0025"`},
	} {
		if _, err := core.LoadFixtures(ccEditedFixtures(t, "compliance.json", c.from, c.to)); err == nil {
			t.Errorf("%s: the fixtures loaded", c.name)
		}
	}
}

// ccReversed returns a ccReversed copy.
func ccReversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// ccEditedFixtures is the embedded data set with the first occurrence of from replaced by to in one file.
func ccEditedFixtures(t *testing.T, name, from, to string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	entries, err := fs.ReadDir(fixtures.FS(), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := fs.ReadFile(fixtures.FS(), e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == name {
			if !strings.Contains(string(data), from) {
				t.Fatalf("%s does not contain %s", name, from)
			}
			data = []byte(strings.Replace(string(data), from, to, 1))
		}
		m[e.Name()] = &fstest.MapFile{Data: data}
	}
	return m
}

// TestComplianceDeleteAfterDeletes: deleting a chat after one of its files, and a chat its user deleted.
func TestComplianceDeleteAfterDeletes(t *testing.T) {
	ts := NewTestServer(t)
	const bombe, gone = "assistant_chat_01Acme000264", "assistant_chat_01Acme000263"
	// A file deleted first, then its chat: the chat goes, nothing else breaks.
	if r := ccDo(t, ts, http.MethodDelete, ccFiles+"assistant_file_01Acme0001"); r.status != 200 {
		t.Fatalf("delete file: %d %s", r.status, r.body)
	}
	if r := ccDo(t, ts, http.MethodDelete, ccChats+"/"+bombe); r.status != 200 {
		t.Fatalf("delete chat: %d %s", r.status, r.body)
	}
	// A chat its user deleted can still be deleted for good (gaps §10).
	if r := ccDo(t, ts, http.MethodDelete, ccChats+"/"+gone); r.status != 200 {
		t.Fatalf("delete user-deleted chat: %d %s", r.status, r.body)
	}
	ccNotFound(t, ts, http.MethodGet, ccChats+"/"+gone+"/messages")
	for _, c := range ccOK(t, ts, ccChats+"?user_ids="+ccAlan).get("data").Array() {
		if id := c.Get("id").String(); id == bombe || id == gone {
			t.Fatalf("%s is still listed", id)
		}
	}
}

// TestComplianceChatPagesAsEncoded: chat list pages splice the chats encoded at load; the bytes
// are those of encoding the page whole by reflection, whatever the cursor, filter or page (empty,
// last, a chat without a model, one its user deleted), and for a name with the characters an
// encoder may escape (&, <, >, U+2028, quotes, non-ASCII).
func TestComplianceChatPagesAsEncoded(t *testing.T) {
	const name = `Q&A <b>draft</b>\u2028 \"why\" caf\u00e9`
	fx, err := core.LoadFixtures(ccEditedFixtures(t, "compliance.json", `"name": "Migration question 002"`, `"name": "`+name+`"`))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*compliance.Chat{}
	for _, ch := range compliance.Section.In(fx.Sections).Chats {
		byID[ch.ID] = ch
	}
	ts := NewTestServer(t, WithFixtures(&Fixtures{fx: fx}))
	for _, q := range []string{
		"?user_ids=" + ccGrace + "&limit=3",
		"?user_ids=" + ccGrace + "&limit=2&after_id=assistant_chat_01Acme000001",
		"?user_ids=" + ccGrace + "," + ccAlan + "&limit=4&before_id=assistant_chat_01Acme000264",
		"?user_ids=" + ccAlan + "&limit=1000",
		"?user_ids=" + ccAlan + "&created_at[gte]=2099-01-01T00:00:00Z",
	} {
		r := ccOK(t, ts, ccChats+q)
		var page core.CursorPage[compliance.ChatJSON]
		page.Data = []compliance.ChatJSON{}
		for _, id := range idsOf(r.get("data")) {
			page.Data = append(page.Data, byID[id].View())
		}
		if first, last := r.get("first_id"), r.get("last_id"); first.Exists() && first.Type != gjson.Null {
			f, l := first.String(), last.String()
			page.FirstID, page.LastID = &f, &l
		}
		page.HasMore = r.get("has_more").Bool()
		if want := encodedWhole(t, page); string(r.body) != want {
			t.Errorf("GET %s%s:\n got %s\nwant %s", ccChats, q, r.body, want)
		}
	}
	if body := ccOK(t, ts, ccChats+"?limit=2&user_ids="+ccGrace).body; !strings.Contains(string(body), `"Q&A <b>draft</b>\u2028 \"why\" café"`) {
		t.Errorf("the edited name is not on the first page, or it is escaped: %s", body)
	}
}

// TestComplianceProjectPagesAsEncoded: project list pages splice the projects encoded at load;
// the bytes are those of encoding the page whole by reflection (first, middle, last and empty
// pages, a private and a deleted project, a name with characters an encoder may escape).
func TestComplianceProjectPagesAsEncoded(t *testing.T) {
	fx, err := core.LoadFixtures(ccEditedFixtures(t, "compliance.json", `"name": "Platform migration"`, `"name": "R&D <b>\u2028 \"x\" caf\u00e9"`))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*compliance.Project{}
	for _, list := range compliance.Section.In(fx.Sections).Projects {
		for _, p := range list {
			byID[p.ID] = p
		}
	}
	ts := NewTestServer(t, WithFixtures(&Fixtures{fx: fx}))
	const path = ccPrefix + "projects"
	seen := 0
	for _, q := range []string{"?limit=2", "?limit=3", "?limit=20", "?limit=100", "?created_at[gte]=2099-01-01T00:00:00Z"} {
		for page := ""; ; {
			r := ccOK(t, ts, path+q+page)
			var whole compliance.TokenList[compliance.ProjectJSON]
			whole.Data = []compliance.ProjectJSON{}
			for _, id := range idsOf(r.get("data")) {
				whole.Data = append(whole.Data, byID[id].View())
				seen++
			}
			if next := r.get("next_page"); next.Type != gjson.Null {
				s := next.String()
				whole.NextPage = &s
			}
			whole.HasMore = whole.NextPage != nil
			if want := encodedWhole(t, whole); string(r.body) != want {
				t.Fatalf("GET %s%s%s:\n got %s\nwant %s", path, q, page, r.body, want)
			}
			if whole.NextPage == nil {
				break
			}
			page = "&page=" + url.QueryEscape(*whole.NextPage)
		}
	}
	if seen != 4*26 {
		t.Fatalf("%d projects seen, want 4 walks of 26", seen)
	}
	if body := ccOK(t, ts, path+"?limit=1").body; !strings.Contains(string(body), `"R&D <b>\u2028 \"x\" café"`) {
		t.Errorf("the edited name is not on the first page, or it is escaped: %s", body)
	}
}

// TestComplianceDeterministic: the same requests against two new servers answer the same bytes.
func TestComplianceDeterministic(t *testing.T) {
	run := func() []string {
		ts := NewTestServer(t)
		ts.Fake.AdvanceClock(time.Hour)
		var out []string
		for _, r := range []struct{ method, path string }{
			{http.MethodGet, ccChats + "?limit=5&user_ids=" + ccKen + "," + ccMarg},
			{http.MethodDelete, ccFiles + "assistant_file_01Acme0003"},
			{http.MethodDelete, ccChats + "/assistant_chat_01Acme000265"},
			{http.MethodGet, ccChats + "/assistant_chat_01Acme000266/messages?updated_at[gte]=2026-01-01T01:00:00Z"},
			{http.MethodGet, ccPrefix + "projects?limit=2"},
			{http.MethodGet, ccChats + "/assistant_chat_01Acme000265/messages"},
		} {
			resp := ccDo(t, ts, r.method, r.path)
			out = append(out, fmt.Sprintf("%d %s", resp.status, resp.body))
		}
		return out
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Fatalf("two servers answered differently:\n%v\n%v", a, b)
	}
	if !strings.Contains(a[3], `"files":[]`) {
		t.Fatalf("the shared file's deletion did not reach the other chat: %s", a[3])
	}
}
