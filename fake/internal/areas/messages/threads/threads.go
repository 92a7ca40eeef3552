package threads

import (
	"bytes"
	"container/list"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/cache"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Message threads (beta message-threads-2026-08-12; conformance/EXTENSIONS.md, "Message
// threads"). A request with thread {"type":"create"} is answered as any other, and its
// conversation (messages, system, tools) with the reply is kept under the reply's id. A request
// with thread {"type":"continue","previous_message_id":...} sends only the messages since that
// reply: the parse stage (expandThread) turns it into the whole request, so that the cache plan,
// rate-limit admission, stubs, scenarios and the scripted model answer it exactly as they answer
// the same conversation sent in full. When the answer is committed (commitThread, beside the
// cache's commit) the conversation with the new reply is kept under the new reply's id; a
// refused or failed request keeps nothing.

// BetaMessageThreads is the beta value a request with a thread field must carry.
const BetaMessageThreads = "message-threads-2026-08-12"

// threadTTL is how long a thread lives after the request that stored its latest reply: a
// continue at exactly threadTTL later finds it gone (as a cache entry is gone at its expiry).
const threadTTL = 5 * time.Minute

// The bounds of a server's (or namespace's) threads: past either, the least recently used
// thread is dropped; a later continue of it is answered thread_not_found, from which the SDK
// helpers recover by sending the whole conversation again. Bytes are those the threads keep in
// memory, the decoded conversation (heldSize), not the bytes the requests sent: a conversation of
// many small blocks keeps some 15 times its JSON.
//
// Past a bound, threads are dropped, never a request refused: a thread is a cache of the
// conversation the client holds too, the API drops threads as it likes (thread_not_found is part
// of its contract), and a refusal would fail a request the API answers. A single conversation
// over threadMaxBytes is answered and not kept.
const (
	ThreadMaxCount = 1000
	ThreadMaxBytes = 16 << 20
	threadIDBytes  = 64 // the estimated cost of one reply id kept, beyond its conversation
)

// ThreadsBytes bounds the threads of a server and all its namespaces together (a byteBudget):
// each namespace's own bound, times the 1,000 namespaces a server keeps, would allow 16 GB. Past
// it, the least recently used namespaces' threads are dropped first, oldest first, then the
// default server's, then those of the namespace whose request went over (Server.trimIdle).
const ThreadsBytes = 256 << 20

// threadFingerprint are the fields a continue must send as the thread's create did (the
// official helpers send every field but system and tools on every turn): the model (a thread
// keeps one model), thinking (the earlier replies were made under it) and mcp_servers (tool
// definitions, like tools, that the stored replies refer to).
var threadFingerprint = []string{"model", "thinking", "mcp_servers"}

// The error codes of error.details.error_code.
const (
	ThreadNotFound            = "thread_not_found"
	ThreadAlreadyContinued    = "thread_already_continued"
	ThreadContinueInFlight    = "thread_continue_in_flight"
	ThreadFingerprintMismatch = "thread_fingerprint_mismatch"
	ThreadUnsupportedRequest  = "thread_unsupported_request"
)

// thread is one conversation kept between requests: under the id of every reply it produced,
// of which only the latest may be continued. It belongs to the organization and workspace of the
// key that created it (owner): a continue with any other key finds no thread.
type thread struct {
	owner     threadOwner
	latest    string
	ids       []string
	messages  []any          // the whole conversation, the latest reply last
	fields    map[string]any // system and tools, as the create sent them (absent: not sent)
	print     map[string]string
	expiresAt time.Time
	// inFlight are the replies a continue is being answered from: until its answer has been
	// written (a stream's last event too), a second continue from the same reply is refused.
	inFlight map[string]bool
	// bytes is what the thread keeps (heldSize): held, its messages' values, fields and ids, and
	// the messages slice itself.
	bytes int
	held  int
	elem  *list.Element
}

// threadOwner is who may continue a thread: the organization and the workspace ("" for the
// default workspace) of the key that created it, as the prompt cache is kept per organization and
// workspace (conformance/EXTENSIONS.md, "Message threads", says why).
type threadOwner struct{ org, workspace string }

// ownerOf is the owner of the threads the request creates and the one it may continue.
func ownerOf(c *core.Call) threadOwner {
	o := threadOwner{workspace: cache.WorkspaceID(c)}
	if c.Org != nil {
		o.org = c.Org.ID
	}
	return o
}

// threadStore is a server's threads, under one mutex: by reply id, and in an LRU list (most
// recently used first), which is also soonest-expiring last, since each use restarts threadTTL.
type threadStore struct {
	mu           sync.Mutex
	byID         map[string]*thread
	Lru          list.List // of *thread
	core.Charged           // what the threads keep, in a budget of threadsBytes shared with the namespaces
}

// ThreadsOf is the thread store of st, built on first use and charged to budget.
func ThreadsOf(st *core.State, budget *core.ByteBudget) *threadStore {
	return ThreadStores.In(st.Stores).Get(func() *threadStore {
		return &threadStore{byID: map[string]*thread{}, Charged: core.Charged{Budget: budget}}
	})
}

// release takes the store's bytes out of the shared budget for good: its server was reset or
// dropped.
func (st *threadStore) release() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.Leave()
	clear(st.byID)
	st.Lru.Init()
}

