"""checks/rule.py's `failure`, the one place every judge is read (by ./ok's subject and by the
grader): a judge's first message; a stub a judge met (checks/kit.py's `written`) as its sentence,
from a generator or a plain function alike; `seen` that is not a dict judged as {}; any other
exception the judge raises goes on to the caller (the grader holds the cell)."""

import pytest

from checks.kit import written
from checks.rule import failure

STUB = {"raised": ["NotImplementedError"], "message": "Lecture 02: read_file is not implemented yet."}


def judge_reads(inputs, seen):
    outcomes = seen.get("outcomes", [])
    written("read_file", outcomes, 4)
    yield "never reached on a stub"
    yield "nor this"


def test_a_stub_is_its_sentence_whichever_way_the_judge_answers():
    sentence = "read_file is not written yet: it raises NotImplementedError (section 4)"
    assert failure(judge_reads, {}, {"outcomes": [{"value": "x"}, STUB]}) == sentence
    assert failure(lambda inputs, seen: written("read_file", [STUB], 4), {}, {}) == sentence
    assert failure(judge_reads, {}, {"outcomes": [{"value": "x"}]}) == "never reached on a stub"


@pytest.mark.parametrize("seen", [None, [STUB], "outcomes", 3])
def test_seen_that_is_not_a_dict_is_judged_as_empty(seen):
    assert failure(judge_reads, {}, seen) == "never reached on a stub"


def test_any_other_exception_reaches_the_caller():
    def judge_boom(inputs, seen):
        yield seen["missing"]

    with pytest.raises(KeyError):
        failure(judge_boom, {}, {})
