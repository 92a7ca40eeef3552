package core

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
)

type item struct {
	id string
	at time.Time
}

func itemKey(i item) ListKey { return ListKey{i.at, i.id} }
func itemID(i item) string   { return i.id }

// items returns n items, two per instant so that every page boundary meets a tie.
func items(n int) []item {
	out := make([]item, n)
	for i := range out {
		out[i] = item{fmt.Sprintf("it_%03d", i), Epoch().Add(time.Duration(i/2) * time.Second)}
	}
	return out
}

func joinIDs(page []item) string {
	var s []string
	for _, it := range page {
		s = append(s, it.id)
	}
	return strings.Join(s, ",")
}

func TestCursorPagesAreExactBothWays(t *testing.T) {
	for _, cmp := range []Order{OldestFirst, NewestFirst} {
		list := items(11)
		slices.SortFunc(list, func(a, b item) int { return cmp(itemKey(a), itemKey(b)) })
		want := joinIDs(list)
		for limit := 1; limit <= 12; limit++ {
			var fwd []item
			q := CursorQuery{Limit: limit}
			for {
				p, err := PageByCursor(list, itemKey, itemID, cmp, q, LookupIn(list, itemKey))
				if err != nil {
					t.Fatal(err)
				}
				fwd = append(fwd, p.Data...)
				if !p.HasMore {
					break
				}
				q.AfterID = *p.LastID
			}
			if got := joinIDs(fwd); got != want {
				t.Fatalf("limit %d forwards: %s, want %s", limit, got, want)
			}
			var back []item
			q = CursorQuery{Limit: limit, BeforeID: list[len(list)-1].id}
			for {
				p, err := PageByCursor(list, itemKey, itemID, cmp, q, LookupIn(list, itemKey))
				if err != nil {
					t.Fatal(err)
				}
				back = append(slices.Clone(p.Data), back...)
				if !p.HasMore {
					break
				}
				q.BeforeID = *p.FirstID
			}
			if got := joinIDs(back); got != joinIDs(list[:len(list)-1]) {
				t.Fatalf("limit %d backwards: %s", limit, got)
			}
		}
	}
}

func TestCursorPageEdges(t *testing.T) {
	list := items(4)
	lookup := LookupIn(list, itemKey)
	p, _ := PageByCursor(list, itemKey, itemID, OldestFirst, CursorQuery{AfterID: "it_003", Limit: 2}, lookup)
	if len(p.Data) != 0 || p.FirstID != nil || p.LastID != nil || p.HasMore {
		t.Fatalf("page after the last item = %+v, want empty with null cursors", p)
	}
	p, _ = PageByCursor(list, itemKey, itemID, OldestFirst, CursorQuery{}, lookup)
	if len(p.Data) != 4 || p.HasMore {
		t.Fatalf("no limit: %d items, has_more %v; want the whole list", len(p.Data), p.HasMore)
	}
	if _, err := PageByCursor(list, itemKey, itemID, OldestFirst, CursorQuery{AfterID: "nope", Limit: 2}, lookup); err == nil || !strings.Contains(err.Error(), "after_id") {
		t.Fatalf("unknown cursor: err = %v, want 400 naming after_id", err)
	}
	// A cursor whose item was deleted still marks its place.
	deleted := list[1]
	rest := slices.Delete(slices.Clone(list), 1, 2)
	tomb := func(id string) (ListKey, bool) {
		if id == deleted.id {
			return itemKey(deleted), true
		}
		return LookupIn(rest, itemKey)(id)
	}
	p, _ = PageByCursor(rest, itemKey, itemID, OldestFirst, CursorQuery{AfterID: deleted.id, Limit: 10}, tomb)
	if got := joinIDs(p.Data); got != "it_002,it_003" {
		t.Fatalf("after a deleted item: %s", got)
	}
	p, _ = PageByCursor(rest, itemKey, itemID, OldestFirst, CursorQuery{BeforeID: deleted.id, Limit: 10}, tomb)
	if got := joinIDs(p.Data); got != "it_000" {
		t.Fatalf("before a deleted item: %s", got)
	}
}

func TestTokenPages(t *testing.T) {
	list := items(7)
	var all []item
	var after *ListKey
	for {
		p := PageByToken(list, itemKey, OldestFirst, "things", after, 3)
		if len(p.Data) == 0 && p.NextPage != nil {
			t.Fatal("an empty page with a next_page")
		}
		all = append(all, p.Data...)
		if p.NextPage == nil {
			break
		}
		c := tokenCall(*p.NextPage)
		var err error
		if after, err = c.PageToken("things"); err != nil {
			t.Fatal(err)
		}
	}
	if joinIDs(all) != joinIDs(list) {
		t.Fatalf("token pages: %s", joinIDs(all))
	}
	if p := PageByToken(list, itemKey, OldestFirst, "things", nil, 7); p.NextPage != nil {
		t.Fatal("a page that holds the rest of the list has a next_page")
	}
}

