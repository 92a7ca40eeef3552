package wire

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxMessages is the most messages a request holds: the maxItems of messages in the request
// schema, and the bound of a thread continue's whole conversation.
const MaxMessages = 100_000

// MessageRequest is the part of a validated Create a Message body that the scripted model reads.
// raw keeps the whole decoded body (numbers as json.Number), for the token counter and the seed;
// Messages holds its messages with their content as blocks. Both are decoded once, since a body
// may hold 100,000 messages.
type MessageRequest struct {
	Model         string    `json:"model"`
	MaxTokens     int       `json:"max_tokens"`
	Stream        bool      `json:"stream"`
	StopSequences []string  `json:"stop_sequences"`
	Tools         []ToolDef `json:"tools"`
	ToolChoice    *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tool_choice"`
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
		Display      string `json:"display"`
	} `json:"thinking"`
	OutputConfig *struct {
		Format *OutputFormat `json:"format"`
	} `json:"output_config"`
	OutputFormat      *OutputFormat   `json:"output_format"` // the beta's deprecated spelling
	InferenceGeo      string          `json:"inference_geo"`
	Speed             string          `json:"speed"`
	Container         json.RawMessage `json:"container"`
	ContextManagement json.RawMessage `json:"context_management"`
	Raw               map[string]any  `json:"-"`
	// omittedThinking is the number of thinking tokens generated but not shown (thinking.display
	// "omitted"): billed as output all the same.
	OmittedThinking int            `json:"-"`
	Messages        []InputMessage `json:"-"`
	// body is the request body as sent, for the tape to forward.
	Body []byte `json:"-"`
}

// InputMessage is one message of the request, its content as blocks: a string is shorthand for
// one text block.
type InputMessage struct {
	Role   string
	Blocks []Block
}

// outputFormat is a structured-output format: the answer is JSON that validates against Schema.
type OutputFormat struct {
	Schema map[string]any `json:"schema"`
}

// hasContextManagement reports whether the request configured context management.
func (req *MessageRequest) HasContextManagement() bool {
	return len(req.ContextManagement) > 0 && string(req.ContextManagement) != "null"
}

// responseFormat is the request's structured-output format, in either spelling; nil without one.
func (req *MessageRequest) ResponseFormat() *OutputFormat {
	if req.OutputConfig != nil && req.OutputConfig.Format != nil {
		return req.OutputConfig.Format
	}
	return req.OutputFormat
}

// toolDef is a tool of the request: a custom tool (Type "" or "custom") with an input schema,
// or a versioned server tool. A strict tool's input must validate against its input schema.
type ToolDef struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	InputSchema map[string]any `json:"input_schema"`
	Strict      bool           `json:"strict"`
}

func (t ToolDef) Custom() bool { return t.Type == "" || t.Type == "custom" }

// ContentBlock is the face's ContentBlock (package fake), which documents it.
type ContentBlock = map[string]any

// Block is the fake's short name for a ContentBlock.
type Block = ContentBlock

// Message is the face's Message (package fake), which documents it.
type Message struct {
	ID           string         `json:"id"`
	Type         string         `json:"type"`
	Role         string         `json:"role"`
	Content      []ContentBlock `json:"content"`
	Model        string         `json:"model"`
	StopReason   *string        `json:"stop_reason"`
	StopSequence *string        `json:"stop_sequence"`
	StopDetails  *StopDetails   `json:"stop_details"`
	Usage        Usage          `json:"usage"`
	// Container is the code-execution container the request named or asked for; null without.
	Container *Container `json:"container"`
	// ContextManagement reports the context edits applied, when the request configured any.
	ContextManagement *ContextManagement `json:"context_management"`
	// Diagnostics is the cache diagnosis a request asks for with diagnostics (package cache, diagnostics.go):
	// null without one, when previous_message_id is null, or when nothing diverged.
	Diagnostics *Diagnostics `json:"diagnostics"`
}

// Container is the face's Container (package fake), which documents it.
type Container struct {
	ID        string           `json:"id"`
	ExpiresAt string           `json:"expires_at"`
	Skills    []ContainerSkill `json:"skills"`
}

// ContainerSkill is the face's ContainerSkill (package fake), which documents it.
type ContainerSkill struct {
	SkillID string `json:"skill_id"`
	Type    string `json:"type"`
	Version string `json:"version"`
}

// ContextManagement is the face's ContextManagement (package fake), which documents it.
type ContextManagement struct {
	AppliedEdits []map[string]any `json:"applied_edits"`
}

// StopDetails is the face's StopDetails (package fake), which documents it.
type StopDetails struct {
	Type        string  `json:"type"`
	Category    *string `json:"category"`
	Explanation *string `json:"explanation"`
}

// Usage is the face's Usage (package fake), which documents it.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreation            struct {
		Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
		Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
	ServerToolUse struct {
		WebSearchRequests int `json:"web_search_requests"`
		WebFetchRequests  int `json:"web_fetch_requests"`
	} `json:"server_tool_use"`
	ServiceTier string `json:"service_tier"`
	// InferenceGeo is where inference ran: the request's inference_geo, else the default
	// workspace's default_inference_geo ("global").
	InferenceGeo string `json:"inference_geo"`
	// Speed is the request's speed, "standard" by default.
	Speed               string `json:"speed"`
	OutputTokensDetails struct {
		ThinkingTokens int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
	// Iterations and FallbackCredit are the beta's per-iteration and fallback accounting: null,
	// as the fake runs one iteration of the requested model.
	Iterations     []any `json:"iterations"`
	FallbackCredit *any  `json:"fallback_credit"`
}

