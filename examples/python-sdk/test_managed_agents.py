"""Managed agents with the official Python SDK (anthropic 2.x), unmodified, against the fake: an
agent, a session in a self-hosted environment, its events, and the SDK's own EnvironmentWorker
serving the session end to end. The 1.x line has no managed agents: skipped there."""

import asyncio
import os
import tempfile
import time

import anthropic
import pytest
from anthropic import Anthropic, AsyncAnthropic

pytestmark = pytest.mark.skipif(not anthropic.__version__.startswith("2."), reason="managed agents are in the 2.x SDK")

ENVIRONMENT = "env_01AcmePrimary000000000001"  # the fixtures' self-hosted environment
ENVIRONMENT_KEY = "test-environment-key"  # its key, as its worker holds it


def test_agent_versions(fake):
    client = Anthropic(base_url=fake.base_url, api_key=fake.API_KEY)
    agent = client.beta.agents.create(name="helper", model="assistant-sonnet-4-5", tools=[{"type": "agent_toolset_20260401"}])
    assert agent.version == 1
    assert agent.tools[0].default_config.enabled
    same = client.beta.agents.update(agent.id, version=1, name="helper")
    assert same.version == 1  # nothing changed: no new version
    changed = client.beta.agents.update(agent.id, version=1, system="Be brief.")
    assert changed.version == 2
    assert client.beta.agents.retrieve(agent.id, version=1).system is None
    assert [a.version for a in client.beta.agents.versions.list(agent.id)] == [2, 1]


def test_session_events(fake):
    client = Anthropic(base_url=fake.base_url, api_key=fake.API_KEY)
    env = client.beta.environments.create(name="cloud", config={"type": "cloud"})
    agent = client.beta.agents.create(name="helper", model={"id": "assistant-sonnet-4-5"})
    session = client.beta.sessions.create(agent=agent.id, environment_id=env.id)
    assert session.status == "idle"
    client.beta.sessions.events.send(session.id, events=[{"type": "user.message", "content": [{"type": "text", "text": "hello"}]}])
    events = list(client.beta.sessions.events.list(session.id))
    assert [e.type for e in events][-3:] == ["agent.message", "span.model_request_end", "session.status_idle"]
    assert events[-3].content[0].text == "You said: hello"
    assert events[-1].stop_reason.type == "end_turn"


def test_session_stream_with_previews(fake):
    """The SDK's stream of a session's events, with agent.message previews accumulated by the
    SDK's own helper into the message the final event carries."""
    from anthropic.lib.sessions import accumulate_managed_agents_event

    client = Anthropic(base_url=fake.base_url, api_key=fake.API_KEY)
    env = client.beta.environments.create(name="cloud", config={"type": "cloud"})
    agent = client.beta.agents.create(name="helper", model="assistant-sonnet-4-5")
    session = client.beta.sessions.create(agent=agent.id, environment_id=env.id)
    seen, snapshot = [], None
    with client.beta.sessions.events.stream(session.id, event_deltas=["agent.message"]) as stream:
        client.beta.sessions.events.send(session.id, events=[{"type": "user.message", "content": [{"type": "text", "text": "stream me"}]}])
        for event in stream:
            seen.append(event.type)
            if event.type in ("event_start", "event_delta", "agent.message"):
                snapshot = accumulate_managed_agents_event(snapshot, event)
            if event.type == "session.status_idle":
                break
    assert seen == ["user.message", "session.status_running", "span.model_request_start", "event_start", "event_delta",
                    "agent.message", "span.model_request_end", "session.status_idle"]
    assert snapshot.content[0].text == "You said: stream me"


def test_environment_worker_serves_a_session(fake):
    """The SDK's worker polls and acks the session's work item, heartbeats, reads the session,
    streams and lists its events, runs the agent's bash call (pwd) in a scratch folder with the
    SDK's toolset and posts its result, which the agent answers; the item is stopped."""
    client = Anthropic(base_url=fake.base_url, api_key=fake.API_KEY)
    agent = client.beta.agents.create(name="proof", model={"id": "assistant-sonnet-4-5"}, tools=[{"type": "agent_toolset_20260401"}])
    session = client.beta.sessions.create(agent=agent.id, environment_id=ENVIRONMENT)
    client.beta.sessions.events.send(session.id, events=[{"type": "user.message", "content": [{"type": "text", "text": "Where are you?"}]}])
    workdir = tempfile.mkdtemp(prefix="platformkit-worker-")
    start = time.monotonic()
    asyncio.run(serve(fake, session.id, workdir))
    assert time.monotonic() - start < 5

    events = list(client.beta.sessions.events.list(session.id, limit=1000))
    result = next(e for e in events if e.type == "user.tool_result")
    assert os.path.realpath(result.content[0].text.strip()) == os.path.realpath(workdir)
    assert events[-3].content[0].text.startswith("The tool returned: ")
    assert events[-1].stop_reason.type == "end_turn"


def test_environment_worker_mounts_the_agents_skill(fake):
    """A custom skill uploaded with the SDK (files named by their paths), on the agent: the worker
    reads its latest version, downloads the content (a zip of greeting/...) and extracts it under
    its workdir's skills/, where the agent's bash call reads it."""
    client = Anthropic(base_url=fake.base_url, api_key=fake.API_KEY)
    skill_md = b"---\nname: greeting\ndescription: Says hello.\n---\nSay hello warmly.\n"
    skill = client.skills.create(files=[("greeting/SKILL.md", skill_md), ("greeting/hello.sh", b"echo hello\n")])
    assert client.beta.skills.versions.retrieve("latest", skill_id=skill.id).name == "greeting"
    agent = client.beta.agents.create(name="skilled", model="assistant-sonnet-4-5", tools=[{"type": "agent_toolset_20260401"}],
                                      skills=[{"type": "custom", "skill_id": skill.id}])
    session = client.beta.sessions.create(agent=agent.id, environment_id=ENVIRONMENT)
    client.beta.sessions.events.send(session.id, events=[{"type": "user.message", "content": [{"type": "text", "text": "$ cat skills/greeting/SKILL.md"}]}])
    asyncio.run(serve(fake, session.id, tempfile.mkdtemp(prefix="platformkit-worker-")))
    events = list(client.beta.sessions.events.list(session.id, limit=1000))
    result = next(e for e in events if e.type == "user.tool_result")
    assert "Say hello warmly." in result.content[0].text, result


async def serve(fake, session_id, workdir):
    """Runs the worker until the session's work item is stopped (the SDK's runner stops it
    max_idle after the turn ended), then cancels its poll loop."""
    worker = AsyncAnthropic(base_url=fake.base_url, api_key="unused").beta.environments.work.worker(
        environment_id=ENVIRONMENT, environment_key=ENVIRONMENT_KEY, workdir=workdir, max_idle=0.2)
    task = asyncio.create_task(worker.run())
    api = AsyncAnthropic(base_url=fake.base_url, api_key=fake.API_KEY)
    try:
        for _ in range(100):
            await asyncio.sleep(0.05)
            if task.done():
                task.result()
            async for item in api.beta.environments.work.list(ENVIRONMENT, limit=100):
                if item.data.id == session_id and item.state == "stopped":
                    return
        pytest.fail("the worker did not stop the session's work item within 5 s")
    finally:
        task.cancel()
        try:
            await task
        except (asyncio.CancelledError, Exception):
            pass
