"""Lecture 05's graded behaviours: the six unlock answers, and the rules of checks/l05.py
(call_model, agent_loop) on hidden cases.

A rule's drive and judge are defined once, in checks/l05.py (with checks/l05_model.py and
checks/l05_loop.py), with the visible case ./ok 05 runs; here each rule gets the draw that adds
hidden cases of the same shape to that visible case: other settings, prompts and keys for
call_model; for agent_loop, other ids, paths and texts, several requests in one turn, every
gated tool declined, failures of several kinds, limits of several sizes, and the Celsius trace
with ids and texts the student has not seen. The answers to the questions stay here.
"""

import functools

from autograder.check.behaviour import Behaviour, no_inputs
from checks import l05
from checks.l05 import text, thinking, tool_use, user

# ---------------------------------------------------------------------------------------------
# The unlock questions

def drive_answer(subject, inputs):
    return subject.answers([inputs["name"]])


def judge_answer(inputs, seen):
    value, truth, where = seen.get(inputs["name"]), inputs["truth"], inputs["where"]
    if value == {"missing": True} or inputs["name"] not in seen:
        yield (f"question {inputs['number']} was not answered: run your answer cell for question "
               f"{inputs['number']} first ({where}, unlock question {inputs['number']})")
    elif type(truth) is int:
        if type(value) is not int or value != truth:
            yield inputs["hint"]
    elif not isinstance(value, str) or value.strip().lower() != truth:
        yield inputs["hint"]


def question(number, truth, where, hint):
    return Behaviour(f"l05_q{number}_check", drive_answer, judge_answer,
                     given={"name": f"answer_q{number}", "number": number, "truth": truth, "where": where,
                            "hint": hint},
                     answers=(f"l05_q{number}_answer",))


# ---------------------------------------------------------------------------------------------
# The hidden cases, each added to the rule's visible cases

def visible(rule) -> list:
    return rule.visible["cases"]


def draw_request(rng):
    return {"token": f"pong-{rng.randrange(10**8)}", "model": f"claude-test-{rng.randrange(10**6)}",
            "max_tokens": rng.randrange(1000, 9000),
            "system": f"You are a test system prompt number {rng.randrange(10**6)}.",
            "ping": f"ping {rng.randrange(10**6)}", "three": f"three {rng.randrange(10**6)}"}


def draw_five_fields(rule, rng):
    drawn = draw_request(rng)
    return {"cases": visible(rule) + [{key: drawn[key] for key in ("token", "model", "max_tokens", "system", "ping")}]}


def draw_reuses_client(rule, rng):
    return {"cases": visible(rule) + [{"third": draw_request(rng)["three"]}]}


def draw_text_reply(rule, rng):
    number, requests = rng.randrange(10**6), [f"Request {rng.randrange(10**6)}" for _ in range(3)]
    blocks = [[text(f"All clear, number {number}.")], [text("First thought."), text("Second thought.")],
              [thinking("Nothing to run.", "sig-test"), text("Done already.")]]
    return {"cases": visible(rule) + [{"start": user(request), "replies": [reply], "no_tools": True}
                                      for reply, request in zip(blocks, requests)]}


def draw_verbatim(rule, rng):
    ids = [f"toolu_{rng.getrandbits(40):010x}" for _ in range(3)]
    return {"cases": visible(rule) + [{"start": user("Look around."), "tools": "output of {name}", "replies": [
        [thinking("I should read the file first.", f"sig-{ids[0]}"), text("Let me look."),
         tool_use(ids[0], "read_file", {"path": "app.py"})],
        [thinking("", f"EuYBCkQIBhgC{ids[1]}"), tool_use(ids[1], "list_files", {"path": "src"}),
         text("Also checking the folder."), tool_use(ids[2], "read_file", {"path": "src/main.py"})],
        [text("All read. Nothing needs changing.")]]}]}


def draw_by_id(rule, rng):
    ids = [f"toolu_{rng.getrandbits(48):012x}" for _ in range(4)]
    paths = [f"dir_{rng.getrandbits(16):04x}/file_{n}.txt" for n in range(4)]
    return {"cases": visible(rule) + [{"start": user("Read them all."), "tools": "contents of {path}", "replies": [
        [tool_use(ids[0], "read_file", {"path": paths[0]})],
        [text("Two more."), tool_use(ids[1], "read_file", {"path": paths[1]}),
         tool_use(ids[2], "list_files", {"path": paths[2]})],
        [tool_use(ids[3], "read_file", {"path": paths[3]})],
        [text("That is everything.")]]}]}


