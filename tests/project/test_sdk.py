"""The real anthropic SDK against nano.server: what call_model, agent_loop and explain meet.

Everything runs on 127.0.0.1 with a scripted server; no key, no network. Each test points the SDK
at its own server through ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, and starts from
`nano.model._client = None`.
"""

import asyncio
import contextlib
import functools
import http.client
import io
import json
import os
import socket
import time
from pathlib import Path

import anthropic
import pytest
from anthropic.types import Message

import nano.model
from nano.failures import EMPTY, UNFINISHED, Unfinished, explain, finished_only
from nano.loop import agent_loop
from nano.model import call_model
from nano.protocol import check_messages
from nano.repl import main
from nano.server import TIMEOUT, Failure, MessagesServer, Recorder
from nano.testing import (ScriptedAsker, local_api, no_asker, reply, scratch_dir, scripted_asker,
                          text, thinking, tool_use)
from nano.trace import TRACE_PATH, load_trace, plain

KEY = "test-key"
SOON = 0.01  # seconds of retry-after: the SDK waits this long, not its own backoff (0.5 s and up)
RETRIES = anthropic.DEFAULT_MAX_RETRIES  # what call_model's client does, since it sets none
CONVERT = (TRACE_PATH.parent / "convert.py").read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def clean_sdk(monkeypatch, tmp_path):
    """No ANTHROPIC_* settings from the machine running the tests, and no client built yet."""
    for name in list(os.environ):
        if name.startswith("ANTHROPIC_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))  # and no ~/.config/anthropic profile to find
    monkeypatch.setattr(nano.model, "_client", None)


def use(server, monkeypatch, key=KEY):
    """Point the SDK at `server`, the way a user points it at the API: by environment."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)


def run(function, *args):
    """Await function(*args) in a fresh event loop, then close the client call_model built."""
    async def session():
        try:
            return await function(*args)
        finally:
            if nano.model._client is not None:
                await nano.model._client.close()
    return asyncio.run(session())


async def post(body):
    """POST `body` as it is to /v1/messages with the SDK's raw client: no type checks, no retry."""
    client = anthropic.AsyncAnthropic(max_retries=0)
    try:
        return await client.post("/v1/messages", cast_to=Message, body=body)
    finally:
        await client.close()


async def create_and_close(client):
    """One typed messages.create call with `client`, which is closed afterwards."""
    try:
        return await client.messages.create(model="m", max_tokens=5, messages=[user("hi")])
    finally:
        await client.close()


def user(content):
    return {"role": "user", "content": content}


def sent_fields():
    """The four fields besides messages that call_model must send, with nano.model's values."""
    return {"model": nano.model.MODEL, "max_tokens": nano.model.MAX_TOKENS,
            "system": nano.model.SYSTEM_PROMPT, "tools": nano.model.TOOLS}


def assert_plain_sentence(sentence, *words):
    assert isinstance(sentence, str) and "\n" not in sentence and "{" not in sentence, sentence
    assert sentence.rstrip().endswith((".", "!")), sentence
    for word in words:
        assert word.lower() in sentence.lower(), f"{word!r} not in {sentence!r}"


# --- the server on its own, over plain HTTP ---------------------------------------------------

def test_the_server_binds_loopback_only_and_stops_promptly_on_exit():
    with MessagesServer() as server:
        assert server.url.startswith("http://127.0.0.1:")
        port = int(server.url.rsplit(":", 1)[1])
        idle = socket.create_connection(("127.0.0.1", port), timeout=2)  # connects, sends nothing
        started = time.monotonic()
    assert time.monotonic() - started < TIMEOUT / 2, "an idle client does not hold up the stop"
    idle.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2)
    with pytest.raises(RuntimeError, match="not running"):
        server.url


GOOD = json.dumps({"model": "m", "max_tokens": 5, "messages": [user("hi")]}).encode()
VERSION = {"anthropic-version": "2023-06-01", "content-type": "application/json"}


