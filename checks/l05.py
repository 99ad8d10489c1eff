"""Lecture 05's visible checks: call_model (nano/model.py) and agent_loop (nano/loop.py).

Each runs in a new empty folder (see checks/__init__.py). call_model's checks hand it a
stand-in client and no API key; agent_loop's replace run_tool and confirm with stand-ins
(nano.testing.stand_in: a tool runner that returns canned text, a gate that answers from a
list), so that they test the loop and nothing else, and a scripted model plays the model.
"""

import nano.loop  # noqa: F401 (loaded first: a file that does not load is named before any check runs)
import nano.model  # noqa: F401

import contextlib
import importlib.util
import os

FIELDS = ["max_tokens", "messages", "model", "system", "tools"]


class StandInClient:
    """Records what call_model asks of its client instead of sending it anywhere."""

    def __init__(self):
        self.messages = self  # so that client.messages.create(...) lands on create below
        self.sent = []

    async def create(self, **fields):
        self.sent.append(fields)
        return "the reply"


@contextlib.contextmanager
def offline_client(built_too=False):
    """nano.model._client is a StandInClient, and no key is set: a client call_model builds
    itself cannot reach anything. With `built_too`, a client it builds is the stand-in as well
    (anthropic.AsyncAnthropic returns it), so that what is sent is checked whether or not the
    client is reused: that is the other check's business."""
    import nano.model

    saved_env = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("ANTHROPIC_")}
    os.environ["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"
    stand_in, saved = StandInClient(), nano.model._client
    nano.model._client = stand_in
    sdk = getattr(nano.model, "anthropic", None)
    built = getattr(sdk, "AsyncAnthropic", None) if built_too else None
    if built is not None:
        sdk.AsyncAnthropic = lambda *args, **kwargs: stand_in
    try:
        yield stand_in
    finally:
        if built is not None:
            sdk.AsyncAnthropic = built
        nano.model._client = saved
        os.environ.pop("ANTHROPIC_BASE_URL", None)
        os.environ.update(saved_env)


async def calls_through(stand_in, *conversations):
    """call_model on each conversation; AssertionError if it did not go through `stand_in`."""
    import nano.model

    for messages in conversations:
        try:
            got = await nano.model.call_model(messages)
        except NotImplementedError:
            raise
        except Exception as exc:
            raise AssertionError(f"call_model must use the client in _client when it holds one (build one only "
                                 f"when _client is None); it raised {type(exc).__name__}: {exc} (section 1)") from None
        assert got == "the reply", "call_model must return what messages.create returned (section 1)"


async def l05_call_model_sends_five_fields():
    with offline_client(built_too=True) as stand_in:
        await calls_through(stand_in, [{"role": "user", "content": "hi"}])
    assert len(stand_in.sent) == 1, f"one call_model must make one messages.create call, it made {len(stand_in.sent)} (section 1)"
    assert sorted(stand_in.sent[0]) == FIELDS, (
        f"call_model must send exactly model, max_tokens, system, tools and messages; it sent {sorted(stand_in.sent[0])} (section 1)")


async def l05_call_model_reuses_client():
    import nano.model

    saved_env = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("ANTHROPIC_")}
    try:  # a fresh copy of nano/model.py, imported with no key: it must build no client
        spec = importlib.util.spec_from_file_location("_fresh_nano_model", nano.model.__file__)
        fresh = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(fresh)
    finally:
        os.environ.update(saved_env)
    assert fresh._client is None, "importing nano/model.py must not build a client: build it in call_model (section 1)"
    with offline_client() as stand_in:
        await calls_through(stand_in, [{"role": "user", "content": "one"}], [{"role": "user", "content": "two"}])
        after = nano.model._client
    assert len(stand_in.sent) == 2 and after is stand_in, (
        "when _client already holds a client, call_model must use it and keep it (section 1)")


def canned(name, input):
    return f"output of {name} {input.get('path', '')}".strip()


async def yes_gate(ask, name, input):
    return True


