"""The independent check: every graded behaviour of a hand-in, driven and judged where no student
code runs. It is what a graded cell's hidden tests are.

nbgrader runs a notebook's cells in a kernel that the student's code shares, so whatever is
observed there can be rewritten by it. Here the kernel runs only a cell's visible part, and the
cell's grade is nbgrader's result AND this check's verdict on the cell's behaviours
(behaviour.py, behaviours/lNN.py): each behaviour's inputs are drawn here, from the course's
grading seed, the student and the behaviour; its drive runs the hand-in's functions in a subject
process, sandboxed (driver.py), through one bounded channel; its judge reads what was seen, here.

A behaviour's verdict (`Verdict`) is one of:
- PASSED, FAILED (the judge's message, which the student reads; or, when a value the hand-in
  gave crossed past the wire's bounds, "too deep to judge" or "too large to judge", whatever the
  judge would say), LATE (it did not finish in its time: the student's process hung, died or
  flooded its channel; it scores 0);
- HELD: the grader's own error (its judge or drive raised, or the reference did not finish it in
  time). That cell awards nothing and is marked for the instructor, until a re-grade settles it.

The reference solution runs first (`reference`): a behaviour it fails stops grading before any
grade is recorded. Every run is recorded (inputs, what was seen, the verdict) in
COURSE/checks/<student>.json, and `nano-course replay` runs one again.
"""

import json
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from autograder import notebook, records
from autograder.check import behaviour
from autograder.check.behaviour import Behaviour, GraderError
from autograder.check.driver import Bounds, Lost, Subject
from checks.subject import wire
from autograder.course import ASSIGNMENT, ROOT, STUDENT_FILES, lecture_of
from autograder.records import Job, Problem
from autograder.limits import BEHAVIOUR_TIMEOUT as TIMEOUT, CHECK_BUDGET as BUDGET, CHECK_STARTUP as STARTUP
from autograder.limits import REFERENCE_WAIT

PASSED, FAILED, LATE, HELD = "passed", "failed", "late", "held"
REFERENCE = "reference"  # the student id the reference's draws are made for
RECORD_LIMIT = 100_000  # characters of one behaviour's inputs, or of what was seen, kept in a record
RECORD_TOTAL = 2_000_000  # characters of what was seen kept for one hand-in, all its behaviours together
MESSAGE_LIMIT = 4_000  # characters of a judge's message kept (a page shows fewer)
# A hand-in's own modules besides the six (nano/listing.py, say): as many, as large, as the check copies.
OWN_MODULES, OWN_MODULE_SIZE = 16, 1_000_000
OWN_MODULE = re.compile(r"nano/[A-Za-z_][A-Za-z0-9_]{0,63}\.py")


@dataclass(frozen=True)
class Verdict:
    """What the check found of one behaviour of one hand-in."""

    key: str  # the behaviour: its grade_id, or grade_id#2 for the cell's second
    state: str  # PASSED, FAILED, LATE or HELD
    message: str = ""  # what went wrong, in the student's words (FAILED, LATE)
    detail: str = ""  # for the instructor: what a grader error raised (HELD)
    seconds: float = 0.0

    @property
    def grade_id(self) -> str:
        return self.key.split("#")[0]

    def plain(self) -> dict:
        return asdict(self)

    @classmethod
    def from_plain(cls, data: dict) -> "Verdict":
        return cls(str(data["key"]), str(data["state"]), str(data.get("message") or ""),
                   str(data.get("detail") or ""), float(data.get("seconds") or 0.0))


@dataclass(frozen=True)
class Run:
    """One behaviour as the check ran it: what went in, what was seen, the verdict."""

    inputs: dict
    seen: dict | None
    verdict: Verdict


def did_not_finish(seconds: float, why: str) -> str:
    return (f"it did not finish: {why} (the check gives a behaviour {seconds:g} s, and its process "
            "its own bounded channel)")


def keyed(behaviours: list[Behaviour]) -> list[tuple[str, Behaviour]]:
    """Each behaviour with its key (behaviour.keys), for `run`."""
    return list(zip(behaviour.keys(behaviours), behaviours))


