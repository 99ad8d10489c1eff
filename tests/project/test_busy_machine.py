"""A cell slowed by a busy grading machine is not blamed for it (grading/kernels.py).

The notebook's kernel, in the sandbox as grading starts it, moves its main thread onto one CPU
that HOGS sandboxed processes burn, as other students' kernels on a busy machine do. A cell with
about half a second of work, under a 2 s limit, then takes longer than 2 s in all: the time its
kernel waited for that CPU is not the cell's own, so it runs on and prints its result. A cell that loops forever on the same CPU
is still stopped, within BUSY_CELL times the limit and the interrupt's grace, and the cells
after it run. (BUSY_CELL is raised for the test, so that the rest of a busy test run, sharing
that CPU too, cannot push the first cell past it.)
"""

import datetime
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder import limits
from autograder.grading import kernels
from autograder.sandbox import bwrap

LIMIT = 2  # seconds: the cells' limit
HOGS = 8
BURN = Path(__file__).parent / "payloads" / "burn_one_cpu.py"
CAP = 6  # kernels.BUSY_CELL here: room for the rest of a busy test run, which shares that CPU too
CPU = max(os.sched_getaffinity(0))
WORK = "total = sum(i * i for i in range(10_000_000))\nprint('worked', total > 0)"


@pytest.fixture()
def hogs(tmp_path):
    """HOGS sandboxed processes, as other students' kernels are, burning CPU."""
    if not bwrap.available():
        pytest.skip("the sandbox needs a working bubblewrap")
    burning = []
    try:
        for n in range(HOGS):
            folder = tmp_path / f"hog-{n}"
            folder.mkdir()
            shutil.copy(BURN, folder / BURN.name)
            burning.append((folder, subprocess.Popen(bwrap.wrap([sys.executable, BURN.name, str(CPU)], workdir=folder),
                                                     start_new_session=True)))
        yield
    finally:
        for folder, hog in burning:
            hog.kill()
            hog.wait()
            bwrap.settle(folder)


def seconds(cell) -> float:
    """How long nbclient saw the cell run (its recorded timing)."""
    timing = cell.metadata["execution"]
    started, ended = (datetime.datetime.fromisoformat(timing[k].replace("Z", "+00:00"))
                      for k in ("iopub.execute_input", "shell.execute_reply"))
    return (ended - started).total_seconds()


def test_a_cell_slowed_by_a_busy_cpu_finishes_and_a_loop_on_it_is_still_stopped(hogs, tmp_path, monkeypatch):
    monkeypatch.setattr(kernels, "BUSY_CELL", CAP)
    work = tmp_path / "nano"
    work.mkdir()
    nb = new_notebook(cells=[new_code_cell(f"import os\nos.sched_setaffinity(0, {{{CPU}}})"),
                             new_code_cell(WORK), new_code_cell("while True:\n    pass"),
                             new_code_cell("print('after the loop')")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, work / "01.ipynb")
    settings = kernels.KernelSettings(runtime=Path(tempfile.mkdtemp(prefix="nano-ipc-")), notebooks=("01.ipynb",))
    started = time.monotonic()
    try:
        out = kernels.GuardedExecute(timeout=LIMIT, settings=settings).preprocess(
            nb, {"metadata": {"path": str(work)}})[0]
    finally:
        settings.zygotes.close()
        bwrap.settle(settings.runtime)
        shutil.rmtree(settings.runtime)
    took = time.monotonic() - started
    pinned, worked, loop, after = out.cells

    assert not [o for o in pinned.outputs if o.output_type == "error"], pinned.outputs
    assert worked.outputs and worked.outputs[0].get("text") == "worked True\n", worked.outputs
    assert seconds(worked) > LIMIT, f"the CPU was not busy enough to test anything: {seconds(worked):.1f} s"
    errors = [o.ename for o in loop.outputs if o.output_type == "error"]
    assert {"CellTimeoutError", kernels.KERNEL_HUNG} & set(errors), loop.outputs
    assert after.outputs and after.outputs[0].get("text") == "after the loop\n", after.outputs
    grace = kernels.GuardedExecute.class_traits()["iopub_timeout"].default_value
    bound = CAP * LIMIT + CAP * grace + 2 * limits.LIMITS.kernel_start
    assert took < seconds(worked) + bound, took
