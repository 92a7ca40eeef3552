"""The platformkit fake Platform API server for Python tests: start it, give each test a namespace.

One server serves a whole test run; each test takes a namespace of its own (its own data, virtual
clock, ID counters, journal, faults and stubs) that no other test sees::

    from platformkit_fake import FakeServer

    with FakeServer.start() as server:
        fake = server.namespace("my-test")
        fake.inject_fault(path="/v1/messages", status=529)
        # point a client at fake.base_url with fake.API_KEY ...

With pytest, the plugin this package registers does that for you: the ``fake`` fixture is a
namespace of one server per session (see ``platformkit_fake.pytest_plugin``).

Standard library only. The binary is the one this wheel carries; ``PLATFORMFAKE_BINARY`` names
another, and ``PLATFORMFAKE_URL`` makes ``FakeServer.start()`` (and so the plugin) use a server
already running there instead of starting one.
"""

import atexit
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = [
    "API_KEY", "ADMIN_API_KEY", "VERSION_HEADER", "FakeError", "FakeServer", "Namespace",
    "binary_path", "namespace_name",
]

#: The fake's default credentials and the version header every API request needs.
API_KEY = "test-api-key"
ADMIN_API_KEY = "test-admin-key"
VERSION_HEADER = {"vendor-version": "2023-06-01"}


class FakeError(Exception):
    """A control call the fake refused: its HTTP status and the error envelope's type and message."""

    def __init__(self, method, path, status, error_type, message):
        super().__init__("%s %s: %d %s: %s" % (method, path, status, error_type, message))
        self.status = status
        self.type = error_type
        self.message = message


def binary_path():
    """The platformfake binary to run: $PLATFORMFAKE_BINARY, else the one in this package."""
    override = os.environ.get("PLATFORMFAKE_BINARY")
    if override:
        return override
    name = "platformfake.exe" if sys.platform == "win32" else "platformfake"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", name)
    if not os.path.exists(path):
        raise FileNotFoundError(
            "%s is missing: install the platformkit-fake wheel built for this platform, "
            "or set PLATFORMFAKE_BINARY to a platformfake binary" % path)
    return path


_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_counter = itertools.count(1)


def namespace_name(label):
    """A namespace name from any label (a test's node ID): the fake's alphabet, at most 64
    characters, made unique in this process by a counter so that two tests with the same label
    (or one run twice) never share a namespace."""
    suffix = "-%d-%d" % (os.getpid(), next(_counter))
    base = _NAME_UNSAFE.sub("-", label).strip("-.") or "test"
    return base[: 64 - len(suffix)] + suffix


class _Client:
    """JSON over HTTP to one base URL, with the control API's errors raised as FakeError."""

    def __init__(self, base_url, timeout):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + path, data=data, method=method)
        if data is not None:
            req.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.load(resp)
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                err = json.loads(raw)["error"]
                error_type, message = err["type"], err["message"]
            except (ValueError, KeyError, TypeError):
                error_type, message = "unknown", raw.decode("utf-8", "replace")
            raise FakeError(method, path, e.code, error_type, message) from None


