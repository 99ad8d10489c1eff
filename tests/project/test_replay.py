"""`python -m nano --record FILE` and `--replay FILE`, and the Celsius trace as such a recording.

Each test runs `python -m nano` in a temporary copy of the workspace (the reference package and
fixtures/convert.py), with piped input. The "live" API is nano.server, scripted; a replay runs
with no ANTHROPIC_ variable at all.

fixtures/celsius_trace.json is derived: the first test records the Celsius session from its
replies with the reference and compares. If the package changes what nano sends (the system
prompt, the tools), rewrite the fixture from the reference with

    NANO_UPDATE_TRACE=1 .venv/bin/python -m pytest tests/project/test_replay.py -k celsius

which keeps its hand-written "notes"; then read the diff before you commit it.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from nano.failures import UNFINISHED
from nano.server import Failure, MessagesServer
from nano.testing import reply, text, thinking
from nano.trace import TRACE_PATH, load_trace

ROOT = TRACE_PATH.parent.parent
KEY = "test-key"
SOON = 0.01  # seconds of retry-after for a scripted 429: the SDK's own backoff is 0.5 s and up
BUG, FIX = "return (c * 5) / 9 + 32", "return (c * 9) / 5 + 32"


def workspace(folder: Path) -> Path:
    """A copy of the workspace in `folder`: nano/ and fixtures/convert.py, with the bug."""
    shutil.copytree(ROOT / "nano", folder / "nano", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "fixtures").mkdir()
    shutil.copy2(ROOT / "fixtures" / "convert.py", folder / "fixtures" / "convert.py")
    return folder


def nano(folder, *args, typed="", server=None):
    """Run `python -m nano ARGS` in `folder` with `typed` as its input; the API is `server`."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "NANO_", "PYTHON"))}
    env["HOME"] = str(folder)
    if server is not None:
        env.update(ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY=KEY)
    return subprocess.run([sys.executable, "-m", "nano", *args], input=typed, cwd=folder, env=env,
                          capture_output=True, text=True, timeout=60)


def record(folder, script, typed):
    """Record a "live" session against nano.server answering with `script`; the recording."""
    with MessagesServer(script, api_key=KEY) as server:
        done = nano(folder, "--record", "session.json", typed=typed, server=server)
    assert done.returncode == 0 and not done.stderr, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith(
        f"Recorded {len(server.requests)} requests to session.json."), done.stdout
    return json.loads((folder / "session.json").read_text(encoding="utf-8")), done.stdout


def replay(folder, recording_path, typed):
    """Replay `recording_path` with no key, recording the replay; (its recording, its output)."""
    done = nano(folder, "--replay", str(recording_path), "--record", "replayed.json", typed=typed)
    assert done.returncode == 0 and not done.stderr, done.stdout + done.stderr
    return json.loads((folder / "replayed.json").read_text(encoding="utf-8")), done.stdout


def without_notes(recording):
    return {k: v for k, v in recording.items() if k != "notes"}


def test_the_celsius_trace_is_what_the_reference_records(tmp_path):
    """Is fixtures/celsius_trace.json what `python -m nano --record` makes of its three replies?"""
    fixture = json.loads(TRACE_PATH.read_text(encoding="utf-8"))
    folder = workspace(tmp_path)
    recorded, _ = record(folder, fixture["replies"], f"{fixture['request']}\ny\n")
    assert FIX in (folder / "fixtures" / "convert.py").read_text()
    if os.environ.get("NANO_UPDATE_TRACE") and without_notes(recorded) != without_notes(fixture):
        recorded["notes"] = fixture["notes"]
        TRACE_PATH.write_text(json.dumps(recorded, indent=2, ensure_ascii=False) + "\n",
                              encoding="utf-8")
        fixture = json.loads(TRACE_PATH.read_text(encoding="utf-8"))
    assert without_notes(recorded) == without_notes(fixture), (
        "fixtures/celsius_trace.json is not what the reference records from its replies now: "
        "rewrite it with NANO_UPDATE_TRACE=1 (see this file's docstring)")
    trace = load_trace()
    assert len(trace.notes) == len(trace.entries) == 6 and trace.answers == ["y"]
    assert [r["status"] for r in fixture["requests"]] == [200, 200, 200]
    assert [r["body"]["messages"] for r in fixture["requests"]] == [
        trace.entries[:1], trace.entries[:3], trace.entries[:5]]


