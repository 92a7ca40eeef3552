package model

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/platformkit/platformkit/schemas"
)

// The scripted model: a deterministic stand-in for a language model. The response is a function
// of a hash of the canonical request, so the same request always gets the same response and
// different requests get different ones. max_tokens and stop_sequences are left out of the hash:
// like a real model's, they cut the same underlying generation short, so a client can observe
// exactly where a limit or a stop sequence bit.

// The fake's one tokenizer. A token is the whitespace before it (\s: space, tab, newline, form
// feed, carriage return) and then a run of letters, digits and underscores or one other
// character; whitespace at the very end is a token of its own. As a regular expression (the
// tests hold the scanner to it): \s*(?:[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_])|\s+$. The tokens
// concatenate back to the text, so a stream can be chunked at token boundaries.

// Tokens splits s into its tokens; nil for "".
func Tokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := wire.TokenEnd(s, i)
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// TextTokens is the one token counter of the fake: how many tokens s splits into, counted in
// one pass without building them.
func TextTokens(s string) int {
	n := 0
	for i := 0; i < len(s); {
		// The usual token, in ASCII, is read here; tokenEnd reads any other from its start.
		n++
		j := i
		for j < len(s) && wire.IsSpace(s[j]) {
			j++
		}
		switch {
		case j == len(s):
			return n // trailing whitespace
		case s[j] >= utf8.RuneSelf:
			i = wire.TokenEnd(s, i)
			continue
		case !wire.AsciiWord[s[j]]:
			i = j + 1 // one other character
			continue
		}
		for j++; j < len(s) && wire.AsciiWord[s[j]]; j++ {
		}
		if j < len(s) && s[j] >= utf8.RuneSelf {
			i = wire.TokenEnd(s, i) // the word may go on in a letter beyond ASCII
			continue
		}
		i = j
	}
	return n
}

// CountValue counts the input tokens of a decoded value: the tokens of every string, base64
// data at four characters a token, and one token per object and array, which stands for the
// structure a model sees. The one walk of a request's blocks (layoutCache) adds it up over the
// fields that are input to the model (system, messages, tools, tool_choice, thinking,
// output_config): count_tokens is its total.
func CountValue(key string, v any) int {
	switch v := v.(type) {
	case string:
		if key == "data" {
			return (len(v) + 3) / 4
		}
		return TextTokens(v)
	case map[string]any:
		n := 1
		for k, x := range v {
			n += CountValue(k, x)
		}
		return n
	case []any:
		n := 1
		for _, x := range v {
			n += CountValue(key, x)
		}
		return n
	}
	return 1
}

// OutputTokens counts the generated tokens of response blocks: the text of text and thinking
// blocks, the name and input of tool calls, and the JSON of every other block.
func OutputTokens(content []wire.Block) int {
	n := 0
	for _, b := range content {
		n += BlockTokens(b)
	}
	return n
}

func BlockTokens(b wire.Block) int {
	switch b["type"] {
	case "text":
		return TextTokens(b["text"].(string))
	case "thinking":
		return TextTokens(b["thinking"].(string))
	case "tool_use", "server_tool_use", "mcp_tool_use":
		in, _ := json.Marshal(b["input"])
		return TextTokens(b["name"].(string)) + TextTokens(string(in))
	}
	data, _ := json.Marshal(b)
	return TextTokens(string(data))
}

// Rng is a small deterministic generator (splitmix64), seeded from the request hash.
type Rng struct{ State uint64 }

