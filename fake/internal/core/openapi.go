package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/platformkit/platformkit/schemas"
)

// The OpenAPI 3.1 documents (schemas/openapi.json for the API, schemas/openapi-control.json for
// the control API) are generated from the route table alone: method, path, interface (security
// schemes and version headers), the declared query parameters, headers and request schema, the
// 200 schema and the event schema of a stream, and errors.go's status of each error type.
// TestOpenAPIDocumentsAreCurrent (package fake, which registers the areas whose lines the table
// holds) keeps the committed files equal to what this code writes; regenerate them with
// "go generate ./fake", which runs that test with -update.

// openAPIVersion is the version of the OpenAPI specification the documents follow.
const openAPIVersion = "3.1.1"

// OpenAPIDocument returns the document of the API routes of the table, or of the control routes.
func OpenAPIDocument(control bool) ([]byte, error) {
	g := &openAPIGen{components: map[string]any{}, security: map[string]any{}, params: map[string]any{}, added: map[string]bool{}}
	paths := map[string]map[string]any{}
	for _, rt := range Routes() {
		if (rt.Ifc == nil) != control {
			continue
		}
		op, err := g.operation(rt)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", rt.Method, rt.Path, err)
		}
		p := OpenAPIPath(rt.Path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(rt.Method)] = op
	}
	if err := g.addSchema("error"); err != nil {
		return nil, err
	}
	responses := map[string]any{}
	named := errorStatuses(control)
	for _, status := range named {
		responses[errorResponseName(status)] = errorResponse(status, named)
	}
	g.prune(paths, responses)
	components := map[string]any{"schemas": g.components, "responses": responses}
	if len(g.security) > 0 {
		components["securitySchemes"] = g.security
	}
	if len(g.params) > 0 {
		components["parameters"] = g.params
	}
	info := map[string]any{
		"title":   "Platform API",
		"version": strings.Join(APIVersions(), ", "),
		"description": "Every operation the platformkit fake serves, at every API version it serves, generated from its route table and its JSON Schemas. " +
			"Every response carries a request-id header, and every error is the error envelope with the status of its type.",
	}
	if control {
		info["title"] = "Platform API fake: test-control API"
		info["description"] = "The control API of the platformkit fake, under /_fake/: no credential, never journaled. " +
			"Under a namespace's prefix a call reaches only that namespace; the calls on /_fake/namespaces work on the default server only. " +
			"Generated from the fake's route table and its JSON Schemas."
	}
	doc := map[string]any{
		"openapi":           openAPIVersion,
		"jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
		"info":              info,
		"servers":           openAPIServers(),
		"paths":             paths,
		"components":        components,
	}
	return indentedJSON(doc)
}

// openAPIServers are the fake's base URLs: the default server, and a namespace of it (a world of
// its own per test, namespaces.go). A client that cannot change the path may send the
// Fake-Namespace header to the default server instead.
func openAPIServers() []any {
	return []any{
		map[string]any{"url": "http://127.0.0.1:4010", "description": "The fake as make run serves it."},
		map[string]any{
			"url": "http://127.0.0.1:4010/ns/{namespace}",
			"description": "A namespace of the fake: a server of its own, created from the fixtures by its first request. " +
				"The same as the default server with the header " + NamespaceHeader + ": <namespace>.",
			"variables": map[string]any{"namespace": map[string]any{
				"default":     "test",
				"description": strings.ToUpper(NamespaceGrammar[:1]) + NamespaceGrammar[1:] + ".",
			}},
		},
	}
}

// openAPIGen collects the components the operations refer to.
type openAPIGen struct {
	components map[string]any  // schemas, by component name
	security   map[string]any  // security schemes
	params     map[string]any  // header parameters
	added      map[string]bool // the schema documents already added (or being added)
}

