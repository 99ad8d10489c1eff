"""A grader's mistake is the grader's: found before any grade is recorded, never blamed on a student.

A behaviour the reference solution fails stops `nano-course grade` with one sentence naming it,
and nothing is written. A judge that raises on what a student's code returned leaves that cell
with nbgrader's result and a problem saying it is the grader's failure, not theirs.
"""

import shutil

import pytest

from autograder.authoring import release
from autograder.check import behaviour, independent
from autograder.grading import grade, records
from tests.project import observers

pytestmark = pytest.mark.slow


def judge_never_satisfied(inputs, seen):
    yield "the reference can never pass this (section 1)"


def judge_raises(inputs, seen):
    raise KeyError("a judge written for another shape of observation")


def test_a_behaviour_the_reference_fails_stops_grading_before_any_grade(mini_course, tmp_path, monkeypatch):
    course, lectures = mini_course
    graded = tmp_path / "course"
    shutil.copytree(course, graded)
    subs = tmp_path / "subs"
    release.solve_workspace(release.make_workspace(graded / "release" / "nano", subs / "perfect"),
                            lecture_dir=lectures)
    broken = [behaviour.Behaviour("mini_warmup", observers.observe_after, judge_never_satisfied)]
    monkeypatch.setattr(behaviour, "lecture", lambda number: broken if number == "01" else None)

    said = []
    with pytest.raises(RuntimeError) as stopped:
        grade.grade_all(subs, graded, echo=said.append, workers=1, timeout=6)
    sentence = str(stopped.value)
    assert sentence.startswith("grading stopped before any grade was recorded: the reference solution "
                               "fails the graded behaviour mini_warmup of lecture 01"), sentence
    assert "autograder/check/behaviours/l01.py" in sentence and "\n" not in sentence
    assert not (graded / "grades.csv").exists() and not (graded / "problems.csv").exists()
    assert not any("perfect ..." in line for line in said), "a student was reported graded"


def test_a_judge_that_raises_on_a_students_code_keeps_nbgraders_result_and_says_whose_fault(
        mini_course, tmp_path, monkeypatch):
    course, _ = mini_course
    kept = [behaviour.Behaviour("mini_warmup", observers.observe_after, judge_raises)]
    monkeypatch.setattr(behaviour, "lecture", lambda number: kept if number == "01" else None)
    errors: dict[str, str] = {}
    confirmed = independent.confirm(course, {}, {}, {"seed": 3, "observations": {}}, grader_errors=errors)
    assert "mini_warmup" not in confirmed, "a cell the grader failed on must keep nbgrader's result"
    assert list(errors) == ["mini_warmup"] and "KeyError" in errors["mini_warmup"]

    [problem] = independent.grader_problems(errors)
    assert problem.kind == records.GRADER and problem.grade_ids == ("mini_warmup",)
    assert "not your doing" in problem.message and "nbgrader's result stands" in problem.message
    assert problem.kind != records.UNCONFIRMED and not independent.unconfirmed_in([problem])
