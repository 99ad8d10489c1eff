"""One run at a time on a course (autograder/lock.py), tried as an instructor would: a second
`nano-course grade`, or a `build`, started while a grading runs refuses in one sentence and
harms nothing; the first one ends as if alone; Ctrl-C stops a grading in one sentence and leaves
grades.csv as it was, and the course free for the next run.
"""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import lock
from autograder.authoring import notebooks, release
from autograder.grading import grade, results

pytestmark = pytest.mark.slow
COMMAND = str(Path(sys.executable).with_name("nano-course"))


def slow_hand_in(lectures: Path, course: Path, folder: Path, seconds: int) -> Path:
    """A perfect mini hand-in whose answer cell sleeps `seconds` first: its grading takes that long."""
    workspace = release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT, folder),
                                        lecture_dir=lectures)
    [path] = workspace.glob("01-*.ipynb")
    nb = notebooks.load(path)
    [cell] = [c for c in nb.cells if "answer_entries = 6" in c.source]
    cell.source = f"import time\ntime.sleep({seconds})\n" + cell.source
    path.write_text(notebooks.render(nb), encoding="utf-8")
    return workspace


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([COMMAND, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # its own group, as a terminal gives it: Ctrl-C reaches it all


def wait_until_grading(course: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while not (course / grade.SCRATCH / grade.TEMPLATE).exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the grading never began"
        time.sleep(0.2)


def test_a_second_run_refuses_in_one_sentence_and_ctrl_c_stops_a_grading_cleanly(mini_course, tmp_path):
    built, lectures = mini_course
    course = tmp_path / "course"
    shutil.copytree(built, course)
    subs = tmp_path / "subs"
    slow_hand_in(lectures, course, subs / "alice", 15)

    first = start("grade", str(subs), "--course", str(course), "--timeout", "60")
    wait_until_grading(course, first)
    second = subprocess.run([COMMAND, "grade", str(subs), "--course", str(course)], capture_output=True, text=True)
    rebuild = subprocess.run([COMMAND, "build", "--out", str(course)], capture_output=True, text=True)
    out, err = first.communicate(timeout=600)

    busy = f"{course} is in use: nano-course grade (process {first.pid}) is working on it; wait for it to end, then run this again\n"
    assert (second.returncode, second.stdout, second.stderr) == (1, "", f"nano-course grade: {busy}")
    assert (rebuild.returncode, rebuild.stdout, rebuild.stderr) == (1, "", f"nano-course build: {busy}")
    assert first.returncode == 0, out + err
    [alice] = results.read_grades(course)
    assert alice.student == "alice" and alice.total == sum(grade.max_points(course).values()), alice
    assert not alice.problems
    assert (course / "problems.csv").read_text(encoding="utf-8").strip().count("\n") == 0
    table = (course / "grades.csv").read_bytes()

    stopped = start("grade", str(subs), "--course", str(course), "--timeout", "60")
    wait_until_grading(course, stopped)
    os.killpg(stopped.pid, signal.SIGINT)
    out, err = stopped.communicate(timeout=60)
    assert stopped.returncode == 130, out + err
    assert "Traceback" not in out + err, out + err
    assert err.splitlines()[-1] == (
        "nano-course grade: stopped (Ctrl-C); the students finished before the stop are in grades.csv, "
        "problems.csv, the gradebook and their feedback pages, the others as they were: grade again to finish")
    assert (course / "grades.csv").read_bytes() == table
    with lock.holding(course, "test"):  # the stopped run let go of the course
        pass
