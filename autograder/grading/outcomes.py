"""What each graded cell of one student's notebook came to: passed or not, and why, in words.

`behaviours` reads a lecture's graded cells for one student from the gradebook, the independent
check's record (COURSE/checks/<student>.json) and the outputs of the autograded notebook: each
graded behaviour in words (the cell's `nano.behaviour` metadata, see `described`), the section of
the lecture it sits under (the `## N. Title`), its points, and for a failure what went wrong
(`failure_message`, shown only as leaks.py lets it be). A failure that only says the work is not
there yet (a stub raised, a question unanswered) is "not attempted", told apart from one that is
wrong (`Behaviour.not_attempted`; the report counts both). The feedback pages (feedback.py) and
the class report (report.py) are written from these.
"""

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from autograder import records
from autograder.authoring import notebooks, release
from autograder.check import independent
from checks import kit
from autograder.notebook import sections
from autograder.grading.leaks import (JUDGED, Grader, as_written, course_notebook, course_secret,
                                      exception_name, grader_for, sanitise)

PENDING = ("pending: the grader failed while checking this behaviour, which is not your doing; it "
           "scores nothing until your instructor has fixed the grader and graded it again")
# Errors the grading process itself writes into a cell (autograder/grading/autograde.py, nbclient).
GRADER_ERRORS = {"DeadKernelError", "KernelUnresponsive", "NotRun", "NotebookTimeLimit"}
TIMED_OUT = "this cell ran past its time limit and was interrupted"


@dataclass(frozen=True)
class Described:
    """What a lecture says about one graded cell: the behaviour in words, the section it is in."""

    grade_id: str
    words: str  # "agent_loop stops after max_turns model calls and returns 'max_turns'"
    section: str  # "section 4, Sending the results back, and knowing when to stop"; "" if none


@dataclass(frozen=True)
class Behaviour:
    """One graded test cell of one student's notebook."""

    grade_id: str
    points: float
    score: float | None  # None: never graded (the notebook was not)
    message: str  # why it failed; empty when it passed
    words: str = ""
    section: str = ""
    held: bool = False  # the grader failed on it: its points are pending a re-grade
    stub: str = ""  # it failed because a stub of this file ("nano/gate.py") raised (`stubbed`)
    unanswered: bool = False  # it failed because its question was not answered (UNANSWERED)

    @property
    def status(self) -> str:
        if self.held:
            return "pending"
        if self.score is None or self.score <= 0:
            return "fail"
        return "pass" if self.score >= self.points - 1e-9 else "partial"

    def not_attempted(self, problems) -> bool:
        """Whether it failed only because the student has not tried it yet (its function is still
        the stub, or its question is unanswered), rather than tried and got it wrong. A file
        graded as its stub because it does not parse (a records.UNPARSABLE problem among
        `problems`) was tried."""
        return self.status == "fail" and (self.unanswered or bool(self.stub) and not any(
            p.file == self.stub and p.kind == records.UNPARSABLE for p in problems))