def run(workspace: Path, items: list[tuple[str, Behaviour]], seed: str, student: str, *,
        answers: Mapping[str, str] | None = None, hand_in: str = "", unsafe: bool = False,
        nice: int | None = None, timeout: int = TIMEOUT, budget: float = BUDGET,
        bounds: Bounds = Bounds(), noted: list[str] | None = None) -> list[Run]:
    """Drive and judge the behaviours `items` ((key, behaviour) pairs) on the hand-in in
    `workspace` (its nano/*.py; `answers`: its answer cells), one after another in one subject
    process, a fresh one after any is lost. The inputs come from `seed`, `student`, the hand-in's
    digest `hand_in` (behaviour.digest) and each behaviour's key. A behaviour not begun before
    `budget` seconds have passed is LATE. Which bound of trees.py a tree the subject left passed
    (removed at its close) is added to `noted`. What was seen is kept as the record keeps it
    (`kept`), once judged: at most RECORD_LIMIT characters a behaviour, RECORD_TOTAL in all."""
    runs = []
    room = RECORD_TOTAL
    deadline = time.monotonic() + budget
    subject = Subject(workspace, answers, unsafe=unsafe, bounds=bounds, nice=nice, startup=STARTUP)
    try:
        for key, b in items:
            inputs = b.inputs(behaviour.rng_for(seed, student, key, hand_in))
            seconds = b.timeout or timeout
            if time.monotonic() > deadline:
                runs.append(Run(inputs, None, Verdict(key, LATE, did_not_finish(seconds, "the check's time for the "
                                                                                         "whole hand-in had run out"))))
                continue
            done = one(subject, b, key, inputs, seconds)
            seen, size = kept(done.seen, min(room, RECORD_LIMIT))
            room -= size
            runs.append(replace(done, seen=seen))
    finally:
        subject.close()
        if subject.passed and noted is not None:
            noted.append(subject.passed)
    return runs


def one(subject: Subject, b: Behaviour, key: str, inputs: dict, seconds: float) -> Run:
    """Drive and judge one behaviour in `subject`, within `seconds`; a timed behaviour that
    fails is driven once more, and the second run decides."""
    first = _once(subject, b, key, inputs, seconds)
    if b.timed and first.verdict.state == FAILED:
        return _once(subject, b, key, inputs, seconds)
    return first


def _once(subject: Subject, b: Behaviour, key: str, inputs: dict, seconds: float) -> Run:
    started = time.monotonic()
    seen, ended = None, None
    try:
        with subject.item(seconds, b.answers):
            seen = b.drive(subject, inputs)
    except Lost as exc:
        ended = Verdict(key, LATE, did_not_finish(seconds, str(exc)))
    except Exception:
        ended = Verdict(key, HELD, detail=f"its drive raised: {_last_line()}")
    took = time.monotonic() - started
    if subject.unjudged is not None:  # the hand-in's own outcome, whatever came after it
        return Run(inputs, seen, Verdict(key, FAILED, message=unjudged(subject.unjudged), seconds=took))
    if ended is not None:
        return Run(inputs, None, replace(ended, seconds=took))
    try:
        message = b.failure(inputs, seen)
    except Exception:
        return Run(inputs, seen, Verdict(key, HELD, detail=f"its judge raised: {_last_line()}", seconds=took))
    if message is None:
        return Run(inputs, seen, Verdict(key, PASSED, seconds=took))
    return Run(inputs, seen, Verdict(key, FAILED, message=str(message)[:MESSAGE_LIMIT], seconds=took))


def unjudged(why: str) -> str:
    """A behaviour's failure, in words, when a value of the hand-in went past the wire's bounds
    (`why`: wire.past_bounds)."""
    if why == wire.TOO_DEEP:
        what = f"a value nested more than {wire.DEPTH} levels deep, too deep to judge"
    else:
        what = f"a value too large to judge ({why.removeprefix(wire.TOO_LARGE)})"
    return f"your code returned or passed on {what}: the check counts it as wrong"


def _last_line() -> str:
    """The exception being handled, in one line, with where it was raised."""
    kind, exc, tb = sys.exc_info()
    where = traceback.extract_tb(tb)[-1] if tb else None
    place = f" ({Path(where.filename).name}, line {where.lineno})" if where else ""
    return f"{kind.__name__}: {str(exc)[:300]}{place}"


def cell_states(verdicts: Iterable[Verdict]) -> dict[str, Verdict]:
    """grade_id -> the verdict that decides the cell: its first FAILED or LATE behaviour (the
    student's own failure is certain), else its first HELD one, else its first."""
    rank = {FAILED: 0, LATE: 0, HELD: 1, PASSED: 2}
    cells: dict[str, Verdict] = {}
    for v in verdicts:
        if v.grade_id not in cells or rank[v.state] < rank[cells[v.grade_id].state]:
            cells[v.grade_id] = v
    return cells


