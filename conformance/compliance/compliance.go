package compliance

import (
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Compliance review (spec 2.2-2.7, 4.1-4.3, gaps §10). The checks find users, chats and files
// through the list endpoints; the user IDs come from the compliance organization listing.

const (
	ChatsPath    = "/v1/compliance/apps/chats"
	ccFiles      = "/v1/compliance/apps/chats/files/"
	ccGenerated  = "/v1/compliance/apps/chats/generated-files/"
	ccArtifacts  = "/v1/compliance/apps/artifacts/"
	ProjectsPath = "/v1/compliance/apps/projects"
	ccOrgs       = "/v1/compliance/organizations"
)

// Get is a compliance GET; org2 presents the second organization's key.
func Get(path string, q url.Values, schema string) kit.Request {
	return kit.Request{Area: kit.Compliance, Path: path, Query: q, Schema: schema}
}

// ChatsQuery is a chat list query for the users, plus name/value pairs.
func ChatsQuery(users []string, extra ...string) url.Values {
	q := url.Values{"user_ids[]": users}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return q
}

// Organization returns the UUID and user IDs of the organization the key reviews (gaps §10).
// A target without the listing cannot be probed for users, so the check is unsupported there.
func Organization(t *kit.T, org2 bool) (string, []string) {
	if org2 && t.Config().ComplianceKey2 == "" {
		t.NeedsSecondOrganization("CONFORMANCE_COMPLIANCE_API_KEY_2")
	}
	r := Get(ccOrgs, nil, "compliance/organization_list")
	r.Org2 = org2
	orgs := t.Do(r)
	t.UnsupportedIfAbsent(orgs, "the target has no compliance organization listing (gaps §10), through which the checks find user IDs")
	t.Expect(orgs.Status).To(Equal(http.StatusOK), "%s", orgs)
	uuid := orgs.Get("data.0.uuid").String()
	r = Get(ccOrgs+"/"+url.PathEscape(uuid)+"/users", nil, "compliance/user_list")
	r.Org2 = org2
	users := kit.IDsOf(t.WalkPages(r, 0))
	if len(users) == 0 {
		// Not a Need: the users are how a check finds its data, not the data it inspects.
		t.Unsupported("the organization the compliance key reviews lists no users, through whom the checks find chats")
	}
	return uuid, users
}

// ccChatsByGroup returns the chats of the organization's users, one list per request-sized group
// of users (ccChunks), and how many chats there are in all.
func ccChatsByGroup(t *kit.T) (groups [][]gjson.Result, total int) {
	_, users := Organization(t, false)
	for _, group := range ccChunks(users) {
		chats := ccWalkChats(t, ChatsQuery(group), 1000, false)
		groups, total = append(groups, chats), total+len(chats)
	}
	return groups, total
}

// ccWalkChats pages forwards through the chat list of q with the page size and returns the chats.
func ccWalkChats(t *kit.T, q url.Values, size int, org2 bool) []gjson.Result {
	r := Get(ChatsPath, q, "compliance/chat_list")
	r.Org2 = org2
	return t.WalkCursor(r, "data", size)
}

// ccChunks splits users into request-sized groups of at most 10 (spec 4.1).
func ccChunks(users []string) [][]string {
	var out [][]string
	for len(users) > 10 {
		out, users = append(out, users[:10]), users[10:]
	}
	return append(out, users)
}

// BusiestUser returns the user with the most chats and those chats, in list order.
func BusiestUser(t *kit.T) (string, []gjson.Result) {
	_, users := Organization(t, false)
	var best string
	var chats []gjson.Result
	for _, u := range users {
		if c := ccWalkChats(t, ChatsQuery([]string{u}), 1000, false); len(c) > len(chats) {
			best, chats = u, c
		}
	}
	t.Need("chats of one user", len(chats), 3)
	return best, chats
}

// ccScanChats visits every chat of the organization with its whole message history until visit
// returns false.
func ccScanChats(t *kit.T, visit func(chat gjson.Result, msgs *kit.Response) bool) {
	_, users := Organization(t, false)
	for _, group := range ccChunks(users) {
		for _, c := range ccWalkChats(t, ChatsQuery(group), 1000, false) {
			msgs := t.OK(Get(ChatsPath+"/"+url.PathEscape(c.Get("id").String())+"/messages", nil, "compliance/chat_messages"))
			if !visit(c, msgs) {
				return
			}
		}
	}
}

// ccExpectListOrder requires items in created_at order, ties broken by ID ascending.
func ccExpectListOrder(t *kit.T, items []gjson.Result) {
	for i := 1; i < len(items); i++ {
		a, b := items[i-1], items[i]
		ta, tb := a.Get("created_at").Time(), b.Get("created_at").Time()
		t.Expect(ta.After(tb) || (ta.Equal(tb) && a.Get("id").String() > b.Get("id").String())).To(BeFalse(),
			"%s (%s) is listed before %s (%s)", a.Get("id"), ta, b.Get("id"), tb)
	}
}

// ccContentMD5 is the Content-MD5 value of body (base64 of the MD5, RFC 1864).
func ccContentMD5(body []byte) string {
	sum := md5.Sum(body)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// ccExpectBadParam requires a 400 invalid_request_error naming the parameter.
func ccExpectBadParam(t *kit.T, r kit.Request, param string) {
	resp := t.Do(r)
	t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
	t.Expect(resp.Get("error.message").String()).To(ContainSubstring(param), "%s", resp)
}

// ccBoundaryTime returns a created_at (or updated_at) that two items share if any do, so that gt
// and gte differ by more than one item; otherwise the middle item's.
func ccBoundaryTime(items []gjson.Result, field string) time.Time {
	for i := 1; i < len(items); i++ {
		if a := items[i].Get(field).Time(); a.Equal(items[i-1].Get(field).Time()) {
			return a
		}
	}
	return items[len(items)/2].Get(field).Time()
}

// ccExpectRangeFilters requires each of gt, gte, lt and lte on field to select exactly the items
// of all that satisfy it. list answers the items for one extra query parameter.
func ccExpectRangeFilters(t *kit.T, all []gjson.Result, field string, list func(param, value string) []string) {
	at := ccBoundaryTime(all, field)
	preds := map[string]func(time.Time) bool{
		"gt":  func(x time.Time) bool { return x.After(at) },
		"gte": func(x time.Time) bool { return !x.Before(at) },
		"lt":  func(x time.Time) bool { return x.Before(at) },
		"lte": func(x time.Time) bool { return !x.After(at) },
	}
	for _, op := range []string{"gt", "gte", "lt", "lte"} {
		want := []string{}
		for _, it := range all {
			if preds[op](it.Get(field).Time()) {
				want = append(want, it.Get("id").String())
			}
		}
		got := list(field+"["+op+"]", at.Format(time.RFC3339Nano))
		t.Expect(got).To(Equal(want), "%s[%s]=%s", field, op, at.Format(time.RFC3339Nano))
	}
}

// ccLongestChat returns the chat with the most messages among the first chats scanned.
func ccLongestChat(t *kit.T) (gjson.Result, []gjson.Result) {
	var chat gjson.Result
	var msgs []gjson.Result
	ccScanChats(t, func(c gjson.Result, r *kit.Response) bool {
		if m := r.Get("chat_messages").Array(); len(m) > len(msgs) && c.Get("deleted_at").Type == gjson.Null {
			chat, msgs = c, m
		}
		return len(msgs) < 30
	})
	t.Need("messages in one chat", len(msgs), 3)
	return chat, msgs
}

// ccWalkMessages pages through a chat's messages with the page size in the order, forwards
// (after_id) or backwards (before_id from the cursor), and returns the IDs in list order.
func ccWalkMessages(t *kit.T, chatID, order string, size int, before string) []string {
	r := Get(ChatsPath+"/"+url.PathEscape(chatID)+"/messages", url.Values{"order": {order}}, "compliance/chat_messages")
	if before != "" {
		r.Query.Set("before_id", before)
		return kit.IDsOf(t.WalkCursorBackward(r, "chat_messages", size))
	}
	return kit.IDsOf(t.WalkCursor(r, "chat_messages", size))
}

// ccFileRefs maps each file ID attached to a message to the IDs of the messages seen with it.
type ccFileRefs map[string][]string

// ccFindFiles scans chats until want (nil: any) accepts a file, collecting references on the way.
// It returns the references seen, the first accepted file ID ("" if none) and the IDs of the
// chats that referenced it.
func ccFindFiles(t *kit.T, want func(id string, meta *kit.Response, refs []string) bool) (ccFileRefs, string, []string) {
	refs := ccFileRefs{}
	chats := map[string][]string{} // file ID -> chats that reference it
	found := ""
	ccScanChats(t, func(c gjson.Result, r *kit.Response) bool {
		var here []string
		for _, m := range r.Get("chat_messages").Array() {
			for _, f := range m.Get("files").Array() {
				id := f.Get("id").String()
				refs[id] = append(refs[id], m.Get("id").String())
				if !slices.Contains(here, id) {
					here = append(here, id)
					chats[id] = append(chats[id], c.Get("id").String())
				}
			}
		}
		for _, id := range here {
			meta := t.Do(Get(ccFiles+url.PathEscape(id), nil, "compliance/file"))
			if meta.Status == http.StatusOK && want(id, meta, refs[id]) {
				found = id
				return false
			}
		}
		return true
	})
	return refs, found, chats[found]
}

var ccLowerHexMD5 = regexp.MustCompile(`^[0-9a-f]{32}$`)

// The chat, message, file, generated-file and artifact checks (spec 4.1, 4.2, gaps §10).
func init() {
	kit.Register(kit.InterfaceChecks(kit.Compliance, ProjectsPath, "compliance/project_list")...)
	kit.Register(
		kit.Check{ID: "compliance/x-api-key-tolerated", Clause: "5", Labels: []kit.Label{kit.Compliance},
			Title: "a compliance request that also carries an x-api-key header is accepted",
			Bug: &kit.Bug{Says: "a compliance request that carries an x-api-key header too is refused with 401",
				Want: "the answer is 200", Break: kit.Refuses(func(r *http.Request) bool {
					return strings.HasPrefix(r.URL.Path, "/v1/compliance/") && r.Header.Get("X-Api-Key") != "" && r.Header.Get("Authorization") != ""
				}, http.StatusUnauthorized, "authentication_error", "one credential, please")},
			Run: func(t *kit.T) {
				t.NoItemsNeeded()
				for _, v := range []string{"some-client-key", t.Config().APIKey} {
					r := Get(ProjectsPath, nil, "compliance/project_list")
					r.Header = http.Header{"X-Api-Key": {v}}
					t.OK(r)
				}
			}},
		kit.Check{ID: "compliance/other-credentials-403", Clause: "gaps §10", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "an admin key or an API key is refused with 403 permission_error on every compliance read",
			Bug: &kit.Bug{Says: "an admin key is served compliance reads",
				Want: "the answer is 403", Break: kit.ServesRefused(http.StatusForbidden, func(r *http.Request) bool {
					return strings.HasPrefix(r.URL.Path, "/v1/compliance/") && r.Header.Get("X-Api-Key") == cmpAdminKey
				})},
			Run: func(t *kit.T) {
				for _, path := range []string{ProjectsPath, ccOrgs, ChatsPath + "?user_ids=user_x", ccFiles + "assistant_file_x"} {
					for _, cred := range []kit.Cred{kit.AdminKey, kit.APIKey} {
						t.ExpectError(t.Do(kit.Request{Area: kit.Compliance, Path: path, As: cred}), http.StatusForbidden, "permission_error")
					}
				}
			}},
		kit.Check{ID: "compliance/chats-user-ids-bounds", Clause: "8", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "the chat list requires 1 to 10 user_ids: none or 11 is refused with 400 naming user_ids, 10 is accepted",
			Bug: &kit.Bug{Says: "the chat list reads the first 10 of 11 user_ids instead of refusing them",
				Want: "the answer is 400", Break: cmpQuery(ChatsRoute, func(q url.Values) {
					if u := q["user_ids[]"]; len(u) > 10 {
						q["user_ids[]"] = u[:10]
					}
				})},
			Run: func(t *kit.T) {
				t.NoItemsNeeded()
				_, users := Organization(t, false)
				ccExpectBadParam(t, Get(ChatsPath, nil, ""), "user_ids")
				eleven := slices.Clone(users)
				for len(eleven) < 11 {
					eleven = append(eleven, fmt.Sprintf("user_conformance%02d", len(eleven)))
				}
				ccExpectBadParam(t, Get(ChatsPath, ChatsQuery(eleven[:11]), ""), "user_ids")
				t.OK(Get(ChatsPath, ChatsQuery(eleven[:10]), "compliance/chat_list"))
			}},
		kit.Check{ID: "compliance/chats-user-ids-forms", Clause: "gaps §2", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "user_ids is read as user_ids[]=a&user_ids[]=b, as user_ids=a&user_ids=b and as user_ids=a,b",
			Bug: &kit.Bug{Says: "user_ids=a,b is read as the one user a",
				Want: "user_ids:", Break: cmpQuery(ChatsRoute, func(q url.Values) {
					if u := q["user_ids"]; len(u) == 1 {
						q["user_ids"] = []string{strings.Split(u[0], ",")[0]}
					}
				})},
			Run: func(t *kit.T) {
				// Users with chats, so that a form read as one user only loses chats.
				_, users := Organization(t, false)
				var group []string
				for _, c := range ccWalkChats(t, ChatsQuery(users[:min(10, len(users))]), 1000, false) {
					if u := c.Get("user.id").String(); !slices.Contains(group, u) && len(group) < 3 {
						group = append(group, u)
					}
				}
				t.Need("users with chats among the first ten", len(group), 2)
				want := kit.IDsOf(ccWalkChats(t, ChatsQuery(group), 1000, false))
				for _, q := range []url.Values{{"user_ids": group}, {"user_ids": {strings.Join(group, ",")}}} {
					q.Set("limit", "1000")
					t.Expect(kit.IDsOf(t.OK(Get(ChatsPath, q, "compliance/chat_list")).Get("data").Array())).To(Equal(want), "%v", q)
				}
			}},
		kit.Check{ID: "compliance/chats-order", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "chats of several users are listed by created_at ascending, ties broken by id",
			Bug: &kit.Bug{Says: "the chat list is newest first",
				Want: "is listed before", Break: InOKAnswers(ChatsRoute, func(_ *http.Request, m map[string]any) {
					if list, _ := m["data"].([]any); len(list) > 1 {
						slices.Reverse(list)
					}
				})},
			Run: func(t *kit.T) {
				groups, _ := ccChatsByGroup(t)
				most := 0
				for _, chats := range groups {
					most = max(most, len(chats))
				}
				t.Need("chats in one list", most, 2)
				for _, chats := range groups {
					ccExpectListOrder(t, chats)
				}
			}},
		kit.Check{ID: "compliance/chats-pages-forward", Clause: "2.1", Labels: []kit.Label{kit.Compliance},
			Title: "paging the chat list with after_id at every page size returns each chat exactly once, in order",
			Bug: &kit.Bug{Says: "a chat list page asked for with after_id leaves out the chat just after the cursor",
				Want: "page size", Break: cmpSkipsNext(ChatsRoute, "after_id", "data")},
			Run: func(t *kit.T) {
				user, all := BusiestUser(t)
				want := kit.IDsOf(all)
				sizes := []int{2, 7, 100, len(all) - 1, len(all)}
				if len(all) <= 300 {
					sizes = append(sizes, 1)
				}
				for _, size := range sizes {
					t.Expect(kit.IDsOf(ccWalkChats(t, ChatsQuery([]string{user}), size, false))).To(Equal(want), "page size %d", size)
				}
			}},
		kit.Check{ID: "compliance/chats-pages-backward", Clause: "2.1", Labels: []kit.Label{kit.Compliance},
			Title: "paging the chat list with before_id from the last chat returns every earlier chat exactly once, in order",
			Bug: &kit.Bug{Says: "a chat list page asked for with before_id leaves out the chat just before the cursor",
				Want: "paging backwards from the last chat", Break: cmpSkipsNext(ChatsRoute, "before_id", "data")},
			Run: func(t *kit.T) {
				user, all := BusiestUser(t)
				r := Get(ChatsPath, ChatsQuery([]string{user}, "before_id", all[len(all)-1].Get("id").String()), "compliance/chat_list")
				got := kit.IDsOf(t.WalkCursorBackward(r, "data", 9))
				t.Expect(got).To(Equal(kit.IDsOf(all[:len(all)-1])), "paging backwards from the last chat gives every earlier chat once, in order")
			}},
		kit.Check{ID: "compliance/chats-default-limit", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "without limit, a chat list page holds up to 100 chats; limit 1000 is accepted",
			Bug: &kit.Bug{Says: "without limit, a chat list page holds 20 chats",
				Want: "chats on a page without limit", Break: cmpDefaultLimit(ChatsRoute, 20)},
			Run: func(t *kit.T) {
				user, all := BusiestUser(t)
				resp := t.OK(Get(ChatsPath, ChatsQuery([]string{user}), "compliance/chat_list"))
				t.Expect(resp.Get("data.#").Int()).To(BeNumerically("==", min(len(all), 100)), "chats on a page without limit, of %d", len(all))
				t.Expect(resp.Get("has_more").Bool()).To(Equal(len(all) > 100), "has_more of a page without limit, of %d chats", len(all))
				t.OK(Get(ChatsPath, ChatsQuery([]string{user}, "limit", "1000"), "compliance/chat_list"))
			}},
		kit.Check{ID: "compliance/chats-cursors-empty-page", Clause: "gaps §3", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "after the last chat, the page is empty with null first_id and last_id and has_more false",
			Bug: &kit.Bug{Says: "after the last chat, the empty page names the cursor as first_id and last_id",
				Want: "first_id of the empty page is null", Break: InOKAnswers(ChatsRoute, func(r *http.Request, m map[string]any) {
					if list, _ := m["data"].([]any); len(list) == 0 && r.URL.Query().Get("after_id") != "" {
						m["first_id"], m["last_id"] = r.URL.Query().Get("after_id"), r.URL.Query().Get("after_id")
					}
				})},
			Run: func(t *kit.T) {
				user, all := BusiestUser(t)
				resp := t.OK(Get(ChatsPath, ChatsQuery([]string{user}, "after_id", all[len(all)-1].Get("id").String()), "compliance/chat_list"))
				t.Expect(resp.Get("data.#").Int()).To(BeZero(), "chats after the last one: %s", resp)
				t.Expect(resp.Get("first_id").Type).To(Equal(gjson.Null), "first_id of the empty page is null: %s", resp)
				t.Expect(resp.Get("last_id").Type).To(Equal(gjson.Null), "last_id of the empty page is null: %s", resp)
				t.Expect(resp.Get("has_more").Bool()).To(BeFalse(), "has_more of the empty page: %s", resp)
			}},
		kit.Check{ID: "compliance/chats-limit-range", Clause: "gaps §3", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "a chat list limit outside 1 to 1000 is refused with 400 naming limit",
			Bug: &kit.Bug{Says: "the chat list reads a limit above 1000 as 1000 instead of refusing it",
				Want: "the answer is 400", Break: cmpClampsLimit(ChatsRoute, 1000)},
			Run: func(t *kit.T) {
				t.NoItemsNeeded()
				_, users := Organization(t, false)
				for _, bad := range []string{"0", "1001", "-1", "ten"} {
					ccExpectBadParam(t, Get(ChatsPath, ChatsQuery(users[:1], "limit", bad), ""), "limit")
				}
				t.OK(Get(ChatsPath, ChatsQuery(users[:1], "limit", "1"), "compliance/chat_list"))
			}},
		kit.Check{ID: "compliance/chats-created-at-filter", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "created_at[gt], [gte], [lt] and [lte] select chats strictly after, at or after, strictly before, at or before",
			Bug: &kit.Bug{Says: "the chat list reads created_at[gte] and created_at[lte] as exclusive bounds",
				Want: "created_at[gte]", Break: cmpExclusiveBounds(ChatsRoute, "created_at")},
			Run: func(t *kit.T) {
				user, all := BusiestUser(t)
				ccExpectRangeFilters(t, all, "created_at", func(p, v string) []string {
					return kit.IDsOf(t.OK(Get(ChatsPath, ChatsQuery([]string{user}, "limit", "1000", p, v), "compliance/chat_list")).Get("data").Array())
				})
			}},
		kit.Check{ID: "compliance/chats-updated-at-filter", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "updated_at[gt], [gte], [lt] and [lte] select chats by their update time with the same semantics",
			Bug: &kit.Bug{Says: "the chat list reads updated_at[gte] and updated_at[lte] as exclusive bounds",
				Want: "updated_at[gte]", Break: cmpExclusiveBounds(ChatsRoute, "updated_at")},
			Run: func(t *kit.T) {
				user, all := BusiestUser(t)
				ccExpectRangeFilters(t, all, "updated_at", func(p, v string) []string {
					return kit.IDsOf(t.OK(Get(ChatsPath, ChatsQuery([]string{user}, "limit", "1000", p, v), "compliance/chat_list")).Get("data").Array())
				})
			}},
		kit.Check{ID: "compliance/chats-malformed-filter-400", Clause: "gaps §1", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "a created_at or updated_at bound that is not RFC 3339 is refused with 400 naming it",
			Bug: &kit.Bug{Says: "the chat list ignores a created_at bound that is not RFC 3339",
				Want: "the answer is 400", Break: kit.IgnoresInvalidQuery(http.MethodGet, ChatsRoute, "created_at[gt]")},
			Run: func(t *kit.T) {
				t.NoItemsNeeded()
				_, users := Organization(t, false)
				for _, p := range []string{"created_at[gt]", "created_at[lte]", "updated_at[gte]", "updated_at[lt]"} {
					ccExpectBadParam(t, Get(ChatsPath, ChatsQuery(users[:1], p, "last tuesday"), ""), p)
				}
			}},
		kit.Check{ID: "compliance/chats-organization-ids", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "organization_ids accepts the organization's org_ ID and its UUID alike",
			Bug: &kit.Bug{Says: "organization_ids does not recognize the org_ ID: the chat list is empty for it",
				Want: "organization_ids=org_", Break: cmpUnknownValues(ChatsRoute, "organization_ids[]", func(v string) bool { return strings.HasPrefix(v, "org_") }, kit.NoSuchOrgID)},
			Run: func(t *kit.T) {
				user, all := BusiestUser(t)
				for _, id := range []string{all[0].Get("organization_id").String(), all[0].Get("organization_uuid").String()} {
					got := t.OK(Get(ChatsPath, ChatsQuery([]string{user}, "limit", "1000", "organization_ids[]", id), "compliance/chat_list"))
					t.Expect(kit.IDsOf(got.Get("data").Array())).To(Equal(kit.IDsOf(all)), "organization_ids=%s", id)
				}
			}},
		kit.Check{ID: "compliance/chats-project-ids", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "project_ids selects exactly the chats of the given projects",
			Bug: &kit.Bug{Says: "the chat list ignores project_ids",
				Want: "the chats of project_ids[]=", Break: kit.IgnoresQuery(OnGet(ChatsRoute), "project_ids[]")},
			Run: func(t *kit.T) {
				user, all := BusiestUser(t)
				project := all[len(all)/2].Get("project_id").String()
				var want []string
				for _, c := range all {
					if c.Get("project_id").String() == project {
						want = append(want, c.Get("id").String())
					}
				}
				got := t.OK(Get(ChatsPath, ChatsQuery([]string{user}, "limit", "1000", "project_ids[]", project), "compliance/chat_list"))
				t.Expect(kit.IDsOf(got.Get("data").Array())).To(Equal(want), "the chats of project_ids[]=%s", project)
			}},
		kit.Check{ID: "compliance/chats-identity", Clause: "2.2", Labels: []kit.Label{kit.Compliance},
			Title: "each chat names its creator among the requested users and the organization's ID and UUID",
			Bug: &kit.Bug{Says: "the chat list names another organization's UUID on every chat",
				Want: cmpOtherUUID, Break: kit.SetsField(OnGet(ChatsRoute), "data.*.organization_uuid", cmpOtherUUID)},
			Run: func(t *kit.T) {
				uuid, users := Organization(t, false)
				groups, total := ccChatsByGroup(t)
				t.Need("chats", total, 1)
				orgIDs := map[string]bool{}
				for i, group := range ccChunks(users) {
					for _, c := range groups[i] {
						t.Expect(group).To(ContainElement(c.Get("user.id").String()), "chat %s", c.Get("id"))
						t.Expect(c.Get("user.email_address").String()).NotTo(BeEmpty())
						t.Expect(c.Get("organization_uuid").String()).To(Equal(uuid), "chat %s", c.Get("id"))
						t.Expect(c.Get("organization_id").String()).To(HavePrefix("org_"))
						t.Expect(c.Get("id").String()).To(HavePrefix("assistant_chat_"))
						orgIDs[c.Get("organization_id").String()] = true
					}
				}
				t.Expect(len(orgIDs)).To(BeNumerically("<=", 1), "one organization, one org_ ID")
			}},
		kit.Check{ID: "compliance/users-match-admin", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "chat creators are users of the administration users API under the same IDs and addresses",
			Bug: &kit.Bug{Says: "the chat list names every creator by another address than the administration users API",
				Want: "address of the creator of chat", Break: kit.SetsField(OnGet(ChatsRoute), "data.*.user.email_address", "someone-else@example.com")},
			Run: func(t *kit.T) {
				admin := t.Do(kit.Request{Area: kit.Admin, Path: "/v1/organizations/users", Query: url.Values{"limit": {"1000"}}})
				t.UnsupportedIfAbsent(admin, "the target has no administration users list")
				t.Expect(admin.Status).To(Equal(http.StatusOK), "%s", admin)
				emails := map[string]string{}
				for _, u := range admin.Get("data").Array() {
					emails[u.Get("id").String()] = strings.ToLower(u.Get("email").String())
				}
				groups, total := ccChatsByGroup(t)
				t.Need("chats", total, 1)
				for _, chats := range groups {
					for _, c := range chats {
						id := c.Get("user.id").String()
						t.Expect(emails).To(HaveKey(id), "chat %s creator", c.Get("id"))
						t.Expect(strings.ToLower(c.Get("user.email_address").String())).To(Equal(emails[id]), "address of the creator of chat %s", c.Get("id"))
					}
				}
			}},
		kit.Check{ID: "compliance/other-organization-invisible", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "another organization's chats and files are neither listed nor readable (404)",
			Bug: &kit.Bug{Says: "the messages of another organization's chat are served to the key by the chat's ID",
				Want: "the answer is 404", Break: cmpAsOtherOrg(OnGet(cmpMessages))},
			Run: func(t *kit.T) {
				_, users2 := Organization(t, true)
				var theirs []gjson.Result
				for _, group := range ccChunks(users2) {
					theirs = append(theirs, ccWalkChats(t, ChatsQuery(group), 1000, true)...)
				}
				t.Need("chats of the second organization", len(theirs), 1)
				for _, group := range ccChunks(users2) {
					t.Expect(t.OK(Get(ChatsPath, ChatsQuery(group), "compliance/chat_list")).Get("data.#").Int()).To(BeZero())
				}
				for _, c := range theirs {
					id := url.PathEscape(c.Get("id").String())
					t.ExpectError(t.Do(Get(ChatsPath+"/"+id+"/messages", nil, "")), http.StatusNotFound, "not_found_error")
					r := Get(ChatsPath+"/"+id+"/messages", nil, "compliance/chat_messages")
					r.Org2 = true
					for _, m := range t.OK(r).Get("chat_messages").Array() {
						for _, f := range m.Get("files").Array() {
							t.ExpectError(t.Do(Get(ccFiles+url.PathEscape(f.Get("id").String()), nil, "")), http.StatusNotFound, "not_found_error")
							t.ExpectError(t.Do(Get(ccFiles+url.PathEscape(f.Get("id").String())+"/content", nil, "")), http.StatusNotFound, "not_found_error")
						}
					}
				}
			}},
		kit.Check{ID: "compliance/messages-whole-chat", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "without limit, the messages operation returns the whole chat, oldest first, with has_more false",
			Bug: &kit.Bug{Says: "without limit, the messages operation answers has_more true though it returned the whole chat",
				Want: "has_more without limit", Break: InOKAnswers(cmpMessages, func(r *http.Request, m map[string]any) {
					if r.URL.Query().Get("limit") == "" {
						m["has_more"] = true
					}
				})},
			Run: func(t *kit.T) {
				chat, msgs := ccLongestChat(t)
				resp := t.OK(Get(ChatsPath+"/"+url.PathEscape(chat.Get("id").String())+"/messages", nil, "compliance/chat_messages"))
				t.Expect(resp.Get("has_more").Bool()).To(BeFalse(), "has_more without limit, for the whole chat")
				t.Expect(resp.Get("first_id").String()).To(Equal(msgs[0].Get("id").String()), "first_id without limit is the oldest message")
				t.Expect(resp.Get("last_id").String()).To(Equal(msgs[len(msgs)-1].Get("id").String()), "last_id without limit is the newest message")
				ccExpectListOrder(t, resp.Get("chat_messages").Array())
			}},
		kit.Check{ID: "compliance/messages-chat-fields", Clause: "2.3", Labels: []kit.Label{kit.Compliance},
			Title: "the messages operation carries the chat's fields as the chat list gives them",
			Bug: &kit.Bug{Says: "the messages operation names another model than the chat list gives the chat",
				Want: "field model", Break: kit.SetsField(OnGet(cmpMessages), "model", "claude-conformance-other")},
			Run: func(t *kit.T) {
				chat, _ := ccLongestChat(t)
				resp := t.OK(Get(ChatsPath+"/"+url.PathEscape(chat.Get("id").String())+"/messages", nil, "compliance/chat_messages"))
				for _, f := range []string{"id", "name", "created_at", "updated_at", "deleted_at", "href", "model", "organization_id", "organization_uuid", "project_id", "user"} {
					t.Expect(resp.Get(f).Raw).To(MatchJSON(chat.Get(f).Raw), "field %s", f)
				}
			}},
		kit.Check{ID: "compliance/messages-order-desc", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "order=desc lists the same messages newest first; order=asc is the default",
			Bug: &kit.Bug{Says: "the messages operation ignores order: desc lists oldest first",
				Want: "order=desc, reversed", Break: kit.IgnoresQuery(OnGet(cmpMessages), "order")},
			Run: func(t *kit.T) {
				chat, msgs := ccLongestChat(t)
				path := ChatsPath + "/" + url.PathEscape(chat.Get("id").String()) + "/messages"
				asc := kit.IDsOf(t.OK(Get(path, url.Values{"order": {"asc"}}, "compliance/chat_messages")).Get("chat_messages").Array())
				t.Expect(asc).To(Equal(kit.IDsOf(msgs)), "order=asc lists the messages as the default order does")
				desc := kit.IDsOf(t.OK(Get(path, url.Values{"order": {"desc"}}, "compliance/chat_messages")).Get("chat_messages").Array())
				slices.Reverse(desc)
				t.Expect(desc).To(Equal(asc), "order=desc, reversed, lists the messages of order=asc")
			}},
		kit.Check{ID: "compliance/messages-pages", Clause: "2.3", Labels: []kit.Label{kit.Compliance},
			Title: "message pages in both orders and both directions return each message exactly once, in order",
			Bug: &kit.Bug{Says: "a message page asked for with after_id leaves out the message just after the cursor",
				Want: "page size", Break: cmpSkipsNext(cmpMessages, "after_id", "chat_messages")},
			Run: func(t *kit.T) {
				chat, msgs := ccLongestChat(t)
				id := chat.Get("id").String()
				asc := kit.IDsOf(msgs)
				desc := slices.Clone(asc)
				slices.Reverse(desc)
				for order, want := range map[string][]string{"asc": asc, "desc": desc} {
					for _, size := range []int{1, 4, len(want) - 1, 1000} {
						t.Expect(ccWalkMessages(t, id, order, size, "")).To(Equal(want), "%s, page size %d", order, size)
					}
					t.Expect(ccWalkMessages(t, id, order, 3, want[len(want)-1])).To(Equal(want[:len(want)-1]), "%s backwards", order)
				}
			}},
		kit.Check{ID: "compliance/messages-created-at-filter", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "created_at[gt], [gte], [lt] and [lte] filter a chat's messages, and updated_at filters them too",
			Bug: &kit.Bug{Says: "the messages operation reads created_at[gte] and created_at[lte] as exclusive bounds",
				Want: "created_at[gte]", Break: cmpExclusiveBounds(cmpMessages, "created_at")},
			Run: func(t *kit.T) {
				chat, msgs := ccLongestChat(t)
				path := ChatsPath + "/" + url.PathEscape(chat.Get("id").String()) + "/messages"
				list := func(p, v string) []string {
					return kit.IDsOf(t.OK(Get(path, url.Values{p: {v}}, "compliance/chat_messages")).Get("chat_messages").Array())
				}
				ccExpectRangeFilters(t, msgs, "created_at", list)
				// Messages show no updated_at, but none is updated before it was created.
				first := msgs[0].Get("created_at").Time().Format(time.RFC3339Nano)
				t.Expect(list("updated_at[gte]", first)).To(Equal(kit.IDsOf(msgs)))
				t.Expect(list("updated_at[lt]", first)).To(BeEmpty())
			}},
		kit.Check{ID: "compliance/messages-bad-parameters", Clause: "gaps §3", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "a messages limit outside 1 to 1000 or an order other than asc or desc is refused with 400 naming it",
			Bug: &kit.Bug{Says: "the messages operation ignores an order other than asc or desc",
				Want: "the answer is 400", Break: kit.IgnoresInvalidQuery(http.MethodGet, cmpMessages, "order")},
			Run: func(t *kit.T) {
				chat, _ := ccLongestChat(t)
				path := ChatsPath + "/" + url.PathEscape(chat.Get("id").String()) + "/messages"
				for _, bad := range []string{"0", "1001", "x"} {
					ccExpectBadParam(t, Get(path, url.Values{"limit": {bad}}, ""), "limit")
				}
				ccExpectBadParam(t, Get(path, url.Values{"order": {"newest"}}, ""), "order")
				t.OK(Get(path, url.Values{"limit": {"1000"}}, "compliance/chat_messages"))
			}},
		kit.Check{ID: "compliance/chat-deleted-by-user", Clause: "gaps §10", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "a chat its user deleted still lists with deleted_at; its messages have empty content and null attachments",
			Bug: &kit.Bug{Says: "the messages of a chat its user deleted keep an empty files list",
				Want: "files of message", Break: InOKAnswers(cmpMessages, func(_ *http.Request, m map[string]any) {
					if m["deleted_at"] == nil {
						return
					}
					for _, msg := range m["chat_messages"].([]any) {
						if msg, _ := msg.(map[string]any); msg != nil {
							msg["files"] = []any{}
						}
					}
				})},
			Run: func(t *kit.T) {
				found := false
				ccScanChats(t, func(c gjson.Result, r *kit.Response) bool {
					if c.Get("deleted_at").Type == gjson.Null {
						return true
					}
					found = true
					for _, m := range r.Get("chat_messages").Array() {
						t.Expect(m.Get("content").Raw).To(MatchJSON("[]"))
						for _, f := range []string{"files", "generated_files", "artifacts"} {
							t.Expect(m.Get(f).Type).To(Equal(gjson.Null), "%s of message %s", f, m.Get("id"))
						}
					}
					return false
				})
				t.Need("chats deleted by their user", map[bool]int{true: 1}[found], 1)
			}},
		kit.Check{ID: "compliance/unknown-ids-404", Clause: "gaps §1", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "unknown chat, file, generated-file and artifact IDs are answered 404 not_found_error",
			Bug: &kit.Bug{Says: "an unknown artifact version ID is answered 400",
				Want: "the answer is 404", Break: kit.AnswersStatus(OnGet(cmpArtifact), http.StatusNotFound, http.StatusBadRequest)},
			Run: func(t *kit.T) {
				for _, p := range []string{
					ChatsPath + "/assistant_chat_doesnotexist/messages", ccFiles + "assistant_file_doesnotexist",
					ccFiles + "assistant_file_doesnotexist/content", ccGenerated + "assistant_gen_file_doesnotexist",
					ccGenerated + "assistant_gen_file_doesnotexist/content", ccArtifacts + "assistant_artifact_version_doesnotexist",
				} {
					t.ExpectError(t.Do(Get(p, nil, "")), http.StatusNotFound, "not_found_error")
				}
			}},
		kit.Check{ID: "compliance/files-metadata-and-content", Clause: "4.2", Labels: []kit.Label{kit.Compliance},
			Title: "attached files have metadata listing their messages, and downloads whose Content-MD5 matches the bytes served",
			Bug: &kit.Bug{Says: "a file's download is served with a Content-MD5 that is not of its bytes",
				Want: "has a Content-MD5 of the bytes served", Break: cmpWrongContentMD5(cmpFileContent)},
			Run: func(t *kit.T) {
				checked := 0
				refs, _, _ := ccFindFiles(t, func(id string, meta *kit.Response, refs []string) bool {
					t.Expect(meta.Get("id").String()).To(Equal(id), "a file's metadata carries its own ID: %s", meta)
					md := meta.Get("md5")
					if md.Type != gjson.Null {
						t.Expect(ccLowerHexMD5.MatchString(md.String())).To(BeTrue(), "md5 %q of %s is not lowercase hex", md, id)
					}
					if meta.Get("mime_type").Type != gjson.Null {
						body := t.OK(Get(ccFiles+url.PathEscape(id)+"/content", nil, ""))
						t.Expect(body.Header.Get("Content-MD5")).To(Equal(ccContentMD5(body.Body)), "the download of file %s has a Content-MD5 of the bytes served", id)
						if md.Type != gjson.Null {
							t.Expect(md.String()).To(Equal(fmt.Sprintf("%x", md5.Sum(body.Body))), "md5 of file %s is the MD5 of its download", id)
						}
						if size := meta.Get("size_bytes"); size.Type != gjson.Null {
							t.Expect(size.Int()).To(BeNumerically("==", len(body.Body)), "size_bytes of %s", id)
						}
						checked++
					}
					return checked >= 20
				})
				for id, msgs := range refs {
					meta := t.Do(Get(ccFiles+url.PathEscape(id), nil, "compliance/file"))
					if meta.Status == http.StatusOK {
						var listed []string
						for _, m := range meta.Get("message_ids").Array() {
							listed = append(listed, m.String())
						}
						t.Expect(listed).To(ContainElements(msgs), "message_ids of %s", id)
					}
				}
				t.Need("downloadable files", checked, 1)
			}},
		kit.Check{ID: "compliance/files-shared-message-ids", Clause: "2.4", Labels: []kit.Label{kit.Compliance},
			Title: "a file attached to several messages lists every one of them in message_ids",
			Bug: &kit.Bug{Says: "a file's metadata lists only the first message that carries it",
				Want: "message_ids", Break: InOKAnswers(cmpFile, func(_ *http.Request, m map[string]any) {
					if ids, _ := m["message_ids"].([]any); len(ids) > 1 {
						m["message_ids"] = ids[:1]
					}
				})},
			Run: func(t *kit.T) {
				var shared []string
				var listed []gjson.Result
				_, id, _ := ccFindFiles(t, func(_ string, meta *kit.Response, refs []string) bool {
					shared, listed = refs, meta.Get("message_ids").Array()
					return len(refs) >= 2
				})
				t.Need("files attached to two messages", len(shared), 2)
				var ids []string
				for _, m := range listed {
					ids = append(ids, m.String())
				}
				t.Expect(ids).To(ContainElements(shared), "file %s lists in message_ids every message that carries it", id)
			}},
		kit.Check{ID: "compliance/files-no-content-404", Clause: "2.4", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "a file whose mime_type is null has no downloadable content: its download is 404",
			Bug: &kit.Bug{Says: "the download of a file without content is answered 200 with an error body",
				Want: "the answer is 404", Break: kit.AnswersStatus(OnGet(cmpFileContent), http.StatusNotFound, http.StatusOK)},
			Run: func(t *kit.T) {
				_, id, _ := ccFindFiles(t, func(_ string, meta *kit.Response, _ []string) bool { return meta.Get("mime_type").Type == gjson.Null })
				t.Need("files without downloadable content", map[bool]int{true: 1}[id != ""], 1)
				t.ExpectError(t.Do(Get(ccFiles+url.PathEscape(id)+"/content", nil, "")), http.StatusNotFound, "not_found_error")
			}},
		kit.Check{ID: "compliance/generated-files", Clause: "4.2", Labels: []kit.Label{kit.Compliance},
			Title: "a message's generated files have metadata and downloadable content",
			Bug: &kit.Bug{Says: "a generated file's md5 is not the MD5 of its content",
				Want: "md5 of", Break: kit.SetsField(OnGet(cmpGenerated), "md5", cmpEmptyMD5)},
			Run: func(t *kit.T) {
				seen := 0
				ccScanChats(t, func(c gjson.Result, r *kit.Response) bool {
					for _, m := range r.Get("chat_messages").Array() {
						for _, g := range m.Get("generated_files").Array() {
							id := url.PathEscape(g.Get("id").String())
							meta := t.OK(Get(ccGenerated+id, nil, "compliance/generated_file"))
							t.Expect(meta.Get("id").String()).To(Equal(g.Get("id").String()))
							t.Expect(meta.Get("chat_id").String()).To(Equal(c.Get("id").String()))
							body := t.OK(Get(ccGenerated+id+"/content", nil, ""))
							sum := md5.Sum(body.Body)
							t.Expect(meta.Get("md5").String()).To(Equal(fmt.Sprintf("%x", sum)), "md5 of %s", id)
							t.Expect(meta.Get("size_bytes").Int()).To(BeNumerically("==", len(body.Body)))
							seen++
						}
					}
					return seen == 0 // one chat's generated files are enough
				})
				t.Need("generated files", seen, 1)
			}},
		kit.Check{ID: "compliance/artifacts", Clause: "gaps §10", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "each artifact version has metadata and its text, served with a matching Content-MD5",
			Bug: &kit.Bug{Says: "an artifact's content is served with a Content-MD5 that is not of its bytes",
				Want: "Content-MD5 of the text of", Break: cmpWrongContentMD5(cmpArtifactBody)},
			Run: func(t *kit.T) {
				versions := map[string][]string{}
				ccScanChats(t, func(c gjson.Result, r *kit.Response) bool {
					for _, m := range r.Get("chat_messages").Array() {
						for _, a := range m.Get("artifacts").Array() {
							vid := a.Get("version_id").String()
							meta := t.OK(Get(ccArtifacts+url.PathEscape(vid), nil, "compliance/artifact"))
							for _, f := range []string{"id", "artifact_type", "title", "version_id"} {
								t.Expect(meta.Get(f).String()).To(Equal(a.Get(f).String()), "%s of %s", f, vid)
							}
							t.Expect(meta.Get("chat_id").String()).To(Equal(c.Get("id").String()))
							body := t.OK(Get(ccArtifacts+url.PathEscape(vid)+"/content", nil, ""))
							t.Expect(body.Header.Get("Content-MD5")).To(Equal(ccContentMD5(body.Body)), "Content-MD5 of the text of %s", vid)
							t.Expect(meta.Get("md5").String()).To(Equal(fmt.Sprintf("%x", md5.Sum(body.Body))), "md5 of %s is the MD5 of its text", vid)
							versions[a.Get("id").String()] = append(versions[a.Get("id").String()], vid)
						}
					}
					return len(versions) == 0 // one chat's artifacts are enough
				})
				t.Need("artifacts", len(versions), 1)
			}},
	)
}

// WalkProjects pages through the project list of q with the page size and returns the projects.
func WalkProjects(t *kit.T, q url.Values, size int) []gjson.Result {
	return t.WalkPages(Get(ProjectsPath, q, "compliance/project_list"), size)
}

// AllProjects returns every project of the organization, requiring at least n.
func AllProjects(t *kit.T, n int) []gjson.Result {
	all := WalkProjects(t, url.Values{}, 100)
	t.Need("projects", len(all), n)
	return all
}

// The project, organization and deletion checks (spec 4.1-4.3, gaps §10).
func init() {
	kit.Register(
		kit.Check{ID: "compliance/projects-order-and-pages", Clause: "4.3", Labels: []kit.Label{kit.Compliance},
			Title: "projects are listed by created_at ascending, and paging with next_page at any size returns each once",
			Bug: &kit.Bug{Says: "a project page asked for with next_page leaves out the first project of the page",
				Want: "page size", Break: cmpSkipsNext(ProjectsRoute, "page", "data")},
			Run: func(t *kit.T) {
				all := AllProjects(t, 2)
				ccExpectListOrder(t, all)
				for _, size := range []int{1, 3, len(all) - 1} {
					t.Expect(kit.IDsOf(WalkProjects(t, url.Values{}, size))).To(Equal(kit.IDsOf(all)), "page size %d", size)
				}
			}},
		kit.Check{ID: "compliance/projects-default-limit", Clause: "4.3", Labels: []kit.Label{kit.Compliance},
			Title: "without limit, a project page holds up to 20 projects; limit 100 is accepted",
			Bug: &kit.Bug{Says: "without limit, a project page holds 10 projects",
				Want: "projects on a page without limit", Break: cmpDefaultLimit(ProjectsRoute, 10)},
			Run: func(t *kit.T) {
				all := AllProjects(t, 1)
				resp := t.OK(Get(ProjectsPath, nil, "compliance/project_list"))
				t.Expect(resp.Get("data.#").Int()).To(BeNumerically("==", min(len(all), 20)), "projects on a page without limit, of %d", len(all))
				t.Expect(resp.Get("has_more").Bool()).To(Equal(len(all) > 20), "has_more of a page without limit, of %d projects", len(all))
				t.OK(Get(ProjectsPath, url.Values{"limit": {"100"}}, "compliance/project_list"))
			}},
		kit.Check{ID: "compliance/projects-bad-parameters", Clause: "gaps §3", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "a project limit outside 1 to 100, a forged page token or a malformed created_at bound is refused with 400 naming it",
			Bug: &kit.Bug{Says: "the project list reads a forged page token as the first page",
				Want: "the answer is 400", Break: kit.IgnoresInvalidQuery(http.MethodGet, ProjectsRoute, "page")},
			Run: func(t *kit.T) {
				for _, bad := range []string{"0", "101", "x"} {
					ccExpectBadParam(t, Get(ProjectsPath, url.Values{"limit": {bad}}, ""), "limit")
				}
				ccExpectBadParam(t, Get(ProjectsPath, url.Values{"page": {"not-a-page-token"}}, ""), "page")
				ccExpectBadParam(t, Get(ProjectsPath, url.Values{"created_at[gte]": {"soon"}}, ""), "created_at[gte]")
			}},
		kit.Check{ID: "compliance/projects-created-at-filter", Clause: "4.3", Labels: []kit.Label{kit.Compliance},
			Title: "created_at[gt], [gte], [lt] and [lte] select projects strictly after, at or after, strictly before, at or before",
			Bug: &kit.Bug{Says: "the project list reads created_at[gte] and created_at[lte] as exclusive bounds",
				Want: "created_at[gte]", Break: cmpExclusiveBounds(ProjectsRoute, "created_at")},
			Run: func(t *kit.T) {
				all := AllProjects(t, 3)
				ccExpectRangeFilters(t, all, "created_at", func(p, v string) []string {
					return kit.IDsOf(WalkProjects(t, url.Values{p: {v}}, 100))
				})
			}},
		kit.Check{ID: "compliance/projects-user-and-organization-filters", Clause: "4.3", Labels: []kit.Label{kit.Compliance},
			Title: "user_ids selects the projects those users created; organization_ids accepts the org_ ID and the UUID",
			Bug: &kit.Bug{Says: "organization_ids of the project list does not recognize the organization's UUID",
				Want: "organization_ids=", Break: cmpUnknownValues(ProjectsRoute, "organization_ids[]", func(v string) bool { return !strings.HasPrefix(v, "org_") }, kit.NoSuchOrgUUID)},
			Run: func(t *kit.T) {
				all := AllProjects(t, 2)
				user := all[0].Get("user.id").String()
				var want []string
				for _, p := range all {
					if p.Get("user.id").String() == user {
						want = append(want, p.Get("id").String())
					}
				}
				t.Expect(kit.IDsOf(WalkProjects(t, url.Values{"user_ids[]": {user}}, 100))).To(Equal(want))
				for _, id := range []string{all[0].Get("organization_id").String(), all[0].Get("organization_uuid").String()} {
					t.Expect(kit.IDsOf(WalkProjects(t, url.Values{"organization_ids[]": {id}}, 100))).To(Equal(kit.IDsOf(all)), "organization_ids=%s", id)
				}
			}},
		kit.Check{ID: "compliance/projects-identity", Clause: "2.6", Labels: []kit.Label{kit.Compliance},
			Title: "projects name their creator among the organization's users and the organization's UUID",
			Bug: &kit.Bug{Says: "the project list names another organization's UUID on every project",
				Want: "organization_uuid of assistant_proj_", Break: kit.SetsField(OnGet(ProjectsRoute), "data.*.organization_uuid", cmpOtherUUID)},
			Run: func(t *kit.T) {
				uuid, users := Organization(t, false)
				for _, p := range AllProjects(t, 1) {
					t.Expect(users).To(ContainElement(p.Get("user.id").String()), "creator of %s", p.Get("id"))
					t.Expect(p.Get("organization_uuid").String()).To(Equal(uuid), "organization_uuid of %s", p.Get("id"))
				}
			}},
		kit.Check{ID: "compliance/organizations-and-users", Clause: "gaps §10", Labels: []kit.Label{kit.Compliance, kit.Extension},
			Title: "the key's organization is listed with its users; another organization's users are 404",
			Bug: &kit.Bug{Says: "another organization's users are listed to the key by its UUID",
				Want: "the answer is 404", Break: cmpAsOtherOrg(OnGet(cmpOrgUsers))},
			Run: func(t *kit.T) {
				uuid, users := Organization(t, false)
				t.Need("users of the organization", len(users), 1)
				t.Expect(users).To(HaveEach(HavePrefix("user_")), "user IDs start with user_")
				if t.Config().ComplianceKey2 != "" {
					other, _ := Organization(t, true)
					t.Expect(other).NotTo(Equal(uuid))
					t.ExpectError(t.Do(Get(ccOrgs+"/"+url.PathEscape(other)+"/users", nil, "")), http.StatusNotFound, "not_found_error")
				}
			}},
		kit.Check{ID: "compliance/delete-chat", Clause: "4.1", Labels: []kit.Label{kit.Compliance, kit.Destructive},
			Title: "deleting a chat confirms with assistant_chat_deleted; the chat, its messages and its own files are gone, shared files lose its messages",
			Bug: &kit.Bug{Says: "deleting a chat leaves the files it shares with other chats listing its messages",
				Want: "still lists a message of the deleted chat", Break: cmpSharedFilesKeepMessages},
			Run: func(t *kit.T) {
				// A chat with files, preferring one whose files are also attached elsewhere.
				var chat gjson.Result
				var msgs []gjson.Result
				ccScanChats(t, func(c gjson.Result, r *kit.Response) bool {
					files := r.Get("chat_messages.#.files.#").Array()
					if c.Get("deleted_at").Type != gjson.Null || !slices.ContainsFunc(files, func(n gjson.Result) bool { return n.Int() > 0 }) {
						return true
					}
					chat, msgs = c, r.Get("chat_messages").Array()
					for _, m := range msgs {
						for _, f := range m.Get("files").Array() {
							meta := t.Do(Get(ccFiles+url.PathEscape(f.Get("id").String()), nil, "compliance/file"))
							for _, mid := range meta.Get("message_ids").Array() {
								if !slices.Contains(kit.IDsOf(msgs), mid.String()) {
									return false
								}
							}
						}
					}
					return true
				})
				t.Need("chats with files", map[bool]int{true: 1}[chat.Exists()], 1)
				id := chat.Get("id").String()
				mine := kit.IDsOf(msgs)
				files := map[string]bool{}
				var generated []string
				for _, m := range msgs {
					for _, f := range m.Get("files").Array() {
						files[f.Get("id").String()] = true
					}
					generated = append(generated, kit.IDsOf(m.Get("generated_files").Array())...)
				}
				shared := map[string]bool{}
				for f := range files {
					for _, mid := range t.OK(Get(ccFiles+url.PathEscape(f), nil, "compliance/file")).Get("message_ids").Array() {
						if !slices.Contains(mine, mid.String()) {
							shared[f] = true
						}
					}
				}
				del := t.OK(kit.Request{Area: kit.Compliance, Method: http.MethodDelete, Path: ChatsPath + "/" + url.PathEscape(id), Schema: "compliance/chat_deleted"})
				t.Expect(del.Get("id").String()).To(Equal(id), "the confirmation names the deleted chat: %s", del)
				t.Expect(del.Get("type").String()).To(Equal("assistant_chat_deleted"), "the confirmation's type is assistant_chat_deleted: %s", del)
				t.ExpectError(t.Do(Get(ChatsPath+"/"+url.PathEscape(id)+"/messages", nil, "")), http.StatusNotFound, "not_found_error")
				t.ExpectError(t.Do(kit.Request{Area: kit.Compliance, Method: http.MethodDelete, Path: ChatsPath + "/" + url.PathEscape(id)}), http.StatusNotFound, "not_found_error")
				listed := ccWalkChats(t, ChatsQuery([]string{chat.Get("user.id").String()}), 1000, false)
				t.Expect(kit.IDsOf(listed)).NotTo(ContainElement(id))
				for f := range files {
					meta := t.Do(Get(ccFiles+url.PathEscape(f), nil, "compliance/file"))
					if !shared[f] {
						t.ExpectError(meta, http.StatusNotFound, "not_found_error")
						t.ExpectError(t.Do(Get(ccFiles+url.PathEscape(f)+"/content", nil, "")), http.StatusNotFound, "not_found_error")
						continue
					}
					t.Expect(meta.Status).To(Equal(http.StatusOK), "%s", meta)
					for _, mid := range meta.Get("message_ids").Array() {
						t.Expect(mine).NotTo(ContainElement(mid.String()), "file %s still lists a message of the deleted chat", f)
					}
				}
				for _, g := range generated {
					t.ExpectError(t.Do(Get(ccGenerated+url.PathEscape(g), nil, "")), http.StatusNotFound, "not_found_error")
				}
			}},
		kit.Check{ID: "compliance/delete-chat-cursor-survives", Clause: "gaps §3", Labels: []kit.Label{kit.Compliance, kit.Destructive, kit.Extension},
			Title: "the ID of a chat deleted while paging stays a valid after_id cursor, so an exporter can go on",
			Bug: &kit.Bug{Says: "a deleted chat's ID is refused as an after_id cursor",
				Want: "the answer is 200", Break: cmpForgetsDeletedCursors},
			Run: func(t *kit.T) {
				user, all := BusiestUser(t)
				victim := all[len(all)/2].Get("id").String()
				t.OK(kit.Request{Area: kit.Compliance, Method: http.MethodDelete, Path: ChatsPath + "/" + url.PathEscape(victim), Schema: "compliance/chat_deleted"})
				resp := t.OK(Get(ChatsPath, ChatsQuery([]string{user}, "limit", "1000", "after_id", victim), "compliance/chat_list"))
				t.Expect(kit.IDsOf(resp.Get("data").Array())).To(Equal(kit.IDsOf(all[len(all)/2+1:])))
			}},
		kit.Check{ID: "compliance/delete-file", Clause: "4.2", Labels: []kit.Label{kit.Compliance, kit.Destructive},
			Title: "deleting a file confirms with assistant_file_deleted; its metadata and content are gone and no message lists it",
			Bug: &kit.Bug{Says: "a deleted file's content is still downloadable",
				Want: "the answer is 404", Break: cmpKeepsDeletedContent},
			Run: func(t *kit.T) {
				_, id, chats := ccFindFiles(t, func(_ string, meta *kit.Response, _ []string) bool { return meta.Get("mime_type").Type != gjson.Null })
				t.Need("downloadable files", map[bool]int{true: 1}[id != ""], 1)
				del := t.OK(kit.Request{Area: kit.Compliance, Method: http.MethodDelete, Path: ccFiles + url.PathEscape(id), Schema: "compliance/file_deleted"})
				t.Expect(del.Get("id").String()).To(Equal(id), "the confirmation names the deleted file: %s", del)
				t.Expect(del.Get("type").String()).To(Equal("assistant_file_deleted"), "the confirmation's type is assistant_file_deleted: %s", del)
				t.ExpectError(t.Do(Get(ccFiles+url.PathEscape(id), nil, "")), http.StatusNotFound, "not_found_error")
				t.ExpectError(t.Do(Get(ccFiles+url.PathEscape(id)+"/content", nil, "")), http.StatusNotFound, "not_found_error")
				t.ExpectError(t.Do(kit.Request{Area: kit.Compliance, Method: http.MethodDelete, Path: ccFiles + url.PathEscape(id)}), http.StatusNotFound, "not_found_error")
				for _, chat := range chats {
					r := t.OK(Get(ChatsPath+"/"+url.PathEscape(chat)+"/messages", nil, "compliance/chat_messages"))
					for _, m := range r.Get("chat_messages").Array() {
						t.Expect(kit.IDsOf(m.Get("files").Array())).NotTo(ContainElement(id), "message %s still lists the file", m.Get("id"))
					}
				}
			}},
	)
}
