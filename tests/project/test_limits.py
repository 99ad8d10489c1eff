"""Do the limits add up? A hand-in slow in every notebook keeps what it honestly earns.

autograder/limits.py derives the job limit (after which a student's whole grading process is
stopped and they are "not graded") from the limits of the cells, the notebooks and the check, so
that those stop a slow hand-in first. Here every student function of a perfect hand-in sleeps
past the cell timeout, and the real `nano-course grade` grades it under small limits
(NANO_LIMITS), so that the test takes minutes, with the independent check (which confirms only
the cells nbgrader passed, so a slow hand-in's check takes seconds; the reference keeps the
default time a behaviour, since it must pass every behaviour before any grade is recorded):
lecture 01's quiz answers are right and must
score, and so must every other lecture's quiz questions that their notebook reached before its
time limit; everything that calls student code must score 0; the run must end in bounded time.
"""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import limits
from autograder.authoring import notebooks, release
from autograder.grading import grade, results

SMALL = "cell=3 notebook=50 kernel_start=30 check=160 check_startup=30"
SLEEP = 3600  # seconds each student function sleeps before doing its work


def sleeping(workspace: Path) -> Path:
    """Make every student function of a solved workspace sleep first: its solution region's first
    line becomes `import time; time.sleep(SLEEP)` (the regions are the student's functions)."""
    for name in release.STUDENT_FILES:
        path = workspace / name
        text, count = re.subn(rf"^(\s*){re.escape(release.BEGIN)}\n",
                              lambda m: f"{m.group(0)}{m.group(1)}import time; time.sleep({SLEEP})\n",
                              path.read_text(encoding="utf-8"), flags=re.M)
        assert count, f"{name} has no solution region"
        path.write_text(text, encoding="utf-8")
    return workspace


QUIZ = re.compile(r"l\d\d_q\d")  # the quiz questions' checks: they call no student function
CUT = {"NotebookTimeLimit", "NotRun"}  # what a cell the notebook's time limit stopped shows


def honest_points(course: Path, student: str) -> dict[str, float]:
    """Lecture -> what a hand-in whose functions never return earns: each quiz question its
    notebook reached before its time limit, and nothing else."""
    earned = {}
    for name, number in grade.lectures_of(course).items():
        nb = notebooks.load(course / "autograded" / student / release.ASSIGNMENT / f"{name}.ipynb")
        points = notebooks.points(nb)
        reached = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
                   if c.metadata.get("nbgrader", {}).get("grade") and
                   not {o.get("ename") for o in c.get("outputs", []) if o.get("output_type") == "error"} & CUT]
        earned[number] = round(sum(points[g] for g in reached if QUIZ.match(g)), 3)
    return earned


def test_the_job_limit_covers_every_notebook_and_the_check():
    for small in (limits.Limits(), limits.from_environment({"NANO_LIMITS": SMALL})):
        assert small.job >= limits.NOTEBOOKS * small.notebook + small.check + small.check_startup
        assert small.job > limits.NOTEBOOKS * small.per_notebook
    with pytest.raises(ValueError, match="'notebooks' is not a limit"):
        limits.from_environment({"NANO_LIMITS": "notebooks=3"})
    with pytest.raises(ValueError, match="cell must be a whole number of at least 1, not '0'"):
        limits.from_environment({"NANO_LIMITS": "cell=0"})


@pytest.mark.slow
def test_a_hand_in_slow_in_every_notebook_gets_what_it_honestly_earns(needs_bwrap_or_unsafe, course, tmp_path):
    small = limits.from_environment({"NANO_LIMITS": SMALL})
    subs = tmp_path / "subs"
    sleeping(release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT,
                                                            subs / "slow")))
    graded = tmp_path / "course"
    shutil.copytree(course, graded)
    command = [sys.executable, "-m", "autograder.cli", "grade", str(subs), "--course", str(graded),
               "--timeout", str(small.cell), "--workers", "1", *needs_bwrap_or_unsafe]
    started = time.monotonic()
    done = subprocess.run(command, env={**os.environ, "NANO_LIMITS": SMALL}, capture_output=True, text=True,
                          timeout=small.job + small.reference_wait + 300)
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    [slow] = results.read_grades(graded)
    assert slow.graded and "1 hand-in: 1 graded, 0 not graded" in done.stdout, done.stdout
    honest = honest_points(graded, "slow")
    released = notebooks.points(notebooks.load(next((graded / "release" / release.ASSIGNMENT).glob("01-*.ipynb"))))
    assert honest["01"] == sum(p for g, p in released.items() if QUIZ.match(g)) > 0, "lecture 01 runs to its end"
    assert slow.scores == pytest.approx(honest), slow.problem
    assert seconds < small.job + 120, f"the run took {seconds:.0f} s; its job limit is {small.job} s"
    timed_out = {p.lecture for p in slow.problems if p.kind == "execution"}
    assert timed_out == set(grade.max_points(graded)), slow.problem


@pytest.fixture
def needs_bwrap_or_unsafe():
    """The command-line flags that grade here: in the sandbox where bwrap works, else --unsafe."""
    from autograder.sandbox import bwrap

    return [] if bwrap.available() else ["--unsafe"]


def test_nano_workers_sets_how_many_students_are_graded_at_once():
    assert grade.default_workers({}) == min(8, 4 * (os.cpu_count() or 1))
    assert grade.default_workers({"NANO_WORKERS": "3"}) == 3
    for nonsense in ("0", "two", "-1"):
        with pytest.raises(ValueError, match="NANO_WORKERS must be a whole number"):
            grade.default_workers({"NANO_WORKERS": nonsense})