@pytest.mark.parametrize("method, headers, body, status, kind", [
    ("POST", {**VERSION, "x-api-key": KEY}, GOOD, 200, None),
    ("POST", {**VERSION, "authorization": f"Bearer {KEY}"}, GOOD, 200, None),
    ("POST", VERSION, GOOD, 401, "authentication_error"),
    ("POST", {**VERSION, "x-api-key": "sk-wrong"}, GOOD, 401, "authentication_error"),
    ("POST", {"x-api-key": KEY}, GOOD, 400, "invalid_request_error"),
    ("POST", {**VERSION, "x-api-key": KEY}, b"{not json", 400, "invalid_request_error"),
    ("POST", {**VERSION, "x-api-key": KEY}, b"x" * 5000, 413, "request_too_large"),
    ("GET", {**VERSION, "x-api-key": KEY}, None, 404, "not_found_error"),
], ids=["x-api-key", "bearer", "no-key", "wrong-key", "no-version", "not-json", "too-large", "get"])
def test_raw_http_gets_the_api_status_codes_and_error_shape(method, headers, body, status, kind):
    with MessagesServer([reply(text("hi"))], api_key=KEY, max_body=4000) as server:
        port = int(server.url.rsplit(":", 1)[1])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request(method, "/v1/messages", body=body, headers=headers)
        response = connection.getresponse()
        answer = json.loads(response.read())
        connection.close()
    assert response.status == status
    assert response.getheader("content-type") == "application/json"
    assert response.getheader("request-id", "").startswith("req_")
    assert [r.status for r in server.requests] == [status]
    if kind is None:
        assert answer["type"] == "message" and answer["content"] == [text("hi")]
    else:
        assert set(answer) == {"type", "error", "request_id"} and answer["type"] == "error"
        assert set(answer["error"]) == {"type", "message"} and answer["error"]["type"] == kind
        assert answer["request_id"] == response.getheader("request-id")
        assert answer["error"]["message"] and not answer["error"]["message"].startswith("{")


def test_a_script_holds_messages_and_failures_only():
    with pytest.raises(ValueError, match="must be a Message"):
        MessagesServer([{"type": "message", "content": []}])
    with pytest.raises(TypeError, match="Failure"):
        MessagesServer(["Done."])
    with pytest.raises(ValueError, match="429"):
        Failure(418)


# --- call_model, and what the SDK puts on the wire ---------------------------------------------

def test_call_model_sends_exactly_the_five_fields_and_builds_its_client_once(monkeypatch):
    built = []
    real = anthropic.AsyncAnthropic
    monkeypatch.setattr(anthropic, "AsyncAnthropic",
                        lambda *a, **k: built.append(k) or real(*a, **k))

    async def two_calls():
        log = [user("hi")]
        first = await call_model(log)
        client = nano.model._client
        log += [{"role": "assistant", "content": first.content}, user("and again")]
        second = await call_model(log)
        return first, second, client

    with MessagesServer([reply(text("one")), reply(text("two"))], api_key=KEY,
                        expect=sent_fields()) as server:
        use(server, monkeypatch)
        first, second, client = run(two_calls)
    assert isinstance(first, Message) and second.content[0].text == "two"
    assert len(built) == 1 and nano.model._client is client, "one client, built on the first call"
    assert [r.status for r in server.requests] == [200, 200]
    for request in server.requests:
        assert set(request.body) == {"model", "max_tokens", "system", "tools", "messages"}
        assert {k: request.body[k] for k in sent_fields()} == sent_fields()
    assert server.requests[1].body["messages"] == [user("hi"), {"role": "assistant", "content": [
        text("one")]}, user("and again")]


@pytest.mark.parametrize("how", ["ANTHROPIC_API_KEY", "api_key="])
def test_the_sdk_sends_the_key_as_a_bearer_token_with_the_api_version(how, monkeypatch):
    with MessagesServer([reply(text("hi"))], api_key=KEY) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        if how == "ANTHROPIC_API_KEY":
            monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
            run(call_model, [user("hi")])
        else:
            asyncio.run(create_and_close(anthropic.AsyncAnthropic(api_key=KEY)))
    headers = server.requests[0].headers
    assert headers["authorization"] == f"Bearer {KEY}"
    assert "x-api-key" not in headers  # anthropic 2.14 sends an API key as a bearer token
    assert headers["anthropic-version"] and headers["content-type"] == "application/json"


def test_expect_turns_a_field_sent_wrong_into_a_400_naming_it(monkeypatch):
    expected = sent_fields()
    monkeypatch.setattr(nano.model, "MAX_TOKENS", 1024)
    with MessagesServer([reply(text("hi"))], api_key=KEY, expect=expected) as server:
        use(server, monkeypatch)
        with pytest.raises(anthropic.BadRequestError) as info:
            run(call_model, [user("hi")])
    assert "max_tokens" in info.value.api_message
    assert str(expected["max_tokens"]) in info.value.api_message
    assert "1024" in info.value.api_message


# --- the agent loop end to end -----------------------------------------------------------------

