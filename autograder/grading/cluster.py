"""Grading on a Dask distributed cluster: `nano-course grade --scheduler ADDRESS`.

`run` has the shape of autograde.run (it yields (student, outcome) as students finish), but each
student is a Dask task, `attempt`, run by whichever worker the scheduler picks. The task grades
in a child `python -m autograder.grading.autograde` process, as a local worker does, so student code can
kill or poison only that child, never the Dask worker. The task's job and outcome are records.Job
and records.Outcome as JSON text, and the process that called `run` merges the outcome into the
gradebook, of which it stays the only writer.

What the cluster needs: the course folder on a filesystem that every worker sees at the same
path (NFS, say), and nano-course installed in the workers' Python environment.

Each worker thread keeps its grading process for the next task (starting one costs seconds).
A Dask worker that dies mid-task (its grading process notices and stops too) has its task run
again on another worker. Each attempt grades in a copy of the student's staged private course of its
own (COURSE/.grading/.attempts/<student>-<token>), so an attempt that got far before its worker
died cannot mix its files with the one that reports; the outcome names the copy it came from,
and the merge replaces what the course held for the student: nobody is recorded twice.
"""

import shutil
import socket
import threading
import uuid
from pathlib import Path

from autograder import records
from autograder.grading import autograde
from autograder.records import Job, Outcome
from autograder.limits import CONNECT_TIMEOUT

ATTEMPTS = ".attempts"  # beside the staged private courses: one private course per attempt


class ClusterError(RuntimeError):
    """The cluster cannot be used: what is wrong, in one line."""


def connect(scheduler: str):
    """A Dask client of the scheduler at `scheduler` (tcp://HOST:PORT), or ClusterError."""
    from distributed import Client

    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {reason}") from None


def run(jobs: dict[str, Job], client, logs: Path):
    """Yield (student, outcome) as each job finishes on the cluster of `client`, then close it.

    A task that fails for good (its workers kept dying, the cluster went away) is reported as
    not graded, with the reason.
    """
    from distributed import as_completed

    logs.mkdir(parents=True, exist_ok=True)
    try:
        futures = {client.submit(attempt, job.to_json(), str(logs), pure=False,
                                 key=f"nano-grade-{student}-{uuid.uuid4().hex[:8]}"): student
                   for student, job in jobs.items()}
        for future in as_completed(futures, loop=client.loop):
            student = futures[future]
            try:
                outcome = Outcome.from_json(future.result())
            except Exception as exc:  # KilledWorker, a lost scheduler, a worker without the course
                reason = (str(exc).strip().splitlines() or [""])[0][:200]
                outcome = records.failed(jobs[student], f"the cluster could not grade it "
                                                        f"({type(exc).__name__}: {reason}): not graded")
            yield student, outcome
    finally:
        client.close()


def attempt(job: str, logs: str) -> str:
    """One try at grading one student (a records.Job as JSON), on a Dask worker: in a private
    course of its own, by a grading process (a fresh one tried once more if student code kills
    it). Returns the records.Outcome as JSON, naming the private course it was graded in."""
    job = Job.from_json(job)
    staged = job.private
    if not staged.is_dir():
        raise ClusterError(f"the worker on {socket.gethostname()} does not see {staged}: the course "
                           "folder must be on a filesystem that every worker shares, at the same path")
    private = staged.parent / ATTEMPTS / f"{job.student}-{uuid.uuid4().hex[:12]}"
    shutil.copytree(staged, private, symlinks=True)
    job = job.elsewhere(private)
    Path(logs).mkdir(parents=True, exist_ok=True)
    outcome = None
    for _try in range(2):
        outcome = _grader(Path(logs) / "workers.txt").run(job, autograde.JOB_LIMIT)
        if outcome is not None:
            break
    return (outcome or autograde.gave_up(job)).graded_in(private).to_json()


_graders: dict[tuple[int, str], autograde.Worker] = {}


def _grader(log: Path) -> autograde.Worker:
    """This Dask worker thread's grading process, started anew if it is not running (a grading
    process costs seconds to start; it stops by itself when the Dask worker does)."""
    key = (threading.get_ident(), str(log))
    process = _graders.get(key)
    if process is None or process.proc.poll() is not None:
        process = _graders[key] = autograde.Worker(log)
    return process