// visitBlocks calls f for every content block of the request, in order, with where it is: the
// blocks of each message and those nested in tool_result content.
func (req *MessageRequest) VisitBlocks(f func(at BlockAt, b Block) error) error {
	for i, m := range req.Messages {
		for j, b := range m.Blocks {
			if err := f(BlockAt{i, j, -1}, b); err != nil {
				return err
			}
			if b["type"] != "tool_result" {
				continue
			}
			inner, _ := b["content"].([]any)
			for k, ib := range inner {
				if err := f(BlockAt{i, j, k}, ib.(map[string]any)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// blockAt is where visitBlocks found a block: its message, its place in the message's content
// and, for a block in a tool_result's content, its place there (else -1). The field path is
// built only for an error that names it: Sprintf for each of a long conversation's blocks was a
// tenth of its parse.
type BlockAt struct{ msg, block, inner int }

func (at BlockAt) String() string {
	if at.inner < 0 {
		return fmt.Sprintf("messages.%d.content.%d", at.msg, at.block)
	}
	return fmt.Sprintf("messages.%d.content.%d.content.%d", at.msg, at.block, at.inner)
}

// lastTurn is the last turn of the conversation: the role and the blocks of the trailing
// messages of one role, since consecutive same-role turns are combined (spec 4.4).
func (req *MessageRequest) LastTurn() (string, []Block) {
	role := req.Messages[len(req.Messages)-1].Role
	i := len(req.Messages)
	for i > 0 && req.Messages[i-1].Role == role {
		i--
	}
	if i == len(req.Messages)-1 { // one message: its blocks as they are, without a copy
		return role, slices.Clip(req.Messages[i].Blocks)
	}
	var blocks []Block
	for _, m := range req.Messages[i:] {
		blocks = append(blocks, m.Blocks...)
	}
	return role, blocks
}

// lastUserText is the text of the last turn, if it is a user turn: what scenario rules and stub
// rules match on.
func (req *MessageRequest) LastUserText() (string, bool) {
	role, blocks := req.LastTurn()
	if role != "user" {
		return "", false
	}
	return TurnText(blocks), true
}

// turnText is the text of a turn's text blocks, concatenated.
func TurnText(blocks []Block) string {
	var sb strings.Builder
	for _, b := range blocks {
		if t, ok := b["text"].(string); ok && b["type"] == "text" {
			sb.WriteString(t)
		}
	}
	return sb.String()
}

// Diagnostics is the face's Diagnostics (package fake), which documents it.
type Diagnostics struct {
	CacheMissReason *CacheMissReason `json:"cache_miss_reason"`
}

// CacheMissReason is the face's CacheMissReason (package fake), which documents it.
type CacheMissReason struct {
	Type                   string `json:"type"`
	CacheMissedInputTokens *int   `json:"cache_missed_input_tokens,omitempty"`
}

// tokenEnd is the end of the token that starts at i, a position before the end of s.
func TokenEnd(s string, i int) int {
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	if i == len(s) {
		return i // trailing whitespace
	}
	first := true
	for i < len(s) {
		word, size := AsciiWord[s[i]], 1
		if s[i] >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			word = isWordRune(r)
		}
		switch {
		case first && !word:
			return i + size // one other character
		case !word:
			return i
		}
		i += size
		first = false
	}
	return i
}

// intKeyword reads a numeric schema keyword as an int; def when absent or not a number.
func IntKeyword(s map[string]any, key string, def int) int {
	var f float64
	switch v := s[key].(type) {
	case float64:
		f = v
	case json.Number:
		var err error
		if f, err = v.Float64(); err != nil {
			return def
		}
	default:
		return def
	}
	return int(max(min(f, maxKeyword), -maxKeyword))
}

// asciiWord is isWordRune of each ASCII byte, looked up rather than decoded: most text is ASCII.
var AsciiWord = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = isWordRune(rune(c))
	}
	return t
}()

// isSpace is the tokenizer's \s (RE2's ASCII class).
func IsSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r' }

// isWordRune is the tokenizer's [\p{L}\p{N}_].
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// maxKeyword bounds what intKeyword returns, so that arithmetic on schema bounds cannot overflow
// (a schema may say "minimum": 1e300).
const maxKeyword = 1 << 53

func OrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// completion is the response of spec 2.8, and each event of its stream.
type Completion struct {
	Type       string  `json:"type"`
	ID         string  `json:"id"`
	Completion string  `json:"completion"`
	Model      string  `json:"model"`
	StopReason *string `json:"stop_reason"`
}

// completionStream is the event sequence of gaps §5: the text in `completion` events, a ping,
// and a last event with an empty piece that carries the stop reason.
func CompletionStream(full Completion) SseStream {
	piece := func(text string, reason *string) SseEvent {
		ev := full
		ev.Completion, ev.StopReason = text, reason
		return SseEvent{"completion", ev}
	}
	var events []SseEvent
	for _, t := range ChunkTokens(full.Completion) {
		events = append(events, piece(t, nil))
	}
	events = append(events, piece("", full.StopReason))
	events = append(events[:1], append([]SseEvent{{"ping", map[string]string{"type": "ping"}}}, events[1:]...)...)
	return SseStream{Events: slices.Values(events)}
}
