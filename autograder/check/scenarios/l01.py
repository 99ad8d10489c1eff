"""Lecture 01's scenarios: the six answers on the trace, and warmup() (Problem 0).

The answers are exec'd from the student's answer cells (each question sees the answer cells up to
its own, as in the notebook) and judged as leniently as the hidden tests: any value whose str()
is the right whole number or letter. warmup's source is read from disk before anything of the
student's runs in the process (its scenario comes first), and judged here as the hidden test does.
"""

import ast

from autograder.check.independent import Scenario

QUESTIONS = ["l01_q1_answer", "l01_q2_answer", "l01_q3_answer", "l01_q4_answer", "l01_q5_answer",
             "l01_q6_answer"]

OBSERVE_ANSWERS = '''
missing = {"__missing__": True}
observe(**{name: answers.get(name, missing) for name in NAMES})
'''


def _answers(*names: str) -> str:
    return f"NAMES = {list(names)!r}\n" + OBSERVE_ANSWERS


def _number(value):
    text = value if isinstance(value, str) else (str(value) if type(value) is int else None)
    return int(text.strip()) if text is not None and text.strip().isdigit() else None


def _letter(value):
    text = value if isinstance(value, str) else None
    return text.strip().lower() if text is not None and text.strip().lower() in {"a", "b", "c", "d"} else None


def _same_number(name):
    return lambda got, ref: _number(got.get(name)) is not None and _number(got[name]) == _number(ref[name])


def _same_letter(name):
    return lambda got, ref: _letter(got.get(name)) is not None and _letter(got[name]) == _letter(ref[name])


def _q3(got, ref):
    field = got.get("answer_q3_field")
    return (_number(got.get("answer_q3_entry")) is not None
            and _number(got["answer_q3_entry"]) == _number(ref["answer_q3_entry"])
            and isinstance(field, str)
            and field.strip().strip("\"'").lower() == ref["answer_q3_field"].strip().strip("\"'").lower())


def _warmup(got, ref):
    """Returns the int 61001, computed with arithmetic (no literal 61001, no constant returned)."""
    if got.get("raised") or type(got.get("value")) is not int or got["value"] != ref["value"]:
        return False
    try:
        tree = ast.parse(got["source"])
    except (SyntaxError, ValueError, TypeError):
        return False
    functions = [node for node in tree.body
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "warmup"]
    if not functions:
        return False
    function = functions[-1]
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    nodes = [node for statement in body for node in ast.walk(statement)]
    target = ref["value"]
    for node in nodes:
        if isinstance(node, ast.Constant):
            v = node.value
            if (isinstance(v, (int, float, complex)) and not isinstance(v, bool) and v == target) or \
                    (isinstance(v, (str, bytes)) and v.strip() in (str(target), str(target).encode())):
                return False
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant):
            return False
    return any(isinstance(node, ast.BinOp) for node in nodes)


SCENARIOS = [
    # First: nothing of the student's has run in this process when the source is read.
    Scenario("l01_warmup_returns_61001", '''
from pathlib import Path
observe(source=Path("nano/protocol.py").read_text(encoding="utf-8"))
import nano.protocol
result = nano.protocol.warmup()
observe(value=result, type=type(result).__name__)
''', judge=_warmup),
    Scenario("l01_q1_entries_before_second_call", _answers("answer_q1"),
             judge=_same_number("answer_q1"), answers=tuple(QUESTIONS[:1])),
    Scenario("l01_q2_rule_for_roles", _answers("answer_q2"),
             judge=_same_letter("answer_q2"), answers=tuple(QUESTIONS[:2])),
    Scenario("l01_q3_what_answers_toolu_01A", _answers("answer_q3_entry", "answer_q3_field"),
             judge=_q3, answers=tuple(QUESTIONS[:3])),
    Scenario("l01_q4_failed_edit", _answers("answer_q4"),
             judge=_same_letter("answer_q4"), answers=tuple(QUESTIONS[:4])),
    Scenario("l01_q5_text_and_tool_use", _answers("answer_q5"),
             judge=_same_letter("answer_q5"), answers=tuple(QUESTIONS[:5])),
    Scenario("l01_q6_lost_tool_result", _answers("answer_q6"),
             judge=_same_letter("answer_q6"), answers=tuple(QUESTIONS[:6])),
]
