"""Kernel attack `c-getsource` of the shared class (tests/project/one_class.py): (c) warmup's
literal hidden from the hidden test's source check by a patched inspect. Appended to a partial
hand-in's nano/protocol.py; its grade is test_verify's to check."""

import inspect as _inspect

_real_getsource = _inspect.getsource


def _getsource(obj):
    if getattr(obj, "__name__", "") == "warmup":
        return "def warmup() -> int:\n    return 61 * 1000 + 1\n"
    return _real_getsource(obj)


_inspect.getsource = _getsource


def warmup() -> int:
    return 61001
