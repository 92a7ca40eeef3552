package core

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/platformkit/platformkit/schemas"
)

// The types of JSON Schema keywords (draft 2020-12, which tool input schemas and output formats
// are written in). A schema whose keyword has the wrong type ("type": 5, "minItems": "x") is not
// a schema the platform compiles, so it is refused with a 400 naming the keyword, before anything
// reads it; a keyword not named here is left alone (a non-strict tool may carry any annotation).

// keywordKind is what a keyword's value must be.
type keywordKind int

const (
	kwString    keywordKind = iota // a string
	kwCount                        // a non-negative integer
	kwNumber                       // a number
	kwPositive                     // a number above 0
	kwBool                         // a boolean
	kwType                         // a JSON type name, or a non-empty array of distinct ones
	kwStrings                      // an array of strings
	kwArray                        // an array
	kwSchema                       // a schema: an object or a boolean
	kwSchemas                      // a non-empty array of schemas
	kwSchemaMap                    // an object whose values are schemas
	kwItems                        // a schema, or (draft 7) an array of schemas
)

var keywordKinds = map[string]keywordKind{
	"$ref": kwString, "$schema": kwString, "$id": kwString, "$anchor": kwString, "$comment": kwString,
	"title": kwString, "description": kwString, "format": kwString, "pattern": kwString,
	"contentEncoding": kwString, "contentMediaType": kwString,
	"minItems": kwCount, "maxItems": kwCount, "minLength": kwCount, "maxLength": kwCount,
	"minProperties": kwCount, "maxProperties": kwCount, "minContains": kwCount, "maxContains": kwCount,
	"minimum": kwNumber, "maximum": kwNumber, "exclusiveMinimum": kwNumber, "exclusiveMaximum": kwNumber,
	"multipleOf":  kwPositive,
	"uniqueItems": kwBool, "readOnly": kwBool, "writeOnly": kwBool, "deprecated": kwBool,
	"type": kwType, "required": kwStrings, "enum": kwArray, "examples": kwArray,
	"items": kwItems, "additionalProperties": kwSchema, "not": kwSchema, "contains": kwSchema,
	"propertyNames": kwSchema, "if": kwSchema, "then": kwSchema, "else": kwSchema,
	"additionalItems": kwSchema, "unevaluatedItems": kwSchema, "unevaluatedProperties": kwSchema,
	"anyOf": kwSchemas, "allOf": kwSchemas, "oneOf": kwSchemas, "prefixItems": kwSchemas,
	"properties": kwSchemaMap, "$defs": kwSchemaMap, "definitions": kwSchemaMap,
	"patternProperties": kwSchemaMap, "dependentSchemas": kwSchemaMap,
}

var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// CheckKeywordTypes refuses the first keyword of the schema s (at path, and in every subschema)
// whose value has the wrong type. Each subschema is visited once, where it is written: $refs are
// not followed, so the walk is linear in the schema's size.
func CheckKeywordTypes(s map[string]any, path string) error {
	return (&schemaPath{root: path}).check(s)
}

// schemaPath is the path of the subschema being checked: its parts are joined only for an
// error, so that a schema of well-typed keywords costs no string.
type schemaPath struct {
	root  string
	parts []string
}

func (p *schemaPath) push(part string) { p.parts = append(p.parts, part) }
func (p *schemaPath) pop()             { p.parts = p.parts[:len(p.parts)-1] }
func (p *schemaPath) pushIndex(i int)  { p.push(strconv.Itoa(i)) }

// atIndex is the error of the i-th element of the keyword's array.
func (p *schemaPath) atIndex(i int, format string, args ...any) error {
	p.pushIndex(i)
	defer p.pop()
	return InvalidField(p.String(), format, args...)
}

func (p *schemaPath) String() string {
	out := p.root
	for _, part := range p.parts {
		out += "." + schemas.PathSegment(part)
	}
	return out
}

