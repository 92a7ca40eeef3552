package messages

import "github.com/platformkit/platformkit/fake/internal/core"

// Area is the area of messages, count_tokens and the legacy Completions, with the canned scenarios and the stubs' control routes.
var Area = &core.Area{Routes: messageRoutes, Load: loadScenarios}

var (
	ScenariosSection = core.NewSection[scenarioLibrary]()
)

func messageRoutes() []*core.Route {
	return []*core.Route{
		// Messages and legacy completions (spec 2.8, 2.9, 4.4; gaps §4, §5). A streamed answer
		// is an sseStream that checks each event against its own schema.
		core.Line(core.Post, "/v1/messages", core.IfMessages, core.In{Headers: hScenario, Body: "messages/create_message_request", Events: "messages/stream_event", Tape: "messages"}, "messages/message", createMessage),
		core.Line(core.Post, "/v1/messages/count_tokens", core.IfMessages, core.In{Body: "messages/count_tokens_request", Tape: "count_tokens"}, "messages/count_tokens", countTokens),
		core.Line(core.Post, "/v1/complete", core.IfMessages, core.In{Body: "messages/complete_request", Events: "messages/completion_stream_event", Tape: "complete"}, "messages/completion", complete),
		core.Line(core.Get, "/_fake/messages/scenarios", nil, core.In{}, "messages/scenario_list", listScenarios),
		core.Line(core.Post, "/_fake/messages/stubs", nil, core.In{Body: "messages/stub_request"}, "messages/stub", registerStub),
		core.Line(core.Get, "/_fake/messages/stubs", nil, core.In{}, "messages/stub_list", listStubs),
		core.Line(core.Del, "/_fake/messages/stubs", nil, core.In{}, "control/cleared", clearStubs),
	}
}

var (
	hScenario = []core.Param{{Name: HeaderScenario, Kind: core.PString,
		Doc: "Fake only: answer with this canned scenario of the library (GET /_fake/messages/scenarios lists the names); an unknown name is a 400."}}
)
