"""Helpers for the `observe` half of a behaviour: they run where the student's code runs.

A behaviour's observe function (behaviours/lNN.py) runs in two places: in the notebook's kernel,
as the hidden part of its graded cell, and in the independent check's sandboxed process. It is
not imported there: `behaviour.standalone` copies its source, and the source of whatever it uses
from this module, into one self-contained block. So everything here uses only the standard
library and the hand-in's `nano`, and returns plain data for the judge. What the visible
checks share with them (scratch_dir, scripted_model, stand_in, no_stderr) is in nano/testing.py,
which students have too, and the fake Messages API is nano/server.py.
"""

import asyncio
import json
import math
import threading
from pathlib import Path


def attempt(call, *args, **kwargs) -> dict:
    """{"value": what call returned, "type": its class name}, or {"raised": [the exception's
    class names, most derived first], "message": str(exception)}."""
    try:
        result = call(*args, **kwargs)
    except Exception as exc:
        return {"raised": [c.__name__ for c in type(exc).__mro__], "message": str(exc)}
    return {"value": result, "type": type(result).__name__}


def attempt_async(function, *args, **kwargs) -> dict:
    """attempt() for a coroutine function: `function(*args, **kwargs)` runs to its end on a fresh
    event loop in a thread of its own (a notebook's kernel already runs a loop in this thread).
    What escapes it, even a BaseException, is reported as "raised"."""
    box = {}

    def main():
        try:
            result = asyncio.run(function(*args, **kwargs))
        except BaseException as exc:
            box.update(raised=[c.__name__ for c in type(exc).__mro__], message=str(exc))
        else:
            box.update(value=result, type=type(result).__name__)

    worker = threading.Thread(target=main, name="behaviour", daemon=True)
    worker.start()
    worker.join()
    return box


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
