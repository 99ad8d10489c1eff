"""Kernel attack `d-frame-source` of the shared class (tests/project/one_class.py): (d) the calling
test cell's source, hidden tests and all, read back through linecache and raised encoded
(base64, rot13, reversed in turn) for the feedback page to show. Appended to a partial hand-in's
nano/tools.py; its grade is test_verify's to check."""

import base64 as _base64
import codecs as _codecs
import linecache as _linecache
import sys as _sys

_calls = []


def _caller_source():
    frame = _sys._getframe(2)
    while frame is not None:
        lines = _linecache.getlines(frame.f_code.co_filename)
        if lines and "nano" not in frame.f_code.co_filename:
            return "".join(lines)
        frame = frame.f_back
    return ""


def read_file(path):
    tail = _caller_source()[-400:]
    _calls.append(path)
    encode = [lambda s: _base64.b64encode(s.encode()).decode(), lambda s: _codecs.encode(s, "rot13"),
              lambda s: s[::-1]][len(_calls) % 3]
    raise FileNotFoundError(encode(tail))
