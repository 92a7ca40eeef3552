package messages

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/packages/respjson"
)

// fieldType is the type of the SDK's per-field JSON metadata.
var fieldType = reflect.TypeFor[respjson.Field]()

// requireComplete fails t for every field of v, recursively, that the SDK's response types
// mark required (api:"required") and the answer did not carry, or carried with a JSON type the
// SDK could not decode into it. A union is checked as the variant its discriminator names.
// null counts as present: the SDK marks nullable fields (stop_sequence, container) required too.
func requireComplete(t *testing.T, what string, v any) {
	t.Helper()
	var problems []string
	walkRequired(reflect.ValueOf(v), what, &problems, 0)
	for _, p := range problems {
		t.Errorf("%s", p)
	}
}

func walkRequired(v reflect.Value, path string, problems *[]string, depth int) {
	if depth > 32 {
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
			walkRequired(v.Index(i), fmt.Sprintf("%s.%d", path, i), problems, depth+1)
		}
		return
	case reflect.Map:
		for _, k := range v.MapKeys() {
			walkRequired(v.MapIndex(k), fmt.Sprintf("%s.%v", path, k), problems, depth+1)
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
	// A union: check the variant it decoded to, whose own metadata says what was required.
	if m := v.Addr().MethodByName("AsAny"); m.IsValid() && m.Type().NumIn() == 0 {
		walkRequired(m.Call(nil)[0], path, problems, depth+1)
		return
	}
	meta := v.FieldByName("JSON")
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "JSON" {
			continue
		}
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if meta.IsValid() && meta.Kind() == reflect.Struct {
			if fm := meta.FieldByName(f.Name); fm.IsValid() && fm.Type() == fieldType {
				field := fm.Interface().(respjson.Field)
				raw := field.Raw()
				switch {
				case raw == respjson.Omitted && strings.Contains(f.Tag.Get("api"), "required"):
					*problems = append(*problems, fmt.Sprintf("%s.%s: required by the SDK's %s, missing from the answer", path, name, t.Name()))
					continue
				case raw != respjson.Omitted && raw != respjson.Null && !field.Valid():
					*problems = append(*problems, fmt.Sprintf("%s.%s: the SDK's %s could not decode %s", path, name, t.Name(), raw))
					continue
				case raw == respjson.Null || raw == respjson.Omitted:
					continue // nothing inside to check
				}
			}
		}
		walkRequired(v.Field(i), path+"."+name, problems, depth+1)
	}
}