func TestPageTokensRefuseForgeries(t *testing.T) {
	good := EncodePageToken("things", ListKey{Epoch(), "it_001"})
	if _, err := tokenCall(good).PageToken("things"); err != nil {
		t.Fatalf("a genuine token was refused: %v", err)
	}
	body, sig, _ := strings.Cut(good, ".")
	for name, tok := range map[string]string{
		"garbage":       "abc",
		"no signature":  body,
		"bad signature": body + ".AAAAAAAAAAAAAAAA",
		"edited body":   strings.Replace(body, "e", "f", 1) + "." + sig,
		"other list":    EncodePageToken("other", ListKey{Epoch(), "it_001"}),
	} {
		if _, err := tokenCall(tok).PageToken("things"); err == nil || !strings.Contains(err.Error(), "page:") {
			t.Errorf("%s: err = %v, want 400 naming page", name, err)
		}
	}
}

// TestPageByTokenIn: the span PageByTokenIn answers is PageByToken's page, items' own memory
// rather than a copy, and PageByToken's page stays a copy that is never nil (an empty page is
// "data":[], not null).
func TestPageByTokenIn(t *testing.T) {
	list := items(50)
	for _, after := range []*ListKey{nil, {list[9].at, list[9].id}, {list[45].at, list[45].id}, {list[49].at, list[49].id}} {
		in := PageByTokenIn(list, itemKey, OldestFirst, "things", after, 20)
		copied := PageByToken(list, itemKey, OldestFirst, "things", after, 20)
		if joinIDs(in.Data) != joinIDs(copied.Data) || (in.NextPage == nil) != (copied.NextPage == nil) ||
			(in.NextPage != nil && *in.NextPage != *copied.NextPage) {
			t.Errorf("after %v: PageByTokenIn %s %v, PageByToken %s %v", after, joinIDs(in.Data), in.NextPage, joinIDs(copied.Data), copied.NextPage)
		}
		if len(in.Data) > 0 {
			lo := slices.IndexFunc(list, func(it item) bool { return it.id == in.Data[0].id })
			if &in.Data[0] != &list[lo] || &copied.Data[0] == &list[lo] || cap(in.Data) != len(in.Data) {
				t.Errorf("after %v: PageByTokenIn's page is a copy, PageByToken's is not, or an append would write over the list", after)
			}
		}
		if copied.Data == nil {
			t.Errorf("after %v: PageByToken's page is nil", after)
		}
	}
	if p := PageByToken([]item(nil), itemKey, OldestFirst, "things", nil, 20); p.Data == nil {
		t.Error("PageByToken of an empty list is nil, which encodes as null")
	}
}

// TestPageTokenAsMarshal holds EncodePageToken, which writes its body itself, to the token made
// the plain way: json.Marshal of the body, a MAC keyed anew, base64. Tokens must not change
// from one version to the next (a client may hold one across an upgrade of the fake).
func TestPageTokenAsMarshal(t *testing.T) {
	// Keys whose bodies differ only in a byte, one after the other: a remembered token is
	// given only for the same body.
	for _, id := range []string{"it_001", "it_002", "it_002", "it_001", "it_101"} {
		if got, want := EncodePageToken("things", ListKey{Epoch(), id}), plainPageToken("things", ListKey{Epoch(), id}); got != want {
			t.Errorf("EncodePageToken(things, {epoch, %q}) = %s, want %s", id, got, want)
		}
	}
	times := []time.Time{Epoch(), Epoch().Add(123456789 * time.Nanosecond), {}, time.Date(2026, 3, 1, 9, 30, 0, 500, time.FixedZone("", 5*3600+1800)),
		time.Date(2026, 3, 1, 9, 30, 0, 0, time.FixedZone("", -8*3600)), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 1, 9, 30, 0, 0, time.FixedZone("", 25*3600)), time.Unix(30, 0)}
	for _, scope := range []string{"things", "sessions_desc", "tunnels:org_<&>", "\u2028 \"quoted\"\n"} {
		for _, id := range []string{"it_001", "", "<script>&amp;", "caf\u00e9 \u2028\u2029", "bad \xff utf-8", "\x01\x1f"} {
			for _, at := range times {
				// Twice: the second is the token the signer remembers (a client reading the
				// same page again).
				for range 2 {
					if got, want := EncodePageToken(scope, ListKey{at, id}), plainPageToken(scope, ListKey{at, id}); got != want {
						t.Errorf("EncodePageToken(%q, {%v, %q}) = %s, want %s", scope, at, id, got, want)
					}
				}
			}
		}
	}
}

// plainPageToken is a page token made the plain way: json.Marshal of its body, a MAC keyed
// anew, base64.
func plainPageToken(scope string, k ListKey) string {
	body, _ := json.Marshal(tokenBody{Scope: scope, After: k})
	mac := hmac.New(sha256.New, tokenKey)
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:12])
}