def test_agent_loop_runs_the_celsius_trace_over_http(monkeypatch):
    trace = load_trace()
    replies = json.loads(TRACE_PATH.read_text(encoding="utf-8"))["replies"]
    asker = scripted_asker(trace.answers)
    with MessagesServer(replies, api_key=KEY, expect=sent_fields()) as server, \
            scratch_dir({"fixtures/convert.py": CONVERT}):
        use(server, monkeypatch)
        messages = [user(trace.request)]
        assert run(agent_loop, messages, asker) == "done"
        assert "return (c * 9) / 5 + 32" in Path("fixtures/convert.py").read_text()
    assert plain(messages) == trace.entries
    assert [r.status for r in server.requests] == [200, 200, 200], "every request passed the checks"
    for i, request in enumerate(server.requests):  # SDK content blocks go back exactly as they came
        assert request.body["messages"] == trace.entries[:2 * i + 1]
    assert len(asker.prompts) == 1


def test_a_scripted_reply_without_usage_gets_a_plausible_one_that_grows_each_call(monkeypatch):
    """Does a zero-usage reply come back with estimated input and output tokens, the input
    growing with the history, while a recorded usage passes through as it was?"""
    recorded = json.loads(TRACE_PATH.read_text(encoding="utf-8"))["replies"]
    script = [reply(text("a"), tool_use(f"toolu_u{n}", "list_files", {"path": "."})) for n in range(3)]
    usages = []

    async def counted(messages):
        answer = await call_model(messages)
        usages.append(answer.usage)
        return answer

    with MessagesServer(script + [reply(text("done"))], api_key=KEY) as server, scratch_dir({"a.txt": "a"}):
        use(server, monkeypatch)
        assert run(agent_loop, [user("List the files.")], no_asker, counted) == "done"
    inputs = [u.input_tokens for u in usages]
    assert len(inputs) == 4 and inputs == sorted(set(inputs)) and inputs[0] > 100, inputs
    assert all(u.output_tokens > 0 and u.cache_read_input_tokens == 0 for u in usages)
    monkeypatch.setattr(nano.model, "_client", None)
    with MessagesServer(recorded[:1], api_key=KEY) as server:
        use(server, monkeypatch)
        assert run(call_model, [user("hi")]).usage.input_tokens == recorded[0]["usage"]["input_tokens"]


def test_a_cache_breakpoint_is_written_once_then_read_by_the_next_call(monkeypatch):
    """With cache_control on the newest block, does each call read from the cache what the
    previous one wrote, and pay full price only for the rest?"""
    def marked(messages):
        *done, last = messages
        return [*done, {"role": "user", "content": [{"type": "text", "text": last["content"],
                                                     "cache_control": {"type": "ephemeral"}}]}]

    async def session():
        client = anthropic.AsyncAnthropic()
        try:
            first = await client.messages.create(model="m", max_tokens=5, system="Be brief.",
                                                 messages=marked([user("one")]))
            history = [user("one"), {"role": "assistant", "content": [{"type": "text", "text": "1"}]},
                       user("two")]
            second = await client.messages.create(model="m", max_tokens=5, system="Be brief.",
                                                  messages=marked(history))
            third = await client.messages.create(model="m", max_tokens=5, system="Be sure.",
                                                 messages=marked(history))
            return first.usage, second.usage, third.usage
        finally:
            await client.close()

    with MessagesServer([reply(text("1")), reply(text("2")), reply(text("3"))], api_key=KEY) as server:
        use(server, monkeypatch)
        first, second, third = asyncio.run(session())
    assert first.cache_read_input_tokens == 0 and first.cache_creation_input_tokens > 0
    assert first.input_tokens == 0, "nothing follows the breakpoint"
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens > 0
    assert third.cache_read_input_tokens == 0, "a changed system prompt changes every prefix after it"


