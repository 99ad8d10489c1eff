"""The kernels a student's notebooks run in while nbgrader grades them: `GuardedExecute`, nbgrader's
Execute made to survive a kernel that dies or ignores the interrupt, to bound a notebook's time
and output, not to blame a cell for the time it waited for a CPU on a busy machine, and to run
each graded cell without its hidden part; and `QuietKernelManager`, which
starts each kernel in the sandbox (forked from the student's zygote) with its stderr in the
student's log. What one student's kernels run with is a frozen `KernelSettings`, handed to
GuardedExecute through nbgrader's config.

Importing this module imports nbgrader, nbclient and jupyter_client, which takes seconds:
autograde.py imports it in the grading worker, where they run.
"""

import asyncio
import contextlib
import copy
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import zmq
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute
from traitlets import Instance

from autograder import trees
from autograder.authoring import notebooks
from autograder.limits import BUSY_CELL, MAX_RESTARTS, MESSAGE_LIMIT, NOTEBOOK_LIMIT, OUTPUT_LIMIT
from autograder.sandbox import bwrap, space
from checks.processes import cpu_waits, waited

KERNEL_DIED = "DeadKernelError"
KERNEL_HUNG = "KernelUnresponsive"
NOT_RUN = "NotRun"
TOO_LONG = "NotebookTimeLimit"
LOG_LIMIT = 1_000_000  # bytes of the kernels' own stderr kept in a student's grading log


class Zygotes:
    """The live zygote of one student's kernels (bwrap.Zygote), made by their first kernel and
    shared by the rest; not a setting but a resource, so a copy of it is itself (traitlets
    deep-copies the values of a config)."""

    def __init__(self) -> None:
        self.zygote = None  # the live bwrap.Zygote
        self.usable = True  # False once one failed to start: this student's kernels start on their own

    def __deepcopy__(self, memo) -> "Zygotes":
        return self

    def close(self) -> None:
        zygote, self.zygote = self.zygote, None
        if zygote is not None:
            zygote.close()


class Trimmed(list):
    """(notebook, which bound) for each notebook whose kernels left a tree past the bounds of
    trees.py in their workspace (bwrap.settle removed what lay past them); shared, not copied,
    as Zygotes is."""

    def __deepcopy__(self, memo) -> "Trimmed":
        return self


class Drain:
    """The kernels' own stderr: a pipe, which a thread copies into `path` up to `limit` bytes,
    and reads to its end past them. A kernel takes no disk through it: a file it held as its
    stderr could be grown past any size limit (fallocate with FALLOC_FL_KEEP_SIZE)."""

    def __init__(self, path: Path, limit: int = LOG_LIMIT):
        reading, self.fd = os.pipe2(os.O_CLOEXEC)
        self.thread = threading.Thread(target=self._copy, args=(reading, Path(path), limit),
                                       name="kernels-stderr", daemon=True)
        self.thread.start()

    @staticmethod
    def _copy(reading: int, path: Path, limit: int) -> None:
        kept = 0
        with open(path, "ab") as log:
            while chunk := os.read(reading, 1 << 16):
                if kept < limit:
                    log.write(chunk[:limit - kept])
                    log.flush()
                    kept += len(chunk[:limit - kept])
        os.close(reading)

    def __deepcopy__(self, memo) -> "Drain":  # shared, not copied, as Zygotes is
        return self

    def say(self, line: str) -> None:
        """A line of the grader's own in the log."""
        with contextlib.suppress(OSError):
            os.write(self.fd, f"{line}\n".encode())

    def close(self, wait: float = 5.0) -> None:
        """Let go of this end; the copy ends when the kernels' ends close too."""
        with contextlib.suppress(OSError):
            os.close(self.fd)
        self.thread.join(wait)


@dataclass(frozen=True)
class KernelSettings:
    """What one student's kernels run with: config.GuardedExecute.settings, set by grade_one."""

    log: Drain | None = field(default=None, compare=False)  # the kernels' own stderr; None: thrown away
    runtime: Path | None = None  # their unix sockets' folder, bound into the sandbox; None: --unsafe
    notebooks: tuple[str, ...] = ()  # the notebooks nbgrader will write in their folder (hidden from them)
    notebook_limit: int = NOTEBOOK_LIMIT  # seconds a notebook may run in all
    zygotes: Zygotes = field(default_factory=Zygotes, compare=False)
    trimmed: "Trimmed" = field(default_factory=lambda: Trimmed(), compare=False)

    def stderr(self) -> int:
        """What a kernel or zygote gets as its stderr (Popen's stderr=)."""
        return subprocess.DEVNULL if self.log is None else self.log.fd


def _size(msg: dict) -> int:
    """About how many bytes a kernel message adds to the notebook (and the worker's memory)."""
    return len(json.dumps(msg["content"], default=str)) + sum(len(b) for b in msg.get("buffers") or ())


