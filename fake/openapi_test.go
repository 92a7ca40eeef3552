package fake

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/platformkit/platformkit/schemas"
)

var update = flag.Bool("update", false, "rewrite the files these tests compare with: schemas/openapi.json and schemas/openapi-control.json from the route table, testdata/api.txt from the exported API")

const regenerate = "go generate ./fake"

// TestOpenAPIDocumentsAreCurrent keeps the committed documents equal, byte for byte, to what the
// route table and the schemas generate, and the embedded copies equal to the files.
func TestOpenAPIDocumentsAreCurrent(t *testing.T) {
	for _, d := range []struct {
		file     string
		control  bool
		embedded []byte
	}{{"openapi.json", false, schemas.OpenAPI()}, {"openapi-control.json", true, schemas.ControlOpenAPI()}} {
		want, err := core.OpenAPIDocument(d.control)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("..", "schemas", d.file)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("schemas/%s is not what the route table and the schemas generate; regenerate it with\n\t%s", d.file, regenerate)
		}
		if !bytes.Equal(d.embedded, got) {
			t.Errorf("the embedded schemas/%s differs from the file: rebuild", d.file)
		}
	}
}

// TestOpenAPIHasEveryRouteAndNothingElse: the API document has one operation per API route of
// the table, the control document one per control route, and neither has any other; the page on
// the documents (docs/openapi.md) states both counts.
func TestOpenAPIHasEveryRouteAndNothingElse(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "openapi.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(raw)
	for _, control := range []bool{false, true} {
		raw, err := core.OpenAPIDocument(control)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Paths map[string]map[string]struct {
				OperationID string `json:"operationId"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		var inDoc, inTable []string
		ids := map[string]bool{}
		for path, ops := range doc.Paths {
			for method, op := range ops {
				inDoc = append(inDoc, strings.ToUpper(method)+" "+path)
				if ids[op.OperationID] {
					t.Errorf("operationId %q is used twice", op.OperationID)
				}
				ids[op.OperationID] = true
			}
		}
		for _, rt := range core.Routes() {
			if (rt.Ifc == nil) == control {
				inTable = append(inTable, rt.Method+" "+core.OpenAPIPath(rt.Path))
			}
		}
		slices.Sort(inDoc)
		slices.Sort(inTable)
		if !slices.Equal(inDoc, inTable) {
			t.Errorf("control=%v: the document's operations\n%v\nare not the table's routes\n%v", control, inDoc, inTable)
		}
		if len(inTable) == 0 {
			t.Errorf("control=%v: no routes", control)
		}
		t.Logf("control=%v: %d operations, %d routes in the table", control, len(inDoc), len(inTable))
		if count := fmt.Sprintf("%d operations", len(inTable)); !strings.Contains(page, count) {
			t.Errorf("docs/openapi.md should say %q (control=%v)", count, control)
		}
	}
}

// TestStreamingRoutesDeclareEventSchemas: a route whose request schema has a "stream" property
// answers server-sent events, so its line must name the events' schema (the fake checks events
// against it, and the document describes them with it).
func TestStreamingRoutesDeclareEventSchemas(t *testing.T) {
	for _, rt := range core.Routes() {
		if rt.Body == "" {
			continue
		}
		doc, err := core.ReadSchema(rt.Body)
		if err != nil {
			t.Fatal(err)
		}
		props, _ := doc["properties"].(map[string]any)
		if _, streams := props["stream"]; streams != (rt.Events != "") {
			t.Errorf("%s %s: request schema %s has stream: %v, but the route's event schema is %q", rt.Method, rt.Path, rt.Body, streams, rt.Events)
		}
	}
}

// TestOpenAPIIsServed: the binary serves both documents, as embedded, under the control API.
func TestOpenAPIIsServed(t *testing.T) {
	s := checked(t)
	for path, want := range map[string][]byte{"/_fake/openapi.json": schemas.OpenAPI(), "/_fake/openapi-control.json": schemas.ControlOpenAPI()} {
		w := send(t, s, "GET", path, "")
		if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || !bytes.Equal(w.Body.Bytes(), want) {
			t.Errorf("GET %s: %d %s, %d bytes; want 200 application/json, the embedded document (%d bytes)",
				path, w.Code, w.Header().Get("Content-Type"), w.Body.Len(), len(want))
		}
	}
}
