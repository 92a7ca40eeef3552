package sdkfields

import (
	"reflect"
	"testing"
)

// meta stands for respjson.Field: what the answer held for one field, and whether it decoded.
type meta struct {
	raw   string
	valid bool
}

func (m meta) Raw() string { return m.raw }
func (m meta) Valid() bool { return m.valid }

type block struct {
	Text string `json:"text" api:"required"`
	JSON struct {
		Text meta
	} `json:"-"`
}

type union struct {
	Text    string `json:"text"`
	variant any
}

func (u union) AsAny() any { return u.variant }

type answer struct {
	ID      string  `json:"id" api:"required"`
	Stop    *string `json:"stop_sequence" api:"required"`
	Note    string  `json:"note"`
	Count   int     `json:"count" api:"required"`
	Content []union `json:"content" api:"required"`
	JSON    struct {
		ID      meta
		Stop    meta
		Note    meta
		Count   meta
		Content meta
	} `json:"-"`
}

func TestMissing(t *testing.T) {
	var a answer
	a.JSON.ID = meta{"", false}       // required, absent
	a.JSON.Stop = meta{"null", false} // required, null: present
	a.JSON.Note = meta{"", false}     // optional, absent
	a.JSON.Count = meta{`"7"`, false} // sent as a string: undecodable
	a.JSON.Content = meta{"[...]", true}
	var ok, bad block
	ok.JSON.Text = meta{`"hi"`, true}
	bad.JSON.Text = meta{"", false}
	a.Content = []union{{variant: ok}, {variant: bad}}
	got := Missing(a, "message")
	want := []string{
		"message.id: required by the SDK's answer, missing from the answer",
		`message.count: the SDK's answer could not decode "7"`,
		"message.content.1.text: required by the SDK's block, missing from the answer",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Missing =\n%q\nwant\n%q", got, want)
	}
}