def draw_printed(rule, rng):
    tag = f"{rng.getrandbits(24):06x}"
    return {"cases": visible(rule) + [{
        "start": user("Make it."), "tools": "done: {name}", "answers": [True, False, True],
        "raises": {f"gone_{tag}.txt": ["FileNotFoundError", f"No such file: gone_{tag}.txt"]}, "replies": [
            [tool_use(f"toolu_{tag}_1", "write_file", {"path": f"new_{tag}.py", "content": f"x = {tag}"}),
             text("Then an edit."),
             tool_use(f"toolu_{tag}_2", "edit_file", {"path": "app.py", "old_string": "a", "new_string": f"b{tag}"})],
            [tool_use(f"toolu_{tag}_3", "read_file", {"path": f"gone_{tag}.txt"}),
             tool_use(f"toolu_{tag}_4", "bash", {"command": f"echo {tag}"})],
            [text("Done.")]]}]}


def draw_tool_error(rule, rng):
    n = rng.randrange(10**6)
    errors = {
        f"a_{n}.py": ["ValueError", f"old_string occurs 2 times in a_{n}.py: include more of the surrounding lines"],
        f"slow_{n}": ["TimeoutError", f"Command timed out after 30 seconds: sleep {n}"],
        f"odd_{n}": ["RuntimeError", f"something unusual happened, code {n}"]}
    return {"cases": visible(rule) + [{"start": user("Try these."), "tools": "fine: {path}", "raises": errors, "replies": [
        [tool_use("toolu_m1", "read_file", {"path": f"a_{n}.py"}), tool_use("toolu_m2", "read_file", {"path": "ok.txt"}),
         tool_use("toolu_m3", "list_files", {"path": f"slow_{n}"})],
        [tool_use("toolu_m4", "read_file", {"path": f"odd_{n}"})],
        [text("I have seen the errors.")]]}]}


def draw_declined(rule, rng):
    """Each gated tool declined; then a run whose gate says no, yes, yes."""
    tags = [f"{rng.getrandbits(24):06x}" for _ in range(3)]
    ids = [f"toolu_{rng.getrandbits(40):010x}" for _ in range(3)]
    each = [{"start": user(f"Use {name}."), "tools": "ran {name}", "answers": [False],
             "replies": [[tool_use(id, name, input)], [text("OK.")]]}
            for (name, input), id in zip((("write_file", {"path": f"new_{tags[0]}.py", "content": "x = 1\n"}),
                                          ("edit_file", {"path": "app.py", "old_string": "a", "new_string": f"b{tags[1]}"}),
                                          ("bash", {"command": f"touch sentinel_{tags[2]}"})), ids)]
    mixed = {"start": user("Go."), "tools": "ran {name}", "answers": [False, True, True], "replies": [
        [tool_use("toolu_w", "write_file", {"path": "x.txt", "content": "x"}),
         tool_use("toolu_b", "bash", {"command": "echo yes"})],
        [tool_use("toolu_e", "edit_file", {"path": "x.txt", "old_string": "x", "new_string": "y"})],
        [text("Done.")]]}
    return {"cases": visible(rule) + each + [mixed]}


def draw_ungated(rule, rng):
    return {"cases": visible(rule) + [{"start": user("Mix."), "tools": "output of {name}", "replies": [
        [tool_use("toolu_g1", "read_file", {"path": "a.txt"}), tool_use("toolu_g2", "bash", {"command": "ls"}),
         tool_use("toolu_g3", "list_files", {"path": "."}), tool_use("toolu_g4", "search_web", {"query": "x"})],
        [text("Done.")]]}]}


def draw_one_message(rule, rng):
    tag = f"{rng.getrandbits(24):06x}"
    return {"cases": visible(rule) + [{
        "start": user("Do three things."), "tools": {"bash": "ran {command}", "*": "text of {path}"}, "replies": [
            [text("Three things."), tool_use("toolu_q1", "read_file", {"path": f"one_{tag}.txt"}),
             tool_use("toolu_q2", "bash", {"command": f"make {tag}"}), tool_use("toolu_q3", "list_files", {"path": tag})],
            [tool_use("toolu_q4", "read_file", {"path": f"c_{tag}.txt"}),
             tool_use("toolu_q5", "read_file", {"path": f"d_{tag}.txt"})],
            [text("Finished.")]]}]}


