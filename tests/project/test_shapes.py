"""Any name, any value shape (issue 31, findings 4 and 5), through real grading: a hand-in whose
preview leaves a file named with a byte that is not UTF-8 in the folder the driver lists
(payloads/odd_file_name.py), and one whose warmup returns a value nested 100 deep in the check's
process (payloads/deep_value.py), graded by `nano-course grade` in the shared class
(one_class.SHAPES, beside its honest zz-honest). Each
gets a row in grades.csv, loses the behaviour that met the odd shape (failed, in words on its
page: not held, no grader error) and keeps the rest of its points.
"""

import csv
import json
from pathlib import Path

import pytest

from autograder.authoring import notebooks, release
from autograder.check import independent
from autograder import records
from autograder.grading import grade, outcomes, results
from tests.project.one_class import HONEST

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("class")]


@pytest.fixture(scope="module")
def graded(graded_class):
    assert graded_class.code == 0, graded_class.out + graded_class.err
    return graded_class.course, graded_class.out + graded_class.err


def cell_points(course: Path) -> dict[str, float]:
    found = {}
    for path in sorted((course / "release" / release.ASSIGNMENT).glob("*.ipynb")):
        found.update(notebooks.points(notebooks.load(path)))
    return found


def lost_only(course: Path, student: str, behaviours: set[str]) -> dict:
    """The student's row and record: every behaviour passed but `behaviours`, each failed (not
    held, not late); the points lost are theirs alone."""
    rows = {g.student: g for g in results.read_grades(course)}
    assert student in rows, "no row in grades.csv"
    record = json.loads((course / "checks" / f"{student}.json").read_text(encoding="utf-8"))
    states = {b["key"]: b["state"] for b in record["behaviours"]}
    assert {k for k, s in states.items() if s != independent.PASSED} == behaviours, states
    assert {states[k] for k in behaviours} == {independent.FAILED}
    full = sum(grade.max_points(course).values())
    lost = sum(cell_points(course)[k.split("#")[0]] for k in behaviours)
    assert rows[student].total == pytest.approx(full - lost), rows[student]
    assert not [p for p in rows[student].problems if p.kind in (records.GRADER, records.FAILED)], rows[student].problems
    return record


def page(course: Path, student: str, lecture: str) -> str:
    [found] = (course / "feedback" / student).glob(f"{lecture}-*.html")
    return found.read_text(encoding="utf-8")


def test_an_honest_hand_in_beside_them_keeps_every_point(graded):
    course, said = graded
    rows = {g.student: g for g in results.read_grades(course)}
    assert rows[HONEST].total == pytest.approx(sum(grade.max_points(course).values()))
    assert not [p for p in rows[HONEST].problems if p.kind in (records.GRADER, records.FAILED)], rows[HONEST]
    for student in ("s-odd-name", "s-deep-value"):
        assert f"grading failed for {student}" not in said and f" {student} ... " in said, said


def test_a_file_name_that_is_not_utf8_costs_its_behaviour_and_is_written_escaped(graded):
    course, said = graded
    record = lost_only(course, "s-odd-name", {"l04_preview_changes_nothing"})
    [seen] = [b for b in record["behaviours"] if b["key"] == "l04_preview_changes_nothing"]
    assert any("odd\\xffname" in after["names"] for after in seen["seen"]["after"])  # a folder after each call
    assert "odd\\\\xffname" in seen["message"]
    assert "odd\\\\xffname" in page(course, "s-odd-name", "04")
    with (course / "problems.csv").open(encoding="utf-8", newline="") as rows:
        assert list(csv.reader(rows))
    (course / "logs" / "s-odd-name.txt").read_text(encoding="utf-8")
    assert "s-odd-name" in said


def test_a_value_nested_100_deep_is_too_deep_to_judge_and_holds_nothing(graded):
    course, said = graded
    record = lost_only(course, "s-deep-value", {"l01_warmup_returns_61001"})
    [seen] = [b for b in record["behaviours"] if b["key"] == "l01_warmup_returns_61001"]
    assert "too deep to judge" in seen["message"] and "counts it as wrong" in seen["message"]
    text = page(course, "s-deep-value", "01")
    assert "too deep to judge" in text and 'class="pending"' not in text and outcomes.PENDING not in text
