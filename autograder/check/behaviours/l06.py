"""Lecture 06's graded behaviours: the rules of checks/l06.py (main, the REPL around agent_loop)
on hidden cases.

A rule's drive and judge are defined once, in checks/l06.py, with the visible case ./ok 06 runs;
here each rule gets the draw that adds hidden sessions of the same shape to that visible case:
drawn requests, the caller's list (empty, or holding earlier turns), lines of spaces and tabs,
requests that mention exit, input that ends at once, turns that fail deeper (after tool results,
at the gate, the first one), Ctrl-C twice, longer cut-off turns, and the model's errors of every
kind. Lecture 06 has no question to answer.
"""

from autograder.check.behaviour import Behaviour, visible
from checks import l06

# Requests a session may type: none is blank, none is "exit", none starts a stand-in's keyword.
REQUESTS = ["what does convert.py do?", "now add a docstring", "rename tally() to count_votes()",
            "run the tests once", "show me the diff of ballot.py", "fix the off-by-one in pager.py",
            "list the files in src/", "read notes.md", "count the TODOs in src/", "summarise utils.py",
            "add a changelog entry", "which files changed?", "bump the version", "explain pager.py"]
WORDS = ["It converts temperatures.", "Renamed, and the three call sites updated.", "Two tests fail.",
         "The diff is one line.", "Done: the docstring says what it returns."]
HELLO = [{"role": "user", "content": "hello nano"},
         {"role": "assistant", "content": [{"type": "text", "text": "Hello! What shall we work on?"}]}]
HI = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]}]


def cases(grade_id: str, *hidden: dict) -> dict:
    return {"cases": visible(l06.RULES, grade_id)["cases"] + list(hidden)}


# --- section 1 ------------------------------------------------------------------------------------

def draw_history(rng):
    picked = rng.sample(REQUESTS, 7)
    return cases("l06_one_history_across_lines", {"lines": picked[:3], "earlier": []},
                 {"lines": [picked[3]], "earlier": HELLO}, {"lines": picked[4:6]}, {"lines": picked[6:]})


def draw_passes(rng):
    words, lines, more = rng.choice(WORDS), rng.sample(REQUESTS, 2), rng.choice(WORDS)
    return cases("l06_passes_ask_and_model", {"lines": ["what does convert.py do?"], "play": "model", "words": words},
                 {"lines": lines, "play": "model", "words": more})


# --- section 2 ------------------------------------------------------------------------------------

def draw_blank(rng):
    first, second, third = rng.sample(REQUESTS, 3)
    return cases("l06_blank_lines_skipped", {"lines": ["", third]},
                 {"lines": ["", "   ", first, "\t", "  \t ", second]}, {"lines": ["    ", "", "\t"], "earlier": []})


def draw_exit(rng):
    mentions = ["make the script exit with code 3 on bad input", "exit the loop early in scan.py"]
    return cases("l06_exit_stops", {"lines": ["read convert.py", "exit", "this line is never read"]},
                 {"lines": mentions + ["  exit  ", "never read", "nor this"]},
                 {"lines": ["exit", "list the files", "read notes.md"], "earlier": HI},
                 {"lines": ["", "exit", "fix it"]})


def draw_end_of_input(rng):
    first, _, third = rng.sample(REQUESTS, 3)
    return cases("l06_end_of_input_stops", {"lines": []},
                 {"lines": [first, "", third], "earlier": [HI[0], answer("Hi.")]})


def answer(words):
    return {"role": "assistant", "content": [{"type": "text", "text": words}]}


# --- sections 3 to 5 ------------------------------------------------------------------------------

def draw_dangling(rng):
    return cases("l06_dangling_tool_use_repaired", *[{"lines": lines, "play": "failing", "hint": hint, **extra} for
                                                     lines, hint, extra in [
        (["ok first", "crash now", "ok third"], "the failed turn must be popped, the turns before and after it kept", {}),
        (["ok alpha", "deep dive into src/", "ok omega"],
         "pop until at rest: a turn that got further leaves more entries to pop", {}),
        (["results of the tests?", "ok next"],
         "a turn that failed after its tool results were pushed must be popped entirely", {}),
        (["crash please", "ok then", "crash again", "deep trouble"],
         "the repair must keep every finished turn, the caller's earlier ones included",
         {"earlier": [{"role": "user", "content": "hello"}, answer("Hi there.")]}),
        (["crash at once", "ok second"], "a failed first turn must leave an empty history, ready for the next line", {})]])


def draw_ctrl_c(rng):
    return cases("l06_ctrl_c_during_a_turn",
                 {"lines": ["stop before anything", "stop again", "count the tests"], "play": "interrupted"})


def draw_turn_limit(rng):
    return cases("l06_turn_limit_repaired",
                 {"lines": ["read the README", "loop over every file", "summarise it"], "play": "limited", "rounds": 4,
                  "earlier": HI[:1] + [answer("Hello.")],
                  "hint": "the repair after the turn limit must keep every finished turn"},
                 {"lines": ["loop a", "loop b"], "play": "limited", "rounds": 3,
                  "hint": "two cut-off turns and nothing else must leave an empty history"})


def draw_model_error(rng):
    return cases("l06_model_error_reported", *[{"lines": lines, "play": "failing_model", "failures": failures} for
                                               lines, failures in [
        (["which files changed?", "add a changelog entry", "run the linter"], [[2, "rate_limit", "rate_limit_error"]]),
        (["list the tests", "then count them"], [[1, "connection", ""]]),
        (["explain pager.py", "summarise utils.py", "exit", "never read"], [[1, "bug", "disk on fire, code 5521"]]),
        (["bump the version", "tag the release", "push it"], [[1, "not_found", "model: claude-retired-0"],
                                                              [2, "connection", ""]])]])


DRAWS = {"l06_one_history_across_lines": draw_history, "l06_passes_ask_and_model": draw_passes,
         "l06_blank_lines_skipped": draw_blank, "l06_exit_stops": draw_exit,
         "l06_end_of_input_stops": draw_end_of_input, "l06_dangling_tool_use_repaired": draw_dangling,
         "l06_ctrl_c_during_a_turn": draw_ctrl_c, "l06_turn_limit_repaired": draw_turn_limit,
         "l06_model_error_reported": draw_model_error}

BEHAVIOURS = [Behaviour.of(rule, DRAWS[rule.grade_id]) for rule in l06.RULES]
