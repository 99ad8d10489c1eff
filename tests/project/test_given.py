"""The given parts of nano: the protocol checker, the scripted stand-ins, the trace, the terminal."""

import asyncio
import os
import subprocess
import sys

import pytest

from nano.protocol import ProtocolError, check_messages
from nano.testing import (NoAsker, ScriptExhausted, reply, scratch_dir, scripted_asker,
                          scripted_model, text, tool_use)
from nano.trace import load_trace, plain, show, to_html

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def user(content):
    return {"role": "user", "content": content}


def assistant(*blocks):
    return {"role": "assistant", "content": list(blocks)}


def result(tool_id, content="ok", is_error=False):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": is_error}


def test_the_celsius_entries_are_a_valid_log_at_rest():
    check_messages(load_trace().entries, at_rest=True)


def test_sdk_blocks_are_read_like_dicts():
    r = reply(text("hi"), tool_use("t1", "bash", {"command": "ls"}))
    check_messages([user("go"), {"role": "assistant", "content": r.content}, user([result("t1")])])


@pytest.mark.parametrize("messages, at_rest, says", [
    ([{"role": "tool", "content": "x"}], False, "only roles"),
    ([assistant(text("hi"))], False, "starts with the user"),
    ([user("a"), user("b")], False, "roles must alternate"),
    ([user("a"), assistant(tool_use("t1", "bash", {})), user("next")], False, "no tool_result for it"),
    ([user("a"), assistant(text("hi")), user([result("t9")])], False, "no tool_use with that id"),
    ([user([tool_use("t1", "bash", {})])], False, "belongs in an assistant turn"),
    ([user("a"), assistant(result("t1"))], False, "belongs in a user turn"),
    ([user("a"), assistant({"type": "image", "source": {}})], False,
     "is a block of type 'image' in an assistant turn: an assistant turn holds only "),
    ([user("a"), assistant(tool_use("t1", "bash", {})), user([text("x"), result("t1")])], False,
     "must come first"),
    ([user("a"), assistant(tool_use("t1", "a", {}), tool_use("t1", "b", {}))], False, "twice"),
    ([user("a"), assistant(tool_use("t1", "bash", {}))], True, "never answered"),
    ([user("a")], True, "ends with an assistant turn"),
    ([user("")], False, "empty content"),
    ("not a list", False, "must be a list"),
])
def test_check_messages_names_the_broken_rule(messages, at_rest, says):
    with pytest.raises(ProtocolError, match=says):
        check_messages(messages, at_rest=at_rest)


def test_a_pending_tool_use_is_fine_until_the_log_must_be_at_rest():
    log = [user("a"), assistant(text("let me look"), tool_use("t1", "read_file", {"path": "x"}))]
    check_messages(log)
    check_messages([])
    check_messages([], at_rest=True)


def test_scripted_model_plays_its_script_and_remembers_what_it_saw():
    model = scripted_model([reply(text("one")), reply(text("two"))])
    log = [user("hi")]
    first = asyncio.run(model(log))
    log.append({"role": "assistant", "content": first.content})
    asyncio.run(model(log))
    assert [m.content[0].text for m in model.replies] == ["one", "two"]
    assert len(model.seen[0]) == 1 and len(model.seen[1]) == 2
    log.clear()
    assert len(model.seen[1]) == 2, "seen keeps copies, not the caller's list"
    with pytest.raises(ScriptExhausted, match="called 3 times"):
        asyncio.run(model(log))


def test_reply_is_a_real_sdk_message_with_the_right_stop_reason():
    from anthropic.types import Message, ToolUseBlock

    asks = reply(text("x"), tool_use("t1", "bash", {"command": "ls"}))
    assert isinstance(asks, Message) and isinstance(asks.content[1], ToolUseBlock)
    assert asks.stop_reason == "tool_use" and reply(text("x")).stop_reason == "end_turn"
    assert reply(text("x"), stop_reason="max_tokens").stop_reason == "max_tokens"


def test_scripted_asker_answers_in_order_then_ends_input():
    ask = scripted_asker(["y", "n"])
    assert [asyncio.run(ask.question(p)) for p in ("a?", "b?")] == ["y", "n"]
    with pytest.raises(EOFError):
        asyncio.run(ask.question("c?"))
    assert ask.prompts == ["a?", "b?", "c?"]


def test_no_asker_fails_whoever_consults_it():
    ask = NoAsker()
    with pytest.raises(AssertionError, match="should not have been consulted"):
        asyncio.run(ask.question("Allow bash? [y/n] "))
    assert ask.prompts == ["Allow bash? [y/n] "]


def test_scratch_dir_holds_the_files_and_restores_the_working_directory():
    home = os.getcwd()
    with scratch_dir({"a/b.txt": "hi"}) as where:
        assert os.getcwd() == str(where) and (where / "a" / "b.txt").read_text() == "hi"
    assert os.getcwd() == home and not where.exists()


def test_the_trace_is_what_the_reference_loop_makes_of_its_replies():
    """The oracle: three scripted replies and one "y" give exactly the six recorded entries."""
    from nano.loop import agent_loop

    trace = load_trace()
    source = open(os.path.join(ROOT, "fixtures", "convert.py")).read()
    assert "return (c * 5) / 9 + 32" in source
    with scratch_dir({"fixtures/convert.py": source}) as where:
        messages = [user(trace.request)]
        status = asyncio.run(agent_loop(messages, scripted_asker(trace.answers),
                                        scripted_model(trace.replies)))
        fixed = (where / "fixtures" / "convert.py").read_text()
    assert status == "done"
    assert plain(messages) == trace.entries
    assert len(trace.entries) == len(trace.notes) == 6
    assert fixed == source.replace("return (c * 5) / 9 + 32", "return (c * 9) / 5 + 32")


