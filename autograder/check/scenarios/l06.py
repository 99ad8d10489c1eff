"""The independent check of lecture 06 (the REPL): `main`, one Scenario per graded cell.

As in the hidden tests, agent_loop is replaced (in nano.repl and nano.loop) by the cell's own
stand-in and the human by a scripted `Lines`, so only `main` is exercised. Each run reports the
history main returned (dumped), its `id()` and the caller's list's where a test asks `is`, how
many lines were asked for, what the stand-ins saw and what was printed. A log "at rest" is judged
by comparing it with the reference's: every correct repair pops back to the same entries.
"""

from autograder.check.scenarios import text
from autograder.check.scenarios.l05 import SDK
from autograder.check.independent import Scenario

# Helpers every scenario of this lecture starts with: the scripted human and main, run as the tests run it.
PRELUDE = SDK + '''
import anthropic
import nano.loop, nano.repl

kept = []  # every history a run returned, alive until the end, so that no two share an id()


class Lines:
    """The tests' Lines: the lines in order, EOFError when out of them, a hard stop if main keeps asking."""

    def __init__(self, answers):
        self.answers, self.prompts = list(answers), []

    async def question(self, prompt):
        if len(self.prompts) > len(self.answers) + 2:
            raise SystemExit("main kept asking after the input had ended")
        self.prompts.append(prompt)
        if len(self.prompts) > len(self.answers):
            raise EOFError("no more scripted lines")
        return self.answers[len(self.prompts) - 1]


def said(message):
    content = message["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content if b.get("type") == "text")


def run_main(fake_loop, lines, *args, **kwargs):
    """main(Lines(lines), *args, **kwargs) with agent_loop replaced by `fake_loop`, output captured."""
    asker, out, err = Lines(lines), io.StringIO(), io.StringIO()

    async def guarded():
        try:
            return {"value": await nano.repl.main(asker, *args, **kwargs)}
        except BaseException as exc:  # as the tests' run_main: whatever main raises fails the cell
            if type(exc).__name__ == "ScenarioTimeout":
                raise
            return {"raised": [c.__name__ for c in type(exc).__mro__], "message": repr(exc)[:500]}

    with contextlib.ExitStack() as stack:
        for module in (nano.repl, nano.loop):
            stack.enter_context(unittest.mock.patch.object(module, "agent_loop", fake_loop))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        outcome = attempt(lambda: asyncio.run(guarded()))
    outcome = outcome.get("value", outcome)
    if not isinstance(outcome, dict):  # asyncio.run itself was tampered with
        outcome = {"raised": ["asyncio.run gave no outcome"], "message": ""}
    log = outcome.pop("value", None)
    kept.append(log)
    return {**outcome, "log": dump(log), "log_id": id(log), "log_type": type(log).__name__,
            "asker": id(asker), "prompts": len(asker.prompts), "out": out.getvalue(), "err": err.getvalue()}


def explained(exc):
    """"error: " + explain(exc), as the tests expect main to print it (explain is given in nano/repl.py)."""
    return attempt(lambda: f"error: {nano.repl.explain(exc)}")
'''


def _said(message) -> str | None:
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    return " ".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def _users(log) -> list | None:
    if not isinstance(log, list):
        return None
    return [_said(m) for m in log if isinstance(m, dict) and m.get("role") == "user"]


def _errors(out) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("error: ")] if isinstance(out, str) else []


def _normal(log):
    """The log with a user line as a text block whether it was pushed as a str or as blocks."""
    if not isinstance(log, list):
        return None
    return [{**m, "content": [{"type": "text", "text": m["content"]}]}
            if isinstance(m, dict) and isinstance(m.get("content"), str) else m for m in log]


def _at_rest_as_ref(run: dict, truth: dict) -> bool:
    """No raise, and the same entries as the reference's log, which check_messages(at_rest=True) accepts."""
    return "raised" not in run and run["log_type"] == "list" and _normal(run["log"]) == _normal(truth["log"])


def _explained(got: dict, ref: dict) -> list[str]:
    """The error lines a test expects: from the submission's own explain (as the test computes them),
    and from the reference's, either accepted."""
    return [line for line in (text(got), text(ref)) if line is not None]


# --- one history, ask and model --------------------------------------------------------------

