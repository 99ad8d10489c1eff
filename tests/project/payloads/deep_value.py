"""Appended to an otherwise perfect hand-in's nano/protocol.py (test_shapes): in the check's
process (where the module `wire` is loaded) warmup returns a value nested 100 deep, past the
channel's depth; in the notebook's kernel it returns 61001, so that nbgrader passes its cell and
the check judges it. The check must judge the value wrong, too deep to judge, and hold nothing."""
import sys as _sys


def warmup():
    value = 61 * 1000 + 1
    if "wire" not in _sys.modules:
        return value
    for _ in range(100):
        value = {"warmup": value}
    return value
