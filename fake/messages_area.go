package fake

// messagesArea is the area of messages, count_tokens and the legacy Completions, with the canned scenarios and the stubs' control routes.
var messagesArea = &area{routes: messageRoutes, load: loadScenarios}

var (
	scenariosSection = newSection[scenarioLibrary]()
)

func messageRoutes() []*route {
	return []*route{
		// Messages and legacy completions (spec 2.8, 2.9, 4.4; gaps §4, §5). A streamed answer
		// is an sseStream that checks each event against its own schema.
		{post, "/v1/messages", ifMessages, in{headers: hScenario, body: "messages/create_message_request", events: "messages/stream_event", tape: "messages"}, "messages/message", createMessage},
		{post, "/v1/messages/count_tokens", ifMessages, in{body: "messages/count_tokens_request", tape: "count_tokens"}, "messages/count_tokens", countTokens},
		{post, "/v1/complete", ifMessages, in{body: "messages/complete_request", events: "messages/completion_stream_event", tape: "complete"}, "messages/completion", complete},
		{get, "/_fake/messages/scenarios", nil, in{}, "messages/scenario_list", listScenarios},
		{post, "/_fake/messages/stubs", nil, in{body: "messages/stub_request"}, "messages/stub", registerStub},
		{get, "/_fake/messages/stubs", nil, in{}, "messages/stub_list", listStubs},
		{del, "/_fake/messages/stubs", nil, in{}, "control/cleared", clearStubs},
	}
}

var (
	hScenario = []param{{name: headerScenario, kind: pString,
		doc: "Fake only: answer with this canned scenario of the library (GET /_fake/messages/scenarios lists the names); an unknown name is a 400."}}
)
