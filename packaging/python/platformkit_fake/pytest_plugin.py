"""The pytest plugin of platformkit-fake, registered through the ``pytest11`` entry point.

Fixtures:

``platformfake_server`` (session)
    One platformfake process for the whole session, on a free loopback port (or the server at
    ``$PLATFORMFAKE_URL``). A ``platformkit_fake.FakeServer``.

``fake`` (per test)
    A namespace of that server of the test's own: ``fake.base_url``, ``fake.reset()``,
    ``fake.advance_clock(seconds)``, ``fake.add_stub(...)``, ``fake.inject_fault(...)``,
    ``fake.journal()``. Dropped when the test ends. A ``platformkit_fake.Namespace``.
"""

import pytest

import platformkit_fake


@pytest.fixture(scope="session")
def platformfake_server():
    yield from platformkit_fake.session_server()


@pytest.fixture
def fake(platformfake_server, request):
    yield from platformkit_fake.namespace_for_test(platformfake_server, request.node.nodeid)