def test_the_celsius_trace_replays_with_no_key_and_records_the_same_session(tmp_path):
    folder = workspace(tmp_path)
    replayed, screen = replay(folder, TRACE_PATH, "y\n")
    fixture = json.loads(TRACE_PATH.read_text(encoding="utf-8"))
    assert without_notes(replayed) == without_notes(fixture)
    assert FIX in (folder / "fixtures" / "convert.py").read_text()
    assert f"> {fixture['request']}\n" in screen, "the recorded request is typed for you"
    assert "Allow edit_file? [y/n] y\n" in screen, "the gate asks you, not the recording"
    assert "> (the recording ends here)\n" in screen


def cost_lines(replies: list[dict]) -> list[str]:
    """The line nano.cost's meter must print for each of these recorded replies (their JSON), by
    arithmetic of its own: the reply's usage at the price table's figures, and the running total."""
    from nano.cost import PRICES

    price, total, lines = PRICES["claude-sonnet-5-5"], 0.0, []
    for recorded in replies:
        usage = recorded["usage"]
        spent = (usage["input_tokens"] * price.input + usage["output_tokens"] * price.output) / 1_000_000
        total += spent
        lines.append(f"· {usage['input_tokens']:,} tokens in, {usage['output_tokens']:,} out: "
                     f"${spent:.4f} (this session: ${total:.4f})")
    return lines


def test_a_replay_prints_each_replys_tokens_and_the_sessions_running_cost(tmp_path):
    """Each recorded reply's usage, priced at nano/cost.py's table, on one line as the reply
    arrives (before its text), with the session's total so far: what a live run prints too."""
    done = nano(workspace(tmp_path), "--replay", str(TRACE_PATH), typed="y\n")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    replies = json.loads(TRACE_PATH.read_text(encoding="utf-8"))["replies"]
    assert [line for line in lines if line.startswith("· ")] == cost_lines(replies), done.stdout
    for line, recorded in zip(cost_lines(replies), replies):
        said = next(b["text"] for b in recorded["content"] if b["type"] == "text")
        assert lines.index(line) < lines.index(said), "the cost of a reply comes as it arrives"


