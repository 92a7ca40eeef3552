package dev.platformkit.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fake's binary, started for a test class on a free loopback port with its stdin a pipe this
 * JVM holds (-exit-on-stdin-eof): it stops when close() ends the pipe, or when the JVM dies
 * however it dies. Each test takes a namespace of its own: namespace() answers its base URL.
 */
final class FakeServer implements AutoCloseable {
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private final Process process;
    final String url;
    private final HttpClient http = HttpClient.newHttpClient();

    private FakeServer(Process process, String url) {
        this.process = process;
        this.url = url;
    }

    static FakeServer start() throws IOException {
        String binary = System.getProperty("platformfake.binary");
        if (binary == null || binary.isEmpty() || binary.startsWith("${")) {
            binary = System.getenv("PLATFORMFAKE_BINARY");
        }
        if (binary == null || binary.isEmpty()) {
            throw new IllegalStateException("set -Dplatformfake.binary=PATH (or PLATFORMFAKE_BINARY) to a platformfake binary: go build ./fake/cmd/platformfake");
        }
        Process p = new ProcessBuilder(binary, "-addr", "127.0.0.1:0", "-quiet", "-exit-on-stdin-eof")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (line == null || !line.startsWith("listening on ")) {
            p.destroyForcibly();
            throw new IOException(binary + " did not start: first line " + line);
        }
        return new FakeServer(p, line.substring("listening on ".length()));
    }

    /** A new namespace's base URL: give it to the SDK as its base URL. */
    String namespace(String label) {
        return url + "/ns/" + label.replaceAll("[^A-Za-z0-9._-]+", "-") + "-" + COUNTER.incrementAndGet();
    }

    /** A control call (POST or GET under base + "/_fake/..."): the answer's body. */
    String control(String method, String base, String path, String json) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        b = json == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
                : b.header("content-type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        HttpResponse<String> resp = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
            throw new IOException(method + " " + path + ": " + resp.statusCode() + " " + resp.body());
        }
        return resp.body();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        process.getOutputStream().close(); // the end of its stdin: a graceful stop
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
