"""Grading one student with real nbgrader, in a worker process that student code cannot hurt.

`run` feeds jobs (one student each, already staged in a private copy of the course) to
`python -m autograder.grading.autograde` processes, `workers` at a time. A worker autogrades its student
with nbgrader's Autograde (all notebooks in one run; one run per notebook only if that fails),
whose Execute is replaced by GuardedExecute:
a cell that kills the kernel or ignores the interrupt scores 0, and the kernel is restarted with
the cells before it run again, so that the cells after it are graded on their own. Each kernel
runs in the sandbox (bwrap.py), forked from a zygote of the student's that has already
imported ipykernel and the SDK, and is reached over unix sockets in a runtime folder of theirs;
a notebook's output is capped at OUTPUT_LIMIT bytes and its time at NOTEBOOK_LIMIT seconds. The
kernels' own stderr goes to the student's log, and student code that kills its worker costs only
that student's job.
"""

import contextlib
import copy
import functools
import json
import os
import queue
import signal
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import warnings
from collections.abc import Iterable
from pathlib import Path

if __name__ == "__main__":
    # A worker process. jsonschema, which nbformat imports, builds 38 lark parsers at import to
    # check one string format ("iri") that no notebook or nbgrader schema uses: 1 to 2 s of CPU
    # per worker, saved by not letting it find their package.
    sys.modules.setdefault("rfc3987_syntax", None)

from autograder.authoring import notebooks, release
from autograder.check import independent
from autograder.sandbox import bwrap

COURSE_ID = "nano"
JOB_LIMIT = 1800  # seconds one student may take before their worker is stopped


def run(jobs: Iterable[tuple[str, dict]], workers: int, logs: Path):
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

    def serve() -> None:
        process = None
        try:
            while (item := todo.get()) is not None:
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
    while total is None or finished < total:
        item = done.get()
        if item is None:  # the feeding has ended: now we know how many jobs there are
            if isinstance(fed[0], BaseException):
                raise fed[0]
            total = fed[0]
            continue
        finished += 1
        yield item
    for thread in threads:
        thread.join()


def gave_up(job: dict) -> dict:
    """The outcome of a job whose grading process died (or was stopped) on both tries."""
    return {"problems": job["problems"] + [f"the grading process died or ran past {JOB_LIMIT} s "
                                           "twice: not graded"], "failed": True}


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

    def run(self, job: dict, limit: float) -> dict | None:
        """The job's outcome, or None if the worker died or ran past `limit` seconds."""
        timer = threading.Timer(limit, self.close)
        timer.start()
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
            for line in self.proc.stdout:
                if line.startswith(self.MARK):
                    return json.loads(line[len(self.MARK):])
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
    _exit_with_parent()
    scratch_gradebooks()
    channel = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    for line in sys.stdin:
        job = json.loads(line)
        try:
            outcome = grade_one(job)
        except Exception as exc:  # a bad submission must not stop the batch
            outcome = {"problems": job["problems"] + [f"grading failed: {type(exc).__name__}: {exc}"],
                       "failed": True}
        channel.write(Worker.MARK + json.dumps(outcome) + "\n")
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


def grade_one(job: dict) -> dict:
    """Autograde one student in their private course (see `_autograde_runs`), each kernel
    sandboxed unless job["unsafe"]. Runs in a worker process; returns plain data."""
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.grading.gradebook import sqlite_url

    started = time.monotonic()
    course, private, student = Path(job["course"]), Path(job["private"]), job["student"]
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    config.CourseDirectory.root = str(private)
    config.CourseDirectory.db_url = sqlite_url(private / "gradebook.db")  # never the course's own
    config.CourseDirectory.course_id = COURSE_ID
    if job.get("timeout"):
        config.Execute.timeout = int(job["timeout"])
    config.Autograde.autograde_preprocessors = _preprocessors()
    timeout = config.Execute.timeout if "timeout" in config.Execute else 30
    execute, manager = _execute_classes()
    execute.notebook_limit = int(job.get("notebook_limit") or NOTEBOOK_LIMIT)
    manager.stderr_path = str(private / "kernels.log")
    # The kernels' unix sockets: a short path (sun_path holds 107 bytes), bound into the sandbox.
    manager.runtime = None if job.get("unsafe") else Path(tempfile.mkdtemp(prefix="nano-ipc-"))
    manager.use_zygote = True
    try:
        return _autograde(job, config, timeout, started)
    finally:
        manager.close_zygote()
        if manager.runtime is not None:
            bwrap.settle(manager.runtime)
            shutil.rmtree(manager.runtime, ignore_errors=True)


