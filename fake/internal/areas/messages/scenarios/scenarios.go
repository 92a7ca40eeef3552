package scenarios

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/cache"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/model"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/areas/admin"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The scenario library (fixtures/messages_scenarios.json): named canned responses that show
// the shapes a scripted model never produces on its own (server tools and their errors,
// refusals, redacted thinking, pause_turn). A request selects one by the Fake-Scenario header,
// or by a scenario's matching rule on the text of the last user message.

// ScenarioMatch is the face's ScenarioMatch (package fake), which documents it.
type ScenarioMatch struct {
	Equals   *string `json:"equals,omitempty"`
	Contains *string `json:"contains,omitempty"`
}

// Scenario is the face's Scenario (package fake), which documents it.
type Scenario struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Match       *ScenarioMatch `json:"match"`
}

// clone is sc sharing nothing with the library, which every server built from the same fixtures
// reads: a caller changing what Scenarios returned changes no server's scenarios.
func (sc Scenario) clone() Scenario {
	if m := sc.Match; m != nil {
		c := ScenarioMatch{}
		if m.Equals != nil {
			c.Equals = new(*m.Equals)
		}
		if m.Contains != nil {
			c.Contains = new(*m.Contains)
		}
		sc.Match = &c
	}
	return sc
}

// LibScenario is one canned response.
type LibScenario struct {
	Scenario
	Response stubs.Reply `json:"response"`
}

// matches reports whether the scenario's rule selects a request whose last user text is text.
func (sc *LibScenario) matches(text string) bool {
	m := sc.Match
	return m != nil && (m.Equals == nil || *m.Equals == text) && (m.Contains == nil || strings.Contains(text, *m.Contains))
}

// scenarioLibrary holds the scenarios in file order; the first matching rule wins.
type scenarioLibrary struct {
	List   []*LibScenario
	byName map[string]*LibScenario
}

// ScenarioList is Server.Scenarios of the face (package fake).
func ScenarioList(s *core.Server) []Scenario {
	fx := s.State().Fx
	out := make([]Scenario, 0, len(ScenariosSection.In(fx.Sections).List))
	for _, sc := range ScenariosSection.In(fx.Sections).List {
		out = append(out, sc.Scenario.clone())
	}
	return out
}

func listScenarios(s *core.Server, c *core.Call) (any, error) {
	return map[string]any{"data": ScenarioList(s)}, nil
}

func loadScenarios(fsys fs.FS, fx *core.Fixtures) error {
	var file struct {
		Scenarios []*LibScenario `json:"scenarios"`
	}
	if _, err := core.ReadFixture(fsys, "messages_scenarios.json", &file); err != nil {
		return err
	}
	lib := scenarioLibrary{List: file.Scenarios, byName: map[string]*LibScenario{}}
	for _, sc := range lib.List {
		if _, dup := lib.byName[sc.Name]; dup {
			return fmt.Errorf("messages_scenarios.json: scenario %q is defined twice", sc.Name)
		}
		lib.byName[sc.Name] = sc
	}
	*ScenariosSection.In(fx.Sections) = lib
	return nil
}

