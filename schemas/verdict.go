package schemas

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The verdict: whether a decoded document conforms to a compiled schema, without building an
// error. The validator builds one for every branch it tries and rejects on the way to a verdict:
// each if whose condition fails, each oneOf alternative that does not match, each property an
// unevaluatedProperties has to look at. On a Messages request of 200 documents that was 35 µs a
// block, most of a long request's time to its first event. A document nearly always conforms, so
// ValidateValue asks for the verdict first and runs the validator only when the verdict is not
// "valid": every message a client reads is still the validator's, word for word.
//
// The verdict interprets the schema the validator compiled (its refs resolved, strict mode's
// closed objects included) with the validator's own semantics for the keywords our schemas use,
// annotations included: the properties that properties, additionalProperties and the in-place
// subschemas that passed (allOf, anyOf, oneOf, if, then, else, $ref) evaluated, which
// unevaluatedProperties then judges. A schema that uses any other keyword is never given a
// verdict (supported): the validator decides for it, as before.
//
// A wrong "valid" would let a request through that the validator refuses, so the verdict is
// checked against the validator on every document the repository's tests validate when
// PLATFORMKIT_SCHEMAS_CROSSCHECK is set (`make test` sets it), and by FuzzVerdict.

type verdict int8

const (
	unknown verdict = iota // the verdict cannot tell: an object of more than 64 properties, a Go type JSON does not decode to
	valid
	invalid
)

func (v verdict) String() string { return [...]string{"unknown", "valid", "invalid"}[v] }

// crossCheck, when set, has ValidateValue run the validator beside the verdict and panic when
// they disagree.
var crossCheck = os.Getenv("PLATFORMKIT_SCHEMAS_CROSSCHECK") != ""

// judges hold the key stacks of verdicts in progress, so that a verdict allocates nothing.
var judges = sync.Pool{New: func() any { return new(judge) }}

// judge gives one verdict. keys is a stack of the property names of the objects being judged,
// each object's names in the order its bits of an evaluated mask stand for.
type judge struct {
	keys    []string
	unknown bool
}

// judgeValue gives the verdict on v against s, a schema that supported accepted.
func judgeValue(s *jsonschema.Schema, v any) verdict {
	j := judges.Get().(*judge)
	defer func() {
		j.keys, j.unknown = j.keys[:0], false
		judges.Put(j)
	}()
	ok := j.value(s, v)
	switch {
	case j.unknown:
		return unknown
	case ok:
		return valid
	}
	return invalid
}

// value judges v, a value of its own location (a property, an item, the document).
func (j *judge) value(s *jsonschema.Schema, v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		ok, _ := j.apply(s, v, nil)
		return ok
	}
	if len(m) > 64 {
		j.unknown = true
		return false
	}
	base := len(j.keys)
	for k := range m {
		j.keys = append(j.keys, k)
	}
	ok, _ = j.apply(s, m, j.keys[base:])
	j.keys = j.keys[:base]
	return ok
}

// apply judges v against s in place and returns, for an object, the mask of its keys s
// evaluated (bit i for keys[i]), which the in-place subschemas that pass add to.
func (j *judge) apply(s *jsonschema.Schema, v any, keys []string) (bool, uint64) {
	if j.unknown {
		return false, 0
	}
	if s.Always != nil {
		return *s.Always, 0
	}
	if len(s.Types) > 0 && !j.hasType(s.Types, v) {
		return false, 0
	}
	if len(s.Constant) > 0 && !equal(v, s.Constant[0]) {
		return false, 0
	}
	if len(s.Enum) > 0 && !inEnum(v, s.Enum) {
		return false, 0
	}
	if s.Format != "" {
		if f := jsonschema.Formats[s.Format]; f != nil && !f(v) {
			return false, 0
		}
	}
	var evaluated uint64
	switch v := v.(type) {
	case map[string]any:
		var ok bool
		if evaluated, ok = j.object(s, v, keys); !ok {
			return false, 0
		}
	case []any:
		if !j.array(s, v) {
			return false, 0
		}
	case string:
		if !str(s, v) {
			return false, 0
		}
	case json.Number, float64:
		if !j.number(s, v) {
			return false, 0
		}
	}
	// The in-place subschemas, in the validator's order; those that pass add what they evaluated.
	inPlace := func(sub *jsonschema.Schema) bool {
		ok, e := j.apply(sub, v, keys)
		if ok {
			evaluated |= e
		}
		return ok
	}
	if s.Ref != nil && !inPlace(s.Ref) {
		return false, 0
	}
	if s.Not != nil {
		if ok, _ := j.apply(s.Not, v, keys); ok {
			return false, 0
		}
	}
	for _, sub := range s.AllOf {
		if !inPlace(sub) {
			return false, 0
		}
	}
	if len(s.AnyOf) > 0 {
		matched := false
		for _, sub := range s.AnyOf { // every one: each that passes adds what it evaluated
			matched = inPlace(sub) || matched
		}
		if !matched {
			return false, 0
		}
	}
	if len(s.OneOf) > 0 {
		matched := 0
		for _, sub := range s.OneOf {
			if inPlace(sub) {
				matched++
			}
		}
		if matched != 1 {
			return false, 0
		}
	}
	if s.If != nil {
		branch := s.Else
		if inPlace(s.If) {
			branch = s.Then
		}
		if branch != nil && !inPlace(branch) {
			return false, 0
		}
	}
	if m, ok := v.(map[string]any); ok && s.UnevaluatedProperties != nil {
		for i, k := range keys {
			if evaluated&(1<<i) == 0 && !j.value(s.UnevaluatedProperties, m[k]) {
				return false, 0
			}
		}
		evaluated = all(len(keys))
	}
	return !j.unknown, evaluated
}

