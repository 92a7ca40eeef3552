// Command tsgen writes the TypeScript types of the fake's control API, from the OpenAPI document
// that describes it (schemas/openapi-control.json), to stdout. The npm package's control.d.ts is
// its output; a test keeps the two equal:
//
//	go run ./internal/tsgen > packaging/npm/fake/control.d.ts
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	b, err := os.ReadFile(filepath.Join(root, "schemas", "openapi-control.json"))
	if err == nil {
		var out string
		out, err = generate(b)
		fmt.Print(out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tsgen:", err)
		os.Exit(1)
	}
}

// Roots are the component schemas the helper's API uses, by the name they get in TypeScript.
// Every schema they refer to is emitted too, named after its component.
var Roots = map[string]string{
	"control.clock":                 "Clock",
	"control.clock_advance_request": "ClockAdvanceRequest",
	"control.fault_request":         "FaultRequest",
	"control.fault":                 "Fault",
	"control.fault_list":            "FaultList",
	"control.journal":               "Journal",
	"control.cleared":               "Cleared",
	"control.cache_list":            "CacheList",
	"control.health":                "Health",
	"control.namespace_list":        "NamespaceList",
	"control.rate_limits":           "RateLimits",
	"control.rate_limits_request":   "RateLimitsRequest",
	"control.retry_after":           "RetryAfterScale",
	"control.batch_pace":            "BatchPace",
	"messages.stub_request":         "StubRequest",
	"messages.stub":                 "Stub",
	"messages.stub_list":            "StubList",
	"error":                         "ErrorEnvelope",
}

type schema = map[string]any

type generator struct {
	components map[string]schema
	names      map[string]string // component -> TypeScript name
	queue      []string
	doc        any
}

const refPrefix = "#/components/schemas/"

func generate(doc []byte) (string, error) {
	var d struct {
		Components struct {
			Schemas map[string]schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return "", err
	}
	g := &generator{components: d.Components.Schemas, names: map[string]string{}}
	var roots []string
	for c, name := range Roots {
		if g.components[c] == nil {
			return "", fmt.Errorf("the document has no component %q", c)
		}
		g.names[c] = name
		roots = append(roots, c)
	}
	sort.Strings(roots)
	g.queue = roots
	var b strings.Builder
	b.WriteString("// The types of the fake's test-control API, generated from schemas/openapi-control.json\n// by go run ./internal/tsgen: do not edit.\n")
	done := map[string]bool{}
	for len(g.queue) > 0 {
		c := g.queue[0]
		g.queue = g.queue[1:]
		if done[c] {
			continue
		}
		done[c] = true
		s := g.components[c]
		b.WriteString("\n")
		b.WriteString(comment(s, ""))
		fmt.Fprintf(&b, "export type %s = %s;\n", g.name(c), g.ts(s, ""))
	}
	return b.String(), nil
}

// name is the TypeScript name of a component: its Roots name, else its dotted name in PascalCase.
func (g *generator) name(c string) string {
	if n, ok := g.names[c]; ok {
		return n
	}
	var n strings.Builder
	for _, part := range strings.FieldsFunc(c, func(r rune) bool { return r == '.' || r == '_' }) {
		n.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	g.names[c] = n.String()
	return n.String()
}

// comment is a JSDoc comment of a schema's title or description, indented.
func comment(s schema, indent string) string {
	text, _ := s["description"].(string)
	if text == "" {
		text, _ = s["title"].(string)
	}
	if text == "" {
		return ""
	}
	return indent + "/** " + strings.ReplaceAll(text, "*/", "*\\/") + " */\n"
}

// ts is the TypeScript type of a schema; indent is the indentation of the line it starts on.
func (g *generator) ts(s schema, indent string) string {
	if ref, ok := s["$ref"].(string); ok {
		c, pointer, _ := strings.Cut(strings.TrimPrefix(ref, refPrefix), "/")
		if pointer == "" {
			g.queue = append(g.queue, c)
			return g.name(c)
		}
		// A pointer into a component (its property, say): its type, inline.
		var target any = g.components[c]
		for _, tok := range strings.Split(pointer, "/") {
			target = target.(schema)[tok]
		}
		return g.ts(target.(schema), indent)
	}
	if v, ok := s["const"]; ok {
		return literal(v)
	}
	if vs, ok := s["enum"].([]any); ok {
		var parts []string
		for _, v := range vs {
			parts = append(parts, literal(v))
		}
		return strings.Join(parts, " | ")
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if vs, ok := s[k].([]any); ok {
			return g.union(vs, indent, func(v any) schema { return v.(schema) })
		}
	}
	if vs, ok := s["allOf"].([]any); ok {
		// The content blocks' dispatch: allOf of if (type is X) then (the X block): one of them.
		return g.union(vs, indent, func(v any) schema { return v.(schema)["then"].(schema) })
	}
	switch t := s["type"].(type) {
	case []any:
		var parts []string
		for _, one := range t {
			c := schema{}
			for k, v := range s {
				c[k] = v
			}
			c["type"] = one
			parts = append(parts, g.ts(c, indent))
		}
		return strings.Join(parts, " | ")
	case string:
		switch t {
		case "string":
			return "string"
		case "integer", "number":
			return "number"
		case "boolean":
			return "boolean"
		case "null":
			return "null"
		case "array":
			if items, ok := s["items"].(schema); ok {
				return "Array<" + g.ts(items, indent) + ">"
			}
			return "unknown[]"
		case "object":
			return g.object(s, indent)
		}
	}
	if _, ok := s["properties"]; ok {
		return g.object(s, indent)
	}
	return "unknown"
}

func (g *generator) union(vs []any, indent string, member func(any) schema) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, g.ts(member(v), indent))
	}
	return "(" + strings.Join(parts, " | ") + ")"
}

func (g *generator) object(s schema, indent string) string {
	props, _ := s["properties"].(schema)
	if len(props) == 0 {
		if extra, ok := s["additionalProperties"].(schema); ok {
			return "{ [key: string]: " + g.ts(extra, indent) + " }"
		}
		return "{ [key: string]: unknown }"
	}
	required := map[string]bool{}
	if rs, ok := s["required"].([]any); ok {
		for _, r := range rs {
			required[r.(string)] = true
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	inner := indent + "  "
	var b strings.Builder
	b.WriteString("{\n")
	for _, k := range keys {
		p := props[k].(schema)
		b.WriteString(comment(p, inner))
		opt := "?"
		if required[k] {
			opt = ""
		}
		fmt.Fprintf(&b, "%s%s%s: %s;\n", inner, k, opt, g.ts(p, inner))
	}
	b.WriteString(indent + "}")
	return b.String()
}

func literal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