def test_local_api_points_call_model_at_a_local_server_and_puts_everything_back(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-the-users-own")

    async def session():
        async with local_api([reply(text("local"))]) as server:
            answer = await call_model([user("hi")])
        return server, answer

    server, answer = asyncio.run(session())
    assert answer.content[0].text == "local" and len(server.requests) == 1
    assert os.environ["ANTHROPIC_API_KEY"] == "sk-ant-the-users-own"
    assert "ANTHROPIC_BASE_URL" not in os.environ and nano.model._client is None


def test_thinking_blocks_come_back_as_the_sdk_parses_them_and_must_go_back_unchanged(monkeypatch):
    """A live-shaped session: every reply opens with a signed thinking block, its text empty as at
    the default display setting. The reference loop sends each back as it came; a turn rebuilt
    from its text and tool_use, or a thinking block changed, is refused with a 400, as the API does."""
    first = reply(thinking(), tool_use("toolu_t1", "read_file", {"path": "fixtures/convert.py"}))
    last = reply(thinking("The fix is in."), text("Read it."))
    with MessagesServer([first, last, last], api_key=KEY, expect=sent_fields()) as server, \
            scratch_dir({"fixtures/convert.py": CONVERT}):
        use(server, monkeypatch)
        messages = [user("Read convert.py.")]
        assert run(agent_loop, messages, no_asker) == "done"
        assert [type(b).__name__ for b in messages[1]["content"]] == ["ThinkingBlock", "ToolUseBlock"]
        assert messages[1]["content"][0].thinking == "" and messages[1]["content"][0].signature
        assert [r.status for r in server.requests] == [200, 200]
        assert server.requests[1].body["messages"][1] == plain(messages[1]), "sent back unchanged"

        turn = messages[1]["content"]
        rebuilt = {"role": "assistant", "content": [b for b in turn if b.type != "thinking"]}
        changed = {"role": "assistant",
                   "content": [turn[0].model_copy(update={"thinking": "I'd rather guess."}), turn[1]]}
        for wrong, says in [(rebuilt, "lost the thinking block"), (changed, "Invalid `signature`")]:
            monkeypatch.setattr(nano.model, "_client", None)  # run() closed the last one
            with pytest.raises(anthropic.BadRequestError) as info:
                run(call_model, [messages[0], wrong, messages[2]])
            assert says in explain(info.value), explain(info.value)
        assert server.unused == 1 and [r.status for r in server.requests] == [200, 200, 400, 400]


@pytest.mark.parametrize("change", ["tools", "system", "an earlier message"])
def test_a_thinking_block_sent_back_after_its_prefix_changed_is_refused(change, monkeypatch):
    """Preserved thinking's prefix check, through the real SDK: a thinking block goes back only
    with the system prompt, the tools and the earlier messages it was produced after. Changing
    one of them between two requests of a session (as autoreload does after a saved edit of TOOLS
    or SYSTEM_PROMPT) gets a 400 naming what changed; with it put back, the session goes on."""
    replies = [reply(thinking(), text("Two functions.")), reply(thinking(), text("The first is wrong."))]
    with MessagesServer(replies, api_key=KEY) as server:
        use(server, monkeypatch)
        messages = [user("What is in convert.py?")]
        messages.append({"role": "assistant", "content": run(call_model, messages).content})
        messages.append(user("Which one is wrong?"))
        edited = [{**nano.model.TOOLS[0], "description": "Read a file."}, *nano.model.TOOLS[1:]]
        changed = {"tools": ("TOOLS", edited, "`tools`"),
                   "system": ("SYSTEM_PROMPT", nano.model.SYSTEM_PROMPT + " Be brief.", "`system`")}
        if change in changed:
            name, value, says = changed[change]
            with monkeypatch.context() as edit:
                edit.setattr(nano.model, name, value)
                edit.setattr(nano.model, "_client", None)
                with pytest.raises(anthropic.BadRequestError) as info:
                    run(call_model, messages)
        else:
            says = "messages[0]"
            monkeypatch.setattr(nano.model, "_client", None)
            with pytest.raises(anthropic.BadRequestError) as info:
                run(call_model, [user("What is in convert.py, really?"), *messages[1:]])
        sentence = explain(info.value)
        assert "the prefix of this thinking block changed" in sentence and says in sentence, sentence
        assert sentence.startswith("The API rejected the request: messages[1].content[0]"), sentence
        monkeypatch.setattr(nano.model, "_client", None)
        assert run(call_model, messages).content[-1].text == "The first is wrong."
    assert [r.status for r in server.requests] == [200, 400, 200]


def test_thinking_produced_after_a_change_is_valid_again(monkeypatch):
    """A change invalidates only the thinking produced before it: a session that starts again from
    its first line with the new tools, keeping nothing of the old thinking, goes through."""
    replies = [reply(thinking(), text("One.")), reply(thinking(), text("Two.")), reply(thinking(), text("Three."))]
    with MessagesServer(replies, api_key=KEY) as server:
        use(server, monkeypatch)
        run(call_model, [user("first")])
        monkeypatch.setattr(nano.model, "TOOLS", nano.model.TOOLS[:2])
        monkeypatch.setattr(nano.model, "_client", None)
        messages = [user("first again")]
        messages.append({"role": "assistant", "content": run(call_model, messages).content})
        messages.append(user("and then"))
        monkeypatch.setattr(nano.model, "_client", None)
        assert run(call_model, messages).content[-1].text == "Three."
    assert [r.status for r in server.requests] == [200, 200, 200]


@pytest.mark.parametrize("stop_reason", ["max_tokens", "refusal"])
def test_max_tokens_and_refusal_replies_are_just_messages(stop_reason, monkeypatch):
    script = [reply(text("I stopped here."), stop_reason=stop_reason)] * 2

    async def session():
        first = await call_model([user("hi")])
        return first, await agent_loop(messages, no_asker)

    with MessagesServer(script, api_key=KEY) as server:
        use(server, monkeypatch)
        messages = [user("hi")]
        first, status = run(session)
    assert first.stop_reason == stop_reason and status == "done"
    assert plain(messages[-1]["content"]) == [text("I stopped here.")]


# --- what a user meets: bad requests, keys, models, limits, no network ---------------------------

BAD_REQUESTS = {
    "no max_tokens": ({"model": "m", "messages": [user("hi")]}, "max_tokens: Field required"),
    "max_tokens 0": ({"model": "m", "max_tokens": 0, "messages": [user("hi")]},
                     "positive whole number"),
    "no model": ({"max_tokens": 5, "messages": [user("hi")]}, "model: Field required"),
    "typo field": ({"model": "m", "max_tokens": 5, "messages": [user("hi")], "max_token": 5},
                   "max_token: Extra inputs"),
    "roles": ({"model": "m", "max_tokens": 5, "messages": [user("a"), user("b")]},
              "roles must alternate"),
    "dangling tool_use": ({"model": "m", "max_tokens": 5, "tools": nano.model.TOOLS, "messages": [
        user("a"), {"role": "assistant", "content": [tool_use("toolu_9", "bash", {})]},
        user("go on")]}, "'toolu_9', but messages[2] has no tool_result"),
    "ends on assistant": ({"model": "m", "max_tokens": 5, "messages": [
        user("a"), {"role": "assistant", "content": [text("b")]}]}, "must be the user's"),
    "no tools": ({"model": "m", "max_tokens": 5, "messages": [
        user("a"), {"role": "assistant", "content": [tool_use("t1", "bash", {"command": "ls"})]},
        user([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}])]},
        "must define tools"),
    "same tool twice": ({"model": "m", "max_tokens": 5, "messages": [user("a")],
                         "tools": nano.model.TOOLS[:1] * 2}, "unique"),
    "system dict": ({"model": "m", "max_tokens": 5, "messages": [user("a")], "system": {"x": 1}},
                    "system: must be a string or a list of text blocks"),
    "empty text": ({"model": "m", "max_tokens": 5, "messages": [user([text(" ")])]},
                   "non-whitespace"),
}