class QuietKernelManager(AsyncKernelManager):
    """A kernel whose own stderr (crash dumps, warnings) goes to the student's grading log
    instead of the instructor's terminal, and which runs in the sandbox when its settings'
    `runtime` is set: forked from the student's bwrap.Zygote (as root; else launched through
    bwrap.wrap) with its cwd (the autograded copy of the workspace) and `runtime` as the
    only writable folders, reached over unix sockets in `runtime`, and interrupted by a
    message (a signal cannot cross into the sandbox's session). The notebooks in its cwd
    cannot be read: nbgrader has put the hidden tests back into them. GuardedExecute gives
    each its student's KernelSettings."""

    settings = KernelSettings()  # replaced by GuardedExecute.create_kernel_manager

    async def _async_pre_start_kernel(self, **kw):
        runtime = self.settings.runtime
        if runtime is not None and self.transport != "ipc":
            name = f"kernel-{uuid.uuid4().hex[:8]}"
            self.transport, self.ip = "ipc", str(runtime / name)
            self.connection_file = str(runtime / f"{name}.json")
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        line = None  # a forked kernel's line to its zygote, which the relay started here keeps
        if self.settings.runtime is not None:
            self.kernel_spec.interrupt_mode = "message"
            cwd = Path(kw.get("cwd") or os.getcwd())
            shown = sorted(cwd.glob("*.ipynb"))
            zygote = self._zygote(cwd, shown, kw.get("env"), kernel_cmd)
            if zygote is not None:
                try:
                    kernel_cmd, line = zygote.spawn(kernel_cmd[2], kernel_cmd[3:])
                    kw["pass_fds"] = (line.fileno(),)
                except RuntimeError as exc:  # it died: this student's kernels start on their own
                    self._give_up(exc)
            if line is None:
                kernel_cmd = bwrap.wrap(kernel_cmd, workdir=cwd, writable=[self.settings.runtime],
                                        env=kw.get("env"), hide=shown)
        kw["stderr"] = self.settings.stderr()  # the kernel gets a copy of the pipe's end
        try:
            return await super()._async_launch_kernel(kernel_cmd, **kw)
        finally:
            if line is not None:
                line.close()

    def _zygote(self, cwd: Path, shown: list[Path], env, kernel_cmd: list[str]):
        """The student's zygote for a kernel in `cwd` (made on first use: see bwrap.Zygote),
        or None where kernels start on their own: not root, another kernel than this Python's
        ipykernel, or a zygote that cannot start. It hides the notebooks in `cwd` and those
        nbgrader will write there (settings.notebooks), so it serves every notebook of the run."""
        settings, zygotes = self.settings, self.settings.zygotes
        if (os.geteuid() != 0 or not zygotes.usable or kernel_cmd[1:3] != ["-m", "ipykernel_launcher"]
                or os.path.realpath(kernel_cmd[0]) != os.path.realpath(sys.executable)):
            return None
        if zygotes.zygote is not None and zygotes.zygote.serves(cwd, shown, env):
            return zygotes.zygote
        zygotes.close()
        try:
            zygotes.zygote = bwrap.Zygote(cwd, writable=[settings.runtime], env=env, stderr=settings.stderr(),
                                          hide=sorted({*shown, *(cwd / name for name in settings.notebooks)}))
        except RuntimeError as exc:
            self._give_up(exc)
        return zygotes.zygote

    def _give_up(self, exc: Exception) -> None:
        if self.settings.log is not None:
            self.settings.log.say(f"[grading: {exc}; each kernel starts on its own]")
        self.settings.zygotes.close()
        self.settings.zygotes.usable = False

    def client(self, **kwargs):
        kc = super().client(**kwargs)
        kc.context.setsockopt(zmq.MAXMSGSIZE, MESSAGE_LIMIT)  # larger ones are dropped
        return kc

def error(name: str, text: str) -> NotebookNode:
    """An error output of a cell, as nbclient writes one."""
    return NotebookNode(output_type="error", ename=name, evalue=text, traceback=[f"{name}: {text}"])