def _autograde(job: dict, config, timeout: int, started: float) -> dict:
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.apps import NbGraderAPI
    course, private, student = Path(job["course"]), Path(job["private"]), job["student"]

    with Gradebook(config.CourseDirectory.db_url, COURSE_ID) as gb:
        try:
            gb.remove_submission(release.ASSIGNMENT, student)  # a fresh grade, not last time's
        except MissingEntry:
            pass
    api = NbGraderAPI(config=config)
    work = private / "submitted" / student / release.ASSIGNMENT
    problems, logs = list(job["problems"]), []
    present = sorted(p.stem for p in work.glob("*.ipynb")
                     if (course / "release" / release.ASSIGNMENT / p.name).is_file())
    _execute_classes()[1].notebooks = [f"{name}.ipynb" for name in present]
    # The independent check reads the hand-in now, before any of it runs (see independent.py).
    checked = independent.student_files(work) if job.get("verify") else None
    for name, result in _autograde_runs(api, student, present):  # none: the merge records zeros
        logs.append(f"==== nbgrader autograde {name}\n{result.get('log', '')}{result.get('error') or ''}")
        if not result["success"] and name != ALL:
            last = [line for line in (result.get("error") or result.get("log") or "").splitlines()
                    if line.strip()]
            problems.append(f"{name[:2]}: nbgrader could not grade it"
                            f" ({(last[-1] if last else 'no reason given')[:100]})")
    graded = private / "autograded" / student / release.ASSIGNMENT
    for name in present:
        problems += _execution_problems(graded / f"{name}.ipynb", name[:2], timeout,
                                        _execute_classes()[0].notebook_limit)
    if checked is not None:
        problems += independent.check_submission(job, *checked, private / "gradebook.db", student)
    kernels = private / "kernels.log"
    if kernels.is_file():
        logs.append("==== kernels' own stderr\n" + kernels.read_text(errors="replace"))
    return {"problems": problems, "log": "\n".join(logs), "seconds": time.monotonic() - started}


ALL = "all notebooks"


