"""Lecture 06's visible checks: main, the REPL around agent_loop (nano/repl.py).

Each runs in a new empty folder (see checks/__init__.py). agent_loop is replaced by small
stand-ins (nano.testing.stand_in), so these test main alone: a bug in your lecture-05 loop does
not show up here. A scripted human types the lines, then input ends (EOFError).
"""

import nano.repl  # noqa: F401 (loaded first: a file that does not load is named before any check runs)

import contextlib
import io
import warnings

from nano.testing import ScriptedAsker


class Lines(ScriptedAsker):
    """A scripted human: EOFError when out of lines, and a hard stop if main keeps asking after that."""

    async def question(self, prompt):
        if len(self.prompts) > len(self.answers) + 2:
            raise SystemExit("main kept asking after the input had ended (section 2)")
        return await super().question(prompt)


def said(message):
    content = message["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content if b.get("type") == "text")


def answer(text):
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def canned_loop():
    """An agent_loop stand-in: records each call, appends one text-only assistant turn."""
    calls = []

    async def fake_agent_loop(messages, ask=None, model=None, *args, **kwargs):
        calls.append({"messages": messages, "length": len(messages), "ask": ask, "model": model})
        messages.append(answer(f"answer {len(calls)}"))
        return "done"

    fake_agent_loop.calls = calls
    return fake_agent_loop


async def run_main(loop, lines, section, *args, at_rest=False, **kwargs):
    """(what main returned, the asker, its stdout) for `lines` typed, with agent_loop replaced by
    `loop`; an AssertionError naming `section` if main raised, or (with `at_rest`) left a
    history that check_messages(..., at_rest=True) refuses."""
    import nano.loop
    import nano.repl
    from nano.protocol import ProtocolError, check_messages
    from nano.testing import stand_in

    asker, out = Lines(lines), io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(stand_in(nano.loop.agent_loop, loop))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        try:
            log = await nano.repl.main(asker, *args, **kwargs)
        except NotImplementedError:
            raise
        except BaseException as exc:
            raise AssertionError(f"main raised {type(exc).__name__}: {exc}: a failed turn must not end main "
                                 f"(section {section})") from None
    if at_rest:
        try:
            check_messages(log, at_rest=True)
        except ProtocolError as exc:
            raise AssertionError(f"after a failed turn, main (nano/repl.py) must pop the unfinished tail until "
                                 f"check_messages(messages, at_rest=True) holds (section {section}); the history "
                                 f"it left: {exc}") from None
    return log, asker, out.getvalue()


def errors(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("error: ")]


async def l06_one_history_across_lines():
    fake = canned_loop()
    earlier = [{"role": "user", "content": "hello"}, answer("Hi! What shall we work on?")]
    log, _, _ = await run_main(fake, ["list the files", "now read notes.md"], 1, messages=earlier)
    assert log is earlier, "main must add to the caller's list and return that same list (section 1)"
    assert isinstance(log, list) and len(log) == 6, f"two lines on top of two entries make six entries, not {len(log)} (section 1)"
    assert [said(log[2]), said(log[4])] == ["list the files", "now read notes.md"], (
        "each line goes onto the history as a user message, in order (section 1)")
    assert [call["length"] for call in fake.calls] == [3, 5] and all(c["messages"] is earlier for c in fake.calls), (
        "every line must be run on the same list, so the second line's turn sees the first's: one history (section 1)")
    empty = []
    fresh, _, _ = await run_main(canned_loop(), ["first", "second"], 1, messages=empty)
    assert fresh is empty and len(empty) == 4, (
        "main must add to the list it is given even when that list is empty (test `messages is None`, not "
        "`messages or []`) (section 1)")


async def l06_passes_ask_and_model():
    from nano.testing import reply, text

    calls = []

    async def loop_calling_the_model(messages, ask=None, model=None, *args, **kwargs):
        calls.append({"ask": ask, "model": model})
        messages.append({"role": "assistant", "content": (await model(messages)).content})
        return "done"

    async def model(messages):
        return reply(text("It converts temperatures."))

    _, asker, _ = await run_main(loop_calling_the_model, ["what does convert.py do?"], 1, model=model)
    assert len(calls) == 1, f"one line must run agent_loop once, not {len(calls)} times (section 1)"
    assert calls[0]["ask"] is asker, "main must hand its own asker to agent_loop, so the gate asks the same human (section 1)"
    assert calls[0]["model"] is model, "main must hand its model to agent_loop (section 1)"


async def l06_blank_lines_skipped():
    fake = canned_loop()
    log, _, _ = await run_main(fake, ["", "   ", "what does convert.py do?"], 2)
    assert len(fake.calls) == 1, f"a blank line must not run agent_loop: it ran {len(fake.calls)} times (section 2)"
    assert len(log) == 2 and said(log[0]) == "what does convert.py do?", (
        f"a blank line must not be pushed onto the history: {log!r} (section 2)")


async def l06_exit_stops():
    fake = canned_loop()
    log, asker, _ = await run_main(fake, ["fix the exit code", "exit", "this line is never read"], 2)
    assert len(asker.prompts) == 2, f"main must stop reading at 'exit'; it asked {len(asker.prompts)} questions (section 2)"
    assert len(fake.calls) == 1 and len(log) == 2, (
        "only the line exit stops main, a request that mentions exit is run; 'exit' itself is never pushed nor run (section 2)")


async def l06_end_of_input_stops():
    fake = canned_loop()
    log, asker, _ = await run_main(fake, ["first request", "second request"], 2)  # then EOFError
    assert isinstance(log, list) and len(log) == 4, "every line before the end of input is run, then main returns (section 2)"
    assert len(asker.prompts) == 3, "main stops at the first EOFError, without asking again (section 2)"


def use(tool_id, name, tool_input):
    return {"role": "assistant", "content": [{"type": "text", "text": "On it."},
                                             {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]}


def result(tool_id, content):
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": False}]}


async def failing_turns(messages, ask=None, model=None, *args, **kwargs):
    """An agent_loop stand-in whose turns fail at different depths, by the line's first word."""
    line = said(messages[-1])
    word = line.split()[0]
    if word == "crash":  # a dangling tool_use, then the turn fails
        messages.append(use("toolu_c" + str(len(messages)), "read_file", {"path": "setup.cfg"}))
        raise RuntimeError(f"lost the connection during: {line}")
    if word == "deep":  # a tool answered, a second one dangling, then the turn fails
        messages.append(use("toolu_d1", "list_files", {"path": "src"}))
        messages.append(result("toolu_d1", "app.py\nutil.py"))
        messages.append(use("toolu_d2", "edit_file", {"path": "src/app.py", "old_string": "a", "new_string": "b"}))
        raise ConnectionResetError("the peer reset the connection")
    messages.append(answer(f"done: {line}"))
    return "done"


async def l06_dangling_tool_use_repaired():
    import nano.repl

    log, _, out = await run_main(failing_turns, ["ok first", "crash now", "deep down", "ok last"], 3, at_rest=True)
    assert [said(m) for m in log if m["role"] == "user"] == ["ok first", "ok last"], (
        "each failed turn must be popped, the turns before and after it kept (section 3)")
    assert errors(out) == [f"error: {nano.repl.explain(RuntimeError('lost the connection during: crash now'))}",
                           f"error: {nano.repl.explain(ConnectionResetError('the peer reset the connection'))}"], (
        f"one failed turn, one line 'error: ' + explain(exc) on stdout; the output was {out!r} (section 3)")


async def l06_ctrl_c_during_a_turn():
    async def interrupted_turns(messages, ask=None, model=None, *args, **kwargs):
        line = said(messages[-1])
        if line.startswith("stop"):
            messages.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_k1", "name": "bash", "input": {"command": "sleep 600"}}]})
            raise KeyboardInterrupt
        messages.append(answer(f"done: {line}"))
        return "done"

    log, _, _ = await run_main(interrupted_turns, ["list the files", "stop that sleep", "read notes.md"], 3, at_rest=True)
    assert [said(m) for m in log if m["role"] == "user"] == ["list the files", "read notes.md"], (
        "after Ctrl-C main must repair the log and read the next line: catch KeyboardInterrupt too (section 3)")


async def l06_turn_limit_repaired():
    async def limited_loop(messages, ask=None, model=None, *args, **kwargs):
        line = said(messages[-1])
        if line.startswith("loop"):
            messages.append(use("toolu_m1", "bash", {"command": "pytest -x"}))
            messages.append(result("toolu_m1", "exit code: 1"))
            return "max_turns"
        messages.append(answer(f"done: {line}"))
        return "done"

    log, _, out = await run_main(limited_loop, ["loop until the tests pass", "something small"], 4, at_rest=True)
    assert [said(m) for m in log if m["role"] == "user"] == ["something small"], (
        "a turn cut off by the turn limit must be popped like a failed one (section 4)")
    assert len(errors(out)) == 1 and len(errors(out)[0]) > len("error: "), (
        f"the turn limit must be reported on one line 'error: ...'; the output was {out!r} (section 4)")


async def l06_model_error_reported():
    import nano.repl
    from nano.testing import reply, text

    async def loop_calling_the_model(messages, ask=None, model=None, *args, **kwargs):
        messages.append({"role": "assistant", "content": (await model(messages)).content})
        return "done"

    bug = RuntimeError("the model fell over")
    calls = []

    async def flaky_model(messages):
        calls.append(len(messages))
        if len(calls) == 1:
            raise bug
        return reply(text("Fine now."))

    log, _, out = await run_main(loop_calling_the_model, ["first try", "second try"], 5, model=flaky_model)
    assert [said(m) for m in log if m["role"] == "user"] == ["second try"], (
        "after a model error main must repair the history and read the next line (section 5)")
    assert errors(out) == [f"error: {nano.repl.explain(bug)}"], (
        f"print 'error: ' + explain(exc) on one line of stdout, once per failed turn; the output was {out!r} (section 5)")
