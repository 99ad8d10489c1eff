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


def hexes(rng, n) -> str:
    """`n` hex digits drawn from `rng` (a draw's random names and tags)."""
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


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


# The reading side of `attempt`, for judges: `seen` may hold anything, so nothing here raises.

def dicts_of(value, count) -> list:
    """`value` as a list of exactly `count` dicts ({} for what is missing or not a dict)."""
    found = value if isinstance(value, list) else []
    return [item if isinstance(item, dict) else {} for item in found[:count]] + [{}] * max(0, count - len(found))


def outcomes_of(seen, key, count) -> list:
    """seen[key] as exactly `count` outcome dicts."""
    return dicts_of(seen.get(key) if isinstance(seen, dict) else None, count)


def raised_names(outcome) -> list:
    """The class names of what an outcome raised, most derived first ([] if it returned)."""
    names = outcome.get("raised") if isinstance(outcome, dict) else None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def message_of(outcome) -> str:
    message = outcome.get("message") if isinstance(outcome, dict) else None
    return message if isinstance(message, str) else ""


def returned_text(outcome):
    """What the call returned, if it returned a str; None if it raised or returned anything else."""
    if not isinstance(outcome, dict) or "raised" in outcome or not isinstance(outcome.get("value"), str):
        return None
    return outcome["value"]


def shown(outcome) -> str:
    """What a call gave, for a message: its value, or what it raised."""
    names = raised_names(outcome)
    if names:
        return f"it raised {names[0]}: {message_of(outcome)!r}"
    return f"it returned {outcome.get('value')!r}" if isinstance(outcome, dict) and "value" in outcome \
        else "it did not finish"


def not_written(function, outcomes, section):
    """The stub's message if any call raised NotImplementedError (the judge then says only that), else None."""
    if any("NotImplementedError" in raised_names(outcome) for outcome in outcomes):
        return f"{function} is not written yet: it raises NotImplementedError (section {section})"
    return None