async def looped(replies, messages=None, tools=canned, gate=yes_gate, **limit):
    """(the messages after agent_loop, the scripted model) for a run on `replies`, with run_tool
    and confirm replaced by `tools` and `gate`, and call_model by a stand-in that fails."""
    import nano.gate
    import nano.model
    import nano.tools
    from nano.loop import agent_loop
    from nano.testing import NoAsker, scripted_model, stand_in

    async def not_call_model(messages):
        raise AssertionError("agent_loop called call_model by name; it must call the model it was given (section 2)")

    model = scripted_model(replies)
    messages = [{"role": "user", "content": "Go."}] if messages is None else messages
    with stand_in(nano.tools.run_tool, tools), stand_in(nano.gate.confirm, gate), \
            stand_in(nano.model.call_model, not_call_model):
        status = await agent_loop(messages, NoAsker(), model, **limit)
    return messages, model, status


async def l05_text_reply_ends():
    from nano.testing import reply, text

    def no_tool(name, input):
        raise AssertionError(f"agent_loop ran {name}, but the reply asked for no tool (section 2)")

    async def no_gate(ask, name, input):
        raise AssertionError(f"agent_loop asked the gate about {name}, but the reply asked for no tool (section 2)")

    messages, model, status = await looped([reply(text("Nothing to do here."))], tools=no_tool, gate=no_gate)
    assert model.calls == 1, f"a text-only reply must end the loop after one model call; it made {model.calls} (section 2)"
    assert len(messages) == 2 and messages[1]["role"] == "assistant", (
        f"expected two entries, user then assistant; got {[m.get('role') for m in messages]} (section 2)")
    assert status == "done", f"agent_loop returned {status!r}; a finished run returns 'done' (section 4)"


async def l05_assistant_turn_verbatim():
    from nano.testing import reply, text, thinking, tool_use
    from nano.trace import plain

    replies = [reply(thinking(), text("Let me look."), tool_use("toolu_v1", "list_files", {"path": "."})),
               reply(thinking(), text("Here is my answer."), text("And a second paragraph."))]
    messages, model, _ = await looped(replies)
    for index, sent in ((1, replies[0]), (3, replies[1])):
        assert plain(messages[index].get("content")) == plain(sent.content), (
            f"messages[{index}] must be the reply's content as it came, thinking block included: the API refuses "
            f"a tool-use turn sent back without it; it was {plain(messages[index].get('content'))!r} (section 2)")
        assert messages[index] == {"role": "assistant", "content": sent.content}, (
            'the assistant entry must be exactly {"role": "assistant", "content": reply.content} (section 2)')
        assert all(a is b for a, b in zip(messages[index]["content"], sent.content)), (
            "the assistant entry must hold the reply's own blocks, not rebuilt copies (section 2)")
    assert plain(model.seen[1][1]["content"]) == plain(replies[0].content), (
        "the second model call must be sent the first reply unchanged, thinking block included (section 2)")


async def l05_results_matched_by_id():
    from nano.testing import reply, text, tool_use

    ran = []

    def recording(name, input):
        ran.append((name, dict(input)))
        return f"contents of {input.get('path')}"

    messages, model, _ = await looped([reply(tool_use("toolu_check_1", "read_file", {"path": "notes.txt"})),
                                       reply(text("Read it."))], tools=recording)
    assert ran == [("read_file", {"path": "notes.txt"})], f"run_tool must run the requested tool once; it ran {ran} (section 3)"
    assert messages[2] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_check_1", "content": "contents of notes.txt", "is_error": False}]}, (
        f"messages[2] must be one user message holding the tool_result for toolu_check_1, with exactly type, "
        f"tool_use_id, content and is_error; got {messages[2]!r} (sections 3 and 4)")
    assert model.seen[1][-1]["content"][0].get("tool_use_id") == "toolu_check_1", "the second model call must see the result (section 4)"


async def l05_tool_error_becomes_result():
    from nano.testing import reply, text, tool_use

    def missing(name, input):
        raise FileNotFoundError(f"No such file: {input['path']}")

    messages, model, status = await looped([reply(tool_use("toolu_err_1", "read_file", {"path": "missing.txt"})),
                                            reply(text("That file is missing."))], tools=missing)
    result = messages[2]["content"][0]
    assert result.get("is_error") is True, "a tool that raised must give a result with is_error: True (section 3)"
    assert result.get("tool_use_id") == "toolu_err_1", "the error result must carry the block's id (section 3)"
    assert "missing.txt" in str(result.get("content", "")), "the error result must carry the exception's message (section 3)"
    assert model.calls == 2 and status == "done", "after an error result the loop must go on and call the model again (section 3)"


