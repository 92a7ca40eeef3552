package fake

import (
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

func itemKey(i item) listKey { return listKey{i.at, i.id} }
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
	for _, cmp := range []order{oldestFirst, newestFirst} {
		list := items(11)
		slices.SortFunc(list, func(a, b item) int { return cmp(itemKey(a), itemKey(b)) })
		want := joinIDs(list)
		for limit := 1; limit <= 12; limit++ {
			var fwd []item
			q := cursorQuery{limit: limit}
			for {
				p, err := pageByCursor(list, itemKey, itemID, cmp, q, lookupIn(list, itemKey))
				if err != nil {
					t.Fatal(err)
				}
				fwd = append(fwd, p.Data...)
				if !p.HasMore {
					break
				}
				q.afterID = *p.LastID
			}
			if got := joinIDs(fwd); got != want {
				t.Fatalf("limit %d forwards: %s, want %s", limit, got, want)
			}
			var back []item
			q = cursorQuery{limit: limit, beforeID: list[len(list)-1].id}
			for {
				p, err := pageByCursor(list, itemKey, itemID, cmp, q, lookupIn(list, itemKey))
				if err != nil {
					t.Fatal(err)
				}
				back = append(slices.Clone(p.Data), back...)
				if !p.HasMore {
					break
				}
				q.beforeID = *p.FirstID
			}
			if got := joinIDs(back); got != joinIDs(list[:len(list)-1]) {
				t.Fatalf("limit %d backwards: %s", limit, got)
			}
		}
	}
}

func TestCursorPageEdges(t *testing.T) {
	list := items(4)
	lookup := lookupIn(list, itemKey)
	p, _ := pageByCursor(list, itemKey, itemID, oldestFirst, cursorQuery{afterID: "it_003", limit: 2}, lookup)
	if len(p.Data) != 0 || p.FirstID != nil || p.LastID != nil || p.HasMore {
		t.Fatalf("page after the last item = %+v, want empty with null cursors", p)
	}
	p, _ = pageByCursor(list, itemKey, itemID, oldestFirst, cursorQuery{}, lookup)
	if len(p.Data) != 4 || p.HasMore {
		t.Fatalf("no limit: %d items, has_more %v; want the whole list", len(p.Data), p.HasMore)
	}
	if _, err := pageByCursor(list, itemKey, itemID, oldestFirst, cursorQuery{afterID: "nope", limit: 2}, lookup); err == nil || !strings.Contains(err.Error(), "after_id") {
		t.Fatalf("unknown cursor: err = %v, want 400 naming after_id", err)
	}
	// A cursor whose item was deleted still marks its place.
	deleted := list[1]
	rest := slices.Delete(slices.Clone(list), 1, 2)
	tomb := func(id string) (listKey, bool) {
		if id == deleted.id {
			return itemKey(deleted), true
		}
		return lookupIn(rest, itemKey)(id)
	}
	p, _ = pageByCursor(rest, itemKey, itemID, oldestFirst, cursorQuery{afterID: deleted.id, limit: 10}, tomb)
	if got := joinIDs(p.Data); got != "it_002,it_003" {
		t.Fatalf("after a deleted item: %s", got)
	}
	p, _ = pageByCursor(rest, itemKey, itemID, oldestFirst, cursorQuery{beforeID: deleted.id, limit: 10}, tomb)
	if got := joinIDs(p.Data); got != "it_000" {
		t.Fatalf("before a deleted item: %s", got)
	}
}

func TestTokenPages(t *testing.T) {
	list := items(7)
	var all []item
	var after *listKey
	for {
		p := pageByToken(list, itemKey, oldestFirst, "things", after, 3)
		if len(p.Data) == 0 && p.NextPage != nil {
			t.Fatal("an empty page with a next_page")
		}
		all = append(all, p.Data...)
		if p.NextPage == nil {
			break
		}
		c := tokenCall(*p.NextPage)
		var err error
		if after, err = c.pageToken("things"); err != nil {
			t.Fatal(err)
		}
	}
	if joinIDs(all) != joinIDs(list) {
		t.Fatalf("token pages: %s", joinIDs(all))
	}
	if p := pageByToken(list, itemKey, oldestFirst, "things", nil, 7); p.NextPage != nil {
		t.Fatal("a page that holds the rest of the list has a next_page")
	}
}

