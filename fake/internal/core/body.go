package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"reflect"
	"strconv"
	"strings"

	"github.com/platformkit/platformkit/schemas"
)

// Body reads the request body, bounded by the interface's limit: a larger body is refused with
// 413 request_too_large without being read into memory (gaps §1). A declared Content-Type other
// than JSON is refused (spec 5.1); a missing one is tolerated, as are body-less POSTs (gaps §2).
// The control API takes any Content-Type, since people call it by hand with curl -d.
func (c *Call) Body() ([]byte, error) {
	limit := int64(DefaultBodyLimit)
	if c.Route.Ifc != nil {
		limit = c.Route.Ifc.bodyLimit
	}
	if c.Route.limit > 0 {
		limit = c.Route.limit
	}
	if c.Request.ContentLength > limit {
		return nil, NewError(ErrRequestTooLarge, "request body is %d bytes; the limit is %d bytes", c.Request.ContentLength, limit)
	}
	if ct := c.Request.Header.Get("Content-Type"); ct != "" && c.Route.Ifc != nil {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, Invalid("Content-Type: requests with a body must be application/json, got %s", Quoted(ct, MaxExcerpt)).Because(ReasonContentType)
		}
	}
	if c.Request.Body == nil {
		return nil, nil
	}
	data, err := readBody(c.Request.Body, c.Request.ContentLength, limit)
	if err != nil {
		// The error is the connection's (a timeout, a reset, a short body): its text names Go's
		// network internals, and the client needs only to know the body did not arrive.
		return nil, Invalid("request body: the connection closed or timed out before the body arrived in full (%d bytes read)", len(data)).Because(ReasonBodyCut)
	}
	if int64(len(data)) > limit {
		return nil, NewError(ErrRequestTooLarge, "request body exceeds the limit of %d bytes", limit)
	}
	if c.Route.Ifc != nil && len(data) > 0 {
		// The maker's words read as the reference's (dialect.go); the body as sent is kept
		// only when that changed it.
		if canon := InReferenceWords(data); &canon[0] != &data[0] {
			c.X.sent, data = data, canon
		}
	}
	c.X.body = data
	return data, nil
}

// readBody is io.ReadAll of at most limit+1 bytes of r, into a buffer sized for the declared
// length (up to 64 KiB, so that a declared size alone never reserves much): one allocation for
// the usual body, where growing from 512 bytes takes several and copies each time.
func readBody(r io.Reader, length, limit int64) ([]byte, error) {
	size := 512
	if length > 0 {
		size = int(min(length+1, 64<<10))
	}
	lr := io.LimitedReader{R: r, N: limit + 1}
	b := make([]byte, 0, size)
	for {
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append pick the next size
		}
	}
}

func DecodeJSON(data []byte, v any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		data = []byte("{}")
	}
	if data[0] != '{' {
		if !json.Valid(data) {
			return Invalid("the request body is not valid JSON").Because(ReasonBodyNotJSON)
		}
		return Invalid("the request body must be a JSON object").Because(ReasonBodyNotObject)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return DecodeError(err)
	}
	if d.More() {
		return Invalid("the request body has data after the JSON object").Because(ReasonBodyNotJSON)
	}
	return nil
}

// DecodeError is the one translation of an encoding/json error into the API's terms: the field
// path and the JSON type expected, never a Go type or struct name ("Go struct field
// messageRequest.max_tokens of type int" means nothing to a client in another language).
func DecodeError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		if te.Field == "" {
			return Invalid("the request body must be %s, got %s", jsonKind(te.Type), Excerpt(te.Value, MaxExcerpt)).Because(ReasonBodyNotObject)
		}
		return InvalidField(te.Field, "must be %s, got %s", jsonKind(te.Type), Excerpt(te.Value, MaxExcerpt)).Because(ReasonWrongType)
	case errors.As(err, &se):
		if tooDeep := depthError(se); tooDeep != nil {
			return tooDeep
		}
		return Invalid("the request body is not valid JSON: %s at byte %d", strings.TrimPrefix(se.Error(), "json: "), se.Offset).Because(ReasonBodyNotJSON)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return Invalid("the request body is not valid JSON: it ends in the middle of a value").Because(ReasonBodyNotJSON)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, uerr := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		if uerr != nil {
			return Invalid("the request body has an unknown field").Because(ReasonUnknownField)
		}
		return InvalidField(schemas.PathSegment(name), "unknown field").Because(ReasonUnknownField)
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae // from an UnmarshalJSON of the fake's own, already in the API's terms
	}
	return Invalid("the request body does not have the shape this endpoint takes").Because(ReasonWrongType)
}

