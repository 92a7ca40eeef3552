package dev.platformkit.fake;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One test's namespace of a fake server: its own data, virtual clock, ID counters, journal,
 * faults and stubs, which no other namespace sees. Give {@link #baseUrl()} and {@link #apiKey()}
 * to a client; steer the namespace with the typed control calls here. A call the fake refuses
 * throws {@link FakeException}; a server that cannot be reached, {@link UncheckedIOException}.
 * Safe to use from several threads.
 */
public final class FakeNamespace {
    /** The fake's default API key (messages, models, memory stores, environments, work queue). */
    public static final String API_KEY = "test-api-key";
    /** The fake's default administration key. */
    public static final String ADMIN_API_KEY = "test-admin-key";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private final String name;
    private final String serverUrl;
    private final String baseUrl;
    private final HttpClient http;

    FakeNamespace(String serverUrl, String name, HttpClient http) {
        if (!NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("namespace name \"" + name + "\": want 1 to 64 of A-Z a-z 0-9 . _ -, neither . nor ..");
        }
        this.name = name;
        this.serverUrl = serverUrl;
        this.baseUrl = serverUrl + "/ns/" + name;
        this.http = http;
    }

    /** The namespace's name. */
    public String name() {
        return name;
    }

    /** The base URL to give a client: {@code http://127.0.0.1:PORT/ns/NAME}, no trailing slash. */
    public String baseUrl() {
        return baseUrl;
    }

    /** The fake's default API key, {@value #API_KEY}. */
    public String apiKey() {
        return API_KEY;
    }

    /** Back to the fixtures: data, clock, ID counters, journal, faults and stubs. Returns the clock. */
    public Instant reset() {
        return clock(call("POST", "/_fake/reset", null));
    }

    /** The namespace's virtual time (it starts at 2026-01-01T00:00:00Z and moves only when told). */
    public Instant now() {
        return clock(call("GET", "/_fake/clock", null));
    }

    /** Moves the virtual clock forward (0 to 100 years, to the millisecond). Returns the clock. */
    public Instant advanceClock(Duration d) {
        return clock(call("POST", "/_fake/clock/advance", Map.of("seconds", BigDecimal.valueOf(d.toMillis(), 3))));
    }

    /** Registers a stub: the replies of the next matching {@code POST /v1/messages}. */
    public Stub.Registered addStub(Stub stub) {
        return Stub.Registered.from(call("POST", "/_fake/messages/stubs", stub.toJson()));
    }

    /** Registers a stub that answers the next requests, whatever they ask, with these replies in order. */
    public Stub.Registered stub(Reply... replies) {
        return addStub(Stub.of(replies));
    }

    /** The stubs not yet used up, in the order they are tried. */
    public List<Stub.Registered> stubs() {
        return list(call("GET", "/_fake/messages/stubs", null), Stub.Registered::from);
    }

    /** Removes every stub; answers how many there were. */
    public int clearStubs() {
        return cleared(call("DELETE", "/_fake/messages/stubs", null));
    }

    /** Makes the next matching API requests fail as the fault says. */
    public Fault.Injected injectFault(Fault fault) {
        return Fault.Injected.from(call("POST", "/_fake/faults", fault.toJson()));
    }

    /** The faults not yet used up, in the order they apply. */
    public List<Fault.Injected> faults() {
        return list(call("GET", "/_fake/faults", null), Fault.Injected::from);
    }

    /** Removes every fault; answers how many there were. */
    public int clearFaults() {
        return cleared(call("DELETE", "/_fake/faults", null));
    }

    /** The retry-after scale: 1 (the default) sends the true waits. */
    public double retryAfterScale() {
        return ((Number) field(call("GET", "/_fake/retry_after", null), "scale")).doubleValue();
    }

    /**
     * Makes 429s and 529s ask for {@code scale} times their wait (the true wait in
     * {@code fake-retry-after-ms}), and moves the virtual clock by the true wait when an official
     * SDK's retry arrives: 0.001 makes an SDK's default retry of a rate limit take milliseconds.
     * More than 0, at most 1, in whole millionths. Returns the scale set.
     */
    public double setRetryAfterScale(double scale) {
        return ((Number) field(call("PUT", "/_fake/retry_after", Map.of("scale", scale)), "scale")).doubleValue();
    }

    /** Turns rate-limit enforcement on (every bucket full) or off in this namespace. */
    public void setRateLimits(boolean enforce) {
        call("PUT", "/_fake/rate_limits", Map.of("enforce", enforce));
    }

    /** The API requests this namespace answered, oldest first (control calls are not in it). */
    public List<JournalEntry> journal() {
        return list(call("GET", "/_fake/journal", null), JournalEntry::from);
    }

    /** Empties the journal; answers how many entries it held. */
    public int clearJournal() {
        return cleared(call("DELETE", "/_fake/journal", null));
    }

    /** Drops the namespace from its server; a later request starts it afresh. Answers 1, or 0 if it was not there. */
    public int delete() {
        return cleared(request(serverUrl, "DELETE", "/_fake/namespaces/" + URLEncoder.encode(name, StandardCharsets.UTF_8), null));
    }

    @Override
    public String toString() {
        return "FakeNamespace(" + baseUrl + ")";
    }

    private Object call(String method, String path, Object body) {
        return request(baseUrl, method, path, body);
    }

    /** A control call: the answer's JSON, or FakeException with the error envelope's type and message. */
    Object request(String base, String method, String path, Object body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (body == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("content-type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(Json.write(body)));
        }
        HttpResponse<String> resp;
        try {
            resp = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + base + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(method + " " + base + path + ": interrupted", e);
        }
        Object json;
        try {
            json = Json.parse(resp.body());
        } catch (IllegalArgumentException e) {
            json = null;
        }
        if (resp.statusCode() / 100 != 2) {
            String type = "unknown";
            String message = resp.body();
            if (json instanceof Map && ((Map<?, ?>) json).get("error") instanceof Map) {
                Map<?, ?> err = (Map<?, ?>) ((Map<?, ?>) json).get("error");
                type = String.valueOf(err.get("type"));
                message = String.valueOf(err.get("message"));
            }
            throw new FakeException(method, path, resp.statusCode(), type, message);
        }
        if (json == null) {
            throw new UncheckedIOException(new IOException(method + " " + path + ": the answer is not JSON: " + resp.body()));
        }
        return json;
    }

    static int intOf(Object v) {
        return v == null ? 0 : ((Number) v).intValue();
    }

    private static Object field(Object json, String name) {
        return ((Map<?, ?>) json).get(name);
    }

    private static Instant clock(Object json) {
        return Instant.parse((String) field(json, "now"));
    }

    private static int cleared(Object json) {
        return intOf(field(json, "cleared"));
    }

    private static <T> List<T> list(Object json, Function<Object, T> of) {
        List<T> out = new ArrayList<>();
        for (Object v : (List<?>) field(json, "data")) {
            out.add(of.apply(v));
        }
        return List.copyOf(out);
    }
}