@pytest.mark.parametrize("body, says", BAD_REQUESTS.values(), ids=BAD_REQUESTS.keys())
def test_a_malformed_request_gets_400_with_a_plain_message(body, says, monkeypatch):
    with MessagesServer([reply(text("never sent"))], api_key=KEY) as server:
        use(server, monkeypatch)
        with pytest.raises(anthropic.BadRequestError) as info:
            asyncio.run(post(body))
    error = info.value
    assert error.status_code == 400 and error.type == "invalid_request_error"
    assert says in error.api_message and "\n" not in error.api_message
    assert error.request_id == "req_local_0001" and [r.status for r in server.requests] == [400]
    assert error.api_message in explain(error)


def test_explain_gives_a_400_as_one_plain_sentence(monkeypatch):
    body, says = BAD_REQUESTS["dangling tool_use"]
    with MessagesServer(api_key=KEY) as server:
        use(server, monkeypatch)
        with pytest.raises(anthropic.BadRequestError) as info:
            asyncio.run(post(body))
    assert_plain_sentence(explain(info.value), "rejected", says)


def test_a_wrong_key_is_an_authentication_error(monkeypatch):
    with MessagesServer([reply(text("never sent"))], api_key=KEY) as server:
        use(server, monkeypatch, key="sk-ant-wrong")
        with pytest.raises(anthropic.AuthenticationError) as info:
            run(call_model, [user("hi")])
    assert len(server.requests) == 1, "a 401 is not retried"
    assert_plain_sentence(explain(info.value), "key", "ANTHROPIC_API_KEY")


