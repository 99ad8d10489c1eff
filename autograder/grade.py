"""Bulk grading: every submission in a folder, autograded by real nbgrader, into grades.csv.

A submission is a student's copy of their workspace, in a folder named by student id. Each one
goes into the course's `submitted/` as nbgrader expects, is autograded with the course's
config (so the student's nano/*.py are kept and everything else is restored from the source),
and its per-notebook scores are read back from the gradebook. One bad submission never stops
the batch: it gets the points nbgrader gave it, and a reason in the table.
"""

import csv
import datetime
import re
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from autograder import release

STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")


@dataclass(frozen=True)
class Grade:
    """One student's result: points per lecture ("01".."06"), and what went wrong, if anything."""

    student: str
    scores: dict[str, float] = field(default_factory=dict)
    problem: str = ""

    @property
    def total(self) -> float:
        return round(sum(self.scores.values()), 2)


def lectures_of(course: Path) -> dict[str, str]:
    """Notebook name -> lecture number ("01-shape-of-an-agent" -> "01") of the course's release."""
    names = sorted(p.stem for p in (course / "release" / release.ASSIGNMENT).glob("*.ipynb"))
    return {name: name[:2] for name in names}


def find_submissions(folder: Path) -> list[tuple[str, Path | None, str]]:
    """(student id, folder, problem) for every entry of `folder`; folder is None when unusable."""
    found = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or entry.name == "__MACOSX":
            continue
        if not entry.is_dir():
            found.append((entry.name, None, "not a folder (zip intake comes with issue 5)"))
        elif not STUDENT_ID.match(entry.name):
            found.append((entry.name, None, "not a valid student id (letters, digits, _ . @ -)"))
        else:
            found.append((entry.name, entry, ""))
    return found


def _stage(submission: Path, course: Path, student: str) -> None:
    target = course / "submitted" / student / release.ASSIGNMENT
    if target.parent.exists():
        shutil.rmtree(target.parent)
    shutil.copytree(submission, target, symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints"))
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
    (target / "timestamp.txt").write_text(stamp, encoding="utf-8")


def _scores(course: Path, student: str, lectures: dict[str, str]) -> dict[str, float]:
    from nbgrader.api import Gradebook, MissingEntry

    scores = {number: 0.0 for number in lectures.values()}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        try:
            submission = gb.find_submission(release.ASSIGNMENT, student)
        except MissingEntry:
            return scores
        for notebook in submission.notebooks:
            if notebook.name in lectures:
                scores[lectures[notebook.name]] = round(float(notebook.score or 0.0), 2)
    return scores


def grade_all(submissions: Path, course: Path, echo=print) -> list[Grade]:
    """Grade every submission in `submissions` with the course at `course`; write grades.csv."""
    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader vs SQLAlchemy 2.1
    course = course.resolve()
    if not (course / "release" / release.ASSIGNMENT).is_dir():
        echo(f"building the course in {course} ...")
        release.build_course(course)
    api = release.nbgrader_api(course)
    lectures = lectures_of(course)
    entries = find_submissions(submissions)
    grades = []
    for n, (student, folder, problem) in enumerate(entries, 1):
        echo(f"[{n}/{len(entries)}] {student} ...")
        if folder is None:
            grades.append(Grade(student, {k: 0.0 for k in lectures.values()}, problem))
            continue
        try:
            _stage(folder, course, student)
            result = api.autograde(release.ASSIGNMENT, student, force=True, create=True)
            if not result["success"]:
                last = (result.get("error") or result.get("log") or "").strip().splitlines()
                problem = "nbgrader: " + (last[-1] if last else "autograde failed")
        except Exception as exc:  # a bad submission must not stop the batch
            problem = f"{type(exc).__name__}: {exc}"
        grades.append(Grade(student, _scores(course, student, lectures), problem))
    write_csv(grades, sorted(set(lectures.values())), course / "grades.csv")
    echo(table(grades, sorted(set(lectures.values()))))
    echo(f"wrote {course / 'grades.csv'}")
    return grades


def write_csv(grades: list[Grade], lectures: list[str], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["student_id", *lectures, "total"])
        for g in grades:
            writer.writerow([g.student, *(f"{g.scores.get(k, 0.0):g}" for k in lectures),
                             f"{g.total:g}"])


def table(grades: list[Grade], lectures: list[str]) -> str:
    width = max([10, *(len(g.student) for g in grades)])
    lines = [f"{'student':{width}}  " + "  ".join(f"{k:>5}" for k in lectures) + "  total  problem"]
    for g in grades:
        cells = "  ".join(f"{g.scores.get(k, 0.0):5.2f}" for k in lectures)
        lines.append(f"{g.student:{width}}  {cells}  {g.total:5.2f}  {g.problem}".rstrip())
    return "\n".join(lines)
