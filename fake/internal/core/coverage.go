package core

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gin-gonic/gin"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/schemas"
)

// Coverage is the face's Coverage (package fake), which documents it.
type Coverage struct {
	// Scope is "server" for every request to the server and its namespaces, else "namespace"
	// (Namespace names it) or "default" (the requests outside any namespace).
	Scope     string `json:"scope"`
	Namespace string `json:"namespace"`
	Requests  int64  `json:"requests"`
	Invalid   int64  `json:"invalid"`
	// Unrouted counts the requests that matched no operation (an unknown path or method, or a
	// namespace name outside the grammar): no operation's counts include them.
	Unrouted            int64               `json:"unrouted"`
	OperationsTotal     int                 `json:"operations_total"`
	OperationsExercised int                 `json:"operations_exercised"`
	FieldsTotal         int                 `json:"fields_total"`
	FieldsSent          int                 `json:"fields_sent"`
	Operations          []OperationCoverage `json:"operations"`
}

// OperationCoverage is the face's OperationCoverage (package fake), which documents it.
type OperationCoverage struct {
	Operation string `json:"operation"` // "POST /v1/messages", the path as the route table writes it
	Interface string `json:"interface"`
	Requests  int64  `json:"requests"`
	// Invalid counts the requests refused as malformed (invalid_request_error, request_too_large);
	// Faulted those answered by an injected fault, which are neither valid nor invalid.
	Invalid int64 `json:"invalid"`
	Faulted int64 `json:"faulted"`
	// APIVersions are the API versions whose rules answered at least one request (versions.go,
	// oldest first): which versions a test run's clients spoke on this operation.
	APIVersions []string        `json:"api_versions"`
	Reasons     []InvalidReason `json:"reasons"`
	// ReasonsDropped counts invalid requests whose reason was not kept: an operation keeps its
	// first 32 distinct reasons.
	ReasonsDropped int64 `json:"reasons_dropped"`
	// BodyFields are the JSON paths of the operation's request body schema ("messages[].role";
	// "[]" is any item of an array), QueryParameters the query parameters it reads: those sent in
	// at least one request, and the others. A field counts as sent whatever its value, in valid
	// and invalid requests alike, once the fake read the body (a request refused for its
	// credential is counted, its body is not read).
	BodyFields      FieldCoverage `json:"body_fields"`
	QueryParameters FieldCoverage `json:"query_parameters"`
}

// FieldCoverage is the face's FieldCoverage (package fake), which documents it.
type FieldCoverage struct {
	Sent    []string `json:"sent"`
	NotSent []string `json:"not_sent"`
}

// InvalidReason is the face's InvalidReason (package fake), which documents it.
type InvalidReason struct {
	Code    string `json:"code"`
	Field   string `json:"field"`
	Count   int64  `json:"count"`
	Example string `json:"example"`
}

// The reason codes of InvalidReason: one per kind of mistake, stable across releases, so that a
// client's test can assert them. docs/coverage.md has the same table.
const (
	ReasonBodyNotJSON   = "body_not_json"   // the body is not one JSON document (or ends early)
	ReasonBodyNotObject = "body_not_object" // the body is JSON but not an object
	ReasonBodyTooLarge  = "body_too_large"  // over the interface's limit (413 request_too_large)
	ReasonBodyCut       = "body_incomplete" // the connection ended before the body did
	ReasonContentType   = "content_type"    // a Content-Type other than JSON
	ReasonMissingField  = "missing_field"   // a required field is absent
	ReasonUnknownField  = "unknown_field"   // a field the schema does not name
	ReasonWrongType     = "wrong_type"      // a field of the wrong JSON type
	ReasonNotAllowed    = "not_allowed"     // a value outside the field's enumeration or constant
	ReasonOutOfRange    = "out_of_range"    // a number, length or count beyond its bounds
	ReasonBadFormat     = "bad_format"      // a string that does not match its pattern or format
	ReasonBadQuery      = "bad_query"       // a query parameter that is malformed, out of range or missing
	ReasonVersion       = "api_version"     // a missing or unknown API version, or what the request's version refuses
	ReasonInvalidValue  = "invalid_value"   // a well-formed request a rule of the API refuses (conflicting fields, an unknown model)
)

// reasonOfKeyword classifies a violation of the request schema by the JSON Schema keyword broken.
func reasonOfKeyword(kw, field string) string {
	switch kw {
	case "required", "dependentRequired":
		return ReasonMissingField
	case "unevaluatedProperties", "additionalProperties", "propertyNames":
		return ReasonUnknownField
	case "type":
		if field == "" {
			return ReasonBodyNotObject
		}
		return ReasonWrongType
	case "enum", "const":
		return ReasonNotAllowed
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
		"minItems", "maxItems", "minProperties", "maxProperties", "uniqueItems", "number":
		return ReasonOutOfRange
	case "pattern", "format":
		return ReasonBadFormat
	}
	return ReasonInvalidValue
}

