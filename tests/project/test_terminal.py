"""`python -m nano` in a pseudo-terminal, as a person meets it: the Celsius fix and its failures.

Each test copies the package (the reference solution) and fixtures/convert.py into a temporary
workspace, starts nano.server as the API, and drives `python -m nano` there through pexpect,
typing as a person would. Every wait is bounded: a hang fails the test instead of stalling it.
"""

import io
import os
import shutil
import socket
import sys

import pexpect
import pytest

from nano.server import Failure, MessagesServer
from nano.testing import reply, text, tool_use
from nano.trace import TRACE_PATH, load_trace

ROOT = TRACE_PATH.parent.parent
KEY = "test-key"
WAIT = 30  # seconds for any one thing to appear on the screen (importing the SDK takes ~2 s)
SOON = 0.01  # seconds of retry-after, so that the SDK's retries do not wait its own backoff
BUG, FIX = "return (c * 5) / 9 + 32", "return (c * 9) / 5 + 32"
CLOSING = "Fixed. celsius_to_fahrenheit now computes (c * 9) / 5 + 32"


@pytest.fixture
def workspace(tmp_path):
    """A copy of the workspace to let nano loose in: nano/ and fixtures/convert.py."""
    shutil.copytree(ROOT / "nano", tmp_path / "nano", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "fixtures").mkdir()
    shutil.copy2(ROOT / "fixtures" / "convert.py", tmp_path / "fixtures" / "convert.py")
    return tmp_path


@pytest.fixture
def nano(workspace):
    """Starts `python -m nano` in a pseudo-terminal in the workspace: nano(url, key, **env).

    Its SDK goes to `url` with `key`; everything it prints is kept in `child.screen`. Whatever a
    test leaves running is killed when it ends.
    """
    children = []

    def start(url, key=KEY, **settings):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC_", "NANO_", "PYTHON"))}
        env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY=key, HOME=str(workspace),
                   TERM="dumb", **settings)
        child = pexpect.spawn(sys.executable, ["-m", "nano"], cwd=str(workspace), env=env,
                              encoding="utf-8", timeout=WAIT, dimensions=(40, 250))
        children.append(child)
        child.logfile_read = child.screen = io.StringIO()
        child.expect_exact("'exit' or Ctrl-D ends.")
        prompt(child)
        return child

    yield start
    for child in children:
        if child.isalive():
            child.terminate(force=True)


def prompt(child):
    child.expect_exact("> ")


def end(child):
    """Ctrl-D at the prompt: nano must end by itself, with status 0."""
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, f"nano exited with {child.exitstatus}: {child.before!r}"


def said(child, sentence):
    """The next line nano prints is `error: <sentence>`, and then it asks for the next line."""
    child.expect_exact(f"error: {sentence}")
    prompt(child)


def fix_the_bug(child, workspace):
    """At the prompt, type the Celsius request, see the diff at the gate, say y, see the end."""
    trace = load_trace()
    child.sendline(trace.request)
    child.expect_exact('● read_file({"path": "fixtures/convert.py"})')
    child.expect_exact("+++ b/fixtures/convert.py")
    child.expect_exact(f"-    {BUG}")
    child.expect_exact(f"+    {FIX}")
    child.expect_exact("Allow edit_file? [y/n] ")
    assert BUG in (workspace / "fixtures" / "convert.py").read_text(), "nothing changes before y"
    child.sendline("y")
    child.expect_exact(CLOSING)
    prompt(child)
    fixed = (workspace / "fixtures" / "convert.py").read_text()
    assert FIX in fixed and BUG not in fixed


def test_python_m_nano_fixes_the_celsius_bug_in_a_terminal(nano, workspace):
    trace = load_trace()
    with MessagesServer(trace.replies, api_key=KEY) as server:
        child = nano(server.url)
        fix_the_bug(child, workspace)
        end(child)
    assert [r.status for r in server.requests] == [200, 200, 200]
    assert [r.body["messages"] for r in server.requests] == [trace.entries[:1], trace.entries[:3],
                                                              trace.entries[:5]]


def test_failed_turns_get_one_sentence_each_and_the_session_goes_on(nano, workspace):
    """A refusal, a reply cut off at max_tokens, an API that stays overloaded: then the fix."""
    from nano.failures import UNFINISHED

    trace = load_trace()
    cut_off = reply(text("I'll rewrite the whole file."),
                    tool_use("toolu_cut", "write_file", {"path": "fixtures/convert.py"}),
                    stop_reason="max_tokens")
    script = [reply(stop_reason="refusal"),  # a refusal with no content at all
              cut_off,
              *[Failure(529, retry_after=SOON)] * 3,  # the first try and the SDK's two retries
              *trace.replies]
    with MessagesServer(script, api_key=KEY) as server:
        child = nano(server.url)
        child.sendline("hello")
        said(child, UNFINISHED["refusal"])
        child.sendline("rewrite convert.py from scratch")
        said(child, UNFINISHED["max_tokens"])
        child.sendline("are you there?")
        said(child, "The API is overloaded or failing right now: try again shortly.")
        fix_the_bug(child, workspace)
        end(child)
    assert "Allow write_file" not in child.screen.getvalue(), "the cut-off tool_use never ran"
    assert [r.status for r in server.requests] == [200, 200, 529, 529, 529, 200, 200, 200]
    for request in server.requests[:5]:  # each failed turn was dropped before the next line
        assert len(request.body["messages"]) == 1
    assert [r.body["messages"] for r in server.requests[5:]] == [
        trace.entries[:1], trace.entries[:3], trace.entries[:5]]


@pytest.mark.parametrize("settings, sentence", [
    ({"key": "sk-ant-wrong"}, "The API key was rejected: check ANTHROPIC_API_KEY."),
    ({"NANO_MODEL": "claude-retired-0"}, "The API does not know the model 'claude-retired-0': "
                                         "set NANO_MODEL to a current model id."),
], ids=["bad key", "retired model"])
def test_a_setup_problem_is_one_sentence_and_ctrl_d_still_ends_cleanly(settings, sentence, nano):
    with MessagesServer([reply(text("never sent"))], api_key=KEY,
                        models={"claude-current"}) as server:
        child = nano(server.url, **settings)
        child.sendline("hello")
        said(child, sentence)
        end(child)
    assert [r.status for r in server.requests] == [401 if "key" in settings else 404]


def test_no_network_is_one_sentence_and_ctrl_d_still_ends_cleanly(nano):
    with socket.socket() as held:  # bound but not listening: connections are refused
        held.bind(("127.0.0.1", 0))
        child = nano(f"http://127.0.0.1:{held.getsockname()[1]}")
        child.sendline("hello")
        said(child, "Could not reach the API: check your network connection.")
        end(child)
