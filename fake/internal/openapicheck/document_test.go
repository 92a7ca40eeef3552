package openapicheck

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/platformkit/platformkit/schemas"
)

// documents are the two OpenAPI documents the fake ships, by file name.
var documents = map[string]func() []byte{
	"openapi.json":         schemas.OpenAPI,
	"openapi-control.json": schemas.ControlOpenAPI,
}

// document is one OpenAPI document and a router to its operations.
type document struct {
	doc    *openapi3.T
	router routers.Router
}

// load parses one document and builds its router; any error of the model (an unresolved
// reference, a malformed part) fails the test.
func load(t testing.TB, name string) *document {
	t.Helper()
	raw := documents[name]()
	doc, err := parse(raw)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// The router, and through its routes ValidateRequest and ValidateResponse, get a copy of
	// the document with two changes that leave what it allows as it is:
	//
	// The servers are the one server "/". The router matches a request's URL against the
	// servers, which are absolute (http://127.0.0.1:4010, and http://127.0.0.1:4010/ns/{namespace}
	// for a namespace), and takes the first that matches, so the first would swallow every
	// namespace path. check takes the namespace prefix off a path itself, as a client puts it
	// on, and the router routes the path alone.
	//
	// Each schema a value is checked against has a $defs (see all2020).
	//
	// TestDocumentsAreValidOpenAPI31 validates the document as it is.
	routed, err := parse(raw)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	routed.Servers = openapi3.Servers{{URL: "/"}}
	all2020(routed)
	r, err := legacy.NewRouter(routed, validationOptions...)
	if err != nil {
		t.Fatalf("%s: no router: %v", name, err)
	}
	return &document{doc: doc, router: r}
}

// all2020 has kin check every value against its schema as JSON Schema 2020-12. kin validates a
// value against a 3.1 schema with santhosh-tekuri/jsonschema (2020-12) only if the schema uses a
// 2020-12 keyword (const, if, unevaluatedProperties, $defs...) or holds no reference to
// #/components/schemas; otherwise with its OpenAPI 3.0 validator (useJSONSchema2020 in
// openapi3/schema_jsonschema_validator.go, kin-openapi v0.153.0), which refuses null for a
// schema without "type" ("Value is not nullable") where JSON Schema accepts any value. That is
// a few dozen of the documents' body schemas, among them the journal's, whose "body" is any JSON
// value or null. So each schema a parameter, header or body is checked against gets a $defs with
// one empty definition: a 2020-12 keyword that leaves what the schema allows as it was.
func all2020(doc *openapi3.T) {
	mark := func(sr *openapi3.SchemaRef) {
		if sr != nil && sr.Value != nil && len(sr.Value.Defs) == 0 {
			sr.Value.Defs = openapi3.Schemas{"openapicheck": openapi3.NewSchemaRef("", openapi3.NewSchema())}
		}
	}
	content := func(c openapi3.Content) {
		for _, mt := range c {
			mark(mt.Schema)
		}
	}
	params := func(ps openapi3.Parameters) {
		for _, p := range ps {
			mark(p.Value.Schema)
			content(p.Value.Content)
		}
	}
	for _, item := range doc.Paths.Map() {
		params(item.Parameters)
		for _, op := range item.Operations() {
			params(op.Parameters)
			if op.RequestBody != nil {
				content(op.RequestBody.Value.Content)
			}
			for _, r := range op.Responses.Map() {
				for _, h := range r.Value.Headers {
					mark(h.Value.Schema)
					content(h.Value.Content)
				}
				content(r.Value.Content)
			}
		}
	}
}

// parse loads a document: the loader resolves every $ref and refuses malformed JSON or parts of
// the wrong type.
func parse(raw []byte) (*openapi3.T, error) {
	return openapi3.NewLoader().LoadFromData(raw)
}

// validationOptions are the checks Validate makes beyond its defaults (which already validate
// every example and default against its schema and compile every pattern). doc.Validate itself
// adds openapi3.IsOpenAPI31OrLater for a 3.1 document: 3.1 rules, schemas compiled as JSON
// Schema 2020-12.
var validationOptions = []openapi3.ValidationOption{
	openapi3.EnableMultiError(),             // report every problem, not the first
	openapi3.EnableSchemaFormatValidation(), // a format kin does not know of is an error
}

func init() {
	// kin checks values against the formats date-time, date and byte, and accepts uri in a
	// document without checking any value against it. The documents use date-time and uri; a
	// uri here is an absolute URI (RFC 3986, 4.3): a scheme, and no fragment.
	openapi3.DefineStringFormatValidator("uri", openapi3.NewCallbackValidator(func(s string) error {
		u, err := url.Parse(s)
		if err != nil {
			return err
		}
		if u.Scheme == "" || u.Fragment != "" {
			return fmt.Errorf("%q is not an absolute URI", s)
		}
		return nil
	}))
}

// validate validates a document against the OpenAPI 3.1 specification.
func validate(doc *openapi3.T) error {
	return doc.Validate(context.Background(), validationOptions...)
}

// operations lists the document's operations as "METHOD /path/template".
func (d *document) operations() []string {
	var out []string
	for path, item := range d.doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+path)
		}
	}
	slices.Sort(out)
	return out
}

// TestDocumentsAreValidOpenAPI31 validates each document against the OpenAPI 3.1 specification
// with kin-openapi, an implementation independent of the generator.
func TestDocumentsAreValidOpenAPI31(t *testing.T) {
	for name := range documents {
		d := load(t, name)
		if !d.doc.IsOpenAPI31OrLater() {
			t.Errorf("%s is OpenAPI %q, not 3.1", name, d.doc.OpenAPI)
		}
		if err := validate(d.doc); err != nil {
			t.Errorf("%s is not a valid OpenAPI 3.1 document:\n%s", name, describe(err))
		}
	}
}

// TestValidationCanFail: the validator refuses a document with a malformed operation, so the
// test above can fail.
func TestValidationCanFail(t *testing.T) {
	raw := bytes.Replace(schemas.OpenAPI(), []byte(`"in": "query"`), []byte(`"in": "body"`), 1)
	doc, err := parse(raw)
	if err != nil {
		t.Logf("refused while parsing: %v", err)
		return
	}
	if err := validate(doc); err == nil {
		t.Error("a parameter \"in\": \"body\" (OpenAPI 2, not 3.1) passed validation")
	} else {
		t.Logf("refused:\n%s", describe(err))
	}
}

// describe lists the problems of a validation error one per line. kin gathers them in an
// openapi3.MultiError, whose message runs them together.
func describe(err error) string {
	var b strings.Builder
	var list func(error)
	list = func(err error) {
		if me, ok := err.(openapi3.MultiError); ok {
			for _, e := range me {
				list(e)
			}
			return
		}
		fmt.Fprintf(&b, "\t%s\n", strings.ReplaceAll(err.Error(), "\n", "\n\t\t"))
	}
	list(err)
	return b.String()
}
