package core

import "testing"

// The rewrite changes only the values of the table's keys, byte for byte elsewhere.
func TestRewriteJSONChangesOnlyTheTablesValues(t *testing.T) {
	for _, c := range []struct{ ref, maker string }{
		// A role, a model, its display name, a list cursor, an array of models.
		{`{"role":"assistant_code_user","model":"assistant-opus-4-7","display_name":"Assistant Opus 4.7","first_id":"assistant-opus-4-7","models":["assistant-haiku-4-5", "assistant-3-haiku-20240307"]}`,
			`{"role":"claude_code_user","model":"claude-opus-4-7","display_name":"Claude Opus 4.7","first_id":"claude-opus-4-7","models":["claude-haiku-4-5", "claude-3-haiku-20240307"]}`},
		// The message role and free text never change; nor does a key, nor a value with an escape.
		{`{"role":"assistant","content":[{"type":"text","text":"assistant-opus-4-7"}],"name":"assistant_code_user","assistant-x":1,"model":"assistant-\u0041"}`,
			`{"role":"assistant","content":[{"type":"text","text":"assistant-opus-4-7"}],"name":"assistant_code_user","assistant-x":1,"model":"assistant-\u0041"}`},
		// Compliance IDs under any key; the type constants under type.
		{`{"id":"assistant_chat_01","files":["assistant_file_01"],"type":"assistant_file_deleted","chat_id":"assistant_chat_msg_01"}`,
			`{"id":"claude_chat_01","files":["claude_file_01"],"type":"claude_file_deleted","chat_id":"claude_chat_msg_01"}`},
		// A bare prefix is no name.
		{`{"model":"assistant-"}`, `{"model":"assistant-"}`},
		// Escaped quotes and backslashes end no string early: the value after them is still
		// found, and one that holds an escape is left alone.
		{`{"text":"say \"assistant-x\" \\","model":"assistant-opus-4-7","m2":"\\\"","model_id":"assistant-a\\"}`,
			`{"text":"say \"assistant-x\" \\","model":"claude-opus-4-7","m2":"\\\"","model_id":"assistant-a\\"}`},
	} {
		if got := string(rewriteJSON([]byte(c.ref), Maker)); got != c.maker {
			t.Errorf("to the maker's words:\n got %s\nwant %s", got, c.maker)
		}
	}
	back := `{"role":"claude_code_user","model":"claude-sonnet-4-5","roles":["claude_code_user","user"]}`
	if got, want := string(InReferenceWords([]byte(back))), `{"role":"assistant_code_user","model":"assistant-sonnet-4-5","roles":["assistant_code_user","user"]}`; got != want {
		t.Errorf("to the reference's words:\n got %s\nwant %s", got, want)
	}
	if got := Canonical("email", "claude-bob@example.com"); got != "claude-bob@example.com" {
		t.Errorf("an email parameter was rewritten: %s", got)
	}
	if got := Canonical("model_id", "claude-opus-4-7"); got != "assistant-opus-4-7" {
		t.Errorf("model_id: %s", got)
	}
}