ONE_HISTORY = PRELUDE + '''
def canned_loop():
    """An agent_loop stand-in: records each call, appends one text-only assistant turn."""
    calls = []

    async def fake_agent_loop(messages, ask=None, model=None, *args, **kwargs):
        calls.append({"messages": id(messages), "length": len(messages), "last": dump(dict(messages[-1])) if messages else None})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"answer {len(calls)}"}]})
        return "done"
    fake_agent_loop.calls = calls
    return fake_agent_loop


runs = {}
fake = canned_loop()
lines = ["what does convert.py do?", "now add a docstring"]
runs["visible"] = {**run_main(fake, lines), "calls": fake.calls, "lines": lines}
mine, fake = [], canned_loop()
lines = ["rename tally() to count_votes()", "run the tests once", "show me the diff of ballot.py"]
runs["mine"] = {**run_main(fake, lines, messages=mine), "calls": fake.calls, "lines": lines, "mine": id(mine),
                "mine_log": dump(mine)}
earlier = [{"role": "user", "content": "hello nano"},
           {"role": "assistant", "content": [{"type": "text", "text": "Hello! What shall we work on?"}]}]
before, fake = list(earlier), canned_loop()
runs["earlier"] = {**run_main(fake, ["fix the off-by-one in pager.py"], messages=earlier), "calls": fake.calls,
                   "mine": id(earlier), "length": len(earlier), "first_two": dump(earlier[:2]), "before": dump(before)}
runs["first"] = run_main(canned_loop(), ["session one, line one", "session one, line two"])
runs["second"] = run_main(canned_loop(), ["session two"])
observe(**runs)
'''


def judge_one_history(got: dict, ref: dict) -> bool:
    visible, lines = got["visible"], ref["visible"]["lines"]
    log = visible["log"]
    if ("raised" in visible or visible["log_type"] != "list" or len(log) != 4
            or [_said(log[0]), _said(log[2])] != lines
            or not all(call["messages"] == visible["log_id"] for call in visible["calls"])):
        return False
    mine, lines = got["mine"], ref["mine"]["lines"]
    if ("raised" in mine or mine["log_id"] != mine["mine"] or len(mine["mine_log"]) != 6
            or _users(mine["mine_log"]) != lines or [c["length"] for c in mine["calls"]] != [1, 3, 5]
            or not all(c["messages"] == mine["mine"] for c in mine["calls"])
            or [_said(c["last"]) for c in mine["calls"]] != lines or "error:" in mine["out"]):
        return False
    earlier = got["earlier"]
    if ("raised" in earlier or earlier["log_id"] != earlier["mine"] or earlier["first_two"] != earlier["before"]
            or earlier["length"] != 4 or not earlier["calls"] or earlier["calls"][0]["length"] != 3):
        return False
    first, second = got["first"], got["second"]
    return ("raised" not in first and "raised" not in second and isinstance(first["log"], list)
            and isinstance(second["log"], list) and len(first["log"]) == 4 and len(second["log"]) == 2
            and first["log_id"] != second["log_id"])


PASSES = PRELUDE + '''
calls = []


async def loop_calling_the_model(messages, ask=None, model=None, *args, **kwargs):
    """An agent_loop stand-in that records what it was handed and asks the model once."""
    calls.append([id(ask), id(model)])
    answer = await model(messages)
    messages.append({"role": "assistant", "content": answer.content})
    return "done"


def talking_model(words):
    async def model(messages):
        return reply(text(words))
    return model


model = talking_model("It converts temperatures.")
visible = {**run_main(loop_calling_the_model, ["what does convert.py do?"], model), "calls": list(calls),
           "model": id(model)}
calls.clear()
words = "Renamed, and the three call sites updated."
other = talking_model(words)
hidden = {**run_main(loop_calling_the_model, ["rename parse() to parse_header()", "and in the tests too"], other),
          "calls": list(calls), "model": id(other), "words": words}
observe(visible=visible, hidden=hidden)
'''


def judge_passes(got: dict, ref: dict) -> bool:
    visible, hidden = got["visible"], got["hidden"]
    if "raised" in visible or visible["calls"] != [[visible["asker"], visible["model"]]]:
        return False
    if "raised" in hidden or hidden["calls"] != [[hidden["asker"], hidden["model"]]] * 2:
        return False
    log = hidden["log"]
    replies = [block.get("text") if isinstance(block, dict) else None
               for m in log if isinstance(m, dict) and m.get("role") == "assistant" for block in m.get("content") or []]
    return replies == [ref["hidden"]["words"]] * 2


