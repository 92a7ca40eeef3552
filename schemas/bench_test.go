package schemas

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// conversation is a Messages request of 200 turns, each a text block of about 40 words: the
// long request whose decode and verdict stand before its stream's first event.
func conversation(tb testing.TB) []byte {
	msgs := make([]any, 200)
	for i := range msgs {
		msgs[i] = map[string]any{"role": []string{"user", "assistant"}[i%2], "content": []any{map[string]any{"type": "text",
			"text": fmt.Sprintf("Turn %d: %s", i, strings.Repeat("the weather in town was mild and dry all week ", 4))}}}
	}
	data, err := json.Marshal(map[string]any{"model": "assistant-opus-4-5", "max_tokens": 64, "stream": true, "messages": msgs})
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func BenchmarkDecodeConversation(b *testing.B) {
	data := conversation(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateConversation(b *testing.B) {
	v, err := Decode(conversation(b))
	if err != nil {
		b.Fatal(err)
	}
	if err := ValidateValue("messages/create_message_request", v, Strict); err != nil { // compiled before the clock starts
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidateValue("messages/create_message_request", v, Strict); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeValidConversation is what a Messages request costs the fake before its handler
// reads it: DecodeValid, which knows from the decode that every number fits.
func BenchmarkDecodeValidConversation(b *testing.B) {
	data := conversation(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeValid("messages/create_message_request", data, Strict); err != nil {
			b.Fatal(err)
		}
	}
}
