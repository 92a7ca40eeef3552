package fake

import (
	"fmt"
	"math"
	"net/url"
	"slices"
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
	pString  paramKind = iota // any string
	pStrings                  // a list: name=a&name=b, name[]=a&name[]=b or name=a,b (gaps §2)
	pInt                      // an integer in [min, max]
	pNumber                   // a finite number in (min, max]
	pBool                     // true or false (also 1 or 0)
	pEnum                     // one of enum
	pTime                     // an RFC 3339 timestamp
	pPage                     // an opaque page token (spec 2.1)
)

// param declares one query parameter of a route.
type param struct {
	name     string
	kind     paramKind
	doc      string
	def      any // the value when absent (int, float64, bool or string), nil when absence means "none"
	min, max float64
	enum     []string
	required bool // the handler refuses a request without it
	maxItems int  // pStrings: the most values the handler accepts (0: no limit)
}

// query joins parameter declarations into a route's list.
func query(groups ...[]param) []param {
	var out []param
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func strParam(name, doc string) []param { return []param{{name: name, kind: pString, doc: doc}} }

func listParam(name, doc string) []param { return []param{{name: name, kind: pStrings, doc: doc}} }

// intParam declares an integer in [min, max]; def outside the range means "no default".
func intParam(name string, def, min, max int, doc string) []param {
	p := param{name: name, kind: pInt, doc: doc, min: float64(min), max: float64(max)}
	if def >= min && def <= max {
		p.def = def
	}
	return []param{p}
}

// numberParam declares a finite number greater than min and at most max (math.MaxFloat64: no
// upper bound).
func numberParam(name string, def, min, max float64, doc string) []param {
	return []param{{name: name, kind: pNumber, doc: doc, def: def, min: min, max: max}}
}

func boolParam(name string, def bool, doc string) []param {
	return []param{{name: name, kind: pBool, doc: doc, def: def}}
}

// enumParam declares a parameter that takes one of allowed; def "" means no default.
func enumParam(name, def, doc string, allowed ...string) []param {
	p := param{name: name, kind: pEnum, doc: doc, enum: allowed}
	if def != "" {
		p.def = def
	}
	return []param{p}
}

// timeParams declares the bounds name[gt], name[gte], name[lt], name[lte] (or only ops).
func timeParams(name string, ops ...string) []param {
	if len(ops) == 0 {
		ops = []string{"gt", "gte", "lt", "lte"}
	}
	words := map[string]string{"gt": "after", "gte": "at or after", "lt": "before", "lte": "at or before"}
	out := make([]param, len(ops))
	for i, op := range ops {
		out[i] = param{name: name + "[" + op + "]", kind: pTime, doc: "Only items whose " + name + " is " + words[op] + " this RFC 3339 time."}
	}
	return out
}

// limitParam declares limit in [1, max]; def 0 means that without it the whole list is one page.
func limitParam(def, max int) []param {
	doc := "The most items a page holds."
	if def == 0 {
		doc += " Without it, every item is in one page."
	}
	return intParam("limit", def, 1, max, doc)
}

// cursorParams declares cursor-by-ID pagination (spec 2.1): after_id, before_id and limit.
func cursorParams(def, max int) []param {
	return query(
		strParam("after_id", "The page after the item with this ID (the last_id of the previous page)."),
		strParam("before_id", "The page before the item with this ID (the first_id of the next page); at most one of after_id and before_id."),
		limitParam(def, max))
}

// tokenParams declares page-token pagination (spec 2.1): page and limit.
func tokenParams(def, max int) []param {
	return query(
		[]param{{name: "page", kind: pPage, doc: "The next_page of the previous response, unchanged."}},
		limitParam(def, max))
}

// declaredParam returns the declaration of the route's query parameter name. Reading a parameter the
// route does not declare is a bug in the fake (the document would not describe it): it panics,
// which the server reports as a violation.
func (c *call) declaredParam(name string, kind paramKind) *param {
	for i := range c.route.query {
		if p := &c.route.query[i]; p.name == name && p.kind == kind {
			return p
		}
	}
	panic(fmt.Sprintf("%s %s reads the query parameter %q, which its line of the route table does not declare as that kind", c.route.method, c.route.path, name))
}

// declaredHeader reads a request header the route declares (in.headers); "" when absent. Like a query
// parameter, a header the route does not declare cannot be read: it panics.
func (c *call) declaredHeader(name string) string {
	for _, p := range c.route.headers {
		if p.name == name {
			return c.GetHeader(name)
		}
	}
	panic(fmt.Sprintf("%s %s reads the header %q, which its line of the route table does not declare", c.route.method, c.route.path, name))
}

// queryArg is one parameter of a request's query.
type queryArg struct{ key, value string }

// maxScannedArgs bounds the query that queryArgs parses itself: one of more parameters is read
// through gin's url.Values, which applies net/url's limit on their number.
const maxScannedArgs = 64

// queryArgs returns the request's query parameters in order, as url.ParseQuery reads them (pairs
// with a semicolon or an escape that does not decode are left out), parsed on the first call;
// ok is false for a query of more than maxScannedArgs parameters, read with gin's GetQuery and
// QueryArray instead. A few pairs scanned in order cost no allocation where gin's cache, a map of
// slices, costs one per parameter and the map.
func (c *call) queryArgs() (args []queryArg, ok bool) {
	if !c.argsParsed {
		c.argsParsed = true
		raw := c.Request.URL.RawQuery
		if strings.Count(raw, "&") < maxScannedArgs {
			c.args, c.argsOwn = parseQueryArgs(c.argsBuf[:0], raw), true
		}
	}
	return c.args, c.argsOwn
}

// parseQueryArgs appends the parameters of raw to args as url.ParseQuery reads them.
func parseQueryArgs(args []queryArg, raw string) []queryArg {
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
			args = append(args, queryArg{k, v})
		}
	}
	return args
}

