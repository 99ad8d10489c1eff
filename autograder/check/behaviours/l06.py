"""Lecture 06's graded behaviours: main, the REPL around agent_loop.

For the length of each session agent_loop is a stand-in that plays one kind of turn (a canned
answer, a failure after a dangling tool_use, Ctrl-C in the middle, the turn limit, one call of
main's model), installed with nano.testing.stand_in on nano.loop.agent_loop itself, so main
reaches it however it imports agent_loop; the human is a scripted `Lines`. So only `main` is
judged. A repaired history is judged by what it holds: exactly the finished turns, in order,
whichever correct way main repaired it (popping until check_messages(at_rest=True) holds, or
cutting back to where the failed line began).

A stand-in runs with nano.loop's globals (stand_in swaps the function's code), so it uses
only builtins, its own locals, and the state `fresh` gives it as keyword defaults.
"""

import types

from autograder.check.behaviour import Behaviour
from autograder.check.kit import attempt, attempt_async

# Requests a session may type: none is blank, none is "exit", none starts a stand-in's keyword.
REQUESTS = ["what does convert.py do?", "now add a docstring", "rename tally() to count_votes()",
            "run the tests once", "show me the diff of ballot.py", "fix the off-by-one in pager.py",
            "list the files in src/", "read notes.md", "count the TODOs in src/", "summarise utils.py",
            "add a changelog entry", "which files changed?", "bump the version", "explain pager.py"]
WORDS = ["It converts temperatures.", "Renamed, and the three call sites updated.", "Two tests fail.",
         "The diff is one line.", "Done: the docstring says what it returns."]


# --- the stand-ins for agent_loop (nano.loop's globals: builtins and locals only) -------------

async def canned_turns(messages, ask=None, model=None, *args, _calls=None, **kwargs):
    """Records each call (the list, its length, its last entry) and appends one text-only answer."""
    _calls.append({"list": messages, "length": len(messages), "last": messages[-1] if messages else None})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": f"answer {len(_calls)}"}]})
    return "done"


async def model_turns(messages, ask=None, model=None, *args, _calls=None, **kwargs):
    """Records the asker and model it was handed, asks the model once and pushes its reply."""
    _calls.append({"ask": ask, "model": model})
    answer = await model(messages)
    messages.append({"role": "assistant", "content": answer.content})
    return "done"


async def failing_turns(messages, ask=None, model=None, *args, **kwargs):
    """A turn chosen by the line's first word: crash, deep, results and gate fail part-way; others answer."""
    last = messages[-1] if messages else {}
    content = last.get("content") if isinstance(last, dict) else None
    line = content if isinstance(content, str) else " ".join(
        b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")
    word = (line.split() or [""])[0]

    def use(tool_id, name, tool_input):
        return {"role": "assistant", "content": [{"type": "text", "text": "On it."},
                                                 {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]}

    def result(tool_id, output):
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output,
                                             "is_error": False}]}

    if word == "crash":     # a dangling tool_use, then the turn fails
        messages.append(use("toolu_c" + str(len(messages)), "read_file", {"path": "setup.cfg"}))
        raise RuntimeError(f"lost the connection during: {line}")
    if word == "deep":      # a tool answered, a second one dangling, then the turn fails
        messages.append(use("toolu_d1", "list_files", {"path": "src"}))
        messages.append(result("toolu_d1", "app.py\nutil.py"))
        messages.append(use("toolu_d2", "edit_file", {"path": "src/app.py", "old_string": "a", "new_string": "b"}))
        raise ConnectionResetError("the peer reset the connection")
    if word == "results":   # the turn fails right after its tool results were pushed
        messages.append(use("toolu_r1", "bash", {"command": "pytest -q"}))
        messages.append(result("toolu_r1", "exit code: 1"))
        raise ValueError("the model's reply could not be read")
    if word == "gate":      # the gate asks, and input has ended
        messages.append(use("toolu_g1", "bash", {"command": "rm -rf build/"}))
        await ask.question("$ rm -rf build/\nAllow bash? [y/n] ")
        raise AssertionError("this scripted session has no answer for the gate")
    messages.append({"role": "assistant", "content": [{"type": "text", "text": f"done: {line}"}]})
    return "done"