// Bounds of what one operation's coverage keeps, whatever its clients send.
const (
	MaxReasons      = 32
	MaxReasonField  = 256
	MaxReasonSample = 512
	// MaxFieldWords bounds an operation's fields to 512, body and query together (the
	// create-message request, with every field of the official SDKs, has 269);
	// TestEveryOperationsFieldsFit keeps them within it.
	MaxFieldWords = 8
)

// operation is an API route of the table as coverage counts it. Its fields are numbered, body
// fields first, then query parameters, so that "sent" is a few bits; they are read from the
// request schema on the operation's first request (compiling every request schema up front
// would cost the first request of a process a fifth of a second).
type operation struct {
	Rt   *Route
	Name string

	once   sync.Once
	fields []string   // body field paths, then query parameter names
	NBody  int        // how many of fields are body fields
	body   *fieldNode // the body fields as a tree, to walk a request body along
}

// Load reads the operation's fields, once.
func (op *operation) Load() *operation {
	op.once.Do(func() {
		op.body = &fieldNode{idx: -1}
		if op.Rt.Body != "" {
			fields, err := schemas.Fields(op.Rt.Body)
			if err != nil {
				panic("fake: the request schema of " + op.Name + ": " + err.Error())
			}
			for _, f := range fields {
				op.body.add(f, len(op.fields))
				op.fields = append(op.fields, f)
			}
		}
		op.NBody = len(op.fields)
		for _, p := range op.Rt.Query {
			op.fields = append(op.fields, p.Name)
		}
		if len(op.fields) > 64*MaxFieldWords {
			panic(fmt.Sprintf("fake: %s has %d fields; coverage counts at most %d", op.Name, len(op.fields), 64*MaxFieldWords))
		}
	})
	return op
}

// fieldNode is a body field (idx >= 0), or the root of a body or an array's items (idx -1).
type fieldNode struct {
	idx   int
	props map[string]*fieldNode
	items *fieldNode
}

type operationKey struct{ method, path string }

type operationTable struct {
	List  []*operation
	index map[operationKey]int
}

// Operations numbers the API operations of the route table, once per process. (A function over
// a sync.Once rather than a sync.OnceValue: the route table refers, through getCoverage, back to
// it, which Go forbids in a variable's initializer.)
func Operations() *operationTable {
	operationsOnce.Do(func() {
		t := &operationTable{index: map[operationKey]int{}}
		for _, rt := range Routes() {
			if rt.Ifc != nil {
				t.index[operationKey{rt.Method, rt.Path}] = len(t.List)
				t.List = append(t.List, &operation{Rt: rt, Name: rt.Method + " " + rt.Path})
			}
		}
		operationTab = t
	})
	return operationTab
}

var (
	operationsOnce sync.Once
	operationTab   *operationTable
)

// add places the field path ("messages[].content[].type") in the tree under n.
func (n *fieldNode) add(path string, idx int) {
	for _, seg := range strings.Split(path, ".") {
		name, arrays := seg, 0
		for strings.HasSuffix(name, "[]") {
			name, arrays = name[:len(name)-2], arrays+1
		}
		if n.props == nil {
			n.props = map[string]*fieldNode{}
		}
		child := n.props[name]
		if child == nil {
			child = &fieldNode{idx: -1}
			n.props[name] = child
		}
		n = child
		for range arrays {
			if n.items == nil {
				n.items = &fieldNode{idx: -1}
			}
			n = n.items
		}
	}
	n.idx = idx
}

// mark sets the bit of every field of n's tree that v holds. It follows only the schema's fields,
// so a body costs at most one look at each of its values, however deep it nests.
func (n *fieldNode) mark(v gjson.Result, sent []uint64) {
	switch {
	case v.IsObject() && n.props != nil:
		v.ForEach(func(k, item gjson.Result) bool {
			if child := n.props[k.Str]; child != nil {
				if child.idx >= 0 {
					sent[child.idx/64] |= 1 << (child.idx % 64)
				}
				child.mark(item, sent)
			}
			return true
		})
	case v.IsArray() && n.items != nil:
		v.ForEach(func(_, item gjson.Result) bool {
			n.items.mark(item, sent)
			return true
		})
	}
}

