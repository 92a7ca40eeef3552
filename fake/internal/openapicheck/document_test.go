package openapicheck

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/platformkit/platformkit/schemas"
)

// documents are the two OpenAPI documents the fake ships, by file name.
var documents = map[string]func() []byte{
	"openapi.json":         schemas.OpenAPI,
	"openapi-control.json": schemas.ControlOpenAPI,
}

// document is one OpenAPI document, its model and its validator.
type document struct {
	model   *v3.Document
	options *config.ValidationOptions
	v       validator.Validator
}

// load parses one document and builds its validator; any error of the model (an unresolved
// reference, a malformed part) fails the test.
func load(t testing.TB, name string, opts ...config.Option) *document {
	t.Helper()
	d, err := parse(documents[name](), opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

func parse(raw []byte, opts ...config.Option) (*document, error) {
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		return nil, err
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("the OpenAPI model does not build: %w", err)
	}
	v, errs := validator.NewValidator(doc, opts...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("no validator: %v", errs)
	}
	return &document{model: &m.Model, options: config.NewValidationOptions(opts...), v: v}, nil
}

// operations lists the document's operations as "METHOD /path/template".
func (d *document) operations() []string {
	var out []string
	for path, item := range d.model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			out = append(out, strings.ToUpper(method)+" "+path)
		}
	}
	return out
}

// TestDocumentsAreValidOpenAPI31 validates each document against the OpenAPI 3.1 schema with
// libopenapi-validator, an implementation independent of the generator.
func TestDocumentsAreValidOpenAPI31(t *testing.T) {
	for name := range documents {
		if ok, errs := load(t, name).v.ValidateDocument(); !ok {
			t.Errorf("%s is not a valid OpenAPI 3.1 document:\n%s", name, describe(errs))
		}
	}
}

// TestValidationCanFail: the validator refuses a document with a malformed operation, so the
// test above can fail.
func TestValidationCanFail(t *testing.T) {
	raw := bytes.Replace(schemas.OpenAPI(), []byte(`"in": "query"`), []byte(`"in": "body"`), 1)
	d, err := parse(raw)
	if err != nil {
		t.Logf("refused while parsing: %v", err)
		return
	}
	if ok, _ := d.v.ValidateDocument(); ok {
		t.Error("a parameter \"in\": \"body\" (OpenAPI 2, not 3.1) passed validation")
	}
}

// describe lists validation errors one per line, with where in the document or instance each is.
func describe(errs []*verrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\t%s: %s", e.Message, e.Reason)
		for _, se := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n\t\t%s: %s (schema %s)", se.FieldPath, se.Reason, se.KeywordLocation)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