func (r *Rng) next() uint64 {
	r.State += 0x9e3779b97f4a7c15
	z := r.State
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Intn returns a number in [0, n); n must be positive.
func (r *Rng) Intn(n int) int { return int(r.next() % uint64(n)) }

// SeedOf hashes the canonical form of the request without the fields that only shape delivery
// (stream) or cut the generation short (max_tokens, stop_sequences, max_tokens_to_sample). The
// canonical form is json.Marshal's encoding of the body, keys sorted (appendJSON, with HTML
// characters escaped, as json.Marshal does).
func SeedOf(body map[string]any) (*Rng, [32]byte) {
	buf := canonicalBuffers.Get().(*[]byte)
	*buf, _ = core.AppendJSON((*buf)[:0], body, true, func(k string) bool {
		switch k {
		case "stream", "max_tokens", "stop_sequences", "max_tokens_to_sample":
			return false
		}
		return true
	})
	sum := sha256.Sum256(*buf)
	if cap(*buf) <= core.MaxPooledBuffer {
		canonicalBuffers.Put(buf)
	}
	return &Rng{State: binary.BigEndian.Uint64(sum[:8])}, sum
}

// canonicalBuffers hold the canonical forms of requests being hashed.
var canonicalBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

var Vocabulary = strings.Fields(`the a of to and in that is for it as with on this be at by from
	fake model answer request token stream server client test message block tool result
	document page search text code value field order list time first last next every small
	quiet clear steady simple careful honest useful bright early late round even open close
	river stone cloud leaf garden harbor lantern meadow orchard signal window bridge`)

// Text generates n tokens of sentence-like text: capitalised sentences of 4 to 11 words, the
// last one closed by a full stop. lead is the whitespace before the first word. Each word, with
// the space before it, is one token, as is each full stop, so tokens(text) gives them back. The
// text is written in one buffer: a string a word, joined, then split again into its tokens, was
// a twentieth of a short message's CPU.
func (r *Rng) Text(n int, lead string) string {
	buf := make([]byte, 0, 8*n)
	last, sentence := 0, 0 // where the last token starts; the words of the sentence so far
	for i := 0; i < n; i++ {
		last = len(buf)
		if sentence > 3 && (sentence > 10 || r.Intn(4) == 0) {
			buf = append(buf, '.')
			sentence = 0
			continue
		}
		w := Vocabulary[r.Intn(len(Vocabulary))]
		if i == 0 {
			buf = append(buf, lead...)
		} else {
			buf = append(buf, ' ')
		}
		if sentence == 0 {
			buf = append(buf, w[0]-'a'+'A') // the vocabulary is lower-case ASCII (TestVocabulary)
			w = w[1:]
		}
		buf = append(buf, w...)
		sentence++
	}
	if n > 1 {
		buf = append(buf[:last], '.')
	}
	return string(buf)
}

// budget tracks the output tokens left under max_tokens while blocks are generated.
type budget struct{ left int }

// takeText is take of the tokens of s, joined again: s itself when they all fit.
func (b *budget) takeText(s string) (string, bool) {
	if n := TextTokens(s); n <= b.left {
		b.left -= n
		return s, true
	}
	toks, _ := b.take(Tokens(s))
	return strings.Join(toks, ""), false
}

// take returns at most left of the tokens and reports whether all fitted.
func (b *budget) take(toks []string) ([]string, bool) {
	if len(toks) > b.left {
		toks = toks[:b.left]
		b.left = 0
		return toks, false
	}
	b.left -= len(toks)
	return toks, true
}

// Generate is the scripted model: it builds the content and stop reason for req, charging the
// work to the request's meter, which the caller started with maxGenSteps. Its only error is a
// schema whose value costs more work than that, or the client going: a 400 naming the schema
// (meter.refusal), before anything of the answer is written or kept.
func Generate(s *core.Server, work *core.Meter, req *wire.MessageRequest) ([]wire.Block, string, *string, error) {
	r, sum := SeedOf(req.Raw)
	b := &budget{left: req.MaxTokens}
	content := []wire.Block{}
	truncated := func() ([]wire.Block, string, *string, error) { return content, "max_tokens", nil, nil }

	if t := req.Thinking; t != nil && t.Type != "disabled" {
		n := 8 + r.Intn(16)
		if t.Type == "enabled" {
			n = min(n, t.BudgetTokens)
		}
		toks, ok := b.take(Tokens(r.Text(n, "")))
		if len(toks) > 0 {
			text := strings.Join(toks, "")
			sig := sha256.Sum256(append(sum[:], text...))
			shown := text
			if t.Display == "omitted" {
				// The thinking happened and is billed; only its text is left out. The signature
				// is the one the full text has, so the block can be passed back unchanged.
				shown, req.OmittedThinking = "", len(toks)
			}
			content = append(content, wire.Block{"type": "thinking", "thinking": shown, "signature": base64.StdEncoding.EncodeToString(sig[:])})
		}
		if !ok {
			return truncated()
		}
	}

	for _, cb := range wire.CitedBlocks(req) {
		kept, ok := b.takeText(cb["text"].(string))
		if !ok {
			if kept != "" {
				content = append(content, wire.Block{"type": "text", "text": kept, "citations": nil})
			}
			return truncated()
		}
		content = append(content, cb)
	}

	if t := RunsCode(req); t != nil {
		// The call and its result fit together or not at all: a call without its result would
		// name a run that never happened.
		blocks := codeBlocks(t, sum, FirstSkill(req))
		n := OutputTokens(blocks)
		if n > b.left {
			return truncated()
		}
		b.left -= n
		content = append(content, blocks...)
	}

	tool := pickTool(req, r)
	forced := req.ToolChoice != nil && (req.ToolChoice.Type == "any" || req.ToolChoice.Type == "tool")
	if f := req.ResponseFormat(); f != nil && !forced && tool == nil {
		// Structured outputs: the answer is one text block of JSON made by the tool-input
		// generator from the schema, within what max_tokens leaves (cut short like any text).
		g := NewInputGen(work, r, b.left, f.Schema)
		v := g.Instance(f.Schema, 0)
		if err := g.Failure(wire.FormatPath(req)); err != nil {
			return nil, "", nil, err
		}
		data, _ := json.Marshal(v)
		toks, ok := b.take(Tokens(string(data)))
		if g.exhausted && ok && len(toks) > 0 {
			toks, ok = toks[:len(toks)-1], false // the value did not fit: the JSON stops short
		}
		if len(toks) > 0 {
			content = append(content, wire.Block{"type": "text", "text": strings.Join(toks, ""), "citations": nil})
		}
		if !ok {
			return truncated()
		}
		return content, "end_turn", nil, nil
	}
	if !forced && req.ResponseFormat() == nil {
		n := 10 + r.Intn(40)
		if tool != nil {
			n = 6 + r.Intn(6)
		}
		lead := ""
		// A final assistant turn is continued (spec 4.4): the reply goes on after its last word.
		if role, blocks := req.LastTurn(); role == "assistant" {
			if prefill := wire.TurnText(blocks); prefill != "" && strings.TrimRight(prefill, " \t\n") == prefill {
				lead = " "
			}
		}
		text := r.Text(n, lead)
		stop, cut := FirstStop(text, req.StopSequences)
		kept, ok := b.takeText(text[:cut])
		if kept != "" {
			content = append(content, wire.Block{"type": "text", "text": kept, "citations": nil})
		}
		switch {
		case !ok:
			return truncated()
		case stop != "":
			return content, "stop_sequence", &stop, nil
		}
	}
	if tool == nil {
		return content, "end_turn", nil, nil
	}
	g := NewInputGen(work, r, b.left, tool.InputSchema)
	input := g.Instance(tool.InputSchema, 0)
	if err := g.Failure("tools." + strconv.Itoa(toolIndex(req, tool)) + ".input_schema"); err != nil {
		return nil, "", nil, err
	}
	if g.exhausted {
		return truncated()
	}
	// The id is given by answerWith once the answer is known (after the message's own), so that a
	// request refused here spends none; the placeholder is one token, as every id is.
	use := wire.Block{"type": "tool_use", "id": PendingToolUseID, "name": tool.Name,
		"input": input, "caller": map[string]any{"type": "direct"}}
	if BlockTokens(use) > b.left {
		return truncated()
	}
	return append(content, use), "tool_use", nil, nil
}

// PendingToolUseID stands for the id of the scripted model's tool call until answerWith gives it.
const PendingToolUseID = "toolu_pending"

// toolIndex is the index of t, one of the request's tools, in req.Tools.
func toolIndex(req *wire.MessageRequest, t *wire.ToolDef) int {
	for i := range req.Tools {
		if &req.Tools[i] == t {
			return i
		}
	}
	return -1
}

// FirstStop finds the earliest match of a stop sequence in text: the sequence and where the
// text is cut (before the match). Without a match it returns "" and len(text).
func FirstStop(text string, stops []string) (string, int) {
	best, at := "", len(text)
	for _, s := range stops {
		if i := strings.Index(text, s); i >= 0 && (i < at || (i == at && best == "")) {
			best, at = s, i
		}
	}
	return best, at
}

// pickTool decides whether the model calls a custom tool, and which: the forced one, one of
// them for "any", and for "auto" a tool whenever the last user turn carries no tool result, so
// that a tool loop ends once results come back.
func pickTool(req *wire.MessageRequest, r *Rng) *wire.ToolDef {
	var custom []*wire.ToolDef
	for i := range req.Tools {
		if req.Tools[i].Custom() {
			custom = append(custom, &req.Tools[i])
		}
	}
	choice := "auto"
	if req.ToolChoice != nil {
		choice = req.ToolChoice.Type
	}
	switch {
	case choice == "tool":
		for _, t := range custom {
			if t.Name == req.ToolChoice.Name {
				return t
			}
		}
	case choice == "none" || len(custom) == 0:
		return nil
	case choice == "auto":
		role, blocks := req.LastTurn()
		if role != "user" {
			return nil
		}
		for _, b := range blocks {
			if b["type"] == "tool_result" {
				return nil
			}
		}
	}
	return custom[r.Intn(len(custom))]
}

// MaxGenerated bounds the items, characters and numeric spread of any one value the tool-input
// generator makes. A schema whose minimum is above it gets a value that breaks the minimum, not an
// out-of-memory fake.
const MaxGenerated = 1000

// The total budget of one tool input, whatever max_tokens allows: a schema that nests arrays with
// minItems multiplies maxGenerated at every level, and a 300-byte request could otherwise ask for
// 10^9 values.
const (
	MaxToolInputValues = 100_000
	MaxToolInputBytes  = 1 << 20 // of string content
)

// inputGen generates a tool input from its input_schema within a budget. Every value it makes
// (container or scalar) costs at least one output token once encoded, so it never makes more
// values than max_tokens leaves: an input that would not fit is known to be cut before it is
// built. When the budget runs out, generation stops, exhausted is set and the caller answers as
// at max_tokens: the model ran out of room before it finished the call. Within the budget the
// input is what an unbounded generator would make, so answers stay deterministic and satisfy the
// schema where maxGenerated allows.
type inputGen struct {
	r         *Rng
	root      map[string]any // the schema that local $refs point into
	values    int            // values left: tokens of max_tokens, at most maxToolInputValues
	bytes     int            // bytes left of maxToolInputBytes: strings, names, const and enum values
	exhausted bool
	// work is the request's meter, with maxGenSteps to spend: every value, property name,
	// merged keyword and pattern node costs a step, a $ref lookup and a copied value one more
	// per stepBytes. Values and bytes bound what is made; steps bound the work of making it,
	// which a pattern of empty-width repeats makes without a byte of output.
	work *core.Meter
	// where names the schema that was being generated when the work stopped, innermost part
	// first (filled as the calls return).
	where    []string
	patterns map[string]*genPattern // each pattern compiled once per request
}

// MaxGenSteps bounds the work of generating one answer's value: about 0.2 s of CPU. A schema
// that needs more is refused with a 400 naming it, before anything of the answer is written.
const MaxGenSteps = 2_000_000

// MaxPatternCost bounds the work of one pattern's value (its worst case, computed once): a
// pattern that takes more on its own is refused before any value is made of it.
const MaxPatternCost = 100_000

// genPattern is a compiled pattern and the most steps a value of it costs; re is nil when the
// pattern does not parse (the value is then made as without a pattern).
type genPattern struct {
	re   *syntax.Regexp
	cost int
}

// NewInputGen starts a generation of at most maxTokens values, charged to work, which the caller
// started with maxGenSteps.
func NewInputGen(work *core.Meter, r *Rng, maxTokens int, root map[string]any) *inputGen {
	return &inputGen{r: r, root: root, values: min(maxTokens, MaxToolInputValues), bytes: MaxToolInputBytes, work: work}
}

// spend takes n steps, and reports false (the generation exhausted) when the budget is gone or
// the client went.
func (g *inputGen) spend(n int) bool {
	if !g.work.Charge(n) {
		g.exhausted = true
		return false
	}
	return true
}

// fail stops the generation for a cause of its own.
func (g *inputGen) fail(err error) {
	g.work.Stop(err)
	g.exhausted = true
}

// over reports whether the work stopped (the budget spent, a cause of the schema's, or the
// client gone), rather than the output running out of room.
func (g *inputGen) over() bool { return g.work.Stopped() }

// Why a generation stopped, besides the step budget and the client.
var (
	errPatternTooComplex = errors.New("pattern too complex") // a value of one pattern costs more than maxPatternCost
	errRefNames          = errors.New("reference names")     // the step budget ran out looking up a $ref by its name
)

// Failure is the error of a generation that went over, with root the field path of the schema:
// a 400 naming the part of the schema being generated (meter.refusal).
func (g *inputGen) Failure(root string) error {
	path := root
	for i := len(g.where) - 1; i >= 0; i-- {
		path += "." + g.where[i]
	}
	switch g.work.Err {
	case errPatternTooComplex:
		return g.work.Refusal(path+".pattern", "Schema is too complex to generate a value for: a value of this pattern takes more than %d steps (each repetition counted)", MaxPatternCost)
	case errRefNames:
		return g.work.Refusal(path+".$ref", "Schema is too complex to generate a value for: it takes more than %d steps (a $ref lookup costs one step per %d bytes of the name it looks up)", MaxGenSteps, core.StepBytes)
	}
	return g.work.Refusal(path, "Schema is too complex to generate a value for: it takes more than %d steps (values, property names and pattern parts summed over the request)", MaxGenSteps)
}

// at records, as a call returns over budget, the part of the schema it was generating.
func (g *inputGen) at(part string) {
	if g.over() {
		g.where = append(g.where, part)
	}
}

// Instance generates a value that satisfies the JSON Schema s, deterministically: every
// property of an object, the first alternative of anyOf/oneOf, numbers within their bounds,
// strings within their lengths, patterns and the common formats, local $refs followed and allOf
// merged. Once the budget is spent it returns nil and sets g.exhausted (and g.over when the
// budget of work, not of output, was what ran out).
func (g *inputGen) Instance(s map[string]any, depth int) any {
	if g.values <= 0 {
		g.exhausted = true
		return nil
	}
	if !g.spend(1) {
		return nil
	}
	g.values--
	r := g.r
	if ref, ok := s["$ref"].(string); ok && depth <= maxSchemaDepth {
		// The lookup hashes, compares and unescapes the name: a long one is as much work as
		// many values.
		if !g.spend(len(ref) / core.StepBytes) {
			g.work.Blame(errRefNames)
			return nil
		}
		if target, err := wire.ResolveRef(g.root, ref); err == nil {
			g.values++ // the target stands for this value
			return g.Instance(target, depth+1)
		}
	}
	if v, ok := s["const"]; ok {
		return g.given(v)
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return g.given(e[r.Intn(len(e))])
	}
	if alts, ok := s["allOf"].([]any); ok && len(alts) > 0 && depth <= maxSchemaDepth {
		g.values++ // the merged schema stands for this value
		merged := g.mergeAllOf(s, alts)
		if g.over() {
			return nil
		}
		return g.Instance(merged, depth+1)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			if first, ok := alts[0].(map[string]any); ok {
				g.values++ // the alternative stands for this value
				v := g.Instance(first, depth+1)
				g.at(k + ".0")
				return v
			}
		}
	}
	typ, _ := s["type"].(string)
	if list, ok := s["type"].([]any); ok {
		for _, t := range list {
			if typ, _ = t.(string); typ != "null" {
				break
			}
		}
	}
	if typ == "" && s["properties"] != nil {
		typ = "object"
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		if depth > maxSchemaDepth || !g.spend(len(props)) {
			return out
		}
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if !g.name(n) {
				break
			}
			ps, _ := props[n].(map[string]any)
			if out[n] = g.Instance(ps, depth+1); g.exhausted {
				g.at("properties." + schemas.PathSegment(n))
				break
			}
		}
		return out
	case "array":
		items, _ := s["items"].(map[string]any)
		n := min(max(wire.IntKeyword(s, "minItems", 1), 1), MaxGenerated)
		n = max(min(n, wire.IntKeyword(s, "maxItems", n)), 0)
		out := make([]any, 0, min(n, g.values))
		for range n {
			if out = append(out, g.Instance(items, depth+1)); g.exhausted {
				g.at("items")
				break
			}
		}
		return out
	case "integer", "number":
		lo := wire.IntKeyword(s, "minimum", 0)
		if _, ok := s["exclusiveMinimum"]; ok {
			lo = wire.IntKeyword(s, "exclusiveMinimum", 0) + 1
		}
		hi := wire.IntKeyword(s, "maximum", lo+100)
		if _, ok := s["exclusiveMaximum"]; ok {
			hi = wire.IntKeyword(s, "exclusiveMaximum", lo+101) - 1
		}
		if hi < lo {
			return lo
		}
		return lo + r.Intn(min(hi-lo, MaxGenerated)+1)
	case "boolean":
		return r.Intn(2) == 0
	case "null":
		return nil
	}
	str := stringInstance(s, r)
	if p, ok := s["pattern"].(string); ok {
		gp := g.pattern(p)
		switch {
		case gp.re == nil:
		case gp.cost > MaxPatternCost:
			g.fail(errPatternTooComplex)
			return nil
		case g.spend(gp.cost):
			var sb strings.Builder
			patternInstance(&sb, gp.re, r)
			str = sb.String()
		default:
			return nil
		}
	}
	if g.bytes -= len(str); g.bytes < 0 {
		g.exhausted = true
		return nil
	}
	return str
}

