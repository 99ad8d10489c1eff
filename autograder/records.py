"""What travels between the grading processes: a job, its outcome, and the problems of a hand-in.

The coordinator (grade.py) hands a `Job` to a grading process (autograde.py's Worker pipe, or a
Dask task in cluster.py) and gets an `Outcome` back. Both are frozen dataclasses, turned into
JSON only at that boundary (`to_json` / `from_json`). A `Problem` is one thing wrong with a
hand-in, kept as its parts (lecture, grade_ids, kind, message) from where it is found to the
feedback pages and problems.csv, so that nothing reads a message's words back to learn what it
is about.
"""

import json
from dataclasses import dataclass, replace
from pathlib import Path

# What kind of thing went wrong (Problem.kind).
REFUSED = "refused"  # the hand-in could not be taken in (intake.py): not graded
REPAIRED = "repaired"  # something was missing or broken and was put right, or scored 0, before grading
UNPARSABLE = "unparsable"  # a nano/*.py that does not parse: graded as its stub, though it was written
EXECUTION = "execution"  # a cell or notebook ran out of time, or its kernel died or hung
NBGRADER = "nbgrader"  # nbgrader could not grade a notebook
UNCONFIRMED = "unconfirmed"  # nbgrader's pass was not confirmed by the independent check
UNVERIFIED = "unverified"  # the independent check did not run (--no-verify)
FAILED = "failed"  # the grader failed on the hand-in (its process died or raised): the run's failure, never recorded as the student's
EARLIER = "earlier"  # a later hand-in of a graded student was not graded; the earlier grade stands
GRADER = "grader"  # the grader failed on a cell (a judge raised): nbgrader's result stands there
NOTED = "noted"  # what the LMS said of the hand-in (late, the newest of several uploads): nothing wrong with it
KINDS = (REFUSED, REPAIRED, UNPARSABLE, EXECUTION, NBGRADER, UNCONFIRMED, UNVERIFIED, FAILED, EARLIER, GRADER, NOTED)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a hand-in, in words a student reads, and what it is about."""

    lecture: str | None  # "02"; None when it is about the hand-in as a whole
    grade_ids: tuple[str, ...]  # the graded cells it names, if any
    kind: str  # one of KINDS
    message: str  # in words, without the lecture number
    detail: str = ""  # for the instructor only (problems.csv): what a grader error raised
    file: str = ""  # the student's file it is about ("nano/gate.py"), graded as its stub in its place

    def __str__(self) -> str:
        """As the problem column and the progress line show it: "02: message"."""
        return f"{self.lecture}: {self.message}" if self.lecture else self.message

    def plain(self) -> dict:
        return {"lecture": self.lecture, "grade_ids": list(self.grade_ids), "kind": self.kind,
                "message": self.message, "detail": self.detail, "file": self.file}

    @classmethod
    def from_plain(cls, data: dict) -> "Problem":
        return cls(data.get("lecture") or None, tuple(data.get("grade_ids") or ()), str(data["kind"]),
                   str(data["message"]), str(data.get("detail") or ""), str(data.get("file") or ""))


def problem(message: str, kind: str, lecture: str | None = None, grade_ids=(), detail: str = "",
            file: str = "") -> Problem:
    return Problem(lecture, tuple(grade_ids), kind, message, detail, file)


@dataclass(frozen=True)
class Job:
    """One student to grade, in a private copy of the course made for them (grade._prepare)."""

    course: Path  # the course folder
    private: Path  # the student's private course, where nbgrader grades them
    student: str
    problems: tuple[Problem, ...] = ()  # found while staging and repairing the hand-in
    timeout: int | None = None  # seconds a cell; None: the course's
    notebook_limit: int | None = None  # seconds a notebook; None: limits.NOTEBOOK_LIMIT
    unsafe: bool = False  # no sandbox (--unsafe)
    verify: Path | None = None  # the file of the reference's observations; None: no independent check

    def to_json(self) -> str:
        return json.dumps({"course": str(self.course), "private": str(self.private),
                           "student": self.student, "problems": [p.plain() for p in self.problems],
                           "timeout": self.timeout, "notebook_limit": self.notebook_limit,
                           "unsafe": self.unsafe, "verify": None if self.verify is None else str(self.verify)})

    @classmethod
    def from_json(cls, text: str) -> "Job":
        data = json.loads(text)
        return cls(Path(data["course"]), Path(data["private"]), data["student"],
                   tuple(Problem.from_plain(p) for p in data["problems"]), data["timeout"],
                   data["notebook_limit"], bool(data["unsafe"]),
                   None if data["verify"] is None else Path(data["verify"]))

    def elsewhere(self, private: Path) -> "Job":
        """The same job, graded in another private course (a Dask attempt's own copy)."""
        return replace(self, private=private)


@dataclass(frozen=True)
class Outcome:
    """What grading one student gave: the problems found (the job's included), and whether the
    grading process failed (then the student is not graded)."""

    problems: tuple[Problem, ...] = ()
    failed: bool = False
    log: str = ""  # nbgrader's log and the kernels' stderr, for logs/<student>.txt
    seconds: float = 0.0
    private: Path | None = None  # the private course it was graded in, when not the staged one

    def to_json(self) -> str:
        return json.dumps({"problems": [p.plain() for p in self.problems], "failed": self.failed,
                           "log": self.log, "seconds": self.seconds,
                           "private": None if self.private is None else str(self.private)})

    @classmethod
    def from_json(cls, text: str) -> "Outcome":
        data = json.loads(text)
        return cls(tuple(Problem.from_plain(p) for p in data["problems"]), bool(data["failed"]),
                   str(data["log"]), float(data["seconds"]),
                   None if data["private"] is None else Path(data["private"]))

    def graded_in(self, private: Path) -> "Outcome":
        return replace(self, private=private)


def failed(job: Job, message: str) -> Outcome:
    """The outcome of a job that could not be graded, with `message` saying why."""
    return Outcome(job.problems + (problem(message, FAILED),), failed=True)