class Namespace:
    """One test's namespace of a server: its API at ``base_url``, and its control calls.

    Every call reaches only this namespace; none changes what another namespace answers.
    """

    API_KEY = API_KEY
    ADMIN_API_KEY = ADMIN_API_KEY
    VERSION_HEADER = VERSION_HEADER

    def __init__(self, server_url, name, timeout=30.0):
        if not name or len(name) > 64 or _NAME_UNSAFE.search(name) or name in (".", ".."):
            raise ValueError("namespace name %r: want 1 to 64 of A-Z a-z 0-9 . _ -, neither . nor .." % (name,))
        self.name = name
        self.server_url = server_url.rstrip("/")
        #: The base URL to give a client: the namespace's prefix of the API.
        self.base_url = "%s/ns/%s" % (self.server_url, name)
        self._client = _Client(self.base_url, timeout)
        self._server = _Client(self.server_url, timeout)

    def __repr__(self):
        return "Namespace(%r)" % self.base_url

    def headers(self, admin=False):
        """The headers of an API request: the default key and the version header."""
        return {"x-api-key": ADMIN_API_KEY if admin else API_KEY, **VERSION_HEADER}

    def reset(self):
        """Back to the fixtures: data, clock, ID counters, journal, faults and stubs. Returns the clock."""
        return self._client.call("POST", "/_fake/reset")

    def now(self):
        """The namespace's virtual time, as RFC 3339."""
        return self._client.call("GET", "/_fake/clock")["now"]

    def advance_clock(self, seconds):
        """Move the virtual clock forward (0 to 100 years; fractions allowed). Returns the clock."""
        return self._client.call("POST", "/_fake/clock/advance", {"seconds": seconds})

    def add_stub(self, stub=None, **fields):
        """Script the replies of the next matching POST /v1/messages; returns the stub with its id.

        ``stub`` is the body of POST /_fake/messages/stubs (``match``, ``replies``, ``times`` or
        ``forever``); keyword arguments are merged into it.
        """
        return self._client.call("POST", "/_fake/messages/stubs", {**(stub or {}), **fields})

    def inject_fault(self, fault=None, **fields):
        """Make matching API requests fail; returns the fault with its id.

        ``fault`` is the body of POST /_fake/faults (``method``, ``path``, ``status``,
        ``retry_after``, ``latency_ms``, ``drop_connection``, ``stream_events``, ``times``);
        keyword arguments are merged into it: ``inject_fault(path="/v1/models*", status=429)``.
        """
        return self._client.call("POST", "/_fake/faults", {**(fault or {}), **fields})

    def rate_limits(self):
        """Whether this namespace enforces rate limits, and its buckets (GET /_fake/rate_limits)."""
        return self._client.call("GET", "/_fake/rate_limits")

    def set_rate_limits(self, enforce):
        """Turn rate-limit enforcement on (every bucket full) or off in this namespace."""
        return self._client.call("PUT", "/_fake/rate_limits", {"enforce": bool(enforce)})

    def retry_after_scale(self):
        """This namespace's retry-after scale (1: the true waits)."""
        return self._client.call("GET", "/_fake/retry_after")["scale"]

    def set_retry_after_scale(self, scale):
        """Make 429s and 529s ask for ``scale`` times their wait in retry-after-ms and retry-after
        (the true wait in fake-retry-after-ms), and move the virtual clock by the true wait when an
        official SDK's retry arrives: ``0.001`` makes an SDK's default retry of a rate limit take
        milliseconds. More than 0, at most 1, in whole millionths. Returns the scale set."""
        return self._client.call("PUT", "/_fake/retry_after", {"scale": scale})["scale"]

    def journal(self, limit=None, after_id=None, before_id=None):
        """The API requests this namespace answered, oldest first (a list of journal entries)."""
        query = {k: v for k, v in (("limit", limit), ("after_id", after_id), ("before_id", before_id)) if v is not None}
        path = "/_fake/journal" + ("?" + urllib.parse.urlencode(query) if query else "")
        return self._client.call("GET", path)["data"]

    def clear_journal(self):
        return self._client.call("DELETE", "/_fake/journal")["cleared"]

    def clear_faults(self):
        return self._client.call("DELETE", "/_fake/faults")["cleared"]

    def clear_stubs(self):
        return self._client.call("DELETE", "/_fake/messages/stubs")["cleared"]

    def delete(self):
        """Drop the namespace from its server (a test's teardown); a later request starts it afresh."""
        return self._server.call("DELETE", "/_fake/namespaces/" + urllib.parse.quote(self.name, safe=""))["cleared"]