// ThreadTurn is a threaded request being answered.
type ThreadTurn struct {
	store *threadStore
	owner threadOwner
	th    *thread // the thread a continue continues; nil for a create
	prev  string  // the reply a continue continues
	print map[string]string
	held  bool // a stream releases the in-flight mark when it ends
}

// ExpandThread reads the request's thread field, if any, and turns a continue into the whole
// request: the thread's messages followed by the new ones, and its system and tools. It runs in
// the parse stage, before any other check, so that everything after sees only a full request.
func ExpandThread(s *core.Server, c *core.Call, req *wire.MessageRequest) (*ThreadTurn, error) {
	v, ok := req.Raw["thread"]
	if !ok {
		return nil, nil
	}
	delete(req.Raw, "thread")  // the answer is the full request's: the field is not part of it
	spec := v.(map[string]any) // the schema checked the shape
	jt := &core.JournalThread{Type: spec["type"].(string)}
	prev, _ := spec["previous_message_id"].(string)
	if jt.Type == "continue" {
		jt.PreviousMessageID = &prev
	}
	c.X.Thread = jt
	if !c.HasBeta(BetaMessageThreads) {
		return nil, core.InvalidField("thread", "requires the beta %q (send it in the anthropic-beta or vendor-beta header)", BetaMessageThreads)
	}
	if jt.Type == "continue" {
		for _, f := range []string{"system", "tools"} {
			if _, ok := req.Raw[f]; ok {
				return nil, core.InvalidField(f, "cannot be sent with thread.type \"continue\": the thread keeps the %s of the request that created it; leave it out, or start a new thread with thread.type \"create\"", f)
			}
		}
	}
	if err := threadUnsupported(req.Raw); err != nil {
		return nil, err
	}
	t := &ThreadTurn{store: ThreadsOf(c.St, s.Cfg.Budget(ThreadBudget)), owner: ownerOf(c), print: map[string]string{}}
	for _, f := range threadFingerprint {
		t.print[f] = core.CanonicalJSON(req.Raw[f]) // values compare: 1024.0 is 1024
	}
	if jt.Type == "create" {
		return t, nil
	}
	th, err := t.store.begin(prev, t.owner, t.print, s.Now())
	if err != nil {
		return t, err
	}
	t.th, t.prev = th, prev
	newMessages := req.Raw["messages"].([]any)
	req.Raw["messages"] = append(slices.Clip(th.messages), newMessages...)
	for k, x := range th.fields {
		req.Raw[k] = x
	}
	return t, nil
}

// threadUnsupported refuses what threads do not support (EXTENSIONS.md says why):
// context_management, which edits the conversation server-side so that the kept conversation
// would no longer be the one the client holds; fallbacks, since a thread keeps one model; and
// max_tokens 0, which only pre-warms the cache and has no reply to keep.
func threadUnsupported(raw map[string]any) error {
	var unsupported []string
	if x, ok := raw["context_management"]; ok && x != nil {
		unsupported = append(unsupported, "context_management")
	}
	if x, ok := raw["fallbacks"]; ok && x != nil {
		unsupported = append(unsupported, "fallbacks")
	}
	if n, ok := raw["max_tokens"].(json.Number); ok && n.String() == "0" {
		unsupported = append(unsupported, "max_tokens")
	}
	if len(unsupported) == 0 {
		return nil
	}
	return core.InvalidField("thread", "message threads do not support %s", strings.Join(unsupported, ", ")).
		WithDetails(core.ErrorDetails{ErrorCode: ThreadUnsupportedRequest, Unsupported: unsupported})
}

