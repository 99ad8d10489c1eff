"""The independent check: each graded cell nbgrader passed is confirmed where no student code ran.

Student code runs in the kernel that runs the hidden tests, so it can make them pass without doing
the work (swallow AssertionError, return objects equal to anything, patch the test helpers...).
Here each graded behaviour (behaviour.py, behaviours/lNN.py) is re-run in a fresh sandboxed
process (runner.py, `python -I`) that imports only the hand-in's `nano` and reports PLAIN
observations as JSON; the grader, whose process never ran student code, draws the inputs from a
seed and judges the observations with the same judge the notebook's hidden part ran. A cell is
confirmed when every behaviour naming it is judged right.
"""

import json
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from autograder.authoring import notebooks, release
from autograder.check import behaviour
from autograder.check.behaviour import Behaviour
from autograder.course import lecture_of
from autograder.grading import records
from autograder.grading.records import Job, Problem
from autograder.limits import BEHAVIOUR_TIMEOUT as TIMEOUT, CHECK_BUDGET as BUDGET, CHECK_STARTUP as STARTUP
from autograder.limits import REFERENCE_WAIT
from autograder.sandbox import bwrap



def _confine(argv: list[str], work: Path, tmp: Path, env: Mapping[str, str], unsafe: bool) -> list[str]:
    """The command that runs `argv` in the sandbox (bwrap.py), able to write only `tmp` (which
    holds the workspace copy `work`); unconfined only when grading runs with --unsafe."""
    if unsafe:
        return argv
    return bwrap.wrap(argv, workdir=work, writable=[tmp], env=env)


def _key(grade_id: str, seen: dict[str, int]) -> str:
    """grade_id for a cell's first behaviour, grade_id#2, #3... for its further ones."""
    seen[grade_id] = seen.get(grade_id, 0) + 1
    return grade_id if seen[grade_id] == 1 else f"{grade_id}#{seen[grade_id]}"


def keys(behaviours: Iterable[Behaviour]) -> list[str]:
    seen: dict[str, int] = {}
    return [_key(b.grade_id, seen) for b in behaviours]


RUNNER_FILES = ("runner.py", "kit.py")  # what the behaviours' runner needs beside it


def observe_items(workspace: Path, items: list[dict], answer_sources: Mapping[str, str], *,
                  timeout: int = TIMEOUT, unsafe: bool = False, budget: float = BUDGET) -> dict[str, dict | None]:
    """Run behaviours' observe code (`items`, see `plan`) one after another in runner.py, on a fresh
    copy of `workspace`; key -> observation.

    None means the item did not finish: it ran past its timeout, or its process died or hung, in
    which case the items after it run in a fresh process, or `budget` seconds had passed before it
    began.
    """
    payload = {"timeout": int(timeout), "answers": dict(answer_sources), "items": items}

    def argv(tmp: Path) -> list[str]:
        folder = tmp / "check"
        folder.mkdir(exist_ok=True)
        for name in RUNNER_FILES:
            shutil.copy(Path(__file__).with_name(name), folder / name)
        return [sys.executable, "-I", str(folder / "runner.py")]

    return _observe(workspace, [item["key"] for item in items], payload, argv, timeout, unsafe, budget)


def _observe(workspace: Path, names: list[str], payload: dict, argv: Callable[[Path], list[str]],
             timeout: int, unsafe: bool, budget: float) -> dict[str, dict | None]:
    deadline = time.monotonic() + budget
    results: dict[str, dict | None] = {}
    first = 0
    while first < len(names) and time.monotonic() < deadline:
        with tempfile.TemporaryDirectory(prefix="nano-verify-") as tmp:
            work = Path(tmp) / "work"
            shutil.copytree(workspace, work, symlinks=False)
            done = _run(work, Path(tmp), {**payload, "first": first, "cwd": str(work), "tmp": tmp},
                        argv(Path(tmp)), timeout, unsafe, deadline)
        for index, observed in done.items():
            results[names[index]] = observed
        first = max(done, default=first - 1) + 1
        if first < len(names) and names[first] not in results:
            results[names[first]] = None  # the one its process died or hung in
            first += 1
    return {name: results.get(name) for name in names}


