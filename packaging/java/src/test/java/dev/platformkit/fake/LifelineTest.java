package dev.platformkit.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The process never outlives its JVM: close() stops it, and so does the JVM's death by SIGKILL. */
class LifelineTest {
    @Test
    void closeStopsTheProcess() {
        FakeServer s = FakeServer.start();
        assertTrue(s.isAlive());
        s.close();
        assertFalse(s.isAlive());
    }

    /** Started by the next test in a JVM of its own: starts a server, says so, and waits to be killed. */
    public static void main(String[] args) throws Exception {
        FakeServer s = FakeServer.start();
        System.out.println("started " + s.url());
        System.out.flush();
        Thread.sleep(60_000);
    }

    @Test
    void theProcessDiesWithAKilledJvm() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process jvm = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"), LifelineTest.class.getName())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            String line = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertTrue(line != null && line.startsWith("started http://"), String.valueOf(line));
            List<ProcessHandle> fakes = jvm.toHandle().children().toList();
            assertEquals(1, fakes.size(), "the JVM's children");
            ProcessHandle fake = fakes.get(0);
            jvm.destroyForcibly(); // SIGKILL: no shutdown hook runs
            jvm.waitFor(10, TimeUnit.SECONDS);
            fake.onExit().get(10, TimeUnit.SECONDS); // throws TimeoutException if it outlives its JVM
            assertFalse(fake.isAlive());
        } finally {
            jvm.destroyForcibly();
        }
    }
}
