// Package sdkfields finds, in an answer decoded by an official Go SDK (v1 or v2), the fields the
// SDK's types require that the answer did not carry, or carried in a shape the SDK could not
// decode. The SDK proofs of examples/go-sdk walk every answer with it.
//
// It needs no SDK import: the SDK's response types keep, beside each field, a metadata field of
// the same name in their JSON struct (respjson.Field), whose Raw and Valid methods say what the
// answer held; that is all this package reads.
package sdkfields

import (
	"fmt"
	"reflect"
	"strings"
)

// field is what respjson.Field offers, in every SDK major.
type field interface {
	Raw() string
	Valid() bool
}

var fieldType = reflect.TypeFor[field]()

// The Raw values respjson gives a field that was absent and one that was null.
const (
	omitted = ""
	null    = "null"
)

// maxDepth bounds the walk: answers are trees, but a type could refer to itself.
const maxDepth = 32

// Missing lists, by JSON path under path, each field of v (an SDK response value) that its type
// marks required (api:"required") and the answer did not carry, and each field the SDK could not
// decode. null counts as present: the SDK types mark nullable fields required too. A union is
// checked as the variant its AsAny method picks.
func Missing(v any, path string) []string {
	var out []string
	walk(reflect.ValueOf(v), path, &out, 0)
	return out
}

func walk(v reflect.Value, path string, out *[]string, depth int) {
	if depth > maxDepth {
		return
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walk(v.Index(i), fmt.Sprintf("%s.%d", path, i), out, depth+1)
		}
		return
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			walk(it.Value(), fmt.Sprintf("%s.%v", path, it.Key()), out, depth+1)
		}
		return
	case reflect.Struct:
	default:
		return
	}
	if !v.CanAddr() { // methods with pointer receivers need an addressable copy
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		v = c
	}
	// A union holds the fields of every variant; only the chosen one's count.
	if m := v.Addr().MethodByName("AsAny"); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 {
		walk(m.Call(nil)[0], path, out, depth+1)
		return
	}
	meta := v.FieldByName("JSON")
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || f.Name == "JSON" || name == "-" {
			continue
		}
		if meta.IsValid() && meta.Kind() == reflect.Struct {
			if fm := meta.FieldByName(f.Name); fm.IsValid() && fm.Type().Implements(fieldType) {
				fld := fm.Interface().(field)
				switch raw := fld.Raw(); {
				case raw == omitted && strings.Contains(f.Tag.Get("api"), "required"):
					*out = append(*out, fmt.Sprintf("%s.%s: required by the SDK's %s, missing from the answer", path, name, t.Name()))
					continue
				case raw != omitted && raw != null && !fld.Valid():
					*out = append(*out, fmt.Sprintf("%s.%s: the SDK's %s could not decode %s", path, name, t.Name(), raw))
					continue
				case raw == omitted || raw == null:
					continue // nothing inside to check
				}
			}
		}
		walk(v.Field(i), path+"."+name, out, depth+1)
	}
}