// begin finds owner's thread whose latest reply is prev, checks that the request may continue
// it and marks it in flight. Another owner's thread is not there for the request: it gets the
// answer of an ID never stored, before any other check, and the thread is left as it was.
func (st *threadStore) begin(prev string, owner threadOwner, print map[string]string, now time.Time) (*thread, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	th := st.byID[prev]
	if th != nil && th.owner != owner {
		th = nil
	} else if th != nil && !now.Before(th.expiresAt) {
		st.drop(th)
		th = nil
	}
	switch {
	case th == nil:
		return nil, core.NewError(core.ErrNotFound, "thread.previous_message_id: no thread holds message %s: it expired (%v after its last reply), was never stored, or was dropped; send the whole conversation with thread.type \"create\"", core.Quoted(prev, core.MaxExcerpt), threadTTL).
			WithDetails(core.ErrorDetails{ErrorCode: ThreadNotFound})
	case th.inFlight[prev]:
		return nil, core.InvalidField("thread.previous_message_id", "another request is continuing from message %s; wait for its answer", core.Quoted(prev, core.MaxExcerpt)).
			WithDetails(core.ErrorDetails{ErrorCode: ThreadContinueInFlight})
	case th.latest != prev:
		return nil, core.InvalidField("thread.previous_message_id", "message %s was already continued; continue from the thread's latest reply, %q", core.Quoted(prev, core.MaxExcerpt), th.latest).
			WithDetails(core.ErrorDetails{ErrorCode: ThreadAlreadyContinued})
	}
	var diffs []string
	for _, f := range threadFingerprint {
		if print[f] != th.print[f] {
			diffs = append(diffs, fmt.Sprintf("%s (the thread has %s, this request sends %s)", f, core.Excerpt(th.print[f], core.MaxExcerpt), core.Excerpt(print[f], core.MaxExcerpt)))
		}
	}
	if len(diffs) > 0 {
		return nil, core.InvalidField("thread.previous_message_id", "this request differs from the thread in fields that must stay the same: %s", strings.Join(diffs, "; ")).
			WithDetails(core.ErrorDetails{ErrorCode: ThreadFingerprintMismatch})
	}
	if th.inFlight == nil {
		th.inFlight = map[string]bool{}
	}
	th.inFlight[prev] = true
	return th, nil
}

// Release ends the request's continue: the thread may be continued again.
func (t *ThreadTurn) Release() {
	if t == nil || t.th == nil {
		return
	}
	t.store.mu.Lock()
	delete(t.th.inFlight, t.prev)
	t.store.mu.Unlock()
}

// Done releases the continue when the answer is not a stream, which releases it as it ends.
func (t *ThreadTurn) Done() {
	if t != nil && !t.held {
		t.Release()
	}
}

// Hold keeps the continue in flight until the stream st has been written (or cut).
func (t *ThreadTurn) Hold(st wire.SseStream) wire.SseStream {
	if t == nil || t.th == nil {
		return st
	}
	t.held = true
	events := st.Events
	st.Events = func(yield func(wire.SseEvent) bool) {
		defer t.Release()
		events(yield)
	}
	return st
}

