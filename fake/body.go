package fake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"

	"github.com/platformkit/platformkit/schemas"
)

// body reads the request body, bounded by the interface's limit: a larger body is refused with
// 413 request_too_large without being read into memory (gaps §1). A declared Content-Type other
// than JSON is refused (spec 5.1); a missing one is tolerated, as are body-less POSTs (gaps §2).
// The control API takes any Content-Type, since people call it by hand with curl -d.
func (c *call) body() ([]byte, error) {
	limit := int64(defaultBodyLimit)
	if c.route.ifc != nil {
		limit = c.route.ifc.bodyLimit
	}
	if c.Request.ContentLength > limit {
		return nil, newError(errRequestTooLarge, "request body is %d bytes; the limit is %d bytes", c.Request.ContentLength, limit)
	}
	if ct := c.Request.Header.Get("Content-Type"); ct != "" && c.route.ifc != nil {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, invalid("Content-Type: requests with a body must be application/json, got %q", ct)
		}
	}
	if c.Request.Body == nil {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(c.Request.Body, limit+1))
	if err != nil {
		return nil, invalid("reading the request body: %v", err)
	}
	if int64(len(data)) > limit {
		return nil, newError(errRequestTooLarge, "request body exceeds the limit of %d bytes", limit)
	}
	c.Set(keyBody, data)
	return data, nil
}

func decodeJSON(data []byte, v any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		data = []byte("{}")
	}
	if data[0] != '{' {
		if !json.Valid(data) {
			return invalid("the request body is not valid JSON")
		}
		return invalid("the request body must be a JSON object")
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	err := d.Decode(v)
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case err == nil:
		if d.More() {
			return invalid("the request body has data after the JSON object")
		}
		return nil
	case errors.As(err, &te):
		return invalidField(te.Field, "must be %s, got %s", jsonKind(te.Type.Kind().String()), te.Value)
	case errors.As(err, &se), errors.Is(err, io.ErrUnexpectedEOF):
		return invalid("the request body is not valid JSON: %v", err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return invalidField(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), "unknown field")
	}
	return invalid("the request body could not be read: %v", err)
}

func jsonKind(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"), strings.HasPrefix(goKind, "float"):
		return "a number"
	case goKind == "string":
		return "a string"
	case goKind == "bool":
		return "a boolean"
	case goKind == "slice", goKind == "array":
		return "an array"
	}
	return "an object"
}

// validateBody checks a request body against a request schema of package schemas and answers
// the first violation as a 400 naming the field: "messages.0.role: value must be one of ...".
func validateBody(schema string, data []byte) error {
	err := schemas.Validate(schema, data, schemas.Strict)
	var se *schemas.Error
	if errors.As(err, &se) {
		field, msg := se.Path, se.Message
		if rest, ok := strings.CutPrefix(msg, "missing properties: "); ok {
			name := strings.Trim(strings.SplitN(rest, ",", 2)[0], `'" `)
			field, msg = joinPath(field, name), "field required"
		}
		if field == "" {
			return invalid("%s", msg)
		}
		return invalidField(field, "%s", msg)
	}
	if err != nil {
		return invalid("the request body is not valid JSON")
	}
	return nil
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// bodySchema is the request schema the route's line of the table declares. A handler that reads
// a body its route does not declare is a bug in the fake (the OpenAPI document would not
// describe it): it panics, which the server reports as a violation.
func (c *call) bodySchema() string {
	if c.route.body == "" {
		panic(fmt.Sprintf("%s %s reads a request body, but its line of the route table declares no request schema", c.route.method, c.route.path))
	}
	return c.route.body
}

// bindValid reads a JSON object body, checks it against the route's request schema (answering
// the first violation as a 400 naming the field) and decodes it into v. An absent body is an
// empty object, since clients send body-less POSTs (gaps §2).
func (c *call) bindValid(v any) error {
	schema := c.bodySchema()
	data, err := c.body()
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if err := validateBody(schema, data); err != nil {
		return err
	}
	return decodeJSON(data, v)
}