def test_no_key_at_all_fails_before_anything_is_sent(monkeypatch):
    with MessagesServer([reply(text("never sent"))], api_key=KEY) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        with pytest.raises(TypeError) as info:
            run(call_model, [user("hi")])
    assert server.requests == []
    assert_plain_sentence(explain(info.value), "no api key", "ANTHROPIC_API_KEY")


@pytest.mark.parametrize("script, known", [
    ([Failure(404)], None),  # a retired model id, scripted
    ([reply(text("never sent"))], {"claude-some-other-model"}),  # a server that knows other models
], ids=["scripted", "unknown-model"])
def test_an_unknown_model_is_not_found(script, known, monkeypatch):
    with MessagesServer(script, api_key=KEY, models=known) as server:
        use(server, monkeypatch)
        with pytest.raises(anthropic.NotFoundError) as info:
            run(call_model, [user("hi")])
    assert info.value.api_message == f"model: {nano.model.MODEL}" and len(server.requests) == 1
    assert_plain_sentence(explain(info.value), "model", nano.model.MODEL, "NANO_MODEL")


TRANSIENT = [(429, anthropic.RateLimitError, "rate limited"),
             (529, anthropic.OverloadedError, "overloaded"),
             (500, anthropic.InternalServerError, "failing")]


@pytest.mark.parametrize("status, error, says", TRANSIENT, ids=["429", "529", "500"])
def test_a_transient_failure_is_retried_and_the_next_reply_gets_through(status, error, says,
                                                                         monkeypatch):
    with MessagesServer([Failure(status, retry_after=SOON), reply(text("made it"))],
                        api_key=KEY) as server:
        use(server, monkeypatch)
        message = run(call_model, [user("hi")])
    assert message.content[0].text == "made it"
    assert [r.status for r in server.requests] == [status, 200]
    assert [r.headers["x-stainless-retry-count"] for r in server.requests] == ["0", "1"]


@pytest.mark.parametrize("status, error, says", TRANSIENT, ids=["429", "529", "500"])
def test_a_failure_that_persists_raises_after_the_retries(status, error, says, monkeypatch):
    with MessagesServer([Failure(status, retry_after=SOON)] * (1 + RETRIES), api_key=KEY) as server:
        use(server, monkeypatch)
        with pytest.raises(error) as info:
            run(call_model, [user("hi")])
    assert [r.status for r in server.requests] == [status] * (1 + RETRIES)
    assert info.value.response.headers["retry-after"] == f"{SOON:g}"
    assert_plain_sentence(explain(info.value), says)


def test_an_exhausted_script_is_a_500_the_sdk_does_not_retry(monkeypatch):
    with MessagesServer([], api_key=KEY) as server:
        use(server, monkeypatch)
        with pytest.raises(anthropic.InternalServerError, match="no reply left"):
            run(call_model, [user("hi")])
    assert len(server.requests) == 1


def test_a_closed_port_is_a_connection_error(monkeypatch):
    with socket.socket() as held:  # bound but not listening: connections are refused
        held.bind(("127.0.0.1", 0))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{held.getsockname()[1]}")
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        # call_model reuses a client it finds; this one does not spend seconds retrying
        monkeypatch.setattr(nano.model, "_client", anthropic.AsyncAnthropic(max_retries=0))
        with pytest.raises(anthropic.APIConnectionError) as info:
            run(call_model, [user("hi")])
    assert_plain_sentence(explain(info.value), "network")


def test_the_repl_says_what_failed_and_its_next_request_is_valid(monkeypatch, capsys):
    script = [Failure(529, retry_after=SOON)] * (1 + RETRIES) + [reply(text("Hello again."))]
    with MessagesServer(script, api_key=KEY, expect=sent_fields()) as server:
        use(server, monkeypatch)
        history = run(main, scripted_asker(["fix it", "hello"]))
    assert "error: The API is overloaded" in capsys.readouterr().out
    assert server.requests[-1].status == 200
    assert server.requests[-1].body["messages"] == [user("hello")], "the failed turn was dropped"
    assert plain(history) == [user("hello"),
                              {"role": "assistant", "content": [text("Hello again.")]}]


# --- the REPL meets each failure: one sentence, then the next line, on a history at rest --------

class Lines(ScriptedAsker):
    """Scripted lines for main; at every "> " the history must be at rest. No gate is expected."""

    def __init__(self, lines, history):
        super().__init__(lines)
        self.history = history

    async def question(self, prompt):
        assert prompt == "> ", f"the gate was consulted: {prompt!r}"
        check_messages(self.history, at_rest=True)
        return await super().question(prompt)