def _run(work: Path, tmp: Path, job: dict, command: list[str], timeout: int, unsafe: bool,
         deadline: float) -> dict[int, dict | None]:
    """One runner process from item job["first"] on: index -> observation, for those it finished."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(NANO_HEADLESS="1", TMPDIR=str(tmp), HOME=str(tmp))
    argv = _confine(command, work, tmp, env, unsafe)
    proc = subprocess.Popen(argv, cwd=work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True, text=True)
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    done: dict[int, dict | None] = {}
    current, wait = None, STARTUP
    try:
        proc.stdin.write(json.dumps(job))
        proc.stdin.close()
        while True:
            try:
                line = lines.get(timeout=max(0.0, min(wait, deadline - time.monotonic())))
            except queue.Empty:
                break  # hung, or out of budget: the scenario in progress is not confirmed
            if line is None:
                break  # the process ended (all done, or died)
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            if "start" in record and record["start"] == (job["first"] if current is None else current + 1):
                current = record["start"]
                items = job.get("items")
                wait = ((items[current].get("timeout") if items else None) or timeout) + 5
            elif "done" in record and record["done"] == current and current not in done:
                obs = record.get("obs")
                done[current] = obs if isinstance(obs, dict) else None
    except OSError:
        pass
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        reader.join(timeout=5)
        if not unsafe:
            bwrap.settle(work, tmp)  # what it left running stops; its folders come back to us
    return done


# ---------------------------------------------------------------------------------------------
# The behaviours of a course, the workspaces they run in, and the judging.

def answer_sources(notebook: Path) -> dict[str, str]:
    """grade_id -> source of each answer cell of a notebook, in notebook order ({} if unreadable)."""
    try:
        cells = notebooks.load(notebook).cells
    except Exception:
        return {}
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
            and c.metadata["nbgrader"].get("grade_id")}


def make_workspace(course: Path, nano_files: Mapping[str, str], dest: Path) -> Path:
    """What the behaviours run in: the course's source files (no notebooks) with `nano_files`
    ({"nano/tools.py": text}) over them."""
    source = course / "source" / release.ASSIGNMENT
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("*.ipynb", "__pycache__",
                                                                  ".ipynb_checkpoints"))
    for name, text in nano_files.items():
        if name in release.STUDENT_FILES:
            (dest / name).write_text(text, encoding="utf-8")
    return dest


def lecture_notebooks(course: Path) -> dict[str, str]:
    """Lecture number -> notebook file name, from the course's release."""
    return {p.name[:2]: p.name for p in sorted((course / "release" / release.ASSIGNMENT).glob("*.ipynb"))}


def course_behaviours(course: Path, only: Iterable[str] | None = None) -> dict[str, list[Behaviour]]:
    """Lecture number -> the behaviours of the graded cells its released notebook has (of those
    `only` names, if given), for the lectures whose behaviours are defined (behaviours/lNN.py)."""
    found = {}
    wanted = None if only is None else set(only)
    for number, name in lecture_notebooks(course).items():
        cells = notebooks.points(notebooks.load(course / "release" / release.ASSIGNMENT / name))
        chosen = [b for b in behaviour.lecture(number) or [] if b.grade_id in cells
                  and (wanted is None or b.grade_id in wanted)]
        if chosen:
            found[number] = chosen
    return found


def plan(behaviours: list[Behaviour], seed: int) -> list[dict]:
    """What runner.py runs for `behaviours`: each one's observe code and its inputs, drawn here,
    in the grader, from the seed and the behaviour's key alone (the same for every hand-in)."""
    items = []
    for b, key in zip(behaviours, keys(behaviours)):
        items.append({"key": key, "code": behaviour.observe_code(b), "inputs": b.inputs(behaviour.rng_for(seed, key)),
                      "answers": list(b.answers), "timeout": b.timeout})
    return items


def unchecked(course: Path) -> list[str]:
    """The graded cells of the course that no behaviour confirms (none in the real course: a test
    sees to it); nbgrader's result stands there."""
    covered = {b.grade_id for lecture in course_behaviours(course).values() for b in lecture}
    return [grade_id for name in lecture_notebooks(course).values()
            for grade_id in notebooks.points(notebooks.load(course / "release" / release.ASSIGNMENT / name))
            if grade_id not in covered]


