// Package messages proves, with Go SDK v2 (github.com/anthropics/anthropic-sdk-go/v2), that the
// fake takes every request the SDK can build for the Messages, Token Counting and Models routes
// (plain and beta, streamed and not, and beta message threads with the SDK's tool runner) and
// answers each with a body the SDK decodes completely: every field its response types mark
// required is present and of the right JSON type.
//
// The client is configured as the SDK's README says (option.WithBaseURL, option.WithAPIKey), so
// every request carries what v2 sends by itself: anthropic-version 2026-10-21 and the key as
// Authorization: Bearer. Each operation is called once with every optional field set to a valid
// value and once with the required fields only.
package messages