def test_a_live_session_runs_on_the_credentials_of_a_profile_alone(tmp_path):
    """No ANTHROPIC_API_KEY, no ANTHROPIC_AUTH_TOKEN: a profile (ANTHROPIC_PROFILE, its files
    under ANTHROPIC_CONFIG_DIR) is the SDK's to find, and nano starts on it and sends its token."""
    config = tmp_path / "anthropic"
    (config / "configs").mkdir(parents=True)
    (config / "credentials").mkdir()
    (config / "configs" / "course.json").write_text('{"authentication": {"type": "user_oauth"}}')
    secret = config / "credentials" / "course.json"
    secret.write_text('{"access_token": "sk-ant-oat-from-a-profile"}')
    secret.chmod(0o600)
    folder = workspace(tmp_path / "ws")
    with MessagesServer([reply(text("Hello from a profile."))], api_key="sk-ant-oat-from-a-profile") as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "NANO_", "PYTHON"))}
        env.update(HOME=str(folder), ANTHROPIC_BASE_URL=server.url, ANTHROPIC_PROFILE="course",
                   ANTHROPIC_CONFIG_DIR=str(config))
        done = subprocess.run([sys.executable, "-m", "nano"], input="hello\n", cwd=folder, env=env,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    assert "Hello from a profile." in done.stdout
    assert server.requests[0].headers["authorization"] == "Bearer sk-ant-oat-from-a-profile"


def test_a_session_with_failed_turns_records_and_replays_the_same(tmp_path):
    """A refusal, a blank line, a 429 the SDK retries, the Celsius fix, exit: then its replay."""
    trace = load_trace()
    script = [reply(stop_reason="refusal"), Failure(429, retry_after=SOON), *trace.replies]
    typed = f"hello\n\n{trace.request}\ny\nexit\n"
    recorded, live = record(workspace(tmp_path / "live"), script, typed)
    assert recorded["lines"] == ["hello", "", trace.request, "exit"]
    assert recorded["request"] == "hello" and recorded["answers"] == ["y"]
    assert [r["status"] for r in recorded["requests"]] == [200, 429, 200, 200, 200]
    assert recorded["requests"][1]["error"]["type"] == "rate_limit_error"
    assert recorded["replies"][0]["stop_reason"] == "refusal"
    assert recorded["entries"] == trace.entries, "the refused turn was dropped"

    folder = workspace(tmp_path / "replay")
    replayed, screen = replay(folder, tmp_path / "live" / "session.json", "y\n")
    assert replayed == recorded
    for output in (live, screen):
        assert output.count("error: ") == 1 and f"error: {UNFINISHED['refusal']}\n" in output
    assert FIX in (folder / "fixtures" / "convert.py").read_text()


def test_a_live_shaped_session_sends_its_thinking_back_unchanged_recorded_and_replayed(tmp_path):
    """The Celsius fix as today's default model makes it: each reply opens with a signed thinking
    block (its text empty), and nothing is said between tools. The server refuses any request
    whose thinking changed or went missing, so every request passing is the proof."""
    trace = load_trace()
    blocks = [[b for b in r.model_dump(mode="json", exclude_none=True)["content"]
               if b["type"] == "tool_use"] or [{"type": "text", "text": "Fixed: 100 C is 212 F."}]
              for r in trace.replies]
    script = [reply(thinking(), *content) for content in blocks]
    recorded, live = record(workspace(tmp_path / "live"), script, f"{trace.request}\ny\n")
    assert [r["status"] for r in recorded["requests"]] == [200, 200, 200]
    sent = recorded["requests"][2]["body"]["messages"]
    assert [sent[1]["content"][0], sent[3]["content"][0]] == [r["content"][0] for r in recorded["replies"][:2]]
    assert sent[1]["content"][0]["type"] == "thinking" and sent[1]["content"][0]["signature"]
    assert "I'll take a look" not in live and "Fixed: 100 C is 212 F." in live, "silent between tools"

    folder = workspace(tmp_path / "replay")
    replayed, _ = replay(folder, tmp_path / "live" / "session.json", "y\n")
    assert replayed == recorded
    assert FIX in (folder / "fixtures" / "convert.py").read_text()


def test_replaying_a_session_differently_fails_the_turn_says_where_and_exits_1(tmp_path):
    folder = workspace(tmp_path)
    done = nano(folder, "--replay", str(TRACE_PATH), typed="n\n")
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stdout.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "recorded request 3: messages[4].content[0].content" in errors[0]
    assert BUG in (folder / "fixtures" / "convert.py").read_text(), "the human said n"
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and said[0].startswith(f"nano: the replay left {TRACE_PATH} at "
                                                 "recorded request 3: "), done.stderr


def test_a_replay_where_the_bug_is_already_fixed_shows_the_first_differing_line(tmp_path):
    """The fixture was fixed by an earlier run: the read_file result differs at line 5."""
    folder = workspace(tmp_path)
    convert = folder / "fixtures" / "convert.py"
    convert.write_text(convert.read_text().replace(BUG, FIX))
    done = nano(folder, "--replay", str(TRACE_PATH), typed="y\n")
    assert done.returncode == 1, done.stdout + done.stderr
    where = (f'messages[2].content[0].content, line 5, is "    {FIX}" where the recording has '
             f'"    {BUG}"')
    errors = [line for line in done.stdout.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and f"recorded request 2: {where};" in errors[0], done.stdout
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and where in said[0] and "fresh copy of the workspace" in said[0]


def test_a_replay_that_stops_before_the_last_recorded_request_exits_1(tmp_path):
    """Input closes at the gate: the edit is never answered, so request 3 is never sent."""
    done = nano(workspace(tmp_path), "--replay", str(TRACE_PATH), typed="")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == (f"nano: the replay stopped after 2 of the 3 recorded requests of "
                           f"{TRACE_PATH}.\n")


def test_a_recording_that_cannot_be_read_or_written_is_one_sentence_before_any_prompt(tmp_path):
    folder = workspace(tmp_path)
    for args in (["--replay", "no-such-recording.json"],
                 ["--record", "no-such-folder/session.json"]):
        done = nano(folder, *args)
        assert done.returncode == 2 and done.stdout == "", done.stdout
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and args[1] in lines[0], done.stderr