// sentFields marks in sent the body fields of gc's operation that the decoded body v holds, as
// countCoverage counts them; false for a route no operation describes, or one without body
// fields.
func sentFields(gc *gin.Context, v any, sent *[MaxFieldWords]uint64) bool {
	tab := Operations()
	i, ok := tab.index[operationKey{gc.Request.Method, gc.FullPath()}]
	if !ok {
		return false
	}
	op := tab.List[i].Load()
	if op.body.props == nil {
		return false
	}
	op.body.markValue(v, sent[:])
	return true
}

// markValue is mark for a body the handler decoded (decodeBody): the same walk over the decoded
// value, which holds the last of duplicate keys only, as the handler read it.
func (n *fieldNode) markValue(v any, sent []uint64) {
	switch v := v.(type) {
	case map[string]any:
		if n.props == nil {
			return
		}
		for k, item := range v {
			if child := n.props[k]; child != nil {
				if child.idx >= 0 {
					sent[child.idx/64] |= 1 << (child.idx % 64)
				}
				child.markValue(item, sent)
			}
		}
	case []any:
		if n.items == nil {
			return
		}
		for _, item := range v {
			n.items.markValue(item, sent)
		}
	}
}

// coverage is a server's counts; reset replaces them whole, so counting takes no lock.
type coverage struct {
	p atomic.Pointer[coverageCounts]
}

type coverageCounts struct {
	unrouted atomic.Int64
	ops      []opCounts // as operations().list
}

type opCounts struct {
	requests, invalid, faulted atomic.Int64
	sent                       [MaxFieldWords]atomic.Uint64
	versions                   atomic.Uint32 // bit i: apiVersions[i] answered a request

	mu      sync.Mutex // guards reasons and dropped: touched only by invalid requests
	reasons []InvalidReason
	dropped int64
}

// counts returns the counts, built on the first request, so that a namespace nobody calls costs
// nothing.
func (c *coverage) counts() *coverageCounts {
	if cc := c.p.Load(); cc != nil {
		return cc
	}
	c.p.CompareAndSwap(nil, newCoverageCounts())
	return c.p.Load()
}

func newCoverageCounts() *coverageCounts {
	return &coverageCounts{ops: make([]opCounts, len(Operations().List))}
}

func (c *coverage) reset() { c.p.Store(nil) }

// countCoverage counts a finished API request into the coverage of s and into that of the whole
// server (the default server's all). It runs on every API request: it walks the body the handler read
// along the operation's fields only, and takes a lock only to note why a request was invalid.
func (s *Server) countCoverage(gc *gin.Context, fault bool) {
	tab := Operations()
	// The handler's call knows its operation; a request answered before the handler ran (an
	// injected fault) is found by its route's path.
	var i int
	var ok bool
	c := callOf(gc)
	if c != nil {
		i, ok = c.op, c.op >= 0
	} else {
		i, ok = tab.index[operationKey{gc.Request.Method, gc.FullPath()}]
	}
	if !ok {
		s.coverage.counts().unrouted.Add(1)
		s.Root().all.counts().unrouted.Add(1)
		return
	}
	op := tab.List[i].Load()
	var sent [MaxFieldWords]uint64
	x := exchangeOf(gc)
	ae := x.apiError
	if x.bodyCounted {
		sent = x.bodySent // the handler decoded the body and counted its fields (sentFields)
	} else if b := x.body; b != nil && op.body.props != nil && (ae == nil || ae.reason != ReasonBodyNotJSON) {
		op.body.mark(gjson.ParseBytes(b), sent[:])
	}
	if q := gc.Request.URL.RawQuery; q != "" && len(op.fields) > op.NBody {
		markQuery(op, q, sent[:])
	}
	var reason InvalidReason
	invalid := !fault && ae != nil && (ae.Typ == ErrInvalidRequest || ae.Typ == ErrRequestTooLarge)
	if invalid {
		reason = reasonOf(op, ae)
	}
	var version uint32
	if c != nil && c.Version != nil {
		version = 1 << slices.Index(apiVersions, c.Version)
	}
	for _, cc := range []*coverageCounts{s.coverage.counts(), s.Root().all.counts()} {
		o := &cc.ops[i]
		o.requests.Add(1)
		if version != 0 && o.versions.Load()&version == 0 {
			o.versions.Or(version)
		}
		for w, bits := range sent {
			if bits != 0 && o.sent[w].Load()&bits != bits {
				o.sent[w].Or(bits)
			}
		}
		switch {
		case fault:
			o.faulted.Add(1)
		case invalid:
			o.invalid.Add(1)
			o.addReason(reason)
		}
	}
}

