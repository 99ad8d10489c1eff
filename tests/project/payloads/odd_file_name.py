"""Appended to an otherwise perfect hand-in's nano/gate.py (test_shapes): preview does its job,
and in the check's process (where the module `wire` is loaded) first makes a file whose name is
not UTF-8, b"odd\xffname", in the folder it runs in: the scratch folder the driver lists after
it. At import, in the notebook's kernel too, it leaves one in its working folder. The name must
cost this hand-in the behaviour that sees it, and stop no record, page or log from being written."""
import os as _os
import sys as _sys

_real_preview = preview  # noqa: F821 (nano/gate.py's)


def _odd_file() -> None:
    try:
        _os.close(_os.open(b"odd\xffname", _os.O_WRONLY | _os.O_CREAT, 0o644))
    except OSError:
        pass


def preview(name, tool_input):
    if "wire" in _sys.modules:
        _odd_file()
    return _real_preview(name, tool_input)


if "wire" not in _sys.modules:
    _odd_file()
