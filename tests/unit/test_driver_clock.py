"""A behaviour's time in the check's subject is its own: what the subject waited for a CPU that
other processes held (a busy grading machine) is added to its deadline, up to BUSY_CELL times its
seconds, as a kernel's cell is timed; time it spent working is not. Driven through the real
driver and harness (unconfined: `unsafe`), on a workspace whose nano/ holds one spinning function,
beside processes that keep the subject's one CPU busy."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.check import driver
from autograder.check.driver import Subject
from checks.driving import Lost

SPIN = Path(__file__).parent / "payloads" / "spin_work.py"
SECONDS = 0.5  # each behaviour's time here


@pytest.fixture(scope="module")
def subject(tmp_path_factory):
    workspace = tmp_path_factory.mktemp("clock") / "ws"
    (workspace / "nano").mkdir(parents=True)
    (workspace / "nano" / "__init__.py").write_text("", encoding="utf-8")
    shutil.copy(SPIN, workspace / "nano" / "work.py")
    subject = Subject(workspace, unsafe=True)
    with subject.item(60):  # started, and its Python up, before any clock here matters
        assert subject.call("nano.work.spin", 0)["value"] == 0
    yield subject
    subject.close()


@pytest.fixture
def busy(subject):
    """The subject and three processes that never stop computing, on one CPU. Each burner has a
    session of its own, as the subject has: where the kernel shares CPU time out by session
    (autogroups), three burners of one session would weigh as one."""
    cpus = os.sched_getaffinity(subject.proc.pid)
    cpu = {min(cpus)}
    os.sched_setaffinity(subject.proc.pid, cpu)
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
               for _ in range(3)]
    for burner in burners:
        os.sched_setaffinity(burner.pid, cpu)
    yield
    for burner in burners:
        burner.kill()
        burner.wait()
    if subject.alive():  # one that was lost starts afresh, on every CPU
        os.sched_setaffinity(subject.proc.pid, cpus)


def spin(subject, cpu: float) -> tuple[dict | None, float]:
    """Run spin(cpu) as a behaviour of SECONDS: its outcome (None if the subject was lost) and
    the seconds it took by the clock."""
    start = time.monotonic()
    try:
        with subject.item(SECONDS):
            return subject.call("nano.work.spin", cpu), time.monotonic() - start
    except Lost:
        return None, time.monotonic() - start


def test_time_spent_waiting_for_a_cpu_is_not_the_behaviours(subject, busy, monkeypatch):
    monkeypatch.setattr(driver, "BUSY_CELL", 40)  # the stretch's cap is the next test's
    got, took = spin(subject, SECONDS / 2)
    assert got is not None and got["value"] == SECONDS / 2, "lost, though it needed half its time"
    assert took > SECONDS, f"the CPU was not busy enough to test anything: it took {took:.2f} s"


def test_the_stretch_ends_at_busy_cell_times_the_behaviours_seconds(subject, busy):
    got, took = spin(subject, 20 * SECONDS)
    assert got is None, "a behaviour that needs 20 times its time finished"
    assert took < driver.BUSY_CELL * SECONDS + 1.5, f"it was stopped only after {took:.2f} s"


def test_time_spent_working_is_the_behaviours(subject, monkeypatch):
    monkeypatch.setattr(driver, "BUSY_CELL", 40)
    got, took = spin(subject, 8 * SECONDS)
    assert got is None, "a behaviour that needs 8 times its time finished"