// operation describes one route.
func (g *openAPIGen) operation(rt *Route) (map[string]any, error) {
	name := handlerName(rt.H)
	op := map[string]any{"operationId": name, "summary": sentence(name)}
	var params []any
	for _, seg := range strings.Split(rt.Path, "/") {
		if v, ok := strings.CutPrefix(seg, ":"); ok {
			params = append(params, map[string]any{"name": v, "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
	}
	for _, p := range rt.Query {
		params = append(params, queryParameter(p))
	}
	for _, p := range rt.Headers {
		params = append(params, map[string]any{"name": p.Name, "in": "header", "description": p.Doc, "schema": map[string]any{"type": "string"}})
	}
	if rt.Ifc != nil {
		op["tags"] = []string{rt.Ifc.Name}
		params = append(params, g.headerParameters(rt.Ifc)...)
		op["security"] = g.securityOf(rt.Ifc)
	} else {
		op["tags"] = []string{"control"}
		op["security"] = []any{} // no credential
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	// What differs between the API versions (versions.go): one document for every version, with
	// the differences marked on the operations they concern.
	if rt.Ifc != nil && rt.Ifc.Version {
		notes := versionNotes()
		if diff := append(slices.Clone(notes[rt.Body]), notes[rt.Schema]...); len(diff) > 0 {
			op["description"] = strings.Join(diff, " ")
			op["x-api-version-differences"] = diff
		}
	}
	if rt.Body != "" {
		required, err := g.bodyRequired(rt.Body)
		if err != nil {
			return nil, err
		}
		if err := g.addSchema(rt.Body); err != nil {
			return nil, err
		}
		op["requestBody"] = map[string]any{
			"required": required,
			"content":  map[string]any{"application/json": map[string]any{"schema": schemaRef(rt.Body)}},
		}
	}
	if rt.Multipart != "" {
		if err := g.addSchema(rt.Multipart); err != nil {
			return nil, err
		}
		op["requestBody"] = map[string]any{
			"required": true,
			"content":  map[string]any{"multipart/form-data": map[string]any{"schema": schemaRef(rt.Multipart)}},
		}
	}
	ok := map[string]any{"description": "OK", "headers": requestIDHeader()}
	switch {
	case rt.Schema == "":
		ok["description"] = "The bytes, with their own Content-Type."
		ok["content"] = map[string]any{"*/*": map[string]any{}}
	default:
		if err := g.addSchema(rt.Schema); err != nil {
			return nil, err
		}
		content := map[string]any{"application/json": map[string]any{"schema": schemaRef(rt.Schema)}}
		if rt.Events != "" {
			if err := g.addSchema(rt.Events); err != nil {
				return nil, err
			}
			ok["description"] = "OK: the JSON answer, or with \"stream\": true in the body, server-sent events whose data is each one " + componentName(rt.Events) + "."
			content["text/event-stream"] = map[string]any{"schema": schemaRef(rt.Events)}
		}
		ok["content"] = content
	}
	responses := map[string]any{"200": ok}
	for _, status := range routeErrorStatuses(rt) {
		responses[strconv.Itoa(status)] = map[string]any{"$ref": "#/components/responses/" + errorResponseName(status)}
	}
	responses["default"] = map[string]any{"$ref": "#/components/responses/" + errorResponseName(0)}
	op["responses"] = responses
	return op, nil
}

// routeErrorStatuses are the statuses of gaps §1 any request of the route may be answered with:
// a malformed request, a missing resource, a body too large; for the API also a missing or
// wrong credential, and the statuses faults and the service's load produce. Other statuses a
// route answers (402, 405, 409, 412) are its "default" response, with the same envelope.
func routeErrorStatuses(rt *Route) []int {
	out := []int{http.StatusBadRequest, http.StatusNotFound}
	if rt.Body != "" || rt.Multipart != "" {
		out = append(out, http.StatusRequestEntityTooLarge)
	}
	if rt.Ifc != nil {
		out = append(out, http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests,
			http.StatusInternalServerError, http.StatusGatewayTimeout, 529)
	}
	slices.Sort(out)
	return out
}

// errorStatuses are the statuses with a named error response in the document.
func errorStatuses(control bool) []int {
	seen := map[int]bool{0: true} // 0: the default response
	for _, rt := range Routes() {
		if (rt.Ifc == nil) == control {
			for _, s := range routeErrorStatuses(rt) {
				seen[s] = true
			}
		}
	}
	out := make([]int, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func errorResponseName(status int) string {
	if status == 0 {
		return "error"
	}
	return "error_" + strconv.Itoa(status)
}

// errorResponse is the envelope of spec 7 answered with status, described with the error types
// of that status (errors.go, gaps §1); status 0 is the default response, every status not named.
func errorResponse(status int, named []int) map[string]any {
	var types []string
	for typ, st := range StatusOf {
		if st == status || status == 0 && !slices.Contains(named, st) {
			types = append(types, typ)
		}
	}
	slices.Sort(types)
	desc := "An error of type " + strings.Join(types, " or ") + "."
	if status == 0 {
		desc = "Any other error: of type " + strings.Join(types, " or ") +
			", or an invalid_request_error with the status the operation states (412 on a stale heartbeat expectation, 405 on a method the path does not take)."
	}
	headers := requestIDHeader()
	switch status {
	case http.StatusTooManyRequests, 529:
		headers["retry-after"] = map[string]any{"description": "Seconds to wait before retrying.", "schema": map[string]any{"type": "string"}}
		headers["retry-after-ms"] = map[string]any{"description": "Milliseconds to wait before retrying.", "schema": map[string]any{"type": "string"}}
	case 0:
		headers["x-should-retry"] = map[string]any{"description": "\"false\" on a 409: a retry cannot succeed.", "schema": map[string]any{"type": "string"}}
	}
	return map[string]any{
		"description": desc,
		"headers":     headers,
		"content":     map[string]any{"application/json": map[string]any{"schema": schemaRef("error")}},
	}
}

func requestIDHeader() map[string]any {
	return map[string]any{"request-id": map[string]any{
		"description": "The ID of the request, also in the error envelope.",
		"required":    true,
		"schema":      map[string]any{"type": "string"},
	}}
}

// queryParameter describes a declared query parameter (params.go).
func queryParameter(p Param) map[string]any {
	s := map[string]any{}
	switch p.Kind {
	case PString, pPage:
		s["type"] = "string"
	case pTime:
		s["type"], s["format"] = "string", "date-time"
	case PStrings:
		s["type"], s["items"] = "array", map[string]any{"type": "string"}
		if p.MaxItems > 0 {
			s["maxItems"] = p.MaxItems
		}
		if p.Required {
			s["minItems"] = 1
		}
	case pInt:
		s["type"], s["minimum"], s["maximum"] = "integer", int(p.min), int(p.max)
	case pNumber:
		s["type"], s["exclusiveMinimum"] = "number", p.min
		if p.max != math.MaxFloat64 {
			s["maximum"] = p.max
		}
	case pBool:
		s["type"] = "boolean"
	case pEnum:
		s["type"], s["enum"] = "string", p.enum
	}
	if p.def != nil {
		s["default"] = p.def
	}
	out := map[string]any{"name": p.Name, "in": "query", "description": p.Doc, "schema": s}
	if p.Required {
		out["required"] = true
	}
	if p.Kind == PStrings {
		out["style"], out["explode"] = "form", true
		out["description"] = p.Doc + " Repeat the parameter (" + p.Name + "=a&" + p.Name + "=b); " + p.Name + "[]=a and " + p.Name + "=a,b are accepted too."
	}
	return out
}

// headerParameters are the version headers of spec 9 the interface takes.
func (g *openAPIGen) headerParameters(ifc *Iface) []any {
	var out []any
	if ifc.Version {
		g.params["vendor-version"] = map[string]any{
			"name": "vendor-version", "in": "header", "required": true,
			"description": "The API version; the official SDKs send it as anthropic-version (vendor-version decides when both are sent). " +
				"The versions answer alike except where an operation's x-api-version-differences says otherwise.",
			"schema": map[string]any{"type": "string", "enum": APIVersions()},
		}
		out = append(out, map[string]any{"$ref": "#/components/parameters/vendor-version"})
	}
	name, beta := "vendor-beta", map[string]any{
		"name": "vendor-beta", "in": "header",
		"description": "Beta features to enable: a comma-separated list; the header may be repeated. Unknown values are ignored.",
		"schema":      map[string]any{"type": "string"},
	}
	if ifc.Beta != "" {
		name = "vendor-beta-" + ifc.Beta
		beta["required"] = true
		beta["description"] = "Beta features to enable: a comma-separated list that must hold " + ifc.Beta + "; the header may be repeated."
		beta["schema"] = map[string]any{"type": "string", "pattern": regexp.QuoteMeta(ifc.Beta)}
	}
	g.params[name] = beta
	return append(out, map[string]any{"$ref": "#/components/parameters/" + name})
}

// securityOf lists the ways the interface takes a credential (auth.go), any one of which
// suffices: an X-Api-Key interface also takes its key as "Authorization: Bearer <key>".
func (g *openAPIGen) securityOf(ifc *Iface) []any {
	var out []any
	add := func(name string, scheme map[string]any) {
		g.security[name] = scheme
		out = append(out, map[string][]string{name: {}})
	}
	for _, a := range ifc.Accepts {
		what := strings.ToUpper(KindNames[a.Kind][:1]) + KindNames[a.Kind][1:]
		switch a.Header {
		case HeaderAPIKey:
			add(string(a.Kind)+".x_api_key", map[string]any{"type": "apiKey", "in": "header", "name": HeaderAPIKey, "description": what + "."})
		case HeaderAuthorization:
			add(string(a.Kind)+".bearer", map[string]any{"type": "http", "scheme": "bearer", "description": what + ", as \"Authorization: Bearer <secret>\"."})
		default:
			panic("openapi: no security scheme for credentials in the header " + a.Header)
		}
	}
	return out
}

// bodyRequired reports whether an absent body (read as {}) would be refused: the request
// schema requires a property.
func (g *openAPIGen) bodyRequired(name string) (bool, error) {
	doc, err := ReadSchema(name)
	if err != nil {
		return false, err
	}
	req, _ := doc["required"].([]any)
	return len(req) > 0, nil
}

// addSchema adds the schema document name, and every document it refers to, to the components:
// its root as component componentName(name), each of its $defs as componentName(name)+"."+def,
// with every reference rewritten to point into the components, so that the document is
// self-contained.
func (g *openAPIGen) addSchema(name string) error {
	if g.added[name] {
		return nil
	}
	g.added[name] = true
	key := componentName(name)
	doc, err := ReadSchema(name)
	if err != nil {
		return err
	}
	base, _ := url.Parse(schemas.BaseURL + name + ".json")
	var refs []string
	doc = rewriteRefs(doc, base, &refs).(map[string]any)
	defs, _ := doc["$defs"].(map[string]any)
	for d, s := range defs {
		g.components[key+"."+d] = s
	}
	for _, k := range []string{"$schema", "$id", "$defs"} {
		delete(doc, k)
	}
	g.components[key] = doc
	if len(defs) > 0 && isContainer(doc) {
		delete(g.components, key) // a document of shared definitions only
	}
	for _, r := range refs {
		if err := g.addSchema(r); err != nil {
			return err
		}
	}
	return nil
}

// prune drops the schema components nothing refers to, directly or through other components:
// the $defs of a schema document that the document's operations do not use.
func (g *openAPIGen) prune(roots ...any) {
	used := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if ref, ok := t["$ref"].(string); ok {
				name, _, _ := strings.Cut(strings.TrimPrefix(ref, "#/components/schemas/"), "/")
				if !used[name] {
					used[name] = true
					walk(g.components[name])
				}
			}
			for _, child := range t {
				walk(child)
			}
		case map[string]map[string]any:
			for _, child := range t {
				walk(child)
			}
		case []any:
			for _, child := range t {
				walk(child)
			}
		}
	}
	for _, r := range roots {
		walk(r)
	}
	for name := range g.components {
		if !used[name] {
			delete(g.components, name)
		}
	}
}

// isContainer reports whether a schema document, without its $defs, describes nothing itself.
func isContainer(doc map[string]any) bool {
	for k := range doc {
		if k != "title" && k != "description" {
			return false
		}
	}
	return true
}

// rewriteRefs replaces each "$ref" in v, resolved against base, by a reference into the
// components, and collects the names of the schema documents it refers to.
func rewriteRefs(v any, base *url.URL, refs *[]string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if s, ok := child.(string); ok && k == "$ref" {
				t[k] = componentRef(s, base, refs)
				continue
			}
			t[k] = rewriteRefs(child, base, refs)
		}
	case []any:
		for i, child := range t {
			t[i] = rewriteRefs(child, base, refs)
		}
	}
	return v
}

func componentRef(ref string, base *url.URL, refs *[]string) string {
	u, err := base.Parse(ref)
	if err != nil || !strings.HasPrefix(u.String(), schemas.BaseURL) {
		return ref // not one of ours: the document's validation reports it
	}
	doc := *u
	doc.Fragment = ""
	name := strings.TrimSuffix(strings.TrimPrefix(doc.String(), schemas.BaseURL), ".json")
	if !slices.Contains(*refs, name) {
		*refs = append(*refs, name)
	}
	target := "#/components/schemas/" + componentName(name)
	frag := u.Fragment
	if rest, ok := strings.CutPrefix(frag, "/$defs/"); ok {
		def, tail, _ := strings.Cut(rest, "/")
		target += "." + def
		if tail != "" {
			target += "/" + tail
		}
	} else {
		target += frag
	}
	return target
}

// componentName is the component name of a schema: its path with dots ("models.model").
func componentName(schema string) string { return strings.ReplaceAll(schema, "/", ".") }

func schemaRef(schema string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + componentName(schema)}
}

// ReadSchema is the schema document name as the fake and the kit compile it: numbers as
// written, and both dialects' words accepted (schemas.BothDialects), so that the OpenAPI
// document describes the maker's words the fake accepts and answers.
func ReadSchema(name string) (map[string]any, error) {
	raw, err := fs.ReadFile(schemas.FS(), name+".json")
	if err != nil {
		return nil, fmt.Errorf("no schema %q: %w", name, err)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers are written back exactly as the schema has them
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	schemas.BothDialects(doc)
	return doc, nil
}

// OpenAPIPath turns gin's ":name" segments into OpenAPI's "{name}".
func OpenAPIPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if v, ok := strings.CutPrefix(s, ":"); ok {
			segs[i] = "{" + v + "}"
		}
	}
	return strings.Join(segs, "/")
}

// handlerName is the name of a route's handler method, the operation's ID.
func handlerName(h handler) string {
	full := runtime.FuncForPC(reflect.ValueOf(h).Pointer()).Name()
	return strings.TrimSuffix(full[strings.LastIndex(full, ".")+1:], "-fm")
}

// sentence turns an operation ID into a summary: "listModels" → "List models".
func sentence(id string) string {
	var b strings.Builder
	for i, r := range id {
		switch {
		case i == 0:
			b.WriteRune(unicode.ToUpper(r))
		case unicode.IsUpper(r):
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
