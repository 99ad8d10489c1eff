"""Are the judges total? Whatever a hand-in's code returned, a judge says what is wrong or that
nothing is, and never raises: a judge that raises holds the cell (the grader's error), so one
that a student's value can make raise would let them choose which cells are held.

Hypothesis feeds every judge of the course arbitrary plain-JSON observations, through the one
entry point the grader and ./ok read judges by (Behaviour.failure, which is checks/rule.py's
`failure`), mostly shaped like the real ones (a drive returns a dictionary; what is in it came
from the hand-in's process), sometimes not a dictionary at all:
dictionaries whose keys are mostly the string literals of the judge's own module
("outcomes", "raised", "value", "visible"...), whose leaves include what has broken judges
before (digit strings past Python's 4,300-digit int() limit, lone surrogates, NaN), with the
behaviour's real inputs, drawn from a random seed.
"""

import ast
import inspect
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.check import behaviour

LECTURES = ["01", "02", "03", "04", "05", "06"]
NASTY = ["9" * 5000, "exit code: " + "9" * 5000, "-" + "9" * 4400, "\ud800", "nan", "", "61001",
         "NotImplementedError", "TimeoutError", "exit code: 0", "toolu_01A", "y"]


def literals(module) -> list[str]:
    """The short string constants of a module: the keys its judges look for."""
    tree = ast.parse(inspect.getsource(module))
    found = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
             and isinstance(node.value, str) and 0 < len(node.value) <= 40}
    return sorted(found)


def observations(keys: list[str]):
    leaf = (st.none() | st.booleans() | st.integers() | st.integers(min_value=10**30)
            | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30)
            | st.sampled_from(NASTY) | st.sampled_from(keys))
    key = st.sampled_from(keys) | st.text(max_size=8)
    return st.recursive(leaf, lambda inner: st.lists(inner, max_size=6) | st.dictionaries(key, inner, max_size=8),
                        max_leaves=25)


def cases():
    for number in LECTURES:
        for b in behaviour.lecture(number) or []:
            yield pytest.param(b, id=f"{b.grade_id}:{b.judge.__name__}")


@pytest.mark.parametrize("b", list(cases()))
def test_the_judge_never_raises_whatever_it_is_shown(b):
    keys = literals(inspect.getmodule(b.judge))

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(seed=st.integers(0, 2**32),
           seen=st.dictionaries(st.sampled_from(keys), observations(keys), max_size=10) | observations(keys))
    def judged(seed, seen):
        inputs = b.inputs(random.Random(seed))
        said = b.failure(inputs, seen)
        assert said is None or isinstance(said, str)

    judged()