// getQuery is gin's GetQuery over queryArgs: the first value of key, and whether there is one.
func (c *call) getQuery(key string) (string, bool) {
	args, ok := c.queryArgs()
	if !ok {
		return c.GetQuery(key)
	}
	for _, a := range args {
		if a.key == key {
			return a.value, true
		}
	}
	return "", false
}

// queryString reads a string parameter; ok reports presence.
func (c *call) queryString(name string) (v string, ok bool) {
	return c.getQuery(c.declaredParam(name, pString).name)
}

// queryValue reads a string parameter; "" when absent.
func (c *call) queryValue(name string) string {
	v, _ := c.queryString(name)
	return v
}

// queryInt reads an integer parameter in its declared range; its default when absent. set
// reports presence.
func (c *call) queryInt(name string) (v int, set bool, err error) {
	p := c.declaredParam(name, pInt)
	raw, ok := c.getQuery(name)
	if !ok {
		def, _ := p.def.(int)
		return def, false, nil
	}
	n, perr := strconv.Atoi(strings.TrimSpace(raw))
	if perr != nil || float64(n) < p.min || float64(n) > p.max {
		return 0, true, invalidField(name, "must be an integer from %d to %d, got %s", int(p.min), int(p.max), quoted(raw, maxExcerpt))
	}
	return n, true, nil
}

// queryBool reads a boolean parameter ("true" or "false"); its default when absent.
func (c *call) queryBool(name string) (bool, error) {
	p := c.declaredParam(name, pBool)
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
	return false, invalidField(name, "must be true or false, got %s", quoted(raw, maxExcerpt))
}

// queryEnum reads a parameter that must be one of its declared values; its default ("" if none)
// when absent.
func (c *call) queryEnum(name string) (string, error) {
	p := c.declaredParam(name, pEnum)
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
	return "", invalidField(name, "must be one of %s, got %s", strings.Join(p.enum, ", "), quoted(raw, maxExcerpt))
}

// queryStrings reads an array parameter in any of the forms clients send (gaps §2):
// name[]=a&name[]=b, name=a&name=b, and name=a,b. Empty items are dropped. It reads gin's
// parsed query, which every other parameter reads too: parsing the query again per array
// parameter cost a compliance chat list a tenth of its time.
func (c *call) queryStrings(name string) []string {
	c.declaredParam(name, pStrings)
	var out []string
	add := func(v string) {
		for v != "" {
			var item string
			item, v, _ = strings.Cut(v, ",")
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
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
		if a.key == name {
			add(a.value)
		}
	}
	for _, a := range args {
		if len(a.key) == len(name)+2 && strings.HasPrefix(a.key, name) && strings.HasSuffix(a.key, "[]") {
			add(a.value)
		}
	}
	return out
}

// queryTime reads an RFC 3339 timestamp parameter; nil when absent.
func (c *call) queryTime(name string) (*time.Time, error) {
	return c.queryTimeOf(c.declaredParam(name, pTime).name)
}

// queryTimeOf is queryTime for the declared parameter name.
func (c *call) queryTimeOf(name string) (*time.Time, error) {
	raw, ok := c.getQuery(name)
	if !ok {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(raw))
	if err != nil {
		return nil, invalidField(name, "must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z, got %s", quoted(raw, maxExcerpt))
	}
	return &t, nil
}

// timeRange is a filter of the form name[gt], name[gte], name[lt], name[lte]; zero matches all.
type timeRange struct{ gt, gte, lt, lte *time.Time }

// queryTimeRange reads the bounds of name the route declares (see timeParams).
func (c *call) queryTimeRange(name string) (timeRange, error) {
	var r timeRange
	if args, ok := c.queryArgs(); ok && !slices.ContainsFunc(args, func(a queryArg) bool { return strings.HasPrefix(a.key, name) }) {
		return r, nil // none of its bounds was sent: the usual list request
	}
	for _, b := range []struct {
		op string
		at **time.Time
	}{{"gt", &r.gt}, {"gte", &r.gte}, {"lt", &r.lt}, {"lte", &r.lte}} {
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
func (c *call) declaredBound(name, op string) string {
	for _, p := range c.route.query {
		if n := p.name; len(n) == len(name)+len(op)+2 && strings.HasPrefix(n, name) && n[len(name)] == '[' &&
			n[len(name)+1:len(n)-1] == op && n[len(n)-1] == ']' {
			return n
		}
	}
	return ""
}

// contains reports whether t satisfies every bound of the range.
func (r timeRange) contains(t time.Time) bool {
	return (r.gt == nil || t.After(*r.gt)) &&
		(r.gte == nil || !t.Before(*r.gte)) &&
		(r.lt == nil || t.Before(*r.lt)) &&
		(r.lte == nil || !t.After(*r.lte))
}

// queryFloat reads a number parameter in its declared range (min, max]; its default when absent.
// NaN and infinities are refused like any value out of range.
func (c *call) queryFloat(name string) (float64, error) {
	p := c.declaredParam(name, pNumber)
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
		return 0, invalidField(name, "must be a finite number greater than %v, got %s", p.min, quoted(raw, maxExcerpt))
	}
	return 0, invalidField(name, "must be a number greater than %v and at most %v, got %s", p.min, p.max, quoted(raw, maxExcerpt))
}
