"""The channel's trusted end (subject/wire.py), fed values of every shape a subject can send: any
bytes as a frame, JSON nested to any depth, ints of any length, floats JSON cannot hold, lone
surrogates, keys that are not strings. `decode` gives a message or raises ProtocolError, nothing
else; `clean` gives plain JSON that UTF-8 can write, never deeper than the wire's DEPTH, and
never raises; a value past the wire's bounds is said by `past_bounds` (the hand-in's outcome:
too deep, or too large, to judge), and an ordinary one is not.
"""

import json
import math
import time
import tracemalloc

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


# --- many small values within the byte bound (the decoded size: ~26 times the bytes) -----------

def many_lists(count: int) -> bytes:
    """A Result whose value is `count` empty lists: 3 bytes each on the wire, a list object each
    once parsed."""
    return frame('{"value":[' + ",".join(["[]"] * count) + '],"type":"list"}')


def test_a_frame_of_660000_empty_lists_is_refused_before_it_is_parsed():
    """The measured case: [[]] * 660_000 is 2 MB, under the frame's bound, but parsed and cleaned
    it was 50 million objects and 2.3 GB in the grading process."""
    data = many_lists(660_000)
    assert len(data) < wire.FRAME
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(wire.TooLarge) as refused:
            wire.decode(data, wire.FROM_SUBJECT)
        took = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert refused.value.why == wire.too_many(660_006) and refused.value.why.startswith(wire.TOO_LARGE)
    assert isinstance(refused.value, wire.ProtocolError)
    assert took < 0.5, f"counting took {took:.2f} s"
    assert peak < 3 * len(data), f"counting took {peak >> 20} MB"


def test_the_count_is_the_values_parsed_and_never_fewer():
    for value in ([], {}, [[]], [[], {}], {"a": [1, 2, {"b": None}]}, ["[],{,", "\\\"[", "\udcff"], [[[]]] * 5,
                  {"k": "v" * 10, "l": [True, False, 1.5, -2]}):
        data = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
        assert wire.values_in(data) == _count(value), value
        spaced = json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8", "surrogatepass")
        assert wire.values_in(spaced) >= _count(value), value


@SETTINGS
@given(value=VALUES)
def test_no_json_holds_more_values_than_counted(value):
    for separators in ((",", ":"), (", ", ": ")):
        data = json.dumps(value, separators=separators, ensure_ascii=False).encode("utf-8", "surrogatepass")
        assert wire.values_in(data) >= _count(value)


def _count(value) -> int:
    """Values in `value`, as values_in counts them: a dict's key and its value, one."""
    if isinstance(value, list):
        return 1 + sum(_count(v) for v in value)
    if isinstance(value, dict):
        return 1 + sum(_count(v) for v in value.values())
    return 1


def test_a_message_at_the_count_is_parsed_and_one_past_it_is_too_large():
    at = wire.VALUES - 6  # the message, its three fields, the outcome's two, then the list's items
    message = wire.decode(many_lists(at), wire.FROM_SUBJECT)
    assert len(message.outcome["value"]) == at and wire.past_bounds(message) is None
    with pytest.raises(wire.TooLarge):
        wire.decode(many_lists(at + 1), wire.FROM_SUBJECT)


def test_a_string_of_commas_and_brackets_is_one_value():
    message = wire.decode(frame(json.dumps({"value": "[],{" * 400_000, "type": "str"})), wire.FROM_SUBJECT)
    assert wire.past_bounds(message) is None and len(message.outcome["value"]) == 1_600_000


def test_a_reader_counts_values_against_its_budget_and_refuses_past_it():
    import os
    import threading

    read, written = os.pipe()
    small = wire.encode(wire.Result(1, {"value": [[]] * 10_000, "type": "list"}))  # 10,006 values
    writer = threading.Thread(target=lambda: [wire.write_frame(written, small) for _ in range(3)])
    writer.start()
    try:
        reader = wire.Reader(read, wire.FRAME, values=25_000)
        reader.where = "one behaviour's messages"
        for _ in range(2):
            assert len(reader.read().outcome["value"]) == 10_000
        with pytest.raises(wire.TooLarge) as refused:
            reader.read()
        assert refused.value.why == wire.too_many(30_018, 25_000, "one behaviour's messages")
        assert reader.counted == 30_018
    finally:
        writer.join()
        os.close(read)
        os.close(written)


@pytest.mark.parametrize("data", [b'"' + b'\\"' * 1_000_000, b'"' * 2_000_000, b'"\\' * 1_000_000, b"[" * 2_000_000,
                                  b'["' + b"a\\\\" * 600_000 + b'"]', bytes(range(256)) * 7800])
def test_counting_any_2_mb_takes_one_pass(data):
    start = time.perf_counter()
    wire.values_in(data)
    assert time.perf_counter() - start < 0.5
    with pytest.raises(wire.ProtocolError):
        wire.decode(data, wire.FROM_SUBJECT)
