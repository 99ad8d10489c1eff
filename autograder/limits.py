"""Every time and size limit of grading, in one place, and how the job limit follows from the others.

A student's grading process runs their notebooks one after another (each bounded by `notebook`
seconds, its kernel start and nbgrader's own work on it), then waits for the reference's
observations and runs the independent check (bounded by `check`). The job limit, after which
the whole grading process is stopped and the student is "not graded", is derived from those, so
that a hand-in slow in every notebook runs into the limits of its cells and notebooks, and keeps
what it honestly earns, long before the job limit could stop it.

The values are the defaults below; `NANO_LIMITS="cell=3 notebook=45 behaviour=3 check=40"` in the
environment overrides some for every process of a grading run (tests use it to make slow cases
fast). The modules import the names at the bottom.
"""

import dataclasses
import os
from dataclasses import dataclass

NOTEBOOKS = 6  # the lectures of the course: a student's grading process runs at most this many notebooks
VARIABLE = "NANO_LIMITS"


@dataclass(frozen=True)
class Limits:
    """The limits of one grading run, in seconds or bytes."""

    cell: int = 30  # one notebook cell, before nbgrader interrupts it (scores 0); the course's
    #                 nbgrader_config.py sets it (c.Execute.timeout), `grade --timeout` overrides it
    busy_cell: int = 2  # times `cell` a cell (and `behaviour` a check's behaviour) may run in all
    #                    when part of its time it waited for a CPU another process held (a busy
    #                    grading machine): that wait is not its own;
    #                    and times nbclient's iopub_timeout it then has to answer the interrupt
    notebook: int = 600  # one notebook in all, cells and kernel restarts; the rest of it scores 0
    restarts: int = 3  # kernel restarts in one notebook, before the rest of it scores 0
    kernel_start: int = 60  # a kernel's start or restart (nbclient's startup_timeout)
    notebook_slack: int = 30  # nbgrader's own work on one notebook: conversion, validation, gradebook
    output: int = 1_000_000  # bytes of output one notebook records in full; after that only what grades
    message: int = 64_000_000  # bytes of one message from a kernel; a larger one is dropped
    behaviour: int = 20  # one behaviour of the independent check, before it is stopped (not confirmed)
    check: int = 1600  # one hand-in's whole independent check; behaviours not run by then are not
    #                    confirmed: enough for 80 behaviours at `behaviour` each, so
    #                    that a hand-in slow everywhere still has each of its passes checked
    check_startup: int = 60  # a fresh check process, before its first behaviour starts
    zygote_start: int = 60  # a student's zygote importing ipykernel and the SDK (bwrap.Zygote)
    job_slack: int = 60  # a grading process's own work on a job: reading it, the repairs, the log

    @property
    def reference_wait(self) -> int:
        """How long a grading process waits for the reference's observations. The reference runs
        its behaviours under the same `check` budget (plus a process start), in the coordinator,
        from before the first job is handed out."""
        return self.check + self.check_startup + self.job_slack

    @property
    def per_notebook(self) -> int:
        """The longest one notebook can keep a grading process: its limit, one kernel start that
        straddles it (a restart begun just before the end), and nbgrader's work on it."""
        return self.notebook + self.kernel_start + self.notebook_slack

    @property
    def job(self) -> int:
        """Seconds one student's job may take before its grading process is stopped.

        The notebooks take at most NOTEBOOKS * per_notebook (plus one zygote start). The wait for
        the reference ends at most `reference_wait` after the batch began, which was before this
        job did, so it adds only what the notebooks had not already spent: max() of the two,
        not their sum. Then the student's own check, and the process's own work.
        """
        notebooks = NOTEBOOKS * self.per_notebook + self.zygote_start
        return max(notebooks, self.reference_wait) + self.check + self.check_startup + self.job_slack


def from_environment(environ=os.environ) -> Limits:
    """The defaults, with what `NANO_LIMITS` ("cell=3 notebook=45", spaces or commas) overrides;
    ValueError, in one sentence, for a name it does not know or a value that is not a whole
    number of at least 1."""
    known = {f.name for f in dataclasses.fields(Limits)}
    changes = {}
    for item in environ.get(VARIABLE, "").replace(",", " ").split():
        name, _, value = item.partition("=")
        if name not in known:
            raise ValueError(f"{VARIABLE}: {name!r} is not a limit (the limits: {', '.join(sorted(known))})")
        if not value.isdigit() or int(value) < 1:
            raise ValueError(f"{VARIABLE}: {name} must be a whole number of at least 1, not {value!r}")
        changes[name] = int(value)
    return dataclasses.replace(Limits(), **changes)


LIMITS = from_environment()


# What student code leaves in a folder it may write (autograder/trees.py, sandbox/bwrap.py).
TREE_DEPTH = 64  # levels of folders followed below a folder student code wrote; deeper ones are removed
TREE_ENTRIES = 20_000  # files and folders followed there in all (a hand-in holds at most MAX_FILES); the rest are removed