// given charges a value the schema gives as it is (const, enum) like one made: its bytes, as
// encoded, to the byte budget, and its tokens to max_tokens (the one token instance took
// already counted). A 100 KB const in an array of 1,000 items is 100 MB of answer otherwise.
// It returns v, or nil with the generation exhausted when v does not fit.
func (g *inputGen) given(v any) any {
	size, toks := jsonCost(v, g.bytes)
	if !g.spend(size/core.StepBytes) || g.charge(size, toks-1) {
		return nil
	}
	return v
}

// name charges a property name of a generated object, as given does a value; false when it
// does not fit.
func (g *inputGen) name(n string) bool {
	if len(n) > g.bytes { // not counted: it does not fit whatever its tokens
		g.exhausted = true
		return false
	}
	return g.spend(len(n)/core.StepBytes) && !g.charge(len(n)+3, TextTokens(n))
}

// charge takes bytes and tokens of the output budgets, and reports (setting exhausted) when
// either ran out.
func (g *inputGen) charge(bytes, toks int) bool {
	g.bytes -= bytes
	g.values -= toks
	if g.bytes < 0 || g.values < 0 {
		g.exhausted = true
	}
	return g.exhausted
}

// jsonCost is the size of v's JSON encoding (strings counted without their escapes) and a lower
// bound of its tokens: the tokens of its strings and keys, and one for every other value. It
// stops counting once the size passes limit, so its work is bounded by limit and not by v.
func jsonCost(v any, limit int) (size, toks int) {
	var walk func(v any)
	walk = func(v any) {
		if size > limit {
			return
		}
		switch x := v.(type) {
		case string:
			if size += len(x) + 2; size <= limit {
				toks += TextTokens(x)
			}
		case map[string]any:
			size += 2
			toks++
			for k, e := range x {
				if size += len(k) + 4; size > limit {
					return
				}
				toks += TextTokens(k)
				walk(e)
			}
		case []any:
			size += 2
			toks++
			for _, e := range x {
				if size++; size > limit {
					return
				}
				walk(e)
			}
		case json.Number:
			size += len(x)
			toks++
		default:
			size += 4 // a number, true, false or null: at least one byte, usually more
			toks++
		}
	}
	walk(v)
	return size, max(toks, 1)
}

