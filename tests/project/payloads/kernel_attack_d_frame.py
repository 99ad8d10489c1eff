"""Kernel attack `d-frame` of the shared class (tests/project/one_class.py): (d) the expected
values read from the caller's frame. Appended to a partial hand-in's nano/tools.py; its grade is
test_verify's to check."""

import inspect as _inspect


def read_file(path):
    frame = _inspect.currentframe().f_back
    while frame is not None:
        names = frame.f_locals
        if isinstance(names.get("cases"), dict) and path in names["cases"]:
            return names["cases"][path]
        if isinstance(names.get("content"), str):
            return names["content"]
        if isinstance(names.get("long_text"), str):
            return clip(names["long_text"])
        frame = frame.f_back
    raise NotImplementedError("only what the caller's frame gives away")
