"""A course is where the instructor thinks it is, and what a run does is its own: tried as an
instructor would, with the real `nano-course`.

A mistyped --course, a student's workspace, another nbgrader course or any other folder is
refused in one sentence and left as it was (nothing built or written there); without --course
every command finds the one course of the checkout, wherever it is run from. And when the grader
itself fails on a hand-in, nothing is recorded as the student's: grades.csv, problems.csv and the
feedback stay as they were, the instructor is told, and the run ends with status 1.
"""

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import course as course_facts
from autograder.authoring import release

COMMAND = str(Path(sys.executable).with_name("nano-course"))


def nano_course(*args, cwd=None, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([COMMAND, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=900)


def listing(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def other_nbgrader_course(folder: Path) -> Path:
    (folder / "source" / "ps1").mkdir(parents=True)
    (folder / "source" / "ps1" / "ps1.ipynb").write_text("{}")
    (folder / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "cs101"\n')
    return folder


@pytest.fixture
def wrong_places(tmp_path, fresh_workspace) -> dict[str, tuple[Path, str]]:
    """Folders an instructor may name by mistake -> (folder, what the refusal says)."""
    workspace = Path(shutil.copytree(fresh_workspace, tmp_path / "alice-workspace"))
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "notes.txt").write_text("mine\n")
    return {
        "a typo": (tmp_path / "cuorse", f"there is no course at {tmp_path / 'cuorse'}: build one there first"),
        "a student's workspace": (workspace, f"{workspace} is a student's workspace, not a course"),
        "another nbgrader course": (other_nbgrader_course(tmp_path / "cs101"),
                                    f"this is not a nano course: {tmp_path / 'cs101'} is another nbgrader "
                                    "course (its assignments are ps1)"),
        "a folder of papers": (papers, f"{papers} is not a nano course (it has no nbgrader_config.py)"),
    }


@pytest.mark.slow
def test_a_folder_that_is_not_a_nano_course_is_refused_in_one_sentence_and_left_as_it_was(wrong_places, tmp_path):
    subs = tmp_path / "subs"
    shutil.copytree(release.ROOT / "fixtures" / "submissions" / "perfect", subs / "perfect")
    for kind, (folder, said) in wrong_places.items():
        before = listing(folder) if folder.exists() else None
        for args in (["grade", subs, "--course", folder], ["report", "--course", folder],
                     ["export", "--course", folder], ["replay", "perfect", "--course", folder]):
            done = nano_course(*args)
            assert done.returncode == 1 and done.stdout == "", (kind, args, done.stdout, done.stderr)
            assert done.stderr.startswith(f"nano-course {args[0]}: {said}"), (kind, done.stderr)
            assert done.stderr.count("\n") == 1, (kind, done.stderr)
            assert (listing(folder) if folder.exists() else None) == before, f"{kind}: {args[0]} wrote there"
        if kind != "a typo":  # build makes a course in a new folder; never over one that is something else
            done = nano_course("build", "--out", folder)
            assert done.returncode == 1 and done.stderr.count("\n") == 1, (kind, done.stderr)
            assert listing(folder) == before, f"{kind}: build wrote there"


def test_without_course_every_command_finds_the_checkouts_course_from_any_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NANO_COURSE"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    checkout_course = course_facts.PROJECT / "build" / "course"

    done = nano_course("export", cwd=elsewhere, env=env)

    assert str(checkout_course) in done.stderr + done.stdout, done.stderr
    assert list(elsewhere.iterdir()) == [], "nothing is made in the folder it was run from"
    named = tmp_path / "spring"
    done = nano_course("report", cwd=elsewhere, env=env | {"NANO_COURSE": str(named)})
    assert done.returncode == 1 and done.stderr == (
        f"nano-course report: there is no course at {named}: build one there first with "
        f"nano-course build --out {named} (or check --course)\n")


@pytest.mark.slow
def test_the_graders_own_failure_is_never_recorded_as_the_students(mini_course, tmp_path):
    built, lectures = mini_course
    course = Path(shutil.copytree(built, tmp_path / "course"))
    subs = tmp_path / "subs"
    release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT, subs / "alice"),
                            lecture_dir=lectures)
    first = nano_course("grade", subs, "--course", course, "--timeout", "30")
    assert first.returncode == 0, first.stdout + first.stderr
    assert first.stdout.startswith(f"grading into the course at {course}\n"), first.stdout
    kept = {name: (course / name).read_bytes() for name in ("grades.csv", "problems.csv")}
    page = (course / "feedback" / "alice" / "index.html").read_bytes()

    # The course folder is damaged (checks/ is a file now): the grader fails on every hand-in.
    shutil.rmtree(course / "checks")
    (course / "checks").write_text("not a folder\n")
    shutil.copytree(subs / "alice", subs / "bob")  # a student graded for the first time
    failed = nano_course("grade", subs, "--course", course, "--timeout", "30")

    assert failed.returncode == 1, failed.stdout + failed.stderr
    for student in ("alice", "bob"):
        line = next(line for line in failed.stdout.splitlines() if line.startswith(f"grading failed for {student}"))
        assert "the grader's failure and not the hand-in's" in line and "FileExistsError" in line, line
        assert f"Nothing was recorded for {student}" in line and f"grade {student} again" in line, line
    assert {name: (course / name).read_bytes() for name in kept} == kept
    assert (course / "feedback" / "alice" / "index.html").read_bytes() == page
    assert not (course / "feedback" / "bob").exists()

    (course / "checks").unlink()
    again = nano_course("grade", subs, "--course", course, "--timeout", "30")
    assert again.returncode == 0, again.stdout + again.stderr
    with (course / "grades.csv").open(newline="") as rows:
        assert {row["student_id"]: row["total"] for row in csv.DictReader(rows)} == {"alice": "3", "bob": "3"}
    for page in (course / "feedback").rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert str(course) not in text and str(tmp_path) not in text, f"{page} shows the instructor's paths"
