package wire

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Structured outputs and strict tools. A JSON output format (output_config.format, or the beta's
// output_format) and every tool with strict: true constrain the model's output with a JSON
// Schema. The service compiles these into a grammar and supports a subset of JSON Schema; the
// fake checks the same subset, answering a schema it would not compile with a 400 that names the
// keyword, and generates the constrained output with the tool-input generator, which honours
// every keyword of the subset.

// BetaStructuredOutputs is the vendor-beta value under which the deprecated output_format is
// still taken.
const BetaStructuredOutputs = "structured-outputs-2025-11-13"

// The complexity limits of constrained decoding, summed over every strict schema of a request.
const (
	MaxStrictTools    = 20
	maxOptionalParams = 24
	maxUnionParams    = 16
	maxPatternRepeat  = 1000 // the largest {n,m} bound a pattern may use
	// MaxSchemaVisits bounds the work of checking a request's strict schemas: references are
	// expanded where they are used, so a small schema whose definitions refer to each other
	// many times over would otherwise expand exponentially.
	MaxSchemaVisits = 10_000
)

// errSchemaTooComplex stops a check that went over maxSchemaVisits; the caller names the schema.
var errSchemaTooComplex = errors.New("too complex")

// strictKeywords are the JSON Schema keywords the grammar compiler understands; any other
// keyword is refused.
var strictKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "anyOf": true, "allOf": true,
	"$ref": true, "$defs": true, "definitions": true, "default": true,
	"description": true, "title": true, "format": true, "minItems": true, "pattern": true,
	"$schema": true, "$id": true,
}

// StrictFormats are the string formats the grammar compiler supports.
var StrictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}

// strictCheck walks the strict schemas of one request, counting toward the shared limits.
// expanding holds the references being followed on the current path, which tells a recursive
// schema; noFollow checks a definition's own keywords without following its references.
type strictCheck struct {
	optional, unions int
	*shared
	expanding []string
	noFollow  bool
}

// shared is what every check of one request's schemas shares: the request's meter, with
// maxSchemaVisits steps for them all (a subschema visited costs one, however it is reached, a
// definition's own $defs included, and a $ref one more per stepBytes of its name for every
// reference being expanded it is compared with, an object one per stepBytes names of its
// required list), the $defs objects already checked, the long required lists already read and
// the patterns already parsed.
type shared struct {
	work     *core.Meter
	defs     map[uintptr]bool            // by the address of the $defs map
	required map[uintptr]map[string]bool // the long required lists read, by their address
	patterns map[string]error
}

// newStrictCheck starts the checks of one request on work, started with maxSchemaVisits; its
// maps are made by the first check, since nearly every request has no schema to check.
func newStrictCheck(work *core.Meter) *strictCheck { return &strictCheck{shared: &shared{work: work}} }

// tooComplex names the schema at path in the error of a check that went over maxSchemaVisits.
func tooComplex(err error, path string) error {
	if err == errSchemaTooComplex {
		return core.InvalidField(path, "Schema is too complex for compilation: its references expand to more than %d subschemas", MaxSchemaVisits)
	}
	return err
}

// over is the error of a check, at path, whose meter stopped: errSchemaTooComplex for the
// visits (the caller names the schema), or the meter's refusal when the client went.
func (sc *strictCheck) over(path string) error {
	if sc.work.Err == core.ErrOverBudget {
		return errSchemaTooComplex
	}
	return sc.work.Refusal(path, "")
}

// limits refuses a request whose strict schemas, summed, exceed the complexity limits; path
// names the schema that went over.
func (sc *strictCheck) limits(path string) error {
	switch {
	case sc.optional > maxOptionalParams:
		return core.InvalidField(path, "Schemas contain too many optional parameters (%d, summed over every strict schema of the request) which exceeds the limit: %d", sc.optional, maxOptionalParams)
	case sc.unions > maxUnionParams:
		return core.InvalidField(path, "Schemas contains too many parameters with union types (%d parameters with type arrays or anyOf) which exceeds the limit: %d", sc.unions, maxUnionParams)
	}
	return nil
}