// object judges the keywords of objects and returns the keys that properties and
// additionalProperties evaluated.
func (j *judge) object(s *jsonschema.Schema, m map[string]any, keys []string) (uint64, bool) {
	if s.MinProperties != -1 && len(m) < s.MinProperties || s.MaxProperties != -1 && len(m) > s.MaxProperties {
		return 0, false
	}
	for _, name := range s.Required {
		if _, ok := m[name]; !ok {
			return 0, false
		}
	}
	var evaluated uint64
	if len(s.Properties) > 0 {
		for i, k := range keys {
			if sub, ok := s.Properties[k]; ok {
				evaluated |= 1 << i
				if !j.value(sub, m[k]) {
					return 0, false
				}
			}
		}
	}
	if s.PropertyNames != nil {
		for _, k := range keys {
			if !j.value(s.PropertyNames, k) {
				return 0, false
			}
		}
	}
	switch extra := s.AdditionalProperties.(type) {
	case bool:
		if !extra && evaluated != all(len(keys)) {
			return 0, false
		}
		evaluated = all(len(keys))
	case *jsonschema.Schema:
		for i, k := range keys {
			if evaluated&(1<<i) == 0 && !j.value(extra, m[k]) {
				return 0, false
			}
		}
		evaluated = all(len(keys))
	}
	for name, needs := range s.DependentRequired {
		if _, ok := m[name]; ok {
			for _, n := range needs {
				if _, ok := m[n]; !ok {
					return 0, false
				}
			}
		}
	}
	return evaluated, true
}

func (j *judge) array(s *jsonschema.Schema, a []any) bool {
	if s.MinItems != -1 && len(a) < s.MinItems || s.MaxItems != -1 && len(a) > s.MaxItems {
		return false
	}
	for i, item := range a {
		sub := s.Items2020
		if i < len(s.PrefixItems) {
			sub = s.PrefixItems[i]
		}
		if sub == nil {
			break
		}
		if !j.value(sub, item) {
			return false
		}
	}
	return true
}

func str(s *jsonschema.Schema, v string) bool {
	if s.MinLength != -1 || s.MaxLength != -1 {
		n := utf8.RuneCountInString(v)
		if s.MinLength != -1 && n < s.MinLength || s.MaxLength != -1 && n > s.MaxLength {
			return false
		}
	}
	if s.Pattern != nil && !s.Pattern.MatchString(v) {
		return false
	}
	if decode := jsonschema.Decoders[s.ContentEncoding]; s.ContentEncoding != "" && decode != nil {
		if _, err := decode(v); err != nil {
			return false
		}
	}
	return true
}

func (j *judge) number(s *jsonschema.Schema, v any) bool {
	return (s.Minimum == nil || j.compare(v, s.Minimum) >= 0) &&
		(s.ExclusiveMinimum == nil || j.compare(v, s.ExclusiveMinimum) > 0) &&
		(s.Maximum == nil || j.compare(v, s.Maximum) <= 0) &&
		(s.ExclusiveMaximum == nil || j.compare(v, s.ExclusiveMaximum) < 0)
}

// compare compares the number v with r as the validator does (exactly, as the rational number
// its text writes), without math/big for the usual case: an integer of up to 18 digits against an
// integer bound.
func (j *judge) compare(v any, r *big.Rat) int {
	if n, ok := v.(json.Number); ok && r.IsInt() && r.Num().IsInt64() {
		if i, ok := smallInt(string(n)); ok {
			return cmpInt(i, r.Num().Int64())
		}
	}
	x, ok := rat(v)
	if !ok {
		j.unknown = true
		return 0
	}
	return x.Cmp(r)
}