// pattern compiles p once per generation and prices a value of it.
func (g *inputGen) pattern(p string) *genPattern {
	if gp, ok := g.patterns[p]; ok {
		return gp
	}
	if g.patterns == nil {
		g.patterns = map[string]*genPattern{}
	}
	gp := &genPattern{}
	if re, err := syntax.Parse(p, syntax.Perl); err == nil {
		gp.re, gp.cost = re, PatternCost(re)
	}
	g.patterns[p] = gp
	return gp
}

// PatternCost is the most nodes patternInstance visits to make one value of re, the way it
// repeats (at most two beyond a repetition's minimum); it saturates above maxPatternCost.
func PatternCost(re *syntax.Regexp) int {
	n := 1
	switch re.Op {
	case syntax.OpCapture:
		n += PatternCost(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			n += PatternCost(s)
		}
	case syntax.OpAlternate:
		most := 0
		for _, s := range re.Sub {
			most = max(most, PatternCost(s))
		}
		n += most
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		_, hi := repeatBounds(re)
		n += hi * PatternCost(re.Sub[0])
	}
	return min(n, MaxPatternCost+1)
}

// repeatBounds are the counts patternInstance chooses a repetition's count between.
func repeatBounds(re *syntax.Regexp) (lo, hi int) {
	lo, hi = re.Min, re.Max
	switch re.Op {
	case syntax.OpStar:
		lo, hi = 0, 2
	case syntax.OpPlus:
		lo, hi = 1, 3
	case syntax.OpQuest:
		lo, hi = 0, 1
	}
	if hi < 0 || hi > lo+2 {
		hi = lo + 2
	}
	return lo, hi
}

