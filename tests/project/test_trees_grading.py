"""Trees and disk a hand-in's code leaves behind, through real grading (issue 31, findings 1 to 3).

Each attacker is an otherwise perfect hand-in, graded by `nano-course grade --workers 1` with the
sandbox and the check on. Those whose trees are made in the kernel are hand-ins of the mini
course (its one notebook imports nano/protocol.py, as every lecture's does), beside an honest
one: the kernels' trees are made as in the real course, in a fraction of the time. The one whose
tree is made in the check's subject is a hand-in of the real course, whose check runs its tools:
- deep: at import in its kernel, a chain of 1,400 nested folders in its workspace
  (payloads/grow_a_deep_tree.py);
- deep_tool: the same chain made in the check's subject, in the folder its graded tools run in;
- filler: 130 files of 62 MB pre-allocated in every folder it may write, kernel and subject
  (payloads/fill_the_disk.py).
Everyone gets a grade, the trees cost nothing but a sentence on the page, and the course is
graded twice more after, exit 0 each time. The disk the course and the temporary folder use is
measured while the class is graded and after.
"""

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from autograder import limits
from autograder.authoring import release
from autograder.grading import grade, results

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("trees")]
PAYLOADS = Path(__file__).parent / "payloads"
TIMEOUT = 20
MB = 1 << 20


def perfect(course: Path, lectures: Path | None, folder: Path) -> Path:
    """A perfect hand-in of `course`, whose lecture notebooks are in `lectures` (None: the real course)."""
    return release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT, folder),
                                   lecture_dir=lectures)


def attacker(course: Path, lectures: Path | None, folder: Path, payload: str, edit=lambda text: text) -> None:
    """A perfect hand-in with the payload appended to its nano/protocol.py."""
    target = perfect(course, lectures, folder) / "nano" / "protocol.py"
    target.write_text(target.read_text(encoding="utf-8") + "\n"
                      + edit((PAYLOADS / payload).read_text(encoding="utf-8")), encoding="utf-8")


def used(*folders: Path) -> int:
    """Bytes of disk the folders use (du: what is allocated, pre-allocated files included)."""
    out = subprocess.run(["du", "-s", "-B1", "-x", *map(str, folders)], capture_output=True, text=True).stdout
    return sum(int(line.split()[0]) for line in out.splitlines() if line.strip())


class Graded:
    def __init__(self, course: Path, tmp: Path, subs: Path):
        self.course, self.peak = course, 0
        stop = threading.Event()

        def watch():
            while not stop.wait(0.5):
                self.peak = max(self.peak, used(course, tmp))

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        env = {**os.environ, "TMPDIR": str(tmp)}  # the grader's temporary folder: measured alone
        done = subprocess.run([str(Path(sys.executable).with_name("nano-course")), "grade", str(subs), "--course",
                               str(course), "--workers", "1", "--timeout", str(TIMEOUT)],
                              capture_output=True, text=True, env=env)
        stop.set()
        watcher.join()
        self.code, self.out = done.returncode, done.stdout + done.stderr
        self.closing = self.out.strip().splitlines()[-1]
        self.after = used(course, tmp)
        self.grades = {g.student: g for g in results.read_grades(course)}