// jsonKind names the JSON type a Go type is decoded from, with the range of an integer.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("an integer from %d to %d", int64(-1)<<(t.Bits()-1), int64(1)<<(t.Bits()-1)-1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("an integer from 0 to %d", uint64(1)<<t.Bits()-1)
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.Interface:
		return "a JSON value"
	}
	return "an object"
}

// ValidateBody checks a request body against a request schema of package schemas and answers
// the first violation as a 400 naming the field: "messages.0.role: value must be one of ...".
func ValidateBody(schema string, data []byte) error {
	_, err := decodeValue(schema, data)
	return err
}

// decodeValue decodes a request body once (numbers as json.Number) and checks the decoded value
// against a request schema of package schemas, answering the first violation as validateBody
// does. What it returns is the body a handler derives everything else from: a second decode of
// the same bytes would be the same value again. A body that decoded but broke the schema is
// returned with the error; nil when it did not decode.
func decodeValue(schema string, data []byte) (any, error) {
	doc, err := schemas.DecodeValid(schema, data, schemas.Strict)
	return doc, bodyError(err)
}

// bodyError answers an error of schemas.Decode or schemas.ValidateValue as a 400 naming the
// field; nil for nil.
func bodyError(err error) error {
	if err == nil {
		return nil // before se, whose address moves it to the heap
	}
	var se *schemas.Error
	if errors.As(err, &se) {
		field, msg := se.Path, se.Message
		if rest, ok := strings.CutPrefix(msg, "missing properties: "); ok {
			name := strings.Trim(strings.SplitN(rest, ",", 2)[0], `'" `)
			field, msg = joinPath(field, name), "field required"
		}
		reason := reasonOfKeyword(se.Keyword, field)
		if field == "" { // the document itself: "expected object, but got array"
			return Invalid("the request body: %s", msg).Because(reason)
		}
		return InvalidField(field, "%s", msg).Because(reason)
	}
	if err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			if tooDeep := depthError(syn); tooDeep != nil {
				return tooDeep
			}
		}
		return Invalid("the request body is not valid JSON").Because(ReasonBodyNotJSON)
	}
	return nil
}

// DecodeBody reads the request body and decodes it once, checked against the route's request
// schema (decodeValue). The coverage's count of the fields sent is taken from the decoded value
// here, before the handler changes it and even when the schema refused it, instead of reading
// the bytes again once the request is answered.
func (c *Call) DecodeBody() ([]byte, any, error) {
	data, err := c.Body()
	if err != nil {
		return nil, nil, err
	}
	v, err := c.decodeValue(data)
	c.X.bodyJSON = v != nil
	return data, v, err
}

// decodeValue is decodeValue against the route's request schema, counting the fields the
// decoded body sends for coverage (which would otherwise read them from the bytes again).
func (c *Call) decodeValue(data []byte) (any, error) {
	v, err := decodeValue(c.bodySchema(), data)
	if v != nil && !c.Srv.Cfg.NoCoverage {
		c.X.bodyCounted = sentFields(c.Context, v, &c.X.bodySent)
	}
	return v, err
}

// maxJSONDepth is how deep encoding/json reads nested arrays and objects: a body nested deeper is
// valid JSON that the fake does not read.
const maxJSONDepth = 10_000

// depthError is the refusal of a body nested deeper than maxJSONDepth, naming the limit and
// where it was crossed; nil for any other syntax error.
func depthError(se *json.SyntaxError) error {
	if !strings.Contains(se.Error(), "exceeded max depth") {
		return nil
	}
	return Invalid("the request body nests arrays and objects deeper than %d levels, the most the fake reads (crossed at byte %d)", maxJSONDepth, se.Offset).Because(ReasonBodyNotJSON)
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
func (c *Call) bodySchema() string {
	if c.Route.Body == "" {
		panic(fmt.Sprintf("%s %s reads a request body, but its line of the route table declares no request schema", c.Route.Method, c.Route.Path))
	}
	return c.Route.Body
}

// BindValid reads a JSON object body, checks it against the route's request schema (answering
// the first violation as a 400 naming the field) and decodes it into v, parsing the body once:
// the decoded value is assigned to v, unless v takes a shape assign leaves to encoding/json,
// which then decodes the bytes. An absent body is an empty object, since clients send body-less
// POSTs (gaps §2).
func (c *Call) BindValid(v any) error {
	data, err := c.Body()
	if err != nil {
		return err
	}
	empty := len(bytes.TrimSpace(data)) == 0
	if empty {
		data = []byte("{}")
	}
	doc, err := c.decodeValue(data)
	c.X.bodyJSON = doc != nil && !empty // what decoded is the body the client sent
	if err != nil {
		return err
	}
	if AssignDecoded(doc, v) {
		return nil
	}
	return DecodeJSON(data, v)
}
