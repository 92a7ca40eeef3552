package dev.platformkit.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
    @Test
    void writesWhatJsonSays() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("s", "a\"b\\c\n\u0001\u2028é");
        m.put("n", List.of(1, 2.5, 0.001, new BigDecimal("12345678901234567890.5")));
        m.put("b", true);
        m.put("z", null);
        m.put("o", Map.of());
        assertEquals("{\"s\":\"a\\\"b\\\\c\\n\\u0001\\u2028é\",\"n\":[1,2.5,0.001,12345678901234567890.5],\"b\":true,\"z\":null,\"o\":{}}", Json.write(m));
        assertThrows(IllegalArgumentException.class, () -> Json.write(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Json.write(new Object()));
    }

    @Test
    void parsesWhatJsonSays() {
        Object v = Json.parse(" {\"a\": [1, -2.5e3, \"x\\u00e9\\n\\\"\"], \"b\": {\"c\": null, \"d\": false}, \"e\": 12345678901234567890} ");
        Map<String, Object> want = new LinkedHashMap<>();
        want.put("a", Arrays.asList(new BigDecimal("1"), new BigDecimal("-2.5e3"), "xé\n\""));
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("c", null);
        b.put("d", false);
        want.put("b", b);
        want.put("e", new BigDecimal("12345678901234567890"));
        assertEquals(want, v);
        for (String bad : new String[] {"", "{", "[1,]", "{\"a\" 1}", "\"open", "tru", "1 2", "{\"a\":1,}"}) {
            assertThrows(IllegalArgumentException.class, () -> Json.parse(bad), bad);
        }
    }
}
