"""The official Python SDK (anthropic), unmodified, against the fake through the platformkit-fake
pytest plugin. Every client is built as the SDK's README says, from a base URL and an API key
and nothing else: the `fake` fixture's `base_url` (this test's own namespace) and `API_KEY`.

Runs at both SDK lines this directory pins: requirements-1.x.txt (anthropic 1.17.0, which sends
anthropic-version 2023-06-01) and requirements-2.x.txt (anthropic 2.14.0, which sends 2026-10-21
and its key as a bearer token, and whose tool runner keeps a message thread)."""

import asyncio
import time

import anthropic
import pydantic
import pytest
from anthropic import Anthropic, AsyncAnthropic
from anthropic.lib.tools import beta_tool

MODEL = "claude-sonnet-4-5"  # a model of the fake's fixtures, by the name users of the SDK write (the fake answers anthropic-version requests in the maker's words)
HELLO = [{"role": "user", "content": "Hello, fake."}]
SDK_2 = anthropic.__version__.startswith("2.")
# The API version each SDK line sends: 1.x the first one, 2.x the one its major shipped with.
API_VERSION = "2026-10-21" if SDK_2 else "2023-06-01"


@pytest.fixture
def client(fake):
    return Anthropic(base_url=fake.base_url, api_key=fake.API_KEY)


def reply(text):
    """A stub's reply: a message with this one text block."""
    return {"content": [{"type": "text", "text": text}]}


def test_create(client, fake):
    fake.add_stub(replies=[reply("Hello from the fake.")])
    message = client.messages.create(model=MODEL, max_tokens=64, messages=HELLO)
    assert message.id == "msg_010000000000000000000001"
    assert message.model == MODEL
    assert message.content[0].text == "Hello from the fake."
    assert message.stop_reason == "end_turn"
    # [ {role, content} ]: the array and the object 1 each, "user" 1, "Hello" "," " fake" "." 4.
    assert message.usage.input_tokens == 7
    assert message.usage.output_tokens == 5  # "Hello" " from" " the" " fake" "."
    (entry,) = fake.journal()
    assert entry["headers"]["anthropic-version"] == API_VERSION
    assert entry["credential_header"] == ("authorization" if SDK_2 else "x-api-key")
    assert entry["valid"]


def test_async_client(fake):
    fake.add_stub(replies=[reply("Hello, async.")])

    async def main():
        async with AsyncAnthropic(base_url=fake.base_url, api_key=fake.API_KEY) as client:
            message = await client.messages.create(model=MODEL, max_tokens=64, messages=HELLO)
            tokens = await client.messages.count_tokens(model=MODEL, messages=HELLO)
            return message, tokens

    message, tokens = asyncio.run(main())
    assert message.content[0].text == "Hello, async."
    assert tokens.input_tokens == 7


def test_stream_with_the_accumulator(client, fake):
    fake.add_stub(replies=[reply("Streamed, token by token.")])
    with client.messages.stream(model=MODEL, max_tokens=64, messages=HELLO) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "Streamed, token by token."
    assert final.content[0].text == text
    assert final.stop_reason == "end_turn"
    assert final.usage.output_tokens == 6  # "Streamed" "," " token" " by" " token" "."
    assert [e["body"]["stream"] for e in fake.journal()] == [True]


WEATHER_TOOL = {
    "name": "get_weather",
    "description": "The weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


def tool_call(city):
    return {"content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": city}, "caller": {"type": "direct"}}]}


def test_tool_use(client, fake):
    fake.add_stub(match={"tool_name": "get_weather"}, replies=[tool_call("Oslo"), reply("It is sunny in Oslo.")])
    messages = [{"role": "user", "content": "What is the weather in Oslo?"}]
    first = client.messages.create(model=MODEL, max_tokens=256, tools=[WEATHER_TOOL], messages=messages)
    assert first.stop_reason == "tool_use"
    (call,) = [b for b in first.content if b.type == "tool_use"]
    assert (call.name, call.input) == ("get_weather", {"city": "Oslo"})
    messages += [
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "sunny"}]},
    ]
    final = client.messages.create(model=MODEL, max_tokens=256, tools=[WEATHER_TOOL], messages=messages)
    assert final.content[0].text == "It is sunny in Oslo."
    assert [e["valid"] for e in fake.journal()] == [True, True]