// Named returns the scenario the Fake-Scenario header names. A name that is not in the library
// is a 400 naming the header and the known names.
func (lib *scenarioLibrary) Named(name string) (*LibScenario, error) {
	if sc := lib.byName[name]; sc != nil {
		return sc, nil
	}
	names := make([]string, 0, len(lib.List))
	for _, s := range lib.List {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return nil, core.Invalid("%s: no scenario named %s; known scenarios: %s", HeaderScenario, core.Quoted(name, core.MaxExcerpt), wire.OrNone(names))
}

// Matching returns the first scenario whose rule selects the request, or nil.
func (lib *scenarioLibrary) Matching(req *wire.MessageRequest) *LibScenario {
	text, ok := req.LastUserText()
	if !ok {
		return nil
	}
	for _, sc := range lib.List {
		if sc.matches(text) {
			return sc
		}
	}
	return nil
}

// containerLifetime is how long a container lives after the request that made or named it.
const containerLifetime = 30 * 24 * time.Hour

// containerFor is the container a request uses: the one it names by ID (a string, or the beta's
// object), a new one when it only lists skills, or when it names none and used is true (its
// answer ran a tool in a container); nil otherwise.
func containerFor(s *core.Server, req *wire.MessageRequest, used bool) *wire.Container {
	named := len(req.Container) > 0 && string(req.Container) != "null"
	if !named && !used {
		return nil
	}
	var spec struct {
		ID     *string `json:"id"`
		Skills []struct {
			SkillID string  `json:"skill_id"`
			Type    string  `json:"type"`
			Version *string `json:"version"`
		} `json:"skills"`
	}
	var id string
	switch {
	case !named: // a new container, with no skills
	case json.Unmarshal(req.Container, &id) == nil:
		spec.ID = &id
	default:
		_ = json.Unmarshal(req.Container, &spec) // the schema checked the shape
	}
	ct := &wire.Container{ExpiresAt: s.Clock.Now().Add(containerLifetime).UTC().Format(time.RFC3339), Skills: []wire.ContainerSkill{}}
	if spec.ID != nil {
		ct.ID = *spec.ID
	} else {
		ct.ID = s.IDs.Next("container_")
	}
	for _, sk := range spec.Skills {
		ct.Skills = append(ct.Skills, wire.ContainerSkill{SkillID: sk.SkillID, Type: sk.Type, Version: cmp.Or(PtrValue(sk.Version), "latest")})
	}
	return ct
}

// UsesContainer reports whether content calls a tool that runs in a container: the code
// execution tool's code_execution, bash_code_execution or text_editor_code_execution. (The
// API's Message documents container as "non-null if a container tool (e.g. code execution) was
// used".)
func UsesContainer(content []wire.Block) bool {
	for _, b := range content {
		if b["type"] != "server_tool_use" {
			continue
		}
		switch b["name"] {
		case "code_execution", "bash_code_execution", "text_editor_code_execution":
			return true
		}
	}
	return false
}

func PtrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// AnswerWith builds the message that answers req with the canned reply r, or with the scripted
// model's when r is nil, its work charged to the request's meter work (generate); plan is the
// request's cache plan, whose split its usage reports.
func AnswerWith(s *core.Server, work *core.Meter, req *wire.MessageRequest, plan *cache.CachePlan, r *stubs.Reply) (*wire.Message, error) {
	msg := &wire.Message{Type: "message", Role: "assistant", Model: req.Model}
	var reason string
	if r != nil {
		msg.Content, reason = answeredContent(r.Content), r.StopReason
		msg.StopSequence, msg.StopDetails = r.StopSequence, r.StopDetails
	} else {
		var err error
		if msg.Content, reason, msg.StopSequence, err = model.Generate(s, work, req); err != nil {
			return nil, err // before any id is spent
		}
	}
	msg.ID = s.IDs.Next("msg_")
	if r == nil {
		srv := ""
		for _, b := range msg.Content {
			switch {
			case b["type"] == "tool_use" && b["id"] == model.PendingToolUseID:
				b["id"] = s.IDs.Next("toolu_")
			case b["id"] == model.PendingServerToolUseID || b["tool_use_id"] == model.PendingServerToolUseID:
				if srv == "" { // the call comes before its result, and takes the one id
					srv = s.IDs.Next("srvtoolu_")
				}
				if b["id"] != nil {
					b["id"] = srv
				} else {
					b["tool_use_id"] = srv
				}
			}
		}
	}
	msg.StopReason = &reason
	SetUsage(msg, req, plan)
	msg.Container = containerFor(s, req, UsesContainer(msg.Content))
	if req.HasContextManagement() {
		msg.ContextManagement = &wire.ContextManagement{AppliedEdits: []map[string]any{}}
	}
	return msg, nil
}

// answeredContent is a canned reply's content as the API answers it: a text block written
// without citations gets the citations: null every text block of an answer carries, and a
// tool_use block written without caller gets the caller {"type": "direct"} of a call the model
// made itself (the official SDKs decode both fields as required; conformance/EXTENSIONS.md says
// why direct). The reply itself is not changed: it may be a library scenario every server shares.
func answeredContent(content []map[string]any) []map[string]any {
	out := content
	for i, b := range content {
		var field string
		var value any
		switch b["type"] {
		case "text":
			field, value = "citations", nil
		case "tool_use":
			field, value = "caller", map[string]any{"type": "direct"}
		default:
			continue
		}
		if _, ok := b[field]; ok {
			continue
		}
		if len(out) > 0 && len(content) > 0 && &out[0] == &content[0] {
			out = slices.Clone(content)
		}
		out[i] = maps.Clone(b)
		out[i][field] = value
	}
	return out
}

// SetUsage sets the usage of a message that answers req, by the fake's one rule: the input
// tokens the parse stage counted, split by the request's cache plan into what was read from the
// cache, written to it and neither (so input_tokens is count_tokens's figure only when the cache
// neither reads nor writes); output tokens from the content; one server tool request per
// server_tool_use block; and the diagnostics the plan found. It changes nothing: the commit stage
// writes the plan.
func SetUsage(msg *wire.Message, req *wire.MessageRequest, p *cache.CachePlan) {
	msg.Usage = wire.Usage{}
	msg.Usage.InputTokens = p.Input
	msg.Usage.CacheReadInputTokens = p.Read
	msg.Usage.CacheCreationInputTokens = p.Creation()
	msg.Usage.CacheCreation.Ephemeral5m = p.Write5m
	msg.Usage.CacheCreation.Ephemeral1h = p.Write1h
	msg.Diagnostics = p.Diagnosis
	msg.Usage.OutputTokens = model.OutputTokens(msg.Content) + req.OmittedThinking
	msg.Usage.ServiceTier = "standard" // auto and standard_only alike: the fake has no priority capacity
	msg.Usage.InferenceGeo = cmp.Or(req.InferenceGeo, admin.DefaultResidency.DefaultInferenceGeo)
	msg.Usage.Speed = cmp.Or(req.Speed, "standard")
	for _, b := range msg.Content {
		if b["type"] == "thinking" {
			msg.Usage.OutputTokensDetails.ThinkingTokens += model.BlockTokens(b)
		}
	}
	msg.Usage.OutputTokensDetails.ThinkingTokens += req.OmittedThinking
	for _, b := range msg.Content {
		if b["type"] != "server_tool_use" {
			continue
		}
		switch b["name"] {
		case "web_search":
			msg.Usage.ServerToolUse.WebSearchRequests++
		case "web_fetch":
			msg.Usage.ServerToolUse.WebFetchRequests++
		}
	}
}

// Area is the library of canned scenarios: its fixtures and its control route.
var Area = &core.Area{
	Routes: func() []*core.Route {
		return []*core.Route{core.Line(core.Get, "/_fake/messages/scenarios", nil, core.In{}, "messages/scenario_list", listScenarios)}
	},
	Load: loadScenarios,
}

// ScenariosSection is the scenario library of a data set (scenarios.json).
var ScenariosSection = core.NewSection[scenarioLibrary]()

// HeaderScenario selects a canned response of the scenario library by name.
const HeaderScenario = "Fake-Scenario"
