// Package messages proves, with the official Go SDK, that the fake takes every request the SDK
// can build for the Messages, Token Counting, Text Completions and Models routes (plain and
// beta, streamed and not) and answers each with a body the SDK decodes completely: every field
// its response types mark required is present and of the right JSON type.
//
// The tests run against the SDK release this module pins (go.mod, the release whose surface
// matches the Platform API reference) and, with -modfile=go.newest.mod -tags sdknewest, against
// the newest release. Each operation is called once with every optional field set to a valid
// value and once with the required fields only.
package messages
