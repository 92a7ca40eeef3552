"""The installed platformkit-fake wheel, as a user's test run meets it: standard library only, so
that it runs where pytest is not installed. Run from a virtual environment the wheel was
installed into: python -m unittest test_installed.py

The pytest plugin is loaded against a stand-in pytest module that records its fixtures, which
are then driven the way pytest drives them; pytest_suite/ runs the real thing where pytest is
installed.
"""

import concurrent.futures
import importlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import types
import unittest
import urllib.error
import urllib.request

import platformkit_fake

MESSAGE = {"model": "assistant-opus-4-7", "max_tokens": 64, "messages": [{"role": "user", "content": "Hello"}]}


def post_message(ns, body=MESSAGE):
    """POST /v1/messages in ns with a plain HTTP client: (status, decoded body)."""
    req = urllib.request.Request(ns.base_url + "/v1/messages", data=json.dumps(body).encode(), method="POST",
                                 headers={**ns.headers(), "content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class FakePytest(types.ModuleType):
    """Enough of pytest for the plugin module to load: fixture() records each fixture and its scope."""

    def __init__(self):
        super().__init__("pytest")
        self.fixtures = {}

    def fixture(self, fn=None, *, scope="function"):
        def register(f):
            self.fixtures[f.__name__] = (f, scope)
            return f
        return register(fn) if fn is not None else register


class InstalledWheel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.session = platformkit_fake.session_server()
        cls.server = next(cls.session)

    @classmethod
    def tearDownClass(cls):
        cls.session.close()

    def test_binary_is_the_wheels_own(self):
        path = platformkit_fake.binary_path()
        self.assertTrue(path.startswith(os.path.dirname(platformkit_fake.__file__)), path)
        self.assertTrue(os.access(path, os.X_OK), "pip must keep the binary executable: " + path)

    def test_console_script(self):
        script = shutil.which("platformfake", path=sysconfig.get_path("scripts"))
        self.assertIsNotNone(script, "the wheel's platformfake command is not in " + sysconfig.get_path("scripts"))
        out = subprocess.run([script, "-version"], capture_output=True, text=True, check=True).stdout
        self.assertRegex(out, r"^platformfake \d+\.\d+\.\d+")

    def test_entry_points(self):
        eps = importlib.metadata.entry_points()
        selected = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
        self.assertIn("platformkit_fake.pytest_plugin", [ep.value for ep in selected])

    def test_two_namespaces_concurrently(self):
        """Stub in one, fault in the other, at the same time: neither sees the other's."""
        gen_a = platformkit_fake.namespace_for_test(self.server, "tests/test_a.py::test_one")
        gen_b = platformkit_fake.namespace_for_test(self.server, "tests/test_a.py::test_one")
        a, b = next(gen_a), next(gen_b)
        self.assertNotEqual(a.name, b.name, "the same test label twice must get two namespaces")
        stub = a.add_stub(replies=[{"content": [{"type": "text", "text": "scripted for a"}]}])
        self.assertTrue(stub["id"].startswith("stub_"), stub)
        fault = b.inject_fault(path="/v1/messages", status=529, retry_after=3)
        self.assertTrue(fault["id"].startswith("fault_"), fault)

        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            got_a, got_b = pool.map(post_message, [a, b])
        self.assertEqual(got_a[0], 200, got_a)
        self.assertEqual(got_a[1]["content"][0]["text"], "scripted for a")
        self.assertEqual(got_b[0], 529, got_b)
        self.assertEqual(got_b[1]["error"]["type"], "overloaded_error")

        # The fault was used up; b's next message is the scripted model's, with b's first ID.
        status, msg = post_message(b)
        self.assertEqual(status, 200)
        self.assertEqual(msg["id"], "msg_010000000000000000000001")
        journal = b.journal()
        self.assertEqual([e["status"] for e in journal], [529, 200])
        self.assertEqual(len(a.journal()), 1)

        self.assertEqual(a.now(), "2026-01-01T00:00:00Z")
        self.assertEqual(a.advance_clock(3600)["now"], "2026-01-01T01:00:00Z")
        self.assertEqual(b.now(), "2026-01-01T00:00:00Z")
        self.assertEqual(a.reset()["now"], "2026-01-01T00:00:00Z")
        self.assertEqual(a.journal(), [])

        # Rate limits: on in a only, one request taken from its organization's bucket.
        self.assertTrue(a.set_rate_limits(True)["enforce"])
        post_message(a)
        requests = [k for k in a.rate_limits()["buckets"] if k["limiter"] == "requests_per_minute"]
        self.assertEqual(requests[0]["remaining"], 3999)
        self.assertFalse(b.rate_limits()["enforce"])

        names = [n["name"] for n in self.server.namespace("probe")._server.call("GET", "/_fake/namespaces")["data"]]
        self.assertIn(a.name, names)
        gen_a.close()
        gen_b.close()
        names = [n["name"] for n in self.server.namespace("probe")._server.call("GET", "/_fake/namespaces")["data"]]
        self.assertNotIn(a.name, names, "the namespace outlived its test")

    def test_refusals_name_the_field(self):
        ns = self.server.namespace()
        with self.assertRaises(platformkit_fake.FakeError) as cm:
            ns.inject_fault(status=418)
        self.assertEqual(cm.exception.status, 400)
        self.assertIn("status", cm.exception.message)
        with self.assertRaises(ValueError):
            self.server.namespace("has space")

    def test_namespace_names(self):
        name = platformkit_fake.namespace_name("tests/test_x.py::test_y[a b/" + "z" * 80 + "]")
        self.assertLessEqual(len(name), 64)
        self.assertRegex(name, r"^tests-test_x\.py-test_y-a-b-z+-\d+-\d+$")
        self.assertRegex(platformkit_fake.namespace_name("..."), r"^test-\d+-\d+$")

    def test_start_failure_says_why(self):
        with self.assertRaises(RuntimeError) as cm:
            platformkit_fake.FakeServer.start("-max-namespaces", "0")
        self.assertIn("-max-namespaces: want at least 1", str(cm.exception))


class PythonExample(unittest.TestCase):
    """examples/python-pytest, its test functions given their fixture as pytest would give it."""

    def test_example(self):
        example = os.environ.get("EXAMPLE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "python-pytest")
        sys.path.insert(0, os.path.abspath(example))
        try:
            module = importlib.import_module("test_client")
        finally:
            sys.path.pop(0)
        tests = [(name, fn) for name, fn in vars(module).items() if name.startswith("test_") and callable(fn)]
        self.assertGreaterEqual(len(tests), 4, "found no tests in " + example)
        session = platformkit_fake.session_server()
        server = next(session)
        try:
            for name, fn in tests:
                with self.subTest(name):
                    per_test = platformkit_fake.namespace_for_test(server, "test_client.py::" + name)
                    try:
                        fn(next(per_test))
                    finally:
                        per_test.close()
        finally:
            session.close()


class Plugin(unittest.TestCase):
    def test_fixtures_as_pytest_drives_them(self):
        stand_in = FakePytest()
        saved = sys.modules.get("pytest")
        sys.modules["pytest"] = stand_in
        try:
            sys.modules.pop("platformkit_fake.pytest_plugin", None)
            importlib.import_module("platformkit_fake.pytest_plugin")
        finally:
            if saved is None:
                del sys.modules["pytest"]
            else:
                sys.modules["pytest"] = saved
        (server_fn, server_scope), (fake_fn, fake_scope) = stand_in.fixtures["platformfake_server"], stand_in.fixtures["fake"]
        self.assertEqual(server_scope, "session")
        self.assertEqual(fake_scope, "function")

        session = server_fn()
        server = next(session)
        request = types.SimpleNamespace(node=types.SimpleNamespace(nodeid="test_plugin.py::test_stub"))
        per_test = fake_fn(server, request)
        fake = next(per_test)
        self.assertTrue(fake.base_url.startswith(server.base_url + "/ns/test_plugin.py-test_stub-"), fake.base_url)
        fake.add_stub({"match": {"user_text_contains": "Hello"}}, replies=[{"content": [{"type": "text", "text": "hi"}]}])
        self.assertEqual(post_message(fake)[1]["content"][0]["text"], "hi")
        per_test.close()
        process = server._process
        session.close()
        self.assertIsNotNone(process.poll(), "the session's server is still running after the session")


if __name__ == "__main__":
    unittest.main()
