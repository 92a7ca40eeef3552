package dev.platformkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.MultipartField;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.BadRequestException;
import com.anthropic.errors.NotFoundException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.files.FileListParams;
import com.anthropic.models.files.FileMetadata;
import com.anthropic.models.files.FileNotDownloadableException;
import com.anthropic.models.files.FileUploadParams;
import com.anthropic.models.messages.ContentBlockParam;
import com.anthropic.models.messages.FileDocumentSource;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.Metadata;
import com.anthropic.models.messages.PlainTextSource;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.messages.StructuredMessage;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolResultBlockParam;
import com.anthropic.models.messages.ToolUseBlock;
import com.anthropic.models.messages.batches.BatchCreateParams;
import com.anthropic.models.messages.batches.MessageBatch;
import com.anthropic.models.messages.batches.MessageBatchErroredResult;
import com.anthropic.models.messages.batches.MessageBatchIndividualResponse;
import com.anthropic.models.messages.batches.MessageBatchRequestCounts;
import com.anthropic.models.models.ModelInfo;
import com.anthropic.models.models.ModelListPage;
import com.anthropic.models.models.ModelListParams;
import dev.platformkit.fake.Fault;
import dev.platformkit.fake.FakeNamespace;
import dev.platformkit.fake.JournalEntry;
import dev.platformkit.fake.PlatformFake;
import dev.platformkit.fake.Reply;
import dev.platformkit.fake.Stub;
import java.time.Duration;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The official Java SDK, unmodified, against the fake, through the platformkit-fake helper: one
 * fake for the run, and each test's own namespace. Every client is built as the SDK's README
 * says, with a base URL and an API key and nothing else.
 */
@ExtendWith(PlatformFake.class)
class SdkTest {
    static final String MODEL = "claude-sonnet-4-5"; // a model of the fake's fixtures, by the name SDK users write
    FakeNamespace fake;
    AnthropicClient client;

    @BeforeEach
    void newClient(FakeNamespace fake) {
        this.fake = fake;
        client = AnthropicOkHttpClient.builder().baseUrl(fake.baseUrl()).apiKey(fake.apiKey()).build();
    }

    MessageCreateParams.Builder hello() {
        return MessageCreateParams.builder().model(MODEL).maxTokens(64).addUserMessage("Hello, fake.");
    }

    @Test
    void create() {
        fake.stub(Reply.text("Hello from the fake."));
        Message message = client.messages().create(hello().build());
        assertEquals("msg_010000000000000000000001", message.id());
        assertEquals("Hello from the fake.", message.content().get(0).asText().text());
        assertEquals(StopReason.END_TURN, message.stopReason().get());
        // [ {role, content} ]: the array and the object 1 each, "user" 1, "Hello" "," " fake" "." 4.
        assertEquals(7, message.usage().inputTokens());
        assertEquals(5, message.usage().outputTokens()); // "Hello" " from" " the" " fake" "."
        JournalEntry sent = fake.journal().get(0);
        assertEquals("2026-10-21", sent.headers().get("anthropic-version")); // what the 3.x SDK sends
        assertTrue(sent.valid(), sent.json().toString());
    }

