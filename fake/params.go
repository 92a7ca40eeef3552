package fake

import (
	"fmt"
	"math"
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

// param returns the declaration of the route's query parameter name. Reading a parameter the
// route does not declare is a bug in the fake (the document would not describe it): it panics,
// which the server reports as a violation.
func (c *call) param(name string, kind paramKind) *param {
	for i := range c.route.query {
		if p := &c.route.query[i]; p.name == name && p.kind == kind {
			return p
		}
	}
	panic(fmt.Sprintf("%s %s reads the query parameter %q, which its line of the route table does not declare as that kind", c.route.method, c.route.path, name))
}

// header reads a request header the route declares (in.headers); "" when absent. Like a query
// parameter, a header the route does not declare cannot be read: it panics.
func (c *call) header(name string) string {
	for _, p := range c.route.headers {
		if p.name == name {
			return c.GetHeader(name)
		}
	}
	panic(fmt.Sprintf("%s %s reads the header %q, which its line of the route table does not declare", c.route.method, c.route.path, name))
}

// queryString reads a string parameter; ok reports presence.
func (c *call) queryString(name string) (v string, ok bool) {
	return c.GetQuery(c.param(name, pString).name)
}

// queryValue reads a string parameter; "" when absent.
func (c *call) queryValue(name string) string {
	v, _ := c.queryString(name)
	return v
}

// queryInt reads an integer parameter in its declared range; its default when absent. set
// reports presence.
func (c *call) queryInt(name string) (v int, set bool, err error) {
	p := c.param(name, pInt)
	raw, ok := c.GetQuery(name)
	if !ok {
		def, _ := p.def.(int)
		return def, false, nil
	}
	n, perr := strconv.Atoi(strings.TrimSpace(raw))
	if perr != nil || float64(n) < p.min || float64(n) > p.max {
		return 0, true, invalidField(name, "must be an integer from %d to %d, got %q", int(p.min), int(p.max), raw)
	}
	return n, true, nil
}

// queryBool reads a boolean parameter ("true" or "false"); its default when absent.
func (c *call) queryBool(name string) (bool, error) {
	p := c.param(name, pBool)
	raw, ok := c.GetQuery(name)
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
	return false, invalidField(name, "must be true or false, got %q", raw)
}

// queryEnum reads a parameter that must be one of its declared values; its default ("" if none)
// when absent.
func (c *call) queryEnum(name string) (string, error) {
	p := c.param(name, pEnum)
	raw, ok := c.GetQuery(name)
	if !ok {
		def, _ := p.def.(string)
		return def, nil
	}
	for _, a := range p.enum {
		if raw == a {
			return raw, nil
		}
	}
	return "", invalidField(name, "must be one of %s, got %q", strings.Join(p.enum, ", "), raw)
}

// queryStrings reads an array parameter in any of the forms clients send (gaps §2):
// name[]=a&name[]=b, name=a&name=b, and name=a,b. Empty items are dropped. It reads gin's
// parsed query, which every other parameter reads too: parsing the query again per array
// parameter cost a compliance chat list a tenth of its time.
func (c *call) queryStrings(name string) []string {
	c.param(name, pStrings)
	var out []string
	for _, key := range []string{name, name + "[]"} {
		for _, v := range c.QueryArray(key) {
			for _, item := range strings.Split(v, ",") {
				if item = strings.TrimSpace(item); item != "" {
					out = append(out, item)
				}
			}
		}
	}
	return out
}

// queryTime reads an RFC 3339 timestamp parameter; nil when absent.
func (c *call) queryTime(name string) (*time.Time, error) {
	raw, ok := c.GetQuery(c.param(name, pTime).name)
	if !ok {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(raw))
	if err != nil {
		return nil, invalidField(name, "must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z, got %q", raw)
	}
	return &t, nil
}

// timeRange is a filter of the form name[gt], name[gte], name[lt], name[lte]; zero matches all.
type timeRange struct{ gt, gte, lt, lte *time.Time }

// queryTimeRange reads the bounds of name the route declares (see timeParams).
func (c *call) queryTimeRange(name string) (timeRange, error) {
	var r timeRange
	for _, b := range []struct {
		op string
		at **time.Time
	}{{"gt", &r.gt}, {"gte", &r.gte}, {"lt", &r.lt}, {"lte", &r.lte}} {
		if !c.declares(name + "[" + b.op + "]") {
			continue
		}
		t, err := c.queryTime(name + "[" + b.op + "]")
		if err != nil {
			return r, err
		}
		*b.at = t
	}
	return r, nil
}

// declares reports whether the route declares the query parameter name.
func (c *call) declares(name string) bool {
	for _, p := range c.route.query {
		if p.name == name {
			return true
		}
	}
	return false
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
	p := c.param(name, pNumber)
	raw, ok := c.GetQuery(name)
	if !ok {
		def, _ := p.def.(float64)
		return def, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	switch {
	case err == nil && f > p.min && f <= p.max:
		return f, nil
	case p.max == math.MaxFloat64:
		return 0, invalidField(name, "must be a finite number greater than %v, got %q", p.min, raw)
	}
	return 0, invalidField(name, "must be a number greater than %v and at most %v, got %q", p.min, p.max, raw)
}
