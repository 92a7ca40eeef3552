// Package fake is an in-memory, deterministic implementation of the Platform API, for tests of
// its clients. Use it in-process:
//
//	ts := fake.NewTestServer(t)                       // closed by t.Cleanup
//	resp, err := ts.Client().Get(ts.URL + "/v1/models") // the client adds the default credentials
//
// or as an http.Handler (httptest.NewServer(fake.New())), or as the binary in cmd/platformfake,
// which serves the same handler over HTTP for clients in any language.
//
// # Determinism
//
// A server starts from its fixtures (package fixtures, or WithFixtures), with a virtual clock at
// Epoch (2026-01-01T00:00:00Z) that moves only when told (AdvanceClock, POST
// /_fake/clock/advance), and with IDs and request-ids from per-server counters. The same
// requests against a new server, or after Reset, give byte-identical responses. Control calls
// (below) never take from the API's counters, so polling /_fake/health for readiness or injecting
// a fault does not change any later API answer. WithWallClock trades this for real time.
//
// # Snapshots
//
// Snapshot (GET /_fake/snapshot) saves the world of a server or namespace as a data set of the
// shape of package fixtures, plus snapshot.json with the clock and the counters; LoadSnapshot
// (POST /_fake/snapshot), WithFixtures and the binary's -fixtures load one, and the world
// continues exactly: every read answers byte-identically and the next write gets the ID,
// timestamp and request-id it would have got.
// The prompt cache and message threads are left out: a loaded snapshot starts with neither, as
// after Reset.
//
// # Message threads
//
// With the beta message-threads-2026-08-12, thread {"type":"create"} keeps a request's
// conversation, system and tools under the reply's id, and thread {"type":"continue",
// "previous_message_id":...} sends only the new messages: the request is expanded to the whole
// conversation where it is parsed, so it is answered exactly as the full request would be. Threads
// expire 5 minutes (virtual clock) after their latest reply, live per namespace, and are bounded
// in the memory they keep (docs/limits.md); their errors carry error.details.error_code. A
// thread belongs to the organization and workspace of the key that created it: any other key
// continuing it gets the 404 thread_not_found of an ID never stored.
//
// # Credentials
//
// Each interface of the API accepts only its own kind of credential: DefaultAPIKey (X-Api-Key)
// for messages, completions, models, memory stores, environments and the work queue;
// DefaultAdminKey (X-Api-Key) for administration; DefaultComplianceKey (Authorization: Bearer)
// for compliance; DefaultBearerToken (Authorization: Bearer, with vendor-beta TunnelsBeta) for
// tunnels; and DefaultEnvironmentKey (Authorization: Bearer) for the work endpoints of
// DefaultEnvironmentID. The interfaces that read X-Api-Key also take the same key as
// Authorization: Bearer, as official SDKs send it; with both headers, X-Api-Key decides.
// A second organization has the same credentials with
// SecondOrganizationSuffix, and a key sees only its own organization's data. Every request but
// compliance carries vendor-version: APIVersion. A missing or unknown credential answers 401, a
// valid credential of another interface 403. CredentialTransport, which TestServer.Client uses,
// adds the right credential and headers to each request.
//
// # The test-control API
//
// Paths under /_fake/ need no credential, are never faulted and never journaled:
// GET /_fake/health; POST /_fake/reset; GET /_fake/clock and POST /_fake/clock/advance;
// GET and DELETE /_fake/journal; POST, GET and DELETE /_fake/faults; GET and DELETE
// /_fake/cache (the prompt cache's live entries); GET and PUT /_fake/rate_limits; GET and PUT
// /_fake/retry_after; GET and PUT /_fake/batch_pace; GET and POST
// /_fake/snapshot and POST /_fake/snapshot/save; and the calls of each area
// (enqueueing work, creating tunnels, checking tunnel tokens and gateway certificates, listing
// message scenarios, scripting replies, managing namespaces). Each is also a method of *Server:
// Reset, Now, AdvanceClock, Snapshot, LoadSnapshot, Journal, ClearJournal, InjectFault, Faults, ClearFaults,
// CacheEntries, ClearCache, RateLimits, SetRateLimits, RetryAfterScale, SetRetryAfterScale, BatchPace,
// SetBatchPace, EnqueueWork,
// CreateTunnel, TunnelForToken, CheckGateway, AddStub, Stubs, ClearStubs, Namespace, Namespaces,
// DeleteNamespace, ClearNamespaces. docs/control-api.md lists their request bodies. GET /_fake/openapi.json
// and GET /_fake/openapi-control.json answer the OpenAPI 3.1 documents of the API and of the
// control API, generated from the route table (go generate ./fake).
//
// # Scripted replies
//
// AddStub (POST /_fake/messages/stubs) registers a reply, or a sequence of replies, for the next
// POST /v1/messages requests that match its rules (model, text of the last user turn, a tool
// name). A reply is checked against the message schema when it is registered, so a bad stub is
// an error naming the field then, never a broken answer later. When served, it gets its id, the
// request's model, and usage as for any answer (the input tokens POST /v1/messages/count_tokens
// counts, split into cache reads, cache writes and input_tokens), and it is streamed with the
// event grammar of any other answer when the request streams. The rules compare exactly and
// case-sensitively; when no stub matches but one nearly does (all of its rules but one hold), the
// answer's Fake-Stub-Near-Miss header (HeaderStubNearMiss) and the journal entry's StubNearMiss
// name that stub and the rule that did not hold. Stubs are bounded in number and in the memory
// their decoded replies keep, per server or namespace and for all namespaces together (README,
// "Limits"): a registration past a bound is a 400 naming replies.
//
// # Rate limits
//
// Off by default. WithRateLimits (the binary's -rate-limits, or PUT /_fake/rate_limits per
// server or namespace) enforces the organizations' and workspaces' rate limits, as the admin
// area serves them, on Messages, count_tokens and Completions: token buckets refilled
// continuously on the virtual clock, the vendor-ratelimit-* and anthropic-ratelimit-* headers on
// every such answer, and a 429 rate_limit_error with retry-after that changes nothing else.
// Advancing the clock by retry-after always lets the refused request through.
//
// # Retries on the virtual clock
//
// WithRetryAfterScale (the binary's -retry-after-scale, PUT /_fake/retry_after per server or
// namespace) makes every 429 and 529 ask for a fraction of its wait in retry-after-ms and
// retry-after (fake-retry-after-ms keeps the true wait), and moves the virtual clock by the true
// wait when an official SDK's retry (x-stainless-retry-count above 0) arrives: an SDK's default
// retry of a rate limit then takes milliseconds of real time and goes through.
//
// # Namespaces
//
// One server holds many isolated worlds, for test runs that share one binary: a request under
// the path prefix /ns/<name>/ (API and control API alike), or with the header NamespaceHeader,
// is served by the namespace of that name, created from the fixtures on first use and answering
// exactly as a new server would. Its data, clock, counters, journal, faults and stubs are its
// own. A server keeps at most DefaultMaxNamespaces (WithMaxNamespaces) and drops the least
// recently used beyond that. In Go tests, New already gives each test a server of its own.
//
// # Limits and errors
//
// Any input gets an answer in the error envelope of the API, naming the field that is wrong and
// what was expected. Apart from injected faults, a 5xx answer or a panic is a bug of the fake,
// which NewTestServer reports as a test failure (WithViolationHandler). JSON bodies are refused
// above 1 MB (Messages: 32 MB) with 413 before they are read whole; a number that does not fit a
// 64-bit float is a 400 naming its field. A tool input generated from an input_schema stops, as at
// max_tokens, at what max_tokens can hold and at most 100,000 values. The journal keeps the last
// 10,000 requests within 32 MiB, each entry cut to a few KiB of headers and 64 KiB of body and
// listing what it cut (JournalEntry.Truncated); the journals of a server and its namespaces
// together stay within 256 MiB, the least recently used namespaces' oldest entries going first.
// Nothing persists beyond the Server value.
//
// # Clause references
//
// Comments cite the Platform API reference by section ("spec 4.7") and the fake's own decisions
// where that reference is silent by "gaps §N": those are listed, with a reason each, in
// conformance/EXTENSIONS.md.
package fake
