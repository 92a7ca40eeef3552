package dev.platformkit.fake;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON of the control API, with no library: values are {@code Map<String, Object>} (in the
 * order written), {@code List<Object>}, {@code String}, {@code BigDecimal} (every number, to the
 * last digit), {@code Boolean} and {@code null}. The control API's bodies are small and of a few
 * shapes, so a hundred lines serve them; a JSON library would be a dependency of every user's
 * test classpath, and might clash with the version their own code uses.
 */
final class Json {
    private Json() {}

    /** The JSON text of v: a Map, Iterable, array of Object, CharSequence, Number, Boolean or null. */
    static String write(Object v) {
        StringBuilder b = new StringBuilder();
        write(b, v);
        return b.toString();
    }

    private static void write(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof CharSequence || v instanceof Character || v instanceof Enum) {
            string(b, v.toString());
        } else if (v instanceof Boolean) {
            b.append(v);
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new IllegalArgumentException("JSON has no " + d);
            }
            b.append(BigDecimal.valueOf(d).stripTrailingZeros().toPlainString());
        } else if (v instanceof BigDecimal) {
            b.append(((BigDecimal) v).toPlainString());
        } else if (v instanceof Number) {
            b.append(v);
        } else if (v instanceof Map) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                string(b, String.valueOf(e.getKey()));
                b.append(':');
                write(b, e.getValue());
            }
            b.append('}');
        } else if (v instanceof Iterable || v instanceof Object[]) {
            Iterable<?> items = v instanceof Object[] ? List.of((Object[]) v) : (Iterable<?>) v;
            b.append('[');
            boolean first = true;
            for (Object item : items) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                write(b, item);
            }
            b.append(']');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + v.getClass().getName());
        }
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        b.append('"');
    }

    /** The value of a JSON text; IllegalArgumentException names the offset of what is wrong. */
    static Object parse(String text) {
        Parser p = new Parser(text);
        Object v = p.value();
        p.space();
        if (p.i != text.length()) {
            throw p.error("end of input");
        }
        return v;
    }

    private static final class Parser {
        final String s;
        int i;

        Parser(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String want) {
            return new IllegalArgumentException("JSON: want " + want + " at offset " + i);
        }

        void space() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
        }

        boolean eat(char c) {
            space();
            if (i < s.length() && s.charAt(i) == c) {
                i++;
                return true;
            }
            return false;
        }

        Object value() {
            space();
            if (i >= s.length()) {
                throw error("a value");
            }
            char c = s.charAt(i);
            if (c == '{') {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                if (eat('}')) {
                    return m;
                }
                do {
                    space();
                    String k = str();
                    if (!eat(':')) {
                        throw error("':'");
                    }
                    m.put(k, value());
                } while (eat(','));
                if (!eat('}')) {
                    throw error("',' or '}'");
                }
                return m;
            }
            if (c == '[') {
                i++;
                List<Object> l = new ArrayList<>();
                if (eat(']')) {
                    return l;
                }
                do {
                    l.add(value());
                } while (eat(','));
                if (!eat(']')) {
                    throw error("',' or ']'");
                }
                return l;
            }
            if (c == '"') {
                return str();
            }
            for (String lit : new String[] {"true", "false", "null"}) {
                if (s.startsWith(lit, i)) {
                    i += lit.length();
                    return lit.equals("null") ? null : Boolean.valueOf(lit);
                }
            }
            int start = i;
            while (i < s.length() && "+-.eE0123456789".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            try {
                return new BigDecimal(s.substring(start, i));
            } catch (NumberFormatException e) {
                i = start;
                throw error("a value");
            }
        }

        String str() {
            if (i >= s.length() || s.charAt(i) != '"') {
                throw error("a string");
            }
            i++;
            StringBuilder b = new StringBuilder();
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    break;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'n': b.append('\n'); break;
                    case 'r': b.append('\r'); break;
                    case 't': b.append('\t'); break;
                    case 'u':
                        if (i + 4 > s.length()) {
                            throw error("four hex digits");
                        }
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                        break;
                    default: b.append(e);
                }
            }
            throw error("the end of the string");
        }
    }
}