def test_tool_runner(client, fake):
    fake.add_stub(match={"tool_name": "get_weather"}, replies=[tool_call("Oslo"), reply("It is sunny in Oslo.")])
    calls = []

    @beta_tool
    def get_weather(city: str) -> str:
        """The weather in a city.

        Args:
            city: The city's name.
        """
        calls.append(city)
        return "sunny"

    runner = client.beta.messages.tool_runner(
        model=MODEL, max_tokens=256, tools=[get_weather],
        messages=[{"role": "user", "content": "What is the weather in Oslo?"}])
    final = runner.until_done()
    assert calls == ["Oslo"]
    assert final.content[0].text == "It is sunny in Oslo."
    journal = fake.journal()
    assert [e["status"] for e in journal] == [200, 200]
    if SDK_2:
        # 2.x runs the tools on a message thread: the first turn creates it (beta
        # message-threads-2026-08-12), the next continues it.
        assert "message-threads-2026-08-12" in journal[0]["headers"]["anthropic-beta"]
        assert journal[0]["body"]["thread"] == {"type": "create"}
    else:
        # 1.x sends the whole conversation again, the tool's result answering its call.
        last_turn = journal[1]["body"]["messages"][-1]
        assert last_turn["role"] == "user"
        assert [(b["type"], b["tool_use_id"]) for b in last_turn["content"]] == [("tool_result", "toolu_1")]


class Weather(pydantic.BaseModel):
    city: str
    temperature: int


def test_parse_a_structured_output(client, fake):
    fake.add_stub(replies=[reply('{"city": "Oslo", "temperature": 12}')])
    message = client.messages.parse(model=MODEL, max_tokens=256, messages=HELLO, output_format=Weather)
    assert message.parsed_output == Weather(city="Oslo", temperature=12)
    fmt = fake.journal()[0]["body"]["output_config"]["format"]
    assert fmt["type"] == "json_schema"
    assert fmt["schema"]["required"] == ["city", "temperature"]


def test_parse_what_the_fake_generates(client):
    # Without a stub the fake's model writes JSON that fits the schema, which the SDK parses.
    message = client.messages.parse(model=MODEL, max_tokens=256, messages=HELLO, output_format=Weather)
    assert isinstance(message.parsed_output, Weather)


def test_count_tokens(client):
    assert client.messages.count_tokens(model=MODEL, messages=HELLO).input_tokens == 7


def test_models_paging(client, fake):
    first = client.models.list(limit=4)
    assert len(first.data) == 4 and first.has_more
    ids = [m.id for m in client.models.list(limit=4)]  # the SDK follows the pages
    assert len(ids) == 11 and len(set(ids)) == 11  # the fixtures' eleven models
    assert ids[:4] == [m.id for m in first.data]
    assert ids[0] == "claude-opus-4-7"
    assert client.models.retrieve("claude-sonnet-4-5").id.startswith("claude-sonnet-4-5")
    # One request for the first page alone, then three pages of 4, 4 and 3, then the model.
    assert [e["query"] for e in fake.journal()] == [
        "limit=4", "limit=4", "limit=4&after_id=" + ids[3], "limit=4&after_id=" + ids[7], ""]


def test_prompt_caching_usage(client):
    # A system prompt above the model's 1,024-token minimum, marked for caching: the first call
    # writes it, the second reads the same number of tokens.
    system = [{"type": "text", "text": "You answer questions about the weather. " * 200, "cache_control": {"type": "ephemeral"}}]
    first = client.messages.create(model=MODEL, max_tokens=32, system=system, messages=HELLO)
    second = client.messages.create(model=MODEL, max_tokens=32, system=system, messages=HELLO)
    written = first.usage.cache_creation_input_tokens
    assert written > 1024
    assert first.usage.cache_read_input_tokens == 0
    assert second.usage.cache_read_input_tokens == written
    assert second.usage.cache_creation_input_tokens == 0
    assert second.usage.input_tokens == first.usage.input_tokens


