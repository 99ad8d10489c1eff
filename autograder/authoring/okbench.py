"""How long `./ok NN` takes, lecture by lecture, on the reference and on the stubs.

`nano-course bench --ok` builds the course, makes a fresh student workspace (the stubs) and a
solved one (the reference), runs `python ok NN` in each, `runs` times after one warm-up run,
and prints the wall seconds of each lecture: median, min and max, and the median CPU seconds.
The goal (docs/benchmarks.md): within 2 s for every lecture on a quiet 2-core machine.
"""

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autograder.authoring import release

LECTURES = ["00", "02", "03", "04", "05", "06"]  # ./ok 00 runs lecture 01's checks too


@dataclass(frozen=True)
class Timing:
    lecture: str
    side: str  # "reference" or "stubs"
    wall: tuple[float, ...]  # seconds, one a run
    cpu: tuple[float, ...]  # user + system seconds of ./ok and its children, one a run


def time_ok(workspace: Path, lecture: str, runs: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(wall seconds, CPU seconds) of `runs` runs of ./ok `lecture` in `workspace`, after one warm-up."""
    wall, cpu = [], []
    for index in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "ok", lecture], cwd=workspace, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        took = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if index:
            wall.append(took)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return tuple(wall), tuple(cpu)


def run(runs: int = 5, echo: Callable[[str], None] = print) -> list[Timing]:
    """Time every lecture's ./ok on the reference and on the stubs; print a table as it goes."""
    echo(f"./ok NN, {runs} runs each after a warm-up, {os.cpu_count()} CPUs, "
         f"load average {os.getloadavg()[0]:.2f} at the start")
    timings = []
    with tempfile.TemporaryDirectory(prefix="nano-okbench-") as tmp:
        course = Path(tmp) / "course"
        released = release.build_course(course)
        stubs = release.make_workspace(released, Path(tmp) / "stubs")
        reference = release.solve_workspace(release.make_workspace(released, Path(tmp) / "reference"))
        echo(f"{'lecture':8} {'side':10} {'median s':>9} {'min s':>7} {'max s':>7} {'cpu s':>7}")
        for lecture in LECTURES:
            for side, workspace in (("reference", reference), ("stubs", stubs)):
                wall, cpu = time_ok(workspace, lecture, runs)
                timings.append(Timing(lecture, side, wall, cpu))
                echo(f"{lecture:8} {side:10} {statistics.median(wall):9.2f} {min(wall):7.2f} {max(wall):7.2f} "
                     f"{statistics.median(cpu):7.2f}")
    slowest = max(timings, key=lambda t: statistics.median(t.wall))
    echo(f"slowest: ./ok {slowest.lecture} on the {slowest.side}, median {statistics.median(slowest.wall):.2f} s; "
         f"load average {os.getloadavg()[0]:.2f} at the end")
    return timings
