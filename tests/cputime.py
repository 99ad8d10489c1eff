"""The CPU time each test phase cost, printed at the end of a run beside pytest's --durations.

The suite is bound by the machine's CPUs, so what a test costs the whole run is its CPU time,
not its wall time (which grows with whatever runs beside it). Each phase's cost is its worker's
own CPU time and that of every process the phase started and waited for (nbgrader, kernels,
sandboxes, servers a fixture stops), from getrusage. It travels to the controlling process in the
test's report, so it works under pytest-xdist. `--cpu-report=N` (default 25; 0 for none) sets how
many phases the summary lists.

What a phase cannot count: a process it never waited for, above all the sandboxes a grading kills
at the end of each student (their processes are reaped by no one who counts them). The summary's
header therefore also gives the whole machine's busy time over the run (/proc/stat), and the
difference is what the sandboxes and other unwaited processes cost. A helper whose processes are
not the worker's children but that knows what they cost adds it with counted() (tests/project/
warm_ok.py, whose ./ok runs are forked from a warm server).
"""

import os
import resource

import pytest

KEY = "cpu_seconds"


def pytest_addoption(parser):
    parser.addoption("--cpu-report", type=int, default=25, metavar="N",
                     help="list the N test phases that cost the most CPU time (0: none)")


_COUNTED: list[float] = []  # appended to from any thread


def counted(seconds: float) -> None:
    """Count `seconds` of CPU time spent for this process by one that is not its child."""
    _COUNTED.append(seconds)


def _spent() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + sum(_COUNTED)


_START = pytest.StashKey[float]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Where each phase's count starts: setup's, and (the same hook) call's and teardown's."""
    item.stash[_START] = _spent()


pytest_runtest_call = pytest_runtest_teardown = pytest_runtest_setup


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if _START in item.stash:
        report.user_properties.append((KEY, round(_spent() - item.stash[_START], 2)))


def machine_cpu() -> float | None:
    """CPU-seconds the whole machine has spent busy since it started (/proc/stat), or None."""
    try:
        with open("/proc/stat") as stat:
            user, nice, system, _idle, _iowait, irq, softirq = map(int, stat.readline().split()[1:8])
    except (OSError, ValueError):
        return None
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


class _Tally:
    def __init__(self):
        self.phases: list[tuple[float, float, str, str]] = []
        self.machine = machine_cpu()

    def pytest_runtest_logreport(self, report):
        cpu = dict(report.user_properties).get(KEY)
        if cpu is not None:
            self.phases.append((cpu, report.duration, report.when, report.nodeid))

    def pytest_terminal_summary(self, terminalreporter, config):
        shown = config.getoption("--cpu-report")
        if not shown or not self.phases:
            return
        total = sum(cpu for cpu, *_ in self.phases)
        start, end = self.machine, machine_cpu()
        busy = f"; the machine was busy {end - start:.0f} CPU-seconds" if start is not None and end is not None else ""
        terminalreporter.write_sep("=", f"most CPU time ({total:.0f} CPU-seconds counted in test phases{busy})")
        for cpu, wall, when, nodeid in sorted(self.phases, reverse=True)[:shown]:
            terminalreporter.write_line(f"{cpu:8.1f}s cpu {wall:8.1f}s wall  {when:<8} {nodeid}")


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the controller (or the only process) adds up
        config.pluginmanager.register(_Tally(), "cputime-tally")