async def interrupted_turns(messages, ask=None, model=None, *args, **kwargs):
    """A line starting with "stop" is interrupted by Ctrl-C mid-turn, after a tool_use was pushed."""
    last = messages[-1] if messages else {}
    content = last.get("content") if isinstance(last, dict) else None
    line = content if isinstance(content, str) else " ".join(
        b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")
    if line.startswith("stop"):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_k1", "name": "bash", "input": {"command": "sleep 600"}}]})
        raise KeyboardInterrupt
    messages.append({"role": "assistant", "content": [{"type": "text", "text": f"done: {line}"}]})
    return "done"


async def limited_turns(messages, ask=None, model=None, *args, _rounds=1, **kwargs):
    """A line starting with "loop" runs `_rounds` tool rounds, then returns "max_turns"; others answer."""
    last = messages[-1] if messages else {}
    content = last.get("content") if isinstance(last, dict) else None
    line = content if isinstance(content, str) else " ".join(
        b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")
    if line.startswith("loop"):
        for i in range(_rounds):
            messages.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_m{i}", "name": "bash", "input": {"command": "pytest -x"}}]})
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_m{i}", "content": "exit code: 1", "is_error": False}]})
        return "max_turns"
    messages.append({"role": "assistant", "content": [{"type": "text", "text": f"done: {line}"}]})
    return "done"


def fresh(double, **state):
    """A copy of `double` whose keyword defaults hold `state`: what stand_in gives agent_loop."""
    copy = types.FunctionType(double.__code__, double.__globals__, double.__name__, double.__defaults__)
    copy.__kwdefaults__ = {**(double.__kwdefaults__ or {}), **state}
    return copy


# --- the human and the models -----------------------------------------------------------------

class Lines:
    """A scripted human (a ScriptedAsker: EOFError when out of lines), with a hard stop if main keeps
    asking after that."""

    def __init__(self, lines):
        from nano.testing import ScriptedAsker

        self.inner = ScriptedAsker(lines)
        self.prompts = self.inner.prompts

    async def question(self, prompt):
        if len(self.prompts) > len(self.inner.answers) + 2:
            raise SystemExit("main kept asking after the input had ended (section 2)")
        return await self.inner.question(prompt)


class TalkingModel:
    """A model that always answers with the same words."""

    def __init__(self, words):
        self.words = words

    async def __call__(self, messages):
        from nano.testing import reply, text

        return reply(text(self.words))


class FailingModel:
    """A model that raises failures[n] on its n-th call (counting from 1) and answers "answer n" otherwise."""

    def __init__(self, failures):
        self.failures, self.calls = failures, 0

    async def __call__(self, messages):
        from nano.testing import reply, text

        self.calls += 1
        if self.calls in self.failures:
            raise self.failures[self.calls]
        return reply(text(f"answer {self.calls}"))


def failure(kind, detail):
    """The exception a failed model call raises, built the way the SDK builds it."""
    import anthropic
    try:
        import httpx2 as http
    except ImportError:
        import httpx as http
    request = http.Request("POST", "https://api.anthropic.com/v1/messages")
    if kind == "rate_limit":
        return anthropic.RateLimitError(detail, response=http.Response(429, request=request), body=None)
    if kind == "not_found":
        return anthropic.NotFoundError(detail, response=http.Response(404, request=request), body=None)
    if kind == "connection":
        return anthropic.APIConnectionError(request=request)
    return RuntimeError(detail)


# --- running main -------------------------------------------------------------------------------

def run_main(double, lines, **kwargs):
    """main(Lines(lines), **kwargs) with agent_loop standing in as `double`, its output captured.

    Returns what was seen (plain data), the list main returned and the asker, for `is` questions."""
    import contextlib
    import io
    import warnings

    import nano.loop
    import nano.repl
    from nano.protocol import check_messages
    from nano.testing import stand_in
    from nano.trace import plain as wire

    asker, out, err = Lines(lines), io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        stack.enter_context(stand_in(nano.loop.agent_loop, double))
        outcome = attempt_async(nano.repl.main, asker, **kwargs)
    log = outcome.get("value")
    seen = {"prompts": len(asker.prompts), "out": out.getvalue(), "err": err.getvalue(),
            "is_list": type(log) is list, "log": wire(log) if type(log) is list else repr(log)[:300]}
    if "raised" in outcome:
        seen["raised"] = outcome["raised"][0]
        seen["message"] = str(outcome.get("message"))[:500]
    elif type(log) is list:
        rest = attempt(check_messages, log, at_rest=True)
        seen["rest"] = rest["message"] if "raised" in rest else None
    return seen, log, asker


def session(double, lines, **kwargs):
    """run_main's observation alone."""
    return run_main(double, lines, **kwargs)[0]


def explained(exc):
    """"error: " + explain(exc), as main must print it (explain is given in nano/repl.py)."""
    import nano.repl

    found = attempt(nano.repl.explain, exc)
    return f"error: {found['value']}" if "value" in found else None


# --- judging helpers (plain data in, never raising) ----------------------------------------------

def said(message):
    """What a user or assistant entry says: its string content, or its text blocks joined."""
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    return " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")


def users(log):
    if not isinstance(log, list):
        return None
    return [said(m) for m in log if isinstance(m, dict) and m.get("role") == "user"]


def errors(run):
    out = run.get("out") if isinstance(run, dict) else None
    return [line for line in out.splitlines() if line.startswith("error: ")] if isinstance(out, str) else []


def normal(log):
    """The log with a line pushed as a string or as one text block read the same way."""
    if not isinstance(log, list):
        return None
    return [{**m, "content": [{"type": "text", "text": m["content"]}]}
            if isinstance(m, dict) and isinstance(m.get("content"), str) else m for m in log]


def turns(lines, replies=None):
    """The history of finished turns: each line, then a text-only reply ("done: " + the line by default)."""
    log = []
    for n, line in enumerate(lines):
        reply_text = replies[n] if replies else f"done: {line}"
        log += [{"role": "user", "content": line},
                {"role": "assistant", "content": [{"type": "text", "text": reply_text}]}]
    return log


def part(seen, key):
    """seen[key] if it is a dict, else an empty one."""
    value = seen.get(key) if isinstance(seen, dict) else None
    return value if isinstance(value, dict) else {}


def ran(run, section, what="main"):
    """The failure for a session that did not end normally, or None."""
    if not isinstance(run, dict):
        return f"{what} could not be run at all (section {section})"
    if "raised" in run:
        return f"{what} raised {run.get('raised')}: {run.get('message')} (section {section})"
    if run.get("is_list") is not True or not isinstance(run.get("log"), list):
        return f"main must return the history, a list; it returned {run.get('log')} (section {section})"
    return None


def escaped(seen):
    """The failure when observing itself broke (nano.loop or nano.repl could not be imported...)."""
    if not isinstance(seen, dict):
        return "main could not be run (sections 1-5)"
    if "escaped" in seen:
        return f"main could not be run: {seen.get('escaped')}: {seen.get('message')} (sections 1-5)"
    return None


def repaired(run, expected, section, hint):
    """The failures for a session whose history must be exactly `expected` after its repairs."""
    if run.get("rest"):
        yield f"after a failed turn main must pop the tail until the log is at rest: {run['rest']} (section {section})"
    elif normal(run.get("log")) != normal(expected):
        yield f"{hint}: the history should hold the finished turns {users(expected)}, not {users(run.get('log'))} (section {section})"


# --- section 1: one history, ask and model --------------------------------------------------------

def draw_history(rng):
    picked = rng.sample(REQUESTS, 7)
    return {"mine": picked[:3], "earlier_line": picked[3], "first": picked[4:6], "second": picked[6:]}


def observe_history(inputs, answers):
    seen = {}
    calls = []
    run, log, _ = run_main(fresh(canned_turns, _calls=calls), ["what does convert.py do?", "now add a docstring"])
    seen["visible"] = {**run, "same": [c["list"] is log for c in calls]}

    mine, calls = [], []
    run, log, _ = run_main(fresh(canned_turns, _calls=calls), inputs["mine"], messages=mine)
    seen["mine"] = {**run, "is_mine": log is mine, "users": users(mine),
                    "length": len(mine), "lengths": [c["length"] for c in calls],
                    "same": [c["list"] is mine for c in calls], "last": [said(c["last"]) for c in calls]}

    earlier = [{"role": "user", "content": "hello nano"},
               {"role": "assistant", "content": [{"type": "text", "text": "Hello! What shall we work on?"}]}]
    before, calls = [dict(m) for m in earlier], []
    run, log, _ = run_main(fresh(canned_turns, _calls=calls), [inputs["earlier_line"]], messages=earlier)
    seen["earlier"] = {**run, "is_mine": log is earlier, "kept": earlier[:2] == before, "length": len(earlier),
                       "lengths": [c["length"] for c in calls]}

    first, first_log, _ = run_main(fresh(canned_turns, _calls=[]), inputs["first"])
    second, second_log, _ = run_main(fresh(canned_turns, _calls=[]), inputs["second"])
    seen["sessions"] = {"first": first, "second": second, "distinct": first_log is not second_log}
    return seen


def judge_history(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    visible = part(seen, "visible")
    problem = ran(visible, "sections 1-3")
    if problem:
        yield problem
        return
    log = visible.get("log")
    if len(log) != 4:
        yield f"two lines must leave 4 entries, not {len(log)} (section 1)"
        return
    if [said(log[0]), said(log[2])] != ["what does convert.py do?", "now add a docstring"]:
        yield "each line goes onto the history as a user message, in order (section 1)"
    if visible.get("same") != [True, True]:
        yield "both lines must run on the one list main returns (section 1)"

    mine, lines = part(seen, "mine"), inputs["mine"]
    problem = ran(mine, "sections 1-3")
    if problem:
        yield problem
        return
    if mine.get("is_mine") is not True:
        yield "main must return the caller's own list, not a copy or a new one (section 1)"
    if mine.get("length") != 6:
        yield f"an empty list passed in must be filled in place: it holds {mine.get('length')} entries (section 1)"
    elif mine.get("users") != lines:
        yield "every line, in order, on the caller's list (section 1)"
    if mine.get("lengths") != [1, 3, 5]:
        yield "each turn must see every earlier turn: one list that grows across lines (section 1)"
    if mine.get("same") != [True, True, True]:
        yield "every turn must run on the caller's list itself (section 1)"
    if mine.get("last") != lines:
        yield "push the line before running agent_loop, so the turn answers it (section 1)"
    if "error:" in str(mine.get("out")):
        yield "a good turn must not print an error line (section 3)"

    earlier = part(seen, "earlier")
    problem = ran(earlier, "sections 1-3")
    if problem:
        yield problem
        return
    if earlier.get("is_mine") is not True or earlier.get("kept") is not True:
        yield "main must keep the earlier entries of the caller's list (section 1)"
    if earlier.get("length") != 4 or earlier.get("lengths") != [3]:
        yield "the new line goes after the earlier turns (section 1)"

    sessions = part(seen, "sessions")
    first, second = part(sessions, "first"), part(sessions, "second")
    problem = ran(first, "sections 1-3") or ran(second, "sections 1-3")
    if problem:
        yield problem
        return
    if len(first.get("log")) != 4 or len(second.get("log")) != 2 or sessions.get("distinct") is not True:
        yield "main without a list must start a new, empty history for each session (section 1)"


def draw_passes(rng):
    return {"visible_words": rng.choice(WORDS), "lines": rng.sample(REQUESTS, 2), "words": rng.choice(WORDS)}


def observe_passes(inputs, answers):
    seen = {}
    for name, lines, words in [("visible", ["what does convert.py do?"], inputs["visible_words"]),
                               ("hidden", inputs["lines"], inputs["words"])]:
        calls, model = [], TalkingModel(words)
        run, _, asker = run_main(fresh(model_turns, _calls=calls), lines, model=model)
        seen[name] = {**run, "calls": len(calls), "asks": [c["ask"] is asker for c in calls],
                      "models": [c["model"] is model for c in calls]}
    return seen


def judge_passes(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    visible, hidden = part(seen, "visible"), part(seen, "hidden")
    for run in (visible, hidden):
        if not isinstance(run, dict) or "raised" in run:
            yield f"main raised {run.get('raised') if isinstance(run, dict) else '?'}: " \
                  f"{run.get('message') if isinstance(run, dict) else ''} (section 1)"
            return
    if visible.get("calls") != 1:
        yield f"one line must run agent_loop once, not {visible.get('calls')} times (section 1)"
        return
    if visible.get("asks") != [True]:
        yield "main must hand its own asker to agent_loop, so the gate asks the same human (section 1)"
    if visible.get("models") != [True]:
        yield "main must hand its model to agent_loop (section 1)"
    if hidden.get("calls") != 2:
        yield "two lines, two runs of agent_loop (section 1)"
        return
    if hidden.get("asks") != [True, True]:
        yield "every turn's gate must ask through main's asker, not a TerminalAsker of its own (section 1)"
    if hidden.get("models") != [True, True]:
        yield "every turn must use the model main was given, never the default call_model (section 1)"
    log = hidden.get("log") if isinstance(hidden.get("log"), list) else []
    replies = [block.get("text") if isinstance(block, dict) else None
               for m in log if isinstance(m, dict) and m.get("role") == "assistant"
               for block in (m.get("content") if isinstance(m.get("content"), list) else [None])]
    if replies != [inputs["words"]] * 2:
        yield "the replies of main's model must reach the history (section 1)"


# --- section 2: blank lines, exit, the end of input ------------------------------------------------

def draw_two(rng):
    return {"lines": rng.sample(REQUESTS, 3)}


def canned_session(lines, **kwargs):
    """A session with the canned stand-in: what was seen, and how many times agent_loop ran."""
    calls = []
    run, log, _ = run_main(fresh(canned_turns, _calls=calls), lines, **kwargs)
    return {**run, "calls": len(calls)}, log


def observe_blank(inputs, answers):
    first, second, visible = inputs["lines"]
    return {"visible": canned_session(["", visible])[0],
            "hidden": canned_session(["", "   ", first, "\t", "  \t ", second])[0],
            "blank": canned_session(["    ", "", "\t"], messages=[])[0]}


def judge_blank(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    first, second, line = inputs["lines"]
    visible, hidden, blank = part(seen, "visible"), part(seen, "hidden"), part(seen, "blank")
    problem = ran(visible, 2) or ran(hidden, 2) or ran(blank, 2)
    if problem:
        yield problem
        return
    if visible.get("calls") != 1:
        yield f"a blank line must not run agent_loop: it ran {visible.get('calls')} times (section 2)"
    if len(visible["log"]) != 2 or said(visible["log"][0]) != line:
        yield "a blank line must not be pushed onto the history (section 2)"
    if hidden.get("calls") != 2:
        yield f"lines of spaces or tabs are blank too: strip before testing; agent_loop ran {hidden.get('calls')} times (section 2)"
    if users(hidden["log"]) != [first, second]:
        yield "only the non-blank lines may reach the history (section 2)"
    if hidden.get("prompts") != 7:
        yield f"after a blank line main must ask again and keep going; it asked {hidden.get('prompts')} questions (section 2)"
    if blank.get("calls") != 0 or blank["log"] != []:
        yield "a session of blank lines must never call agent_loop nor push anything (section 2)"


def observe_exit(inputs, answers):
    earlier = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]}]
    first, log = canned_session(["exit", "list the files", "read notes.md"], messages=earlier)
    return {"visible": canned_session(["read convert.py", "exit", "this line is never read"])[0],
            "mentions": canned_session(inputs["mentions"] + ["  exit  ", "never read", "nor this"])[0],
            "first": {**first, "is_mine": log is earlier, "length": len(earlier)},
            "blank_then_exit": canned_session(["", "exit", "fix it"])[0]}


def judge_exit(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    visible, mentions = part(seen, "visible"), part(seen, "mentions")
    first, blank = part(seen, "first"), part(seen, "blank_then_exit")
    problem = ran(visible, 2) or ran(mentions, 2) or ran(first, 2) or ran(blank, 2)
    if problem:
        yield problem
        return
    if visible.get("prompts") != 2:
        yield f"main must stop reading at 'exit'; it asked {visible.get('prompts')} questions (section 2)"
    if visible.get("calls") != 1 or len(visible["log"]) != 2:
        yield "'exit' is not a request: it is never pushed nor run (section 2)"
    if mentions.get("calls") != 2:
        yield "a request that merely mentions exit is a request; only the whole line 'exit' stops main (section 2)"
    if users(mentions["log"]) != inputs["mentions"]:
        yield "requests mentioning exit must be pushed like any other (section 2)"
    if mentions.get("prompts") != 3:
        yield "'exit' with spaces around it must stop main: strip first (section 2)"
    if first.get("is_mine") is not True or first.get("length") != 2 or first.get("calls") != 0:
        yield "'exit' as the first line must stop main at once, leaving the history as it was (section 2)"
    if first.get("prompts") != 1:
        yield "after 'exit' main must not ask for another line (section 2)"
    if blank.get("calls") != 0 or blank["log"] != [] or blank.get("prompts") != 2:
        yield "a blank line then 'exit' ends an empty session (section 2)"


def observe_end_of_input(inputs, answers):
    first, second, third = inputs["lines"]
    earlier = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": [{"type": "text", "text": "Hi."}]}]
    run, log = canned_session([first, "", third], messages=earlier)
    return {"visible": canned_session(["first request", "second request"])[0],
            "empty": canned_session([])[0],
            "earlier": {**run, "is_mine": log is earlier, "length": len(earlier)}}


def judge_end_of_input(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    for run in (seen.get("visible"), seen.get("empty"), seen.get("earlier")):
        if isinstance(run, dict) and "raised" in run:
            yield f"at the end of input main must return the history, but it raised " \
                  f"{run.get('raised')}: {run.get('message')} (section 2)"
            return
    visible, empty, earlier = part(seen, "visible"), part(seen, "empty"), part(seen, "earlier")
    problem = ran(visible, 2) or ran(empty, 2) or ran(earlier, 2)
    if problem:
        yield problem
        return
    if len(visible["log"]) != 4:
        yield "every line before the end of input is run, then main returns (section 2)"
    if visible.get("prompts") != 3:
        yield "main stops at the first EOFError, without asking again (section 2)"
    if empty["log"] != [] or empty.get("calls") != 0:
        yield "input that ends at once must give an empty history, and no turn (section 2)"
    if empty.get("prompts") != 1:
        yield f"after EOFError main must not ask again; it asked {empty.get('prompts')} times (section 2)"
    if "Traceback" in str(empty.get("out")) + str(empty.get("err")):
        yield "the end of input is not an error: print no traceback (section 2)"
    if earlier.get("is_mine") is not True or earlier.get("length") != 6 or earlier.get("calls") != 2:
        yield "at the end of input main must return the caller's list with every turn in it (section 2)"
    if earlier.get("prompts") != 4:
        yield "three lines, then one EOFError, then stop (section 2)"


# --- section 3: failed turns repaired --------------------------------------------------------------

DANGLING = [("visible", [], ["ok first", "crash now", "ok third"]),
            ("deep", [], ["ok alpha", "deep dive into src/", "ok omega"]),
            ("results", [], ["results of the tests?", "ok next"]),
            ("earlier", [{"role": "user", "content": "hello"},
                         {"role": "assistant", "content": [{"type": "text", "text": "Hi there."}]}],
             ["crash please", "ok then", "crash again", "deep trouble"]),
            ("gate", [], ["ok look around", "gate the build clean-up"]),
            ("first", [], ["crash at once", "ok second"])]


def observe_dangling(inputs, answers):
    seen = {}
    for name, earlier, lines in inputs["sessions"]:
        mine = [dict(m) for m in earlier] if earlier else None
        run, log, _ = run_main(failing_turns, lines, **({"messages": mine} if mine is not None else {}))
        seen[name] = {**run, "is_mine": mine is None or log is mine}
    return seen


def good_lines(lines, failing):
    return [line for line in lines if (line.split() or [""])[0] not in failing]


def judge_dangling(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    for name, earlier, lines in inputs["sessions"]:
        run = part(seen, name)
        if isinstance(run, dict) and "raised" in run:
            yield f"a failed turn must not end main, but it raised {run.get('raised')}: {run.get('message')} (section 3)"
            return
        problem = ran(run, 3)
        if problem:
            yield problem
            return
        hint = {"visible": "the failed turn must be popped, the turns before and after it kept",
                "deep": "pop until at rest: a turn that got further leaves more entries to pop",
                "results": "a turn that failed after its tool results were pushed must be popped entirely",
                "earlier": "the repair must keep every finished turn, the caller's earlier ones included",
                "gate": "an EOFError from the gate is a failed turn: report it and repair the log",
                "first": "a failed first turn must leave an empty history, ready for the next line"}.get(name, "")
        expected = earlier + turns(good_lines(lines, ("crash", "deep", "results", "gate")))
        for message in repaired(run, expected, 3, hint):
            yield message
            return
        if run.get("is_mine") is not True:
            yield "main must repair the caller's own list (section 3)"
        if name == "visible" and len(errors(run)) != 1:
            yield f"one failed turn, one line 'error: ...' on stdout; got {run.get('out')!r} (section 3)"
        if name == "gate" and not errors(run):
            yield "an EOFError inside a turn must be reported on a line 'error: ...' (section 3)"


def observe_ctrl_c(inputs, answers):
    return {"visible": session(interrupted_turns, inputs["visible"]),
            "twice": session(interrupted_turns, inputs["twice"]),
            "expected": explained(KeyboardInterrupt())}


def judge_ctrl_c(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    visible, twice = part(seen, "visible"), part(seen, "twice")
    for run in (visible, twice):
        if isinstance(run, dict) and "raised" in run:
            yield f"main raised {run.get('raised')}: {run.get('message')} (Ctrl-C during a turn must end " \
                  "the turn, not main: catch KeyboardInterrupt too, section 3)"
            return
    problem = ran(visible, 3) or ran(twice, 3)
    if problem:
        yield problem
        return
    kept = [line for line in inputs["visible"] if not line.startswith("stop")]
    if users(visible["log"]) != kept:
        yield "after Ctrl-C main must repair the log and read the next line (section 3)"
        return
    for message in repaired(visible, turns(kept), 3, "after Ctrl-C main must repair the log"):
        yield message
        return
    expected = seen.get("expected")
    if not isinstance(expected, str) or expected not in str(visible.get("out")).splitlines():
        yield f"an interrupted turn must print 'error: ' + explain(exc); the output was {visible.get('out')!r} (section 3)"
    kept = [line for line in inputs["twice"] if not line.startswith("stop")]
    for message in repaired(twice, turns(kept), 3, "every interrupted turn must be popped, and the session goes on"):
        yield message
        return
    if len(errors(twice)) != 2:
        yield "one 'error: ' line per interrupted turn (section 3)"


# --- section 4: the turn limit ---------------------------------------------------------------------

def observe_turn_limit(inputs, answers):
    seen = {}
    for name, rounds, earlier, lines in inputs["sessions"]:
        mine = [dict(m) for m in earlier] if earlier else None
        run, log, _ = run_main(fresh(limited_turns, _rounds=rounds), lines,
                            **({"messages": mine} if mine is not None else {}))
        seen[name] = {**run, "is_mine": mine is None or log is mine}
    return seen


def judge_turn_limit(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    for name, rounds, earlier, lines in inputs["sessions"]:
        run = part(seen, name)
        problem = ran(run, 4)
        if problem:
            yield problem
            return
        kept = [line for line in lines if not line.startswith("loop")]
        if run.get("rest"):
            yield f"a turn cut off by the turn limit must be popped until the log is at rest: {run['rest']} (section 4)"
            return
        if normal(run.get("log")) != normal(earlier + turns(kept)):
            yield {"visible": "a turn cut off by the turn limit must be popped like a failed one (section 4)",
                   "earlier": "the repair after the turn limit must keep every finished turn (section 4)",
                   "only_loops": "two cut-off turns and nothing else must leave an empty history (section 4)"}.get(
                name, "a turn cut off by the turn limit must be popped (section 4)")
            return
        if run.get("is_mine") is not True:
            yield "main must repair the caller's own list (section 4)"
        found = errors(run)
        if name == "visible" and (len(found) != 1 or len(found[0]) <= len("error: ")):
            yield f"the turn limit must be reported on one line 'error: ...'; the output was {run.get('out')!r} (section 4)"
        if name == "earlier" and len(found) != 1:
            yield "one 'error: ' line for the one cut-off turn, none for the good ones (section 4)"


# --- section 5: model errors -----------------------------------------------------------------------

MODEL_ERRORS = [
    [["first try", "second try"], [[1, "bug", "the model fell over"]]],
    [["which files changed?", "add a changelog entry", "run the linter"], [[2, "rate_limit", "rate_limit_error"]]],
    [["list the tests", "then count them"], [[1, "connection", ""]]],
    [["explain pager.py", "summarise utils.py", "exit", "never read"], [[1, "bug", "disk on fire, code 5521"]]],
    [["bump the version", "tag the release", "push it"], [[1, "not_found", "model: claude-retired-0"],
                                                          [2, "connection", ""]]],
]


def observe_model_error(inputs, answers):
    cases = []
    for lines, failures in inputs["cases"]:
        raised = {n: failure(kind, detail) for n, kind, detail in failures}
        model = FailingModel(raised)
        run = session(fresh(model_turns, _calls=[]), lines, model=model)
        cases.append({**run, "calls": model.calls, "expected": [explained(raised[n]) for n, _, _ in failures]})
    return {"cases": cases}


def judge_model_error(inputs, seen):
    problem = escaped(seen)
    if problem:
        yield problem
        return
    cases = seen.get("cases") if isinstance(seen.get("cases"), list) else []
    if len(cases) != len(inputs["cases"]):
        yield "main could not be run on every case (section 5)"
        return
    for n, (run, (lines, failures)) in enumerate(zip(cases, inputs["cases"])):
        if not isinstance(run, dict):
            yield "main could not be run (section 5)"
            return
        if "raised" in run:
            yield f"a model error must not end main, but it raised {run.get('raised')}: {run.get('message')} (section 5)"
            return
        problem = ran(run, 5)
        if problem:
            yield problem
            return
        run_lines = lines[:lines.index("exit")] if "exit" in lines else lines
        failed = {f[0] for f in failures}
        kept = [line for i, line in enumerate(run_lines, 1) if i not in failed]
        expected = run.get("expected")
        replies = [f"answer {i}" for i, line in enumerate(run_lines, 1) if i not in failed]
        if n == 0:
            if users(run["log"]) != kept:
                yield "after a model error main must repair the history and read the next line (section 5)"
                return
            if not isinstance(expected, list) or not expected or expected[0] not in str(run.get("out")).splitlines():
                yield f"print 'error: ' + explain(exc) on one line of stdout; stdout was {run.get('out')!r}, " \
                      f"stderr {run.get('err')!r} (section 5)"
                return
            for message in repaired(run, turns(kept, replies), 5,
                                    "after a model error main must repair the history and read the next line"):
                yield message
                return
            continue
        if errors(run) != expected:
            yield f"each failed turn must print exactly one line 'error: ' + explain(exc) on stdout; " \
                  f"expected {expected}, got {errors(run)} (section 5)"
            return
        if "Traceback" in str(run.get("out")) + str(run.get("err")):
            yield "a failed turn is reported in one sentence, not a traceback (section 5)"
            return
        for message in repaired(run, turns(kept, replies), 5,
                                "after a model error main must repair and go on with the next line"):
            yield message
            return
        if run.get("calls") != len(run_lines):
            yield "every line after a failed turn must still be run (section 5)"
            return


BEHAVIOURS = [
    # First: it pays for importing nano.loop, and with it the SDK.
    Behaviour("l06_one_history_across_lines", observe_history, judge_history, draw=draw_history, timeout=60),
    Behaviour("l06_passes_ask_and_model", observe_passes, judge_passes, draw=draw_passes),
    Behaviour("l06_blank_lines_skipped", observe_blank, judge_blank, draw=draw_two),
    Behaviour("l06_exit_stops", observe_exit, judge_exit,
              given={"mentions": ["make the script exit with code 3 on bad input", "exit the loop early in scan.py"]}),
    Behaviour("l06_end_of_input_stops", observe_end_of_input, judge_end_of_input, draw=draw_two),
    Behaviour("l06_dangling_tool_use_repaired", observe_dangling, judge_dangling,
              given={"sessions": [list(s) for s in DANGLING]}),
    Behaviour("l06_ctrl_c_during_a_turn", observe_ctrl_c, judge_ctrl_c,
              given={"visible": ["list the files", "stop that sleep", "read notes.md"],
                     "twice": ["stop before anything", "stop again", "count the tests"]}),
    Behaviour("l06_turn_limit_repaired", observe_turn_limit, judge_turn_limit,
              given={"sessions": [
                  ["visible", 1, [], ["loop until the tests pass", "something small"]],
                  ["earlier", 4, [{"role": "user", "content": "hi"},
                                  {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]}],
                   ["read the README", "loop over every file", "summarise it"]],
                  ["only_loops", 3, [], ["loop a", "loop b"]]]}),
    Behaviour("l06_model_error_reported", observe_model_error, judge_model_error, given={"cases": MODEL_ERRORS}),
]
