"""Lecture 06's rules: main, the REPL around agent_loop (nano/repl.py).

Each rule is defined once, here: `./ok 06` and the notebook's graded cells run its visible case
in your process, and the grader runs the same drive and judge on more cases of the same shape.
A case is one session of main (l06_session.py): the lines a scripted human types (then input
ends, EOFError), the caller's list if any, and how agent_loop plays each turn. agent_loop is
replaced by a stand-in, so these test main alone: a bug in your lecture-05 loop does not show up
here. The judges know the truth from the case alone: the lines main reads, the requests among
them, and the history of finished turns they leave. A repaired history is judged by what it
holds, exactly the finished turns in order, whichever correct way main repaired it.
"""

import functools

from checks.kit import dicts_of, message_of, raised_names, written
from checks.l06_session import FAILING, drive_sessions, said
from checks.rule import Rule

NEEDS = ("nano.repl",)  # loaded first by ./ok: a file that does not load is named before any rule runs
RUNAWAY = "main kept asking after the input had ended (section 2)"


# --- what a case must leave ------------------------------------------------------------------------

def reading(lines):
    """(the lines main reads, the requests among them, stripped): it reads up to the first line
    'exit' (spaces around it allowed), or to the end of input, skipping blank lines."""
    read, requests = [], []
    for line in lines:
        read.append(line)
        if line.strip() == "exit":
            break
        if line.strip():
            requests.append(line.strip())
    return read, requests


def asked(lines):
    """How many questions main asks for `lines`: one a line read, and one more that meets the end
    of input unless 'exit' stopped it."""
    read, _ = reading(lines)
    return len(read) + (0 if read and read[-1].strip() == "exit" else 1)


def fails(case, n, request):
    """Whether the case's n-th turn (from 1), for `request`, fails."""
    play = case.get("play", "canned")
    if play == "failing":
        return (request.split() or [""])[0] in FAILING
    if play == "interrupted":
        return request.startswith("stop")
    if play == "limited":
        return request.startswith("loop")
    if play == "failing_model":
        return n in {f[0] for f in case.get("failures", [])}
    return False


def finished(case):
    """The history main must leave for `case`: the caller's entries, then each finished turn, its
    request and the stand-in's reply."""
    log = list(case.get("earlier") or [])
    for n, request in enumerate(reading(case["lines"])[1], 1):
        if fails(case, n, request):
            continue
        words = {"canned": f"answer {n}", "model": case.get("words"), "failing_model": f"answer {n}"}.get(
            case.get("play", "canned"), f"done: {request}")
        log += [{"role": "user", "content": request}, {"role": "assistant", "content": [{"type": "text", "text": words}]}]
    return log


def failed(case):
    """How many of the case's turns fail."""
    return sum(fails(case, n, request) for n, request in enumerate(reading(case["lines"])[1], 1))


# --- reading what was seen (plain data in, never raising) --------------------------------------------

def users(log):
    if not isinstance(log, list):
        return None
    return [said(m) for m in log if isinstance(m, dict) and m.get("role") == "user"]


def errors(run):
    out = run.get("out")
    return [line for line in out.splitlines() if line.startswith("error: ")] if isinstance(out, str) else []


def turns_of(run):
    """The calls of agent_loop the run recorded, as dicts."""
    turns = run.get("turns")
    return dicts_of(turns, len(turns)) if isinstance(turns, list) else []


def normal(log):
    """The log with a line pushed as a string or as one text block read the same way."""
    if not isinstance(log, list):
        return None
    return [{**m, "content": [{"type": "text", "text": m["content"]}]}
            if isinstance(m, dict) and isinstance(m.get("content"), str) else m for m in log]


