package core

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"hash"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Both pagination families of spec 2.1, with the rules of gaps §3. A list is a slice sorted in
// list order by a listKey (a time and an ID); a position in it is a key, not an offset, so
// pages stay exact (nothing skipped, nothing repeated) while items are created and deleted.

// ListKey is an item's place in a list: its sort time and its ID, which breaks ties.
type ListKey struct {
	At time.Time `json:"t"`
	ID string    `json:"i"`
}

// Order compares keys in a list's order: negative when a comes before b.
type Order func(a, b ListKey) int

// OldestFirst orders by time ascending, then ID ascending.
func OldestFirst(a, b ListKey) int {
	if c := a.At.Compare(b.At); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// NewestFirst orders by time descending, then ID descending: the exact reverse of oldestFirst,
// so the newest of several items created in the same instant (the highest ID) comes first.
func NewestFirst(a, b ListKey) int { return OldestFirst(b, a) }

// SearchAfter returns the index of the first item that comes after k in the list (binary search).
func SearchAfter[T any](items []T, keyOf func(T) ListKey, cmp Order, k ListKey) int {
	return sort.Search(len(items), func(i int) bool { return cmp(keyOf(items[i]), k) > 0 })
}

// InsertInOrder inserts v into items, sorted by cmp, after every item that sorts before it. A
// new item usually belongs at the end (a create, on a clock that only moves forward), which one
// comparison finds; not always: fixture data may lie ahead of the virtual clock.
func InsertInOrder[T any](items []T, v T, keyOf func(T) ListKey, cmp Order) []T {
	k := keyOf(v)
	if len(items) == 0 || cmp(keyOf(items[len(items)-1]), k) <= 0 {
		return append(items, v)
	}
	return slices.Insert(items, SearchAfter(items, keyOf, cmp, k), v)
}

// RemoveInOrder removes v, which is in items, from items sorted by cmp (keys are unique).
func RemoveInOrder[T any](items []T, v T, keyOf func(T) ListKey, cmp Order) []T {
	k := keyOf(v)
	i := sort.Search(len(items), func(i int) bool { return cmp(keyOf(items[i]), k) >= 0 })
	return slices.Delete(items, i, i+1)
}

// --- Cursor by ID: after_id, before_id, limit → data, first_id, last_id, has_more ---

// CursorQuery is the request half of cursor-by-ID pagination.
type CursorQuery struct {
	AfterID, BeforeID string
	Limit             int // 0: no limit, the whole result set
}

// CursorQuery reads after_id, before_id and limit as the route declares them (cursorParams);
// a limit without a default means the whole set when absent. Giving both cursors is a 400.
func (c *Call) CursorQuery() (CursorQuery, error) {
	q := CursorQuery{AfterID: c.QueryValue("after_id"), BeforeID: c.QueryValue("before_id")}
	if q.AfterID != "" && q.BeforeID != "" {
		return q, Invalid("after_id and before_id: give at most one of them")
	}
	var err error
	q.Limit, _, err = c.QueryInt("limit")
	return q, err
}

// CursorPage is the response half: a page with the IDs of its first and last item (null when
// empty) and whether more items exist in the direction of travel.
type CursorPage[T any] struct {
	Data    []T     `json:"data"`
	FirstID *string `json:"first_id"`
	HasMore bool    `json:"has_more"`
	LastID  *string `json:"last_id"`
}

// PageByCursor cuts the page q asks for out of items, sorted by cmp. lookup returns the key of
// an ID used as a cursor: an item of the list, or one deleted from it (so an exporter that
// deletes as it goes can keep paging); an unknown cursor is a 400.
func PageByCursor[T any](items []T, keyOf func(T) ListKey, idOf func(T) string, cmp Order, q CursorQuery, lookup func(id string) (ListKey, bool)) (CursorPage[T], error) {
	return PageKept(items, nil, keyOf, idOf, cmp, q, lookup)
}

// PageKept is pageByCursor over the items that keep selects (nil keeps all). It finds the
// cursor's place by binary search and walks from there, in the direction of travel, to one kept
// item past the page, so a page costs O(log n + page + the items skipped), however long the list.
func PageKept[T any](items []T, keep func(T) bool, keyOf func(T) ListKey, idOf func(T) string, cmp Order, q CursorQuery, lookup func(id string) (ListKey, bool)) (CursorPage[T], error) {
	lo, hi := 0, len(items)
	switch {
	case q.AfterID != "":
		k, ok := lookup(q.AfterID)
		if !ok {
			return CursorPage[T]{}, InvalidField("after_id", "%s is not a cursor of this list", Quoted(q.AfterID, MaxExcerpt))
		}
		lo = SearchAfter(items, keyOf, cmp, k)
	case q.BeforeID != "":
		k, ok := lookup(q.BeforeID)
		if !ok {
			return CursorPage[T]{}, InvalidField("before_id", "%s is not a cursor of this list", Quoted(q.BeforeID, MaxExcerpt))
		}
		hi = sort.Search(len(items), func(i int) bool { return cmp(keyOf(items[i]), k) >= 0 })
	}
	limit := q.Limit
	if limit == 0 {
		limit = hi - lo
	}
	page := CursorPage[T]{Data: make([]T, 0, min(limit, hi-lo))}
	// Walking backwards from before_id collects the items just before the cursor.
	i, step := lo, 1
	if q.BeforeID != "" {
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

// EncodedPage encodes a page whose items were encoded ahead of time (compact, as encodeRecord
// writes them), splicing their bytes in: encoding the page with its items as Marshalers would
// re-compact every item, and encoding them anew would reflect over every field, each of which
// cost more than the rest of the request. The page is assembled in a pooled buffer, which
// writeJSON writes and returns to the pool, so that a page costs no allocation of its size.
func EncodedPage[T any](p CursorPage[T], encoded func(T) []byte) *Encoder {
	return SplicePage(p.Data, encoded, CursorPage[struct{}]{FirstID: p.FirstID, HasMore: p.HasMore, LastID: p.LastID})
}

// EncodedTokenPage is encodedPage for a page-token list whose items are encoded once per change,
// on the first read after it (encode may fail, as encoding may).
func EncodedTokenPage[T any](p TokenPage[T], encode func(T) (json.RawMessage, error)) (*Encoder, error) {
	return SpliceEncoded(p.Data, encode, TokenPage[struct{}]{NextPage: p.NextPage})
}

// EncodedCursorPage is encodedTokenPage for a cursor-by-ID list.
func EncodedCursorPage[T any](p CursorPage[T], encode func(T) (json.RawMessage, error)) (*Encoder, error) {
	return SpliceEncoded(p.Data, encode, CursorPage[struct{}]{FirstID: p.FirstID, HasMore: p.HasMore, LastID: p.LastID})
}

// SplicePage is encodedPage for a page of any family: rest is the same page without its items
// (a struct whose first field is data, nil), which gives the fields after data.
func SplicePage[T any](items []T, encoded func(T) []byte, rest any) *Encoder {
	e, _ := SpliceEncoded(items, func(it T) (json.RawMessage, error) { return encoded(it), nil }, rest)
	return e
}

// SpliceEncoded is SplicePage for items whose encoding may fail: the first error is answered,
// and the buffer goes back to the pool.
func SpliceEncoded[T any](items []T, encode func(T) (json.RawMessage, error), rest any) (*Encoder, error) {
	e := Encoders.Get().(*Encoder)
	e.Buf.WriteString(`{"data":[`)
	for i, it := range items {
		b, err := encode(it)
		if err != nil {
			e.Release()
			return nil, err
		}
		if i > 0 {
			e.Buf.WriteByte(',')
		}
		e.Buf.Write(b)
	}
	e.Buf.WriteByte(']')
	// The fields after data, as writeJSON would encode them. The pages of the two families are
	// written field by field (reflecting over them cost as much as splicing twenty items); any
	// other rest is encoded, {"data":null,...}\n, after the items and moved back over its own
	// {"data":null.
	switch r := rest.(type) {
	case CursorPage[struct{}]:
		e.Buf.WriteString(`,"first_id":`)
		e.appendStringOrNull(r.FirstID)
		if r.HasMore {
			e.Buf.WriteString(`,"has_more":true,"last_id":`)
		} else {
			e.Buf.WriteString(`,"has_more":false,"last_id":`)
		}
		e.appendStringOrNull(r.LastID)
		e.Buf.WriteByte('}')
	case TokenPage[struct{}]:
		e.Buf.WriteString(`,"next_page":`)
		e.appendStringOrNull(r.NextPage)
		e.Buf.WriteByte('}')
	default:
		at := e.Buf.Len()
		_ = e.enc.Encode(rest)
		b := e.Buf.Bytes()
		e.Buf.Truncate(at + copy(b[at:], b[at+len(`{"data":null`):len(b)-1]))
	}
	return e, nil
}

// appendStringOrNull writes *v as appendString does, or null for nil.
func (e *Encoder) appendStringOrNull(v *string) {
	e.Buf.Write(AppendStringOrNull(e.Buf.AvailableBuffer(), v))
}

// AppendTime writes t as time.Time.MarshalJSON does, and false, writing nothing, for a time
// MarshalJSON refuses: a year outside [0,9999] or a zone's hour outside [0,23].
func (e *Encoder) AppendTime(t time.Time) bool {
	var a [48]byte
	b, ok := appendJSONTime(a[:0], t)
	if ok {
		e.Buf.Write(b)
	}
	return ok
}

// AppendString writes v as a JSON string as the encoder would (HTML characters not escaped).
func (e *Encoder) AppendString(v string) {
	e.Buf.Write(AppendJSONString(e.Buf.AvailableBuffer(), v, false))
}

// LookupIn returns a cursor lookup over the items themselves, for lists without deletions.
func LookupIn[T any](items []T, keyOf func(T) ListKey) func(string) (ListKey, bool) {
	return func(id string) (ListKey, bool) {
		for _, it := range items {
			if k := keyOf(it); k.ID == id {
				return k, true
			}
		}
		return ListKey{}, false
	}
}

// --- Page token: page → next_page ---

// TokenPage is a page of the page-token family; NextPage is null on the last page, and a page
// is never empty while NextPage is set (gaps §3).
type TokenPage[T any] struct {
	Data     []T     `json:"data"`
	NextPage *string `json:"next_page"`
}

// tokenKey signs page tokens so that a forged or edited token is refused. Tokens must be the
// same from run to run (responses are deterministic), so the key is fixed.
var tokenKey = []byte("platformkit page token v1")

type tokenBody struct {
	Scope string  `json:"s"` // which list, so a token of one list is refused by another
	After ListKey `json:"a"`
}

// EncodePageToken returns an opaque token for "the items after k" in the list named scope.
// Every page that has a next one makes a token, so it writes the body itself, as json.Marshal
// of a tokenBody would (TestPageTokenBodyAsMarshal), and signs it with a keyed MAC from a pool:
// the reflection and the two hashes keyed anew were a third of a page of twenty events.
func EncodePageToken(scope string, k ListKey) string {
	t := tokenSigners.Get().(*tokenSigner)
	defer tokenSigners.Put(t)
	t.body = appendTokenBody(t.body[:0], scope, k)
	// A client reading the same page again (polling a list) asks for the same token: the
	// signer remembers the last body it signed and its token, and spares the MAC.
	if t.last != "" && bytes.Equal(t.body, t.lastBody) {
		return t.last
	}
	t.mac.Reset()
	t.mac.Write(t.body)
	sum := t.mac.Sum(t.sum[:0])
	enc := base64.RawURLEncoding
	t.out = append(enc.AppendEncode(t.out[:0], t.body), '.')
	t.out = enc.AppendEncode(t.out, sum[:12])
	t.last, t.lastBody = string(t.out), append(t.lastBody[:0], t.body...)
	return t.last
}

// tokenSigner is an HMAC keyed with tokenKey, reset before each use, and the buffers of a
// token, which passed to the hash would each be an allocation.
type tokenSigner struct {
	mac            hash.Hash
	body, sum, out []byte
	lastBody       []byte // the body signed last, and its token
	last           string
}

var tokenSigners = sync.Pool{New: func() any {
	return &tokenSigner{mac: hmac.New(sha256.New, tokenKey), body: make([]byte, 0, 160), sum: make([]byte, 0, sha256.Size), out: make([]byte, 0, 256)}
}}

// appendTokenBody appends json.Marshal(tokenBody{scope, k}), or returns nil, as json.Marshal
// does, for a time that time.Time.MarshalJSON refuses.
func appendTokenBody(dst []byte, scope string, k ListKey) []byte {
	dst = AppendJSONString(append(dst, `{"s":`...), scope, true)
	dst, ok := appendJSONTime(append(dst, `,"a":{"t":`...), k.At)
	if !ok {
		return nil
	}
	dst = AppendJSONString(append(dst, `,"i":`...), k.ID, true)
	return append(dst, "}}"...)
}

// appendJSONTime appends t as time.Time.MarshalJSON does, and false for a time it refuses: a
// year outside [0,9999] or a zone's hour outside [0,23].
func appendJSONTime(dst []byte, t time.Time) ([]byte, bool) {
	at := len(dst)
	dst = t.AppendFormat(append(dst, '"'), time.RFC3339Nano)
	b := dst[at:]
	if b[5] != '-' { // the year is not four digits
		return nil, false
	}
	if n := len(b); b[n-1] != 'Z' {
		if c := b[n-6]; ('0' <= c && c <= '9') || 10*(b[n-5]-'0')+(b[n-4]-'0') >= 24 {
			return nil, false
		}
	}
	return append(dst, '"'), true
}

// ListQuery is what every page-token list reads of its query: limit, include_archived (false
// for a list without it) and the page to continue after (nil: the first).
type ListQuery struct {
	Limit    int
	Archived bool
	After    *ListKey
}

// ListQuery reads limit, then include_archived when archived is set (the list has it), then the
// page token of the list named scope: the first that is wrong is the error.
func (c *Call) ListQuery(scope string, archived bool) (q ListQuery, err error) {
	if q.Limit, _, err = c.QueryInt("limit"); err != nil {
		return q, err
	}
	if archived {
		if q.Archived, err = c.QueryBool("include_archived"); err != nil {
			return q, err
		}
	}
	q.After, err = c.PageToken(scope)
	return q, err
}

// PageToken reads the page parameter for the list named scope: nil when absent, and a 400 for a
// token that is malformed, forged, or from another list.
func (c *Call) PageToken(scope string) (*ListKey, error) {
	tok, ok := c.getQuery(c.DeclaredParam("page", pPage).Name)
	if !ok || tok == "" {
		return nil, nil
	}
	bad := InvalidField("page", "not a page token of this list; pass the next_page of a previous response unchanged")
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

// PageByTokenKept is pageByToken over the items that keep selects: it finds the token's place
// by binary search and walks from there to one kept item past the page, so a page costs
// O(log n + page + the items skipped) and the list needs no filtered copy.
func PageByTokenKept[T any](items []T, keep func(T) bool, keyOf func(T) ListKey, cmp Order, scope string, after *ListKey, limit int) TokenPage[T] {
	lo := 0
	if after != nil {
		lo = SearchAfter(items, keyOf, cmp, *after)
	}
	page := TokenPage[T]{Data: make([]T, 0, min(max(limit, 0), len(items)-lo))}
	if limit <= 0 {
		page.Data = make([]T, 0, len(items)-lo)
	}
	for _, it := range items[lo:] {
		if !keep(it) {
			continue
		}
		if limit > 0 && len(page.Data) == limit {
			next := EncodePageToken(scope, keyOf(page.Data[limit-1]))
			page.NextPage = &next
			break
		}
		page.Data = append(page.Data, it)
	}
	return page
}

// PageNewestKept is pageByTokenKept for a list kept oldest first, so that a new item is
// appended rather than moving every other, and paged newest first: it walks back from the
// token's place (the items older than its key).
func PageNewestKept[T any](items []T, keep func(T) bool, keyOf func(T) ListKey, scope string, after *ListKey, limit int) TokenPage[T] {
	hi := len(items)
	if after != nil {
		hi = sort.Search(len(items), func(i int) bool { return OldestFirst(keyOf(items[i]), *after) >= 0 })
	}
	page := TokenPage[T]{Data: make([]T, 0, min(max(limit, 0), hi))}
	if limit <= 0 {
		page.Data = make([]T, 0, hi)
	}
	for i := hi - 1; i >= 0; i-- {
		if !keep(items[i]) {
			continue
		}
		if limit > 0 && len(page.Data) == limit {
			next := EncodePageToken(scope, keyOf(page.Data[limit-1]))
			page.NextPage = &next
			break
		}
		page.Data = append(page.Data, items[i])
	}
	return page
}

// PageByToken cuts a page of at most limit items (0: all) from items, sorted by cmp, starting
// after the token's key, and sets NextPage when more remain.
func PageByToken[T any](items []T, keyOf func(T) ListKey, cmp Order, scope string, after *ListKey, limit int) TokenPage[T] {
	page := PageByTokenIn(items, keyOf, cmp, scope, after, limit)
	page.Data = append(make([]T, 0, len(page.Data)), page.Data...) // never nil: an empty page is "data":[]
	return page
}

// PageByTokenIn is PageByToken whose Data is items' own span, not a copy: for a page encoded
// while the caller still holds the lock that guards items (EncodedTokenPage), which a copy of
// twenty records made only to be read once would cost as much as its encoding.
func PageByTokenIn[T any](items []T, keyOf func(T) ListKey, cmp Order, scope string, after *ListKey, limit int) TokenPage[T] {
	lo := 0
	if after != nil {
		lo = SearchAfter(items, keyOf, cmp, *after)
	}
	hi := len(items)
	if limit > 0 && hi-lo > limit {
		hi = lo + limit
	}
	page := TokenPage[T]{Data: items[lo:hi:hi]}
	if hi < len(items) {
		next := EncodePageToken(scope, keyOf(items[hi-1]))
		page.NextPage = &next
	}
	return page
}
