"""Correct alternatives to the reference's nano/protocol.py (lecture 01), written differently:
test_verify.py puts each function's body in place of the solution and expects the independent
check to confirm every cell. Names not defined here are nano/protocol.py's own."""
# ruff: noqa: F821


def warmup():
    value = 61
    value = value * 1000
    return value + 1