class GuardedExecute(Execute):
    """nbgrader's Execute, except that a graded cell runs without its hidden part (the
    independent check runs its behaviours outside the kernel), and a kernel that dies or
    ignores the interrupt costs only the cell it was running. The kernel is restarted and
    the cells before that one are run again (outputs discarded, the cells that killed or
    hung it skipped), so that the cells after it are graded on their own. After MAX_RESTARTS, the rest of the notebook gets an
    error (score 0) instead, as it does once the notebook has run NOTEBOOK_LIMIT seconds.
    Past OUTPUT_LIMIT bytes of output, only what decides a grade is kept (errors, stderr,
    a cell's value), shortened, after a note saying so. A cell's limit counts its own time: what
    its kernel waited for a CPU other processes held is not counted, up to BUSY_CELL times the
    limit in all (`_async_handle_timeout`)."""

    settings = Instance(KernelSettings, args=(), help="the student's kernel settings").tag(config=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.kernel_manager_class = QuietKernelManager
        self._interrupt_grace = self.iopub_timeout  # as configured: _async_handle_timeout stretches it

    @property
    def notebook_limit(self) -> int:
        return self.settings.notebook_limit

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        km.settings = self.settings
        return km

    def preprocess(self, nb, resources=None, km=None):
        self._stopped, self._skip, self._restarts = None, set(), 0
        self._stop_kind = NOT_RUN  # or TOO_LONG: the error the cells not run get
        self._deadline = time.monotonic() + self.notebook_limit
        self._output_left, self._noted = OUTPUT_LIMIT, False
        self._kept: set[tuple[int, str]] = set()  # (cell, kind) past the limit: one of each
        path = (resources or {}).get("metadata", {}).get("path")
        try:
            return super().preprocess(nb, resources, km)
        finally:  # the kernel is gone: nothing it left may be followed by nbgrader's writes
            if path:  # and nbgrader's own walks of the workspace stay within trees.py's bounds
                passed = bwrap.settle(Path(path)) if self.settings.runtime is not None else trees.bound(Path(path))
                if passed:
                    self.settings.trimmed.append(((resources or {}).get("unique_key", ""), passed))
                space.room(Path(path))  # for the graded notebook, however full the kernel left it

    def execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        self._cell_clock = (time.monotonic(), cpu_waits(self._kernel_processes()))
        self.iopub_timeout = self._interrupt_grace
        return super().execute_cell(cell, cell_index, execution_count, store_history)

    async def _async_handle_timeout(self, timeout, cell=None):
        """Past a cell's `timeout`: the time its kernel (or a process it started) waited for a CPU
        that other processes held is not the cell's own. While its own time is under `timeout`,
        the cell runs on, up to BUSY_CELL times `timeout` in all and never past the notebook's
        limit. Then it is interrupted as nbgrader does, and given as much longer to answer the
        interrupt as it was slowed (up to BUSY_CELL times longer)."""
        started, before = self._cell_clock
        now = time.monotonic()
        elapsed = now - started
        own = elapsed - waited(before, cpu_waits(self._kernel_processes()))
        if own < timeout and elapsed < BUSY_CELL * timeout and now < self._deadline:
            await asyncio.sleep(1)  # then nbclient waits for the reply again
            return None
        slowed = min(max(elapsed / max(own, 1.0), 1.0), BUSY_CELL)
        self.iopub_timeout = round(self._interrupt_grace * slowed)
        return await super()._async_handle_timeout(timeout, cell)

    def _kernel_processes(self) -> list[int]:
        """Where a cell's time is spent: the process nbgrader started for the kernel (bwrap, the
        relay to the student's zygote, or the kernel itself) and the zygote kernels are forked from."""
        pids = []
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        if process is not None:
            pids.append(process.pid)
        zygote = self.settings.zygotes.zygote
        if zygote is not None and zygote.process is not None:
            pids.append(zygote.process.pid)
        return pids

    def _get_timeout(self, cell):
        timeout = super()._get_timeout(cell)
        left = max(1, int(self._deadline - time.monotonic()) + 1)
        return left if timeout is None else min(timeout, left)

    def preprocess_cell(self, cell, resources, index):
        """Run the cell without its hidden part: its behaviours are judged outside the
        kernel (check/independent.py). The notebook keeps the cell's source as it was."""
        full = cell.source
        if cell.cell_type == "code":
            cell.source = notebooks.without_hidden_tests(full)
        try:
            return self._run_cell(cell, resources, index)
        finally:
            cell.source = full

    def _run_cell(self, cell, resources, index):
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
                " only a cell's first error, stderr and result are kept from here on, shortened]\n")))
        kept = "stderr" if kind == "stream" and content.get("name") == "stderr" else kind
        if kept not in ("error", "stderr", "execute_result") or (cell_index, kept) in self._kept:
            return None  # a cell's first is all its grade needs: more would grow without bound
        self._kept.add((cell_index, kept))
        if kind == "error":
            cell.outputs.append(error(str(content.get("ename", "Error"))[:200],
                                      str(content.get("evalue", ""))[:2000]))
        elif kind == "stream":
            cell.outputs.append(NotebookNode(output_type="stream", name="stderr",
                                             text=str(content.get("text", ""))[:2000]))
        else:
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
                cell = copy.deepcopy(self.nb.cells[earlier])
                if cell.cell_type == "code" and earlier not in self._skip:
                    cell.source = notebooks.without_hidden_tests(cell.source)
                    self.execute_cell(cell, earlier, store_history=False)
            return True
        except Exception:  # died again while replaying, or would not start
            return False


def preprocessors() -> list:
    """nbgrader's autograde preprocessors, with Execute replaced by GuardedExecute."""
    default = Autograde.class_traits()["autograde_preprocessors"].default()
    return [GuardedExecute if getattr(p, "__name__", "") == "Execute" else p for p in default]