@dataclass(frozen=True)
class SandboxLimits:
    """What one sandboxed process may use (sandbox/bwrap.py). Measured here: a sandboxed kernel that
    has imported anthropic, ipywidgets and matplotlib, drawn a plot and run a bash command peaks
    at 1.06 GB of address space and 13 threads, after 4.4 s of CPU. Memory and CPU are per
    process, except `sandbox_memory`: the memory all of one sandbox's processes charge together
    (a cgroup's, bwrap.memory_group, where one can be made), which RLIMIT_AS does not bound (a
    memfd or a shared memory segment holds memory no process maps; `processes` processes map
    `processes * memory`). A kernel's CPU time stays well under `notebook`."""

    cpu: int = 300  # seconds of CPU per process (RLIMIT_CPU; SIGXCPU, then SIGKILL 5 s later)
    memory: int = 4 << 30  # bytes of address space per process (RLIMIT_AS)
    processes: int = 64  # processes and threads of the sandbox's user (RLIMIT_NPROC)
    file_size: int = 64 << 20  # bytes any one file may grow to (RLIMIT_FSIZE)
    tmp_size: int = 256 << 20  # bytes of the private /tmp (a tmpfs, held in memory)
    tmp_files: int = 2 * TREE_ENTRIES  # files and folders the private /tmp may hold (its inodes,
    #                                    whose kernel memory is not in tmp_size)
    sandbox_memory: int = 2 << 30  # bytes all processes of one sandbox charge together (as root, a
    #                     cgroup's memory limit: anonymous memory, memfds and shared memory, tmpfs
    #                     pages, kernel memory such as inodes). A zygote's kernels share it: an
    #                     honest kernel that imported the SDK charges 150-250 MB, and a student's
    #                     kernels live one at a time (one a notebook; a restart ends the one
    #                     before): even all six at once would charge 1.5 GB
    nice: int = 10  # CPU priority below the grader's (os.nice; as root, a cgroup weighted so:
    #                 bwrap.cpu_group): a hand-in burning CPU slows other hand-ins, never the
    #                 reference the check confirms itself with (0)


SANDBOX = SandboxLimits()

# Taking the hand-ins in (grading/intake.py) and reaching a cluster (grading/cluster.py).
def workers() -> int:
    """Students graded at once on this machine, unless told otherwise (grade.default_workers): a
    worker waits on its kernel, on sleeping test commands and on the gradebook as much as it
    computes, so four per CPU, at most 8. The sandboxes' CPU group weighs as many (bwrap.cpu_group)."""
    return min(8, 4 * (os.cpu_count() or 1))


MAX_BYTES = 50_000_000  # one hand-in unpacked: a workspace is under 1 MB; this leaves room for outputs and data
MAX_FILES = 5_000  # files in one hand-in
MAX_RATIO = 200  # uncompressed / compressed size of one zip member larger than RATIO_FLOOR
RATIO_FLOOR = 1_000_000  # bytes: a zip member smaller than this may compress as well as it likes
MAX_DEPTH = 4  # how deep an archive may nest the workspace
MAX_DOWNLOAD_BYTES = 2_000_000_000  # an LMS download's zip unpacked: the class's hand-ins, each under MAX_BYTES
MAX_DOWNLOAD_FILES = 100_000  # files in an LMS download's zip
MAX_NOTEBOOK_VALUES = 500_000  # JSON values in one handed-in notebook (a lecture's holds about 1,500): loading
#                                one costs about 400 bytes of memory a value (12 million took 4.7 GB)
CONNECT_TIMEOUT = 30  # seconds to reach a Dask scheduler

WRITE_SIZE = 256 << 20  # bytes each folder student code may write holds in all (as root: a tmpfs of this
#                         size is mounted on it), so a hand-in's writes are bounded by the system
WRITE_FILES = 2 * TREE_ENTRIES  # files and folders such a folder may hold (the tmpfs's inodes)
WRITE_ROOM = 16 << 20  # bytes the kernels' workspace gets back after each notebook's kernel has ended, so
#                        that nbgrader can write the graded notebook however full the code left it

# The names the grading modules use.
CELL_TIMEOUT = LIMITS.cell
BUSY_CELL = LIMITS.busy_cell
NOTEBOOK_LIMIT = LIMITS.notebook
MAX_RESTARTS = LIMITS.restarts
OUTPUT_LIMIT = LIMITS.output
MESSAGE_LIMIT = LIMITS.message
BEHAVIOUR_TIMEOUT = LIMITS.behaviour
CHECK_BUDGET = LIMITS.check
CHECK_STARTUP = LIMITS.check_startup
REFERENCE_WAIT = LIMITS.reference_wait
ZYGOTE_START = LIMITS.zygote_start
JOB_LIMIT = LIMITS.job
