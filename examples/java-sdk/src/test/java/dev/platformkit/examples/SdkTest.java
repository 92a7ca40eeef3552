package dev.platformkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.NotFoundException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.ContentBlockParam;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.messages.StructuredMessage;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolResultBlockParam;
import com.anthropic.models.messages.ToolUseBlock;
import com.anthropic.models.models.ModelInfo;
import com.anthropic.models.models.ModelListPage;
import com.anthropic.models.models.ModelListParams;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The official Java SDK, unmodified, against the fake. Every client is built as the SDK's README
 * says, with a base URL and an API key and nothing else: the test's own namespace of one fake
 * per class, and the fake's default key.
 */
class SdkTest {
    static final String MODEL = "assistant-sonnet-4-5"; // a model of the fake's fixtures
    static FakeServer fake;
    String base;
    AnthropicClient client;

    @BeforeAll
    static void startFake() throws Exception {
        fake = FakeServer.start();
    }

    @AfterAll
    static void stopFake() throws Exception {
        fake.close();
    }

    @BeforeEach
    void newNamespace(TestInfo test) {
        base = fake.namespace(test.getDisplayName());
        client = AnthropicOkHttpClient.builder().baseUrl(base).apiKey("test-api-key").build();
    }

    /** Scripts the namespace's next replies: each a message of one text block, or the JSON given. */
    void stub(String match, String... replies) throws Exception {
        fake.control("POST", base, "/_fake/messages/stubs",
                "{\"match\": " + match + ", \"replies\": [" + String.join(",", replies) + "]}");
    }

    static String text(String t) {
        return "{\"content\": [{\"type\": \"text\", \"text\": \"" + t + "\"}]}";
    }

    MessageCreateParams.Builder hello() {
        return MessageCreateParams.builder().model(MODEL).maxTokens(64).addUserMessage("Hello, fake.");
    }

    @Test
    void create() throws Exception {
        stub("{}", text("Hello from the fake."));
        Message message = client.messages().create(hello().build());
        assertEquals("msg_010000000000000000000001", message.id());
        assertEquals("Hello from the fake.", message.content().get(0).asText().text());
        assertEquals(StopReason.END_TURN, message.stopReason().get());
        // [ {role, content} ]: the array and the object 1 each, "user" 1, "Hello" "," " fake" "." 4.
        assertEquals(7, message.usage().inputTokens());
        assertEquals(5, message.usage().outputTokens()); // "Hello" " from" " the" " fake" "."
        String journal = fake.control("GET", base, "/_fake/journal", null);
        assertTrue(journal.contains("\"anthropic-version\":\"2026-10-21\""), journal); // what the 3.x SDK sends
        assertTrue(journal.contains("\"valid\":true"), journal);
    }

    @Test
    void streamWithTheAccumulator() throws Exception {
        stub("{}", text("Streamed, token by token."));
        MessageAccumulator accumulator = MessageAccumulator.create();
        StringBuilder deltas = new StringBuilder();
        try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(hello().build())) {
            stream.stream().map(accumulator::accumulate).forEach(event -> event.contentBlockDelta()
                    .flatMap(d -> d.delta().text()).ifPresent(t -> deltas.append(t.text())));
        }
        Message message = accumulator.message();
        assertEquals("Streamed, token by token.", deltas.toString());
        assertEquals("Streamed, token by token.", message.content().get(0).asText().text());
        assertEquals(6, message.usage().outputTokens()); // "Streamed" "," " token" " by" " token" "."
    }

    @Test
    void toolUse() throws Exception {
        stub("{\"tool_name\": \"get_weather\"}",
                "{\"content\": [{\"type\": \"tool_use\", \"id\": \"toolu_1\", \"name\": \"get_weather\", \"input\": {\"city\": \"Oslo\"}, \"caller\": {\"type\": \"direct\"}}]}",
                text("It is sunny in Oslo."));
        Tool weather = Tool.builder().name("get_weather").description("The weather in a city")
                .inputSchema(Tool.InputSchema.builder()
                        .properties(JsonValue.from(Map.of("city", Map.of("type", "string"))))
                        .required(List.of("city")).build())
                .build();
        MessageCreateParams.Builder params = MessageCreateParams.builder().model(MODEL).maxTokens(256)
                .addTool(weather).addUserMessage("What is the weather in Oslo?");
        Message first = client.messages().create(params.build());
        assertEquals(StopReason.TOOL_USE, first.stopReason().get());
        ToolUseBlock call = first.content().stream().flatMap(b -> b.toolUse().stream()).findFirst().get();
        assertEquals("get_weather", call.name());
        assertEquals(JsonValue.from(Map.of("city", "Oslo")), call._input());
        params.addMessage(first).addUserMessageOfContentBlockParams(List.of(ContentBlockParam.ofToolResult(
                ToolResultBlockParam.builder().toolUseId(call.id()).content("sunny").build())));
        Message last = client.messages().create(params.build());
        assertEquals("It is sunny in Oslo.", last.content().get(0).asText().text());
    }

    /** The structured output's type: the SDK derives its JSON schema, and parses the answer into it. */
    public static class Weather {
        public String city;
        public long temperature;
    }

    @Test
    void structuredOutput() throws Exception {
        stub("{}", text("{\\\"city\\\": \\\"Oslo\\\", \\\"temperature\\\": 12}"));
        StructuredMessage<Weather> message = client.messages().create(hello().maxTokens(256).outputConfig(Weather.class).build());
        Weather weather = message.content().get(0).asText().text();
        assertEquals("Oslo", weather.city);
        assertEquals(12, weather.temperature);
        String journal = fake.control("GET", base, "/_fake/journal", null);
        assertTrue(journal.contains("\"type\":\"json_schema\""), journal);
    }

    @Test
    void modelsPaging() {
        ModelListPage first = client.models().list(ModelListParams.builder().limit(4L).build());
        assertEquals(4, first.data().size());
        assertTrue(first.hasNextPage());
        List<String> ids = new ArrayList<>();
        for (ModelInfo m : first.autoPager()) { // the SDK follows the pages
            ids.add(m.id());
        }
        assertEquals(11, ids.size()); // the fixtures' eleven models
        assertEquals(11, ids.stream().distinct().count());
        assertEquals("assistant-opus-4-7", ids.get(0));
    }

    @Test
    void aRateLimitRetriedByDefaultCostsMilliseconds() throws Exception {
        // 30 s on the virtual clock; under the scale 0.001 the SDK's default retry sleeps 30 ms,
        // and the retry moves the namespace's clock by the true 30 s.
        fake.control("PUT", base, "/_fake/retry_after", "{\"scale\": 0.001}");
        fake.control("POST", base, "/_fake/faults", "{\"path\": \"/v1/messages\", \"status\": 429, \"retry_after\": 30}");
        long start = System.nanoTime();
        Message message = client.messages().create(hello().build());
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals("msg_010000000000000000000001", message.id());
        assertTrue(millis < 1000, "the retried call took " + millis + " ms");
        assertTrue(fake.control("GET", base, "/_fake/clock", null).contains("2026-01-01T00:00:30Z"));
    }

    @Test
    void typedError() {
        NotFoundException err = assertThrows(NotFoundException.class, () -> client.models().retrieve("no-such-model"));
        assertEquals(404, err.statusCode());
        assertEquals("not_found_error", err.type().get().toString());
        assertTrue(err.apiMessage().get().contains("no-such-model"), err.apiMessage().get());
    }
}
