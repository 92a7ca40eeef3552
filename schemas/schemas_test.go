package schemas

import (
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestEverySchemaCompiles(t *testing.T) {
	if err := Check(); err != nil {
		t.Fatal(err)
	}
}

func TestIDsMatchPaths(t *testing.T) {
	for _, name := range Names() {
		raw, err := fs.ReadFile(FS(), name+".json")
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			ID     string `json:"$id"`
			Schema string `json:"$schema"`
			Title  string `json:"title"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := BaseURL + name + ".json"; doc.ID != want {
			t.Errorf("%s: $id = %q, want %q", name, doc.ID, want)
		}
		if doc.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %q, want draft 2020-12", name, doc.Schema)
		}
		if doc.Title == "" {
			t.Errorf("%s: no title (say what it describes and which clause)", name)
		}
	}
}

func TestStrictClosesObjectsLenientDoesNot(t *testing.T) {
	doc := []byte(`{"status":"ok","extra":1}`)
	if err := Validate("control/health", doc, Lenient); err != nil {
		t.Fatalf("lenient refused an extra property: %v", err)
	}
	err := Validate("control/health", doc, Strict)
	var se *Error
	if !errors.As(err, &se) || se.Path != "extra" || se.Message != "unknown field" {
		t.Fatalf("strict: err = %v, want unknown field at extra", err)
	}
}

func TestErrorPathPointsIntoTheDocument(t *testing.T) {
	doc := `{"data":[{"id":"m","type":"model","display_name":"M","created_at":"2026-01-01T00:00:00Z",
		"max_input_tokens":1,"max_tokens":1,"capabilities":{}}],"first_id":"m","last_id":"m","has_more":false}`
	err := Validate("models/model_list", []byte(doc), Lenient)
	var se *Error
	if !errors.As(err, &se) || !strings.HasPrefix(se.Path, "data.0.capabilities") {
		t.Fatalf("err = %v, want a path inside data.0.capabilities", err)
	}
}

func TestUnknownSchemaAndBadJSON(t *testing.T) {
	if err := Validate("no/such", []byte(`{}`), Lenient); err == nil {
		t.Fatal("an unknown schema validated")
	}
	if err := Validate("error", []byte(`{`), Lenient); err == nil {
		t.Fatal("malformed JSON validated")
	}
}