// CommitThread keeps the conversation req sent with its answer msg under msg's id: the
// whole conversation, less the cache_control markers of its messages (they applied to the
// request that sent them, as the SDK helpers strip them from answered messages when they send a
// conversation again), followed by the reply as the official TypeScript helper sends it back
// ({role, content}).
func CommitThread(s *core.Server, t *ThreadTurn, req *wire.MessageRequest, msg *wire.Message) {
	if t == nil {
		return
	}
	content, _ := json.Marshal(msg.Content)
	var blocks []any
	d := json.NewDecoder(bytes.NewReader(content))
	d.UseNumber()
	_ = d.Decode(&blocks)
	messages := req.Raw["messages"].([]any)
	if t.th == nil {
		// A create: strip the markers of every message it sent.
		messages = stripMessages(messages, 0)
	} else {
		// A continue: the thread's messages are stripped already.
		messages = stripMessages(messages, len(t.th.messages))
	}
	messages = append(messages, map[string]any{"role": "assistant", "content": blocks})
	// What the thread comes to keep beyond what it kept: the messages since, and for a create
	// its fields, measured before the lock (only the new part: a turn costs what it adds).
	kept := len(messages)
	if t.th != nil {
		kept -= len(t.th.messages)
	}
	added := threadIDBytes
	for _, m := range messages[len(messages)-kept:] {
		added += core.HeldSize(m)
	}
	var fields map[string]any
	if t.th == nil {
		fields = map[string]any{}
		for _, f := range []string{"system", "tools"} {
			if x, ok := req.Raw[f]; ok {
				fields[f] = x
				added += len(f) + core.HeldSize(x)
			}
		}
		added += core.MapSize(len(fields))
	}
	now := s.Now()
	st := t.store
	st.mu.Lock()
	th := t.th
	switch {
	case st.Released:
		st.mu.Unlock()
		return // the server was reset or dropped meanwhile
	case th == nil:
		th = &thread{owner: t.owner, fields: fields, print: t.print}
	case st.byID[th.latest] != th:
		st.mu.Unlock()
		return // dropped meanwhile (evicted, or reset): nothing to continue
	default:
		st.Lru.Remove(th.elem)
		st.Grow(-th.bytes)
	}
	th.latest, th.messages, th.expiresAt = msg.ID, messages, now.Add(threadTTL)
	th.ids = append(th.ids, msg.ID)
	th.held += added
	th.bytes = th.held + core.AllocSize(16*cap(messages))
	st.byID[msg.ID] = th
	th.elem = st.Lru.PushFront(th)
	st.Grow(th.bytes)
	st.trim(now)
	over := st.OverBudget()
	st.mu.Unlock()
	if over {
		s.Root().TrimIdle(s, st.Budget, trimThreads)
	}
}

// trimThreads drops srv's oldest threads while the threads of all namespaces are over their
// shared budget.
func trimThreads(srv *core.Server) {
	st := ThreadStores.In(srv.State().Stores).Built()
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for e := st.Lru.Back(); e != nil && st.OverBudget(); e = st.Lru.Back() {
		st.drop(e.Value.(*thread))
	}
}

// stripMessages returns messages with the cache_control markers of those from index from on
// removed, copying only what changes.
func stripMessages(messages []any, from int) []any {
	out := slices.Clone(messages)
	for i := from; i < len(out); i++ {
		if cache.HasCacheControl(out[i]) {
			out[i] = cache.StripCacheControl(out[i])
		}
	}
	return out
}

// trim drops expired threads, soonest expiry first, then the least recently used while the
// store is over a bound. Each step looks at the LRU's tail only: no scan of the store.
func (st *threadStore) trim(now time.Time) {
	for e := st.Lru.Back(); e != nil; e = st.Lru.Back() {
		th := e.Value.(*thread)
		over := st.Lru.Len() > ThreadMaxCount || st.Bytes > ThreadMaxBytes
		if !over && now.Before(th.expiresAt) {
			return
		}
		st.drop(th)
	}
}

// drop forgets a thread under every id it answered with.
func (st *threadStore) drop(th *thread) {
	for _, id := range th.ids {
		delete(st.byID, id)
	}
	st.Lru.Remove(th.elem)
	st.Grow(-th.bytes)
}

// IsContinue reports whether a body the schema accepted continues a thread.
func IsContinue(raw map[string]any) bool {
	spec, _ := raw["thread"].(map[string]any)
	return spec["type"] == "continue"
}

// Area is the message threads' store, which snapshots leave out, as they leave out the
// prompt cache: both expire within minutes of their last use.
var Area = &core.Area{Release: func(st *core.State) { ThreadsOf(st, nil).release() }}

var (
	ThreadStores = core.NewStore[threadStore]()
	ThreadBudget = core.NewBudget(ThreadsBytes)
)
