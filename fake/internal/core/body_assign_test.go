package core

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/platformkit/platformkit/schemas"
)

type assignInner struct {
	On bool `json:"on"`
}

type assignShape struct {
	Name     string             `json:"name"`
	Note     *string            `json:"note"`
	Meta     map[string]string  `json:"meta"`
	Patch    map[string]*string `json:"patch"`
	Tags     []string           `json:"tags"`
	Count    int                `json:"count"`
	Small    int8               `json:"small"`
	Ratio    float64            `json:"ratio"`
	Inner    assignInner        `json:"inner"`
	InnerPtr *assignInner       `json:"inner_ptr"`
	Untagged string
	hidden   string
}

// TestAssignDecoded: a decoded body is assigned as encoding/json decodes it, with the values
// worked out by hand, and the shapes left to encoding/json are reported and leave the value as
// it was.
func TestAssignDecoded(t *testing.T) {
	decode := func(body string) any {
		t.Helper()
		v, err := schemas.Decode([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	note, b := "n", "B"
	var got assignShape
	body := `{"name":"x","note":"n","meta":{"a":"1"},"patch":{"b":"B","c":null},"tags":["t","u"],"count":-3,"small":127,` +
		`"ratio":0.5,"inner":{"on":true},"inner_ptr":{"on":false},"Untagged":"y"}`
	if !AssignDecoded(decode(body), &got) {
		t.Fatal("a body of covered shapes was left to encoding/json")
	}
	want := assignShape{Name: "x", Note: &note, Meta: map[string]string{"a": "1"}, Patch: map[string]*string{"b": &b, "c": nil},
		Tags: []string{"t", "u"}, Count: -3, Small: 127, Ratio: 0.5, Inner: assignInner{On: true}, InnerPtr: &assignInner{}, Untagged: "y"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("assigned\n%+v\nwant\n%+v", got, want)
	}

	// null empties a pointer, map and slice and leaves the rest; absent fields keep their value.
	got = assignShape{Name: "keep", Note: &note, Count: 7, Tags: []string{"old"}}
	if !AssignDecoded(decode(`{"note":null,"tags":null,"name":null}`), &got) {
		t.Fatal("nulls were left to encoding/json")
	}
	if want := (assignShape{Name: "keep", Count: 7}); !reflect.DeepEqual(got, want) {
		t.Fatalf("after nulls %+v, want %+v", got, want)
	}

	// Left to encoding/json: v is unchanged.
	for _, body := range []string{
		`{"small":128}`,               // overflows int8
		`{"count":1.5}`,               // not an integer
		`{"name":1}`,                  // a number for a string
		`{"NAME":"x"}`,                // matched by encoding/json ignoring case
		`{"hidden":"x"}`,              // an unexported field: unknown to encoding/json
		`{"name":"y","meta":{"a":1}}`, // a number in a map of strings, after a field assign set
		`{"inner":{"on":"yes"}}`,      // a string for a bool, one level down
	} {
		v := assignShape{Name: "before"}
		if AssignDecoded(decode(body), &v) {
			t.Errorf("%s was assigned: %+v", body, v)
		}
		if !reflect.DeepEqual(v, assignShape{Name: "before"}) {
			t.Errorf("%s changed the value it left to encoding/json: %+v", body, v)
		}
	}
	var raw struct {
		R json.RawMessage `json:"r"`
	}
	if AssignDecoded(decode(`{"r":{}}`), &raw) {
		t.Error("json.RawMessage was assigned")
	}
	var ifc struct {
		A any `json:"a"`
	}
	if AssignDecoded(decode(`{"a":1}`), &ifc) {
		t.Error("an interface was assigned (encoding/json makes a number float64, the decoded body json.Number)")
	}
	var embedded struct {
		assignInner
	}
	if AssignDecoded(decode(`{"on":true}`), &embedded) {
		t.Error("an embedded struct was assigned")
	}
}

// FuzzAssignDecoded: whenever assignDecoded takes a body, encoding/json (decodeJSON) decodes the
// same bytes without error into the same value.
func FuzzAssignDecoded(f *testing.F) {
	for _, seed := range []string{`{"name":"x","note":null,"meta":{"a":"1"},"patch":{"b":null},"tags":["t"],"count":3,"small":-128}`,
		`{"ratio":1e308,"inner":{"on":true},"inner_ptr":null,"Untagged":"\u00e9"}`, `{"count":9223372036854775807}`, `{"tags":[null]}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		doc, err := schemas.Decode([]byte(body))
		if err != nil {
			return
		}
		var assigned, decoded assignShape
		if !AssignDecoded(doc, &assigned) {
			return
		}
		if err := DecodeJSON([]byte(body), &decoded); err != nil {
			t.Fatalf("%s: assigned %+v, but encoding/json refuses it: %v", body, assigned, err)
		}
		if !reflect.DeepEqual(assigned, decoded) {
			t.Fatalf("%s: assigned\n%+v\nencoding/json\n%+v", body, assigned, decoded)
		}
	})
}
