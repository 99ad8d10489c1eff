"""Reading what lecture 05's drives saw (checks/l05_model.py, checks/l05_loop.py).

What a drive returns came from the hand-in's process, so it may hold anything: these readers
take any value and never raise, so that the judges built on them never raise either.
"""

import json

from checks.kit import written


def at(value, *path):
    """value[path[0]][path[1]]..., or None where a step is missing."""
    for key in path:
        if isinstance(value, dict) and isinstance(key, str):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value):
            value = value[key]
        else:
            return None
    return value


def listed(value):
    return value if isinstance(value, list) else []


def part(value, *path):
    """at(value, *path) if it is a dict, else an empty one."""
    found = at(value, *path)
    return found if isinstance(found, dict) else {}


def first(value):
    """The first item of a list, or None."""
    return value[0] if isinstance(value, list) and value else None


def equal(a, b):
    try:
        return bool(a == b)
    except Exception:
        return False


def text_of(content):
    if isinstance(content, str):
        return content
    try:
        return json.dumps(content) if content is not None else ""
    except (TypeError, ValueError):
        return ""


def raised(function, outcome, section):
    """The sentence for a call of `function` that raised, if it did (a stub's: kit.written)."""
    if not isinstance(outcome, dict) or not outcome.get("raised"):
        return
    written(function, [outcome], section)
    yield f"{function} raised {first(outcome.get('raised'))}: {outcome.get('message')} (section {section})"
