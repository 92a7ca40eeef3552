package dev.platformkit.fake;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A fault to inject with {@link FakeNamespace#injectFault}: the next matching API request (or
 * {@link #times} of them) fails as told, with an error status (and its error envelope), a delay,
 * a dropped connection, or a stream cut short.
 *
 * <pre>{@code
 * fake.injectFault(Fault.status(429).path("/v1/messages").retryAfter(Duration.ofSeconds(30)));
 * }</pre>
 */
public final class Fault {
    private final Map<String, Object> body = new LinkedHashMap<>();

    private Fault() {}

    /** Answer with this status (400, 401, 402, 403, 404, 413, 429, 500, 504 or 529) and its error envelope. */
    public static Fault status(int status) {
        Fault f = new Fault();
        f.body.put("status", status);
        return f;
    }

    /** Serve the request, after waiting this long (real time). */
    public static Fault latency(Duration d) {
        return new Fault().delay(d);
    }

    /** Close the connection without an answer. */
    public static Fault dropConnection() {
        Fault f = new Fault();
        f.body.put("drop_connection", true);
        return f;
    }

    /** Cut a streamed answer after this many events. */
    public static Fault cutStreamAfter(int events) {
        Fault f = new Fault();
        f.body.put("stream_events", events);
        return f;
    }

    /** Only this path: exact, or a prefix followed by {@code *} ({@code /v1/models*}). */
    public Fault path(String path) {
        body.put("path", path);
        return this;
    }

    /** Only this method (GET, POST, ...). */
    public Fault method(String method) {
        body.put("method", method);
        return this;
    }

    /** With a 429 or 529: the wait asked for, in whole milliseconds (default 1 s). */
    public Fault retryAfter(Duration d) {
        body.put("retry_after", d.toMillis() / 1000.0);
        return this;
    }

    /** Wait this long (real time) before answering. */
    public Fault delay(Duration d) {
        body.put("latency_ms", d.toMillis());
        return this;
    }

    /** Apply to this many requests (default 1). */
    public Fault times(int n) {
        body.put("times", n);
        return this;
    }

    Map<String, Object> toJson() {
        return body;
    }

    /** A fault the fake holds, as it reports it: 0, "" and false for what was not given. */
    public record Injected(String id, String method, String path, int status, Duration retryAfter, int latencyMs,
            boolean dropConnection, int streamEvents, int times) {
        @SuppressWarnings("unchecked")
        static Injected from(Object json) {
            Map<String, Object> m = (Map<String, Object>) json;
            return new Injected((String) m.get("id"), (String) m.get("method"), (String) m.get("path"),
                    FakeNamespace.intOf(m.get("status")),
                    Duration.ofMillis(Math.round(((Number) m.get("retry_after")).doubleValue() * 1000)),
                    FakeNamespace.intOf(m.get("latency_ms")), Boolean.TRUE.equals(m.get("drop_connection")),
                    FakeNamespace.intOf(m.get("stream_events")), FakeNamespace.intOf(m.get("times")));
        }
    }
}
