package platform

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/packages/respjson"
)

// fieldType is respjson.Field, the SDK's record of whether a response field was present.
var fieldType = reflect.TypeFor[respjson.Field]()

// missingRequired walks a decoded SDK response and lists the fields its types mark required
// (api:"required") that the JSON did not carry, or carried in a shape the SDK could not decode,
// by JSON path. null is present: the SDK types mark nullable fields required too. A union is
// checked as the variant its AsAny method picks.
func missingRequired(v reflect.Value, path string) []string {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	var out []string
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			out = append(out, missingRequired(v.Index(i), path+"."+strconv.Itoa(i))...)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			out = append(out, missingRequired(it.Value(), path+"."+it.Key().String())...)
		}
	case reflect.Struct:
		if as := v.MethodByName("AsAny"); as.IsValid() && as.Type().NumIn() == 0 && as.Type().NumOut() == 1 {
			// A union holds the fields of every variant; only the chosen one's count.
			return missingRequired(as.Call(nil)[0], path)
		}
		meta := v.FieldByName("JSON")
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || f.Name == "JSON" || name == "-" {
				continue
			}
			var m reflect.Value
			if meta.IsValid() {
				m = meta.FieldByName(f.Name)
			}
			if !m.IsValid() || m.Type() != fieldType {
				continue
			}
			fld := m.Interface().(respjson.Field)
			raw := fld.Raw()
			switch required := strings.Contains(f.Tag.Get("api"), "required"); {
			case required && raw == respjson.Omitted:
				out = append(out, path+"."+name+" (missing)")
			case !fld.Valid() && raw != respjson.Null && raw != respjson.Omitted:
				out = append(out, path+"."+name+" (undecodable: "+raw+")")
			case fld.Valid():
				out = append(out, missingRequired(v.Field(i), path+"."+name)...)
			}
		}
	}
	return out
}

// result is an SDK call's answer and error, so that one expression can take both.
type result[T any] struct {
	res T
	err error
}

// answer wraps a call of the SDK: answer(client.X.New(ctx, params)).ok(t, "x.new").
func answer[T any](res T, err error) result[T] { return result[T]{res, err} }

// ok fails the test when the call failed or its answer misses a field the SDK requires, and
// returns the answer.
func (r result[T]) ok(t *testing.T, op string) T {
	t.Helper()
	if r.err != nil {
		t.Fatalf("%s: %v", op, r.err)
	}
	if miss := missingRequired(reflect.ValueOf(r.res), op); len(miss) > 0 {
		t.Errorf("%s: the answer misses fields the SDK requires:\n  %s", op, strings.Join(miss, "\n  "))
	}
	return r.res
}
