package dev.platformkit.fake;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The JUnit 5 extension: one platformfake for the whole test run, shared by every test class that
 * uses the extension, and a namespace of its own for each test.
 *
 * <pre>{@code
 * @ExtendWith(PlatformFake.class)   // or @PlatformFakeTest
 * class MyTest {
 *     @Test
 *     void answers(FakeNamespace fake) {
 *         fake.stub(Reply.text("Hello from the fake."));
 *         // a client built with fake.baseUrl() and fake.apiKey() gets that answer
 *     }
 * }
 * }</pre>
 *
 * <p>A parameter of type {@link FakeNamespace}, of a test method or of a {@code @BeforeEach} /
 * {@code @AfterEach} method, is the test's namespace (the same one in all three), named after the
 * test and dropped from the server when the test ends. A parameter of type {@link FakeServer}
 * (in {@code @BeforeAll} too) is the shared server. The server is started on first use, by
 * {@link FakeServer#start}, and stopped when the run ends; it never outlives the JVM, however
 * the JVM ends.
 */
public final class PlatformFake implements ParameterResolver {
    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(PlatformFake.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == FakeNamespace.class || type == FakeServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        if (parameter.getParameter().getType() == FakeServer.class) {
            return server(context);
        }
        if (context.getTestMethod().isEmpty()) {
            throw new ParameterResolutionException("a FakeNamespace is a test's: take it in a @Test, @BeforeEach or @AfterEach method"
                    + " (a FakeServer in @BeforeAll, and its newNamespace, for one shared by a class)");
        }
        return context.getStore(STORE).getOrComputeIfAbsent("namespace",
                k -> new TestNamespace(server(context).newNamespace(label(context))), TestNamespace.class).namespace;
    }

    /** The run's server: the root context's, started on first use and closed when the run ends. */
    static FakeServer server(ExtensionContext context) {
        return context.getRoot().getStore(STORE).getOrComputeIfAbsent("server",
                k -> new RunServer(FakeServer.start()), RunServer.class).server;
    }

    private static String label(ExtensionContext context) {
        return context.getRequiredTestClass().getSimpleName() + "-" + context.getRequiredTestMethod().getName();
    }

    private static final class RunServer implements ExtensionContext.Store.CloseableResource {
        final FakeServer server;

        RunServer(FakeServer server) {
            this.server = server;
        }

        @Override
        public void close() {
            server.close();
        }
    }

    private static final class TestNamespace implements ExtensionContext.Store.CloseableResource {
        final FakeNamespace namespace;

        TestNamespace(FakeNamespace namespace) {
            this.namespace = namespace;
        }

        @Override
        public void close() {
            try {
                namespace.delete();
            } catch (RuntimeException e) {
                // the server is gone: nothing is left to drop
            }
        }
    }
}
