package fake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"time"
)

// Both pagination families of spec 2.1, with the rules of gaps §3. A list is a slice sorted in
// list order by a listKey (a time and an ID); a position in it is a key, not an offset, so
// pages stay exact (nothing skipped, nothing repeated) while items are created and deleted.

// listKey is an item's place in a list: its sort time and its ID, which breaks ties.
type listKey struct {
	At time.Time `json:"t"`
	ID string    `json:"i"`
}

// order compares keys in a list's order: negative when a comes before b.
type order func(a, b listKey) int

// oldestFirst orders by time ascending, then ID ascending.
func oldestFirst(a, b listKey) int {
	if c := a.At.Compare(b.At); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// newestFirst orders by time descending, then ID descending: the exact reverse of oldestFirst,
// so the newest of several items created in the same instant (the highest ID) comes first.
func newestFirst(a, b listKey) int { return oldestFirst(b, a) }

// searchAfter returns the index of the first item that comes after k in the list (binary search).
func searchAfter[T any](items []T, keyOf func(T) listKey, cmp order, k listKey) int {
	return sort.Search(len(items), func(i int) bool { return cmp(keyOf(items[i]), k) > 0 })
}

// insertInOrder inserts v into items, sorted by cmp, after every item that sorts before it. A
// new item usually belongs at the end (a create, on a clock that only moves forward), which one
// comparison finds; not always: fixture data may lie ahead of the virtual clock.
func insertInOrder[T any](items []T, v T, keyOf func(T) listKey, cmp order) []T {
	k := keyOf(v)
	if len(items) == 0 || cmp(keyOf(items[len(items)-1]), k) <= 0 {
		return append(items, v)
	}
	return slices.Insert(items, searchAfter(items, keyOf, cmp, k), v)
}

// removeInOrder removes v, which is in items, from items sorted by cmp (keys are unique).
func removeInOrder[T any](items []T, v T, keyOf func(T) listKey, cmp order) []T {
	k := keyOf(v)
	i := sort.Search(len(items), func(i int) bool { return cmp(keyOf(items[i]), k) >= 0 })
	return slices.Delete(items, i, i+1)
}

// --- Cursor by ID: after_id, before_id, limit → data, first_id, last_id, has_more ---

// cursorQuery is the request half of cursor-by-ID pagination.
type cursorQuery struct {
	afterID, beforeID string
	limit             int // 0: no limit, the whole result set
}

// cursorQuery reads after_id, before_id and limit as the route declares them (cursorParams);
// a limit without a default means the whole set when absent. Giving both cursors is a 400.
func (c *call) cursorQuery() (cursorQuery, error) {
	q := cursorQuery{afterID: c.queryValue("after_id"), beforeID: c.queryValue("before_id")}
	if q.afterID != "" && q.beforeID != "" {
		return q, invalid("after_id and before_id: give at most one of them")
	}
	var err error
	q.limit, _, err = c.queryInt("limit")
	return q, err
}

// cursorPage is the response half: a page with the IDs of its first and last item (null when
// empty) and whether more items exist in the direction of travel.
type cursorPage[T any] struct {
	Data    []T     `json:"data"`
	FirstID *string `json:"first_id"`
	HasMore bool    `json:"has_more"`
	LastID  *string `json:"last_id"`
}

// pageByCursor cuts the page q asks for out of items, sorted by cmp. lookup returns the key of
// an ID used as a cursor: an item of the list, or one deleted from it (so an exporter that
// deletes as it goes can keep paging); an unknown cursor is a 400.
func pageByCursor[T any](items []T, keyOf func(T) listKey, idOf func(T) string, cmp order, q cursorQuery, lookup func(id string) (listKey, bool)) (cursorPage[T], error) {
	return pageKept(items, nil, keyOf, idOf, cmp, q, lookup)
}

// pageKept is pageByCursor over the items that keep selects (nil keeps all). It finds the
// cursor's place by binary search and walks from there, in the direction of travel, to one kept
// item past the page, so a page costs O(log n + page + the items skipped), however long the list.
func pageKept[T any](items []T, keep func(T) bool, keyOf func(T) listKey, idOf func(T) string, cmp order, q cursorQuery, lookup func(id string) (listKey, bool)) (cursorPage[T], error) {
	lo, hi := 0, len(items)
	switch {
	case q.afterID != "":
		k, ok := lookup(q.afterID)
		if !ok {
			return cursorPage[T]{}, invalidField("after_id", "%s is not a cursor of this list", quoted(q.afterID, maxExcerpt))
		}
		lo = searchAfter(items, keyOf, cmp, k)
	case q.beforeID != "":
		k, ok := lookup(q.beforeID)
		if !ok {
			return cursorPage[T]{}, invalidField("before_id", "%s is not a cursor of this list", quoted(q.beforeID, maxExcerpt))
		}
		hi = sort.Search(len(items), func(i int) bool { return cmp(keyOf(items[i]), k) >= 0 })
	}
	limit := q.limit
	if limit == 0 {
		limit = hi - lo
	}
	page := cursorPage[T]{Data: make([]T, 0, min(limit, hi-lo))}
	// Walking backwards from before_id collects the items just before the cursor.
	i, step := lo, 1
	if q.beforeID != "" {
		i, step = hi-1, -1
	}
	for ; i >= lo && i < hi; i += step {
		if keep != nil && !keep(items[i]) {
			continue
		}
		if len(page.Data) == limit {
			page.HasMore = true
			break
		}
		page.Data = append(page.Data, items[i])
	}
	if step < 0 {
		slices.Reverse(page.Data)
	}
	if n := len(page.Data); n > 0 {
		first, last := idOf(page.Data[0]), idOf(page.Data[n-1])
		page.FirstID, page.LastID = &first, &last
	}
	return page, nil
}

// encodedPage encodes a page whose items were encoded ahead of time (compact, as encodeRecord
// writes them), splicing their bytes in: encoding the page with its items as Marshalers would
// re-compact every item, and encoding them anew would reflect over every field, each of which
// cost more than the rest of the request. The page is assembled in a pooled buffer, which
// writeJSON writes and returns to the pool, so that a page costs no allocation of its size.
func encodedPage[T any](p cursorPage[T], encoded func(T) []byte) *encoder {
	return splicePage(p.Data, encoded, cursorPage[struct{}]{FirstID: p.FirstID, HasMore: p.HasMore, LastID: p.LastID})
}

// encodedTokenPage is encodedPage for a page-token list whose items are encoded once per change,
// on the first read after it (encode may fail, as encoding may).
func encodedTokenPage[T any](p tokenPage[T], encode func(T) (json.RawMessage, error)) (*encoder, error) {
	return spliceEncoded(p.Data, encode, tokenPage[struct{}]{NextPage: p.NextPage})
}

// encodedCursorPage is encodedTokenPage for a cursor-by-ID list.
func encodedCursorPage[T any](p cursorPage[T], encode func(T) (json.RawMessage, error)) (*encoder, error) {
	return spliceEncoded(p.Data, encode, cursorPage[struct{}]{FirstID: p.FirstID, HasMore: p.HasMore, LastID: p.LastID})
}

// splicePage is encodedPage for a page of any family: rest is the same page without its items
// (a struct whose first field is data, nil), which gives the fields after data.
func splicePage[T any](items []T, encoded func(T) []byte, rest any) *encoder {
	e, _ := spliceEncoded(items, func(it T) (json.RawMessage, error) { return encoded(it), nil }, rest)
	return e
}

// spliceEncoded is splicePage for items whose encoding may fail: the first error is answered,
// and the buffer goes back to the pool.
func spliceEncoded[T any](items []T, encode func(T) (json.RawMessage, error), rest any) (*encoder, error) {
	e := encoders.Get().(*encoder)
	e.buf.WriteString(`{"data":[`)
	for i, it := range items {
		b, err := encode(it)
		if err != nil {
			e.release()
			return nil, err
		}
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.buf.Write(b)
	}
	e.buf.WriteByte(']')
	// The fields after data, as writeJSON would encode them. The pages of the two families are
	// written field by field (reflecting over them cost as much as splicing twenty items); any
	// other rest is encoded, {"data":null,...}\n, after the items and moved back over its own
	// {"data":null.
	switch r := rest.(type) {
	case cursorPage[struct{}]:
		e.buf.WriteString(`,"first_id":`)
		e.appendStringOrNull(r.FirstID)
		if r.HasMore {
			e.buf.WriteString(`,"has_more":true,"last_id":`)
		} else {
			e.buf.WriteString(`,"has_more":false,"last_id":`)
		}
		e.appendStringOrNull(r.LastID)
		e.buf.WriteByte('}')
	case tokenPage[struct{}]:
		e.buf.WriteString(`,"next_page":`)
		e.appendStringOrNull(r.NextPage)
		e.buf.WriteByte('}')
	default:
		at := e.buf.Len()
		_ = e.enc.Encode(rest)
		b := e.buf.Bytes()
		e.buf.Truncate(at + copy(b[at:], b[at+len(`{"data":null`):len(b)-1]))
	}
	return e, nil
}

// appendStringOrNull writes *v as appendString does, or null for nil.
func (e *encoder) appendStringOrNull(v *string) {
	e.buf.Write(appendStringOrNull(e.buf.AvailableBuffer(), v))
}

// appendTime writes t as time.Time.MarshalJSON does, and false, writing nothing, for a time
// MarshalJSON refuses: a year outside [0,9999] or a zone's hour outside [0,23].
func (e *encoder) appendTime(t time.Time) bool {
	var a [48]byte
	b := t.AppendFormat(append(a[:0], '"'), time.RFC3339Nano)
	if b[5] != '-' { // the year is not four digits
		return false
	}
	if n := len(b); b[n-1] != 'Z' {
		if c := b[n-6]; ('0' <= c && c <= '9') || 10*(b[n-5]-'0')+(b[n-4]-'0') >= 24 {
			return false
		}
	}
	e.buf.Write(b)
	e.buf.WriteByte('"')
	return true
}

// appendString writes v as a JSON string as the encoder would (HTML characters not escaped).
func (e *encoder) appendString(v string) {
	e.buf.Write(appendJSONString(e.buf.AvailableBuffer(), v, false))
}

// lookupIn returns a cursor lookup over the items themselves, for lists without deletions.
func lookupIn[T any](items []T, keyOf func(T) listKey) func(string) (listKey, bool) {
	return func(id string) (listKey, bool) {
		for _, it := range items {
			if k := keyOf(it); k.ID == id {
				return k, true
			}
		}
		return listKey{}, false
	}
}

// --- Page token: page → next_page ---

// tokenPage is a page of the page-token family; NextPage is null on the last page, and a page
// is never empty while NextPage is set (gaps §3).
type tokenPage[T any] struct {
	Data     []T     `json:"data"`
	NextPage *string `json:"next_page"`
}

// tokenKey signs page tokens so that a forged or edited token is refused. Tokens must be the
// same from run to run (responses are deterministic), so the key is fixed.
var tokenKey = []byte("platformkit page token v1")

type tokenBody struct {
	Scope string  `json:"s"` // which list, so a token of one list is refused by another
	After listKey `json:"a"`
}

// encodePageToken returns an opaque token for "the items after k" in the list named scope.
func encodePageToken(scope string, k listKey) string {
	body, _ := json.Marshal(tokenBody{Scope: scope, After: k})
	mac := hmac.New(sha256.New, tokenKey)
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:12])
}

