package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// decodeStd is what Decode answered before parse: encoding/json's Decoder with UseNumber.
func decodeStd(doc []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("data after the value")
	}
	return v, nil
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		doc   string
		want  any // nil with ok false: parse leaves it to encoding/json
		ok    bool
		unfit bool // a number does not fit a 64-bit float
	}{
		{`{"a":[1,-0.5e+3,"x",true,false,null,{}],"b":[]}`, map[string]any{"a": []any{json.Number("1"), json.Number("-0.5e+3"), "x", true, false, nil, map[string]any{}}, "b": []any{}}, true, false},
		{` {"k":1,"k":2} `, map[string]any{"k": json.Number("2")}, true, false},
		{`"a\"b\u00e9\ud83d\ude00"`, "a\"bé😀", true, false},
		{`"tab\there"`, "tab\there", true, false},
		{"\"\xff\"", "\ufffd", true, false},
		{`"é"`, "é", true, false},
		{`[1e308,-5e-324,0e99999]`, []any{json.Number("1e308"), json.Number("-5e-324"), json.Number("0e99999")}, true, true},
		{`[1e308,-5e-324,0.0]`, []any{json.Number("1e308"), json.Number("-5e-324"), json.Number("0.0")}, true, false},
		{`{"a":[1E400]}`, map[string]any{"a": []any{json.Number("1E400")}}, true, true},
		{`01`, nil, false, false},
		{`1.`, nil, false, false},
		{`-`, nil, false, false},
		{`[1,]`, nil, false, false},
		{`{"a":1}x`, nil, false, false},
		{"\"a\x01\"", nil, false, false},
		{`tru`, nil, false, false},
		{``, nil, false, false},
	} {
		got, fits, ok := parse([]byte(tc.doc))
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) || ok && fits == tc.unfit {
			t.Errorf("parse(%s) = %#v, fits %v, %v; want %#v, fits %v, %v", tc.doc, got, fits, ok, tc.want, !tc.unfit, tc.ok)
		}
	}
}

// FuzzParse holds parse to encoding/json: whatever parse accepts, encoding/json accepts and
// decodes to the same value.
func FuzzParse(f *testing.F) {
	for _, doc := range []string{`{"a":[1,-0.5e+3,"x",true,false,null,{}],"b":[]}`, `"a\"b\u00e9\ud83d\ude00\\"`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`, `[[[[]]]]`, `1e-7`, "\"\xed\xa0\x80\""} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, fits, ok := parse(doc)
		if !ok {
			return
		}
		if fits != numbersFit(got) {
			t.Fatalf("parse(%q) says every number fits: %v; numbersFit says %v", doc, fits, !fits)
		}
		want, err := decodeStd(doc)
		if err != nil {
			t.Fatalf("parse accepted %q, which encoding/json refuses: %v", doc, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parse(%q) = %#v, encoding/json %#v", doc, got, want)
		}
	})
}