// BenchmarkEncodePageToken compares EncodePageToken with the plain way, in the same run, for the
// token of a page of session events.
func BenchmarkEncodePageToken(b *testing.B) {
	k := ListKey{time.Unix(19, 0), "sevt_01AcmeEventEventEvent0001"}
	for name, encode := range map[string]func(string, ListKey) string{"plain": plainPageToken, "written": EncodePageToken} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				encode("session_events", k)
			}
		})
	}
}

func tokenCall(tok string) *Call {
	gc, _ := gin.CreateTestContext(httptest.NewRecorder())
	gc.Request = httptest.NewRequest("GET", "/?page="+tok, nil)
	return &Call{X: &Exchange{}, Context: gc, Route: &Route{In: In{Query: TokenParams(20, 100)}}}
}

// TestKeptPageIsFlat: a filtered page reads the keys of a binary search, the page and the items
// it skips, not the list: counting keyOf calls and keep calls proves it without a timing.
func TestKeptPageIsFlat(t *testing.T) {
	for _, n := range []int{1_000, 100_000} {
		list := items(n)
		var keys, kept int
		keyOf := func(i item) ListKey { keys++; return itemKey(i) }
		keep := func(i item) bool { kept++; return !strings.HasSuffix(i.id, "7") } // a tenth filtered out
		lookup := func(id string) (ListKey, bool) {
			return ListKey{Epoch().Add(time.Duration(n/4) * time.Second), id}, true
		}
		for _, q := range []CursorQuery{{AfterID: "mid", Limit: 20}, {BeforeID: "mid", Limit: 20}} {
			keys, kept = 0, 0
			page, err := PageKept(list, keep, keyOf, itemID, OldestFirst, q, lookup)
			if err != nil || len(page.Data) != 20 || !page.HasMore {
				t.Fatalf("n=%d %+v: %d items, has_more %v, %v", n, q, len(page.Data), page.HasMore, err)
			}
			if bound := 2*20 + 2*18; keys > bound || kept > 2*20+2 {
				t.Errorf("n=%d %+v: %d keys and %d keep calls for a page of 20; want at most %d and %d", n, q, keys, kept, bound, 2*20+2)
			}
		}
	}
}

// TestSplicedPageTails: the fields after data, written by hand for both pagination families,
// are what encoding/json writes: null, true and false, and IDs with quotes, backslashes, control
// and HTML characters, line separators and invalid UTF-8 escaped as it escapes them.
func TestSplicedPageTails(t *testing.T) {
	str := func(s string) *string { return &s }
	enc := func(it string) []byte { return []byte(it) }
	for _, tc := range []struct {
		rest any
		want string
	}{
		{CursorPage[struct{}]{}, `{"data":["x"],"first_id":null,"has_more":false,"last_id":null}`},
		{CursorPage[struct{}]{FirstID: str("a_1"), HasMore: true, LastID: str("b_2")}, `{"data":["x"],"first_id":"a_1","has_more":true,"last_id":"b_2"}`},
		{CursorPage[struct{}]{FirstID: str("q\"b\\<&>"), LastID: str("t\tn\n\u2028é\xff")},
			`{"data":["x"],"first_id":"q\"b\\<&>","has_more":false,"last_id":"t\tn\n\u2028é\ufffd"}`},
		{TokenPage[struct{}]{}, `{"data":["x"],"next_page":null}`},
		{TokenPage[struct{}]{NextPage: str("eyJz.AbC-_")}, `{"data":["x"],"next_page":"eyJz.AbC-_"}`},
		{struct {
			Data  []int `json:"data"`
			Other int   `json:"other"`
		}{Other: 7}, `{"data":["x"],"other":7}`},
	} {
		e := SplicePage([]string{`"x"`}, enc, tc.rest)
		if got := e.Buf.String(); got != tc.want {
			t.Errorf("%T: %s, want %s", tc.rest, got, tc.want)
		}
		e.Release()
	}
}

// insertInOrder keeps a list sorted whether the new item belongs at the end (a create), in the
// middle or at the front (fixture data ahead of the clock), and puts it after equal keys.
func TestInsertInOrder(t *testing.T) {
	at := func(sec int, id string) ListKey { return ListKey{time.Unix(int64(sec), 0), id} }
	keyOf := func(k ListKey) ListKey { return k }
	var list []ListKey
	for _, k := range []ListKey{at(3, "c"), at(5, "e"), at(1, "a"), at(4, "d"), at(5, "e"), at(6, "f"), at(5, "d2")} {
		list = InsertInOrder(list, k, keyOf, OldestFirst)
	}
	var got []string
	for _, k := range list {
		got = append(got, fmt.Sprintf("%d%s", k.At.Unix(), k.ID))
	}
	if want := "1a 3c 4d 5d2 5e 5e 6f"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
	list = RemoveInOrder(RemoveInOrder(list, at(4, "d"), keyOf, OldestFirst), at(1, "a"), keyOf, OldestFirst)
	if len(list) != 5 || list[0] != at(3, "c") || list[1] != at(5, "d2") {
		t.Errorf("after removing 4d and 1a: %v, want 3c 5d2 5e 5e 6f", list)
	}
}