def title_of(nb) -> str:
    """The notebook's "# ..." heading, e.g. "Lecture 02: Tools that read"."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


def described(nb) -> dict[str, Described]:
    """grade_id -> its behaviour in words and its section, for every graded cell of a lecture."""
    found = {}
    for cell, section in zip(nb.cells, sections(nb)):
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            words = cell.metadata.get("nano", {}).get("behaviour") or meta["grade_id"].replace("_", " ")
            found[meta["grade_id"]] = Described(meta["grade_id"], words, section)
    return found


def failure_message(cell, grader: Grader = Grader()) -> str:
    """What a failed test cell said, without its code: a message the grader wrote (an assertion
    of the cell names the section to reread), "question N was not answered", or the exception
    type and sanitised message of student code, or the first line it wrote to stderr."""
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if any(o.get("ename") == "CellTimeoutError" for o in errors):
        return TIMED_OUT
    for output in errors:
        name, value = str(output.get("ename", "Error")), str(output.get("evalue", "")).strip()
        unanswered = re.fullmatch(r"name 'answer_q(\d+)\w*' is not defined", value)
        if name == "NameError" and unanswered:
            return (f"question {unanswered.group(1)} was not answered: its answer cell did not set "
                    f"answer_q{unanswered.group(1)} (run it after writing your answer)")
        if name == "AssertionError" and not value:
            return "a check failed (an assert without a message)"
        written = as_written(name, value, grader)
        if written is not None:
            return written[:2000] if name == "AssertionError" else f"{name}: {written[:2000]}"
        if name in GRADER_ERRORS:
            return sanitise(value, grader.secret)
        name = exception_name(name, grader.secret)
        return f"your code raised {name}: {sanitise(value, grader.secret)}" if value else f"your code raised {name}"
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            first = next((line for line in output.get("text", "").splitlines() if line.strip()), "")
            return ("the cell wrote to stderr, and a graded cell that does scores 0: "
                    + sanitise(first, grader.secret, 300))
    return ""


@functools.cache
def _stub_sayings() -> tuple[tuple[str, str], ...]:
    """(words, file) for each function students write: what its stub raises
    (release.stub_message), and what a judge says of a call that met a stub (kit.NOT_WRITTEN)."""
    return tuple((words, f"nano/{module}") for module, functions in release.STUDENT_FUNCTIONS.items()
                 for function, lecture in functions.items()
                 for words in (release.stub_message(lecture, function, module),
                               kit.NOT_WRITTEN.format(function=function)))


def stubbed(message: str) -> str:
    """The file ("nano/gate.py") whose stub a failure message says raised, or ""."""
    return next((file for words, file in _stub_sayings() if words in message), "")


# How a question cell's failure starts when its answer cell did not run: the lectures' asserts
# say so, and so does `failure_message` of the NameError it meets.
UNANSWERED = re.compile(r"question \d+ was not answered\b")


def behaviours(course: Path, student: str, notebook: str) -> list[Behaviour] | None:
    """The graded behaviours of one lecture notebook for `student`, in notebook order;
    None if the student has no graded submission."""
    from nbgrader.api import MissingEntry

    from autograder import gradebook

    released = course_notebook(course / "release" / release.ASSIGNMENT / f"{notebook}.ipynb")
    order = notebooks.points(released)
    words = described(released)
    with gradebook.open_gradebook(gradebook.url(course)) as gb:
        try:
            submitted = gb.find_submission_notebook(notebook, release.ASSIGNMENT, student)
        except MissingEntry:
            return None
        scores = {g.name: (g.auto_score if g.manual_score is None else g.manual_score)
                  for g in submitted.grades}
        points = {g.name: float(g.max_score) for g in submitted.grades}
    graded = course / "autograded" / student / release.ASSIGNMENT / f"{notebook}.ipynb"
    cells = {}
    if graded.is_file():
        cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in notebooks.load(graded).cells}
    graders = grader_for(course, notebook)
    secret = course_secret(course) if not graders else next(iter(graders.values())).secret
    checked = independent.cell_states(independent.read_record(course / "checks" / f"{student}.json").values())
    found = []
    for grade_id in [*order, *sorted(set(points) - set(order))]:
        if grade_id not in points:
            continue
        score = scores.get(grade_id)
        cell = cells.get(grade_id)
        verdict = checked.get(grade_id)
        message, held = "", verdict is not None and verdict.state == independent.HELD
        if held:
            message = PENDING
        elif score is None or score < points[grade_id] - 1e-9:
            if verdict is not None and verdict.state in (independent.FAILED, independent.LATE):
                message = sanitise(verdict.message, secret, JUDGED)
            else:
                message = failure_message(cell, graders.get(grade_id, Grader(secret=secret))) if cell is not None else ""
            message = message or ("not run: this notebook was not graded" if cell is None
                                  else "scored less than full points")
        about = words.get(grade_id, Described(grade_id, grade_id.replace("_", " "), ""))
        found.append(Behaviour(grade_id, points[grade_id], None if score is None else float(score),
                               message, about.words, about.section, held, stubbed(message),
                               bool(UNANSWERED.match(message))))
    return found
