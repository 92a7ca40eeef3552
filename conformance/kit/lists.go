package kit

import (
	"net/url"
	"slices"
	"strconv"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"
)

// maxPages bounds every walk, so a target whose list never ends fails the check instead of
// hanging the suite.
const maxPages = 10000

// WalkCursor follows a cursor-by-ID list (spec 2.1) forwards from r: page after page with after_id
// set to the previous page's last_id, limit items at a time (0: the target's default). items is
// the path of a page's items ("data"; "chat_messages" for a chat's messages). Every page must hold
// at most limit items and, while has_more is set, at least one. It returns every item in order.
func (t *T) WalkCursor(r Request, items string, limit int) []gjson.Result {
	r.Query = CloneQuery(r.Query)
	r.Query.Del("after_id")
	return t.walkCursor(r, items, limit, false)
}

// WalkCursorBackward follows a cursor-by-ID list backwards from r, which sets before_id: page
// after page with before_id set to the previous page's first_id, under the same rules as
// WalkCursor. It returns every item in list order, the earliest page first.
func (t *T) WalkCursorBackward(r Request, items string, limit int) []gjson.Result {
	r.Query = CloneQuery(r.Query)
	return t.walkCursor(r, items, limit, true)
}

func (t *T) walkCursor(r Request, items string, limit int, backward bool) []gjson.Result {
	if limit > 0 {
		r.Query.Set("limit", strconv.Itoa(limit))
	}
	var all []gjson.Result
	for range maxPages {
		resp := t.OK(r)
		data := resp.Get(items).Array()
		if limit > 0 {
			t.ExpectWithOffset(2, len(data)).To(BeNumerically("<=", limit), "a page holds at most limit items: %s", resp)
		}
		if backward {
			all = append(slices.Clone(data), all...)
		} else {
			all = append(all, data...)
		}
		if !resp.Get("has_more").Bool() {
			return all
		}
		t.ExpectWithOffset(2, data).NotTo(BeEmpty(), "has_more with an empty page: %s", resp)
		if backward {
			t.ExpectWithOffset(2, resp.Get("first_id").String()).To(Equal(data[0].Get("id").String()), "first_id is the ID of the page's first item: %s", resp)
			r.Query.Set("before_id", resp.Get("first_id").String())
		} else {
			r.Query.Set("after_id", resp.Get("last_id").String())
		}
	}
	t.Failf("%s did not end within %d pages", r.Path, maxPages)
	return nil
}

// WalkPages follows a page-token list (spec 2.1) from r: page after page with page set to the
// previous next_page, limit items at a time (0: the target's default). Every page must hold at
// most limit items, must not be empty while next_page is set (gaps §3), and where the page also
// says has_more, it must agree with next_page. It returns every item in order.
func (t *T) WalkPages(r Request, limit int) []gjson.Result {
	r.Query = CloneQuery(r.Query)
	if limit > 0 {
		r.Query.Set("limit", strconv.Itoa(limit))
	}
	r.Query.Del("page")
	var all []gjson.Result
	for range maxPages {
		resp := t.OK(r)
		data := resp.Get("data").Array()
		if limit > 0 {
			t.ExpectWithOffset(1, len(data)).To(BeNumerically("<=", limit), "a page holds at most limit items: %s", resp)
		}
		all = append(all, data...)
		next := resp.Get("next_page")
		if hm := resp.Get("has_more"); hm.Exists() {
			t.ExpectWithOffset(1, hm.Bool()).To(Equal(next.Type != gjson.Null), "has_more agrees with next_page: %s", resp)
		}
		if next.Type == gjson.Null {
			return all
		}
		t.ExpectWithOffset(1, data).NotTo(BeEmpty(), "an empty page with a next_page (gaps §3): %s", resp)
		r.Query.Set("page", next.String())
	}
	t.Failf("%s did not end within %d pages", r.Path, maxPages)
	return nil
}

// CloneQuery copies a query, so that walking does not change the caller's.
func CloneQuery(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// IDsOf returns the "id" of each item, in order.
func IDsOf(items []gjson.Result) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Get("id").String()
	}
	return out
}
