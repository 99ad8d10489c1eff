"""The channel's trusted end (subject/wire.py), fed values of every shape a subject can send: any
bytes as a frame, JSON nested to any depth, ints of any length, floats JSON cannot hold, lone
surrogates, keys that are not strings. `decode` gives a message or raises ProtocolError, nothing
else; `clean` gives plain JSON that UTF-8 can write, never deeper than the wire's DEPTH, and
never raises; a value past the wire's bounds is said by `past_bounds` (the hand-in's outcome:
too deep, or too large, to judge), and an ordinary one is not.
"""

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checks.subject import wire

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)

SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(min_value=10**3990, max_value=10**4100)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20)
           | st.sampled_from(["\udcff", "odd\udcffname", "\ud800", "$ref", "__unplain__", "nested too deep"]))
KEYS = st.text(max_size=8) | st.sampled_from(["\udcff", wire.UNPLAIN, "$ref"])
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(KEYS, inner, max_size=5),
                      max_leaves=30)
PYTHON_KEYS = KEYS | st.integers() | st.floats() | st.none() | st.tuples(st.integers()) | st.frozensets(st.integers())
ODD = st.recursive(SCALARS | st.binary(max_size=4) | st.tuples(st.integers()) | st.sets(st.integers(), max_size=3),
                   lambda inner: st.lists(inner, max_size=4) | st.dictionaries(PYTHON_KEYS, inner, max_size=4),
                   max_leaves=20)


def nested(depth: int, kind: str):
    value = "bottom"
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


def depth_of(value) -> int:
    deepest, level = 0, [(value, 0)]
    while level:
        item, d = level.pop()
        deepest = max(deepest, d)
        if isinstance(item, list):
            level += [(v, d + 1) for v in item]
        elif isinstance(item, dict):
            level += [(v, d + 1) for v in item.values()]
    return deepest


def plain(value) -> None:
    """`value` is what clean promises: JSON that UTF-8 can write, keys strings, not too deep."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    text.encode("utf-8")
    assert depth_of(value) <= wire.DEPTH + 1
    assert json.loads(text) == value


def frame(outcome_json: str) -> bytes:
    """A Result's bytes, as a subject would frame one, with `outcome_json` as its outcome."""
    return f'{{"$type":"Result","id":7,"outcome":{outcome_json}}}'.encode("utf-8", "surrogatepass")


@SETTINGS
@given(value=VALUES | ODD)
def test_clean_gives_plain_json_that_can_be_written_and_never_raises(value):
    cleaned = wire.clean(value)
    plain(cleaned)
    assert wire.clean(cleaned) == cleaned


@SETTINGS
@given(value=VALUES)
def test_a_value_crosses_the_wire_as_clean_makes_it(value):
    data = wire.encode(wire.Result(3, {"value": value, "type": "x"}))
    message = wire.decode(data[wire.HEADER.size:], wire.FROM_SUBJECT)
    assert isinstance(message, wire.Result) and message.id == 3
    plain(message.outcome)
    ordinary = all(not isinstance(v, float) or math.isfinite(v) for v in _leaves(value)) and \
        all(not isinstance(v, int) or abs(v) < 10 ** wire.DIGITS for v in _leaves(value)) and \
        "\\ud" not in json.dumps(value) and depth_of(value) < wire.DEPTH - 1
    if ordinary and not _says_past_bounds(value):
        assert message.outcome["value"] == value and wire.past_bounds(message) is None
    if _says_past_bounds(value):  # a subject may say so itself: its own outcome, counted as wrong
        assert wire.past_bounds(message) is not None


def _says_past_bounds(value) -> bool:
    """Whether `value` holds a marker of the wire's bounds, as the subject's side writes one."""
    level = [value]
    while level:
        item = level.pop()
        if isinstance(item, dict):
            why = item.get(wire.UNPLAIN) if len(item) == 1 else None
            if isinstance(why, str) and (why == wire.TOO_DEEP or why.startswith(wire.TOO_LARGE)):
                return True
            level += item.values()
        elif isinstance(item, list):
            level += item
    return False


def _leaves(value):
    if isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    else:
        yield value


@SETTINGS
@given(data=st.binary(max_size=200) | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass"))
       | st.builds(lambda v: frame(json.dumps(v)), VALUES))
def test_decode_gives_a_message_or_a_protocol_error_whatever_the_bytes(data):
    try:
        message = wire.decode(data, wire.FROM_SUBJECT)
    except wire.ProtocolError:
        return
    assert isinstance(message, wire.FROM_SUBJECT)
    plain(message.outcome if isinstance(message, wire.Result) else [message.args, message.kwargs])


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(depth=st.integers(0, 3000), kind=st.sampled_from(["list", "dict"]),
       leaf=st.sampled_from(['"x"', "1" * 5000, "1e999", "-Infinity", "NaN", '"\\udcff"', "null", "[]", "{}"]))
def test_a_value_of_any_depth_is_a_message_or_a_protocol_error_and_past_the_depth_is_said(depth, kind, leaf):
    opening, closing = ("[", "]") if kind == "list" else ('{"k":', "}")
    try:
        message = wire.decode(frame('{"value":' + opening * depth + leaf + closing * depth + "}"), wire.FROM_SUBJECT)
    except wire.ProtocolError:
        assert depth > 200, "only a value nested hundreds deep may be refused whole"
        return
    plain(message.outcome)
    said = wire.past_bounds(message)
    if depth + 1 >= wire.DEPTH:
        assert said == wire.TOO_DEEP
    elif leaf == "1" * 5000:
        assert said == f"{wire.TOO_LARGE}an int of 5000 digits"
    else:
        assert said is None


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_a_value_nested_100_deep_is_too_deep_and_not_a_type_error(kind):
    """The measured case (issue 31, finding 5): a key past the depth once became a dict."""
    message = wire.decode(frame(json.dumps({"value": nested(100, kind), "type": kind})), wire.FROM_SUBJECT)
    assert wire.past_bounds(message) == wire.TOO_DEEP
    plain(message.outcome)
    assert wire.past_bounds(wire.decode(frame(json.dumps({"value": nested(50, kind)})), wire.FROM_SUBJECT)) is None


def test_ordinary_values_are_not_past_the_bounds():
    for value in (None, 0, -1, 10 ** 3999, 1.5, "text", "\udcff", [], {}, {"__unplain__": "builtins.object"},
                  {"__unplain__": "nested too deep", "and": "more"}, [[{"a": [1, 2]}]] * 3):
        assert wire.past_bounds(wire.clean(value)) is None, value
    assert wire.past_bounds(wire.clean(10 ** 4000)) == f"{wire.TOO_LARGE}an int of more than {wire.DIGITS} digits"
    assert wire.clean([math.inf, -math.inf, math.nan]) == ["inf", "-inf", "nan"]
    assert wire.clean({1: "a", None: "b", (1,): "c"}) == {"(int)": "a", "(NoneType)": "b", "(tuple)": "c"}
