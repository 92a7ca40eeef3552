package schemas

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"os"
	"reflect"
	"slices"
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
// verdict (supported): the validator decides for it, as before. It walks a layout of the compiled
// schema made once per schema (planOf): nodes that hold their subschemas, their properties in a
// slice and which groups of keywords they use, and the guards that dispatch a content block on
// its type judged as string comparisons.
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

// judge gives one verdict. keys and vals are stacks of the properties of the objects being
// judged, read from each object once: its names in the order its bits of an evaluated mask stand
// for, and their values.
type judge struct {
	keys    []string
	vals    []any
	unknown bool
}

// node is a compiled schema laid out for the verdict: the validator's *jsonschema.Schema for its
// scalar keywords, and its subschemas as nodes, properties in a slice (a handful are found faster
// by comparing names than by hashing) and formats and encodings looked up once.
type node struct {
	*jsonschema.Schema
	props       []prop
	propIndex   map[string]*node // the properties of a schema with more than propsScan
	additional  additional
	extra       *node // additionalProperties as a schema
	ref, not    *node
	ifs, then   *node
	els         *node
	names       *node // propertyNames
	unevaluated *node // unevaluatedProperties
	items       *node // items (2020-12)
	allOf       []*node
	anyOf       []*node
	oneOf       []*node
	prefix      []*node
	format      func(any) bool
	decode      func(string) ([]byte, error)
	guard       *guard // set when the schema is nothing but a guard
	// has says which groups of keywords the schema uses, so that apply skips the others without
	// looking at each: the ifs of the block schema's dispatch use nothing but if, then and else.
	has uint8
}

// The groups of keywords of node.has.
const (
	hasScalar  uint8 = 1 << iota // a boolean schema, type, const, enum, format
	hasObject                    // the keywords of objects (node.object)
	hasArray                     // of arrays
	hasString                    // of strings
	hasNumber                    // of numbers
	hasInPlace                   // $ref, not, allOf, anyOf, oneOf, if
)

// guard is a schema that only says which strings one property may be, and perhaps that it is
// required: {"required":["type"],"properties":{"type":{"enum":["text","image"]}}}. The block
// schema dispatches on a block's type with a tree of ifs of this shape, six deep for a text
// block; judged as one comparison each, they no longer cost most of a block's verdict.
type guard struct {
	key      string
	required bool
	values   []string
}

type prop struct {
	name string
	sub  *node
}

// additional is what additionalProperties says.
type additional int8

const (
	additionalUnset  additional = iota
	additionalTrue              // true
	additionalFalse             // false: no property beyond those named
	additionalSchema            // a schema (node.extra)
)

// propsScan is the most properties found by comparing names; more are hashed.
const propsScan = 8

// planOf lays out the compiled schema s for the verdict; nil when the verdict does not know one
// of the keywords it uses (supported).
func planOf(s *jsonschema.Schema) *node {
	if !supported(s) {
		return nil
	}
	memo := map[*jsonschema.Schema]*node{}
	var build func(*jsonschema.Schema) *node
	list := func(ss []*jsonschema.Schema) []*node {
		var out []*node
		for _, sub := range ss {
			out = append(out, build(sub))
		}
		return out
	}
	build = func(s *jsonschema.Schema) *node {
		if s == nil {
			return nil
		}
		if n, ok := memo[s]; ok { // a schema that refers to itself
			return n
		}
		n := &node{Schema: s}
		memo[s] = n
		names := slices.Sorted(maps.Keys(s.Properties)) // an order of its own, for repeatable layouts
		for _, name := range names {
			n.props = append(n.props, prop{name, build(s.Properties[name])})
		}
		if len(n.props) > propsScan {
			n.propIndex = map[string]*node{}
			for _, p := range n.props {
				n.propIndex[p.name] = p.sub
			}
		}
		switch extra := s.AdditionalProperties.(type) {
		case bool:
			n.additional = additionalFalse
			if extra {
				n.additional = additionalTrue
			}
		case *jsonschema.Schema:
			n.additional, n.extra = additionalSchema, build(extra)
		}
		n.ref, n.not, n.ifs, n.then, n.els = build(s.Ref), build(s.Not), build(s.If), build(s.Then), build(s.Else)
		n.names, n.unevaluated, n.items = build(s.PropertyNames), build(s.UnevaluatedProperties), build(s.Items2020)
		n.allOf, n.anyOf, n.oneOf, n.prefix = list(s.AllOf), list(s.AnyOf), list(s.OneOf), list(s.PrefixItems)
		if s.Format != "" {
			n.format = jsonschema.Formats[s.Format]
		}
		if s.ContentEncoding != "" {
			n.decode = jsonschema.Decoders[s.ContentEncoding]
		}
		n.guard = guardOf(s)
		n.has = keywordGroups(n)
		return n
	}
	return build(s)
}

