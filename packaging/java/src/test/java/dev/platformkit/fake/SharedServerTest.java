package dev.platformkit.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A second class of the run: it gets the server the first started (the root store's). */
@PlatformFakeTest
class SharedServerTest {
    @Test
    void oneServerPerRun(FakeServer server, FakeNamespace fake) {
        ExtensionTest.SERVERS.add(server.url());
        assertEquals(1, ExtensionTest.SERVERS.size(), ExtensionTest.SERVERS.toString());
        assertTrue(fake.baseUrl().startsWith(server.url() + "/ns/SharedServerTest-oneServerPerRun-"), fake.baseUrl());
    }
}
