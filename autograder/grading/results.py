"""What a grading run leaves: each student's `Grade`, and grades.csv and problems.csv, which hold
the whole class over a term (`whole_class`) and are read back by feedback, report and export
(`read_grades`). Both files are replaced only once complete (`save_csv`: written aside, then
renamed).
"""

import csv
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course import STUDENT_FUNCTIONS
from autograder import gradebook, records
from autograder.records import Problem, problem


@dataclass(frozen=True)
class Grade:
    """One student's result: points per lecture ("01".."06"), and what went wrong, if anything."""

    student: str
    scores: dict[str, float] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    graded: bool = True

    @property
    def total(self) -> float:
        return round(sum(self.scores.values()), 2)

    @property
    def failed(self) -> bool:
        """Whether the grader failed on this hand-in (records.FAILED): the run's own failure,
        which no file records as the student's (grades.csv, problems.csv and the feedback stay
        as they were) and the instructor is told of."""
        return any(p.kind == records.FAILED for p in self.problems)

    @property
    def problem(self) -> str:
        """The problem column: each problem as a line of its own would say it ("02: ..."), joined."""
        return "; ".join(str(p) for p in self.problems)

    def about(self, lecture: str) -> list[Problem]:
        """The problems that belong to lecture `lecture` ("02"): its own, and those about a file
        whose functions it grades (a nano/*.py graded as its stub)."""
        return [p for p in self.problems if p.lecture == lecture or lecture in lectures_of_file(p.file)]


def lectures_of_file(name: str) -> set[str]:
    """The lectures ("04") that grade the functions of student file `name` ("nano/gate.py")."""
    return set(STUDENT_FUNCTIONS.get(name.removeprefix("nano/"), {}).values())


def earlier_problems(course: Path) -> dict[str, tuple[bool, tuple[Problem, ...]]]:
    """Student -> (graded, problems) from the course's problems.csv as the last run wrote it;
    ValueError, in one sentence, if it is not such a file any more."""
    path = course / "problems.csv"
    found: dict[str, tuple[bool, tuple[Problem, ...]]] = {}
    if not path.is_file():
        return found
    try:
        with path.open(newline="", encoding="utf-8") as lines:
            reader = csv.DictReader(lines)
            if not {"student_id", "graded", "problem"} <= set(reader.fieldnames or ()):
                raise csv.Error("its columns are not student_id,graded,problem")
            for row in reader:
                graded, problems = found.get(row["student_id"], (True, ()))
                found[row["student_id"]] = (graded and row["graded"] != "no", (*problems, problem_of(row)))
    except (csv.Error, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not the file nano-course grade wrote ({exc}): put it back as it was, "
                         "or move it away to start its list of refused hand-ins afresh") from None
    return found


def whole_class(course: Path, run: list[Grade], lectures: dict[str, str], before: set[str],
                earlier: dict[str, tuple[bool, tuple[Problem, ...]]]) -> list[Grade]:
    """The rows grades.csv and problems.csv hold after a run, sorted by student id.

    The graded students are those the gradebook holds, with their problems from the last
    problems.csv (`earlier`); the refused hand-ins, never in the gradebook, are carried over from
    it until their student is graded. This `run` replaces the rows of its students, except that
    a hand-in it could not grade does not wipe the grade of the student's earlier one (`before`:
    the students the gradebook held when the run began).
    """
    scores = gradebook.scores(course, lectures)
    zeros = {k: 0.0 for k in sorted(set(lectures.values()))}
    rows = {student: Grade(student, points, earlier.get(student, (True, ()))[1])
            for student, points in scores.items()}
    rows |= {student: Grade(student, zeros, problems, graded=False)
             for student, (graded, problems) in earlier.items() if not graded and student not in scores}
    for g in run:
        if g.graded or g.student not in scores:
            rows[g.student] = g
        else:
            kept = tuple(p for p in rows[g.student].problems if p.kind != records.EARLIER)
            said = ((*kept, problem(f"this hand-in was not graded ({g.problem}); the grade of the earlier "
                                    "one stands", records.EARLIER))
                    if g.student in before else g.problems)
            rows[g.student] = Grade(g.student, scores[g.student], said)
    return sorted(rows.values(), key=lambda g: (g.student.lower(), g.student))


def write_csv(grades: list[Grade], lectures: list[str], path: Path) -> None:
    """grades.csv: one row per student, points per lecture and in all; a hand-in that could not
    be graded has its cells left empty (no grade, which is not a grade of 0: problems.csv and
    the student's page say why)."""
    def rows():
        yield ["student_id", *lectures, "total"]
        for g in grades:
            if not g.graded:
                yield [g.student, *([""] * len(lectures)), ""]
                continue
            yield [g.student, *(f"{g.scores.get(k, 0.0):g}" for k in lectures), f"{g.total:g}"]
    save_csv(path, rows())


PROBLEM_COLUMNS = ["student_id", "graded", "problem", "lecture", "kind", "grade_ids", "message", "detail", "file"]