# --- blank lines, exit, the end of input -----------------------------------------------------

CANNED = PRELUDE + '''
def canned_loop():
    calls = []

    async def fake_agent_loop(messages, ask=None, model=None, *args, **kwargs):
        calls.append(len(messages))
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"answer {len(calls)}"}]})
        return "done"
    fake_agent_loop.calls = calls
    return fake_agent_loop


def session(lines, **kwargs):
    fake = canned_loop()
    return {**run_main(fake, lines, **kwargs), "calls": fake.calls, "lines": lines}
'''

BLANK = CANNED + '''
observe(visible=session(["", "what does convert.py do?"]),
        hidden=session(["", "   ", "rename tally() to count_votes()", "\\t", "  \\t ", "now run the tests"]),
        blank=session(["    ", "", "\\t"], messages=[]))
'''


def judge_blank(got: dict, ref: dict) -> bool:
    visible, hidden, blank = got["visible"], got["hidden"], got["blank"]
    if ("raised" in visible or len(visible["calls"]) != 1 or not isinstance(visible["log"], list)
            or len(visible["log"]) != 2 or _said(visible["log"][0]) != ref["visible"]["lines"][1]):
        return False
    users = _users(hidden["log"])
    if ("raised" in hidden or len(hidden["calls"]) != 2 or users != [line for line in ref["hidden"]["lines"] if line.strip()]
            or not all(u.strip() for u in users) or hidden["prompts"] != 7):
        return False
    return "raised" not in blank and blank["calls"] == [] and blank["log"] == []


EXIT = CANNED + '''
earlier = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]}]
observe(visible=session(["read convert.py", "exit", "this line is never read"]),
        mentions=session(["make the script exit with code 3 on bad input", "exit the loop early in scan.py",
                          "  exit  ", "never read", "nor this"]),
        first={**session(["exit", "list the files", "read notes.md"], messages=earlier), "mine": id(earlier),
               "length": len(earlier)},
        blank_then_exit=session(["", "exit", "fix it"]))
'''


def judge_exit(got: dict, ref: dict) -> bool:
    visible, mentions, first, blank = got["visible"], got["mentions"], got["first"], got["blank_then_exit"]
    if ("raised" in visible or visible["prompts"] != 2 or len(visible["calls"]) != 1
            or not isinstance(visible["log"], list) or len(visible["log"]) != 2):
        return False
    if ("raised" in mentions or len(mentions["calls"]) != 2 or _users(mentions["log"]) != ref["mentions"]["lines"][:2]
            or mentions["prompts"] != 3):
        return False
    if ("raised" in first or first["log_id"] != first["mine"] or first["length"] != 2 or first["calls"] != []
            or first["prompts"] != 1):
        return False
    return "raised" not in blank and blank["calls"] == [] and blank["log"] == [] and blank["prompts"] == 2


END_OF_INPUT = CANNED + '''
earlier = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": [{"type": "text", "text": "Hi."}]}]
observe(visible=session(["first request", "second request"]), empty=session([]),
        earlier={**session(["count the TODOs in src/", "", "and in tests/"], messages=earlier), "mine": id(earlier),
                 "length": len(earlier)})
'''


def judge_end_of_input(got: dict, ref: dict) -> bool:
    visible, empty, earlier = got["visible"], got["empty"], got["earlier"]
    if ("raised" in visible or visible["log_type"] != "list" or len(visible["log"]) != 4
            or visible["prompts"] != 3):
        return False
    if ("raised" in empty or empty["log"] != [] or empty["calls"] != [] or empty["prompts"] != 1
            or "Traceback" in empty["out"] + empty["err"]):
        return False
    return ("raised" not in earlier and earlier["log_id"] == earlier["mine"] and earlier["length"] == 6
            and len(earlier["calls"]) == 2 and earlier["prompts"] == 4)


# --- failed turns repaired -------------------------------------------------------------------

