package dev.platformkit.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The extension and the typed control calls against the real binary: each call's effect is
 * observed through the API (a request sent as a client sends it), not through the helper.
 */
@ExtendWith(PlatformFake.class)
class ExtensionTest {
    static final String MODEL = "assistant-sonnet-4-5"; // a model of the fake's fixtures
    static final Set<String> SERVERS = ConcurrentHashMap.newKeySet();
    static final Set<String> NAMESPACES = ConcurrentHashMap.newKeySet();
    static FakeServer server;
    final HttpClient http = HttpClient.newHttpClient();
    FakeNamespace before;

    @BeforeAll
    static void shared(FakeServer s) {
        server = s;
        SERVERS.add(s.url());
    }

    @BeforeEach
    void setUp(FakeNamespace fake) {
        before = fake;
    }

    /** POST /v1/messages to the namespace as a client sends it: the status and the answer's JSON. */
    HttpResponse<String> create(FakeNamespace fake, Map<String, Object> extra) throws Exception {
        Map<String, Object> body = new java.util.LinkedHashMap<>(Map.of("model", MODEL, "max_tokens", 64,
                "messages", List.of(Map.of("role", "user", "content", "Hello"))));
        body.putAll(extra);
        return http.send(HttpRequest.newBuilder(URI.create(fake.baseUrl() + "/v1/messages"))
                .header("x-api-key", fake.apiKey()).header("anthropic-version", "2023-06-01")
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))).build(), HttpResponse.BodyHandlers.ofString());
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> json(HttpResponse<String> r) {
        return (Map<String, Object>) Json.parse(r.body());
    }

    @Test
    void eachTestHasANamespaceOfItsOwnOnTheSharedServer(FakeNamespace fake, FakeServer s) {
        assertSame(before, fake, "@BeforeEach and the test get the same namespace");
        assertSame(server, s);
        assertTrue(NAMESPACES.add(fake.name()), fake.name());
        // The test's name, cut to leave room for the process ID and counter within 64 characters.
        assertTrue(fake.name().matches("ExtensionTest-eachTestHasANamespaceOfItsOwn[A-Za-z]*-[0-9]+-[0-9]+"), fake.name());
        assertTrue(fake.name().length() <= 64, fake.name());
        assertEquals(s.url() + "/ns/" + fake.name(), fake.baseUrl());
        assertTrue(s.url().matches("http://127\\.0\\.0\\.1:[0-9]+"), s.url());
    }

    @Test
    void anotherTestAnotherNamespace(FakeNamespace fake) {
        assertTrue(NAMESPACES.add(fake.name()), fake.name());
    }

    @Test
    void stubsAnswerInOrderAndAreListedAndCleared(FakeNamespace fake) throws Exception {
        Stub.Registered st = fake.addStub(Stub.of(Reply.toolUse("toolu_1", "get_weather", Map.of("city", "Oslo")),
                Reply.text("It is sunny.")).whenToolName("get_weather"));
        assertTrue(st.id().startsWith("stub_"), st.id());
        assertEquals(Map.of("tool_name", "get_weather"), st.match());
        assertEquals(List.of(st), fake.stubs());
        Map<String, Object> tools = Map.of("tools", List.of(Map.of("name", "get_weather",
                "input_schema", Map.of("type", "object"))));
        Map<String, Object> first = json(create(fake, tools));
        assertEquals("tool_use", first.get("stop_reason"));
        Map<?, ?> call = (Map<?, ?>) ((List<?>) first.get("content")).get(0);
        assertEquals(Map.of("city", "Oslo"), call.get("input"));
        assertEquals(Map.of("type", "direct"), call.get("caller")); // filled in by the fake
        assertEquals(1, fake.stubs().get(0).served());
        Map<String, Object> second = json(create(fake, tools));
        assertEquals("It is sunny.", ((Map<?, ?>) ((List<?>) second.get("content")).get(0)).get("text"));
        assertEquals(List.of(), fake.stubs(), "used up");
        fake.stub(Reply.text("a"));
        fake.addStub(Stub.of(Reply.text("b")).forever());
        assertEquals(2, fake.clearStubs());
        assertEquals(List.of(), fake.stubs());
    }

    @Test
    void aStubTheFakeRefusesNamesTheField(FakeNamespace fake) {
        FakeException e = assertThrows(FakeException.class, () -> fake.stub(Reply.text("x").stopReason("tool_use")));
        assertEquals(400, e.status());
        assertTrue(e.detail().startsWith("replies.0.stop_reason: \"tool_use\" needs a tool_use block"), e.detail());
        FakeException times = assertThrows(FakeException.class, () -> fake.addStub(Stub.of(Reply.text("x")).times(2).forever()));
        assertEquals("invalid_request_error", times.type());
        assertTrue(times.detail().startsWith("times: "), times.detail());
    }

    @Test
    void theClockMovesWhenToldAndResetReturnsIt(FakeNamespace fake) {
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        assertEquals(start, fake.now());
        assertEquals(start.plusSeconds(90).plusMillis(500), fake.advanceClock(Duration.ofMillis(90_500)));
        assertEquals(start.plusSeconds(90).plusMillis(500), fake.now());
        assertEquals(start, fake.reset());
        assertEquals(start, fake.now());
    }

    @Test
    void faultsFailTheirRequestsAndAreListedAndCleared(FakeNamespace fake) throws Exception {
        Fault.Injected f = fake.injectFault(Fault.status(529).path("/v1/messages").retryAfter(Duration.ofMillis(2500)).times(2));
        assertEquals(new Fault.Injected(f.id(), "", "/v1/messages", 529, Duration.ofMillis(2500), 0, false, 0, 2), f);
        assertEquals(List.of(f), fake.faults());
        HttpResponse<String> r = create(fake, Map.of());
        assertEquals(529, r.statusCode());
        assertEquals("2500", r.headers().firstValue("retry-after-ms").orElse(""));
        assertEquals(1, fake.clearFaults());
        assertEquals(200, create(fake, Map.of()).statusCode());
    }

    @Test
    void theRetryAfterScaleShortensTheWaitAsked(FakeNamespace fake) throws Exception {
        assertEquals(1.0, fake.retryAfterScale());
        assertEquals(0.001, fake.setRetryAfterScale(0.001));
        fake.injectFault(Fault.status(429).retryAfter(Duration.ofSeconds(30)));
        HttpResponse<String> r = create(fake, Map.of());
        assertEquals(429, r.statusCode());
        assertEquals("30", r.headers().firstValue("retry-after-ms").orElse(""));
        assertEquals("30000", r.headers().firstValue("fake-retry-after-ms").orElse(""));
    }

    @Test
    void theJournalHoldsWhatTheNamespaceAnswered(FakeNamespace fake) throws Exception {
        assertEquals(List.of(), fake.journal());
        create(fake, Map.of("metadata", Map.of("user_id", "u1")));
        List<JournalEntry> j = fake.journal();
        assertEquals(1, j.size());
        JournalEntry e = j.get(0);
        assertEquals("POST", e.method());
        assertEquals("/v1/messages", e.path());
        assertEquals(200, e.status());
        assertTrue(e.valid());
        assertEquals("2023-06-01", e.apiVersion());
        assertEquals(Map.of("user_id", "u1"), ((Map<?, ?>) e.body()).get("metadata"));
        assertEquals(new BigDecimal(64), ((Map<?, ?>) e.body()).get("max_tokens"));
        assertEquals(1, fake.clearJournal());
        assertEquals(List.of(), fake.journal());
    }

    @Test
    void namespacesDoNotSeeEachOther(FakeNamespace fake) throws Exception {
        FakeNamespace other = server.newNamespace("other");
        assertNotEquals(other.name(), fake.name());
        fake.stub(Reply.text("mine"));
        fake.advanceClock(Duration.ofHours(1));
        assertEquals(Instant.parse("2026-01-01T00:00:00Z"), other.now());
        assertEquals(List.of(), other.stubs());
        assertEquals(1, other.delete());
    }
}