def session(lines, model=call_model):
    """main on `lines` with the reference loop and `model`; (the history, the error lines)."""
    history = []
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run(main, Lines(lines, history), model, history) is history
    check_messages(history, at_rest=True)
    return history, [line for line in out.getvalue().splitlines() if line.startswith("error: ")]


def answered(words):
    return [user("again"), {"role": "assistant", "content": [text(words)]}]


@pytest.mark.parametrize("options, sentence", [
    ({"key": "sk-ant-wrong"}, "The API key was rejected: check ANTHROPIC_API_KEY."),
    ({"models": {"claude-current"}}, f"The API does not know the model {nano.model.MODEL!r}: set "
                                     "NANO_MODEL to a current model id."),
], ids=["401 bad key", "404 retired model"])
def test_the_repl_meets_a_setup_problem_with_a_sentence_per_line(options, sentence, monkeypatch):
    with MessagesServer([reply(text("never sent"))], api_key=KEY,
                        models=options.get("models")) as server:
        use(server, monkeypatch, key=options.get("key", KEY))
        history, errors = session(["hello", "again"])
    assert history == [] and errors == [f"error: {sentence}"] * 2
    assert [r.body["messages"] for r in server.requests] == [[user("hello")], [user("again")]]


@pytest.mark.parametrize("status, sentence", [
    (429, "Rate limited by the API: wait a minute, then try again."),
    (529, "The API is overloaded or failing right now: try again shortly."),
], ids=["429", "529"])
def test_the_repl_waits_out_a_passing_limit_and_reports_one_that_stays(status, sentence,
                                                                      monkeypatch):
    once = [Failure(status, retry_after=SOON), reply(text("Made it."))]
    stays = [Failure(status, retry_after=SOON)] * (1 + RETRIES)
    with MessagesServer(once + stays + [reply(text("Back."))], api_key=KEY,
                        expect=sent_fields()) as server:
        use(server, monkeypatch)
        history, errors = session(["hello", "are you there?", "again"])
    assert errors == [f"error: {sentence}"], "the retried failure costs nothing; the other, a line"
    assert plain(history) == [user("hello"), {"role": "assistant", "content": [text("Made it.")]},
                              *answered("Back.")]
    assert [r.status for r in server.requests] == [status, 200, *[status] * (1 + RETRIES), 200]


def test_the_repl_says_it_cannot_reach_the_api_and_goes_on_when_it_is_back(monkeypatch):
    with socket.socket() as held:  # bound but not listening: connections are refused
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        server = MessagesServer([reply(text("Back online."))], api_key=KEY, port=port)

        class NetworkBack(Lines):
            async def question(self, prompt):
                if len(self.prompts) == 1:  # the second line: the network is back
                    held.close()
                    server.start()
                return await super().question(prompt)

        history, out = [], io.StringIO()
        with contextlib.redirect_stdout(out):
            run(main, NetworkBack(["hello", "again"], history), call_model, history)
        server.stop()
    assert "error: Could not reach the API: check your network connection." in out.getvalue()
    assert plain(history) == answered("Back online.")


@pytest.mark.parametrize("first", [
    reply(text("I'll write the new version."),
          tool_use("toolu_cut", "write_file", {"path": "notes.txt"}), stop_reason="max_tokens"),
    reply(stop_reason="refusal"),  # a refusal may come with no content at all
    reply(text("I can't help with that."), stop_reason="refusal"),
    reply(stop_reason="end_turn"),  # no content, whatever the stop reason: pushed, an empty turn
], ids=["max_tokens", "refusal, empty", "refusal, with text", "end_turn, empty"])
def test_the_repl_drops_a_reply_the_model_did_not_finish_and_says_so(first, monkeypatch):
    with MessagesServer([first, reply(text("Smaller step done."))], api_key=KEY,
                        expect=sent_fields()) as server, scratch_dir() as where:
        use(server, monkeypatch)
        history, errors = session(["hello", "again"], finished_only(call_model))
        assert not (where / "notes.txt").exists(), "a tool_use cut off at max_tokens never runs"
    assert errors == [f"error: {UNFINISHED.get(first.stop_reason, EMPTY)}"]
    assert plain(history) == answered("Smaller step done.")
    assert server.requests[-1].body["messages"] == [user("again")], "no empty turn was sent back"