DANGLING = PRELUDE + '''
def use(tool_id, name, tool_input):
    return {"role": "assistant", "content": [{"type": "text", "text": "On it."},
                                             {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]}


def result(tool_id, content):
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": False}]}


async def scripted_turns(messages, ask=None, model=None, *args, **kwargs):
    """An agent_loop stand-in whose behaviour depends on the first word of the line."""
    line = said(messages[-1])
    word = line.split()[0]
    if word == "crash":
        messages.append(use("toolu_c" + str(len(messages)), "read_file", {"path": "setup.cfg"}))
        raise RuntimeError(f"lost the connection during: {line}")
    if word == "deep":
        messages.append(use("toolu_d1", "list_files", {"path": "src"}))
        messages.append(result("toolu_d1", "app.py\\nutil.py"))
        messages.append(use("toolu_d2", "edit_file", {"path": "src/app.py", "old_string": "a", "new_string": "b"}))
        raise ConnectionResetError("the peer reset the connection")
    if word == "results":
        messages.append(use("toolu_r1", "bash", {"command": "pytest -q"}))
        messages.append(result("toolu_r1", "exit code: 1"))
        raise ValueError("the model's reply could not be read")
    if word == "gate":
        messages.append(use("toolu_g1", "bash", {"command": "rm -rf build/"}))
        await ask.question("$ rm -rf build/\\nAllow bash? [y/n] ")
        raise AssertionError("this scripted session has no answer for the gate")
    messages.append({"role": "assistant", "content": [{"type": "text", "text": f"done: {line}"}]})
    return "done"


earlier = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": [{"type": "text", "text": "Hi there."}]}]
observe(visible=run_main(scripted_turns, ["ok first", "crash now", "ok third"]),
        deep=run_main(scripted_turns, ["ok alpha", "deep dive into src/", "ok omega"]),
        results=run_main(scripted_turns, ["results of the tests?", "ok next"]),
        earlier={**run_main(scripted_turns, ["crash please", "ok then", "crash again", "deep trouble"], messages=earlier),
                 "mine": id(earlier)},
        gate=run_main(scripted_turns, ["ok look around", "gate the build clean-up"]),
        first=run_main(scripted_turns, ["crash at once", "ok second"]))
'''


def judge_dangling(got: dict, ref: dict) -> bool:
    if not all(_at_rest_as_ref(got[k], ref[k]) for k in ("visible", "deep", "results", "earlier", "gate", "first")):
        return False
    return (len(_errors(got["visible"]["out"])) == 1 and got["earlier"]["log_id"] == got["earlier"]["mine"]
            and len(_errors(got["gate"]["out"])) >= 1)


CTRL_C = PRELUDE + '''
async def interrupted_turns(messages, ask=None, model=None, *args, **kwargs):
    """An agent_loop stand-in: a line starting with "stop" is interrupted by Ctrl-C, mid-turn."""
    line = said(messages[-1])
    if line.startswith("stop"):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_k1", "name": "bash", "input": {"command": "sleep 600"}}]})
        raise KeyboardInterrupt
    messages.append({"role": "assistant", "content": [{"type": "text", "text": f"done: {line}"}]})
    return "done"


observe(visible=run_main(interrupted_turns, ["list the files", "stop that sleep", "read notes.md"]),
        twice=run_main(interrupted_turns, ["stop before anything", "stop again", "count the tests"]),
        expected=explained(KeyboardInterrupt()))
'''


def judge_ctrl_c(got: dict, ref: dict) -> bool:
    visible, twice = got["visible"], got["twice"]
    if not _at_rest_as_ref(visible, ref["visible"]) or not _at_rest_as_ref(twice, ref["twice"]):
        return False
    expected = _explained(got["expected"], ref["expected"])
    return any(line in visible["out"].splitlines() for line in expected) and len(_errors(twice["out"])) == 2


TURN_LIMIT = PRELUDE + '''
def limited_loop(rounds):
    """An agent_loop stand-in: a line starting with "loop" runs `rounds` tool rounds, then hits the turn limit."""
    async def fake_agent_loop(messages, ask=None, model=None, *args, **kwargs):
        line = said(messages[-1])
        if line.startswith("loop"):
            for i in range(rounds):
                messages.append({"role": "assistant", "content": [
                    {"type": "tool_use", "id": f"toolu_m{i}", "name": "bash", "input": {"command": "pytest -x"}}]})
                messages.append({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_m{i}", "content": "exit code: 1", "is_error": False}]})
            return "max_turns"
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"done: {line}"}]})
        return "done"
    return fake_agent_loop


earlier = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]}]
observe(visible=run_main(limited_loop(1), ["loop until the tests pass", "something small"]),
        earlier={**run_main(limited_loop(4), ["read the README", "loop over every file", "summarise it"], messages=earlier),
                 "mine": id(earlier)},
        only_loops=run_main(limited_loop(3), ["loop a", "loop b"]))
'''


