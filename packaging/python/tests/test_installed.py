"""The installed platformkit-fake wheel and its pytest plugin, under pytest, as a user's test run
meets them: run from a virtual environment the wheel and pytest were installed into, with no
conftest.py (the fixtures come from the wheel's pytest11 entry point)."""

import concurrent.futures
import importlib.metadata
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

import platformkit_fake

MESSAGE = {"model": "assistant-opus-4-7", "max_tokens": 64, "messages": [{"role": "user", "content": "Hello"}]}


def post_message(ns, body=MESSAGE, headers=None):
    """POST /v1/messages in ns with a plain HTTP client: (status, headers, decoded body)."""
    req = urllib.request.Request(ns.base_url + "/v1/messages", data=json.dumps(body).encode(), method="POST",
                                 headers={**ns.headers(), "content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers, json.load(resp)
    except urllib.error.HTTPError as e:
        return e.code, e.headers, json.loads(e.read())


def port_open(base_url):
    """Whether the server at base_url accepts a TCP connection."""
    u = urllib.parse.urlsplit(base_url)
    try:
        socket.create_connection((u.hostname, u.port), timeout=0.2).close()
        return True
    except OSError:
        return False


def test_binary_is_the_wheels_own():
    path = platformkit_fake.binary_path()
    assert path.startswith(os.path.dirname(platformkit_fake.__file__)), path
    assert os.access(path, os.X_OK), "pip must keep the binary executable: " + path


def test_console_script():
    script = shutil.which("platformfake", path=sysconfig.get_path("scripts"))
    assert script, "the wheel's platformfake command is not in " + sysconfig.get_path("scripts")
    out = subprocess.run([script, "-version"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("platformfake ") and out.split()[1][0].isdigit(), out


def test_entry_point_registers_the_plugin(pytestconfig):
    eps = importlib.metadata.entry_points(group="pytest11")
    assert "platformkit_fake.pytest_plugin" in [ep.value for ep in eps]
    assert pytestconfig.pluginmanager.has_plugin("platformkit_fake")  # the entry point's name


def test_fixture_scopes(request):
    defs = request._fixturemanager.getfixturedefs("fake", request.node)
    server_defs = request._fixturemanager.getfixturedefs("platformfake_server", request.node)
    assert [d.scope for d in defs] == ["function"]
    assert [d.scope for d in server_defs] == ["session"]


def test_stub(fake):
    fake.add_stub(replies=[{"content": [{"type": "text", "text": "scripted"}]}])
    status, _, body = post_message(fake)
    assert status == 200
    assert body["content"][0]["text"] == "scripted"


def test_each_test_has_its_own_namespace(fake, platformfake_server):
    assert fake.journal() == []
    assert fake.advance_clock(60)["now"] == "2026-01-01T00:01:00Z"
    assert fake.base_url.startswith(platformfake_server.base_url + "/ns/")
    assert "test_each_test_has_its_own_namespace" in fake.name


def test_two_namespaces_concurrently(platformfake_server):
    """Stub in one, fault in the other, at the same time: neither sees the other's."""
    gen_a = platformkit_fake.namespace_for_test(platformfake_server, "tests/test_a.py::test_one")
    gen_b = platformkit_fake.namespace_for_test(platformfake_server, "tests/test_a.py::test_one")
    a, b = next(gen_a), next(gen_b)
    assert a.name != b.name, "the same test label twice must get two namespaces"
    assert a.add_stub(replies=[{"content": [{"type": "text", "text": "scripted for a"}]}])["id"].startswith("stub_")
    assert b.inject_fault(path="/v1/messages", status=529, retry_after=3)["id"].startswith("fault_")

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        got_a, got_b = pool.map(post_message, [a, b])
    assert got_a[0] == 200 and got_a[2]["content"][0]["text"] == "scripted for a"
    assert got_b[0] == 529 and got_b[2]["error"]["type"] == "overloaded_error"

    # The fault was used up; b's next message is the scripted model's, with b's first ID.
    status, _, msg = post_message(b)
    assert status == 200
    assert msg["id"] == "msg_010000000000000000000001"
    assert [e["status"] for e in b.journal()] == [529, 200]
    assert len(a.journal()) == 1

    assert a.now() == "2026-01-01T00:00:00Z"
    assert a.advance_clock(3600)["now"] == "2026-01-01T01:00:00Z"
    assert b.now() == "2026-01-01T00:00:00Z"
    assert a.reset()["now"] == "2026-01-01T00:00:00Z"
    assert a.journal() == []

    # Rate limits: on in a only, one request taken from its organization's bucket.
    assert a.set_rate_limits(True)["enforce"]
    post_message(a)
    requests = [k for k in a.rate_limits()["buckets"] if k["limiter"] == "requests_per_minute"]
    assert requests[0]["remaining"] == 3999
    assert not b.rate_limits()["enforce"]

    names = lambda: [n["name"] for n in platformfake_server.namespace("probe")._server.call("GET", "/_fake/namespaces")["data"]]
    assert a.name in names()
    gen_a.close()
    gen_b.close()
    assert a.name not in names(), "the namespace outlived its test"


def test_retry_after_scale(fake):
    """A 429 asking for 2 s says 2 ms under the scale 0.001, the true 2000 in fake-retry-after-ms;
    the retry (x-stainless-retry-count: 1) arrives at 00:00:02."""
    assert fake.retry_after_scale() == 1
    assert fake.set_retry_after_scale(0.001) == 0.001
    fake.inject_fault(path="/v1/messages", status=429, retry_after=2)
    status, headers, _ = post_message(fake, headers={"x-stainless-retry-count": "0"})
    assert (status, headers["retry-after-ms"], headers["retry-after"], headers["fake-retry-after-ms"]) == (429, "2", "1", "2000")
    status, _, _ = post_message(fake, headers={"x-stainless-retry-count": "1"})
    assert status == 200
    assert fake.now() == "2026-01-01T00:00:02Z"
    with pytest.raises(platformkit_fake.FakeError) as err:
        fake.set_retry_after_scale(0)
    assert err.value.status == 400 and err.value.message.startswith("scale: ")


def test_refusals_name_the_field(platformfake_server):
    ns = platformfake_server.namespace()
    with pytest.raises(platformkit_fake.FakeError) as err:
        ns.inject_fault(status=418)
    assert err.value.status == 400
    assert "status" in err.value.message
    with pytest.raises(ValueError):
        platformfake_server.namespace("has space")


def test_namespace_names():
    name = platformkit_fake.namespace_name("tests/test_x.py::test_y[a b/" + "z" * 80 + "]")
    assert len(name) <= 64
    assert name.startswith("tests-test_x.py-test_y-a-b-zzz")
    assert platformkit_fake.namespace_name("...").startswith("test-")


def test_start_failure_says_why(monkeypatch):
    monkeypatch.delenv("PLATFORMFAKE_URL", raising=False)
    with pytest.raises(RuntimeError) as err:
        platformkit_fake.FakeServer.start("-max-namespaces", "0")
    assert "-max-namespaces: want at least 1" in str(err.value)


def test_start_uses_the_server_at_platformfake_url(platformfake_server, monkeypatch):
    """FakeServer.start() with PLATFORMFAKE_URL set starts nothing: it is that server, and stop()
    leaves it running."""
    monkeypatch.setenv("PLATFORMFAKE_URL", platformfake_server.base_url)
    server = platformkit_fake.FakeServer.start()
    assert server.base_url == platformfake_server.base_url
    assert server._process is None
    server.stop()
    assert platformfake_server.namespace().now() == "2026-01-01T00:00:00Z"


def test_stop_ends_the_process(monkeypatch):
    monkeypatch.delenv("PLATFORMFAKE_URL", raising=False)
    server = platformkit_fake.FakeServer.start()
    proc = server._process
    assert port_open(server.base_url)
    server.stop()
    assert proc.returncode == 0, "stop() is graceful: the fake exits 0 when its stdin closes"
    assert not port_open(server.base_url)


# A Python process that starts the fake with the helper (or the console script), says where it
# listens, and waits to be killed.
PARENT = """
import sys, time, platformkit_fake
server = platformkit_fake.FakeServer.start()
print(server.base_url, flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX; Windows' TerminateProcess closes the pipe the same way")
@pytest.mark.parametrize("how", ["FakeServer.start()", "platformfake command"])
def test_kill_9_of_the_parent_closes_the_port_within_a_second(how, monkeypatch):
    monkeypatch.delenv("PLATFORMFAKE_URL", raising=False)
    if how == "FakeServer.start()":
        parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
        base_url = parent.stdout.readline().strip()
    else:
        script = shutil.which("platformfake", path=sysconfig.get_path("scripts"))
        parent = subprocess.Popen([script, "-addr", "127.0.0.1:0", "-quiet"], stdout=subprocess.PIPE, text=True)
        base_url = parent.stdout.readline().strip().removeprefix("listening on ")
    try:
        assert base_url.startswith("http://127.0.0.1:"), base_url
        assert port_open(base_url)
    finally:
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
    killed = time.monotonic()
    while port_open(base_url):
        assert time.monotonic() - killed < 1.0, "the fake outlived its parent by a second: " + base_url
        time.sleep(0.02)


def test_licence_metadata_is_the_licence_file():
    dist = importlib.metadata.distribution("platformkit-fake")
    licence = dist.read_text("LICENSE")
    assert licence.startswith("MIT License\n")
    assert dist.metadata["License"] == "MIT"