def sessions(inputs, seen, section, why):
    """The failure of the first session that did not end normally, or None; and the (case, run)
    pairs. A session ends normally when main returns a list; if main raised, `why` says what
    must not end it."""
    if "escaped" in seen:
        return f"main could not be run: {seen.get('escaped')}: {seen.get('message')} (section {section})", []
    runs = dicts_of(seen.get("runs"), len(inputs["cases"]))
    for run in runs:
        names = raised_names(run)
        if "Runaway" in names:
            return RUNAWAY, []
        written("main", [run], section)
        if names:
            said = f"{names[0]}: {message_of(run)}" if message_of(run) else names[0]
            return f"main raised {said}: {why} (section {section})", []
        if run.get("is_list") is not True or not isinstance(run.get("log"), list):
            return f"main must return the history, a list; it returned {run.get('log')} (section {section})", []
    return None, list(zip(inputs["cases"], runs))


def repaired(case, run, section, hint):
    """The failure of a session whose history is not at rest or not the finished turns, or None."""
    if run.get("rest"):
        return (f"after a failed turn, main (nano/repl.py) must pop the unfinished tail until "
                f"check_messages(messages, at_rest=True) holds; the history it left: {run['rest']} (section {section})")
    expected = finished(case)
    if normal(run.get("log")) != normal(expected):
        return (f"{hint}: for the lines {case['lines']} the history should hold the finished turns {users(expected)}, "
                f"not {users(run.get('log'))} (section {section})")
    return None


def wrongs(judge):
    """`judge`, a generator that yields None for each thing that is right, as a judge that yields
    only what is wrong (the first of which is its message)."""
    @functools.wraps(judge)
    def judged(inputs, seen):
        return (message for message in judge(inputs, seen) if message)
    return judged


def own_list(case, run, section):
    """The failure of a session given the caller's list that did not fill that list, or None."""
    if "earlier" in case and run.get("is_mine") is not True:
        if not case["earlier"]:
            return ("main must add to the list it is given even when that list is empty (test `messages is None`, "
                    f"not `messages or []`), and return that same list (section {section})")
        return f"main must add to the caller's list and return that same list, not a copy or a new one (section {section})"
    return None


# --- section 1: one history, ask and model ----------------------------------------------------------

@wrongs
def judge_history(inputs, seen):
    wrong, pairs = sessions(inputs, seen, 1, "a turn that went well must not end main")
    if wrong:
        yield wrong
    for case, run in pairs:
        yield own_list(case, run, 1)
        earlier, lines, log = case.get("earlier") or [], case["lines"], run["log"]
        expected = finished(case)
        if len(log) != len(expected):
            yield (f"{len(lines)} lines on top of {len(earlier)} entries make {len(expected)} entries, not {len(log)} "
                   "(section 1)")
        if users(log) != users(expected):
            yield (f"each line goes onto the history as a user message, in order, after the entries it already held: "
                   f"expected {users(expected)}, got {users(log)} (section 1)")
        turns = turns_of(run)
        if [turn.get("length") for turn in turns] != [len(earlier) + 1 + 2 * i for i in range(len(lines))]:
            yield ("every line must be run on the same list, so the second line's turn sees the first's: one history "
                   "that grows across lines (section 1)")
        if run.get("same") != [True] * len(lines):
            yield "every turn must run on the one list main returns (section 1)"
        if [turn.get("last") for turn in turns] != lines:
            yield "push the line before running agent_loop, so the turn answers it (section 1)"
        if errors(run):
            yield f"a turn that went well must not print an error line; the output was {run.get('out')!r} (section 3)"
        if normal(log) != normal(expected):
            yield f"the history must hold each line and its turn's reply: expected {expected}, got {log} (section 1)"


@wrongs
def judge_passes(inputs, seen):
    wrong, pairs = sessions(inputs, seen, 1, "a turn that went well must not end main")
    if wrong:
        yield wrong
    for case, run in pairs:
        lines, turns = case["lines"], turns_of(run)
        if run.get("calls") != len(lines):
            yield f"one line must run agent_loop once: {len(lines)} lines ran it {run.get('calls')} times (section 1)"
        if [turn.get("ask") for turn in turns] != [True] * len(lines):
            yield "main must hand its own asker to agent_loop, so the gate asks the same human (section 1)"
        if [turn.get("model") for turn in turns] != [True] * len(lines):
            yield "main must hand its model to agent_loop, never the default call_model (section 1)"
        if normal(run["log"]) != normal(finished(case)):
            yield "the replies of main's model must reach the history (section 1)"


