// Package messages holds the conformance checks of Create a Message, count_tokens and the legacy
// completions (spec 2.8, 2.9, 4.4, 6, 7, 8; gaps §4, §5): bodies and their validation, streams,
// prompt caching, threads, the SDKs' surface and the rate-limit headers, with the bugs that prove
// them (bugs_messages.go, bugs_stream.go). Its checks register with the framework (package kit)
// from init; the public face, package conformance, imports it, and other areas may use what it
// exports (Body, CreateRequest, PickModel, UserTurn and its bug builders).
package messages
