"""./ok 05: agent_loop, driven by a scripted model, running your own tools (lectures 02-04).

Five scenarios, (a) to (e), as in the lecture; in (e) every reply opens with a thinking block. They use your real run_tool and confirm, so a
tool that is still a stub shows up here too. The graded tests in the notebook check more.
"""

import asyncio

from nano.loop import agent_loop
from nano.testing import NoAsker, reply, scripted_asker, scripted_model, text, thinking, tool_use
from nano.trace import plain


def run(messages, ask, model):
    return asyncio.run(agent_loop(messages, ask, model))


def test_text_reply_ends(tmp_path, monkeypatch):
    """A reply with only text ends the loop after one model call, with two entries."""
    monkeypatch.chdir(tmp_path)
    model = scripted_model([reply(text("Hello! Nothing to do here."))])
    messages = [{"role": "user", "content": "Say hello."}]
    status = run(messages, NoAsker(), model)
    assert model.calls == 1, f"the model was called {model.calls} times; a text-only reply ends the loop (section 2)"
    assert [m["role"] for m in messages] == ["user", "assistant"], (
        f"expected user, assistant; got {[m['role'] for m in messages]} (section 2)")
    assert status == "done", f"agent_loop returned {status!r}; a finished run returns 'done' (section 4)"


def test_results_matched_by_id(tmp_path, monkeypatch):
    """A tool result goes back to the model in a user message, matched to its request by id."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("remember the milk\n", encoding="utf-8")
    model = scripted_model([
        reply(tool_use("toolu_b1", "read_file", {"path": "notes.txt"})),
        reply(text("It says to remember the milk.")),
    ])
    messages = [{"role": "user", "content": "What does notes.txt say?"}]
    run(messages, NoAsker(), model)
    assert len(messages) == 4, f"expected 4 entries (user, assistant, user, assistant), got {len(messages)} (section 4)"
    results = messages[2]["content"]
    assert messages[2]["role"] == "user" and len(results) == 1, "the tool result must go back as one user message (section 4)"
    result = results[0]
    assert result["type"] == "tool_result", f"expected a tool_result block, got {result!r} (section 3)"
    assert result["tool_use_id"] == "toolu_b1", f"tool_use_id must be the tool_use block's id, got {result['tool_use_id']!r} (section 3)"
    assert "remember the milk" in result["content"], "the result must carry what read_file returned (section 3)"
    assert sorted(result) == ["content", "is_error", "tool_use_id", "type"], (
        f"a tool_result holds exactly type, tool_use_id, content and is_error; got {sorted(result)} (section 3)")
    assert result["is_error"] is False, "a tool that succeeded is not an error: is_error must be False, written out (section 3)"
    assert model.seen[1][-1]["content"][0]["tool_use_id"] == "toolu_b1", "the second model call must see the result (section 4)"


def test_tool_error_becomes_result(tmp_path, monkeypatch):
    """A tool that raises (a missing file) comes back as is_error: True, and the loop goes on."""
    monkeypatch.chdir(tmp_path)
    model = scripted_model([
        reply(tool_use("toolu_c1", "read_file", {"path": "missing.txt"})),
        reply(text("Sorry, that file is missing.")),
    ])
    messages = [{"role": "user", "content": "Read missing.txt."}]
    status = run(messages, NoAsker(), model)
    result = messages[2]["content"][0]
    assert result["is_error"] is True, "an exception from the tool must give is_error: True (section 3)"
    assert result["tool_use_id"] == "toolu_c1", "the error result must carry the block's id (section 3)"
    assert model.calls == 2 and messages[-1]["role"] == "assistant", (
        "after an error result the loop must call the model again (section 3)")
    assert status == "done", f"agent_loop returned {status!r}, expected 'done' (section 4)"


def test_declined_tool_never_runs(tmp_path, monkeypatch):
    """A bash call the human declines never runs, and comes back "declined", not as an error."""
    monkeypatch.chdir(tmp_path)
    model = scripted_model([
        reply(tool_use("toolu_d1", "bash", {"command": "echo pwned > sentinel.txt"})),
        reply(text("Understood, I won't run it.")),
    ])
    asker = scripted_asker(["n"])
    messages = [{"role": "user", "content": "Run the command."}]
    run(messages, asker, model)
    assert len(asker.prompts) == 1, f"the gate must ask once for a gated tool, it asked {len(asker.prompts)} times (section 3)"
    assert not (tmp_path / "sentinel.txt").exists(), "a declined bash command must never run (section 3)"
    result = messages[2]["content"][0]
    assert "declined" in result["content"].lower(), f"a declined call's result must say 'declined', got {result['content']!r} (section 3)"
    assert sorted(result) == ["content", "is_error", "tool_use_id", "type"], (
        f"a tool_result holds exactly type, tool_use_id, content and is_error; got {sorted(result)} (section 3)")
    assert result["is_error"] is False, "a declined call is not an error: is_error must be False, written out (section 3)"
    assert result["tool_use_id"] == "toolu_d1", "the declined result must carry the block's id (section 3)"


def test_two_tool_rounds_alternate(tmp_path, monkeypatch):
    """Two rounds of tools, then text: six entries, user and assistant taking turns. Each reply
    opens with a thinking block, as a live reply of today's model does, and must go back unchanged."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    replies = [
        reply(thinking(), tool_use("toolu_e1", "list_files", {"path": "."})),
        reply(thinking(), tool_use("toolu_e2", "read_file", {"path": "notes.txt"})),
        reply(thinking(), text("notes.txt says hello.")),
    ]
    model = scripted_model(replies)
    messages = [{"role": "user", "content": "Explore."}]
    status = run(messages, NoAsker(), model)
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant"] * 3, f"expected user/assistant six times, got {roles} (section 4)"
    assert model.calls == 3, f"expected three model calls, got {model.calls} (section 4)"
    for call, index in ((1, 1), (2, 3)):
        sent = plain(model.seen[call][index]["content"])
        assert sent == plain(replies[call - 1].content), (
            f"model call {call + 1} was sent messages[{index}] as {sent!r}, not the reply as it came: "
            "its thinking block must go back unchanged, or the real API refuses the request "
            "(section 2, Why it matters)")
    assert status == "done", f"agent_loop returned {status!r}, expected 'done' (section 4)"
