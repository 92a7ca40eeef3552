package core

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Query parameters. Unknown parameters are ignored (gaps §2). A route's line in the route table
// declares every parameter its handler reads (type, range, default, allowed values); the helpers
// below take those from the declaration, so the behaviour and the OpenAPI document, which is
// generated from the same declarations, cannot disagree. A malformed or out-of-range value is a
// 400 naming the parameter.

// paramKind is the type of a query parameter.
type paramKind int

const (
	PString  paramKind = iota // any string
	PStrings                  // a list: name=a&name=b, name[]=a&name[]=b or name=a,b (gaps §2)
	pInt                      // an integer in [min, max]
	pNumber                   // a finite number in (min, max]
	pBool                     // true or false (also 1 or 0)
	pEnum                     // one of enum
	pTime                     // an RFC 3339 timestamp
	pPage                     // an opaque page token (spec 2.1)
)

// Param declares one query parameter of a route.
type Param struct {
	Name     string
	Kind     paramKind
	Doc      string
	def      any // the value when absent (int, float64, bool or string), nil when absence means "none"
	min, max float64
	enum     []string
	Required bool // the handler refuses a request without it
	MaxItems int  // pStrings: the most values the handler accepts (0: no limit)
}

// Query joins parameter declarations into a route's list.
func Query(groups ...[]Param) []Param {
	var out []Param
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func StrParam(name, doc string) []Param { return []Param{{Name: name, Kind: PString, Doc: doc}} }

func ListParam(name, doc string) []Param { return []Param{{Name: name, Kind: PStrings, Doc: doc}} }

// IntParam declares an integer in [min, max]; def outside the range means "no default".
func IntParam(name string, def, min, max int, doc string) []Param {
	p := Param{Name: name, Kind: pInt, Doc: doc, min: float64(min), max: float64(max)}
	if def >= min && def <= max {
		p.def = def
	}
	return []Param{p}
}

// NumberParam declares a finite number greater than min and at most max (math.MaxFloat64: no
// upper bound).
func NumberParam(name string, def, min, max float64, doc string) []Param {
	return []Param{{Name: name, Kind: pNumber, Doc: doc, def: def, min: min, max: max}}
}

func BoolParam(name string, def bool, doc string) []Param {
	return []Param{{Name: name, Kind: pBool, Doc: doc, def: def}}
}

// EnumParam declares a parameter that takes one of allowed; def "" means no default.
func EnumParam(name, def, doc string, allowed ...string) []Param {
	p := Param{Name: name, Kind: pEnum, Doc: doc, enum: allowed}
	if def != "" {
		p.def = def
	}
	return []Param{p}
}

// TimeParams declares the bounds name[gt], name[gte], name[lt], name[lte] (or only ops).
func TimeParams(name string, ops ...string) []Param {
	if len(ops) == 0 {
		ops = []string{"gt", "gte", "lt", "lte"}
	}
	words := map[string]string{"gt": "after", "gte": "at or after", "lt": "before", "lte": "at or before"}
	out := make([]Param, len(ops))
	for i, op := range ops {
		out[i] = Param{Name: name + "[" + op + "]", Kind: pTime, Doc: "Only items whose " + name + " is " + words[op] + " this RFC 3339 time."}
	}
	return out
}

// limitParam declares limit in [1, max]; def 0 means that without it the whole list is one page.
func limitParam(def, max int) []Param {
	doc := "The most items a page holds."
	if def == 0 {
		doc += " Without it, every item is in one page."
	}
	return IntParam("limit", def, 1, max, doc)
}

// CursorParams declares cursor-by-ID pagination (spec 2.1): after_id, before_id and limit.
func CursorParams(def, max int) []Param {
	return Query(
		StrParam("after_id", "The page after the item with this ID (the last_id of the previous page)."),
		StrParam("before_id", "The page before the item with this ID (the first_id of the next page); at most one of after_id and before_id."),
		limitParam(def, max))
}

// TokenParams declares page-token pagination (spec 2.1): page and limit.
func TokenParams(def, max int) []Param {
	return Query(
		[]Param{{Name: "page", Kind: pPage, Doc: "The next_page of the previous response, unchanged."}},
		limitParam(def, max))
}

// DeclaredParam returns the declaration of the route's query parameter name. Reading a parameter the
// route does not declare is a bug in the fake (the document would not describe it): it panics,
// which the server reports as a violation.
func (c *Call) DeclaredParam(name string, kind paramKind) *Param {
	for i := range c.Route.Query {
		if p := &c.Route.Query[i]; p.Name == name && p.Kind == kind {
			return p
		}
	}
	panic(fmt.Sprintf("%s %s reads the query parameter %q, which its line of the route table does not declare as that kind", c.Route.Method, c.Route.Path, name))
}

// DeclaredHeader reads a request header the route declares (in.headers); "" when absent. Like a query
// parameter, a header the route does not declare cannot be read: it panics.
func (c *Call) DeclaredHeader(name string) string {
	for _, p := range c.Route.Headers {
		if p.Name == name {
			return c.GetHeader(name)
		}
	}
	panic(fmt.Sprintf("%s %s reads the header %q, which its line of the route table does not declare", c.Route.Method, c.Route.Path, name))
}

// QueryArg is one parameter of a request's query.
type QueryArg struct{ Key, Value string }

// MaxScannedArgs bounds the query that queryArgs parses itself: one of more parameters is read
// through gin's url.Values, which applies net/url's limit on their number.
const MaxScannedArgs = 64

// queryArgs returns the request's query parameters in order, as url.ParseQuery reads them (pairs
// with a semicolon or an escape that does not decode are left out), parsed on the first call;
// ok is false for a query of more than maxScannedArgs parameters, read with gin's GetQuery and
// QueryArray instead. A few pairs scanned in order cost no allocation where gin's cache, a map of
// slices, costs one per parameter and the map.
func (c *Call) queryArgs() (args []QueryArg, ok bool) {
	if !c.argsParsed {
		c.argsParsed = true
		raw := c.Request.URL.RawQuery
		if strings.Count(raw, "&") < MaxScannedArgs {
			c.args, c.argsOwn = ParseQueryArgs(c.argsBuf[:0], raw), true
		}
	}
	return c.args, c.argsOwn
}

// ParseQueryArgs appends the parameters of raw to args as url.ParseQuery reads them.
func ParseQueryArgs(args []QueryArg, raw string) []QueryArg {
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, err1 := url.QueryUnescape(k)
		v, err2 := url.QueryUnescape(v)
		if err1 == nil && err2 == nil {
			args = append(args, QueryArg{k, v})
		}
	}
	return args
}