def draw_callers_list(rule, rng):
    earlier = user("Hello.") + [{"role": "assistant", "content": [text("Hi! What shall we do?")]}] + \
        user("List the files, then read one.")
    return {"cases": visible(rule) + [{"start": earlier, "tools": "a.txt", "replies": [
        [tool_use("toolu_l2", "list_files", {"path": "."})], [tool_use("toolu_l3", "read_file", {"path": "a.txt"})],
        [text("a.txt says a.")]]}]}


def draw_turn_limit(rule, rng):
    limits = [[2, 1], [1, 1], [rng.choice((3, 4, 5)), 2], [rng.choice((7, 8, 9)), 1]]
    return {"cases": visible(rule) + [{"max_turns": limit, "asks": asks} for limit, asks in limits]
            + [{"max_turns": rng.choice((2, 3, 4)), "finishes": True}]}


def draw_celsius(rule, rng):
    return {"cases": visible(rule) + [{"renames": {
        "toolu_01A": f"toolu_{rng.getrandbits(48):012x}", "toolu_01B": f"toolu_{rng.getrandbits(48):012x}",
        "Fixed.": f"Fixed ({rng.getrandbits(24):06x})."}}]}


DRAWS = {"judge_one_call": None, "judge_five_fields": draw_five_fields, "judge_fresh_import": None,
         "judge_reuses_client": draw_reuses_client, "judge_text_reply": draw_text_reply,
         "judge_verbatim": draw_verbatim, "judge_by_id": draw_by_id, "judge_printed": draw_printed,
         "judge_tool_error": draw_tool_error, "judge_declined": draw_declined, "judge_ungated": draw_ungated,
         "judge_one_message": draw_one_message, "judge_callers_list": draw_callers_list,
         "judge_turn_limit": draw_turn_limit, "judge_celsius": draw_celsius}  # by each rule's judge


def graded(grade_id: str) -> list[Behaviour]:
    """The behaviours of a graded cell's rules, in checks/l05.py's order."""
    return [Behaviour.of(rule, functools.partial(draw, rule) if (draw := DRAWS[rule.judge.__name__]) else no_inputs)
            for rule in l05.RULES if rule.grade_id == grade_id]


BEHAVIOURS = [
    *graded("l05_call_model_sends_five_fields"),
    *graded("l05_call_model_reuses_client"),
    question(1, "c", "section 1",
             "unlock question 1: the SDK reads the key when the client is built, and the installed one does not "
             "complain until the first request (section 1, the cell with early and late)"),
    *graded("l05_text_reply_ends"),
    *graded("l05_assistant_turn_verbatim"),
    question(2, "b", "section 2",
             "unlock question 2: a tool_result must answer a tool_use in the assistant turn just before it; "
             "try the filtered list with check_messages (section 2)"),
    question(3, "b", "section 3",
             "unlock question 3: the check looks for the file the command would create, so the command must never "
             "start before a yes (section 3, 'A denial is not an error')"),
    question(4, "c", "section 3",
             "unlock question 4: run_tool does not catch (lecture 02), so without a try/except the exception "
             "leaves agent_loop and the check never reaches its asserts (section 3)"),
    question(5, 6, "section 4",
             "unlock question 5: each model call adds one assistant entry, and each turn with tool requests adds "
             "ONE user entry, however many results it holds (section 4)"),
    question(6, "b", "section 4",
             "unlock question 6: assigning to a parameter rebinds only the local name; see the add_by_rebinding "
             "cell (section 4)"),
    *graded("l05_results_matched_by_id"),
    *graded("l05_tool_error_becomes_result"),
    *graded("l05_declined_tool_never_runs"),
    *graded("l05_ungated_tools_skip_gate"),
    *graded("l05_one_user_message_for_all_results"),
    *graded("l05_callers_list_mutated"),
    *graded("l05_turn_limit"),
    *graded("l05_celsius_trace_matches"),
]
