"""./ok 06: main, the REPL around agent_loop (lecture 06).

agent_loop is replaced by small stand-ins here, so these checks test main alone: a bug in your
lecture-05 loop does not show up as a lecture-06 failure. Each check names the behaviour it
tests, as the graded cells of lecture 06 do. These are the quick checks; the graded cells at
grading time try more lines, more errors and more ways for a turn to fail.
"""

import asyncio
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nano.loop
import nano.repl
from nano.protocol import check_messages
from nano.testing import ScriptedAsker, reply, stand_in, text, tool_use

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def use_loop():
    """Install a stand-in for agent_loop, however main reaches it (nano.testing.stand_in)."""
    with contextlib.ExitStack() as stack:

        def install(fake):
            stack.enter_context(stand_in(nano.loop.agent_loop, fake))
            return fake

        yield install


def canned_loop():
    """A stand-in agent_loop: each call records what it was given and appends one text reply."""
    calls = []

    async def fake_agent_loop(messages, ask=None, model=None, *args, **kwargs):
        calls.append({"messages": messages, "length": len(messages), "ask": ask, "model": model})
        messages.append({"role": "assistant", "content": [text(f"answer {len(calls)}")]})
        return "done"

    fake_agent_loop.calls = calls
    return fake_agent_loop


class Lines(ScriptedAsker):
    """A scripted human (EOFError when out of lines) that stops a main which keeps asking after that."""

    async def question(self, prompt):
        if len(self.prompts) > len(self.answers) + 2:
            raise SystemExit("main kept asking after the input had ended (section 2)")
        return await super().question(prompt)


def run(lines, **kwargs):
    asker = Lines(lines)
    return asyncio.run(nano.repl.main(asker, **kwargs)), asker


def said(message):
    content = message["content"]
    if isinstance(content, str):
        return content
    return " ".join(block["text"] for block in content if block.get("type") == "text")


def test_one_history_across_lines(use_loop):
    fake = use_loop(canned_loop())
    earlier = [{"role": "user", "content": "hello"},
               {"role": "assistant", "content": [text("Hi! What shall we work on?")]}]
    log, _ = run(["list the files", "now read notes.md"], messages=earlier)
    assert log is earlier, "main must add to the caller's list and return that same list (section 1)"
    assert len(log) == 6, f"two lines on top of two entries make six entries, not {len(log)} (section 1)"
    assert [m["role"] for m in log] == ["user", "assistant"] * 3, "roles must alternate (section 1)"
    assert [said(log[2]), said(log[4])] == ["list the files", "now read notes.md"], (
        "each line goes onto the history as a user message, in order (section 1)")
    assert len(fake.calls) == 2, f"agent_loop must run once per line, not {len(fake.calls)} times (section 1)"
    assert all(call["messages"] is earlier for call in fake.calls), (
        "every line must be run on the same list: one history across lines (section 1)")
    assert [call["length"] for call in fake.calls] == [3, 5], (
        "the second line's turn must see the first line's turn: keep one list (section 1)")


def test_passes_ask_and_model(use_loop):
    fake = use_loop(canned_loop())
    model = object()  # main only hands it on; the stand-in loop never calls it
    _, asker = run(["fix the bug"], model=model)
    assert len(fake.calls) == 1, "one line, one run of agent_loop (section 1)"
    assert fake.calls[0]["ask"] is asker, (
        "main must hand its own asker to agent_loop, so the gate asks the same human (section 1)")
    assert fake.calls[0]["model"] is model, "main must hand its model to agent_loop (section 1)"


def test_blank_lines_skipped(use_loop):
    fake = use_loop(canned_loop())
    log, _ = run(["", "what does convert.py do?"])
    assert len(fake.calls) == 1, "a blank line must not run agent_loop (section 2)"
    assert len(log) == 2 and said(log[0]) == "what does convert.py do?", (
        f"a blank line must not be pushed onto the history; got {len(log)} entries (section 2)")


