package conformance

import "github.com/tidwall/gjson"

// idsOf returns the "id" of each item, in order.
func idsOf(items []gjson.Result) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Get("id").String()
	}
	return out
}
