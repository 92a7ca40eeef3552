"""The plugin under real pytest (run only where pytest is installed): the fixtures come from the
pytest11 entry point, with no conftest.py."""

import json
import urllib.request


def test_stub(fake):
    fake.add_stub(replies=[{"content": [{"type": "text", "text": "scripted"}]}])
    req = urllib.request.Request(fake.base_url + "/v1/messages", method="POST", headers={**fake.headers(), "content-type": "application/json"},
                                 data=json.dumps({"model": "assistant-opus-4-7", "max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}]}).encode())
    with urllib.request.urlopen(req) as resp:
        assert json.load(resp)["content"][0]["text"] == "scripted"


def test_each_test_has_its_own_namespace(fake, platformfake_server):
    assert fake.journal() == []
    assert fake.advance_clock(60)["now"] == "2026-01-01T00:01:00Z"
    assert fake.base_url.startswith(platformfake_server.base_url + "/ns/")
