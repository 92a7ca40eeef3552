package schemas

import (
	"sort"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// maxFieldDepth bounds how many nested objects and arrays Fields follows: a recursive schema (a
// block holding blocks) would otherwise name paths without end.
const maxFieldDepth = 8

// Fields lists the fields a document of the named schema may hold, as sorted paths: "model",
// "messages", "messages[].content[].type", where "[]" stands for any item of an array. The
// properties of every alternative (oneOf, anyOf, allOf, if/then/else) are fields, and a field
// whose schema is a map (additionalProperties alone, as metadata) is one field: its keys are the
// client's, not the schema's. A recursive schema's fields are listed to a depth of eight.
func Fields(name string) ([]string, error) {
	s, err := schema(name, Strict)
	if err != nil {
		return nil, err
	}
	w := fieldWalk{onPath: map[*jsonschema.Schema]bool{}, fields: map[string]bool{}}
	w.collect(s.Schema, "", 0)
	out := make([]string, 0, len(w.fields))
	for p := range w.fields {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

type fieldWalk struct {
	onPath map[*jsonschema.Schema]bool // the schemas being expanded: one that refers to itself ends there
	fields map[string]bool
}

func (w *fieldWalk) collect(s *jsonschema.Schema, prefix string, depth int) {
	if s == nil || w.onPath[s] || depth > maxFieldDepth {
		return
	}
	w.onPath[s] = true
	defer delete(w.onPath, s)
	for _, sub := range []*jsonschema.Schema{s.Ref, s.DynamicRef, s.RecursiveRef, s.If, s.Then, s.Else} {
		w.collect(sub, prefix, depth)
	}
	for _, group := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, sub := range group {
			w.collect(sub, prefix, depth)
		}
	}
	for name, sub := range s.Properties {
		p := PathSegment(name)
		if prefix != "" {
			p = prefix + "." + p
		}
		w.fields[p] = true
		w.collect(sub, p, depth+1)
	}
	items := prefix + "[]"
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		w.collect(it, items, depth+1)
	case []*jsonschema.Schema:
		for _, sub := range it {
			w.collect(sub, items, depth+1)
		}
	}
	w.collect(s.Items2020, items, depth+1)
	for _, sub := range s.PrefixItems {
		w.collect(sub, items, depth+1)
	}
}
