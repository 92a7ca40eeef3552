package main

import (
	"net/http/httptest"
	"os"

	"github.com/platformkit/platformkit/fake"
)

// The example as a user runs it: the fake in-process, every model in five pages of at most five.
func Example() {
	srv := httptest.NewServer(fake.New())
	defer srv.Close()
	if err := printModels(os.Stdout, srv.URL, "test-api-key"); err != nil {
		panic(err)
	}
	// Output:
	// assistant-opus-4-7               Assistant Opus 4.7           released 2026-04-16
	// assistant-sonnet-4-6             Assistant Sonnet 4.6         released 2026-02-17
	// assistant-opus-4-6               Assistant Opus 4.6           released 2026-02-05
	// assistant-opus-4-5-20251101      Assistant Opus 4.5           released 2025-11-24
	// assistant-haiku-4-5-20251001     Assistant Haiku 4.5          released 2025-10-15
	// assistant-sonnet-4-5-20250929    Assistant Sonnet 4.5         released 2025-09-29
	// assistant-opus-4-1-20250805      Assistant Opus 4.1           released 2025-08-05
	// assistant-sonnet-4-20250514      Assistant Sonnet 4           released 2025-05-22
	// assistant-opus-4-20250514        Assistant Opus 4             released 2025-05-22
	// assistant-3-haiku-20240307       Assistant Haiku 3            released 2024-03-07
	// assistant-mythos-preview         Assistant Mythos (Preview)   released 1970-01-01
	// 11 models
}
