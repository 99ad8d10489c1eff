"""Is the bench honest? It grades one class both ways and says whether every cell's score matched.

The comparison is checked on its own (a gradebook with one cell changed must be reported as
different), then the whole bench runs on a class of one perfect hand-in, with real nbgrader on both sides.
"""

import os
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder import cli
from autograder.authoring import mutants, notebooks, release
from autograder.course import COURSE_ID
from autograder.grading import bench, grade

MINI = Path(__file__).parent / "mini" / "01-mini.md"


@pytest.mark.slow
def test_the_generated_class_is_deterministic_and_mixes_every_kind(course, tmp_path):
    release_dir = course / "release" / release.ASSIGNMENT
    ids = bench.make_class(release_dir, tmp_path / "a", 10)
    assert ids == bench.make_class(release_dir, tmp_path / "b", 10)
    kinds = {re.sub(r"^s\d{3}-", "", student) for student in ids}
    assert {"perfect", "untouched"} <= kinds
    assert any(k.startswith("partial-") for k in kinds)
    assert kinds & {m.name for m in mutants.MUTANTS}
    # A workspace's .jupyter names its own folder (the terminal's bashrc, the kernel's startup.py).
    here = {side: str((tmp_path / side).resolve()).encode() for side in "ab"}
    for student in ids:
        for path in (tmp_path / "a" / student).rglob("*"):
            if path.is_file():
                twin = tmp_path / "b" / student / path.relative_to(tmp_path / "a" / student)
                assert path.read_bytes().replace(here["a"], here["b"]) == twin.read_bytes(), path


@pytest.mark.slow
def test_the_comparison_finds_one_changed_cell_score(mini_course, tmp_path):
    from nbgrader.api import Gradebook

    course, lectures = mini_course
    graded = bench.fresh_course(course, tmp_path / "course")
    subs = tmp_path / "subs"
    release.solve_workspace(release.make_workspace(graded / "release" / release.ASSIGNMENT, subs / "perfect"),
                            lecture_dir=lectures)
    grade.grade_all(subs, graded, echo=lambda *_: None, feedback=False)
    other = tmp_path / "other.db"
    shutil.copy2(graded / "gradebook.db", other)
    ours = bench.cell_scores(graded / "gradebook.db")
    assert ours and bench.differences(ours, bench.cell_scores(other)) == []

    with Gradebook(f"sqlite:///{other}", COURSE_ID) as gb:
        cell = gb.find_submission(release.ASSIGNMENT, "perfect").notebooks[0].grades[0]
        name, cell.auto_score = cell.name, cell.auto_score - 0.5
        gb.db.commit()
    wrong = bench.differences(ours, bench.cell_scores(other))
    assert len(wrong) == 1 and wrong[0].startswith(f"perfect 01-mini {name}: ")
    assert bench.verdict(10.0, 4.0, wrong) == "speedup: 2.50x vs nbgrader autograde, scores identical: no"
    assert bench.verdict(10.0, 4.0, []).endswith("scores identical: yes")


@pytest.mark.slow
def test_the_bench_grades_a_tiny_class_both_ways_with_identical_scores(capsys):
    code = cli.main(["bench", "--students", "1", "--profile"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert re.fullmatch(r"speedup: \d+\.\d\dx vs nbgrader autograde, scores identical: yes", lines[-1]), lines
    assert code == 0
    assert any(line.startswith("nbgrader autograde") for line in lines)
    assert any(line.startswith("nano-course grade") for line in lines)
    costs = {line.rsplit(None, 2)[0].strip(): float(line.split()[-2]) for line in lines if line.endswith(" s")}
    assert costs["kernel start, to ready (stock: each notebook)"] > 0
    if os.geteuid() == 0:  # as root, kernels are forked from a student's zygote
        assert costs["kernel forked from it, to ready (ours: each notebook)"] > 0
        assert "zygote start, as root (ours: once a student)" in costs


def test_bench_refuses_a_class_of_no_students(capsys):
    assert cli.main(["bench", "--students", "0"]) == 1
    assert capsys.readouterr().err.strip() == "nano-course bench: --students must be at least 1, not 0"


@pytest.mark.slow
def test_a_notebook_nbgrader_cannot_grade_costs_only_itself_when_all_are_graded_in_one_run(tmp_path):
    """Grading a student's notebooks in one Autograde run (faster) must not let one notebook that
    nbgrader refuses drop the others: they are graded again one by one."""
    lectures = tmp_path / "lectures"
    lectures.mkdir()
    for number in ("01", "02"):
        (lectures / f"{number}-mini.ipynb").write_text(notebooks.render(notebooks.build(MINI)))
    course = tmp_path / "course"
    release.build_course(course, lecture_dir=lectures)
    subs = tmp_path / "subs"
    work = release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT, subs / "alice"),
                                   lecture_dir=lectures)
    nb = notebooks.load(work / "02-mini.ipynb")
    nb.cells.append(nbformat.v4.new_code_cell("1 + 1", metadata={"nbgrader": {"grade": True}}))
    (work / "02-mini.ipynb").write_text(notebooks.render(nb))

    [alice] = grade.grade_all(subs, course, echo=lambda *_: None, feedback=False)
    full = grade.max_points(course)
    assert alice.scores == {"01": full["01"], "02": 0.0}
    assert "02: nbgrader could not grade it" in alice.problem
    log = (course / "logs" / "alice.txt").read_text()
    assert "==== nbgrader autograde all notebooks" in log and "==== nbgrader autograde 01-mini" in log
