package fake

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Query parameters. Unknown parameters are ignored (gaps §2); these helpers read the known ones
// and answer 400 naming the parameter when a value is malformed or out of range.

// queryInt reads an integer parameter in [min, max]; def when absent. set reports presence.
func (c *call) queryInt(name string, def, min, max int) (v int, set bool, err error) {
	raw, ok := c.GetQuery(name)
	if !ok {
		return def, false, nil
	}
	n, perr := strconv.Atoi(strings.TrimSpace(raw))
	if perr != nil || n < min || n > max {
		return 0, true, invalidField(name, "must be an integer from %d to %d, got %q", min, max, raw)
	}
	return n, true, nil
}

// queryBool reads a boolean parameter ("true" or "false"); def when absent.
func (c *call) queryBool(name string, def bool) (bool, error) {
	raw, ok := c.GetQuery(name)
	if !ok {
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

// queryEnum reads a parameter that must be one of allowed; def when absent.
func (c *call) queryEnum(name, def string, allowed ...string) (string, error) {
	raw, ok := c.GetQuery(name)
	if !ok {
		return def, nil
	}
	for _, a := range allowed {
		if raw == a {
			return raw, nil
		}
	}
	return "", invalidField(name, "must be one of %s, got %q", strings.Join(allowed, ", "), raw)
}

// queryStrings reads an array parameter in any of the forms clients send (gaps §2):
// name[]=a&name[]=b, name=a&name=b, and name=a,b. Empty items are dropped. It reads gin's
// parsed query, which every other parameter reads too: parsing the query again per array
// parameter cost a compliance chat list a tenth of its time.
func (c *call) queryStrings(name string) []string {
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
	raw, ok := c.GetQuery(name)
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

// queryTimeRange reads the bounds of name given as name[gt]=..., name[gte]=... and so on.
func (c *call) queryTimeRange(name string, ops ...string) (timeRange, error) {
	if len(ops) == 0 {
		ops = []string{"gt", "gte", "lt", "lte"}
	}
	var r timeRange
	for _, op := range ops {
		t, err := c.queryTime(name + "[" + op + "]")
		if err != nil {
			return r, err
		}
		switch op {
		case "gt":
			r.gt = t
		case "gte":
			r.gte = t
		case "lt":
			r.lt = t
		case "lte":
			r.lte = t
		}
	}
	return r, nil
}

// contains reports whether t satisfies every bound of the range.
func (r timeRange) contains(t time.Time) bool {
	return (r.gt == nil || t.After(*r.gt)) &&
		(r.gte == nil || !t.Before(*r.gte)) &&
		(r.lt == nil || t.Before(*r.lt)) &&
		(r.lte == nil || !t.After(*r.lte))
}

// queryFloat reads a number parameter in (min, max]; def when absent. NaN and infinities are
// refused like any value out of range.
func (c *call) queryFloat(name string, def, min, max float64) (float64, error) {
	raw, ok := c.GetQuery(name)
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	switch {
	case err == nil && f > min && f <= max:
		return f, nil
	case max == math.MaxFloat64:
		return 0, invalidField(name, "must be a finite number greater than %v, got %q", min, raw)
	}
	return 0, invalidField(name, "must be a number greater than %v and at most %v, got %q", min, max, raw)
}
