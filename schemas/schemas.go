// Package schemas holds the JSON Schema documents (draft 2020-12) for every request and response
// shape of the Platform API, embedded, with one small validator used by the fake's tests and by
// the conformance suite.
//
// A schema is named by its path below this directory without the ".json" suffix: "error",
// "models/model", "models/model_list". Each document's $id is BaseURL + its path, so documents
// refer to each other with relative references ("../common.json#/$defs/timestamp").
//
// Schemas describe what the specification promises and leave objects open: a deployment may be
// newer than the schemas and send more properties. Strict validation closes every object schema
// (as if it said "unevaluatedProperties": false), which is how the fake's own tests prove that the
// fake emits nothing outside its schemas. For that to work, an object schema lists all of its
// properties itself: share property definitions with $ref, never extend an object with allOf.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// BaseURL is the prefix of every schema's $id.
const BaseURL = "https://platformkit.dev/schemas/"

//go:embed *.json */*.json
var files embed.FS

// The OpenAPI 3.1 documents, generated from the fake's route table and the schemas here; they are
// not JSON Schemas, so Names leaves them out.
var (
	//go:embed openapi.json
	openAPI []byte
	//go:embed openapi-control.json
	openAPIControl []byte
)

// OpenAPI returns the OpenAPI 3.1 document of the API (openapi.json): every operation with its
// parameters, request body, responses, security schemes and headers, self-contained.
func OpenAPI() []byte { return bytes.Clone(openAPI) }

// ControlOpenAPI returns the OpenAPI 3.1 document of the fake's test-control API
// (openapi-control.json).
func ControlOpenAPI() []byte { return bytes.Clone(openAPIControl) }

// isOpenAPI reports whether the file at p is one of the OpenAPI documents.
func isOpenAPI(p string) bool { return p == "openapi.json" || p == "openapi-control.json" }

// FS returns the embedded schema documents.
func FS() fs.FS { return files }

// Mode selects how object schemas treat properties they do not name.
type Mode int

const (
	// Lenient accepts properties a schema does not name, as a client of a newer deployment must.
	Lenient Mode = iota
	// Strict rejects any property a schema does not name.
	Strict
)

// Error is a validation failure: the document at Path (dotted, "" for the root) broke Message.
type Error struct {
	Schema  string // schema name, e.g. "models/model"
	Path    string // dotted location in the document, e.g. "data.0.capabilities"
	Message string
	// Keyword is the JSON Schema keyword the document broke ("required", "type", "enum",
	// "unevaluatedProperties", ...), or "number" for a number no 64-bit float holds: what kind of
	// mistake it is, which Message words for people.
	Keyword string
}

func (e *Error) Error() string {
	where := e.Path
	if where == "" {
		where = "(root)"
	}
	return fmt.Sprintf("%s: %s: %s", e.Schema, where, e.Message)
}

// compiler compiles the schemas of one mode on demand. Compiling every schema costs hundreds of
// milliseconds (each document is checked against the 2020-12 meta-schema), which a process that
// validates a handful of shapes (the fake's binary, one test) should not pay at start: a schema is
// compiled the first time it is used, together with the documents it refers to, and kept.
type compiler struct {
	once sync.Once
	c    *jsonschema.Compiler
	err  error // a document that does not parse; reported by every use

	mu   sync.Mutex // held while compiling: jsonschema.Compiler is not safe for concurrent use
	done sync.Map   // name → *compiled; read without the lock on every validation
}

// compiled is a compiled schema and, when the verdict (verdict.go) judges documents for it, its
// layout for the verdict.
type compiled struct {
	*jsonschema.Schema
	plan *node
}

// compilers holds one compiler per mode, for the life of the process.
var compilers = [2]*compiler{{}, {}}

// schema returns the compiled schema name in mode m. A compiled schema is immutable, so callers
// validate with it concurrently.
func schema(name string, m Mode) (*compiled, error) {
	if m != Lenient && m != Strict {
		return nil, fmt.Errorf("schemas: unknown mode %d", m)
	}
	cc := compilers[m]
	if s, ok := cc.done.Load(name); ok {
		return s.(*compiled), nil
	}
	cc.once.Do(func() { cc.c, cc.err = newCompiler(m) })
	if cc.err != nil {
		return nil, cc.err
	}
	if _, known := slices.BinarySearch(names(), name); !known {
		return nil, fmt.Errorf("schemas: no schema named %q", name)
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if s, ok := cc.done.Load(name); ok { // compiled while this call waited for the lock
		return s.(*compiled), nil
	}
	s, err := cc.c.Compile(BaseURL + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("schemas: %s.json: %w", name, err)
	}
	c := &compiled{s, planOf(s)}
	cc.done.Store(name, c)
	return c, nil
}

// Names lists every schema name, sorted.
func Names() []string { return slices.Clone(names()) }

// names is the sorted list of embedded schemas, walked once.
var names = sync.OnceValue(func() []string {
	var names []string
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") && !isOpenAPI(p) {
			names = append(names, strings.TrimSuffix(p, ".json"))
		}
		return nil
	})
	sort.Strings(names)
	return names
})