func (j *judge) hasType(types []string, v any) bool {
	got := ""
	switch v.(type) {
	case nil:
		got = "null"
	case bool:
		got = "boolean"
	case json.Number, float64:
		got = "number"
	case string:
		got = "string"
	case []any:
		got = "array"
	case map[string]any:
		got = "object"
	default:
		j.unknown = true
		return false
	}
	for _, t := range types {
		if t == got || t == "integer" && got == "number" && j.integral(v) {
			return true
		}
	}
	return false
}

// integral reports whether the number v is an integer, as the validator's big.Rat says: 1.0 and
// 1e2 are.
func (j *judge) integral(v any) bool {
	if n, ok := v.(json.Number); ok && !strings.ContainsAny(string(n), ".eE") {
		return true
	}
	x, ok := rat(v)
	if !ok {
		j.unknown = true
		return false
	}
	return x.IsInt()
}

func inEnum(v any, enum []any) bool {
	for _, e := range enum {
		if equal(v, e) {
			return true
		}
	}
	return false
}

// equal is the validator's equality of JSON values: numbers by value (1 and 1.0 are equal),
// objects whatever their key order.
func equal(a, b any) bool {
	switch a := a.(type) {
	case string:
		b, ok := b.(string)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case nil:
		return b == nil
	case json.Number, float64:
		if n, ok := a.(json.Number); ok && n == b {
			return true
		}
		x, ok1 := rat(a)
		y, ok2 := rat(b)
		return ok1 && ok2 && x.Cmp(y) == 0
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			if bv, ok := b[k]; !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// rat is the number v as the validator reads it: the rational its text (fmt.Sprint) writes.
func rat(v any) (*big.Rat, bool) {
	switch v.(type) {
	case json.Number, float64:
		return new(big.Rat).SetString(fmt.Sprint(v))
	}
	return nil, false
}

// smallInt parses an integer literal of at most 18 digits, which int64 holds exactly.
func smallInt(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(s) {
		n = -n
	}
	return n, true
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// all is the mask of n keys.
func all(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

// supported reports whether every schema reachable from s uses only keywords the verdict knows.
func supported(s *jsonschema.Schema) bool {
	seen := map[*jsonschema.Schema]bool{}
	var walk func(*jsonschema.Schema) bool
	walk = func(s *jsonschema.Schema) bool {
		if s == nil || seen[s] {
			return true
		}
		seen[s] = true
		if s.RecursiveRef != nil || s.DynamicRef != nil || len(s.Dependencies) > 0 || len(s.DependentSchemas) > 0 ||
			len(s.PatternProperties) > 0 || s.RegexProperties || s.UniqueItems || s.Items != nil || s.AdditionalItems != nil ||
			s.Contains != nil || s.UnevaluatedItems != nil || s.MultipleOf != nil || s.ContentMediaType != "" ||
			s.ContentSchema != nil || len(s.Extensions) > 0 {
			return false
		}
		if extra, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !walk(extra) {
			return false
		}
		subs := []*jsonschema.Schema{s.Ref, s.Not, s.If, s.Then, s.Else, s.PropertyNames, s.UnevaluatedProperties, s.Items2020}
		subs = append(append(append(append(subs, s.AllOf...), s.AnyOf...), s.OneOf...), s.PrefixItems...)
		for _, p := range s.Properties {
			subs = append(subs, p)
		}
		for _, sub := range subs {
			if !walk(sub) {
				return false
			}
		}
		return true
	}
	return walk(s)
}

// numbersFit reports whether every number in v fits a 64-bit float (checkNumbers), without
// building the location that checkNumbers builds for the one that does not.
func numbersFit(v any) bool {
	switch v := v.(type) {
	case json.Number:
		return numberProblem(string(v)) == ""
	case float64:
		return !math.IsNaN(v) && !math.IsInf(v, 0)
	case []any:
		for _, item := range v {
			if !numbersFit(item) {
				return false
			}
		}
	case map[string]any:
		for _, item := range v {
			if !numbersFit(item) {
				return false
			}
		}
	}
	return true
}

// mustAgree panics when the verdict on v (conforms or not) is not the validator's: crossCheck.
func mustAgree(name string, v any, conforms bool, err error) {
	if conforms != (err == nil) {
		doc, _ := json.Marshal(v)
		panic(fmt.Sprintf("schemas: the verdict on a document for %s (conforms: %v) is not the validator's (%v): %s", name, conforms, err, doc))
	}
}
