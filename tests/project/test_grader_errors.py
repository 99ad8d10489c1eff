"""A grader's mistake is the grader's: found before any grade is recorded, never blamed on a student.

A behaviour the reference solution fails stops `nano-course grade` with one sentence naming it,
and nothing is written. A judge that raises on what a student's code returned leaves that cell
with nbgrader's result and a problem saying it is the grader's failure, not theirs: in the
notebook's hidden part (the cell does not fail on it) and in the independent check alike, and
`grade` ends with a line telling the instructor which judge to fix.
"""

import os
import shutil
from pathlib import Path

import pytest

from autograder.authoring import notebooks, release
from autograder.check import behaviour, independent
from autograder.grading import grade, records
from tests.project import faulty_judge, observers

MINI = Path(__file__).parent / "mini" / "01-mini.md"
SITE = Path(__file__).parent / "faulty_judge_site"

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

    [problem] = independent.grader_problems(errors, {"mini_warmup": "01"})
    assert problem.kind == records.GRADER and problem.grade_ids == ("mini_warmup",) and problem.lecture == "01"
    assert "not your doing" in problem.message and "nbgrader's result stands" in problem.message
    assert "KeyError" in problem.detail and "KeyError" not in str(problem), "what it raised is the instructor's"
    assert problem.kind != records.UNCONFIRMED and not independent.unconfirmed_in([problem])


def test_a_judge_that_trips_on_one_students_code_mid_batch_costs_them_nothing_and_tells_the_instructor(
        tmp_path, monkeypatch):
    """Real grading, end to end: the mini lecture's warmup cell is judged by a wrong judge (its
    hidden part made from it, and the check's), which raises on one hand-in only. That student
    keeps the cell's points, reads that it was not their doing, and the instructor is told."""
    monkeypatch.setattr(behaviour, "lecture", faulty_judge.lecture)
    lectures = tmp_path / "lectures"
    lectures.mkdir()
    (lectures / "01-mini.ipynb").write_text(notebooks.render(notebooks.build(MINI)))
    course = tmp_path / "course"
    release.build_course(course, lecture_dir=lectures)
    subs = tmp_path / "subs"
    for name in ("honest", "quirky"):
        release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT, subs / name),
                                lecture_dir=lectures)
    protocol = subs / "quirky" / "nano" / "protocol.py"
    protocol.write_text(protocol.read_text(encoding="utf-8") + "\nQUIRK = True\n", encoding="utf-8")
    # The grading processes import the same wrong judge (faulty_judge_site/sitecustomize.py).
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(SITE), str(release.ROOT)]))

    said: list[str] = []
    grades = {g.student: g for g in grade.grade_all(subs, course, echo=said.append, workers=1, timeout=10)}
    full = grade.max_points(course)
    assert grades["honest"].scores == full and not grades["honest"].problems, grades["honest"].problem
    assert grades["quirky"].scores == full, grades["quirky"].problem
    [fault] = grades["quirky"].problems
    assert (fault.kind, fault.lecture, fault.grade_ids) == (records.GRADER, "01", ("mini_warmup",))
    assert "KeyError" in fault.detail and "not your doing" in fault.message

    [told] = [line for line in said if line.startswith("grader error")]
    assert "mini_warmup" in told and "(quirky)" in told and "KeyError" in told, told
    [kept] = [g for g in grade.read_grades(course) if g.student == "quirky"]
    assert kept.problems == (fault,), "problems.csv keeps the detail for the instructor"

    pages = "".join(page.read_text(encoding="utf-8") for page in (course / "feedback" / "quirky").rglob("*.html"))
    assert "not your doing" in pages
    assert "KeyError" not in pages and "your code raised" not in pages and "not confirmed" not in pages
    autograded = notebooks.load(course / "autograded" / "quirky" / release.ASSIGNMENT / "01-mini.ipynb")
    [cell] = [c for c in autograded.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "mini_warmup"]
    shown = "".join(o.get("text", "") for o in cell.outputs)
    assert "grader error, not the student's doing: the judge judge_trips_on_quirk raised KeyError" in shown