def test_a_429_is_retried_by_default_and_fast(client, fake):
    # The fake asks for 30 s; under the retry-after scale the SDK sleeps 30 ms, and its retry moves
    # the namespace's virtual clock by the true 30 s.
    fake.set_retry_after_scale(0.001)
    fake.inject_fault(path="/v1/messages", status=429, retry_after=30)
    start = time.monotonic()
    message = client.messages.create(model=MODEL, max_tokens=64, messages=HELLO)
    elapsed = time.monotonic() - start
    assert message.id == "msg_010000000000000000000001"
    assert elapsed < 1.0, "the retried call took %.2f s" % elapsed
    journal = fake.journal()
    assert [e["status"] for e in journal] == [429, 200]
    assert [e["headers"]["x-stainless-retry-count"] for e in journal] == ["0", "1"]
    assert fake.now() == "2026-01-01T00:00:30Z"


def test_typed_errors(client, fake):
    with pytest.raises(anthropic.NotFoundError) as err:
        client.models.retrieve("no-such-model")
    assert err.value.status_code == 404
    assert err.value.body["error"]["type"] == "not_found_error"

    with pytest.raises(anthropic.BadRequestError) as err:
        client.messages.create(model=MODEL, max_tokens=0 - 1, messages=HELLO)
    assert err.value.body["error"]["type"] == "invalid_request_error"
    assert "max_tokens" in err.value.body["error"]["message"]

    with pytest.raises(anthropic.AuthenticationError) as err:
        Anthropic(base_url=fake.base_url, api_key="not-a-key").models.list()
    assert err.value.status_code == 401

    # A 429 that persists: the default two retries, fast under the scale, then RateLimitError.
    fake.set_retry_after_scale(0.001)
    fake.inject_fault(path="/v1/messages", status=429, retry_after=5, times=3)
    with pytest.raises(anthropic.RateLimitError) as err:
        client.messages.create(model=MODEL, max_tokens=64, messages=HELLO)
    assert err.value.response.headers["fake-retry-after-ms"] == "5000"
    assert err.value.response.headers["retry-after-ms"] == "5"
    assert [e["status"] for e in fake.journal()][-3:] == [429, 429, 429]


def test_files_upload_list_download_delete(client, fake):
    uploaded = client.files.upload(file=("notes/hello.txt", b"hello, files", "text/plain"))
    assert (uploaded.filename, uploaded.mime_type, uploaded.size_bytes) == ("hello.txt", "text/plain", 12)
    assert uploaded.downloadable is False
    pdf = client.files.upload(file=("b.pdf", b"%PDF-1.7\n", "application/pdf"), expires_in_seconds=3600)
    assert pdf.expires_at.isoformat() == "2026-01-01T01:00:00+00:00"
    # The SDK's auto-paging follows next_page one file at a time, newest first; the last is the
    # fixtures' usage.csv, a file the platform made, which downloads.
    listed = list(client.files.list(limit=1))
    assert [f.id for f in listed[:2]] == [pdf.id, uploaded.id]
    assert [(f.filename, f.downloadable) for f in listed[2:]] == [("usage.csv", True)]
    assert client.files.download(listed[2].id).text().startswith("month,requests\n")
    assert [f.id for f in client.files.list(ids=[uploaded.id, "file_unknown", uploaded.id])] == [uploaded.id]
    assert client.files.retrieve_metadata(uploaded.id) == uploaded

    with pytest.raises(anthropic.BadRequestError) as err:
        client.files.download(uploaded.id)  # uploaded files are not downloadable
    assert err.value.body["error"]["details"]["error_code"] == "file_not_downloadable"

    assert client.files.delete(uploaded.id).type == "file_deleted"
    with pytest.raises(anthropic.NotFoundError):
        client.files.retrieve_metadata(uploaded.id)