class FakeServer:
    """A platformfake process (or a server already running, with ``FakeServer(url)``)."""

    def __init__(self, base_url, process=None, timeout=30.0):
        self.base_url = base_url.rstrip("/")
        self._process = process
        self._stderr = None
        self._timeout = timeout

    @classmethod
    def start(cls, *args, binary=None, start_timeout=10.0, log=False):
        """Start platformfake on a free loopback port and wait until it answers its health check.

        ``args`` are more flags (``"-wall-clock"``, ``"-fixtures", dir``, ...). ``log=True`` lets
        its request log through to this process's stderr. The process is stopped by ``stop()``,
        the context manager's exit, or this interpreter's exit, and it never outlives this
        process, however that ends (``kill -9`` included): its stdin is a pipe only this process
        holds, and it stops when the pipe closes (``-exit-on-stdin-eof``).

        With ``$PLATFORMFAKE_URL`` set, nothing is started: the server running there is used
        (``args``, ``binary`` and ``log`` do not apply to it) and ``stop()`` leaves it running.
        """
        url = os.environ.get("PLATFORMFAKE_URL")
        if url:
            server = cls(url)
            server.wait_healthy(start_timeout)
            return server
        cmd = [binary or binary_path(), "-addr", "127.0.0.1:0", "-exit-on-stdin-eof"]
        if not log:
            cmd.append("-quiet")
        cmd.extend(args)
        # Its stderr goes to a file, so that a server that does not start says why, and one that
        # logs a lot never blocks on a full pipe.
        errors = None if log else tempfile.TemporaryFile()
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
        line = []
        reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(start_timeout)
        first = line[0].decode("utf-8", "replace").strip() if line else ""
        if not first.startswith("listening on "):
            proc.kill()
            proc.wait()
            proc.stdin.close()
            proc.stdout.close()
            why = ""
            if errors is not None:
                errors.seek(0)
                why = errors.read().decode("utf-8", "replace").strip()
                errors.close()
            raise RuntimeError("%s did not start within %gs (exit status %s): %s" % (
                " ".join(cmd), start_timeout, proc.returncode, why or first or "no output"))
        server = cls(first[len("listening on "):], proc)
        server._stderr = errors
        atexit.register(server.stop)
        server.wait_healthy(start_timeout)
        return server

    def wait_healthy(self, timeout=10.0):
        """Wait until GET /_fake/health answers ok."""
        deadline = time.monotonic() + timeout
        client = _Client(self.base_url, 2.0)
        while True:
            try:
                if client.call("GET", "/_fake/health").get("status") == "ok":
                    return
            except (OSError, FakeError, ValueError):
                if time.monotonic() > deadline:
                    raise
            if time.monotonic() > deadline:
                raise RuntimeError("%s/_fake/health did not answer ok within %gs" % (self.base_url, timeout))
            time.sleep(0.05)

    def namespace(self, name=None):
        """A namespace of this server: ``name``, or a fresh unique one."""
        return Namespace(self.base_url, name or namespace_name("ns"), self._timeout)

    def stop(self, timeout=10.0):
        """Stop a process ``start()`` started, gracefully (its stdin closed, which it stops on, on
        every platform; killed if it has not ended within ``timeout``); a no-op otherwise."""
        proc, self._process = self._process, None
        if proc is None:
            return
        proc.stdin.close()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def session_server():
    """The session fixture's logic, as a generator: ``FakeServer.start()`` (the server at
    $PLATFORMFAKE_URL if set, not stopped afterwards; else a new platformfake process), stopped
    at the end."""
    server = FakeServer.start()
    try:
        yield server
    finally:
        server.stop()


def namespace_for_test(server, label):
    """The per-test fixture's logic, as a generator: a fresh namespace named after the test,
    dropped from the server when the test ends."""
    ns = server.namespace(namespace_name(label))
    try:
        yield ns
    finally:
        try:
            ns.delete()
        except (OSError, FakeError):
            pass  # the server is gone: nothing is left to drop


