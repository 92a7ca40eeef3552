package dev.platformkit.fake;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scripted reply of a stub: the content blocks of an assistant message, and optionally its
 * stop reason. The fake fills in the rest when it serves it (id, model, usage), the
 * {@code citations: null} of a text block and the {@code caller: {"type": "direct"}} of a tool
 * call; the stop reason defaults to {@code tool_use} when the reply calls a tool, else
 * {@code end_turn}. Immutable: each method returns a new reply.
 *
 * <pre>{@code
 * Reply.text("Let me look.").andToolUse("toolu_1", "get_weather", Map.of("city", "Oslo"))
 * }</pre>
 */
public final class Reply {
    private final List<Map<String, Object>> content;
    private final String stopReason;
    private final String stopSequence;

    private Reply(List<Map<String, Object>> content, String stopReason, String stopSequence) {
        this.content = Collections.unmodifiableList(content);
        this.stopReason = stopReason;
        this.stopSequence = stopSequence;
    }

    /** A reply of one text block. */
    public static Reply text(String text) {
        return new Reply(List.of(), null, null).andText(text);
    }

    /** A reply of one tool call: the model asks the client to run tool {@code name} with {@code input}. */
    public static Reply toolUse(String id, String name, Map<String, ?> input) {
        return new Reply(List.of(), null, null).andToolUse(id, name, input);
    }

    /**
     * A reply of the given content blocks, each as the Messages API writes it (type, and the
     * block's fields: thinking, server tool results, ...), e.g.
     * {@code Map.of("type", "thinking", "thinking", "Hmm.", "signature", "sig")}.
     */
    @SafeVarargs
    public static Reply blocks(Map<String, ?>... blocks) {
        Reply r = new Reply(List.of(), null, null);
        for (Map<String, ?> b : blocks) {
            r = r.andBlock(b);
        }
        return r;
    }

    /** This reply with a text block after its content. */
    public Reply andText(String text) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("type", "text");
        b.put("text", text);
        return andBlock(b);
    }

    /** This reply with a tool call after its content. */
    public Reply andToolUse(String id, String name, Map<String, ?> input) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("type", "tool_use");
        b.put("id", id);
        b.put("name", name);
        b.put("input", input);
        return andBlock(b);
    }

    /** This reply with a content block after its content. */
    public Reply andBlock(Map<String, ?> block) {
        List<Map<String, Object>> c = new ArrayList<>(content);
        c.add(Collections.unmodifiableMap(new LinkedHashMap<>(block)));
        return new Reply(c, stopReason, stopSequence);
    }

    /** This reply with the stop reason given: end_turn, max_tokens, tool_use, pause_turn, refusal, ... */
    public Reply stopReason(String reason) {
        return new Reply(content, reason, null);
    }

    /** This reply stopped by the stop sequence given (stop_reason {@code stop_sequence}). */
    public Reply stopSequence(String sequence) {
        return new Reply(content, "stop_sequence", sequence);
    }

    /** The content blocks, as written. */
    public List<Map<String, Object>> content() {
        return content;
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("content", content);
        if (stopReason != null) {
            m.put("stop_reason", stopReason);
        }
        if (stopSequence != null) {
            m.put("stop_sequence", stopSequence);
        }
        return m;
    }
}
