"""Lecture 01's rule: warmup (nano/protocol.py), section 8. ./ok 00 runs it.

Defined once, here: ./ok 00 and the notebook's graded cell run it on your code, and the grader
runs the same drive and judge. warmup's source is read from the file as saved (by the grader, as
handed in, before any of it ran), and its value is what a call of it returned.
"""

import ast

from checks.rule import Rule

NEEDS = ("nano.protocol",)  # loaded first by ./ok: a file that does not load is named before any rule runs


def shown(value):
    """repr(value) for a message, whatever it is (a huge int or a deep list cannot be shown whole)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return "a value too large to show"
    return text if len(text) <= 2000 else text[:2000] + "..."


def drive_warmup(subject, inputs):
    """warmup's source as handed in (read by the driver, before any of it ran), and what a call
    of it returned in the subject."""
    source = subject.source("nano/protocol.py")
    outcome = subject.call("nano.protocol.warmup")
    return {"source": source, "value": outcome.get("value"), "type": outcome.get("type"),
            "raised": outcome.get("raised"), "message": outcome.get("message")}


def judge_warmup(inputs, seen):
    raised = seen.get("raised")
    if isinstance(raised, list) and raised:
        kind = raised[0] if isinstance(raised[0], str) else "an exception"
        message = seen.get("message") if isinstance(seen.get("message"), str) else ""
        yield f"warmup() must return the int 61001, but it raised {kind}: {message[:500]} (section 8)"
        return
    if seen.get("type") != "int" or type(seen.get("value")) is not int or seen.get("value") != 61001:
        yield f"warmup() must return the int 61001, not {shown(seen.get('value'))} (section 8)"
        return
    try:
        tree = ast.parse(seen.get("source"))
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        tree = ast.Module(body=[], type_ignores=[])
    functions = [node for node in tree.body
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "warmup"
                 or isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda)
                 and any(isinstance(target, ast.Name) and target.id == "warmup" for target in node.targets)]
    if not functions:
        yield "warmup() must be defined in nano/protocol.py (section 8)"
        return
    function = functions[-1]
    if isinstance(function, ast.Assign):  # warmup = lambda: ...: its body is the one expression
        body = [ast.Return(value=function.value.body)]
    else:
        body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    nodes = [node for statement in body for node in ast.walk(statement)]
    literals = [node.value for node in nodes if isinstance(node, ast.Constant)]
    if any((isinstance(v, (int, float, complex)) and not isinstance(v, bool) and v == 61001)
           or (isinstance(v, str) and v.strip() == "61001") or (isinstance(v, bytes) and v.strip() == b"61001")
           for v in literals):
        yield "warmup() must compute 61001 as arithmetic, e.g. 61 * 1000 + 1, not write the literal 61001 (section 8)"
    if any(isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) for node in nodes):
        yield "warmup() must return an arithmetic expression, not a constant (section 8)"
    if not any(isinstance(node, (ast.BinOp, ast.AugAssign)) for node in nodes):
        yield "warmup() must compute 61001 with arithmetic operators, e.g. 61 * 1000 + 1 (section 8)"


RULES = [Rule("l01_warmup_returns_61001", drive_warmup, judge_warmup)]