def test_main_guards_the_real_model_by_default(monkeypatch):
    cut = reply(tool_use("toolu_cut", "write_file", {"path": "notes.txt"}), stop_reason="max_tokens")
    with MessagesServer([cut, reply(text("Smaller step done."))], api_key=KEY) as server, \
            scratch_dir() as where:
        use(server, monkeypatch)
        history, out = [], io.StringIO()
        with contextlib.redirect_stdout(out):
            run(functools.partial(main, messages=history), Lines(["hello", "again"], history))
        assert not (where / "notes.txt").exists(), "main's own default model is finished_only's"
    assert f"error: {UNFINISHED['max_tokens']}" in out.getvalue().splitlines()
    assert plain(history) == answered("Smaller step done.")


def test_finished_only_passes_every_other_reply_through_untouched():
    done, asks = reply(text("Done.")), reply(tool_use("t1", "bash", {"command": "ls"}))

    async def model(messages):
        return done if messages else asks

    async def refuses(messages):
        return reply(stop_reason="refusal")

    checked = finished_only(model)
    assert asyncio.run(checked([user("hi")])) is done and asyncio.run(checked([])) is asks
    with pytest.raises(Unfinished) as info:
        asyncio.run(finished_only(refuses)([user("hi")]))
    assert info.value.reply.stop_reason == "refusal"
    assert_plain_sentence(explain(info.value), "declined")


# --- recording and replaying a session ------------------------------------------------------------

def test_the_recorder_passes_each_request_on_and_keeps_the_exchange_but_not_the_key(monkeypatch):
    with MessagesServer([Failure(429, retry_after=SOON), reply(text("hi"))], api_key=KEY) as api, \
            Recorder(api.url) as recorder:
        use(recorder, monkeypatch)
        message = run(call_model, [user("hello")])
    assert message.content[0].text == "hi"
    assert [r.status for r in api.requests] == [429, 200]
    assert api.requests[0].headers["authorization"] == f"Bearer {KEY}", "the key is passed on"
    assert [r["status"] for r in recorder.requests] == [429, 200]
    assert recorder.requests[0]["error"]["type"] == "rate_limit_error"
    assert [r["body"] for r in recorder.requests] == [r.body for r in api.requests]
    assert recorder.replies == [plain(message)]
    assert KEY not in json.dumps([recorder.requests, recorder.replies]), "the key is never kept"


def test_a_recorder_that_cannot_reach_the_api_hangs_up_like_it(monkeypatch):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        with Recorder(f"http://127.0.0.1:{held.getsockname()[1]}") as recorder:
            use(recorder, monkeypatch)
            monkeypatch.setattr(nano.model, "_client", anthropic.AsyncAnthropic(max_retries=0))
            with pytest.raises(anthropic.APIConnectionError) as info:
                run(call_model, [user("hello")])
    assert recorder.requests == [] and "network" in explain(info.value)


def test_a_replay_serves_the_recording_and_checks_each_conversation(monkeypatch):
    recording = json.loads(TRACE_PATH.read_text(encoding="utf-8"))
    trace = load_trace()
    for answer in ("y", "n"):
        monkeypatch.setattr(nano.model, "_client", None)
        out = io.StringIO()
        with MessagesServer.replaying(recording, api_key=KEY) as server, \
                scratch_dir({"fixtures/convert.py": CONVERT}), contextlib.redirect_stdout(out):
            use(server, monkeypatch)
            history = run(main, scripted_asker([trace.request, answer]), finished_only(call_model))
        check_messages(history, at_rest=True)
        if answer == "y":
            assert plain(history) == trace.entries and "error" not in out.getvalue()
            assert [r.status for r in server.requests] == [200, 200, 200]
        else:  # the third request carries a declined edit, which the recording never saw
            assert history == [] and [r.status for r in server.requests] == [200, 200, 400]
            error = [line for line in out.getvalue().splitlines() if line.startswith("error: ")]
            assert len(error) == 1 and "recorded request 3: messages[4].content[0].content is " \
                '"The user declined' in error[0] and '"Edited fixtures/convert.py"' in error[0]
            assert_plain_sentence(error[0], "replay")


def test_a_recording_without_requests_serves_its_replies_to_any_conversation(monkeypatch):
    with MessagesServer.replaying({"replies": [plain(reply(text("hi")))]}, api_key=KEY) as server:
        use(server, monkeypatch)
        assert run(call_model, [user("anything at all")]).content[0].text == "hi"
    with pytest.raises(ValueError, match="2 answered requests but 1 replies"):
        MessagesServer.replaying({"replies": [plain(reply(text("hi")))],
                                  "requests": [{"status": 200}, {"status": 200}]})
