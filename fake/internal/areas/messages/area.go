package messages

import (
	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// Area is the area of messages, count_tokens and the legacy Completions: the pipeline.
var Area = &core.Area{Routes: messageRoutes}

func messageRoutes() []*core.Route {
	return []*core.Route{
		// Messages and legacy completions (spec 2.8, 2.9, 4.4; gaps §4, §5). A streamed answer
		// is an sseStream that checks each event against its own schema.
		createLine,
		core.Line(core.Post, "/v1/messages/count_tokens", core.IfMessages, core.In{Body: "messages/count_tokens_request", Tape: "count_tokens"}, "messages/count_tokens", countTokens),
		core.Line(core.Post, "/v1/complete", core.IfMessages, core.In{Body: "messages/complete_request", Events: "messages/completion_stream_event", Tape: "complete"}, "messages/completion", complete),
	}
}

// createLine is POST /v1/messages, which Answer runs for a request inside another.
var createLine = core.Line(core.Post, "/v1/messages", core.IfMessages, core.In{Headers: hScenario, Body: "messages/create_message_request", Events: "messages/stream_event", Tape: "messages"}, "messages/message", createMessage)

var (
	hScenario = []core.Param{{Name: scenarios.HeaderScenario, Kind: core.PString,
		Doc: "Fake only: answer with this canned scenario of the library (GET /_fake/messages/scenarios lists the names); an unknown name is a 400."}}
)