    @Test
    void streamWithTheAccumulator() {
        fake.stub(Reply.text("Streamed, token by token."));
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
    void toolUse() {
        // The tool call is written without caller: the fake answers it with {"type": "direct"},
        // which the SDK's ToolUseBlock requires.
        fake.addStub(Stub.of(Reply.toolUse("toolu_1", "get_weather", Map.of("city", "Oslo")),
                Reply.text("It is sunny in Oslo.")).whenToolName("get_weather"));
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
        assertTrue(call.caller().isDirect());
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
    void structuredOutput() {
        fake.stub(Reply.text("{\"city\": \"Oslo\", \"temperature\": 12}")); // the model's text: JSON
        StructuredMessage<Weather> message = client.messages().create(hello().maxTokens(256).outputConfig(Weather.class).build());
        Weather weather = message.content().get(0).asText().text();
        assertEquals("Oslo", weather.city);
        assertEquals(12, weather.temperature);
        Map<?, ?> sent = (Map<?, ?>) fake.journal().get(0).body();
        assertEquals("json_schema", ((Map<?, ?>) ((Map<?, ?>) sent.get("output_config")).get("format")).get("type"));
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
        assertEquals("claude-opus-4-7", ids.get(0));
    }

    @Test
    void aRateLimitRetriedByDefaultCostsMilliseconds() {
        // 30 s on the virtual clock; under the scale 0.001 the SDK's default retry sleeps 30 ms,
        // and the retry moves the namespace's clock by the true 30 s.
        fake.setRetryAfterScale(0.001);
        fake.injectFault(Fault.status(429).path("/v1/messages").retryAfter(Duration.ofSeconds(30)));
        long start = System.nanoTime();
        Message message = client.messages().create(hello().build());
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals("msg_010000000000000000000001", message.id());
        assertTrue(millis < 1000, "the retried call took " + millis + " ms");
        assertEquals(Instant.parse("2026-01-01T00:00:30Z"), fake.now());
    }

    @Test
    void typedError() {
        NotFoundException err = assertThrows(NotFoundException.class, () -> client.models().retrieve("no-such-model"));
        assertEquals(404, err.statusCode());
        assertEquals("not_found_error", err.type().get().toString());
        assertTrue(err.apiMessage().get().contains("no-such-model"), err.apiMessage().get());
    }

    @Test
    void filesUploadListDownloadDelete() throws Exception {
        MultipartField<InputStream> part = MultipartField.<InputStream>builder()
                .value(new ByteArrayInputStream("hello, files".getBytes(StandardCharsets.UTF_8)))
                .filename("notes/hello.txt")
                .contentType("text/plain")
                .build();
        FileMetadata uploaded = client.files().upload(FileUploadParams.builder().file(part).build());
        assertEquals("hello.txt", uploaded.filename()); // the final path component
        assertEquals(12, uploaded.sizeBytes());
        assertEquals(false, uploaded.downloadable().get());

        List<String> listed = new ArrayList<>();
        for (FileMetadata f : client.files().list(FileListParams.builder().limit(1L).build()).autoPager()) {
            listed.add(f.filename()); // one a page, newest first
        }
        assertEquals(List.of("hello.txt", "usage.csv"), listed); // usage.csv: the fixtures' file the platform made

        FileNotDownloadableException err = assertThrows(FileNotDownloadableException.class, () -> client.files().download(uploaded.id()));
        assertEquals(400, err.statusCode());

        FileMetadata made = client.files().list().data().stream().filter(f -> f.downloadable().orElse(false)).findFirst().get();
        try (var resp = client.files().download(made.id())) {
            assertTrue(new String(resp.body().readAllBytes(), StandardCharsets.UTF_8).startsWith("month,requests\n"));
        }
        assertEquals("file_deleted", client.files().delete(uploaded.id()).type().get().toString());
    }

    MessageCreateParams document(ContentBlockParam block) {
        return MessageCreateParams.builder().model(MODEL).maxTokens(64)
                .addUserMessageOfContentBlockParams(List.of(block, ContentBlockParam.ofText("What does it say?"))).build();
    }

    @Test
    void fileIdInMessages() {
        String text = "The quarterly report says revenue grew by four percent. ".repeat(20);
        MultipartField<InputStream> part = MultipartField.<InputStream>builder()
                .value(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)))
                .filename("notes.txt")
                .contentType("text/plain")
                .build();
        FileMetadata uploaded = client.files().upload(FileUploadParams.builder().file(part).build());
        Message byId = client.messages().create(document(ContentBlockParam.ofDocument(FileDocumentSource.of(uploaded.id()))));
        Message inline = client.messages().create(document(ContentBlockParam.ofDocument(PlainTextSource.of(text))));
        // The file's text counts as input as it does sent inline.
        assertEquals(inline.usage().inputTokens(), byId.usage().inputTokens());
        assertTrue(byId.usage().inputTokens() > 200, "input tokens " + byId.usage().inputTokens());
        client.files().delete(uploaded.id());
        NotFoundException err = assertThrows(NotFoundException.class,
                () -> client.messages().create(document(ContentBlockParam.ofDocument(FileDocumentSource.of(uploaded.id())))));
        assertTrue(err.apiMessage().get().startsWith("messages.0.content.0.source.file_id: "), err.apiMessage().get());
    }