// markQuery sets the bits of the operation's query parameters that the raw query names, in any
// of the forms clients send (name=, name[]=).
func markQuery(op *operation, raw string, sent []uint64) {
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		key, _, _ := strings.Cut(pair, "=")
		if strings.ContainsAny(key, "%+") {
			if k, err := url.QueryUnescape(key); err == nil {
				key = k
			}
		}
		for i := op.NBody; i < len(op.fields); i++ {
			if f := op.fields[i]; key == f || (len(key) == len(f)+2 && strings.HasPrefix(key, f) && strings.HasSuffix(key, "[]")) {
				sent[i/64] |= 1 << (i % 64)
				break
			}
		}
	}
}

// reasonOf classifies an invalid request's error: by the reason its producer gave, or else as a
// bad query parameter when it names one of the operation's, or as a rule of the API.
func reasonOf(op *operation, ae *APIError) InvalidReason {
	r := InvalidReason{Code: ae.reason, Field: IndexFree(ae.field), Example: ae.Message}
	switch {
	case ae.Typ == ErrRequestTooLarge:
		r.Code = ReasonBodyTooLarge
	case r.Code != "":
	case ae.field != "" && slices.Contains(op.fields[op.NBody:], ae.field):
		r.Code = ReasonBadQuery
	default:
		r.Code = ReasonInvalidValue
	}
	if len(r.Field) > MaxReasonField {
		r.Field = r.Field[:MaxReasonField]
	}
	if len(r.Example) > MaxReasonSample {
		r.Example = r.Example[:MaxReasonSample]
	}
	return r
}

// IndexFree writes a field path's array indices as "[]": "messages.0.role" is "messages[].role",
// so that one mistake made in every item is one reason.
func IndexFree(path string) string {
	if path == "" || !strings.ContainsAny(path, "0123456789") {
		return path
	}
	segs := strings.Split(path, ".")
	var b strings.Builder
	for i, seg := range segs {
		if seg != "" && strings.Trim(seg, "0123456789") == "" && i > 0 {
			b.WriteString("[]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

func (o *opCounts) addReason(r InvalidReason) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.reasons {
		if o.reasons[i].Code == r.Code && o.reasons[i].Field == r.Field {
			o.reasons[i].Count++
			return
		}
	}
	if len(o.reasons) == MaxReasons {
		o.dropped++
		return
	}
	r.Count = 1
	o.reasons = append(o.reasons, r)
}

// Coverage is the face's Server.Coverage (package fake), which documents it.
func (s *Server) Coverage() Coverage {
	scope := "default"
	if s.NsName != "" {
		scope = "namespace"
	}
	return s.coverage.counts().snapshot(scope, s.NsName)
}

// ServerCoverage is the face's Server.ServerCoverage (package fake), which documents it.
func (s *Server) ServerCoverage() Coverage {
	return s.Root().all.counts().snapshot("server", "")
}

func (cc *coverageCounts) snapshot(scope, ns string) Coverage {
	out := Coverage{Scope: scope, Namespace: ns, Unrouted: cc.unrouted.Load(), Operations: []OperationCoverage{}}
	for i, op := range Operations().List {
		op.Load()
		o := &cc.ops[i]
		oc := OperationCoverage{Operation: op.Name, Interface: op.Rt.Ifc.Name,
			Requests: o.requests.Load(), Invalid: o.invalid.Load(), Faulted: o.faulted.Load(), APIVersions: []string{},
			BodyFields:      FieldCoverage{Sent: []string{}, NotSent: []string{}},
			QueryParameters: FieldCoverage{Sent: []string{}, NotSent: []string{}}}
		for v, av := range apiVersions {
			if o.versions.Load()&(1<<v) != 0 {
				oc.APIVersions = append(oc.APIVersions, av.name)
			}
		}
		o.mu.Lock()
		oc.Reasons, oc.ReasonsDropped = append([]InvalidReason{}, o.reasons...), o.dropped
		o.mu.Unlock()
		for f, name := range op.fields {
			set := &oc.BodyFields
			if f >= op.NBody {
				set = &oc.QueryParameters
			}
			if o.sent[f/64].Load()&(1<<(f%64)) != 0 {
				set.Sent = append(set.Sent, name)
				out.FieldsSent++
			} else {
				set.NotSent = append(set.NotSent, name)
			}
		}
		out.FieldsTotal += len(op.fields)
		out.Requests += oc.Requests
		out.Invalid += oc.Invalid
		if oc.Requests > 0 {
			out.OperationsExercised++
		}
		out.Operations = append(out.Operations, oc)
	}
	out.Requests += out.Unrouted
	out.OperationsTotal = len(out.Operations)
	return out
}

// getCoverage answers GET /_fake/coverage: the coverage of the namespace the request is for, or
// of the whole server with all=true.
func (s *Server) getCoverage(c *Call) (any, error) {
	all, err := c.QueryBool("all")
	if err != nil {
		return nil, err
	}
	if all {
		return s.ServerCoverage(), nil
	}
	return s.Coverage(), nil
}