# ---------------------------------------------------------------------------------------------
# The behaviours of a course, the workspaces they run in

def answer_sources(path: Path) -> dict[str, str]:
    """grade_id -> source of each answer cell of a notebook, in notebook order ({} if unreadable)."""
    try:
        cells = notebook.load(path).cells
    except Exception:
        return {}
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
            and c.metadata["nbgrader"].get("grade_id")}


def make_workspace(course: Path, nano_files: Mapping[str, str], dest: Path) -> Path:
    """What the behaviours run in: the course's source files (no notebooks) with `nano_files`
    ({"nano/tools.py": text}) over them."""
    source = course / "source" / ASSIGNMENT
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("*.ipynb", "__pycache__", ".ipynb_checkpoints"))
    for name, text in nano_files.items():
        # the six, and modules of the hand-in's own; a given module stays the course's
        if name in STUDENT_FILES or OWN_MODULE.fullmatch(name) and not (dest / name).exists():
            (dest / name).write_text(text, encoding="utf-8")
    return dest


def lecture_notebooks(course: Path) -> dict[str, str]:
    """Lecture number -> notebook file name, from the course's release."""
    return {p.name[:2]: p.name for p in sorted((course / "release" / ASSIGNMENT).glob("*.ipynb"))}


def course_behaviours(course: Path, only: Iterable[str] | None = None) -> list[Behaviour]:
    """The behaviours of the graded cells the course's released notebooks have (of those `only`
    names, if given), in lecture and cell order."""
    wanted = None if only is None else set(only)
    found = []
    for number, name in lecture_notebooks(course).items():
        cells = notebook.points(notebook.load(course / "release" / ASSIGNMENT / name))
        found += [b for b in behaviour.lecture(number) or [] if b.grade_id in cells
                  and (wanted is None or b.grade_id in wanted)]
    return found


def cell_lectures(course: Path) -> dict[str, str]:
    """grade_id -> the lecture number of the released notebook that holds it."""
    return {grade_id: number for number, name in lecture_notebooks(course).items()
            for grade_id in notebook.points(notebook.load(course / "release" / ASSIGNMENT / name))}


def unchecked(course: Path) -> list[str]:
    """The graded cells of the course that no behaviour judges (none in the real course: a test
    sees to it); nbgrader's result on the visible part stands there."""
    covered = {b.grade_id for b in course_behaviours(course)}
    return [grade_id for name in lecture_notebooks(course).values()
            for grade_id in notebook.points(notebook.load(course / "release" / ASSIGNMENT / name))
            if grade_id not in covered]