func stringInstance(s map[string]any, r *Rng) string {
	switch s["format"] {
	case "date-time":
		return "2026-01-01T00:00:00Z"
	case "date":
		return "2026-01-01"
	case "email":
		return "user@example.com"
	case "uri", "url":
		return "https://example.com/" + Vocabulary[r.Intn(len(Vocabulary))]
	case "uuid":
		return "00000000-0000-4000-8000-000000000000"
	case "time":
		return "12:00:00Z"
	case "duration":
		return "P1D"
	case "hostname":
		return "example.com"
	case "ipv4":
		return "192.0.2.1"
	case "ipv6":
		return "2001:db8::1"
	}
	w := Vocabulary[r.Intn(len(Vocabulary))]
	if n := min(wire.IntKeyword(s, "minLength", 0), MaxGenerated); len(w) < n {
		w += strings.Repeat("a", n-len(w))
	}
	return w[:min(len(w), max(wire.IntKeyword(s, "maxLength", len(w)), 0))]
}

// maxSchemaDepth bounds how deep the generator follows a schema (nesting, $ref and allOf alike):
// deeper objects come out empty, so a recursive schema cannot recurse forever.
const maxSchemaDepth = 8

// mergeAllOf folds the alternatives of s's allOf (references followed) into one schema: their
// properties and required lists joined, their other keywords taken from the first that has
// them. The generator makes one value that satisfies every alternative of a structured-output
// schema this way, as those alternatives may only add properties and constraints.
func (g *inputGen) mergeAllOf(s map[string]any, alts []any) map[string]any {
	out := map[string]any{}
	props := map[string]any{}
	var req []any
	add := func(x map[string]any) {
		if !g.spend(len(x)) {
			return
		}
		for k, v := range x {
			switch k {
			case "allOf":
			case "properties":
				pm, _ := v.(map[string]any)
				if !g.spend(len(pm)) {
					return
				}
				for n, ps := range pm {
					props[n] = ps
				}
			case "required":
				rl, _ := v.([]any)
				if !g.spend(len(rl)) { // copied into every merge
					return
				}
				req = append(req, rl...)
			default:
				if _, set := out[k]; !set {
					out[k] = v
				}
			}
		}
	}
	add(s)
	for _, a := range alts {
		as, _ := a.(map[string]any)
		if ref, ok := as["$ref"].(string); ok {
			if t, err := wire.ResolveRef(g.root, ref); err == nil {
				as = t
			}
		}
		add(as)
	}
	if len(props) > 0 {
		out["properties"] = props
	}
	if len(req) > 0 {
		out["required"] = req
	}
	return out
}

// patternInstance writes a string that the regular expression re matches (a partial match is
// enough for a JSON Schema pattern, and a full one is made): the first or a random choice of
// each alternative, class and repetition, repetitions at most two beyond their minimum.
func patternInstance(sb *strings.Builder, re *syntax.Regexp, r *Rng) {
	switch re.Op {
	case syntax.OpLiteral:
		sb.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) >= 2 {
			i := r.Intn(len(re.Rune)/2) * 2
			lo, hi := re.Rune[i], re.Rune[i+1]
			sb.WriteRune(lo + rune(r.Intn(int(min(hi-lo, 25))+1)))
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		sb.WriteByte('a')
	case syntax.OpCapture:
		patternInstance(sb, re.Sub[0], r)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			patternInstance(sb, s, r)
		}
	case syntax.OpAlternate:
		patternInstance(sb, re.Sub[r.Intn(len(re.Sub))], r)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := repeatBounds(re)
		for range lo + r.Intn(hi-lo+1) {
			patternInstance(sb, re.Sub[0], r)
		}
	}
}