    /**
     * The batch flow: create a batch of 100 requests, one of which the Messages rules refuse (a
     * user_id that is an email address); poll retrieve while the namespace's clock moves (the
     * fake's pace: 100 ms a request); read the results through the SDK's own JSONL decoder
     * (resultsStreaming). request_counts agree with the lines, the errored line carries the error
     * the same request gets sent alone, and the journal holds each request of the batch.
     */
    @Test
    void batchResults() {
        Metadata email = Metadata.builder().userId("someone@example.com").build();
        BatchCreateParams.Builder create = BatchCreateParams.builder();
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 99; i++) {
            ids.add("req-" + i);
            create.addRequest(BatchCreateParams.Request.builder().customId("req-" + i).params(BatchCreateParams.Request.Params.builder()
                    .model(MODEL).maxTokens(64).addUserMessage("Hello number " + i).build()).build());
        }
        create.addRequest(BatchCreateParams.Request.builder().customId("refused").params(BatchCreateParams.Request.Params.builder()
                .model(MODEL).maxTokens(64).addUserMessage("Hello").metadata(email).build()).build());
        MessageBatch batch = client.messages().batches().create(create.build());
        assertTrue(batch.id().startsWith("msgbatch_"), batch.id());
        assertEquals(MessageBatch.ProcessingStatus.IN_PROGRESS, batch.processingStatus());
        ids.add("refused");
        assertEquals(100, batch.requestCounts().processing());
        assertTrue(batch.resultsUrl().isEmpty());
        int polls = 0;
        while (!batch.processingStatus().equals(MessageBatch.ProcessingStatus.ENDED)) {
            assertTrue(++polls <= 10, "not ended after 10 polls");
            fake.advanceClock(Duration.ofSeconds(5));
            batch = client.messages().batches().retrieve(batch.id());
        }
        assertEquals(2, polls); // 100 requests at 100 ms each end 10 s after creation
        MessageBatchRequestCounts counts = batch.requestCounts();
        assertEquals(List.of(0L, 99L, 1L, 0L, 0L), List.of(counts.processing(), counts.succeeded(), counts.errored(), counts.canceled(), counts.expired()));

        List<MessageBatchIndividualResponse> lines;
        try (var results = client.messages().batches().resultsStreaming(batch.id())) {
            lines = results.stream().collect(Collectors.toList());
        }
        assertEquals(ids, lines.stream().map(MessageBatchIndividualResponse::customId).toList());
        assertEquals(counts.succeeded(), lines.stream().filter(l -> l.result().isSucceeded()).count());
        assertEquals(counts.errored(), lines.stream().filter(l -> l.result().isErrored()).count());
        assertTrue(lines.get(0).result().asSucceeded().message().content().get(0).isText());

        MessageBatchErroredResult errored = lines.get(99).result().asErrored();
        BadRequestException alone = assertThrows(BadRequestException.class, () -> client.messages().create(MessageCreateParams.builder()
                .model(MODEL).maxTokens(64).addUserMessage("Hello").metadata(email).build()));
        assertEquals(alone.apiMessage().get(), errored.error().error().message());
        assertTrue(errored.error().error().isInvalidRequestError());

        List<String> journaled = fake.journal().stream().filter(e -> e.json().get("batch") != null)
                .map(e -> e.method() + " " + e.path() + " " + ((Map<?, ?>) e.json().get("batch")).get("custom_id") + " " + e.status()).toList();
        assertEquals(ids.stream().map(id -> "POST /v1/messages " + id + (id.equals("refused") ? " 400" : " 200")).toList(), journaled);
        var deleted = client.messages().batches().delete(batch.id()).validate(); // its type is the constant message_batch_deleted
        assertEquals(batch.id(), deleted.id());
    }
}