def judge_turn_limit(got: dict, ref: dict) -> bool:
    if not all(_at_rest_as_ref(got[k], ref[k]) for k in ("visible", "earlier", "only_loops")):
        return False
    errors = _errors(got["visible"]["out"])
    return (len(errors) == 1 and len(errors[0]) > len("error: ")
            and got["earlier"]["log_id"] == got["earlier"]["mine"] and len(_errors(got["earlier"]["out"])) == 1
            and got["only_loops"]["log"] == [])


MODEL_ERROR = PRELUDE + '''
try:
    import httpx2 as http
except ImportError:
    import httpx as http


async def loop_calling_the_model(messages, ask=None, model=None, *args, **kwargs):
    """An agent_loop stand-in that asks the model once and pushes its reply."""
    answer = await model(messages)
    messages.append({"role": "assistant", "content": answer.content})
    return "done"


def failing_model(failures):
    """A model that raises failures[n] on its n-th call (counting from 1) and answers otherwise."""
    async def model(messages):
        model.calls += 1
        if model.calls in failures:
            raise failures[model.calls]
        return reply(text(f"answer {model.calls}"))
    model.calls = 0
    return model


def case(lines, failures, kept):
    model = failing_model(failures)
    return {**run_main(loop_calling_the_model, lines, model), "calls": model.calls, "kept": kept,
            "expected": [explained(exc) for exc in failures.values()]}


request = http.Request("POST", "https://api.anthropic.com/v1/messages")
cases = [
    case(["first try", "second try"], {1: RuntimeError("the model fell over")}, ["second try"]),
    case(["which files changed?", "add a changelog entry", "run the linter"], {2: anthropic.RateLimitError(
        "rate_limit_error", response=http.Response(429, request=request), body=None)}, ["which files changed?", "run the linter"]),
    case(["list the tests", "then count them"], {1: anthropic.APIConnectionError(request=request)}, ["then count them"]),
    case(["explain pager.py", "summarise utils.py", "exit", "never read"], {1: RuntimeError("disk on fire, code 5521")},
         ["summarise utils.py"]),
    case(["bump the version", "tag the release", "push it"], {1: anthropic.NotFoundError(
        "model: claude-retired-0", response=http.Response(404, request=request), body=None),
        2: anthropic.APIConnectionError(request=request)}, ["push it"]),
]
observe(cases=cases)
'''


def judge_model_error(got: dict, ref: dict) -> bool:
    if len(got["cases"]) != len(ref["cases"]):
        return False
    for n, (mine, truth) in enumerate(zip(got["cases"], ref["cases"])):
        if not _at_rest_as_ref(mine, truth) or _users(mine["log"]) != truth["kept"]:
            return False
        own = [text(e) for e in mine["expected"]]
        reference = [text(e) for e in truth["expected"]]
        errors = _errors(mine["out"])
        if n == 0:  # the visible check: the one error line is among the output's lines
            if not any(line in mine["out"].splitlines() for line in _explained(mine["expected"][0], truth["expected"][0])):
                return False
            continue
        if errors != own and errors != reference:
            return False
        if "Traceback" in mine["out"] + mine["err"] or mine["calls"] != truth["calls"]:
            return False
    return True


SCENARIOS = [
    Scenario("l06_one_history_across_lines", ONE_HISTORY, judge_one_history),
    Scenario("l06_passes_ask_and_model", PASSES, judge_passes),
    Scenario("l06_blank_lines_skipped", BLANK, judge_blank),
    Scenario("l06_exit_stops", EXIT, judge_exit),
    Scenario("l06_end_of_input_stops", END_OF_INPUT, judge_end_of_input),
    Scenario("l06_dangling_tool_use_repaired", DANGLING, judge_dangling),
    Scenario("l06_ctrl_c_during_a_turn", CTRL_C, judge_ctrl_c),
    Scenario("l06_turn_limit_repaired", TURN_LIMIT, judge_turn_limit),
    Scenario("l06_model_error_reported", MODEL_ERROR, judge_model_error),
]
