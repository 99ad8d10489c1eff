"""Lecture 01's graded behaviours: the six answers about the Celsius trace, and warmup().

An answer is judged leniently: any value whose str() is the right whole number or letter. The
answers themselves live here, on the grader's side: the release strips the hidden part of a
graded cell, so students never see them. The answer cells run in the subject, which reports
the values they left; warmup's source is read by the driver, from the file as handed in, and
its value is what a call of it in the subject returned.
"""

import ast
import unicodedata

from autograder.check.behaviour import Behaviour


def drive_answers(subject, inputs):
    """The answer variables the question names, as the student's answer cells left them."""
    return subject.answers(inputs["names"])


def _text(value):
    if isinstance(value, str):
        return value.strip()
    return str(value) if type(value) is int and -10**300 < value < 10**300 else None


def _shown(value):
    """repr(value) for a message, whatever it is (a huge int or a deep list cannot be shown whole)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return "a value too large to show"
    return text if len(text) <= 2000 else text[:2000] + "..."


def _whole(text):
    """The whole number `text` writes (its decimal digits, without leading zeros), as a str;
    None if it is not a whole number. Compared as text, so no length of digits can raise."""
    if not isinstance(text, str) or not text:
        return None
    digits = [unicodedata.decimal(c, None) for c in text]
    if None in digits:
        return None
    return "".join(map(str, digits)).lstrip("0") or "0"


def _answer(seen, name):
    return _text(seen.get(name)) if isinstance(seen, dict) else None


def judge_number(inputs, seen):
    if _whole(_answer(seen, inputs["name"])) != str(inputs["truth"]):
        yield inputs["hint"]


def judge_letter(inputs, seen):
    got = _answer(seen, inputs["name"])
    if got is None or got.lower() != inputs["truth"]:
        yield inputs["hint"]


def judge_q3(inputs, seen):
    entry, key = _answer(seen, "answer_q3_entry"), _answer(seen, "answer_q3_field")
    if _whole(entry) != "2":
        yield "question 3: which entry answers toolu_01A? (sections 3 and 4)"
    if key is None or key.strip("\"'").lower() != "tool_use_id":
        yield "question 3: which key of a tool_result names the request it answers? (section 3)"


def question(grade_id, name, truth, hint, judge):
    """A question's behaviour: its answer cells are the question's own and those before it."""
    return Behaviour(grade_id, drive_answers, judge,
                     given={"names": [name], "name": name, "truth": truth, "hint": hint},
                     answers=tuple(f"l01_q{i}_answer" for i in range(1, int(grade_id[5]) + 1)))


def drive_warmup(subject, inputs):
    """warmup's source as handed in (read by the driver, before any of it ran), and what a call
    of it returned in the subject."""
    source = subject.source("nano/protocol.py")
    outcome = subject.call("nano.protocol.warmup")
    return {"source": source, "value": outcome.get("value"), "type": outcome.get("type"),
            "raised": outcome.get("raised"), "message": outcome.get("message")}


def judge_warmup(inputs, seen):
    seen = seen if isinstance(seen, dict) else {}
    raised = seen.get("raised")
    if isinstance(raised, list) and raised:
        kind = raised[0] if isinstance(raised[0], str) else "an exception"
        message = seen.get("message") if isinstance(seen.get("message"), str) else ""
        yield f"warmup() must return the int 61001, but it raised {kind}: {message[:500]} (section 8)"
        return
    if seen.get("type") != "int" or type(seen.get("value")) is not int or seen.get("value") != 61001:
        yield f"warmup() must return the int 61001, not {_shown(seen.get('value'))} (section 8)"
        return
    try:
        tree = ast.parse(seen.get("source"))
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        tree = ast.Module(body=[], type_ignores=[])
    functions = [node for node in tree.body
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "warmup"]
    if not functions:
        yield "warmup() must be defined in nano/protocol.py (section 8)"
        return
    function = functions[-1]
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    nodes = [node for statement in body for node in ast.walk(statement)]
    literals = [node.value for node in nodes if isinstance(node, ast.Constant)]
    if any((isinstance(v, (int, float, complex)) and not isinstance(v, bool) and v == 61001)
           or (isinstance(v, str) and v.strip() == "61001") or (isinstance(v, bytes) and v.strip() == b"61001")
           for v in literals):
        yield "warmup() must compute 61001 as arithmetic, e.g. 61 * 1000 + 1, not write the literal 61001 (section 8)"
    if any(isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) for node in nodes):
        yield "warmup() must return an arithmetic expression, not a constant (section 8)"
    if not any(isinstance(node, ast.BinOp) for node in nodes):
        yield "warmup() must compute 61001 with arithmetic operators, e.g. 61 * 1000 + 1 (section 8)"


BEHAVIOURS = [
    Behaviour("l01_warmup_returns_61001", drive_warmup, judge_warmup),
    question("l01_q1_entries_before_second_call", "answer_q1", 3,
             "question 1: count the entries pushed before the second model call (section 4)", judge_number),
    question("l01_q2_rule_for_roles", "answer_q2", "c",
             "question 2: reread why a tool result is a user message (section 2)", judge_letter),
    Behaviour("l01_q3_what_answers_toolu_01A", drive_answers, judge_q3,
              given={"names": ["answer_q3_entry", "answer_q3_field"]},
              answers=("l01_q1_answer", "l01_q2_answer", "l01_q3_answer")),
    question("l01_q4_failed_edit", "answer_q4", "b",
             "question 4: reread what is_error is for, and when the loop ends (sections 1 and 3)", judge_letter),
    question("l01_q5_text_and_tool_use", "answer_q5", "a",
             "question 5: reread what content may hold (section 3)", judge_letter),
    question("l01_q6_lost_tool_result", "answer_q6", "d",
             "question 6: reread the pairing rules for tool_use and tool_result (section 3)", judge_letter),
]
