package dev.platformkit.fake;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A stub to register with {@link FakeNamespace#addStub}: the replies of the next matching
 * {@code POST /v1/messages} requests, one per request in order. Without a rule it matches every
 * request; every rule given must hold, compared exactly and case-sensitively. Once its replies
 * have been served {@link #times} times (default 1) it is used up, unless {@link #forever}.
 *
 * <pre>{@code
 * fake.addStub(Stub.of(Reply.toolUse("toolu_1", "get_weather", Map.of("city", "Oslo")),
 *                      Reply.text("It is sunny in Oslo.")).whenToolName("get_weather"));
 * }</pre>
 */
public final class Stub {
    private final List<Reply> replies;
    private final Map<String, Object> match = new LinkedHashMap<>();
    private int times;
    private boolean forever;

    private Stub(List<Reply> replies) {
        if (replies.isEmpty()) {
            throw new IllegalArgumentException("a stub needs at least one reply");
        }
        this.replies = replies;
    }

    /** A stub serving these replies in order. */
    public static Stub of(Reply... replies) {
        return new Stub(List.of(replies));
    }

    /** Only requests for this model. */
    public Stub whenModel(String model) {
        match.put("model", model);
        return this;
    }

    /** Only requests whose last turn is the user's and whose text contains this. */
    public Stub whenUserTextContains(String text) {
        match.put("user_text_contains", text);
        return this;
    }

    /** Only requests that offer a tool of this name. */
    public Stub whenToolName(String name) {
        match.put("tool_name", name);
        return this;
    }

    /** Serve the sequence this many times before the stub is used up (default 1). */
    public Stub times(int n) {
        times = n;
        return this;
    }

    /** Serve the sequence over and over until the stubs are cleared. */
    public Stub forever() {
        forever = true;
        return this;
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (!match.isEmpty()) {
            m.put("match", match);
        }
        List<Object> rs = new ArrayList<>();
        for (Reply r : replies) {
            rs.add(r.toJson());
        }
        m.put("replies", rs);
        if (times != 0) {
            m.put("times", times);
        }
        if (forever) {
            m.put("forever", true);
        }
        return m;
    }

    /**
     * A stub the fake holds: its ID, its match rules, how many replies it has and has served, and
     * how many passes it makes (0 with forever).
     */
    public record Registered(String id, Map<String, String> match, int replies, int served, int times, boolean forever) {
        @SuppressWarnings("unchecked")
        static Registered from(Object json) {
            Map<String, Object> m = (Map<String, Object>) json;
            Map<String, String> match = new LinkedHashMap<>();
            ((Map<String, Object>) m.get("match")).forEach((k, v) -> match.put(k, (String) v));
            return new Registered((String) m.get("id"), match, ((List<?>) m.get("replies")).size(),
                    FakeNamespace.intOf(m.get("served")), FakeNamespace.intOf(m.get("times")), Boolean.TRUE.equals(m.get("forever")));
        }
    }
}
