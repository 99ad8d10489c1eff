"""Helpers for the behaviours (behaviours/lNN.py): drawing inputs, and reading what was seen.

An outcome is what `driver.Subject.call` gives for one call of the hand-in's code:
{"value": ..., "type": "str"} when it returned, {"raised": [class names, most derived first],
"message": ...} when it raised. What a drive returns came from the hand-in's process, so it may
hold anything: the readers below take any value and never raise, for judges that never raise.

A judge never raises to its caller whatever `seen` holds, and says of a function not written yet
only that it is not: one idiom for both, read in one place, rule.failure. That place gives every
judge a dict for `seen` ({} for anything else), and a judge's stub handling is one line,
`written(function, outcomes, section)`, which raises NotWritten when a call met the stub; failure
catches it and returns its sentence (NOT_WRITTEN, the section added).
"""


def hexes(rng, n) -> str:
    """`n` hex digits drawn from `rng` (a draw's random names and tags)."""
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


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
    return f"it returned {brief(outcome.get('value'))}" if isinstance(outcome, dict) and "value" in outcome \
        else "it did not finish"


def brief(value, limit: int = 300) -> str:
    """repr(value), cut to `limit` characters, saying so."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} characters more)"


NOT_WRITTEN = "{function} is not written yet: it raises NotImplementedError"  # feedback.py finds it too


class NotWritten(Exception):
    """A call met a stub: the judge says only that. `written` raises it from inside a judge, and
    rule.failure, where every judge's result is read, turns it into its sentence."""

    def __init__(self, function: str, section: int):
        super().__init__(f"{NOT_WRITTEN.format(function=function)} (section {section})")


def written(function, outcomes, section) -> None:
    """Raises NotWritten if any of `outcomes` raised NotImplementedError (`function` is a stub still,
    whose sentence names `section`); nothing otherwise. A judge's stub handling is this one line."""
    if any("NotImplementedError" in raised_names(outcome) for outcome in outcomes):
        raise NotWritten(function, section)