def _autograde_runs(api, student: str, names: list[str]) -> list[tuple[str, dict]]:
    """Run nbgrader's Autograde on the student's notebooks `names`; return (what, result) pairs.

    First all of them in one run, as `nbgrader autograde` does: one app, one copy of the source
    files, the kernels one after another. Only if that run fails (nbgrader then drops the whole
    student) is each notebook graded again in a run of its own, so that a notebook nbgrader
    cannot finish costs only itself.
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
                _execute_classes()[1].close_zygote()

    if not names:
        return []
    together = autograde("*" if len(names) > 1 else names[0])
    if together["success"] or len(names) == 1:
        return [(ALL if len(names) > 1 else names[0], together)]
    return [(ALL, together)] + [(name, autograde(name)) for name in names]


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


def _execution_problems(path: Path, number: str, timeout: int, limit: int | None = None) -> list[str]:
    """What went wrong while running one autograded notebook: timeouts (of a cell, or of the
    notebook: `limit` seconds), a dead or hung kernel."""
    limit = limit or NOTEBOOK_LIMIT
    if not path.is_file():
        return []
    late, died, deaf, stopped, cut = [], [], [], False, []
    for index, cell in enumerate(notebooks.load(path).cells):
        names = {o.get("ename") for o in cell.get("outputs", []) if o.get("output_type") == "error"}
        where = cell.metadata.get("nbgrader", {}).get("grade_id") or f"cell {index} (ungraded)"
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
        return ", ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")

    problems = []
    if late:
        problems.append(f"{number}: {listed(late)} ran past the {timeout} s limit (interrupted, scores 0)")
    if died or deaf:
        what = ([f"the kernel died at {listed(died)}"] if died else []) + \
               ([f"{listed(deaf)} ran past {timeout} s and ignored the interrupt"] if deaf else [])
        problems.append(f"{number}: {' and '.join(what)}"
                        + ("; the rest of the notebook scored 0" if stopped
                           else " (the kernel was restarted; the cells after it were graded)"))
    if cut:
        problems.append(f"{number}: the notebook ran past its {limit} s limit: {listed(cut)}"
                        " interrupted or not run (scores 0)")
    return problems


# ---------------------------------------------------------------------------------------------
# Running the cells: nbgrader's Execute, made to survive a dying or deaf kernel, and quiet.

KERNEL_DIED = "DeadKernelError"
KERNEL_HUNG = "KernelUnresponsive"
NOT_RUN = "NotRun"
TOO_LONG = "NotebookTimeLimit"
MAX_RESTARTS = 3  # kernel restarts per notebook before the rest of it scores 0
NOTEBOOK_LIMIT = 600  # seconds a notebook may run in all, cells and restarts; the rest scores 0
OUTPUT_LIMIT = 1_000_000  # bytes of output a notebook may record (see GuardedExecute)
MESSAGE_LIMIT = 64_000_000  # bytes of one message from a kernel; a larger one is dropped


def _size(msg: dict) -> int:
    """About how many bytes a kernel message adds to the notebook (and the worker's memory)."""
    return len(json.dumps(msg["content"], default=str)) + sum(len(b) for b in msg.get("buffers") or ())


def _preprocessors() -> list:
    """nbgrader's autograde preprocessors, with Execute replaced by the guarded one below."""
    from nbgrader.converters import Autograde

    guarded = _execute_classes()[0]
    default = Autograde.class_traits()["autograde_preprocessors"].default()
    return [guarded if getattr(p, "__name__", "") == "Execute" else p for p in default]


@functools.cache
def _execute_classes():
    """(GuardedExecute, QuietKernelManager), built on first use: importing nbgrader takes seconds."""
    import zmq
    from jupyter_client.manager import AsyncKernelManager
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from jupyter_core.utils import run_sync
    from nbformat import NotebookNode
    from nbgrader.preprocessors import Execute

    class QuietKernelManager(AsyncKernelManager):
        """A kernel whose own stderr (crash dumps, warnings) goes to the student's grading log
        instead of the instructor's terminal, and which runs in the sandbox when `runtime` is
        set: forked from the student's bwrap.Zygote (as root; else launched through
        bwrap.wrap) with its cwd (the autograded copy of the workspace) and `runtime` as the
        only writable folders, reached over unix sockets in `runtime`, and interrupted by a
        message (a signal cannot cross into the sandbox's session). The notebooks in its cwd
        cannot be read: nbgrader has put the hidden tests back into them."""

        stderr_path = os.devnull  # set per student by grade_one
        runtime: Path | None = None  # set per student by grade_one; None: not sandboxed (--unsafe)
        notebooks: list[str] = []  # set per student by grade_one: the notebooks nbgrader will write
        use_zygote = True  # per student: False once a zygote failed to start
        zygote = None  # the student's live bwrap.Zygote, made by the first kernel of a run

        async def _async_pre_start_kernel(self, **kw):
            if QuietKernelManager.runtime is not None and self.transport != "ipc":
                name = f"kernel-{uuid.uuid4().hex[:8]}"
                self.transport, self.ip = "ipc", str(QuietKernelManager.runtime / name)
                self.connection_file = str(QuietKernelManager.runtime / f"{name}.json")
            return await super()._async_pre_start_kernel(**kw)

        async def _async_launch_kernel(self, kernel_cmd, **kw):
            line = None  # a forked kernel's line to its zygote, which the relay started here keeps
            if QuietKernelManager.runtime is not None:
                self.kernel_spec.interrupt_mode = "message"
                cwd = Path(kw.get("cwd") or os.getcwd())
                shown = sorted(cwd.glob("*.ipynb"))
                zygote = QuietKernelManager._zygote(cwd, shown, kw.get("env"), kernel_cmd)
                if zygote is not None:
                    try:
                        kernel_cmd, line = zygote.spawn(kernel_cmd[2], kernel_cmd[3:])
                        kw["pass_fds"] = (line.fileno(),)
                    except RuntimeError as exc:  # it died: this student's kernels start on their own
                        QuietKernelManager._give_up(exc)
                if line is None:
                    kernel_cmd = bwrap.wrap(kernel_cmd, workdir=cwd, writable=[QuietKernelManager.runtime],
                                              env=kw.get("env"), hide=shown)
            with open(QuietKernelManager.stderr_path, "ab") as log:
                kw["stderr"] = log  # the kernel keeps its own copy of the file descriptor
                try:
                    return await super()._async_launch_kernel(kernel_cmd, **kw)
                finally:
                    if line is not None:
                        line.close()

        @classmethod
        def _zygote(cls, cwd: Path, shown: list[Path], env, kernel_cmd: list[str]):
            """The student's zygote for a kernel in `cwd` (made on first use: see bwrap.Zygote),
            or None where kernels start on their own: not root, another kernel than this Python's
            ipykernel, or a zygote that cannot start. It hides the notebooks in `cwd` and those
            nbgrader will write there (`notebooks`), so it serves every notebook of the run."""
            if (os.geteuid() != 0 or not cls.use_zygote or kernel_cmd[1:3] != ["-m", "ipykernel_launcher"]
                    or os.path.realpath(kernel_cmd[0]) != os.path.realpath(sys.executable)):
                return None
            if cls.zygote is not None and cls.zygote.serves(cwd, shown, env):
                return cls.zygote
            cls.close_zygote()
            try:
                with open(cls.stderr_path, "ab") as log:
                    cls.zygote = bwrap.Zygote(cwd, writable=[cls.runtime], env=env, stderr=log,
                                                hide=sorted({*shown, *(cwd / name for name in cls.notebooks)}))
            except RuntimeError as exc:
                cls._give_up(exc)
            return cls.zygote

        @classmethod
        def _give_up(cls, exc: Exception) -> None:
            with open(cls.stderr_path, "a") as log:
                print(f"[grading: {exc}; each kernel starts on its own]", file=log)
            cls.close_zygote()
            cls.use_zygote = False

        @classmethod
        def close_zygote(cls) -> None:
            zygote, cls.zygote = cls.zygote, None
            if zygote is not None:
                zygote.close()

        def client(self, **kwargs):
            kc = super().client(**kwargs)
            kc.context.setsockopt(zmq.MAXMSGSIZE, MESSAGE_LIMIT)  # larger ones are dropped
            return kc

    def error(name: str, text: str) -> NotebookNode:
        return NotebookNode(output_type="error", ename=name, evalue=text, traceback=[f"{name}: {text}"])

    class GuardedExecute(Execute):
        """nbgrader's Execute, except that a kernel that dies or ignores the interrupt costs only
        the cell it was running. The kernel is restarted and the cells before that one are run
        again (outputs discarded, the cells that killed or hung it skipped), so that the cells
        after it are graded on their own. After MAX_RESTARTS, the rest of the notebook gets an
        error (score 0) instead, as it does once the notebook has run NOTEBOOK_LIMIT seconds.
        Past OUTPUT_LIMIT bytes of output, only what decides a grade is kept (errors, stderr,
        a cell's value), shortened, after a note saying so."""

        notebook_limit = NOTEBOOK_LIMIT  # set per job by grade_one

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.kernel_manager_class = QuietKernelManager

        def preprocess(self, nb, resources=None, km=None):
            self._stopped, self._skip, self._restarts = None, set(), 0
            self._stop_kind = NOT_RUN  # or TOO_LONG: the error the cells not run get
            self._deadline = time.monotonic() + self.notebook_limit
            self._output_left, self._noted, self._stderr_kept = OUTPUT_LIMIT, False, set()
            path = (resources or {}).get("metadata", {}).get("path")
            try:
                return super().preprocess(nb, resources, km)
            finally:  # the kernel is gone: nothing it left may be followed by nbgrader's writes
                if QuietKernelManager.runtime is not None and path:
                    bwrap.settle(Path(path))

        def _get_timeout(self, cell):
            timeout = super()._get_timeout(cell)
            left = max(1, int(self._deadline - time.monotonic()) + 1)
            return left if timeout is None else min(timeout, left)

        def preprocess_cell(self, cell, resources, index):
            if cell.cell_type != "code":
                return cell, resources
            if not self._stopped and time.monotonic() > self._deadline:
                self._out_of_time()
            if self._stopped:
                cell.outputs = [error(self._stop_kind, f"not run: {self._stopped}")]
                return cell, resources
            try:
                super().preprocess_cell(cell, resources, index)
                if any(o.get("ename") == "CellTimeoutError" for o in cell.outputs):
                    self._skip.add(index)  # interrupted: do not run it again in a replay
                    if time.monotonic() >= self._deadline:
                        self._out_of_time()
                        cell.outputs.append(error(TOO_LONG, f"interrupted: {self._stopped}"))
                return cell, resources
            except DeadKernelError:
                name, text = KERNEL_DIED, "the kernel died while running this cell (os._exit, a crash, or out of memory)"
            except CellTimeoutError:
                name, text = KERNEL_HUNG, f"this cell ran past {self.timeout} s and ignored the interrupt"
            self._skip.add(index)
            if self._restarts < MAX_RESTARTS and self._restart(index):
                cell.outputs.append(error(name, text + "; the kernel was restarted"))
            else:
                cell.outputs.append(error(name, text))
                self._stopped = "the kernel was lost at an earlier cell"
            return cell, resources

        def _out_of_time(self) -> None:
            self._stopped = f"the notebook ran past its {self.notebook_limit} s limit"
            self._stop_kind = TOO_LONG

        def process_message(self, msg, cell, cell_index):
            kind = msg["msg_type"]
            if kind in ("status", "execute_input"):
                return super().process_message(msg, cell, cell_index)
            self._output_left -= _size(msg)
            if self._output_left >= 0:
                return super().process_message(msg, cell, cell_index)
            content = msg["content"]
            if not self._noted:
                self._noted = True
                cell.outputs.append(NotebookNode(output_type="stream", name="stdout", text=(
                    f"[grading: this notebook's output passed {OUTPUT_LIMIT // 1_000_000} MB;"
                    " only errors, stderr and results are kept from here on, shortened]\n")))
            if kind == "error":
                cell.outputs.append(error(str(content.get("ename", "Error"))[:200],
                                          str(content.get("evalue", ""))[:2000]))
            elif kind == "stream" and content.get("name") == "stderr" and cell_index not in self._stderr_kept:
                self._stderr_kept.add(cell_index)
                cell.outputs.append(NotebookNode(output_type="stream", name="stderr",
                                                 text=str(content.get("text", ""))[:2000]))
            elif kind == "execute_result":
                text = str(content.get("data", {}).get("text/plain", ""))[:2000]
                cell.outputs.append(NotebookNode(output_type="execute_result", metadata={},
                                                 data={"text/plain": text},
                                                 execution_count=content.get("execution_count")))
            return None

        def _restart(self, index: int) -> bool:
            """A fresh kernel that has run every earlier cell but the skipped ones; False if that failed."""
            self._restarts += 1
            try:
                run_sync(self.km.restart_kernel)(now=True)
                self.kc.stop_channels()
                self.kc = self.km.client()
                self.kc.start_channels()
                run_sync(self.kc.wait_for_ready)(timeout=self.startup_timeout)
                for earlier in range(index):
                    cell = self.nb.cells[earlier]
                    if cell.cell_type == "code" and earlier not in self._skip:
                        self.execute_cell(copy.deepcopy(cell), earlier, store_history=False)
                return True
            except Exception:  # died again while replaying, or would not start
                return False

    return GuardedExecute, QuietKernelManager


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
