"""The client, tested against the fake through the platformkit-fake pytest plugin: the `fake`
fixture is this test's own namespace of one server per session. No conftest.py is needed."""

import urllib.error

from client import Client


def client_for(fake):
    return Client(fake.base_url, fake.API_KEY, headers=fake.VERSION_HEADER)


def test_scripted_reply(fake):
    fake.add_stub(match={"user_text_contains": "capital"}, replies=[{"content": [{"type": "text", "text": "Paris."}]}])
    assert client_for(fake).ask("What is the capital of France?") == "Paris."


def test_retries_an_overloaded_answer(fake):
    fake.inject_fault(path="/v1/messages", status=529, retry_after=0, times=2)
    assert client_for(fake).ask("Hello")  # the scripted model answers the third attempt
    assert [e["status"] for e in fake.journal()] == [529, 529, 200]


def test_gives_up_after_its_retries(fake):
    fake.inject_fault(path="/v1/messages", status=429, retry_after=0, times=5)
    try:
        client_for(fake).ask("Hello")
    except urllib.error.HTTPError as e:
        assert e.code == 429
    else:
        raise AssertionError("the client did not give up")
    assert len(fake.journal()) == 3


def test_namespaces_do_not_share_state(fake):
    # Another test's faults and stubs are not here, and this test's clock is its own.
    assert fake.journal() == []
    assert fake.advance_clock(86400)["now"] == "2026-01-02T00:00:00Z"