def test_exit_stops(use_loop):
    fake = use_loop(canned_loop())
    log, asker = run(["read convert.py", "exit", "this line is never read"])
    assert len(asker.prompts) == 2, (
        f"main must stop reading at 'exit'; it asked {len(asker.prompts)} questions (section 2)")
    assert len(fake.calls) == 1 and len(log) == 2, "'exit' is not a request: don't push it or run it (section 2)"


def test_end_of_input_stops(use_loop):
    fake = use_loop(canned_loop())
    log, asker = run(["first request", "second request"])  # then the asker raises EOFError
    assert len(fake.calls) == 2 and len(log) == 4, "every line before the end of input runs (section 2)"
    assert len(asker.prompts) == 3, "main stops at the first EOFError, without asking again (section 2)"


def test_dangling_tool_use_repaired(use_loop, capsys):
    async def fake_agent_loop(messages, ask=None, model=None, *args, **kwargs):
        if said(messages[-1]) == "break it":
            messages.append({"role": "assistant", "content": [
                text("Let me look."), tool_use("toolu_dangling", "read_file", {"path": "a.txt"})]})
            raise RuntimeError("the tool never ran")
        messages.append({"role": "assistant", "content": [text("Done.")]})
        return "done"

    use_loop(fake_agent_loop)
    log, _ = run(["first", "break it", "third"])
    check_messages(log, at_rest=True)  # raises ProtocolError, saying what is wrong, if not repaired
    assert [said(m) for m in log if m["role"] == "user"] == ["first", "third"], (
        "the failed turn must be popped, the turns before and after it kept (section 3)")
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: {nano.repl.explain(RuntimeError('the tool never ran'))}"], (
        f"one failed turn, one line 'error: ' + explain(exc) on stdout; the output was {out!r} (section 3)")


def test_turn_limit_repaired(use_loop, capsys):
    async def fake_agent_loop(messages, ask=None, model=None, *args, **kwargs):
        if said(messages[-1]) == "go on forever":
            messages.append({"role": "assistant", "content": [tool_use("toolu_9", "list_files", {"path": "."})]})
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_9", "content": "a.txt", "is_error": False}]})
            return "max_turns"
        messages.append({"role": "assistant", "content": [text("Done.")]})
        return "done"

    use_loop(fake_agent_loop)
    log, _ = run(["go on forever", "something small"])
    check_messages(log, at_rest=True)
    assert [said(m) for m in log if m["role"] == "user"] == ["something small"], (
        "a turn cut off by the turn limit must be popped like a failed one (section 4)")
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and len(errors[0]) > len("error: "), (
        f"the turn limit must be reported on one line 'error: ...'; the output was {out!r} (section 4)")


def test_model_error_reported(use_loop, capsys):
    async def loop_calling_the_model(messages, ask=None, model=None, *args, **kwargs):
        answer = await model(messages)
        messages.append({"role": "assistant", "content": answer.content})
        return "done"

    failure = RuntimeError("the model fell over")
    calls = []

    async def flaky_model(messages):
        calls.append(len(messages))
        if len(calls) == 1:
            raise failure
        return reply(text("Fine now."))

    use_loop(loop_calling_the_model)
    log, _ = run(["first try", "second try"], model=flaky_model)
    assert [said(m) for m in log if m["role"] == "user"] == ["second try"], (
        "after a model error main must repair the history and read the next line (section 5)")
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: {nano.repl.explain(failure)}"], (
        f"print 'error: ' + explain(exc) on one line, once per failed turn; the output was {out!r} (section 5)")


def test_python_m_nano_without_a_key():
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    done = subprocess.run([sys.executable, "-m", "nano"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    said_it = done.stdout + done.stderr
    assert "ANTHROPIC_API_KEY" in said_it, f"python -m nano must name the missing key; it said {said_it!r} (section 6)"
    assert "> " not in done.stdout, "without a key, python -m nano must stop before the first prompt (section 6)"
    assert done.returncode != 0, "without a key, python -m nano must exit with an error code (section 6)"
