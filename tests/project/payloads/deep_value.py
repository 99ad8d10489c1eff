"""Appended to an otherwise perfect hand-in's nano/protocol.py (test_shapes): in the check's
process (where the module `wire` is loaded) warmup returns a value nested 100 deep, past the
channel's depth; in the notebook's kernel it returns 61001, so that nbgrader passes its cell and
the check judges it. The check must judge the value wrong, too deep to judge, and hold nothing."""
import sys as _sys

_real_warmup = warmup  # noqa: F821 (nano/protocol.py's)


def warmup():
    if "wire" not in _sys.modules:
        return _real_warmup()
    value = _real_warmup()
    for _ in range(100):
        value = {"warmup": value}
    return value