// pageToken reads the page parameter for the list named scope: nil when absent, and a 400 for a
// token that is malformed, forged, or from another list.
func (c *call) pageToken(scope string) (*listKey, error) {
	tok, ok := c.getQuery(c.declaredParam("page", pPage).name)
	if !ok || tok == "" {
		return nil, nil
	}
	bad := invalidField("page", "not a page token of this list; pass the next_page of a previous response unchanged")
	b64, sig, found := strings.Cut(tok, ".")
	body, err1 := base64.RawURLEncoding.DecodeString(b64)
	gotMAC, err2 := base64.RawURLEncoding.DecodeString(sig)
	if !found || err1 != nil || err2 != nil {
		return nil, bad
	}
	mac := hmac.New(sha256.New, tokenKey)
	mac.Write(body)
	if !hmac.Equal(gotMAC, mac.Sum(nil)[:12]) {
		return nil, bad
	}
	var tb tokenBody
	if json.Unmarshal(body, &tb) != nil || tb.Scope != scope {
		return nil, bad
	}
	return &tb.After, nil
}

// pageByTokenKept is pageByToken over the items that keep selects: it finds the token's place
// by binary search and walks from there to one kept item past the page, so a page costs
// O(log n + page + the items skipped) and the list needs no filtered copy.
func pageByTokenKept[T any](items []T, keep func(T) bool, keyOf func(T) listKey, cmp order, scope string, after *listKey, limit int) tokenPage[T] {
	lo := 0
	if after != nil {
		lo = searchAfter(items, keyOf, cmp, *after)
	}
	page := tokenPage[T]{Data: make([]T, 0, min(max(limit, 0), len(items)-lo))}
	if limit <= 0 {
		page.Data = make([]T, 0, len(items)-lo)
	}
	for _, it := range items[lo:] {
		if !keep(it) {
			continue
		}
		if limit > 0 && len(page.Data) == limit {
			next := encodePageToken(scope, keyOf(page.Data[limit-1]))
			page.NextPage = &next
			break
		}
		page.Data = append(page.Data, it)
	}
	return page
}

