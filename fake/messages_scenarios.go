package fake

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// The scenario library (fixtures/messages_scenarios.json): named canned responses that show
// the shapes a scripted model never produces on its own (server tools and their errors,
// refusals, redacted thinking, pause_turn). A request selects one by the Fake-Scenario header,
// or by a scenario's matching rule on the text of the last user message.

// ScenarioMatch is a scenario's matching rule: it selects the scenario for a request whose last
// user turn's text equals and/or contains these strings.
type ScenarioMatch struct {
	Equals   *string `json:"equals,omitempty"`
	Contains *string `json:"contains,omitempty"`
}

// Scenario describes one scenario of the library: its name for the Fake-Scenario header, what
// it shows, and its matching rule (nil when it is selected by name only).
type Scenario struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Match       *ScenarioMatch `json:"match"`
}

// scenario is one canned response.
type scenario struct {
	Scenario
	Response struct {
		Content      []block      `json:"content"`
		StopReason   string       `json:"stop_reason"`
		StopSequence *string      `json:"stop_sequence"`
		StopDetails  *StopDetails `json:"stop_details"`
	} `json:"response"`
}

// matches reports whether the scenario's rule selects a request whose last user text is text.
func (sc *scenario) matches(text string) bool {
	m := sc.Match
	return m != nil && (m.Equals == nil || *m.Equals == text) && (m.Contains == nil || strings.Contains(text, *m.Contains))
}

// scenarioLibrary holds the scenarios in file order; the first matching rule wins.
type scenarioLibrary struct {
	list   []*scenario
	byName map[string]*scenario
}

// Scenarios lists the scenario library in file order (GET /_fake/messages/scenarios).
func (s *Server) Scenarios() []Scenario {
	out := make([]Scenario, 0, len(s.fx.canned.list))
	for _, sc := range s.fx.canned.list {
		out = append(out, sc.Scenario)
	}
	return out
}

func (s *Server) listScenarios(c *call) (any, error) {
	return map[string]any{"data": s.Scenarios()}, nil
}

func loadScenarios(fsys fs.FS, fx *Fixtures) error {
	var file struct {
		Scenarios []*scenario `json:"scenarios"`
	}
	if _, err := readFixture(fsys, "messages_scenarios.json", &file); err != nil {
		return err
	}
	lib := scenarioLibrary{list: file.Scenarios, byName: map[string]*scenario{}}
	for _, sc := range lib.list {
		if _, dup := lib.byName[sc.Name]; dup {
			return fmt.Errorf("messages_scenarios.json: scenario %q is defined twice", sc.Name)
		}
		lib.byName[sc.Name] = sc
	}
	fx.canned = lib
	return nil
}

// pick returns the scenario a request selects, or nil for the scripted model. A name in the
// header that is not in the library is a 400 naming the header and the known names.
func (lib *scenarioLibrary) pick(name string, req *messageRequest) (*scenario, error) {
	if name != "" {
		sc := lib.byName[name]
		if sc == nil {
			names := make([]string, 0, len(lib.list))
			for _, s := range lib.list {
				names = append(names, s.Name)
			}
			slices.Sort(names)
			return nil, invalid("%s: no scenario named %q; known scenarios: %s", headerScenario, name, orNone(names))
		}
		return sc, nil
	}
	role, blocks := req.lastTurn()
	if role != "user" {
		return nil, nil
	}
	text := turnText(blocks)
	for _, sc := range lib.list {
		if sc.matches(text) {
			return sc, nil
		}
	}
	return nil, nil
}

// respondTo builds the message for a valid request: the selected scenario's, or the scripted
// model's. Usage is counted the same way for both.
func (s *Server) respondTo(c *call, req *messageRequest) (*Message, error) {
	sc, err := s.fx.canned.pick(c.GetHeader(headerScenario), req)
	if err != nil {
		return nil, err
	}
	msg := &Message{ID: s.ids.next("msg_"), Type: "message", Role: "assistant", Model: req.Model}
	var reason string
	if sc != nil {
		msg.Content, reason = sc.Response.Content, sc.Response.StopReason
		msg.StopSequence, msg.StopDetails = sc.Response.StopSequence, sc.Response.StopDetails
	} else {
		msg.Content, reason, msg.StopSequence = s.generate(req)
	}
	msg.StopReason = &reason
	msg.Usage.InputTokens = countInputTokens(req.raw)
	msg.Usage.OutputTokens = outputTokens(msg.Content)
	msg.Usage.ServiceTier = "standard"
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
	return msg, nil
}
