package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The npm package's types are the generator's output for the document as it is now: a change of
// the control API's schemas that is not regenerated fails here.
func TestControlTypesAreCurrent(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "schemas", "openapi-control.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := generate(doc)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "packaging", "npm", "fake", "control.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("packaging/npm/fake/control.d.ts is not what schemas/openapi-control.json generates: run\n\tgo run ./internal/tsgen > packaging/npm/fake/control.d.ts")
	}
}

func TestGenerate(t *testing.T) {
	doc := `{"components": {"schemas": {
		"control.fault_request": {"type": "object", "required": ["path"], "properties": {
			"path": {"type": "string", "description": "where"},
			"status": {"enum": [0, 429]},
			"retry_after": {"type": ["number", "null"]},
			"tags": {"type": "array", "items": {"$ref": "#/components/schemas/common.string_map"}},
			"block": {"allOf": [{"if": {}, "then": {"$ref": "#/components/schemas/x.text"}}, {"if": {}, "then": {"const": "y"}}]},
			"kind": {"$ref": "#/components/schemas/x.text/properties/type"}
		}},
		"common.string_map": {"type": "object", "additionalProperties": {"type": "string"}},
		"x.text": {"properties": {"type": {"const": "text"}}}
	}}}`
	for c := range Roots {
		if c != "control.fault_request" {
			doc = strings.Replace(doc, `"common.string_map"`, `"`+c+`": {"type": "integer"}, "common.string_map"`, 1)
		}
	}
	out, err := generate([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"export type FaultRequest = {\n",
		"  /** where */\n  path: string;\n",
		"  status?: 0 | 429;\n",
		"  retry_after?: number | null;\n",
		"  tags?: Array<CommonStringMap>;\n",
		"  block?: (XText | \"y\");\n",
		"  kind?: \"text\";\n",
		"export type CommonStringMap = { [key: string]: string };\n",
		"export type XText = {\n  type?: \"text\";\n};\n",
		"export type Clock = number;\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := generate([]byte(`{"components": {"schemas": {}}}`)); err == nil || !strings.Contains(err.Error(), "has no component") {
		t.Errorf("a document without the roots: err = %v, want it named", err)
	}
}
