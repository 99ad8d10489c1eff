"""Lecture 01's visible check: warmup (nano/protocol.py), section 8. ./ok 00 runs it."""

import nano.protocol  # noqa: F401 (loaded first: a file that does not load is named before any check runs)

import ast
import inspect


def l01_warmup_returns_61001():
    import nano.protocol

    result = nano.protocol.warmup()
    assert type(result) is int and result == 61001, (
        f"warmup() returned {result!r}; it must return the int 61001 (section 8)")
    problem = hard_coded(inspect.getsource(nano.protocol.warmup))
    assert problem is None, problem


def hard_coded(source: str) -> str | None:
    """What is wrong with warmup's source if it writes the answer instead of computing it."""
    function = ast.parse(inspect.cleandoc("\n" + source)).body[0]
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    nodes = [node for statement in body for node in ast.walk(statement)]
    if any(isinstance(node, ast.Constant) and str(node.value).strip() == "61001" for node in nodes):
        return "warmup() must compute 61001 as arithmetic, e.g. 61 * 1000 + 1, not write the literal 61001 (section 8)"
    if not any(isinstance(node, ast.BinOp) for node in nodes):
        return "warmup() must compute 61001 with arithmetic operators, e.g. 61 * 1000 + 1 (section 8)"
    return None