def write_problems(grades: list[Grade], path: Path) -> None:
    """problems.csv: one row per problem found, for the students who had any: the problem as the
    table says it, then its parts (records.Problem; grade_ids separated by spaces), which is
    what is read back. `detail` is for the instructor: no feedback page shows it; `file` is the
    nano/*.py graded as its stub."""
    def rows():
        yield PROBLEM_COLUMNS
        for g in grades:
            for p in g.problems:
                yield [g.student, "yes" if g.graded else "no", str(p), p.lecture or "", p.kind,
                       " ".join(p.grade_ids), p.message, p.detail, p.file]
    save_csv(path, rows())


LEFT_OUT = "left-out.csv"  # in the course: what the last run left without a grade (`LeftOut`)
NOT_PLACED, NO_GRADE = "not placed", "no grade"


@dataclass(frozen=True)
class LeftOut:
    """What a grading run left without a grade, besides the hand-ins it refused: an entry of the
    hand-ins that became no student's (NOT_PLACED; `student` is the roster's student whose id it
    carries, if any), or a student of the roster whom grades.csv does not list (NO_GRADE)."""

    kind: str  # NOT_PLACED or NO_GRADE
    entry: str  # the entry as the hand-ins name it ("" for NO_GRADE)
    student: str
    why: str
    name: str = ""  # the roster's name of `student`

    def __str__(self) -> str:
        """As the run says it: "not placed: notes.txt: ..." or "no grade: lee (Lee Chen): ..."."""
        if self.kind == NOT_PLACED:
            return f"not placed: {self.entry}: {self.why}"
        return f"no grade: {self.student}{f' ({self.name})' if self.name else ''}, in the roster: {self.why}"


LEFT_OUT_COLUMNS = ["kind", "entry", "student_id", "name", "why"]


def write_left_out(left: list[LeftOut], path: Path) -> None:
    """The course's left-out.csv: what the last run left without a grade, one row each."""
    save_csv(path, [LEFT_OUT_COLUMNS, *([one.kind, one.entry, one.student, one.name, one.why] for one in left)])


def read_left_out(course: Path) -> list[LeftOut]:
    """What the last grading run left without a grade ([] before any, or from a run before the file)."""
    path = course / LEFT_OUT
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as lines:
        return [LeftOut(row["kind"], row["entry"], row["student_id"], row["why"], row.get("name") or "")
                for row in csv.DictReader(lines)]


def problem_of(row: dict[str, str]) -> Problem:
    """The Problem of a row of problems.csv. A row written before the file had its parts keeps
    its words whole, as a problem of the hand-in (kind "repaired")."""
    if row.get("kind") and row.get("message") is not None:
        return Problem(row.get("lecture") or None, tuple((row.get("grade_ids") or "").split()), row["kind"],
                       row["message"], row.get("detail") or "", row.get("file") or "")
    return problem(row["problem"], records.REPAIRED)


def save_csv(path: Path, rows: Iterable[list[str]]) -> None:
    """Write `rows` as a CSV beside `path`, then rename it over `path`: a crash or Ctrl-C while
    writing (or while `rows` makes a row) leaves the previous file whole."""
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", newline="", encoding="utf-8") as out:
            csv.writer(out).writerows(rows)
            out.flush()
            os.fsync(out.fileno())
        if path.exists():
            shutil.copymode(path, name)
        else:
            os.chmod(name, 0o644)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def read_grades(course: Path) -> list[Grade]:
    """The grades `grade_all` last wrote in `course` (the whole class), read back from grades.csv
    and problems.csv, in their order; [] if it has not graded there."""
    def rows(name: str) -> list[dict[str, str]]:
        path = course / name
        if not path.is_file():
            return []
        with path.open(newline="", encoding="utf-8") as lines:
            return list(csv.DictReader(lines))

    problems: dict[str, list[Problem]] = {}
    ungraded = set()
    for row in rows("problems.csv"):
        problems.setdefault(row["student_id"], []).append(problem_of(row))
        if row["graded"] == "no":
            ungraded.add(row["student_id"])
    return [Grade(row["student_id"],
                  {k: float(v or 0) for k, v in row.items() if k not in ("student_id", "total")},
                  tuple(problems.get(row["student_id"], ())), row["student_id"] not in ungraded)
            for row in rows("grades.csv")]


def table(grades: list[Grade], lectures: list[str]) -> str:
    width = max([10, *(len(g.student) for g in grades)])
    lines = [f"{'student':{width}}  " + "  ".join(f"{k:>5}" for k in lectures) + "  total  problem"]
    for g in grades:
        if g.graded:
            cells = "  ".join(f"{g.scores.get(k, 0.0):5.2f}" for k in lectures) + f"  {g.total:5.2f}"
        else:  # no grade, as in grades.csv
            cells = "  ".join(f"{'-':>5}" for _ in [*lectures, "total"])
        lines.append(f"{g.student:{width}}  {cells}  {g.problem}".rstrip())
    return "\n".join(lines)