def test_show_renders_cards_linked_by_id_and_escapes_text():
    entries = load_trace().entries
    page = to_html(entries)
    assert page.count("id='use-toolu_01A'") == 1 and "href='#use-toolu_01A'" in page
    assert "<script>" not in to_html([user("<script>alert(1)</script>")])
    assert "[5] assistant: text" in repr(show(entries))
    assert show(entries).highlight == 5


def test_terminal_asker_reads_a_pipe_and_raises_eoferror_at_its_end():
    script = os.path.join(ROOT, "tests", "project", "payloads", "terminal_asker_to_eof.py")
    done = subprocess.run([sys.executable, script], input="fix it\n  y \n", text=True, capture_output=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT}, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "> fix it\n'fix it'\n>   y \n'  y '\n> \nEOF\n", "piped lines are echoed"


def test_python_m_nano_without_a_key_says_so_before_any_prompt(tmp_path):
    """No credential anywhere the SDK looks (no variable, no profile on disk): one sentence on
    stderr naming the key and the command to run again, as the README writes it, and status 2."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["HOME"] = str(tmp_path)  # an empty home: no profile on disk either (~/.config/anthropic)
    done = subprocess.run([sys.executable, "-m", "nano"], input="hello\n", text=True,
                          capture_output=True, cwd=ROOT, env=env, timeout=60)
    assert done.returncode == 2
    assert done.stdout == "", "no prompt before the key is there"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "ANTHROPIC_API_KEY" in lines[0] and "export" in lines[0]
    assert "./python -m nano" in lines[0] and "./python -m nano" in open(os.path.join(ROOT, "README.md")).read()


def test_python_m_nano_names_a_profile_it_cannot_use_in_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_CONFIG_DIR=str(tmp_path), ANTHROPIC_PROFILE="course")
    done = subprocess.run([sys.executable, "-m", "nano"], input="hello\n", text=True,
                          capture_output=True, cwd=ROOT, env=env, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nano cannot use the Anthropic credentials it found: ")
    assert "course" in lines[0], lines[0]


def test_metered_prints_each_replys_tokens_and_the_sessions_running_cost(capsys):
    """nano.cost's meter: one line per reply, its tokens (the cache's shown apart), its cost at
    PRICES and the session's total so far; a model without a price is counted in tokens only."""
    from nano.cost import PRICES, Price, cost, metered, price_of
    from nano.testing import scripted_model

    price = PRICES["claude-sonnet-5-5"]
    assert price_of("claude-sonnet-5-5-20260928") == price and price_of("claude-sonnet-5") is None
    first = reply(text("a")).model_copy(update={"model": "claude-sonnet-5-5"})
    first.usage.input_tokens, first.usage.output_tokens = 1412, 71
    second = reply(text("b")).model_copy(update={"model": "claude-sonnet-5-5-20260928"}, deep=True)
    second.usage.input_tokens, second.usage.output_tokens = 100, 52
    second.usage.cache_read_input_tokens, second.usage.cache_creation_input_tokens = 1500, 145
    unknown = reply(text("c"))
    meter = metered(scripted_model([first, second, unknown]))
    for _ in range(3):
        asyncio.run(meter([{"role": "user", "content": "hi"}]))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "· 1,412 tokens in, 71 out: $0.0035 (this session: $0.0035)"
    assert cost(second.usage, price) == pytest.approx((100 * 2 + 52 * 10 + 1500 * 0.10 + 145 * 2.50) / 1e6)
    assert lines[1] == (f"· 1,745 tokens in (1,500 read from the cache, 145 written to it), 52 out: "
                        f"${cost(second.usage, price):.4f} (this session: ${meter.spent:.4f})")
    assert lines[2] == "· 0 tokens in, 0 out (no price for scripted in nano/cost.py)"
    assert meter.calls == 3 and meter.spent == pytest.approx(cost(first.usage, price) + cost(second.usage, price))
    assert Price(1, 2, 3, 4) == Price(input=1, output=2, cache_write=3, cache_read=4)


def test_nano_is_not_installed_where_graded_code_could_import_it(tmp_path):
    done = subprocess.run([sys.executable, "-c", "import nano"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode != 0 and "No module named 'nano'" in done.stderr


def test_compare_sets_produced_beside_expected_and_marks_each_difference():
    from nano.trace import compare

    entries = load_trace().entries
    assert compare(entries, entries).same and "all match" in compare(entries, entries).summary()
    changed = [dict(e) for e in entries[:5]]
    changed[2] = {"role": "user", "content": [result("toolu_WRONG")]}
    differs = compare(changed, entries)
    assert differs.differences == [2, 5]
    assert "entries [2, 5] differ" in repr(differs) and "toolu_WRONG" in repr(differs)
    assert differs._repr_html_().count("background:#ffd6d6") == 2, "one red row per difference"


def test_a_loop_that_never_stops_asking_is_stopped_past_what_except_exception_catches():
    from nano.testing import RUNAWAY_AFTER, Runaway

    async def keeps_asking(ask):
        while True:
            try:
                await ask.question("> ")
            except Exception:  # a REPL that wrongly carries on after EOFError
                pass

    ask = scripted_asker(["hello"])
    with pytest.raises(Runaway, match="never stops"):
        asyncio.run(keeps_asking(ask))
    assert len(ask.prompts) == 1 + RUNAWAY_AFTER

    model = scripted_model([])
    for _ in range(RUNAWAY_AFTER):
        with pytest.raises(ScriptExhausted):
            asyncio.run(model([]))
    with pytest.raises(Runaway):
        asyncio.run(model([]))