func TestPageTokensRefuseForgeries(t *testing.T) {
	good := encodePageToken("things", listKey{Epoch(), "it_001"})
	if _, err := tokenCall(good).pageToken("things"); err != nil {
		t.Fatalf("a genuine token was refused: %v", err)
	}
	body, sig, _ := strings.Cut(good, ".")
	for name, tok := range map[string]string{
		"garbage":       "abc",
		"no signature":  body,
		"bad signature": body + ".AAAAAAAAAAAAAAAA",
		"edited body":   strings.Replace(body, "e", "f", 1) + "." + sig,
		"other list":    encodePageToken("other", listKey{Epoch(), "it_001"}),
	} {
		if _, err := tokenCall(tok).pageToken("things"); err == nil || !strings.Contains(err.Error(), "page:") {
			t.Errorf("%s: err = %v, want 400 naming page", name, err)
		}
	}
}

func tokenCall(tok string) *call {
	gc, _ := gin.CreateTestContext(httptest.NewRecorder())
	gc.Request = httptest.NewRequest("GET", "/?page="+tok, nil)
	return &call{x: &exchange{}, Context: gc, route: &route{in: in{query: tokenParams(20, 100)}}}
}

// TestKeptPageIsFlat: a filtered page reads the keys of a binary search, the page and the items
// it skips, not the list: counting keyOf calls and keep calls proves it without a timing.
func TestKeptPageIsFlat(t *testing.T) {
	for _, n := range []int{1_000, 100_000} {
		list := items(n)
		var keys, kept int
		keyOf := func(i item) listKey { keys++; return itemKey(i) }
		keep := func(i item) bool { kept++; return !strings.HasSuffix(i.id, "7") } // a tenth filtered out
		lookup := func(id string) (listKey, bool) { return listKey{Epoch().Add(time.Duration(n/4) * time.Second), id}, true }
		for _, q := range []cursorQuery{{afterID: "mid", limit: 20}, {beforeID: "mid", limit: 20}} {
			keys, kept = 0, 0
			page, err := pageKept(list, keep, keyOf, itemID, oldestFirst, q, lookup)
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
		{cursorPage[struct{}]{}, `{"data":["x"],"first_id":null,"has_more":false,"last_id":null}`},
		{cursorPage[struct{}]{FirstID: str("a_1"), HasMore: true, LastID: str("b_2")}, `{"data":["x"],"first_id":"a_1","has_more":true,"last_id":"b_2"}`},
		{cursorPage[struct{}]{FirstID: str("q\"b\\<&>"), LastID: str("t\tn\n\u2028é\xff")},
			`{"data":["x"],"first_id":"q\"b\\<&>","has_more":false,"last_id":"t\tn\n\u2028é\ufffd"}`},
		{tokenPage[struct{}]{}, `{"data":["x"],"next_page":null}`},
		{tokenPage[struct{}]{NextPage: str("eyJz.AbC-_")}, `{"data":["x"],"next_page":"eyJz.AbC-_"}`},
		{struct {
			Data  []int `json:"data"`
			Other int   `json:"other"`
		}{Other: 7}, `{"data":["x"],"other":7}`},
	} {
		e := splicePage([]string{`"x"`}, enc, tc.rest)
		if got := e.buf.String(); got != tc.want {
			t.Errorf("%T: %s, want %s", tc.rest, got, tc.want)
		}
		e.release()
	}
}

// insertInOrder keeps a list sorted whether the new item belongs at the end (a create), in the
// middle or at the front (fixture data ahead of the clock), and puts it after equal keys.
func TestInsertInOrder(t *testing.T) {
	at := func(sec int, id string) listKey { return listKey{time.Unix(int64(sec), 0), id} }
	keyOf := func(k listKey) listKey { return k }
	var list []listKey
	for _, k := range []listKey{at(3, "c"), at(5, "e"), at(1, "a"), at(4, "d"), at(5, "e"), at(6, "f"), at(5, "d2")} {
		list = insertInOrder(list, k, keyOf, oldestFirst)
	}
	var got []string
	for _, k := range list {
		got = append(got, fmt.Sprintf("%d%s", k.At.Unix(), k.ID))
	}
	if want := "1a 3c 4d 5d2 5e 5e 6f"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
	list = removeInOrder(removeInOrder(list, at(4, "d"), keyOf, oldestFirst), at(1, "a"), keyOf, oldestFirst)
	if len(list) != 5 || list[0] != at(3, "c") || list[1] != at(5, "d2") {
		t.Errorf("after removing 4d and 1a: %v, want 3c 5d2 5e 5e 6f", list)
	}
}
