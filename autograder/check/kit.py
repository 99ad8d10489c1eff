"""Helpers for the `observe` half of a behaviour: they run where the student's code runs.

A behaviour's observe function (behaviours/lNN.py) runs in two places: in the notebook's kernel,
as the hidden part of its graded cell, and in the independent check's sandboxed process. It is
not imported there: `behaviour.standalone` copies its source, and the source of whatever it uses
from this module, into one self-contained block. So everything here uses only the standard
library and the hand-in's `nano`, and returns plain data for the judge. What the visible
checks share with them (scratch_dir, scripted_model, stand_in, no_stderr) is in nano/testing.py,
which students have too, and the fake Messages API is nano/server.py.
"""

import json
import math
from pathlib import Path


def attempt(call, *args, **kwargs) -> dict:
    """{"value": what call returned, "type": its class name}, or {"raised": [the exception's
    class names, most derived first], "message": str(exception)}."""
    try:
        result = call(*args, **kwargs)
    except Exception as exc:
        return {"raised": [c.__name__ for c in type(exc).__mro__], "message": str(exc)}
    return {"value": result, "type": type(result).__name__}


def read(path) -> str | None:
    """A file's text, or None if it is not there (or not text)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def plain(value, depth=0):
    """`value` as exact JSON types, as the judge will see it wherever observe ran; anything else
    becomes a marker no judge accepts (a str subclass is read as the str it holds)."""
    kind = type(value)
    if depth > 60:
        return {"__unplain__": "nested too deep"}
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return value if math.isfinite(value) else repr(value)
    if kind in (list, tuple):
        return [plain(v, depth + 1) for v in value]
    if kind is dict:
        out = {}
        for k, v in value.items():
            k = plain(k, depth + 1)
            out[k if type(k) is str else json.dumps(k)] = plain(v, depth + 1)
        return out
    if isinstance(value, str):
        return str.__str__(value)
    return {"__unplain__": f"{kind.__module__}.{kind.__qualname__}"}