# --- section 2: blank lines, exit, the end of input ---------------------------------------------------

def judge_reading(name, what):
    """The judge `name` of sessions of canned turns that test how main reads its lines: `what` it
    must do, said when it asked too many or too few questions."""
    def judge(inputs, seen):
        wrong, pairs = sessions(inputs, seen, 2, "it must return the history")
        if wrong:
            yield wrong
        for case, run in pairs:
            lines, (_, requests) = case["lines"], reading(case["lines"])
            if run.get("calls") != len(requests) or users(run["log"]) != [*users(case.get("earlier") or []), *requests]:
                yield (f"for the lines {lines!r} main must push and run {requests}, no more (a blank line is skipped, "
                       f"only the line 'exit' stops main); it ran agent_loop {run.get('calls')} times and pushed "
                       f"{users(run['log'])[len(case.get('earlier') or []):]} (section 2)")
            if run.get("prompts") != asked(lines):
                yield f"{what}: for the lines {lines!r} main must ask {asked(lines)} times, not {run.get('prompts')} (section 2)"
            yield own_list(case, run, 2)
            if normal(run["log"]) != normal(finished(case)):
                yield f"the history must hold every turn of the requests {requests}, in order (section 2)"
            if "Traceback" in str(run.get("out")) + str(run.get("err")):
                yield "the end of input is not an error: print no traceback (section 2)"
    judge.__name__ = judge.__qualname__ = name
    return wrongs(judge)


judge_blank = judge_reading("judge_blank", "after a blank line main must ask again and keep going")
judge_exit = judge_reading("judge_exit", "main must stop reading at 'exit' (spaces around it too: strip first)")
judge_end_of_input = judge_reading("judge_end_of_input", "main stops at the first EOFError, without asking again")


# --- sections 3 to 5: failed turns repaired ------------------------------------------------------------

@wrongs
def judge_dangling(inputs, seen):
    wrong, pairs = sessions(inputs, seen, 3, "a failed turn must not end main")
    if wrong:
        yield wrong
    for case, run in pairs:
        yield repaired(case, run, 3, case["hint"])
        yield own_list(case, run, 3)
        if len(errors(run)) != failed(case):
            yield (f"one failed turn, one line 'error: ' + explain(exc) on stdout (an EOFError from the gate fails "
                   f"its turn too): the lines {case['lines']} make {failed(case)} failed turns, but the output was "
                   f"{run.get('out')!r} (section 3)")
        gates = sum((line.split() or [""])[0] == "gate" for line in reading(case["lines"])[1])
        if run.get("prompts") != asked(case["lines"]) + gates:
            yield ("after a failed turn main must read the next line, until the input ends (an EOFError from the "
                   "gate is a failed turn, not the end of input) (section 3)")


@wrongs
def judge_ctrl_c(inputs, seen):
    wrong, pairs = sessions(inputs, seen, 3, "Ctrl-C during a turn must end the turn, not main: catch "
                                             "KeyboardInterrupt too")
    if wrong:
        yield wrong
    for case, run in pairs:
        if users(run["log"]) != users(finished(case)):
            yield "after Ctrl-C main must repair the log and read the next line: catch KeyboardInterrupt too (section 3)"
        yield repaired(case, run, 3, "every interrupted turn must be popped, and the session goes on")
        expected = run.get("expected")
        if errors(run) != expected:
            yield (f"each interrupted turn must print one line 'error: ' + explain(exc): expected {expected}, "
                   f"the output was {run.get('out')!r} (section 3)")