@pytest.fixture(scope="module")
def graded(mini_course, course, tmp_path_factory):
    """On the mini course: the kernels' attackers and an honest student graded, then the course
    graded twice more, over what the first run left (the deep one again, then the honest one).
    On the real course: the subject's attacker and the filler. (The mini course's three runs, the
    disk the real course used before, its run.)"""
    mini, lectures = mini_course
    scratch = tmp_path_factory.mktemp("trees")
    first = scratch / "first"
    attacker(mini, lectures, first / "deep", "grow_a_deep_tree.py")
    perfect(mini, lectures, first / "honest")
    second = scratch / "second"
    shutil.copytree(first / "deep", second / "deep")
    third = scratch / "third"
    shutil.copytree(first / "honest", third / "honest")
    tool = scratch / "tool"
    attacker(course, None, tool / "deep_tool", "grow_a_deep_tree.py",
             lambda text: text.replace('WHERE = "kernel"', 'WHERE = "subject"'))
    attacker(course, None, tool / "filler", "fill_the_disk.py")
    mine = scratch / "course"
    shutil.copytree(mini, mine)
    tmp = scratch / "tmp"
    tmp.mkdir()
    runs = [Graded(mine, tmp, subs) for subs in (first, second, third)]
    real = scratch / "real"
    shutil.copytree(course, real)
    tmp = scratch / "tmp-real"
    tmp.mkdir()
    before = used(real, tmp)
    return runs, before, Graded(real, tmp, tool)


def test_deep_trees_cost_a_sentence_and_the_course_is_graded_twice_more(graded):
    (first, second, third), _, tool = graded
    for run, count in ((first, 2), (second, 1), (third, 1), (tool, 2)):
        print(run.closing)
        assert run.code == 0, run.out
        assert run.closing.startswith(f"{count} hand-in{'s' * (count > 1)}: {count} graded, 0 not graded"), run.out
        assert "grading failed" not in run.out and "grader error" not in run.out, run.out
    full = grade.max_points(first.course)
    for student in ("deep", "honest"):
        assert first.grades[student].scores == full, (student, first.grades[student])
    deep = first.grades["deep"]
    said = [p.message for p in deep.problems]
    assert any(f"folders nested more than {limits.TREE_DEPTH} deep" in m for m in said), said
    assert not [p for p in deep.problems if p.kind in ("grader", "failed")], said
    page = "".join(p.read_text(encoding="utf-8") for p in (first.course / "feedback" / "deep").glob("*.html"))
    assert f"folders nested more than {limits.TREE_DEPTH} deep" in page
    assert tool.grades["deep_tool"].scores == grade.max_points(tool.course), tool.grades["deep_tool"]
    left = [p for p in tool.grades["deep_tool"].problems if "the folder its tools ran in" in p.message]
    assert len(left) == 1 and left[0].kind == "execution", tool.grades["deep_tool"].problems
    assert second.grades["deep"].scores == full and third.grades["honest"].scores == full
    assert not (first.course / grade.SCRATCH).exists() and not (tool.course / grade.SCRATCH).exists()


def test_a_disk_filler_leaves_at_most_the_bound_on_disk(graded):
    _, before, real = graded
    print(f"disk used by the course and the temporary folder: {before / MB:.0f} MB before, "
          f"{real.peak / MB:.0f} MB at most while grading, {real.after / MB:.0f} MB after")
    assert real.code == 0, real.out
    assert real.peak - before < limits.WRITE_SIZE, "the filler's writes reached the disk"
    assert real.after - before < limits.WRITE_SIZE
    kept = real.course / "autograded" / "filler"
    assert not list(kept.rglob("fill-*.bin"))
    assert real.grades["filler"].graded


def test_a_crashed_runs_deep_leftovers_do_not_stop_the_next_run(mini_course, tmp_path):
    """A run killed while a hand-in's tree lay in COURSE/.grading: the next run clears it (any
    depth, any mode) and grades."""
    from tests.project.test_trees import chain

    source, lectures = mini_course
    course = tmp_path / "course"
    shutil.copytree(source, course)
    left = course / grade.SCRATCH / "crashed" / "autograded" / "crashed"
    left.mkdir(parents=True)
    chain(left, 1_400)
    (left / "locked").mkdir()
    os.chmod(left / "locked", 0)
    subs = tmp_path / "subs"
    release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT, subs / "honest"),
                            lecture_dir=lectures)
    [honest] = grade.grade_all(subs, course, echo=lambda *_: None, workers=1, timeout=TIMEOUT)
    assert honest.graded and honest.total == sum(grade.max_points(course).values()), honest
    assert not (course / grade.SCRATCH).exists()
