"""The independent check's scenarios, one module per lecture (l01.py .. l06.py).

Each module's SCENARIOS lists `autograder.check.independent.Scenario`s, one or more per graded test cell of
its lecture: what to run in the student's process, and how the grader judges what it observed.
"""

# Code that scenarios may start with (`HELPERS + "..."`): it runs in the student's process, so it
# only collects raw values; what they mean is decided by the judges, in the grader.
HELPERS = '''
import contextlib, os, random, sys
from pathlib import Path

rng = random.Random(SEED)


def word(n=6):
    """A lowercase word drawn from SEED: the same for the reference and the student."""
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))


def attempt(call, *args, **kwargs):
    """{"value": what call returned} or {"raised": [its exception's class names, MRO], "message": str}."""
    try:
        result = call(*args, **kwargs)
        return {"value": result, "type": type(result).__name__}
    except Exception as exc:
        return {"raised": [c.__name__ for c in type(exc).__mro__], "message": str(exc)}


def read(path):
    """A file's text after the call, or None if it is not there."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


@contextlib.contextmanager
def stand_in(function, double):
    """For the length of the block, `function` runs the body of `double`, wherever it is referenced."""
    saved = function.__code__, function.__defaults__
    function.__code__, function.__defaults__ = double.__code__, double.__defaults__
    try:
        yield
    finally:
        function.__code__, function.__defaults__ = saved
'''


def raised(outcome, kind: str) -> bool:
    """Whether an `attempt` outcome raised `kind` (or a subclass of it), judged in the grader."""
    return isinstance(outcome, dict) and isinstance(outcome.get("raised"), list) \
        and kind in outcome["raised"] and isinstance(outcome.get("message"), str)


def message(outcome) -> str:
    return outcome.get("message", "") if isinstance(outcome, dict) and isinstance(outcome.get("message"), str) else ""


def value(outcome):
    return outcome.get("value") if isinstance(outcome, dict) and "raised" not in outcome else None


def text(outcome) -> str | None:
    """The str an `attempt` returned (None if it raised or returned anything else)."""
    got = value(outcome)
    return got if isinstance(got, str) and outcome.get("type") == "str" else None