@wrongs
def judge_turn_limit(inputs, seen):
    wrong, pairs = sessions(inputs, seen, 4, "the turn limit must not end main")
    if wrong:
        yield wrong
    for case, run in pairs:
        yield repaired(case, run, 4, case["hint"])
        yield own_list(case, run, 4)
        found = errors(run)
        if len(found) != failed(case) or any(len(line) <= len("error: ") for line in found):
            yield (f"each turn cut off by the turn limit must be reported on one line 'error: ...', and none other: "
                   f"for the lines {case['lines']} the output was {run.get('out')!r} (section 4)")


@wrongs
def judge_model_error(inputs, seen):
    wrong, pairs = sessions(inputs, seen, 5, "a failed turn must not end main")
    if wrong:
        yield wrong
    for case, run in pairs:
        expected = run.get("expected")
        if errors(run) != expected:
            yield (f"each failed turn must print exactly one line 'error: ' + explain(exc) on stdout: expected "
                   f"{expected}, got {errors(run)}; stdout was {run.get('out')!r}, stderr {run.get('err')!r} (section 5)")
        if "Traceback" in str(run.get("out")) + str(run.get("err")):
            yield "a failed turn is reported in one sentence, not a traceback (section 5)"
        yield repaired(case, run, 5, "after a model error main must repair the history and read the next line")
        if run.get("calls") != len(reading(case["lines"])[1]):
            yield "every line after a failed turn must still be run (section 5)"


EARLIER = [{"role": "user", "content": "hello"},
           {"role": "assistant", "content": [{"type": "text", "text": "Hi! What shall we work on?"}]}]

RULES = [
    # First: it pays for importing nano.loop, and with it the SDK.
    Rule("l06_one_history_across_lines", drive_sessions, judge_history, {"cases": [
        {"lines": ["what does convert.py do?", "now add a docstring"]},
        {"lines": ["list the files", "now read notes.md"], "earlier": EARLIER},
        {"lines": ["first", "second"], "earlier": []},
        {"lines": ["run the tests once"]}]}, timeout=60),
    Rule("l06_passes_ask_and_model", drive_sessions, judge_passes, {"cases": [
        {"lines": ["what does convert.py do?"], "play": "model", "words": "It converts temperatures."}]}),
    Rule("l06_blank_lines_skipped", drive_sessions, judge_blank, {"cases": [
        {"lines": ["", "   ", "what does convert.py do?"]}]}),
    Rule("l06_exit_stops", drive_sessions, judge_exit, {"cases": [
        {"lines": ["fix the exit code", "exit", "this line is never read"]}]}),
    Rule("l06_end_of_input_stops", drive_sessions, judge_end_of_input, {"cases": [
        {"lines": ["first request", "second request"]}]}),
    Rule("l06_dangling_tool_use_repaired", drive_sessions, judge_dangling, {"cases": [
        {"lines": ["ok first", "crash now", "deep down", "ok last"], "play": "failing",
         "hint": "each failed turn must be popped, the turns before and after it kept"},
        {"lines": ["ok look around", "gate the build clean-up"], "play": "failing",
         "hint": "an EOFError from the gate is a failed turn, not the end of input: report it and repair the log"}]}),
    Rule("l06_ctrl_c_during_a_turn", drive_sessions, judge_ctrl_c, {"cases": [
        {"lines": ["list the files", "stop that sleep", "read notes.md"], "play": "interrupted"}]}),
    Rule("l06_turn_limit_repaired", drive_sessions, judge_turn_limit, {"cases": [
        {"lines": ["loop until the tests pass", "something small"], "play": "limited", "rounds": 1,
         "hint": "a turn cut off by the turn limit must be popped like a failed one"}]}),
    Rule("l06_model_error_reported", drive_sessions, judge_model_error, {"cases": [
        {"lines": ["first try", "second try"], "play": "failing_model", "failures": [[1, "bug", "the model fell over"]]}]}),
]
