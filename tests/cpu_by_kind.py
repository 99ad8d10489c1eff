"""Where a command's CPU time goes, by kind of process: `python -m tests.cpu_by_kind ./run tests`.

The suite is bound by the machine's CPUs, and much of its time is spent in processes no test
waits for (the sandboxes a grading kills), which tests/cputime.py cannot count. This runs the
command and, every half second until it ends, reads every process's CPU time from /proc; at the
end it prints each kind's share (KINDS: by command line) and the machine's busy time over the
run. A process that lives less than one interval may be missed, so the table is a lower bound.
"""

import os
import re
import subprocess
import sys
import time
from collections import Counter

from tests.cputime import machine_cpu

INTERVAL = 0.5  # seconds between readings of /proc
# (kind, pattern of the command line): the first that matches names a process.
KINDS = (
    ("sandboxed Python (zygotes, kernels)", r"What runs first|zygote"),
    ("check subjects (harness.py)", r"harness\.py"),
    ("nbgrader grading processes", r"autograder\.grading\.autograde"),
    ("Chromium", r"chrom"),
    ("Node.js (Playwright, the hub's proxy)", r"(^|/)node\b|playwright|configurable-http-proxy"),
    ("JupyterHub", r"jupyterhub"),
    ("JupyterLab and jupyter_server", r"jupyter[- ](lab|server|notebook)|jupyterlab|singleuser"),
    ("kernels outside the sandbox", r"ipykernel_launcher|-m ipykernel"),
    ("./ok", r"python\S* (\S*/)?ok( |$)|warm_ok\.py"),  # warm_ok.py: the tests' ./ok, forked from it
    ("python -m nano", r"-m nano( |$)"),
    ("nano-course", r"nano-course"),
    ("nbgrader and alembic commands", r"nbgrader|alembic"),
    ("PostgreSQL", r"postgres"),
    ("Dask", r"dask|distributed|multiprocessing\.spawn"),
    # last: other kinds' command lines name folders under /tmp/pytest-of-<user>/
    ("pytest and its workers' own test code", r"-m pytest\b|execnet|exec\(eval\(sys\.stdin"),
)


def kind_of(command: str, kinds=KINDS) -> str:
    return next((kind for kind, pattern in kinds if re.search(pattern, command)), "other")


def readings(me: int, commands: dict) -> dict[tuple[str, str], float]:
    """(pid, start time) -> CPU-seconds so far, of every process but `me`; the command line of a
    process not yet in `commands` is added there (it is read once, not at every reading)."""
    hz = os.sysconf("SC_CLK_TCK")
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == me:
            continue
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
            key = (pid, fields[19])
            if key not in commands:
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    commands[key] = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        found[key] = (int(fields[11]) + int(fields[12])) / hz
    return found


def measure(command: list[str], kinds=KINDS) -> tuple[int, Counter, Counter, float | None]:
    """Run `command`; (its exit code, CPU-seconds by kind, processes by kind, the machine's busy
    CPU-seconds meanwhile). Every process of the machine counts, not only the command's (the
    sandboxes it kills are no longer its descendants); one that was running before it counts only
    what it spent since."""
    me, commands = os.getpid(), {}
    before = readings(me, commands)
    machine = machine_cpu()
    latest: dict[tuple[str, str], float] = {}
    with subprocess.Popen(command) as process:
        while process.poll() is None:
            latest.update(readings(me, commands))
            time.sleep(INTERVAL)
    latest.update(readings(me, commands))
    busy = None if machine is None else machine_cpu() - machine
    seconds, count = Counter(), Counter()
    for key, cpu in latest.items():
        spent = cpu - before.get(key, 0.0)
        if spent > 0:
            kind = kind_of(commands[key], kinds)
            seconds[kind] += spent
            count[kind] += 1
    return process.returncode, seconds, count, busy


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    code, seconds, count, busy = measure(argv)
    seen = sum(seconds.values())
    print(f"\nCPU time by kind of process: {seen:.0f} CPU-seconds seen"
          + (f" of the {busy:.0f} the machine was busy" if busy is not None else ""))
    for kind, spent in seconds.most_common():
        print(f"{spent:9.0f} s {100 * spent / max(seen, 1e-9):5.1f}% {count[kind]:6d} processes  {kind}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
