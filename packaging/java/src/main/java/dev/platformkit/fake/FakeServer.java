package dev.platformkit.fake;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A platformfake process on a free loopback port, started by {@link #start}, or a server already
 * running ({@link #connect}). {@link PlatformFake} starts one per test run and shares it; use
 * this class directly outside JUnit:
 *
 * <pre>{@code
 * try (FakeServer server = FakeServer.start()) {
 *     FakeNamespace fake = server.newNamespace("my-test");
 *     // give fake.baseUrl() and fake.apiKey() to a client
 * }
 * }</pre>
 *
 * <p>The process never outlives this JVM, however the JVM ends: its stdin is a pipe only this JVM
 * holds, and it stops when the pipe closes ({@code -exit-on-stdin-eof}); {@link #close()} and a
 * shutdown hook also stop it.
 */
public final class FakeServer implements AutoCloseable {
    private static final AtomicLong COUNTER = new AtomicLong();
    private static final Object BINARY_LOCK = new Object();
    private static Path extracted;

    private final String url;
    private final Process process;
    private final Path stderr;
    private final Thread hook;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private FakeServer(String url, Process process, Path stderr) {
        this.url = url.replaceAll("/+$", "");
        this.process = process;
        this.stderr = stderr;
        this.hook = process == null ? null : new Thread(this::stop, "platformfake-stop");
        if (hook != null) {
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }

    /**
     * Starts platformfake ({@link #binary()}) with {@code -addr 127.0.0.1:0 -quiet
     * -exit-on-stdin-eof} and the flags given ({@code "-wall-clock"}, {@code "-fixtures", dir},
     * ...), and waits until it answers its health check. With {@code $PLATFORMFAKE_URL} set,
     * nothing is started: the server running there is used, and {@link #close()} leaves it running.
     */
    public static FakeServer start(String... flags) {
        String running = System.getenv("PLATFORMFAKE_URL");
        if (running != null && !running.isEmpty()) {
            return connect(running);
        }
        Path binary = binary();
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "-addr", "127.0.0.1:0", "-quiet", "-exit-on-stdin-eof"));
        cmd.addAll(List.of(flags));
        Process p;
        Path errors;
        try {
            // Its stderr goes to a file, so that a server that does not start says why, and one
            // that logs a lot never blocks on a full pipe.
            errors = Files.createTempFile("platformfake-", ".log");
            errors.toFile().deleteOnExit();
            p = new ProcessBuilder(cmd).redirectError(errors.toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("starting " + String.join(" ", cmd) + ": " + e.getMessage(), e);
        }
        InputStream out = p.getInputStream();
        BufferedReader lines = new BufferedReader(new InputStreamReader(out, StandardCharsets.UTF_8));
        String first;
        try {
            first = CompletableFuture.supplyAsync(() -> {
                try {
                    return lines.readLine();
                } catch (IOException e) {
                    return null;
                }
            }).get(10, TimeUnit.SECONDS);
        } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
            first = null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            first = null;
        }
        if (first == null || !first.startsWith("listening on ")) {
            p.destroyForcibly();
            String why = "";
            try {
                p.waitFor(5, TimeUnit.SECONDS);
                why = Files.readString(errors).strip();
            } catch (IOException | InterruptedException e) {
                why = e.toString();
            }
            throw new IllegalStateException(String.join(" ", cmd) + " did not start within 10 s"
                    + (p.isAlive() ? "" : " (exit status " + p.exitValue() + ")") + ": "
                    + (why.isEmpty() ? (first == null ? "no output" : first) : why));
        }
        Thread drain = new Thread(() -> {
            try {
                lines.transferTo(java.io.Writer.nullWriter());
            } catch (IOException e) {
                // the process ended
            }
        }, "platformfake-stdout");
        drain.setDaemon(true);
        drain.start();
        FakeServer server = new FakeServer(first.substring("listening on ".length()).strip(), p, errors);
        server.waitHealthy(Duration.ofSeconds(10));
        return server;
    }

    /** A server already running at url (http://host:port); {@link #close()} leaves it running. */
    public static FakeServer connect(String url) {
        FakeServer server = new FakeServer(url, null, null);
        server.waitHealthy(Duration.ofSeconds(10));
        return server;
    }

    /**
     * The platformfake binary {@link #start} runs: {@code -Dplatformfake.binary}, else
     * {@code $PLATFORMFAKE_BINARY}, else the one this jar carries for this machine (os-arch, as
     * Go names them), extracted once per JVM to a temporary file removed at exit.
     */
    public static Path binary() {
        for (String given : new String[] {System.getProperty("platformfake.binary"), System.getenv("PLATFORMFAKE_BINARY")}) {
            // A property Maven could not fill in arrives as its own ${...} text.
            if (given != null && !given.isBlank() && !given.startsWith("${")) {
                return Path.of(given);
            }
        }
        synchronized (BINARY_LOCK) {
            if (extracted != null) {
                return extracted;
            }
            String platform = platform();
            String file = platform.startsWith("windows-") ? "platformfake.exe" : "platformfake";
            String resource = "/dev/platformkit/fake/bin/" + platform + "/" + file;
            try (InputStream in = FakeServer.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("this platformkit-fake jar carries no platformfake for " + platform
                            + " (" + resource + "): build the jar on this machine (make java-helper in the platformkit"
                            + " checkout), or name a binary with -Dplatformfake.binary=PATH or PLATFORMFAKE_BINARY");
                }
                Path dir = Files.createTempDirectory("platformfake-");
                dir.toFile().deleteOnExit();
                Path bin = dir.resolve(file);
                Files.copy(in, bin, StandardCopyOption.REPLACE_EXISTING);
                bin.toFile().deleteOnExit();
                if (!bin.toFile().setExecutable(true, true)) {
                    throw new IOException("cannot make " + bin + " executable");
                }
                extracted = bin;
                return bin;
            } catch (IOException e) {
                throw new UncheckedIOException("extracting " + resource + ": " + e.getMessage(), e);
            }
        }
    }

    /** This machine as Go names it: linux-amd64, darwin-arm64, windows-amd64, ... */
    static String platform() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String goos = os.startsWith("windows") ? "windows" : os.startsWith("mac") || os.startsWith("darwin") ? "darwin" : os;
        String goarch = Map.of("x86_64", "amd64", "amd64", "amd64", "aarch64", "arm64", "arm64", "arm64").getOrDefault(arch, arch);
        return goos + "-" + goarch;
    }

    /** The server's root URL, e.g. {@code http://127.0.0.1:40123}, no trailing slash. */
    public String url() {
        return url;
    }

    /** The namespace of this name (1 to 64 of A-Z a-z 0-9 . _ -). */
    public FakeNamespace namespace(String name) {
        return new FakeNamespace(url, name, http);
    }

    /**
     * A fresh namespace named after label (a test's name): the label in the fake's alphabet, cut
     * to fit, and made unique by this JVM's process ID and a counter, so that two tests with the
     * same label, in this JVM or another sharing the server, never share a namespace.
     */
    public FakeNamespace newNamespace(String label) {
        String suffix = "-" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
        String base = label.replaceAll("[^A-Za-z0-9._-]+", "-").replaceAll("^[-.]+|[-.]+$", "");
        if (base.isEmpty()) {
            base = "test";
        }
        return namespace(base.substring(0, Math.min(base.length(), 64 - suffix.length())) + suffix);
    }

    /** Waits until GET /_fake/health answers ok. */
    public void waitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        FakeNamespace root = new FakeNamespace(url, "health", http);
        while (true) {
            try {
                Object health = root.request(url, "GET", "/_fake/health", null);
                if (health instanceof Map && "ok".equals(((Map<?, ?>) health).get("status"))) {
                    return;
                }
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(url + "/_fake/health did not answer ok within " + timeout.toMillis() + " ms", e);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(url + "/_fake/health did not answer ok within " + timeout.toMillis() + " ms");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    /** Whether the process start() started is running (true for a server connect() named). */
    public boolean isAlive() {
        return process == null || process.isAlive();
    }

    /**
     * Stops a process {@link #start} started, gracefully (its stdin closed, which it stops on; killed
     * if it has not ended within 10 s); leaves a server {@link #connect} named running.
     */
    @Override
    public void close() {
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs stop() itself
            }
        }
        stop();
    }

    private void stop() {
        if (process == null || !process.isAlive()) {
            return;
        }
        try {
            process.getOutputStream().close(); // the end of its stdin: a graceful stop
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            try {
                Files.deleteIfExists(stderr);
            } catch (IOException e) {
                // deleteOnExit removes it
            }
        }
    }

    @Override
    public String toString() {
        return "FakeServer(" + url + ")";
    }
}