def test_code_execution_output_downloads(client):
    # A declared code execution tool is run by the fake's scripted model; the file its code wrote
    # is a file of the caller's, listed and downloadable, as the platform's own outputs are.
    message = client.beta.messages.create(
        model=MODEL, max_tokens=1024, betas=["code-execution-2025-08-25"],
        tools=[{"type": "code_execution_20250825", "name": "code_execution"}],
        messages=[{"role": "user", "content": "Write a small CSV file I can download."}])
    call, result = message.content[0], message.content[1]
    assert (call.type, call.name, result.type) == ("server_tool_use", "bash_code_execution", "bash_code_execution_tool_result")
    assert result.tool_use_id == call.id and result.content.return_code == 0
    assert message.container.id.startswith("container_")
    file_id = result.content.content[0].file_id
    metadata = client.beta.files.retrieve_metadata(file_id)
    assert (metadata.filename, metadata.mime_type, metadata.downloadable) == ("output.csv", "text/csv", True)
    data = client.beta.files.download(file_id).read()
    assert data.startswith(b"row,word,value\n") and len(data) == metadata.size_bytes
    assert client.files.download(file_id).read() == data  # the GA namespace reads the same file
    assert file_id in [f.id for f in client.files.list()]


def test_messages_read_a_file_by_its_id(client):
    # A document uploaded once and named by its file_id counts as its text sent inline; once the
    # file is deleted, the request is refused naming the file_id's place.
    text = "The quarterly report says revenue grew by four percent. " * 20
    notes = client.files.upload(file=("notes.txt", text.encode(), "text/plain"))

    def turn(source):
        return [{"role": "user", "content": [{"type": "document", "source": source}, {"type": "text", "text": "What does it say?"}]}]

    by_id = turn({"type": "file", "file_id": notes.id})
    inline = turn({"type": "text", "media_type": "text/plain", "data": text})
    message = client.messages.create(model=MODEL, max_tokens=64, messages=by_id)
    assert message.usage.input_tokens == client.messages.count_tokens(model=MODEL, messages=inline).input_tokens
    assert message.usage.input_tokens > 200  # the file's 1,140 bytes, at four bytes a token
    client.files.delete(notes.id)
    with pytest.raises(anthropic.NotFoundError) as err:
        client.messages.create(model=MODEL, max_tokens=64, messages=by_id)
    assert err.value.body["error"]["message"].startswith("messages.0.content.0.source.file_id: file ")


@pytest.mark.skipif(not SDK_2, reason="message batches as anthropic 2.x types them")
def test_message_batch_create_poll_results(client, fake):
    """The batch_results.py flow: create, poll retrieve until ended (the virtual clock moved
    past the batch's pace, 100 ms a request), then results() iterated as the SDK's types. A request
    the Messages rules refuse is an errored line with the error it gets sent alone."""
    refused = {"model": MODEL, "max_tokens": 64, "messages": HELLO, "metadata": {"user_id": "someone@example.com"}}
    requests = [{"custom_id": "req-%d" % i, "params": {"model": MODEL, "max_tokens": 64, "messages": [
        {"role": "user", "content": "Hello number %d" % i}]}} for i in range(99)]
    requests.append({"custom_id": "refused", "params": refused})
    batch = client.messages.batches.create(requests=requests)
    assert batch.id.startswith("msgbatch_") and batch.processing_status == "in_progress"
    assert batch.request_counts.processing == 100 and batch.results_url is None
    polls = 0
    while batch.processing_status != "ended":
        polls += 1
        fake.advance_clock(5)
        batch = client.messages.batches.retrieve(batch.id)
    assert polls == 2  # 100 requests at 100 ms each: 10 s of virtual time
    counts = batch.request_counts
    assert (counts.processing, counts.succeeded, counts.errored, counts.canceled, counts.expired) == (0, 99, 1, 0, 0)
    results = list(client.messages.batches.results(batch.id))
    assert [r.custom_id for r in results] == [r["custom_id"] for r in requests]
    assert all(r.result.type == "succeeded" and r.result.message.content[0].text for r in results[:99])
    errored = results[99].result
    assert errored.type == "errored"
    with pytest.raises(anthropic.BadRequestError) as alone:
        client.messages.create(**refused)
    assert errored.error.error.type == "invalid_request_error"
    assert errored.error.error.message == alone.value.body["error"]["message"]
    with pytest.raises(anthropic.BadRequestError):
        client.messages.batches.delete(client.messages.batches.create(requests=requests[:1]).id)
    assert client.messages.batches.delete(batch.id).type == "message_batch_deleted"
