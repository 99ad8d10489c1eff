"""tests/project/warm_ok.py, ./ok forked from a warm server: it gives what `python ok` run by
subprocess.run gives (output, stderr, a subprocess's output, the code, a traceback), runs
several at once, and a run that times out raises TimeoutExpired and leaves no process behind.
The ./ok here is a toy (payloads/toy_ok.py); no course is built."""

import concurrent.futures
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.project import warm_ok

TOY = Path(__file__).parents[1] / "project" / "payloads" / "toy_ok.py"


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    shutil.copy(TOY, tmp_path / "ok")
    monkeypatch.setenv("TOY_OK", "set by the test")
    return tmp_path


def fresh(workspace, *args):
    return subprocess.run([sys.executable, "ok", *args], cwd=workspace, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("what", ["prints", "raises"])
def test_a_warm_run_gives_what_a_fresh_python_gives(workspace, what):
    done, expected = warm_ok.run(workspace, [what], timeout=60), fresh(workspace, what)
    assert fields(done) == fields(expected)
    if what == "prints":
        assert done.returncode == 3 and "from a subprocess" in done.stdout and "and its stderr" in done.stderr
        assert "variable set by the test" in done.stdout and "workspace modules loaded []" in done.stdout
    else:
        assert done.returncode == 1 and done.stderr.startswith("Traceback") and "ValueError: on purpose" in done.stderr
        assert "runpy" not in done.stderr and "warm_ok" not in done.stderr


def fields(done: subprocess.CompletedProcess) -> tuple:
    return done.args, done.returncode, done.stdout, done.stderr


def test_runs_at_the_same_time_keep_their_own_output(workspace):
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        done = list(pool.map(lambda n: warm_ok.run(workspace, [f"run {n}"], timeout=60), range(8)))
    assert [(d.returncode, d.stdout, d.stderr) for d in done] == [(0, f"run {n}\n", "") for n in range(8)]


def test_a_run_that_times_out_raises_and_leaves_no_process(workspace):
    with pytest.raises(subprocess.TimeoutExpired) as expired:
        warm_ok.run(workspace, ["loops"], timeout=3)
    pids = [int(pid) for pid in expired.value.output.split()]
    assert len(pids) == 2, expired.value.output  # the child and the subprocess it started
    deadline = time.monotonic() + 5  # a killed process takes a moment to end
    while [pid for pid in pids if alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in pids if alive(pid)]


def alive(pid: int) -> bool:
    """Running (a zombie nobody has reaped yet has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False
