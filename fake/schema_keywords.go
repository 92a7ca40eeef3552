package fake

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

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

// checkKeywordTypes refuses the first keyword of the schema s (at path, and in every subschema)
// whose value has the wrong type. Each subschema is visited once, where it is written: $refs are
// not followed, so the walk is linear in the schema's size.
func checkKeywordTypes(s map[string]any, path string) error {
	for _, k := range slices.Sorted(maps.Keys(s)) {
		kind, ok := keywordKinds[k]
		if !ok {
			continue
		}
		if err := checkKeyword(kind, s[k], path+"."+schemas.PathSegment(k)); err != nil {
			return err
		}
	}
	return nil
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

func checkKeyword(kind keywordKind, v any, path string) error {
	bad := func(want string) error { return invalidField(path, "must be %s, got %s", want, describeJSON(v)) }
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
				return invalidField(path, "%q is not a JSON type; one of: %s", t, joinQuoted(jsonTypes))
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
				return invalidField(fmt.Sprintf("%s.%d", path, i), "must be a JSON type name (one of: %s), got %s", joinQuoted(jsonTypes), describeJSON(x))
			}
			if slices.Contains(list[:i], x) {
				return invalidField(fmt.Sprintf("%s.%d", path, i), "%q is listed twice", t)
			}
		}
	case kwStrings:
		list, ok := v.([]any)
		if !ok {
			return bad("an array of strings")
		}
		for i, x := range list {
			if _, ok := x.(string); !ok {
				return invalidField(fmt.Sprintf("%s.%d", path, i), "must be a string, got %s", describeJSON(x))
			}
		}
	case kwArray:
		if _, ok := v.([]any); !ok {
			return bad("an array")
		}
	case kwSchema:
		return checkSubschema(v, path)
	case kwItems:
		if list, ok := v.([]any); ok {
			return checkSchemaList(list, path)
		}
		return checkSubschema(v, path)
	case kwSchemas:
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return bad("a non-empty array of schemas")
		}
		return checkSchemaList(list, path)
	case kwSchemaMap:
		m, ok := v.(map[string]any)
		if !ok {
			return bad("an object of schemas")
		}
		for _, name := range slices.Sorted(maps.Keys(m)) {
			if err := checkSubschema(m[name], path+"."+schemas.PathSegment(name)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkSchemaList(list []any, path string) error {
	for i, x := range list {
		if err := checkSubschema(x, fmt.Sprintf("%s.%d", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkSubschema checks a value that must be a schema: an object (checked in turn) or a boolean.
func checkSubschema(v any, path string) error {
	switch s := v.(type) {
	case map[string]any:
		return checkKeywordTypes(s, path)
	case bool:
		return nil
	}
	return invalidField(path, "must be a schema (an object or a boolean), got %s", describeJSON(v))
}

// describeJSON names a decoded JSON value's type and, for a scalar, the value.
func describeJSON(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			x = x[:40] + "..."
		}
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("%t", x)
	case float64, json.Number:
		return fmt.Sprintf("the number %v", x)
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