// checkStrictSchemas applies the structured-output rules to the request: the output format's
// schema and every strict tool's input_schema must be in the supported subset and, together,
// within the complexity limits; output_format needs its beta and excludes output_config.format.
func CheckStrictSchemas(c *core.Call, req *MessageRequest) error {
	if req.OutputFormat != nil {
		if !c.HasBeta(BetaStructuredOutputs) {
			return core.InvalidField("output_format", "This field is deprecated. Use 'output_config.format' instead (or send vendor-beta: %s)", BetaStructuredOutputs)
		}
		if req.OutputConfig != nil && req.OutputConfig.Format != nil {
			return core.InvalidField("output_format", "cannot be used together with output_config.format; send only output_config.format")
		}
	}
	// Every schema's keywords have their types first, strict or not: a schema the platform
	// would not compile is refused before anything reads it.
	if f := req.ResponseFormat(); f != nil {
		if err := core.CheckKeywordTypes(f.Schema, FormatPath(req)); err != nil {
			return err
		}
	}
	for i, t := range req.Tools {
		if t.Custom() {
			if err := core.CheckKeywordTypes(t.InputSchema, fmt.Sprintf("tools.%d.input_schema", i)); err != nil {
				return err
			}
		}
	}
	sc := newStrictCheck(c.Meter(MaxSchemaVisits))
	if f := req.ResponseFormat(); f != nil {
		path := FormatPath(req)
		if err := tooComplex(sc.check(f.Schema, f.Schema, path), path); err != nil {
			return err
		}
		if err := sc.limits(path); err != nil {
			return err
		}
		if role, _ := req.LastTurn(); role == "assistant" {
			return core.InvalidField("messages", "prefilling the assistant's answer is not supported with structured outputs (%s)", path)
		}
		if err := req.VisitBlocks(func(at BlockAt, b Block) error {
			if b["type"] == "document" && enabled(b) {
				return core.InvalidField(at.String()+".citations", "citations cannot be enabled together with structured outputs (%s)", path)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	strict := 0
	for i, t := range req.Tools {
		if !t.Strict {
			continue
		}
		if strict++; strict > MaxStrictTools {
			return core.InvalidField(fmt.Sprintf("tools.%d.strict", i), "at most %d tools may be strict in one request", MaxStrictTools)
		}
		if !t.Custom() {
			continue // a server tool's input schema is the service's own
		}
		path := fmt.Sprintf("tools.%d.input_schema", i)
		if err := tooComplex(sc.check(t.InputSchema, t.InputSchema, path), path); err != nil {
			return err
		}
		if err := sc.limits(path); err != nil {
			return err
		}
	}
	return nil
}

// formatPath is the field path of the request's output format schema.
func FormatPath(req *MessageRequest) string {
	if req.OutputFormat != nil {
		return "output_format.schema"
	}
	return "output_config.format.schema"
}

// check refuses what the grammar compiler does not support in the schema s (a part of root), at
// path, and counts optional and union-typed parameters toward the request's limits.
func (sc *strictCheck) check(root, s map[string]any, path string) error {
	if !sc.work.Charge(1) {
		return sc.over(path)
	}
	// The first offending keyword in name order, the same on every run, found without sorting
	// them: a schema may have a million.
	bad := ""
	for k := range s {
		if !strictKeywords[k] && (bad == "" || k < bad) {
			bad = k
		}
	}
	if bad != "" {
		return core.InvalidField(path+"."+bad, "this JSON Schema keyword is not supported by structured outputs; supported: %s", strings.Join(slices.Sorted(maps.Keys(strictKeywords)), ", "))
	}
	if ref, ok := s["$ref"].(string); ok {
		// Looking the name up, and comparing it with the references being expanded, reads it
		// once each: a long name is as much work as many subschemas.
		if !sc.work.Charge(len(ref) * (1 + len(sc.expanding)) / core.StepBytes) {
			return sc.work.Refusal(path+".$ref", "Schema is too complex for compilation: its references cost more than %d steps (a subschema one, a $ref one more per %d bytes of its name for every reference it is compared with)", MaxSchemaVisits, core.StepBytes)
		}
		target, err := ResolveRef(root, ref)
		if err != nil {
			return core.InvalidField(path+".$ref", "%v", err)
		}
		if slices.Contains(sc.expanding, ref) {
			return core.InvalidField(path+".$ref", "Too many recursive definitions in schema: %s refers to itself, and recursive schemas are not supported", ref)
		}
		if !sc.noFollow {
			sc.expanding = append(sc.expanding, ref)
			err := sc.check(root, target, path)
			sc.expanding = sc.expanding[:len(sc.expanding)-1]
			if err != nil {
				return err
			}
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		defs, _ := s[k].(map[string]any)
		// Each $defs object is checked once per request, however often a reference reaches
		// the schema that holds it.
		id := reflect.ValueOf(defs).Pointer()
		if defs == nil || sc.defs[id] {
			continue
		}
		if sc.defs == nil {
			sc.defs = map[uintptr]bool{}
		}
		sc.defs[id] = true
		// Each costs a visit: more than are left go over, found before they are sorted.
		if len(defs) > sc.work.Left && !sc.work.Charge(len(defs)) {
			return sc.over(path)
		}
		for _, name := range slices.Sorted(maps.Keys(defs)) {
			d, ok := defs[name].(map[string]any)
			if !ok {
				return core.InvalidField(path+"."+k+"."+name, "must be a schema object")
			}
			// Definitions are counted where they are used, and checked here for their keywords.
			if err := (&strictCheck{shared: sc.shared, noFollow: true}).check(root, d, path+"."+k+"."+name); err != nil {
				return err
			}
		}
	}
	types := schemaTypes(s)
	if len(types) > 1 && slices.Contains(types, "object") && s["properties"] != nil {
		return core.InvalidField(path+".type", "an object schema cannot be a union with other types")
	}
	if len(types) > 1 {
		sc.unions++
	}
	if e, ok := s["enum"].([]any); ok {
		for i, v := range e {
			switch v.(type) {
			case map[string]any, []any:
				return core.InvalidField(fmt.Sprintf("%s.enum.%d", path, i), "enum values must be strings, numbers, booleans or null")
			}
		}
	}
	if f, ok := s["format"].(string); ok && !slices.Contains(StrictFormats, f) {
		return core.InvalidField(path+".format", "the format %s is not supported by structured outputs; supported: %s", core.Quoted(f, core.MaxExcerpt), strings.Join(StrictFormats, ", "))
	}
	if v, ok := s["minItems"]; ok {
		if n := IntKeyword(s, "minItems", -1); n != 0 && n != 1 {
			return core.InvalidField(path+".minItems", "only 0 and 1 are supported, got %v", v)
		}
	}
	if p, ok := s["pattern"].(string); ok {
		err, seen := sc.patterns[p]
		if !seen {
			err = checkPattern(p)
			if sc.patterns == nil {
				sc.patterns = map[string]error{}
			}
			sc.patterns[p] = err
		}
		if err != nil {
			return core.InvalidField(path+".pattern", "%v", err)
		}
	}
	if slices.Contains(types, "object") || s["properties"] != nil {
		if ap, ok := s["additionalProperties"]; !ok || ap != false {
			return core.InvalidField(path+".additionalProperties", "must be set to false for every object")
		}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		if !sc.work.Charge(len(req) / core.StepBytes) {
			return sc.work.Refusal(path+".required", "Schema is too complex for compilation: its subschemas and required lists cost more than %d steps (a subschema one, a required list one per %d names)", MaxSchemaVisits, core.StepBytes)
		}
		// Each costs a visit: more than are left go over, found before they are sorted.
		if len(props) > sc.work.Left && !sc.work.Charge(len(props)) {
			return sc.over(path)
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			ps, ok := props[name].(map[string]any)
			if !ok {
				return core.InvalidField(path+".properties."+name, "must be a schema object")
			}
			if !sc.isRequired(req, name) {
				sc.optional++
			}
			if err := sc.check(root, ps, path+".properties."+name); err != nil {
				return err
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		if err := sc.check(root, items, path+".items"); err != nil {
			return err
		}
	}
	for _, k := range []string{"anyOf", "allOf"} {
		alts, _ := s[k].([]any)
		if k == "anyOf" && len(alts) > 0 {
			sc.unions++
		}
		for i, a := range alts {
			as, ok := a.(map[string]any)
			if !ok {
				return core.InvalidField(fmt.Sprintf("%s.%s.%d", path, k, i), "must be a schema object")
			}
			if _, ref := as["$ref"]; ref && k == "allOf" {
				return core.InvalidField(fmt.Sprintf("%s.allOf.%d.$ref", path, i), "allOf with $ref is not supported by structured outputs")
			}
			if err := sc.check(root, as, fmt.Sprintf("%s.%s.%d", path, k, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// isRequired reports whether name is in the required list req. A list past a handful is read
// into a set once (kept, by the list's address, for the request): a list may name a million,
// and each property of the object asks.
func (sc *strictCheck) isRequired(req []any, name string) bool {
	if len(req) <= 16 {
		return slices.Contains(req, any(name))
	}
	id := reflect.ValueOf(req).Pointer()
	set, ok := sc.required[id]
	if !ok {
		set = make(map[string]bool, len(req))
		for _, n := range req {
			if n, ok := n.(string); ok {
				set[n] = true
			}
		}
		if sc.required == nil {
			sc.required = map[uintptr]map[string]bool{}
		}
		sc.required[id] = set
	}
	return set[name]
}

// resolveRef finds a local reference (#, #/$defs/name, #/definitions/name) in root.
func ResolveRef(root map[string]any, ref string) (map[string]any, error) {
	if ref == "#" {
		return root, nil
	}
	for _, k := range []string{"$defs", "definitions"} {
		if name, ok := strings.CutPrefix(ref, "#/"+k+"/"); ok {
			defs, _ := root[k].(map[string]any)
			if d, ok := defs[strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")].(map[string]any); ok {
				return d, nil
			}
			return nil, fmt.Errorf("%s names no definition of the schema", core.Quoted(ref, core.MaxExcerpt))
		}
	}
	return nil, fmt.Errorf("%s: only local references to #/$defs/ or #/definitions/ are supported", core.Quoted(ref, core.MaxExcerpt))
}

// checkPattern refuses a regular expression the grammar compiler would not take: one that does
// not parse as a simple regular expression (backreferences and lookaround do not), word
// boundaries, and large repetition bounds.
func checkPattern(p string) error {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return fmt.Errorf("not a supported regular expression: %v", err)
	}
	var walk func(*syntax.Regexp) error
	walk = func(r *syntax.Regexp) error {
		switch r.Op {
		case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			return fmt.Errorf(`word boundaries (\b, \B) are not supported`)
		case syntax.OpRepeat:
			if r.Max > maxPatternRepeat || r.Min > maxPatternRepeat {
				return fmt.Errorf("repetition bounds above %d are not supported", maxPatternRepeat)
			}
		}
		for _, s := range r.Sub {
			if err := walk(s); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(re)
}

// schemaTypes is the list of types a schema's "type" names.
func schemaTypes(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}