def student_files(workspace: Path) -> tuple[dict[str, str], dict[str, str]]:
    """(nano files, answer cell sources) of a submission folder, read before any of it runs: the
    six, and up to OWN_MODULES modules of the hand-in's own in nano/ (plain files, each up to
    OWN_MODULE_SIZE bytes), which a solution may import; make_workspace keeps the given ones."""
    files = {}
    for name in STUDENT_FILES:
        try:
            files[name] = (workspace / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            pass
    try:
        own = sorted(entry.name for entry in os.scandir(workspace / "nano")
                     if entry.is_file(follow_symlinks=False) and OWN_MODULE.fullmatch(f"nano/{entry.name}")
                     and f"nano/{entry.name}" not in STUDENT_FILES)
    except OSError:
        own = []
    for name in own[:OWN_MODULES]:
        try:
            with open(workspace / "nano" / name, "rb") as module:
                data = module.read(OWN_MODULE_SIZE + 1)
            if len(data) <= OWN_MODULE_SIZE:
                files[f"nano/{name}"] = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            pass
    answers: dict[str, str] = {}
    for path in sorted(workspace.glob("[0-9][0-9]-*.ipynb")):
        answers.update(answer_sources(path))
    return files, answers


def check_files(course: Path, files: Mapping[str, str], answers: Mapping[str, str], seed: str, student: str,
                items: list[tuple[str, Behaviour]], **options) -> list[Run]:
    """`run` on a workspace made of the course and a hand-in's files, drawing the inputs that
    follow those files (behaviour.digest)."""
    if not items:
        return []
    with tempfile.TemporaryDirectory(prefix="nano-check-ws-") as tmp:
        workspace = make_workspace(course, files, Path(tmp) / "workspace")
        return run(workspace, items, seed, student, answers=answers, hand_in=behaviour.digest(files, answers),
                   **options)


# ---------------------------------------------------------------------------------------------
# The reference, before any student

def reference_files(course: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The reference solution's nano/*.py (from the repository, never the course: the course
    folder holds only stubs) and the answers of the course's source notebooks."""
    files = {name: (ROOT / name).read_text(encoding="utf-8") for name in STUDENT_FILES}
    answers: dict[str, str] = {}
    for name in lecture_notebooks(course).values():
        answers.update(answer_sources(course / "source" / ASSIGNMENT / name))
    return files, answers


def reference(course: Path, seed: str, *, unsafe: bool = False, timeout: int = TIMEOUT, echo=None) -> dict:
    """Run every behaviour on the reference solution, at the grader's CPU priority: {"seed",
    "late": [keys]}. A behaviour the reference fails or does not finish is run again in a fresh
    process. One it fails twice, or whose judge raises on it, is a GraderError; one that is late
    again is listed in "late" (its cells are held for every student: the grader could not confirm it
    works), and `echo` is told in one sentence."""
    items = keyed(course_behaviours(course))
    lectures = cell_lectures(course)
    files, answers = reference_files(course)
    runs = dict(zip((k for k, _ in items), check_files(course, files, answers, seed, REFERENCE, items, unsafe=unsafe,
                                                      nice=0, timeout=timeout)))
    again = [(k, b) for k, b in items if runs[k].verdict.state in (LATE, FAILED)]
    if again:  # once more, in a fresh process: a machine that stalled the first time may not again
        runs.update(zip((k for k, _ in again), check_files(course, files, answers, seed, REFERENCE, again,
                                                           unsafe=unsafe, nice=0, timeout=timeout)))
    for key, b in items:
        r = runs[key]
        if r.verdict.state in (FAILED, HELD):
            said = r.verdict.message or r.verdict.detail
            number = lectures.get(b.grade_id, "?")
            raise GraderError(f"the reference solution fails the graded behaviour {key} of lecture {number} "
                              f"({said}): fix autograder/check/behaviours/l{number}.py before grading")
    still = [k for k, _ in items if runs[k].verdict.state == LATE]
    if still and echo is not None:
        echo(f"warning: the reference solution did not finish {', '.join(still)} twice (is the machine "
             "overloaded?): those cells are held for every student, scoring nothing until a re-grade")
    return {"seed": seed, "late": still}


# ---------------------------------------------------------------------------------------------
# One student, in a grading process

def wait_for_reference(path: Path, limit: float = REFERENCE_WAIT) -> dict:
    """The reference's result, from the file the coordinator writes once it has run the
    reference (while the workers grade their first notebooks); an error if it could not."""
    deadline = time.monotonic() + limit
    while not path.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the reference's result did not appear in {path} in {limit} s")
        time.sleep(0.2)
    data = json.loads(path.read_text(encoding="utf-8"))
    if "error" in data:
        raise RuntimeError(data["error"])
    return data


def held_problems(held: Iterable[tuple[str, str]], cells: Mapping[str, Verdict]) -> list[Problem]:
    """One problem per held cell, given as (notebook, grade_id): the grader's, in words for the
    student, with what the grader raised for the instructor."""
    return [records.problem(f"{grade_id}: {HELD_WORDS}", records.GRADER, lecture_of(notebook), (grade_id,),
                            cells[grade_id].detail) for notebook, grade_id in held]


HELD_WORDS = ("the grader failed while checking this cell, which is not your doing: its points are "
              "pending until your instructor has fixed it and graded again")


def check_submission(job: Job, files: Mapping[str, str], answers: Mapping[str, str], passed: set[str],
                     student: str, noted: list[str] | None = None) -> dict[str, Verdict]:
    """The check of one graded student, in a grading process: judge the cells nbgrader `passed`,
    write the record in the private course (check.json); grade_id -> the verdict that decides
    the cell (`cell_states`), which the grading process applies to its gradebook."""
    ref = wait_for_reference(job.verify)
    items = keyed(course_behaviours(job.course, passed))
    runs = check_files(job.course, files, answers, ref["seed"], student, items, unsafe=job.unsafe, noted=noted)
    late = set(ref.get("late") or ())
    verdicts = [Verdict(r.verdict.key, HELD, detail="the reference solution did not finish it in time either: the "
                        "grader could not confirm this behaviour works") if r.verdict.key in late else r.verdict
                for r in runs]
    write_record(job.private / RECORD, ref["seed"], student, [Run(r.inputs, r.seen, v) for r, v in zip(runs, verdicts)],
                 behaviour.digest(files, answers))
    return cell_states(verdicts)


RECORD = "check.json"  # in a private course; COURSE/checks/<student>.json once merged


def kept(value, room: int = RECORD_LIMIT) -> tuple[object, int]:
    """(`value`, the characters of its JSON) if they are at most `room`, else (what says it was
    not kept, 0): what a record keeps of a behaviour's inputs or of what was seen."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return (value, len(text)) if len(text) <= room else ({"__large__": f"{len(text)} characters, not kept"}, 0)


def write_record(path: Path, seed: str, student: str, runs: list[Run], hand_in: str) -> None:
    """What the check did to one hand-in, for the instructor, the feedback and `replay`: with the
    inputs, the digest of the hand-in they were drawn for (`hand_in`)."""
    data = {"seed": seed, "student": student, "digest": hand_in,
            "behaviours": [{**r.verdict.plain(), "inputs": kept(r.inputs)[0], "seen": kept(r.seen)[0]} for r in runs]}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def read_record(path: Path) -> dict[str, Verdict]:
    """key -> Verdict, from a record (empty if there is none, or it is not one)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {item["key"]: Verdict.from_plain(item) for item in data["behaviours"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def grader_problems(verdicts: Mapping[str, Verdict], lectures: Mapping[str, str]) -> list[Problem]:
    """One problem per held cell (grade_id -> its verdict; `lectures`: grade_id -> lecture)."""
    return [records.problem(f"{grade_id}: {HELD_WORDS}", records.GRADER, lectures.get(grade_id), (grade_id,), v.detail)
            for grade_id, v in sorted(verdicts.items()) if v.state == HELD]


# ---------------------------------------------------------------------------------------------
# For instructors: one student's behaviours again, with the inputs they were graded on.

def replay(course: Path, student: str, wanted: Iterable[str] = (), *, unsafe: bool = False, echo=print) -> bool:
    """Run again, on `student`'s graded hand-in (COURSE/autograded/STUDENT, else submitted/), the
    behaviours `wanted` (grade_ids or keys; by default those that did not pass when graded, as
    COURSE/checks/STUDENT.json says), with the inputs grading drew for them (the course's seed);
    print each one's inputs, what was seen and the verdict. True if every one passed."""
    from autograder.course import Course

    facts = Course.at(course)
    folder = next((f for f in (course / "autograded" / student / facts.assignment,
                               course / "submitted" / student / facts.assignment) if f.is_dir()), None)
    if folder is None:
        raise ValueError(f"no hand-in of {student!r} in {course}/autograded or {course}/submitted: "
                         "grade it first")
    recorded = read_record(course / "checks" / f"{student}.json")
    wanted = set(wanted) or {key for key, v in recorded.items() if v.state != PASSED}
    if not wanted:
        echo(f"every behaviour {student} was checked on passed; name one to run it again "
             "(nano-course replay STUDENT GRADE_ID)")
        return True
    items = [(k, b) for k, b in keyed(course_behaviours(course)) if k in wanted or b.grade_id in wanted]
    unknown = wanted - {k for k, _ in items} - {b.grade_id for _, b in items}
    if unknown:
        raise ValueError(f"no graded behaviour is called {', '.join(sorted(unknown))}")
    files, answers = student_files(folder)
    runs = check_files(course, files, answers, facts.seed, student, items, unsafe=unsafe)
    for (key, _), r in zip(items, runs):
        was = recorded.get(key)
        echo(f"{key}: {r.verdict.state}" + (f" (graded: {was.state})" if was and was.state != r.verdict.state else ""))
        echo(f"  inputs: {json.dumps(r.inputs, ensure_ascii=False)}")
        echo(f"  seen:   {json.dumps(r.seen, ensure_ascii=False)}")
        if r.verdict.message or r.verdict.detail:
            echo(f"  {'judge' if r.verdict.message else 'grader'}:  {r.verdict.message or r.verdict.detail}")
    return all(r.verdict.state == PASSED for r in runs)