// getQuery is gin's GetQuery over queryArgs: the first value of key, and whether there is one.
func (c *Call) getQuery(key string) (string, bool) {
	args, ok := c.queryArgs()
	if !ok {
		v, ok := c.GetQuery(key)
		return Canonical(key, v), ok
	}
	for _, a := range args {
		if a.Key == key {
			return Canonical(key, a.Value), true
		}
	}
	return "", false
}

// QueryString reads a string parameter; ok reports presence.
func (c *Call) QueryString(name string) (v string, ok bool) {
	return c.getQuery(c.DeclaredParam(name, PString).Name)
}

// QueryValue reads a string parameter; "" when absent.
func (c *Call) QueryValue(name string) string {
	v, _ := c.QueryString(name)
	return v
}

// QueryInt reads an integer parameter in its declared range; its default when absent. set
// reports presence.
func (c *Call) QueryInt(name string) (v int, set bool, err error) {
	p := c.DeclaredParam(name, pInt)
	raw, ok := c.getQuery(name)
	if !ok {
		def, _ := p.def.(int)
		return def, false, nil
	}
	n, perr := strconv.Atoi(strings.TrimSpace(raw))
	if perr != nil || float64(n) < p.min || float64(n) > p.max {
		return 0, true, InvalidField(name, "must be an integer from %d to %d, got %s", int(p.min), int(p.max), Quoted(raw, MaxExcerpt))
	}
	return n, true, nil
}

// QueryBool reads a boolean parameter ("true" or "false"); its default when absent.
func (c *Call) QueryBool(name string) (bool, error) {
	p := c.DeclaredParam(name, pBool)
	raw, ok := c.getQuery(name)
	if !ok {
		def, _ := p.def.(bool)
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, InvalidField(name, "must be true or false, got %s", Quoted(raw, MaxExcerpt))
}

// QueryEnum reads a parameter that must be one of its declared values; its default ("" if none)
// when absent.
func (c *Call) QueryEnum(name string) (string, error) {
	p := c.DeclaredParam(name, pEnum)
	raw, ok := c.getQuery(name)
	if !ok {
		def, _ := p.def.(string)
		return def, nil
	}
	for _, a := range p.enum {
		if raw == a {
			return raw, nil
		}
	}
	return "", InvalidField(name, "must be one of %s, got %s", strings.Join(p.enum, ", "), Quoted(raw, MaxExcerpt))
}

// QueryStrings reads an array parameter in any of the forms clients send (gaps §2):
// name[]=a&name[]=b, name=a&name=b, and name=a,b. Empty items are dropped. It reads gin's
// parsed query, which every other parameter reads too: parsing the query again per array
// parameter cost a compliance chat list a tenth of its time.
func (c *Call) QueryStrings(name string) []string {
	c.DeclaredParam(name, PStrings)
	var out []string
	add := func(v string) {
		for v != "" {
			var item string
			item, v, _ = strings.Cut(v, ",")
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, Canonical(name, item))
			}
		}
	}
	args, ok := c.queryArgs()
	if !ok {
		for _, key := range []string{name, name + "[]"} {
			for _, v := range c.QueryArray(key) {
				add(v)
			}
		}
		return out
	}
	// name=, then name[]=, each in the order sent.
	for _, a := range args {
		if a.Key == name {
			add(a.Value)
		}
	}
	for _, a := range args {
		if len(a.Key) == len(name)+2 && strings.HasPrefix(a.Key, name) && strings.HasSuffix(a.Key, "[]") {
			add(a.Value)
		}
	}
	return out
}