// Check compiles every schema in both modes and reports the first document that does not
// compile. Validate compiles only what it uses, so a test calls Check to prove the whole set.
func Check() error {
	for _, m := range []Mode{Lenient, Strict} {
		for _, name := range names() {
			if _, err := schema(name, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// Validate checks the JSON document doc against the named schema. It returns an *Error for a
// document that does not conform, and a plain error for an unknown schema or malformed JSON.
func Validate(name string, doc []byte, mode Mode) error {
	v, err := Decode(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return ValidateValue(name, v, mode)
}

// Decode reads the JSON document doc as Validate does, numbers as json.Number, for
// ValidateValue: a caller that needs the decoded value as well parses the document once.
func Decode(doc []byte) (any, error) {
	if v, _, ok := parse(doc); ok {
		return v, nil
	}
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("document is not JSON: %w", err)
	}
	if d.More() {
		return nil, errors.New("document has data after the JSON value")
	}
	return v, nil
}

// DecodeValid is Decode and then ValidateValue, for a caller that needs both the value and the
// verdict on it, in one walk fewer: the decode notes whether every number fits, which
// ValidateValue would otherwise walk the whole value to find out. The value is nil when the
// document does not decode, and returned with the error when it breaks the schema.
func DecodeValid(name string, doc []byte, mode Mode) (any, error) {
	v, fits, ok := parse(doc)
	if !ok {
		var err error
		if v, err = Decode(doc); err != nil { // encoding/json decides: the value or the error
			return nil, err
		}
		fits = numbersFit(v)
	}
	return v, validateValue(name, v, mode, fits)
}

// ValidateValue is Validate for a document already decoded by encoding/json (numbers as float64
// or json.Number).
func ValidateValue(name string, v any, mode Mode) error {
	return validateValue(name, v, mode, numbersFit(v))
}

// validateValue is ValidateValue of a value whose numbers do or do not all fit a 64-bit float.
func validateValue(name string, v any, mode Mode, fits bool) error {
	s, err := schema(name, mode)
	if err != nil {
		return err
	}
	if fits {
		if s.plan != nil {
			switch judgeValue(s.plan, v) {
			case valid:
				if crossCheck {
					mustAgree(name, v, true, s.Validate(v))
				}
				return nil
			case invalid:
				if crossCheck {
					mustAgree(name, v, false, s.Validate(v))
				}
			}
		}
	} else if e := checkNumbers(v, nil); e != nil {
		e.Schema, e.Keyword = name, "number"
		return e
	}
	err = s.Validate(v)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		leaf := deepest(ve)
		msg := leaf.Message
		if strings.HasSuffix(leaf.KeywordLocation, "/unevaluatedProperties") && msg == "not allowed" {
			msg = "unknown field"
		}
		kw := leaf.KeywordLocation[strings.LastIndexByte(leaf.KeywordLocation, '/')+1:]
		if kw == "enum" || kw == "const" {
			// The validator prints a JSON null among the allowed values as Go's "<nil>".
			msg = strings.ReplaceAll(msg, "<nil>", "null")
		}
		return &Error{Schema: name, Path: dotted(leaf.InstanceLocation), Message: msg, Keyword: kw}
	}
	return err
}

// MaxNumberLen is the longest JSON number a document may hold, in characters. The longest
// float64 in shortest form has 24; an exact decimal expansion a client might print has a few dozen.
const MaxNumberLen = 100

// checkNumbers refuses the numbers the validator cannot handle, before it sees them: it converts
// every number to a big.Rat, and math/big refuses exponents beyond 10^6 (returning nil, which the
// validator does not check: a nil dereference, santhosh-tekuri/jsonschema#248), and parses long
// digit strings in superlinear time (santhosh-tekuri/jsonschema#261). The rule is the one every
// number of a JSON API can live with: it fits a 64-bit float. path is the location so far, built
// only when a number is refused.
func checkNumbers(v any, path []string) *Error {
	switch v := v.(type) {
	case json.Number:
		if msg := numberProblem(string(v)); msg != "" {
			return &Error{Path: strings.Join(path, "."), Message: msg}
		}
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &Error{Path: strings.Join(path, "."), Message: "number must be finite"}
		}
	case []any:
		for i, item := range v {
			if e := checkNumbers(item, append(path, strconv.Itoa(i))); e != nil {
				return e
			}
		}
	case map[string]any:
		// Map order is random: of several bad fields, report the first by name, so that the same
		// body always gets the same answer.
		var first *Error
		firstKey := ""
		for k, item := range v {
			if first != nil && k > firstKey {
				continue
			}
			if e := checkNumbers(item, append(path, PathSegment(k))); e != nil {
				first, firstKey = e, k
			}
		}
		return first
	}
	return nil
}

// numberProblem says why the JSON number n does not fit a 64-bit float, or "" when it does.
func numberProblem(n string) string {
	const want = "numbers must fit a 64-bit float (magnitude from 5e-324 to 1.8e308, or 0) in at most 100 characters"
	if len(n) > MaxNumberLen {
		return fmt.Sprintf("a number of %d characters is too long: %s", len(n), want)
	}
	mant, exp, _ := strings.Cut(strings.ToLower(n), "e")
	// A zero mantissa parses as 0 whatever its exponent, but math/big still refuses the exponent.
	if len(strings.TrimLeft(exp, "+-")) > 4 {
		return fmt.Sprintf("%s is out of range: %s", n, want)
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || (f == 0 && strings.Trim(mant, "-0.") != "") {
		return fmt.Sprintf("%s is out of range: %s", n, want)
	}
	return ""
}

// deepest picks the most specific cause: the one furthest into the document, so that a failed
// oneOf over content blocks reports the field inside the block rather than "oneOf failed".
func deepest(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return ve
	}
	var best *jsonschema.ValidationError
	for _, c := range ve.Causes {
		if d := deepest(c); best == nil || deeper(d, best) {
			best = d
		}
	}
	return best
}

// deeper orders candidate errors: the deepest location first, then, since the validator visits
// properties in map order, by location and keyword, so that the same body always gets the same
// message.
func deeper(a, b *jsonschema.ValidationError) bool {
	if da, db := depth(a.InstanceLocation), depth(b.InstanceLocation); da != db {
		return da > db
	}
	if a.InstanceLocation != b.InstanceLocation {
		return a.InstanceLocation < b.InstanceLocation
	}
	return a.KeywordLocation < b.KeywordLocation
}

func depth(loc string) int { return strings.Count(loc, "/") }

// dotted turns the validator's instance location (a JSON pointer whose tokens it also
// percent-escapes) into a field path: "/messages/0/a%20b" is `messages.0."a b"`.
func dotted(loc string) string {
	if loc == "" {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(loc, "/"), "/")
	for i, p := range parts {
		if u, err := url.PathUnescape(p); err == nil {
			p = u
		}
		parts[i] = PathSegment(strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~"))
	}
	return strings.Join(parts, ".")
}

// PathSegment writes one step of a field path ("messages.0.content"): a name or an index as it
// is, and any other property name (empty, or holding a dot, a space, a colon, a quote, anything
// beyond letters, digits, "_" and "-") as a JSON string, so that a message "NAME: unknown field"
// cannot be misread whatever NAME a client sent.
func PathSegment(name string) string {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return strconv.Quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

// newCompiler adds every embedded document to a compiler for mode, closing object schemas in
// strict mode; nothing is compiled yet.
func newCompiler(mode Mode) (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schemas: %s is not an embedded schema", u)
	}
	for _, name := range names() {
		raw, err := files.ReadFile(name + ".json")
		if err != nil {
			return nil, err
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("schemas: %s.json: %w", name, err)
		}
		BothDialects(doc) // dialect.go: the maker's words are the API's too
		if mode == Strict {
			closeObjects(doc)
		}
		raw, _ = json.Marshal(doc)
		if err := c.AddResource(BaseURL+name+".json", bytes.NewReader(raw)); err != nil {
			return nil, fmt.Errorf("schemas: %s.json: %w", name, err)
		}
	}
	return c, nil
}

// closeObjects adds "unevaluatedProperties": false to every object schema in doc that names
// properties and says nothing itself about the others. It walks only keywords whose values are
// shapes of the document, so data ("const", "examples") and assertions ("if", "not",
// "contains"), which may describe a part of an object, are left open.
func closeObjects(schema any) {
	m, ok := schema.(map[string]any)
	if !ok {
		return
	}
	if _, hasProps := m["properties"]; hasProps {
		_, a := m["additionalProperties"]
		_, u := m["unevaluatedProperties"]
		if !a && !u {
			m["unevaluatedProperties"] = false
		}
	}
	for _, k := range []string{"additionalProperties", "unevaluatedProperties", "items", "then", "else", "unevaluatedItems"} {
		closeObjects(m[k])
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
		if arr, ok := m[k].([]any); ok {
			for _, s := range arr {
				closeObjects(s)
			}
		}
	}
	for _, k := range []string{"properties", "patternProperties", "$defs", "dependentSchemas"} {
		if mm, ok := m[k].(map[string]any); ok {
			for _, s := range mm {
				closeObjects(s)
			}
		}
	}
}
