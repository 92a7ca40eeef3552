package fake

import (
	"github.com/platformkit/platformkit/fake/internal/areas/admin"
	"github.com/platformkit/platformkit/fake/internal/areas/ratelimit"
	"github.com/platformkit/platformkit/fake/internal/areas/tunnels"
	"github.com/platformkit/platformkit/fake/internal/areas/work"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// Coverage is what a server answered since its last reset (GET /_fake/coverage): for every API
// operation of the route table, how many requests it had, how many it refused as invalid and
// why, and which of its request fields were ever sent. It is counted as requests arrive, so it
// does not shrink when the journal drops old entries. Control requests (/_fake/) are not counted.
type Coverage = core.Coverage

// OperationCoverage is one API operation's part of Coverage.
type OperationCoverage = core.OperationCoverage

// FieldCoverage splits an operation's fields into those sent and those never sent.
type FieldCoverage = core.FieldCoverage

// InvalidReason is one kind of refusal of an operation's requests: its code (the table below),
// the field it named (array indices as "[]"; "" for the body as a whole), how many requests it
// refused, and the message of the first of them.
type InvalidReason = core.InvalidReason

// Fault makes the server answer matching API requests badly, so that a client's retries,
// timeouts and error handling can be tested. Each matching request uses the fault up once; a
// fault used up is gone. The control API is never faulted. Its JSON form, which POST
// /_fake/faults takes and answers, gives RetryAfter in seconds (retry_after) and Latency in
// milliseconds (latency_ms).
type Fault = core.Fault

// JournalEntry is one API request the server answered (GET /_fake/journal). Control
// requests (/_fake/) are never recorded, and no credential is: only the ID of the key used.
// Entries are bounded (see journalValueCap and the caps beside it): what was cut is named in
// Truncated, so a test never mistakes a shortened value for what was sent.
type JournalEntry = core.JournalEntry

// JournalThread is the thread field of a journaled request: its type ("create" or
// "continue") and, for a continue, the reply it continues.
type JournalThread = core.JournalThread

// JournalBatch is the batch field of the journal entry of one request of a message batch: the
// batch's ID and the request's custom_id. Each request of a batch is journaled as the POST
// /v1/messages it is, with the create request's headers, and as its request_id the create
// request's request-id, "/" and the custom_id ("req_.../first"), before the create's own entry.
type JournalBatch = core.JournalBatch

// JournalSessionEvent is one item of a journal entry's session_events: a session event the
// request appended, by its ID and type (list the session's events for the rest).
type JournalSessionEvent = core.JournalSessionEvent

// NamespaceInfo describes a namespace (GET /_fake/namespaces). Times are on the wall clock, since
// every namespace has a virtual clock of its own.
type NamespaceInfo = core.NamespaceInfo

// WorkItem is a work item as the API answers it (spec 2.16). Timestamps are nil until the
// transition that owns them has happened.
type WorkItem = work.WorkItem

// WorkData names the session a work item runs (spec 2.16).
type WorkData = work.WorkData

// Tunnel is the tunnel record of spec 2.17, as the API answers it and CreateTunnel returns it.
type Tunnel = tunnels.Tunnel

// TunnelOptions are the fields of a tunnel made with CreateTunnel; empty fields are unset.
type TunnelOptions = tunnels.TunnelOptions

// TokenRotation is the audit record of one rotate_token call (spec 4.9: the reason is recorded
// for audit). It holds token IDs, never token values.
type TokenRotation = tunnels.TokenRotation

// RateLimitBucket is a bucket as GET /_fake/rate_limits shows it, at the server's time.
type RateLimitBucket = ratelimit.RateLimitBucket

// RateLimitState is whether rate limits are enforced, and every bucket a request has used since
// they were turned on (a bucket not listed is full).
type RateLimitState = ratelimit.RateLimitState

// The API versions, credentials, headers and refusal reasons the fake knows, by the names of the
// core that defines them.
const (
	// EFSBeta is the beta value a request sends to set and read a workspace's inference_data_privacy.
	EFSBeta = admin.EFSBeta

	APIVersion = core.APIVersion

	// APIVersion20261021 is the version the official SDK majors released on 2026-10-21 send
	// (TypeScript 1.x, Python 2.x, Go v2, Java 3.x).
	APIVersion20261021 = core.APIVersion20261021

	// DefaultAPIKey goes in X-Api-Key for messages, completions, models, memory stores,
	// environments and the work queue.
	DefaultAPIKey = core.DefaultAPIKey

	// DefaultAdminKey goes in X-Api-Key for the administration interface.
	DefaultAdminKey = core.DefaultAdminKey

	// DefaultBearerToken is the workload-identity token of the tunnels interface, sent as
	// "Authorization: Bearer" together with "vendor-beta: " + TunnelsBeta.
	DefaultBearerToken = core.DefaultBearerToken

	// DefaultComplianceKey goes in "Authorization: Bearer" for the compliance interface.
	DefaultComplianceKey = core.DefaultComplianceKey

	// DefaultEnvironmentID is the environment of DefaultEnvironmentKey, the first organization's
	// primary environment; it starts with queued work.
	DefaultEnvironmentID = core.DefaultEnvironmentID

	// DefaultEnvironmentKey goes in "Authorization: Bearer" for the work endpoints of the
	// environment DefaultEnvironmentID only.
	DefaultEnvironmentKey = core.DefaultEnvironmentKey

	// DefaultMaxNamespaces is how many namespaces a server keeps unless WithMaxNamespaces says
	// otherwise. A namespace that has been used holds the state its requests built (a few KiB to a
	// few MiB, depending on which areas it touched), so the bound keeps a long CI run from growing
	// the process without limit.
	DefaultMaxNamespaces = core.DefaultMaxNamespaces

	// NamespaceHeader selects a namespace, for clients that can add headers but not change paths.
	NamespaceHeader = core.NamespaceHeader

	// a number, length or count beyond its bounds
	ReasonBadFormat = core.ReasonBadFormat

	// a string that does not match its pattern or format
	ReasonBadQuery = core.ReasonBadQuery

	// over the interface's limit (413 request_too_large)
	ReasonBodyCut = core.ReasonBodyCut

	ReasonBodyNotJSON = core.ReasonBodyNotJSON

	// the body is not one JSON document (or ends early)
	ReasonBodyNotObject = core.ReasonBodyNotObject

	// the body is JSON but not an object
	ReasonBodyTooLarge = core.ReasonBodyTooLarge

	// the connection ended before the body did
	ReasonContentType = core.ReasonContentType

	// a missing or unknown API version, or what the request's version refuses
	ReasonInvalidValue = core.ReasonInvalidValue

	// a Content-Type other than JSON
	ReasonMissingField = core.ReasonMissingField

	// a field of the wrong JSON type
	ReasonNotAllowed = core.ReasonNotAllowed

	// a value outside the field's enumeration or constant
	ReasonOutOfRange = core.ReasonOutOfRange

	// a required field is absent
	ReasonUnknownField = core.ReasonUnknownField

	// a query parameter that is malformed, out of range or missing
	ReasonVersion = core.ReasonVersion

	// a field the schema does not name
	ReasonWrongType = core.ReasonWrongType

	// SecondOrganizationSuffix turns a default credential into the second organization's.
	SecondOrganizationSuffix = core.SecondOrganizationSuffix

	// TunnelsAPIBeta is the vendor-beta value of the tunnels interface the official SDKs call under
	// /v1/tunnels (anthropic-sdk-go v1.84.0), which serves the same tunnels as /v1/organizations/tunnels.
	TunnelsAPIBeta = core.TunnelsAPIBeta

	// TunnelsBeta is the vendor-beta value every request of the tunnels interface carries.
	TunnelsBeta = core.TunnelsBeta
)