// keywordGroups says which groups of keywords n uses (node.has).
func keywordGroups(n *node) uint8 {
	s := n.Schema
	var has uint8
	set := func(group uint8, used bool) {
		if used {
			has |= group
		}
	}
	set(hasScalar, s.Always != nil || len(s.Types) > 0 || len(s.Constant) > 0 || len(s.Enum) > 0 || n.format != nil)
	set(hasObject, s.MinProperties != -1 || s.MaxProperties != -1 || len(s.Required) > 0 || len(n.props) > 0 ||
		n.names != nil || n.additional != additionalUnset || len(s.DependentRequired) > 0)
	set(hasArray, s.MinItems != -1 || s.MaxItems != -1 || n.items != nil || len(n.prefix) > 0)
	set(hasString, s.MinLength != -1 || s.MaxLength != -1 || s.Pattern != nil || n.decode != nil)
	set(hasNumber, s.Minimum != nil || s.ExclusiveMinimum != nil || s.Maximum != nil || s.ExclusiveMaximum != nil)
	set(hasInPlace, n.ref != nil || n.not != nil || len(n.allOf) > 0 || len(n.anyOf) > 0 || len(n.oneOf) > 0 || n.ifs != nil)
	return has
}

// guardOf returns the guard that s is, nil when s is anything more or other.
func guardOf(s *jsonschema.Schema) *guard {
	if len(s.Properties) != 1 || len(s.Required) > 1 || !only(s, "Required", "Properties") {
		return nil
	}
	g := &guard{required: len(s.Required) == 1}
	var sub *jsonschema.Schema
	for k, v := range s.Properties { // the one
		g.key, sub = k, v
	}
	if g.required && s.Required[0] != g.key || !only(sub, "Enum") || len(sub.Enum) == 0 {
		return nil
	}
	for _, e := range sub.Enum {
		v, ok := e.(string)
		if !ok {
			return nil
		}
		g.values = append(g.values, v)
	}
	return g
}

// only reports whether s uses no keyword but those its fields named say, by comparing every other
// exported field with that of the empty schema (Location and Draft are where it is, not what it
// says). A keyword the validator adds a field for in a later version is a difference too.
func only(s *jsonschema.Schema, fields ...string) bool {
	have, none := reflect.ValueOf(s).Elem(), reflect.ValueOf(emptySchema()).Elem()
	for i := range have.NumField() {
		f := have.Type().Field(i)
		if !f.IsExported() || f.Name == "Location" || f.Name == "Draft" || slices.Contains(fields, f.Name) {
			continue
		}
		if !reflect.DeepEqual(have.Field(i).Interface(), none.Field(i).Interface()) {
			return false
		}
	}
	return true
}

// emptySchema is the schema {} as the validator compiles it: every field at its default.
var emptySchema = sync.OnceValue(func() *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("empty.json", strings.NewReader("{}")); err != nil {
		panic(err)
	}
	return c.MustCompile("empty.json")
})

// judge reports whether v passes g and, when v is an object (keys and vals), the mask of the key
// g evaluated: g's property, when v has it.
func (g *guard) judge(v any, keys []string, vals []any) (bool, uint64) {
	if _, ok := v.(map[string]any); !ok {
		return true, 0 // required and properties say nothing of other values
	}
	for i, k := range keys {
		if k == g.key {
			s, ok := vals[i].(string)
			return ok && slices.Contains(g.values, s), 1 << i
		}
	}
	return !g.required, 0
}

// prop returns the schema of the property named k, nil when s names none.
func (n *node) prop(k string) *node {
	if n.propIndex != nil {
		return n.propIndex[k]
	}
	for _, p := range n.props {
		if p.name == k {
			return p.sub
		}
	}
	return nil
}

// judgeValue gives the verdict on v against n, a schema laid out by planOf.
func judgeValue(n *node, v any) verdict {
	j := judges.Get().(*judge)
	defer func() {
		clear(j.vals[:cap(j.vals)]) // the pool must not keep the document alive
		j.keys, j.vals, j.unknown = j.keys[:0], j.vals[:0], false
		judges.Put(j)
	}()
	ok := j.value(n, v)
	switch {
	case j.unknown:
		return unknown
	case ok:
		return valid
	}
	return invalid
}

// value judges v, a value of its own location (a property, an item, the document).
func (j *judge) value(n *node, v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		ok, _ := j.apply(n, v, nil, nil)
		return ok
	}
	if len(m) > 64 {
		j.unknown = true
		return false
	}
	base := len(j.keys)
	for k, x := range m {
		j.keys, j.vals = append(j.keys, k), append(j.vals, x)
	}
	ok, _ = j.apply(n, m, j.keys[base:], j.vals[base:])
	j.keys, j.vals = j.keys[:base], j.vals[:base]
	return ok
}

