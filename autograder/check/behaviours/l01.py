"""Lecture 01's graded behaviours: the six answers about the Celsius trace, and warmup().

An answer is judged leniently: any value whose str() is the right whole number or letter. The
answers themselves live here, on the grader's side: the release strips the hidden part of a
graded cell, so students never see them.
"""

import ast
from pathlib import Path

from autograder.check.behaviour import Behaviour


def observe_answers(inputs, answers):
    """The answer variables the question names, as the student's answer cells left them."""
    return {name: repr(answers[name]) if name in answers and not isinstance(answers[name], (int, str))
            else answers.get(name, {"missing": True})
            for name in inputs["names"]}


def _text(value):
    return value.strip() if isinstance(value, str) else str(value) if type(value) is int else None


def judge_number(inputs, seen):
    got = _text(seen.get(inputs["name"]))
    if got is None or not got.isdigit() or int(got) != inputs["truth"]:
        yield inputs["hint"]


def judge_letter(inputs, seen):
    got = _text(seen.get(inputs["name"]))
    if got is None or got.lower() != inputs["truth"]:
        yield inputs["hint"]


def judge_q3(inputs, seen):
    entry, key = _text(seen.get("answer_q3_entry")), _text(seen.get("answer_q3_field"))
    if entry is None or not entry.isdigit() or int(entry) != 2:
        yield "question 3: which entry answers toolu_01A? (sections 3 and 4)"
    if key is None or key.strip("\"'").lower() != "tool_use_id":
        yield "question 3: which key of a tool_result names the request it answers? (section 3)"


def question(grade_id, name, truth, hint, judge):
    """A question's behaviour: its answer cells are the question's own and those before it."""
    return Behaviour(grade_id, observe_answers, judge,
                     given={"names": [name], "name": name, "truth": truth, "hint": hint},
                     answers=tuple(f"l01_q{i}_answer" for i in range(1, int(grade_id[5]) + 1)))


def observe_warmup(inputs, answers):
    """warmup's source as saved (read before it runs), and what it returns."""
    import importlib.util

    source = Path(importlib.util.find_spec("nano.protocol").origin).read_text(encoding="utf-8")
    import nano.protocol

    result = nano.protocol.warmup()
    return {"source": source, "value": result if type(result) is int else repr(result),
            "type": type(result).__name__}


def judge_warmup(inputs, seen):
    if seen.get("type") != "int" or seen.get("value") != 61001:
        yield f"warmup() must return the int 61001, not {seen.get('value')!r} (section 9)"
        return
    try:
        tree = ast.parse(seen.get("source"))
    except (SyntaxError, ValueError, TypeError):
        tree = ast.Module(body=[], type_ignores=[])
    functions = [node for node in tree.body
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "warmup"]
    if not functions:
        yield "warmup() must be defined in nano/protocol.py (section 9)"
        return
    function = functions[-1]
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    nodes = [node for statement in body for node in ast.walk(statement)]
    literals = [node.value for node in nodes if isinstance(node, ast.Constant)]
    if any((isinstance(v, (int, float, complex)) and not isinstance(v, bool) and v == 61001)
           or (isinstance(v, (str, bytes)) and v.strip() in ("61001", b"61001")) for v in literals):
        yield "warmup() must compute 61001 as arithmetic, e.g. 61 * 1000 + 1, not write the literal 61001 (section 9)"
    if any(isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) for node in nodes):
        yield "warmup() must return an arithmetic expression, not a constant (section 9)"
    if not any(isinstance(node, ast.BinOp) for node in nodes):
        yield "warmup() must compute 61001 with arithmetic operators, e.g. 61 * 1000 + 1 (section 9)"


BEHAVIOURS = [
    # First in the check's process: warmup's source is read before anything of the student's runs.
    Behaviour("l01_warmup_returns_61001", observe_warmup, judge_warmup),
    question("l01_q1_entries_before_second_call", "answer_q1", 3,
             "question 1: count the entries pushed before the second model call (section 4)", judge_number),
    question("l01_q2_rule_for_roles", "answer_q2", "c",
             "question 2: reread why a tool result is a user message (section 2)", judge_letter),
    Behaviour("l01_q3_what_answers_toolu_01A", observe_answers, judge_q3,
              given={"names": ["answer_q3_entry", "answer_q3_field"]},
              answers=("l01_q1_answer", "l01_q2_answer", "l01_q3_answer")),
    question("l01_q4_failed_edit", "answer_q4", "b",
             "question 4: reread what is_error is for, and when the loop ends (sections 1 and 3)", judge_letter),
    question("l01_q5_text_and_tool_use", "answer_q5", "a",
             "question 5: reread what content may hold (section 3)", judge_letter),
    question("l01_q6_lost_tool_result", "answer_q6", "d",
             "question 6: reread the pairing rules for tool_use and tool_result (section 3)", judge_letter),
]