def observe_course(course: Path, nano_files: Mapping[str, str], answers: Mapping[str, str],
                   seed: int, *, timeout: int = TIMEOUT, unsafe: bool = False,
                   cells: Iterable[str] | None = None) -> dict[str, dict[str, dict | None]]:
    """Lecture number -> observations of its behaviours, for one submission (or the reference).

    All lectures' behaviours run in one process, one after another: a process costs a Python
    start and, for lectures 01, 05 and 06, a second of importing the SDK; while its behaviours
    wait (sleeping commands, timeouts), other students' grading has the CPU.
    """
    behaviours = course_behaviours(course, cells)
    if not behaviours:
        return {}
    with tempfile.TemporaryDirectory(prefix="nano-verify-ws-") as tmp:
        workspace = make_workspace(course, nano_files, Path(tmp) / "workspace")
        found = observe_items(workspace, plan([b for n in behaviours for b in behaviours[n]], seed),
                              answers, timeout=timeout, unsafe=unsafe)
    # grade_ids start with their lecture ("l03_..."), so the keys are those of each lecture alone
    return {number: {name: found[name] for name in keys(lecture)} for number, lecture in behaviours.items()}


def reference(course: Path, seed: int | None = None, *, timeout: int = TIMEOUT,
              unsafe: bool = False) -> dict:
    """The reference solution's observations for a grading run: {"seed", "observations"}.

    The reference nano/*.py come from the repository (never from the course) and the answers
    from the course's source notebooks. Plain data: it travels to the workers as JSON.
    """
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    files = {name: (release.ROOT / name).read_text(encoding="utf-8") for name in release.STUDENT_FILES}
    answers: dict[str, str] = {}
    for name in lecture_notebooks(course).values():
        answers.update(answer_sources(course / "source" / release.ASSIGNMENT / name))
    observations = observe_course(course, files, answers, seed, timeout=timeout, unsafe=unsafe)
    for number, lecture in course_behaviours(course).items():
        for key, verdict in judge_behaviours(lecture, seed, observations.get(number, {})).items():
            if verdict is not True:
                raise behaviour.GraderError(
                    f"the reference solution fails the graded behaviour {key} of lecture {number} "
                    f"({verdict}): fix autograder/check/behaviours/l{number}.py before grading")
    return {"seed": seed, "observations": observations}