// apply judges v against n in place and returns, for an object, the mask of its keys n
// evaluated (bit i for keys[i], whose value is vals[i]), which the in-place subschemas that pass
// add to.
func (j *judge) apply(n *node, v any, keys []string, vals []any) (bool, uint64) {
	if j.unknown {
		return false, 0
	}
	if n.guard != nil {
		ok, evaluated := n.guard.judge(v, keys, vals)
		if !ok {
			return false, 0
		}
		return true, evaluated
	}
	s := n.Schema
	if n.has&hasScalar != 0 {
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
		if n.format != nil && !n.format(v) {
			return false, 0
		}
	}
	var evaluated uint64
	switch v := v.(type) {
	case map[string]any:
		var ok bool
		if n.has&hasObject != 0 {
			if evaluated, ok = j.object(n, v, keys, vals); !ok {
				return false, 0
			}
		}
	case []any:
		if n.has&hasArray != 0 && !j.array(n, v) {
			return false, 0
		}
	case string:
		if n.has&hasString != 0 && !str(n, v) {
			return false, 0
		}
	case json.Number, float64:
		if n.has&hasNumber != 0 && !j.number(s, v) {
			return false, 0
		}
	}
	if n.has&hasInPlace == 0 && n.unevaluated == nil {
		return !j.unknown, evaluated
	}
	// The in-place subschemas, in the validator's order; those that pass add what they evaluated.
	inPlace := func(sub *node) bool {
		ok, e := j.apply(sub, v, keys, vals)
		if ok {
			evaluated |= e
		}
		return ok
	}
	if n.ref != nil && !inPlace(n.ref) {
		return false, 0
	}
	if n.not != nil {
		if ok, _ := j.apply(n.not, v, keys, vals); ok {
			return false, 0
		}
	}
	for _, sub := range n.allOf {
		if !inPlace(sub) {
			return false, 0
		}
	}
	if len(n.anyOf) > 0 {
		matched := false
		for _, sub := range n.anyOf { // every one: each that passes adds what it evaluated
			matched = inPlace(sub) || matched
		}
		if !matched {
			return false, 0
		}
	}
	if len(n.oneOf) > 0 {
		matched := 0
		for _, sub := range n.oneOf {
			if inPlace(sub) {
				matched++
			}
		}
		if matched != 1 {
			return false, 0
		}
	}
	if n.ifs != nil {
		branch := n.els
		if inPlace(n.ifs) {
			branch = n.then
		}
		if branch != nil && !inPlace(branch) {
			return false, 0
		}
	}
	if _, ok := v.(map[string]any); ok && n.unevaluated != nil {
		for i := range keys {
			if evaluated&(1<<i) == 0 && !j.value(n.unevaluated, vals[i]) {
				return false, 0
			}
		}
		evaluated = all(len(keys))
	}
	return !j.unknown, evaluated
}

// object judges the keywords of objects and returns the keys that properties and
// additionalProperties evaluated.
func (j *judge) object(n *node, m map[string]any, keys []string, vals []any) (uint64, bool) {
	s := n.Schema
	if s.MinProperties != -1 && len(m) < s.MinProperties || s.MaxProperties != -1 && len(m) > s.MaxProperties {
		return 0, false
	}
	for _, name := range s.Required {
		if !has(m, keys, name) {
			return 0, false
		}
	}
	var evaluated uint64
	if len(n.props) > 0 {
		for i, k := range keys {
			if sub := n.prop(k); sub != nil {
				evaluated |= 1 << i
				if !j.value(sub, vals[i]) {
					return 0, false
				}
			}
		}
	}
	if n.names != nil {
		for _, k := range keys {
			if !j.value(n.names, k) {
				return 0, false
			}
		}
	}
	switch n.additional {
	case additionalFalse:
		if evaluated != all(len(keys)) {
			return 0, false
		}
	case additionalSchema:
		for i := range keys {
			if evaluated&(1<<i) == 0 && !j.value(n.extra, vals[i]) {
				return 0, false
			}
		}
	}
	if n.additional != additionalUnset {
		evaluated = all(len(keys))
	}
	if len(s.DependentRequired) == 0 { // ranging even an empty map draws a random start
		return evaluated, true
	}
	for name, needs := range s.DependentRequired {
		if has(m, keys, name) {
			for _, need := range needs {
				if !has(m, keys, need) {
					return 0, false
				}
			}
		}
	}
	return evaluated, true
}

// has reports whether the object m, whose names are keys, has the property name: a few names are
// compared, more are hashed.
func has(m map[string]any, keys []string, name string) bool {
	if len(keys) > propsScan {
		_, ok := m[name]
		return ok
	}
	return slices.Contains(keys, name)
}

func (j *judge) array(n *node, a []any) bool {
	s := n.Schema
	if s.MinItems != -1 && len(a) < s.MinItems || s.MaxItems != -1 && len(a) > s.MaxItems {
		return false
	}
	for i, item := range a {
		sub := n.items
		if i < len(n.prefix) {
			sub = n.prefix[i]
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

func str(n *node, v string) bool {
	s := n.Schema
	if s.MinLength != -1 || s.MaxLength != -1 {
		c := utf8.RuneCountInString(v)
		if s.MinLength != -1 && c < s.MinLength || s.MaxLength != -1 && c > s.MaxLength {
			return false
		}
	}
	if s.Pattern != nil && !s.Pattern.MatchString(v) {
		return false
	}
	if n.decode != nil {
		if _, err := n.decode(v); err != nil {
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
