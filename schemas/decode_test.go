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
		doc  string
		want any // nil with ok false: parse leaves it to encoding/json
		ok   bool
	}{
		{`{"a":[1,-0.5e+3,"x",true,false,null,{}],"b":[]}`, map[string]any{"a": []any{json.Number("1"), json.Number("-0.5e+3"), "x", true, false, nil, map[string]any{}}, "b": []any{}}, true},
		{` {"k":1,"k":2} `, map[string]any{"k": json.Number("2")}, true},
		{`"a\"b\u00e9\ud83d\ude00"`, "a\"bé😀", true},
		{`"tab\there"`, "tab\there", true},
		{"\"\xff\"", "\ufffd", true},
		{`"é"`, "é", true},
		{`01`, nil, false},
		{`1.`, nil, false},
		{`-`, nil, false},
		{`[1,]`, nil, false},
		{`{"a":1}x`, nil, false},
		{"\"a\x01\"", nil, false},
		{`tru`, nil, false},
		{``, nil, false},
	} {
		got, ok := parse([]byte(tc.doc))
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parse(%s) = %#v, %v; want %#v, %v", tc.doc, got, ok, tc.want, tc.ok)
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
		got, ok := parse(doc)
		if !ok {
			return
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
