package core

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// AssignDecoded sets *v (v a non-nil pointer) to the decoded body doc (schemas.Decode: objects
// as map[string]any, numbers as json.Number) exactly as decodeJSON would decode the same bytes,
// so that a body checked against its schema is parsed once, not twice. It covers the shapes
// request bodies take: structs of exported, tagged fields matched by their exact name, strings,
// booleans, integers and floats, pointers, maps with string keys and slices. For anything else
// (an interface, json.RawMessage or []byte, a type with its own UnmarshalJSON or UnmarshalText,
// an embedded struct, a ",string" field, a key that is not a field's exact name, a number that
// does not fit, a map v already holds) it reports false and leaves *v as it was, for decodeJSON.
func AssignDecoded(doc any, v any) bool {
	dst := reflect.ValueOf(v)
	if _, object := doc.(map[string]any); !object || dst.Kind() != reflect.Pointer || dst.IsNil() {
		return false // decodeJSON takes an object only
	}
	dst = dst.Elem()
	// assign only sets values and makes new maps, slices and pointers, never writes into those
	// *v holds, so a shallow copy restores *v after a shape it does not cover.
	was := reflect.New(dst.Type()).Elem()
	was.Set(dst)
	if assign(doc, dst) {
		return true
	}
	dst.Set(was)
	return false
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// custom reports whether encoding/json decodes into t through a method of its own.
func custom(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || p.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) || p.Implements(textUnmarshaler)
}

// assign sets dst to doc as encoding/json would; false for a shape it leaves to encoding/json.
func assign(doc any, dst reflect.Value) bool {
	t := dst.Type()
	if custom(t) {
		return false
	}
	if doc == nil { // null empties a pointer, map, slice or interface and leaves anything else as it is
		switch t.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			dst.SetZero()
		}
		return true
	}
	switch t.Kind() {
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		if !assign(doc, p.Elem()) {
			return false
		}
		dst.Set(p)
		return true
	case reflect.String:
		s, ok := doc.(string)
		if ok {
			dst.SetString(s)
		}
		return ok
	case reflect.Bool:
		b, ok := doc.(bool)
		if ok {
			dst.SetBool(b)
		}
		return ok
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := doc.(json.Number)
		if !ok {
			return false
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || dst.OverflowInt(i) {
			return false
		}
		dst.SetInt(i)
		return true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := doc.(json.Number)
		if !ok {
			return false
		}
		u, err := strconv.ParseUint(string(n), 10, 64)
		if err != nil || dst.OverflowUint(u) {
			return false
		}
		dst.SetUint(u)
		return true
	case reflect.Float32, reflect.Float64:
		n, ok := doc.(json.Number)
		if !ok {
			return false
		}
		f, err := strconv.ParseFloat(string(n), t.Bits())
		if err != nil || dst.OverflowFloat(f) {
			return false
		}
		dst.SetFloat(f)
		return true
	case reflect.Map:
		m, ok := doc.(map[string]any)
		if !ok || t.Key().Kind() != reflect.String || custom(t.Key()) || !dst.IsNil() {
			return false // encoding/json adds to a map that exists
		}
		out := reflect.MakeMapWithSize(t, len(m))
		for k, e := range m {
			ev := reflect.New(t.Elem()).Elem()
			if !assign(e, ev) {
				return false
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		dst.Set(out)
		return true
	case reflect.Slice:
		a, ok := doc.([]any)
		if !ok || t.Elem().Kind() == reflect.Uint8 { // []byte is base64 in JSON
			return false
		}
		out := reflect.MakeSlice(t, len(a), len(a))
		for i, e := range a {
			if !assign(e, out.Index(i)) {
				return false
			}
		}
		dst.Set(out)
		return true
	case reflect.Struct:
		m, ok := doc.(map[string]any)
		fields := fieldsOf(t)
		if !ok || fields == nil {
			return false
		}
		for k, e := range m {
			i, ok := fields[k]
			if !ok || !assign(e, dst.Field(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// structFields caches fieldsOf by type.
var structFields sync.Map // reflect.Type → map[string]int

// fieldsOf maps the JSON names of t's fields to their index, or is nil when t has a field
// assign leaves to encoding/json: an embedded one, one with the ",string" option, or two of one
// name.
func fieldsOf(t reflect.Type) map[string]int {
	if f, ok := structFields.Load(t); ok {
		return f.(map[string]int)
	}
	fields := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case f.Anonymous || strings.Contains(","+opts+",", ",string,"):
			fields = nil
		case !f.IsExported() || tag == "-":
			continue
		case name == "":
			name = f.Name
		}
		if _, twice := fields[name]; twice || fields == nil {
			fields = nil // encoding/json ignores both of two fields of one name
			break
		}
		fields[name] = i
	}
	structFields.Store(t, fields)
	return fields
}
