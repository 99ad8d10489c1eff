"""Grading one student with real nbgrader, in a worker process that student code cannot hurt.

`run` feeds jobs (one student each, already staged in a private copy of the course) to
`python -m autograder.grading.autograde` processes, `workers` at a time. A worker autogrades its student
with nbgrader's Autograde (all notebooks in one run; one run per notebook only if that fails),
whose Execute is replaced by kernels.GuardedExecute:
a cell that kills the kernel or ignores the interrupt scores 0, and the kernel is restarted with
the cells before it run again, so that the cells after it are graded on their own. Each kernel
runs in the sandbox (bwrap.py), forked from a zygote of the student's (kernels.py). Student code
that kills its worker costs only that student's job. Jobs and outcomes cross the pipe as JSON (records.py).
"""

import contextlib
import os
import queue
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING
from pathlib import Path

from autograder import limits, trees
from autograder.authoring import notebooks, release
from autograder.check import independent
from autograder.course import Course, lecture_of
from autograder import gradebook, records
from autograder.records import Job, Outcome, Problem, problem
from autograder.limits import JOB_LIMIT, NOTEBOOK_LIMIT
from autograder.sandbox import bwrap, space

if TYPE_CHECKING:
    from autograder.grading.kernels import KernelSettings



def run(jobs: Iterable[tuple[str, Job]], workers: int, logs: Path):
    """Yield (student, outcome) as each job finishes, `workers` at a time.

    `jobs` may be a generator: it is drained by a thread of its own, so that the first students
    are graded while the later ones are still being staged. Each worker is a `python -m
    autograder.grading.autograde` process that grades one job after another, so student code (whose kernel
    is the worker's child) can kill only a worker: its job is tried once more on a fresh one,
    then reported. A job that runs past JOB_LIMIT is stopped the same way.
    """
    todo: queue.Queue = queue.Queue()
    done: queue.Queue = queue.Queue()
    fed: list = []  # [number of jobs] or [the exception that stopped the feeding]
    logs.mkdir(parents=True, exist_ok=True)

    def feed() -> None:
        count = 0
        try:
            for item in jobs:
                todo.put(item)
                count += 1
            fed.append(count)
        except BaseException as exc:
            fed.append(exc)
        finally:
            for _ in range(workers):
                todo.put(None)
            done.put(None)

    stopped = threading.Event()  # the caller stopped reading: start no further job

    def serve() -> None:
        process = None
        try:
            while not stopped.is_set() and (item := todo.get()) is not None:
                student, job = item
                outcome = None
                for _attempt in range(2):
                    try:
                        process = process or Worker(logs / "workers.txt")
                        outcome = process.run(job, JOB_LIMIT)
                    except OSError:  # no process could be started (out of memory, say)
                        outcome = None
                    if outcome is not None:
                        break
                    process = None  # it died or was stopped: a fresh one for the next try
                done.put((student, outcome or gave_up(job)))
        finally:
            if process is not None:
                process.close()

    workers = max(1, workers)
    threads = [threading.Thread(target=feed, daemon=True)]
    threads += [threading.Thread(target=serve, daemon=True) for _ in range(workers)]
    for thread in threads:
        thread.start()
    finished, total = 0, None
    try:
        while total is None or finished < total:
            item = done.get()
            if item is None:  # the feeding has ended: now we know how many jobs there are
                if isinstance(fed[0], BaseException):
                    raise fed[0]
                total = fed[0]
                continue
            finished += 1
            yield item
    finally:
        stopped.set()
    for thread in threads:
        thread.join()


def gave_up(job: Job) -> Outcome:
    """The outcome of a job whose grading process died (or was stopped) on both tries."""
    return records.failed(job, f"the grading process died or ran past {JOB_LIMIT} s twice: not graded")


