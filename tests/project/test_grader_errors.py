"""A grader's mistake is the grader's: found before any grade is recorded, never blamed on a
student, and never paid for with points.

A behaviour the reference solution fails stops `nano-course grade` with one sentence naming it,
and nothing is written. A judge that raises on what a student's code returned holds that cell:
it awards nothing, it is marked for manual grading in the gradebook, the student's page says
its grade is pending and not their doing, `problems.csv` keeps what raised for the instructor,
and `grade` ends with a line naming the behaviour to fix. Graded again once the judge is fixed,
the cell is settled.
"""

import os
import shutil
from pathlib import Path

import pytest

from autograder.authoring import notebooks, release
from autograder.check import behaviour, independent
from autograder import records
from autograder.grading import grade, results
from tests.project import faulty_judge, late_reference, observers

MINI = Path(__file__).parent / "mini" / "01-mini.md"
SITE = Path(__file__).parent / "behaviour_site"

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
    broken = [behaviour.Behaviour("mini_warmup", observers.drive_after, judge_never_satisfied)]
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


def test_a_reference_that_fails_once_is_run_again_and_confirmed(mini_course, monkeypatch):
    """A loaded machine can stall the reference's first run of a behaviour: it is run again in
    a fresh process, and passing then confirms it."""
    course, _ = mini_course
    judged = []

    def judge_fails_first(inputs, seen):
        judged.append(seen)
        return "stalled (section 1)" if len(judged) == 1 else None

    flaky = [behaviour.Behaviour("mini_warmup", observers.drive_after, judge_fails_first)]
    monkeypatch.setattr(behaviour, "lecture", lambda number: flaky if number == "01" else None)
    assert independent.reference(course, "seed") == {"seed": "seed", "late": []}
    assert len(judged) == 2


def test_a_held_cell_is_the_graders_problem_in_words_for_each(mini_course):
    held = independent.Verdict("mini_warmup", independent.HELD, detail="its judge raised: KeyError: 'x'")
    [problem] = independent.grader_problems({"mini_warmup": held}, {"mini_warmup": "01"})
    assert problem.kind == records.GRADER and problem.grade_ids == ("mini_warmup",) and problem.lecture == "01"
    assert "not your doing" in problem.message and "pending" in problem.message
    assert "KeyError" in problem.detail and "KeyError" not in str(problem), "what it raised is the instructor's"


def build_faulty_course(tmp_path: Path, monkeypatch, module=faulty_judge) -> Path:
    """The mini course with `module`'s behaviours, and two solved hand-ins, one with a QUIRK."""
    monkeypatch.setattr(behaviour, "lecture", module.lecture)
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
    return course


def test_a_judge_that_trips_on_one_students_code_holds_their_cell_and_tells_the_instructor(tmp_path, monkeypatch):
    """Real grading, end to end: the mini lecture's warmup cell is judged by a wrong judge, which
    raises on one hand-in only. That cell awards nothing and is pending; the student reads that
    it is not their doing; the instructor is told; a re-grade with the judge fixed settles it."""
    course = build_faulty_course(tmp_path, monkeypatch)
    subs = tmp_path / "subs"
    # The grading processes import the same wrong judge (behaviour_site/sitecustomize.py).
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(SITE), str(release.ROOT)]))
    monkeypatch.setenv("NANO_TEST_BEHAVIOURS", "tests.project.faulty_judge")

    said: list[str] = []
    grades = {g.student: g for g in grade.grade_all(subs, course, echo=said.append, workers=1, timeout=10)}
    full = grade.max_points(course)
    warmup = notebooks.points(notebooks.load(course / "release" / release.ASSIGNMENT / "01-mini.ipynb"))["mini_warmup"]
    assert grades["honest"].scores == full and not grades["honest"].problems, grades["honest"].problem
    assert grades["quirky"].scores["01"] == pytest.approx(full["01"] - warmup), "a held cell awards nothing"
    [fault] = grades["quirky"].problems
    assert (fault.kind, fault.lecture, fault.grade_ids) == (records.GRADER, "01", ("mini_warmup",))
    assert "KeyError" in fault.detail and "not your doing" in fault.message and "pending" in fault.message

    [told] = [line for line in said if line.startswith("grader error")]
    assert "mini_warmup" in told and "(quirky)" in told and "KeyError" in told and "held" in told, told
    [kept] = [g for g in results.read_grades(course) if g.student == "quirky"]
    assert kept.problems == (fault,), "problems.csv keeps the detail for the instructor"
    from autograder import gradebook

    with gradebook.open_gradebook(gradebook.url(course)) as gb:
        cell = gb.find_grade("mini_warmup", "01-mini", release.ASSIGNMENT, "quirky")
        assert cell.needs_manual_grade and not cell.score, "formgrader lists it for the instructor"

    pages = "".join(page.read_text(encoding="utf-8") for page in (course / "feedback" / "quirky").rglob("*.html"))
    assert "not your doing" in pages and "pending" in pages
    assert "KeyError" not in pages and "your code raised" not in pages

    # The judge fixed (the real one: none), the student graded again: the cell is settled.
    monkeypatch.delenv("NANO_TEST_BEHAVIOURS")
    monkeypatch.setattr(faulty_judge, "BEHAVIOURS", [behaviour.Behaviour("mini_warmup", faulty_judge.drive_quirk,
                                                                          judge_fixed)])
    again = tmp_path / "again"
    shutil.copytree(subs / "quirky", again / "quirky")
    (fixed,) = grade.grade_all(again, course, echo=said.append, workers=1, timeout=10)
    assert fixed.scores == full and not fixed.problems, fixed


def judge_fixed(inputs, seen):
    value = seen.get("warmup", {}).get("value") if isinstance(seen.get("warmup"), dict) else None
    if value != 61001:
        yield "warmup() must return 61001 (section 1)"


def test_a_reference_late_twice_holds_that_cell_for_everyone_and_the_class_is_graded(tmp_path, monkeypatch):
    """A behaviour even the reference cannot finish in time (a loaded machine, say): it is run
    again, then reported in one line; its cell is held for every student, and nobody's grading
    stops."""
    course = build_faulty_course(tmp_path, monkeypatch, late_reference)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(SITE), str(release.ROOT)]))
    monkeypatch.setenv("NANO_TEST_BEHAVIOURS", "tests.project.late_reference")
    said: list[str] = []
    grades = {g.student: g for g in grade.grade_all(tmp_path / "subs", course, echo=said.append, workers=2,
                                                    timeout=10)}
    [warning] = [line for line in said if line.startswith("warning: the reference")]
    assert "mini_warmup" in warning and "twice" in warning and "held for every student" in warning, warning
    full = grade.max_points(course)
    warmup = notebooks.points(notebooks.load(course / "release" / release.ASSIGNMENT / "01-mini.ipynb"))["mini_warmup"]
    for student in ("honest", "quirky"):
        g = grades[student]
        assert g.scores["01"] == pytest.approx(full["01"] - warmup), g
        [held] = g.problems
        assert held.kind == records.GRADER and held.grade_ids == ("mini_warmup",) and "reference" in held.detail
    assert (course / "grades.csv").is_file()