// queryTime reads an RFC 3339 timestamp parameter; nil when absent.
func (c *Call) queryTime(name string) (*time.Time, error) {
	return c.queryTimeOf(c.DeclaredParam(name, pTime).Name)
}

// queryTimeOf is queryTime for the declared parameter name.
func (c *Call) queryTimeOf(name string) (*time.Time, error) {
	raw, ok := c.getQuery(name)
	if !ok {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(raw))
	if err != nil {
		return nil, InvalidField(name, "must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z, got %s", Quoted(raw, MaxExcerpt))
	}
	return &t, nil
}

// TimeRange is a filter of the form name[gt], name[gte], name[lt], name[lte]; zero matches all.
type TimeRange struct{ Gt, Gte, Lt, Lte *time.Time }

// QueryTimeRange reads the bounds of name the route declares (see timeParams).
func (c *Call) QueryTimeRange(name string) (TimeRange, error) {
	var r TimeRange
	if args, ok := c.queryArgs(); ok && !slices.ContainsFunc(args, func(a QueryArg) bool { return strings.HasPrefix(a.Key, name) }) {
		return r, nil // none of its bounds was sent: the usual list request
	}
	for _, b := range []struct {
		op string
		at **time.Time
	}{{"gt", &r.Gt}, {"gte", &r.Gte}, {"lt", &r.Lt}, {"lte", &r.Lte}} {
		p := c.declaredBound(name, b.op)
		if p == "" {
			continue
		}
		t, err := c.queryTimeOf(p)
		if err != nil {
			return r, err
		}
		*b.at = t
	}
	return r, nil
}

// declaredBound returns the name of the route's query parameter name[op], "" when the route does
// not declare it; the declaration's own string, so that reading the bound builds none.
func (c *Call) declaredBound(name, op string) string {
	for _, p := range c.Route.Query {
		if n := p.Name; len(n) == len(name)+len(op)+2 && strings.HasPrefix(n, name) && n[len(name)] == '[' &&
			n[len(name)+1:len(n)-1] == op && n[len(n)-1] == ']' {
			return n
		}
	}
	return ""
}

// Contains reports whether t satisfies every bound of the range.
func (r TimeRange) Contains(t time.Time) bool {
	return (r.Gt == nil || t.After(*r.Gt)) &&
		(r.Gte == nil || !t.Before(*r.Gte)) &&
		(r.Lt == nil || t.Before(*r.Lt)) &&
		(r.Lte == nil || !t.After(*r.Lte))
}

// Within is the span [lo, hi) of items, sorted by the time at gives, whose times r contains,
// found by binary search: a list kept in created_at order pages a created_at range without
// walking past the items before it.
func Within[T any](items []T, at func(T) time.Time, r TimeRange) (lo, hi int) {
	first := func(pred func(t time.Time) bool) int {
		return sort.Search(len(items), func(i int) bool { return pred(at(items[i])) })
	}
	lo, hi = 0, len(items)
	if r.Gt != nil {
		lo = max(lo, first(func(t time.Time) bool { return t.After(*r.Gt) }))
	}
	if r.Gte != nil {
		lo = max(lo, first(func(t time.Time) bool { return !t.Before(*r.Gte) }))
	}
	if r.Lt != nil {
		hi = min(hi, first(func(t time.Time) bool { return !t.Before(*r.Lt) }))
	}
	if r.Lte != nil {
		hi = min(hi, first(func(t time.Time) bool { return t.After(*r.Lte) }))
	}
	return lo, max(lo, hi)
}

// QueryFloat reads a number parameter in its declared range (min, max]; its default when absent.
// NaN and infinities are refused like any value out of range.
func (c *Call) QueryFloat(name string) (float64, error) {
	p := c.DeclaredParam(name, pNumber)
	raw, ok := c.getQuery(name)
	if !ok {
		def, _ := p.def.(float64)
		return def, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	switch {
	case err == nil && f > p.min && f <= p.max:
		return f, nil
	case p.max == math.MaxFloat64:
		return 0, InvalidField(name, "must be a finite number greater than %v, got %s", p.min, Quoted(raw, MaxExcerpt))
	}
	return 0, InvalidField(name, "must be a number greater than %v and at most %v, got %s", p.min, p.max, Quoted(raw, MaxExcerpt))
}