// check checks the keywords of s in map order; only when one is wrong does it check them again
// in name order, so that the error named is the same on every run.
func (p *schemaPath) check(s map[string]any) error {
	for k, v := range s {
		if kind, ok := keywordKinds[k]; ok && p.keyword(k, kind, v) != nil {
			for _, k := range slices.Sorted(maps.Keys(s)) {
				if kind, ok := keywordKinds[k]; ok {
					if err := p.keyword(k, kind, s[k]); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func (p *schemaPath) keyword(k string, kind keywordKind, v any) error {
	p.push(k)
	defer p.pop()
	return p.value(kind, v)
}

// asNumber reads a JSON number as decoded with or without UseNumber.
func asNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// value checks the value v of a keyword of the kind, at p.
func (p *schemaPath) value(kind keywordKind, v any) error {
	bad := func(want string) error { return InvalidField(p.String(), "must be %s, got %s", want, describeJSON(v)) }
	switch kind {
	case kwString:
		if _, ok := v.(string); !ok {
			return bad("a string")
		}
	case kwCount:
		if f, ok := asNumber(v); !ok || f < 0 || f != math.Trunc(f) {
			return bad("a non-negative integer")
		}
	case kwNumber:
		if _, ok := asNumber(v); !ok {
			return bad("a number")
		}
	case kwPositive:
		if f, ok := asNumber(v); !ok || f <= 0 {
			return bad("a number above 0")
		}
	case kwBool:
		if _, ok := v.(bool); !ok {
			return bad("a boolean")
		}
	case kwType:
		if t, ok := v.(string); ok {
			if !slices.Contains(jsonTypes, t) {
				return InvalidField(p.String(), "%s is not a JSON type; one of: %s", Quoted(t, MaxExcerpt), joinQuoted(jsonTypes))
			}
			return nil
		}
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return bad("a JSON type name or a non-empty array of them")
		}
		for i, x := range list {
			t, ok := x.(string)
			if !ok || !slices.Contains(jsonTypes, t) {
				return p.atIndex(i, "must be a JSON type name (one of: %s), got %s", joinQuoted(jsonTypes), describeJSON(x))
			}
			if slices.Contains(list[:i], x) {
				return p.atIndex(i, "%s is listed twice", Quoted(t, MaxExcerpt))
			}
		}
	case kwStrings:
		list, ok := v.([]any)
		if !ok {
			return bad("an array of strings")
		}
		for i, x := range list {
			if _, ok := x.(string); !ok {
				return p.atIndex(i, "must be a string, got %s", describeJSON(x))
			}
		}
	case kwArray:
		if _, ok := v.([]any); !ok {
			return bad("an array")
		}
	case kwSchema:
		return p.subschema(v)
	case kwItems:
		if list, ok := v.([]any); ok {
			return p.schemaList(list)
		}
		return p.subschema(v)
	case kwSchemas:
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return bad("a non-empty array of schemas")
		}
		return p.schemaList(list)
	case kwSchemaMap:
		m, ok := v.(map[string]any)
		if !ok {
			return bad("an object of schemas")
		}
		for name, x := range m {
			if p.named(name, x) != nil {
				for _, name := range slices.Sorted(maps.Keys(m)) { // the first in name order
					if err := p.named(name, m[name]); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func (p *schemaPath) named(name string, v any) error {
	p.push(name)
	defer p.pop()
	return p.subschema(v)
}

func (p *schemaPath) schemaList(list []any) error {
	for i, x := range list {
		p.pushIndex(i)
		err := p.subschema(x)
		p.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

// subschema checks a value that must be a schema: an object (checked in turn) or a boolean.
func (p *schemaPath) subschema(v any) error {
	switch s := v.(type) {
	case map[string]any:
		return p.check(s)
	case bool:
		return nil
	}
	return InvalidField(p.String(), "must be a schema (an object or a boolean), got %s", describeJSON(v))
}

// describeJSON names a decoded JSON value's type and, for a scalar, the value.
func describeJSON(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "the string " + Quoted(x, 40)
	case bool:
		return fmt.Sprintf("%t", x)
	case float64, json.Number:
		return "the number " + Excerpt(fmt.Sprint(x), MaxExcerpt)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func joinQuoted(list []string) string {
	out := ""
	for i, s := range list {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", s)
	}
	return out
}