async def l05_declined_tool_never_runs():
    from nano.testing import reply, text, tool_use

    events = []

    def recording(name, input):
        events.append(("run", name))
        return f"ran {name}"

    async def saying_no(ask, name, input):
        events.append(("ask", name))
        return False

    messages, model, _ = await looped([reply(tool_use("toolu_no_1", "bash", {"command": "rm -rf build"})),
                                       reply(text("All right, I won't."))], tools=recording, gate=saying_no)
    assert events == [("ask", "bash")], f"a declined bash must be asked about once and never run; saw {events} (section 3)"
    result = messages[2]["content"][0]
    assert "declined" in str(result.get("content")).lower(), "a declined call's result must say it was declined (section 3)"
    assert result.get("is_error") is False, "a declined call is not an error: is_error must be False, written out (section 3)"
    assert result.get("tool_use_id") == "toolu_no_1", "the declined result must carry the block's id (section 3)"
    assert model.calls == 2, "after a denial the loop goes on and tells the model (section 3)"


async def l05_ungated_tools_skip_gate():
    from nano.testing import reply, text, tool_use

    asked = []

    async def recording_gate(ask, name, input):
        asked.append(name)
        return True

    await looped([reply(tool_use("toolu_u1", "list_files", {"path": "."})),
                  reply(tool_use("toolu_u2", "read_file", {"path": "a.txt"})),
                  reply(text("Seen it."))], gate=recording_gate)
    assert asked == [], (
        f"read_file and list_files are not gated: the gate must not be consulted (it was asked about {asked}) (section 3)")


async def l05_one_user_message_for_all_results():
    from nano.testing import reply, text, tool_use

    messages, _, _ = await looped([reply(tool_use("toolu_p1", "read_file", {"path": "a.txt"}),
                                         tool_use("toolu_p2", "read_file", {"path": "b.txt"})),
                                   reply(text("Both read."))])
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant", "user", "assistant"], (
        f"two results of one turn go back in ONE user message; roles were {roles} (section 4)")
    assert [r.get("tool_use_id") for r in messages[2]["content"]] == ["toolu_p1", "toolu_p2"], (
        "the user message must hold both results, in the order of the requests (section 4)")


async def l05_callers_list_mutated():
    from nano.testing import reply, text, tool_use

    history = [{"role": "user", "content": "What files are here?"}]
    same_list = history
    await looped([reply(tool_use("toolu_l1", "list_files", {"path": "."})), reply(text("Just a.txt."))], history)
    assert len(same_list) == 4, (
        f"agent_loop must append to the caller's list; the caller's list has {len(same_list)} entries, expected 4 (section 4)")


async def l05_turn_limit():
    from nano.testing import reply, tool_use

    for limit, scripted in (({"max_turns": 2}, 3), ({}, 26)):
        asks = [reply(tool_use(f"toolu_forever_{n}", "list_files", {"path": "."})) for n in range(scripted)]
        try:
            _, model, status = await looped(asks, **limit)
        except AssertionError as exc:  # the scripted model ran out: the loop did not stop
            raise AssertionError(f"agent_loop must stop after max_turns model calls ({scripted - 1} here): {exc} "
                                 "(section 4)") from None
        assert model.calls == scripted - 1, (
            f"with max_turns={scripted - 1} the model must be called {scripted - 1} times; it was called {model.calls} "
            "times (section 4)")
        assert status == "max_turns", f"a run cut off by the limit must return 'max_turns', not {status!r} (section 4)"


async def l05_celsius_trace_matches():
    from nano.trace import compare, load_trace

    trace = load_trace()
    output = {"read_file": trace.entries[2]["content"][0]["content"], "edit_file": trace.entries[4]["content"][0]["content"]}
    answers = list(trace.answers)

    def trace_tools(name, input):
        return output[name]

    async def trace_gate(ask, name, input):
        return (answers.pop(0) if answers else "y").strip().lower() in ("y", "yes")

    messages, _, status = await looped(trace.replies, [{"role": "user", "content": trace.request}],
                                       tools=trace_tools, gate=trace_gate)
    comparison = compare(messages, trace.entries)
    assert comparison.same, f"your loop's entries differ from the Celsius trace (section 5):\n{comparison!r}"
    assert status == "done", f"agent_loop returned {status!r} after the trace, expected 'done' (section 5)"