class Worker:
    """One grading process, fed jobs as JSON lines; it answers on a channel nothing else writes to."""

    MARK = "@@nano-grade@@ "

    def __init__(self, log: Path):
        # Grading needs no key, and student code must not see one (its messages reach feedback).
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        with open(log, "ab") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "autograder.grading.autograde"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                         text=True, env=env, start_new_session=True)

    def run(self, job: Job, limit: float) -> Outcome | None:
        """The job's outcome, or None if the worker died or ran past `limit` seconds."""
        timer = threading.Timer(limit, self.close)
        timer.start()
        try:
            self.proc.stdin.write(job.to_json() + "\n")
            self.proc.stdin.flush()
            for line in self.proc.stdout:
                if line.startswith(self.MARK):
                    return Outcome.from_json(line[len(self.MARK):])
        except (OSError, ValueError):
            pass
        finally:
            timer.cancel()
        self.close()
        return None

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                with contextlib.suppress(OSError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def main() -> None:
    """The worker's loop: a job per line on stdin, its outcome on the real stdout. Anything else
    that writes to stdout (kernels inherit it, student code may print) goes to /dev/null."""
    silence()
    space.own_namespace()  # before any thread: the tmpfs student code writes in is this process's alone
    _exit_with_parent()
    scratch_gradebooks()
    channel = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    for line in sys.stdin:
        job = Job.from_json(line)
        try:
            outcome = grade_one(job)
        except Exception as exc:  # a bad submission must not stop the batch
            outcome = records.failed(job, f"grading failed: {type(exc).__name__}: {exc}")
        channel.write(Worker.MARK + outcome.to_json() + "\n")
        channel.flush()


def _exit_with_parent() -> None:
    """Stop when the process that started this worker is gone (a killed Dask worker, say), so
    that no orphan goes on grading; its kernels notice and follow."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def grade_one(job: Job) -> Outcome:
    """Autograde one student in their private course (see `_autograde_runs`), each kernel
    sandboxed unless job.unsafe. Runs in a worker process."""
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.gradebook import sqlite_url
    from autograder.grading import kernels

    started = time.monotonic()
    course = Course.at(job.course)
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course.root)).load_config()
    config.CourseDirectory.root = str(job.private)
    config.CourseDirectory.db_url = sqlite_url(job.private / "gradebook.db")  # never the course's own
    config.CourseDirectory.course_id = course.course_id
    timeout = job.timeout or course.cell_timeout
    config.Execute.timeout = timeout
    config.Autograde.autograde_preprocessors = kernels.preprocessors()
    work = job.private / "submitted" / job.student / course.assignment
    present = [name for name in course.notebooks if (work / f"{name}.ipynb").is_file()]
    settings = kernels.KernelSettings(
        log=kernels.Drain(job.private / "kernels.log"),
        # The kernels' unix sockets: a short path (sun_path holds 107 bytes), bound into the sandbox.
        runtime=None if job.unsafe else Path(tempfile.mkdtemp(prefix="nano-ipc-")),
        notebooks=tuple(f"{name}.ipynb" for name in present),
        notebook_limit=job.notebook_limit or NOTEBOOK_LIMIT)
    config.GuardedExecute.settings = settings
    autograded = job.private / "autograded"  # nbgrader's copy of the hand-in: the kernels' workspace
    autograded.mkdir(exist_ok=True)
    disk = os.open(autograded, os.O_RDONLY | os.O_DIRECTORY)  # the folder on the disk, below the tmpfs
    bounded = not job.unsafe and space.bounded(autograded)
    try:
        if settings.runtime is not None:
            space.bounded(settings.runtime)
        return _autograde(job, course, config, present, settings, started)
    finally:
        settings.zygotes.close()
        settings.log.close()
        if settings.runtime is not None:
            bwrap.settle(settings.runtime)
            with contextlib.suppress(OSError):
                space.release(settings.runtime)
            trees.remove(settings.runtime)
        try:
            if bounded:
                _keep(autograded, disk, job.student, work, course.source_dir)
                space.release(autograded)
        finally:
            os.close(disk)


def _keep(autograded: Path, disk: int, student: str, *given: Path) -> None:
    """From the tmpfs on `autograded`, what the course keeps of a graded hand-in onto the disk
    below it (the open folder `disk`): the files of the folders `given` (the hand-in and the
    assignment's source, which nbgrader copies over it), as nbgrader left them, its notebooks
    included; nothing else the hand-in's code wrote."""
    kept: set[tuple[str, ...]] = set()
    for folder in given:
        trees.walk(folder, lambda entry, top=(student, folder.name): kept.add((*top, *entry.path)))
        kept |= {(student,), (student, folder.name)}
    trees.copy(autograded, disk, kept.__contains__)


def _autograde(job: Job, course: Course, config, present: list[str], settings: "KernelSettings",
               started: float) -> Outcome:
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.apps import NbGraderAPI

    with Gradebook(config.CourseDirectory.db_url, course.course_id) as gb:
        try:
            gb.remove_submission(course.assignment, job.student)  # a fresh grade, not last time's
        except MissingEntry:
            pass
    api = NbGraderAPI(config=config)
    work = job.private / "submitted" / job.student / course.assignment
    problems: list[Problem] = list(job.problems)
    logs: list[str] = []
    # The independent check reads the hand-in now, before any of it runs (see independent.py).
    checked = independent.student_files(work) if job.verify else None
    deadline = started + len(present) * limits.LIMITS.per_notebook + limits.ZYGOTE_START
    for name, result in _autograde_runs(api, job.student, present, settings, deadline):
        logs.append(f"==== nbgrader autograde {name}\n{result.get('log', '')}{result.get('error') or ''}")
        if not result["success"] and name != ALL:
            last = [line for line in (result.get("error") or result.get("log") or "").splitlines()
                    if line.strip()]
            problems.append(problem(f"nbgrader could not grade it ({(last[-1] if last else 'no reason given')[:100]})",
                                    records.NBGRADER, lecture_of(name)))
    graded = job.private / "autograded" / job.student / course.assignment
    for name, passed in dict.fromkeys(settings.trimmed):
        problems.append(problem(f"its code left {passed} in its folder, past what grading follows: "
                                "those were removed", records.EXECUTION, lecture_of(name) if name else None))
    for name in present:
        problems += _execution_problems(graded / f"{name}.ipynb", lecture_of(name), timeout_of(config),
                                        settings.notebook_limit)
    if checked is not None:  # each cell nbgrader passed keeps its points only where the check passed it too
        private = job.private / "gradebook.db"
        left: list[str] = []  # which bound of trees.py a tree the check's subject left passed
        cells = independent.check_submission(job, *checked, gradebook.passed_cells(private, job.student), job.student,
                                             noted=left)
        problems += [problem(f"its code left {passed} in the folder its tools ran in, past what grading follows: "
                             "those were removed", records.EXECUTION) for passed in dict.fromkeys(left)]
        held = gradebook.withdraw(private, job.student,
                                  zero={g for g, v in cells.items() if v.state in (independent.FAILED, independent.LATE)},
                                  held={g for g, v in cells.items() if v.state == independent.HELD})
        problems += independent.held_problems(held, cells)
    kernels = job.private / "kernels.log"
    if kernels.is_file():
        logs.append("==== kernels' own stderr\n" + kernels.read_text(errors="replace"))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024  # KB on Linux
    logs.append(f"==== this grading process\npeak memory {peak} MB so far (it may have graded others before)")
    return Outcome(tuple(problems), log="\n".join(logs), seconds=time.monotonic() - started)


def timeout_of(config) -> int:
    return int(config.Execute.timeout) if "timeout" in config.Execute else limits.CELL_TIMEOUT


ALL = "all notebooks"


def _autograde_runs(api, student: str, names: list[str], settings: "KernelSettings",
                    deadline: float = float("inf")) -> list[tuple[str, dict]]:
    """Run nbgrader's Autograde on the student's notebooks `names`; return (what, result) pairs.

    First all of them in one run, as `nbgrader autograde` does: one app, one copy of the source
    files, the kernels one after another. Only if that run fails (nbgrader then drops the whole
    student) is each notebook graded again in a run of its own, so that a notebook nbgrader
    cannot finish costs only itself; but only while a whole notebook's time (limits.py) fits
    before `deadline`, so that the job keeps within its limit: the others are not graded again.
    """
    from nbgrader.converters import Autograde
    from nbgrader.utils import capture_log, temp_attrs

    def autograde(notebook_id: str) -> dict:
        with temp_attrs(api.coursedir, assignment_id=release.ASSIGNMENT, student_id=student,
                        notebook_id=notebook_id):
            app = Autograde(coursedir=api.coursedir, parent=api)
            app.force, app.create_student = True, True
            try:
                return capture_log(app)
            finally:  # a later run may remove the folder its kernels were forked into
                settings.zygotes.close()

    if not names:
        return []
    together = autograde("*" if len(names) > 1 else names[0])
    if together["success"] or len(names) == 1:
        return [(ALL if len(names) > 1 else names[0], together)]
    runs = [(ALL, together)]
    for name in names:
        if time.monotonic() + limits.LIMITS.per_notebook > deadline:
            runs.append((name, {"success": False, "error": "no time was left to grade it again on its own"}))
        else:
            runs.append((name, autograde(name)))
    return runs


def scratch_gradebooks() -> None:
    """Let SQLite skip the fsync of each commit in this process, whose gradebooks are all private
    scratch copies merged into the course's after (nbgrader commits about 150 times a student,
    ~27 ms each here). A worker that dies still leaves them whole (the rollback journal stays);
    only a machine crash could lose them, and then the batch is graded again anyway."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    @event.listens_for(Engine, "connect")
    def no_fsync(connection, _record):
        if type(connection).__module__.startswith("sqlite3"):
            connection.execute("PRAGMA synchronous=OFF")


def _execution_problems(path: Path, number: str, timeout: int, limit: int | None = None) -> list[Problem]:
    """What went wrong while running one autograded notebook: timeouts (of a cell, or of the
    notebook: `limit` seconds), a dead or hung kernel."""
    limit = limit or NOTEBOOK_LIMIT
    if not path.is_file():
        return []
    from autograder.grading.kernels import KERNEL_DIED, KERNEL_HUNG, NOT_RUN, TOO_LONG
    from autograder.notebook import sections

    late, died, deaf, stopped, cut = [], [], [], False, []
    nb = notebooks.load(path)
    for cell, section in zip(nb.cells, sections(nb)):
        names = {o.get("ename") for o in cell.get("outputs", []) if o.get("output_type") == "error"}
        # an ungraded cell as the student finds it in their notebook: by its section
        where = cell.metadata.get("nbgrader", {}).get("grade_id") or \
            (f"{UNGRADED} in {section}" if section else f"{UNGRADED} before the first section")
        if KERNEL_DIED in names:
            died.append(where)
        elif KERNEL_HUNG in names:
            deaf.append(where)
        elif TOO_LONG in names:
            cut.append(where)
        elif "CellTimeoutError" in names:
            late.append(where)
        stopped |= NOT_RUN in names

    def listed(places: list[str]) -> str:
        places = list(dict.fromkeys(places))  # two ungraded cells of one section are one place to look
        return ", ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")

    def found(message: str, places: list[str]) -> Problem:
        return problem(message, records.EXECUTION, number, [p for p in places if not p.startswith(UNGRADED)])

    problems = []
    if late:
        problems.append(found(f"{listed(late)} ran past the {timeout} s limit (interrupted, scores 0)", late))
    if died or deaf:
        what = ([f"the kernel died at {listed(died)}"] if died else []) + \
               ([f"{listed(deaf)} ran past {timeout} s and ignored the interrupt"] if deaf else [])
        problems.append(found(" and ".join(what)
                              + ("; the rest of the notebook scored 0" if stopped
                                 else " (the kernel was restarted; the cells after it were graded)")
                              + (f"; to see why, run the notebook from the top ({RUN_ALL}): {KILLED}" if died
                                 else ""), died + deaf))
    if cut:
        problems.append(found(f"the notebook ran past its {limit} s limit: {listed(cut)}"
                              " interrupted or not run (scores 0)", cut))
    return problems


UNGRADED = "an ungraded cell"
RUN_ALL = "Kernel > Restart Kernel and Run All Cells"
KILLED = "the cell that stops the kernel ends its process (os._exit, a crash) or runs out of memory"
def silence() -> None:
    """Keep the terminal for the progress lines: no SQLAlchemy notices from inside nbgrader."""
    try:
        from sqlalchemy.exc import SAWarning
        warnings.filterwarnings("ignore", category=SAWarning)
    except ImportError:
        pass
    warnings.filterwarnings("ignore", message=".*not in session.*")


@contextlib.contextmanager
def quiet():
    with warnings.catch_warnings():
        silence()
        yield


if __name__ == "__main__":
    main()
