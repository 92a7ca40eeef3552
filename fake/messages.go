package fake

import (
	"github.com/platformkit/platformkit/fake/internal/areas/messages/cache"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"
)

// ContentBlock is one content block, as decoded JSON: its "type" says which of the block types
// of the Platform API reference (section 2.9) it is, and so which other fields it has. Blocks are
// maps because scenario fixtures hold every block type and the stream writes them back byte for
// byte.
type ContentBlock = map[string]any

// CacheEntry is one live prompt-cache entry, as GET /_fake/cache lists it.
type CacheEntry = cache.CacheEntry

// Diagnostics is the diagnostics field of a message: nil (null) when the request asked for none,
// sent previous_message_id null, or diverged nowhere.
type Diagnostics = wire.Diagnostics

// CacheMissReason is why the cache missed: model_changed, system_changed, tools_changed and
// messages_changed carry the tokens that would have been read had the prefix matched;
// previous_message_not_found and unavailable carry nothing.
type CacheMissReason = wire.CacheMissReason

// Message is the answer of POST /v1/messages (the Platform API reference, section 2.9, with the
// fields of gaps §4). The fake answers with it, and AccumulateMessage rebuilds it from a stream.
type Message = wire.Message

// Container is a message's code-execution container: the one the request named, or a new one
// when the request only listed skills.
type Container = wire.Container

// ContainerSkill is a skill loaded into a container.
type ContainerSkill = wire.ContainerSkill

// ContextManagement lists the context edits the service applied before the model ran.
type ContextManagement = wire.ContextManagement

// StopDetails is the refusal record of a message whose stop_reason is "refusal" (section 2.9).
type StopDetails = wire.StopDetails

// Usage is a message's token accounting (gaps §4).
type Usage = wire.Usage

// StreamEvent is one server-sent event: its name and its JSON data.
type StreamEvent = wire.StreamEvent

// ScenarioMatch is a scenario's matching rule: it selects the scenario for a request whose last
// user turn's text equals and/or contains these strings.
type ScenarioMatch = scenarios.ScenarioMatch

// Scenario describes one scenario of the library: its name for the Fake-Scenario header, what
// it shows, and its matching rule (nil when it is selected by name only).
type Scenario = scenarios.Scenario

// Reply is a canned assistant reply: the content and stop fields of a message (spec 2.9). The
// server fills in the rest when it serves one: id from its counter, type, role, the request's
// model, and usage counted exactly as for the scripted model (the input tokens count_tokens
// counts, split into cache reads, cache writes and input_tokens; output_tokens from the
// content). A reply is served as given, but for the citations: null a text block written without
// citations gets, and the caller {"type": "direct"} a tool_use block written without caller gets,
// as the API answers every such block: the request's max_tokens and stop_sequences do not cut
// it, as they cut the scripted model's text.
type Reply = stubs.Reply

// StubMatch selects the requests a stub answers. Every rule given must hold; no rule at all
// matches every request. Every comparison is exact and case-sensitive: "Hello" is not in
// "hello there", and model "Claude-X" is not "claude-x".
type StubMatch = stubs.StubMatch

// Stub is a reply, or a sequence of replies, for the Create a Message requests it matches. Each
// matching request is answered with the next reply in order. Once the sequence has been served
// Times times (default 1) the stub is used up and removed, and requests fall back to the
// library's scenarios and the scripted model; with Forever the sequence starts over until the
// stubs are cleared. Stubs are tried in the order they were registered; the first that matches
// answers. Each turn of a session's agent is such a request too, which the fake makes itself
// from the session's events, so a stub scripts the agent (docs/sessions-agent.md).
type Stub = stubs.Stub

// OnMiss says what a replaying server does with an inference request no recording matches.
type OnMiss = tape.OnMiss

// TapeConfig configures record and replay. Record and Replay exclude each other: to replay what
// is recorded and record the rest, use Replay with OnMiss OnMissUpstream.
type TapeConfig = tape.TapeConfig

// Tape is a loaded record and replay configuration (OpenTape), for WithTape. It is safe for
// concurrent use; recordings made while serving are added to it.
type Tape = tape.Tape

// ParseEventStream splits a text/event-stream body into events. Every event must have an
// `event:` line and one `data:` line whose JSON "type" equals the event's name (gaps §4).
func ParseEventStream(body []byte) ([]StreamEvent, error) { return wire.ParseEventStream(body) }

// AccumulateMessage rebuilds the message a streamed Create a Message delivered, checking the
// order of gaps §4 on the way: message_start first; blocks started in index order from 0, never
// interleaved, each stopped; tool_use started with input exactly {}; message_delta, then
// message_stop last; ping anywhere. It returns the first violation as an error. Numbers inside
// content blocks (tool input) are json.Number, so they compare exactly; message fields that
// Message does not name are dropped.
func AccumulateMessage(events []StreamEvent) (*Message, error) {
	return wire.AccumulateMessage(events)
}

// OpenTape checks cfg and loads the recordings of cfg.Replay. A recording that the fake could not
// serve as it is (outside the schemas of its route, events out of the stream grammar, a
// credential in it, two files for one request) is an error naming the file, the field and the
// reason.
func OpenTape(cfg TapeConfig) (*Tape, error) { return tape.OpenTape(cfg) }

const (
	// HeaderStubNearMiss is the response header of a Create a Message request that no stub answered
	// while one nearly did: the stub's ID and the one clause of its match that did not hold, e.g.
	// stub_2: user_text_contains "Hello" not in "hello there" (case-sensitive). The journal entry's
	// stub_near_miss holds the same line.
	HeaderStubNearMiss = stubs.HeaderStubNearMiss

	// MaxRecordedBytes bounds what one recording holds: a request body, or a response body or stream
	// (the data of its events together), over it is passed through to the client but not recorded.
	MaxRecordedBytes = tape.MaxRecordedBytes

	// OnMissModel answers as without a tape: stubs, scenarios, the scripted model (the default).
	OnMissModel OnMiss = tape.OnMissModel

	// OnMissError answers 404 not_found_error naming the recording file it expected, so that a
	// test whose requests changed fails loudly.
	OnMissError OnMiss = tape.OnMissError

	// OnMissUpstream forwards the request to the upstream and records the answer, as record mode.
	OnMissUpstream OnMiss = tape.OnMissUpstream
)