def student_files(workspace: Path) -> tuple[dict[str, str], dict[str, str]]:
    """(nano files, answer cell sources) of a submission folder, read before any of it runs."""
    files = {}
    for name in release.STUDENT_FILES:
        try:
            files[name] = (workspace / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            pass
    answers: dict[str, str] = {}
    for notebook in sorted(workspace.glob("[0-9][0-9]-*.ipynb")):
        answers.update(answer_sources(notebook))
    return files, answers


def judge_behaviours(behaviours: list[Behaviour], seed: int,
                     got: Mapping[str, dict | None]) -> dict[str, bool | str]:
    """key -> True (right), False (wrong, or it did not finish) or, when the judge itself raised,
    a sentence saying so: that is the grader's error, never the student's."""
    verdicts: dict[str, bool | str] = {}
    for b, key in zip(behaviours, keys(behaviours)):
        seen = got.get(key)
        if seen is None:
            verdicts[key] = False
            continue
        try:
            verdicts[key] = not b.failures(b.inputs(behaviour.rng_for(seed, key)), seen)
        except Exception as exc:
            verdicts[key] = f"its judge raised {type(exc).__name__}: {exc}"
    return verdicts


def confirm(course: Path, nano_files: Mapping[str, str], answers: Mapping[str, str],
            ref: dict, *, timeout: int = TIMEOUT, unsafe: bool = False,
            grader_errors: dict[str, str] | None = None, cells: Iterable[str] | None = None) -> dict[str, bool]:
    """grade_id -> confirmed, for every cell that has behaviours, for one submission's files, with
    the seed of `ref` (from `reference`, same course).

    A cell whose judge raised is left out (nbgrader's result stands there) and named, with what
    happened, in `grader_errors` if given. With `cells`, only those cells' behaviours run.
    """
    cells = None if cells is None else set(cells)
    got = observe_course(course, nano_files, answers, ref["seed"], timeout=timeout, unsafe=unsafe, cells=cells)
    confirmed: dict[str, bool] = {}
    errors: dict[str, str] = {}
    for number, lecture in course_behaviours(course, cells).items():
        for key, verdict in judge_behaviours(lecture, ref["seed"], got.get(number, {})).items():
            grade_id = key.split("#")[0]
            if isinstance(verdict, str):
                errors[grade_id] = f"{key}: {verdict}"
            else:
                confirmed[grade_id] = confirmed.get(grade_id, True) and verdict
    for grade_id in errors:
        confirmed.pop(grade_id, None)
    if grader_errors is not None:
        grader_errors.update(errors)
    return confirmed


# ---------------------------------------------------------------------------------------------
# Into the grades: a pass nbgrader gave but the check did not confirm scores 0, and says so.


UNCONFIRMED = "nbgrader's pass was not confirmed by the independent check (scores 0)"
SKIPPED = "not confirmed by the independent check: grading ran with --no-verify"
FEEDBACK = ("its test passed in your notebook, but the same behaviour, re-run on its own by the "
            "independent check, did not give the right result: scores 0")


def problem_lines(unconfirmed: Mapping[str, list[str]]) -> list[Problem]:
    """One problem per lecture number naming its unconfirmed cells."""
    return [records.problem(f"{', '.join(ids)}: {UNCONFIRMED}", records.UNCONFIRMED, number, ids)
            for number, ids in sorted(unconfirmed.items()) if ids]


def unconfirmed_in(problems: Iterable[Problem]) -> set[str]:
    """The grade_ids whose pass the check did not confirm, among a student's problems."""
    return {grade_id for p in problems if p.kind == records.UNCONFIRMED for grade_id in p.grade_ids}


def passed_cells(gradebook: Path, student: str) -> set[str]:
    """The graded cells nbgrader gave points: the only ones the check needs to confirm (a cell
    that scored 0 stays 0), so a hand-in that fails or times out much is checked in seconds."""
    from nbgrader.api import Gradebook, MissingEntry

    from autograder.grading.gradebook import sqlite_url

    with Gradebook(sqlite_url(gradebook), "nano") as gb:
        try:
            submission = gb.find_submission(release.ASSIGNMENT, student)
        except MissingEntry:
            return set()
        return {grade.name for nb in submission.notebooks for grade in nb.grades if grade.auto_score}


def zero_unconfirmed(gradebook: Path, student: str, confirmed: Mapping[str, bool]) -> list[Problem]:
    """In `gradebook` (sqlite file), set to 0 each test cell nbgrader passed that `confirmed`
    refuses (a cell it does not name has no scenario: see `unchecked`); return the problems."""
    from nbgrader.api import Gradebook, MissingEntry

    from autograder.grading.gradebook import sqlite_url

    unconfirmed: dict[str, list[str]] = {}
    with Gradebook(sqlite_url(gradebook), "nano") as gb:
        try:
            submission = gb.find_submission(release.ASSIGNMENT, student)
        except MissingEntry:
            return []
        for nb in submission.notebooks:
            for grade in nb.grades:
                if not grade.auto_score:
                    continue
                if confirmed.get(grade.name, True) is False:
                    grade.auto_score = 0.0
                    unconfirmed.setdefault(lecture_of(nb.name), []).append(grade.name)
        gb.db.commit()
    return problem_lines(unconfirmed)




def wait_for_reference(path: Path, limit: float = REFERENCE_WAIT) -> dict:
    """The reference's observations, from the file the grading process writes once it has run
    the reference (while the workers grade their first students); an error if it could not."""
    deadline = time.monotonic() + limit
    while not path.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the reference's observations did not appear in {path} in {limit} s")
        time.sleep(0.2)
    data = json.loads(path.read_text(encoding="utf-8"))
    if "error" in data:
        raise RuntimeError(data["error"])
    return data


def check_submission(job: Job, files: Mapping[str, str], answers: Mapping[str, str],
                     gradebook: Path, student: str) -> list[Problem]:
    """The check for one graded student in a worker: confirm against the reference (job.verify
    names its file), zero what is not confirmed; the problems."""
    errors: dict[str, str] = {}
    cells = passed_cells(gradebook, student)
    confirmed = confirm(job.course, files, answers, wait_for_reference(job.verify),
                        unsafe=job.unsafe, grader_errors=errors, cells=cells)
    lectures = {b.grade_id: number for number, found in course_behaviours(job.course, cells).items() for b in found}
    return zero_unconfirmed(gradebook, student, confirmed) + grader_problems(errors, lectures)


GRADER_ERROR = ("the grader failed while checking this cell, which is not your doing: nbgrader's "
                "result stands, and your instructor has been told")


def grader_problems(errors: Mapping[str, str], lectures: Mapping[str, str]) -> list[Problem]:
    """One problem per cell whose judge raised (grade_id -> what it raised; `lectures`: grade_id
    -> its lecture number): the student reads that it is not theirs, the instructor reads what
    happened (its detail: problems.csv, and the lines `grade` ends with)."""
    return [records.problem(f"{grade_id}: {GRADER_ERROR}", records.GRADER, lectures.get(grade_id), (grade_id,), said)
            for grade_id, said in sorted(errors.items())]


# ---------------------------------------------------------------------------------------------
# For course authors: `python -m autograder.check.independent NN [--unsafe]`.

def try_lecture(number: str, *, unsafe: bool = False, built: Path | None = None, echo=print) -> bool:
    """Build the course, then run lecture `number`'s behaviours on the reference, on each of its
    mutants (each must be refused somewhere in the lecture) and on each of its alternatives (each
    must be confirmed everywhere); print what each judge said. True if all is as it should be."""
    from autograder.authoring import alternatives, mutants

    seed = random.SystemRandom().randrange(2**31)
    with tempfile.TemporaryDirectory(prefix="nano-try-") as tmp:
        course = built or Path(tmp) / "course"
        if built is None:
            release.build_course(course)
        lecture = course_behaviours(course).get(number)
        if not lecture:
            echo(f"lecture {number} has no behaviours in this course")
            return False
        solved = release.solve_workspace(release.make_workspace(
            course / "release" / release.ASSIGNMENT, Path(tmp) / "solved"))

        def verdicts(edit=None) -> dict[str, bool | str]:
            work = Path(tmp) / "work"
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(solved, work)
            if edit is not None:
                mutants.apply(work, edit)
            files, answers = student_files(work)
            with tempfile.TemporaryDirectory(prefix="nano-try-ws-") as inner:
                ws = make_workspace(course, files, Path(inner) / "ws")
                got = observe_items(ws, plan(lecture, seed), answers, unsafe=unsafe)
            return judge_behaviours(lecture, seed, got)

        good = True
        reference_verdicts = verdicts()
        for key, verdict in reference_verdicts.items():
            good &= verdict is True
            echo(f"  reference  {key:50} {'ok' if verdict is True else 'FAILS: ' + str(verdict)}")
        for kind, catalogue, want_refused in (("mutant", mutants.MUTANTS + mutants.MORE_MUTANTS, True),
                                              ("alternative", getattr(alternatives, "ALTERNATIVES", []), False)):
            for edit in [e for e in catalogue if e.lecture == number]:
                refused = [k for k, v in verdicts(edit).items() if v is not True]
                right = bool(refused) == want_refused or getattr(edit, "contested", False)
                good &= right
                echo(f"  {kind:11} {edit.name:50} {'refused by ' + ', '.join(refused) if refused else 'confirmed everywhere'}"
                     f"{'' if right else '   <-- WRONG'}")
    echo(f"lecture {number}: {'as it should be' if good else 'problems above'}")
    return good


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=try_lecture.__doc__)
    parser.add_argument("number")
    parser.add_argument("--unsafe", action="store_true", help="run without the sandbox")
    parser.add_argument("--course", type=Path, help="a course built from the current lectures (saves a minute)")
    options = parser.parse_args()
    sys.exit(0 if try_lecture(options.number, unsafe=options.unsafe, built=options.course) else 1)