// pageNewestKept is pageByTokenKept for a list kept oldest first, so that a new item is
// appended rather than moving every other, and paged newest first: it walks back from the
// token's place (the items older than its key).
func pageNewestKept[T any](items []T, keep func(T) bool, keyOf func(T) listKey, scope string, after *listKey, limit int) tokenPage[T] {
	hi := len(items)
	if after != nil {
		hi = sort.Search(len(items), func(i int) bool { return oldestFirst(keyOf(items[i]), *after) >= 0 })
	}
	page := tokenPage[T]{Data: make([]T, 0, min(max(limit, 0), hi))}
	if limit <= 0 {
		page.Data = make([]T, 0, hi)
	}
	for i := hi - 1; i >= 0; i-- {
		if !keep(items[i]) {
			continue
		}
		if limit > 0 && len(page.Data) == limit {
			next := encodePageToken(scope, keyOf(page.Data[limit-1]))
			page.NextPage = &next
			break
		}
		page.Data = append(page.Data, items[i])
	}
	return page
}

// pageByToken cuts a page of at most limit items (0: all) from items, sorted by cmp, starting
// after the token's key, and sets NextPage when more remain.
func pageByToken[T any](items []T, keyOf func(T) listKey, cmp order, scope string, after *listKey, limit int) tokenPage[T] {
	lo := 0
	if after != nil {
		lo = searchAfter(items, keyOf, cmp, *after)
	}
	hi := len(items)
	if limit > 0 && hi-lo > limit {
		hi = lo + limit
	}
	page := tokenPage[T]{Data: make([]T, 0, hi-lo)}
	page.Data = append(page.Data, items[lo:hi]...)
	if hi < len(items) {
		next := encodePageToken(scope, keyOf(items[hi-1]))
		page.NextPage = &next
	}
	return page
}
