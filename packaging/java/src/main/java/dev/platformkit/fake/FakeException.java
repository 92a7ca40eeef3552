package dev.platformkit.fake;

/**
 * A control call the fake refused: its HTTP status, and the error envelope's type and message
 * (which names the offending field, e.g. {@code replies.0.content.0.input: field required}).
 */
public final class FakeException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String type;
    private final String detail;

    FakeException(String method, String path, int status, String type, String detail) {
        super(method + " " + path + ": " + status + " " + type + ": " + detail);
        this.status = status;
        this.type = type;
        this.detail = detail;
    }

    /** The HTTP status: 400 for a body the fake refuses. */
    public int status() {
        return status;
    }

    /** The error envelope's type, e.g. {@code invalid_request_error}. */
    public String type() {
        return type;
    }

    /** The error envelope's message. */
    public String detail() {
        return detail;
    }
}
