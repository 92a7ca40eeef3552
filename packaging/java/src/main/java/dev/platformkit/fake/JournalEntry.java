package dev.platformkit.fake;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One API request a namespace answered, as its journal recorded it: what was sent (method, path,
 * query, headers, the JSON body), what it got (status, error type, the stub that answered), and
 * whether the request was valid. {@code json} is the whole entry, for the fields not named here.
 *
 * @param body the request's JSON body (Map, List, String, BigDecimal, Boolean), or null when
 *     there was none, it was not JSON or was over 64 KiB
 */
public record JournalEntry(String requestId, Instant at, String method, String path, String query, int status,
        String apiVersion, Map<String, String> headers, Object body, boolean valid, String errorType,
        boolean fault, String stub, String stubNearMiss, Map<String, Object> json) {

    @SuppressWarnings("unchecked")
    static JournalEntry from(Object v) {
        Map<String, Object> m = (Map<String, Object>) v;
        Map<String, String> headers = new LinkedHashMap<>();
        Object h = m.get("headers");
        if (h instanceof Map) {
            ((Map<String, Object>) h).forEach((k, x) -> headers.put(k, String.valueOf(x)));
        }
        return new JournalEntry((String) m.get("request_id"), Instant.parse((String) m.get("at")), (String) m.get("method"),
                (String) m.get("path"), (String) m.get("query"), FakeNamespace.intOf(m.get("status")),
                (String) m.get("api_version"), Collections.unmodifiableMap(headers), m.get("body"),
                Boolean.TRUE.equals(m.get("valid")), (String) m.get("error_type"), Boolean.TRUE.equals(m.get("fault")),
                (String) m.get("stub"), (String) m.get("stub_near_miss"), Collections.unmodifiableMap(m));
    }
}
