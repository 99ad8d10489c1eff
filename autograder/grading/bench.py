"""`nano-course bench`: our grading against stock `nbgrader autograde`, on one generated class.

`make_class` writes N hand-ins from the course's release, a deterministic mix of perfect,
untouched, partial (the first k lectures solved) and mutated ones (mutants.py). `run` grades
that class twice, on the same machine in one run: with stock nbgrader (`nbgrader autograde nano
--force`, sequential, in a fresh copy of the course with the class in `submitted/`) and with
`grade.grade_all` (default workers, in another fresh copy). It prints seconds per side, then
compares the two gradebooks cell by cell; its last line is the ratio and whether every score
of every student, notebook and graded cell is identical.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.authoring import mutants, notebooks, release
from autograder.course import COURSE_ID
from autograder.grading import grade
from autograder.sandbox import bwrap
from autograder.gradebook import sqlite_url as gradebook_url

KINDS = ("perfect", "untouched", "partial", "mutant", "mutant")


def make_class(release_dir: Path, dest: Path, students: int) -> list[str]:
    """Write `students` hand-ins into `dest`, one folder each; return their ids, in order.

    The i-th is perfect, untouched, partial or mutated by i alone (KINDS, cycling), so two runs
    make the same class.
    """
    dest.mkdir(parents=True, exist_ok=True)
    numbers = sorted({lecture for table in release.STUDENT_FUNCTIONS.values() for lecture in table.values()})
    ids = []
    for i in range(students):
        kind = KINDS[i % len(KINDS)]
        if kind == "partial":
            solved = numbers[: 1 + (i // len(KINDS)) % (len(numbers) - 1)]
            student = f"s{i + 1:03d}-partial-{solved[-1]}"
        elif kind == "mutant":
            mutant = mutants.MUTANTS[(i // len(KINDS) * 2 + i % len(KINDS) - 3) % len(mutants.MUTANTS)]
            student = f"s{i + 1:03d}-{mutant.name}"[:64]
        else:
            student = f"s{i + 1:03d}-{kind}"
        work = release.make_workspace(release_dir, dest / student)
        if kind != "untouched":
            release.solve_workspace(work)
        if kind == "partial":
            _unsolve_after(work, release_dir, solved[-1])
        elif kind == "mutant":
            mutants.apply(work, mutant)
        ids.append(student)
    return ids


def _unsolve_after(work: Path, release_dir: Path, last: str) -> None:
    """Put the release's version back for every lecture after `last`: notebooks and modules."""
    for nb in release_dir.glob("*.ipynb"):
        if nb.name[:2] > last:
            shutil.copy2(nb, work / nb.name)
    for module, functions in release.STUDENT_FUNCTIONS.items():
        if max(functions.values()) > last:
            shutil.copy2(release_dir / "nano" / module, work / "nano" / module)


def fresh_course(course: Path, dest: Path) -> Path:
    """A copy of the built course without any grading done in it: source, release, config,
    gradebook, and the grading seed (so both sides draw the same inputs)."""
    from autograder.course import grading_seed

    grading_seed(course)  # a course built before there was one gets it now
    dest.mkdir(parents=True)
    for name in ("nbgrader_config.py", "gradebook.db", "grading_seed"):
        shutil.copy2(course / name, dest / name)
    for name in ("source", "release"):
        shutil.copytree(course / name, dest / name)
    return dest


def grade_stock(course: Path, hand_ins: Path, ids: list[str]) -> tuple[float, str]:
    """Stock nbgrader on the class: `nbgrader autograde nano --force` in `course`, whose
    submitted/ gets each hand-in. Returns (seconds, nbgrader's output)."""
    for student in ids:
        shutil.copytree(hand_ins / student, course / "submitted" / student / release.ASSIGNMENT)
    bin_dir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    started = time.perf_counter()
    done = subprocess.run([os.path.join(bin_dir, "nbgrader"), "autograde", release.ASSIGNMENT, "--force"],
                          cwd=course, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    return time.perf_counter() - started, done.stdout + done.stderr


def grade_ours(course: Path, hand_ins: Path, workers: int) -> float:
    """`nano-course grade` on the class, as the command runs it; returns seconds."""
    started = time.perf_counter()
    grade.grade_all(hand_ins, course, echo=lambda *_: None, workers=workers)
    return time.perf_counter() - started


def cell_scores(gradebook: Path) -> dict[tuple[str, str, str], tuple]:
    """(student, notebook, graded cell) -> (auto score, manual score) of every graded cell."""
    from nbgrader.api import Gradebook

    scores = {}
    with grade.autograde.quiet(), Gradebook(gradebook_url(gradebook), COURSE_ID) as gb:
        for submission in gb.find_assignment(release.ASSIGNMENT).submissions:
            for notebook in submission.notebooks:
                for cell in notebook.grades:
                    scores[submission.student.id, notebook.name, cell.name] = (cell.auto_score, cell.manual_score)
    return scores


def differences(stock: dict, ours: dict) -> list[str]:
    """Each (student, notebook, cell) whose scores differ between two `cell_scores`, in words."""
    return [f"{student} {notebook} {cell}: nbgrader {stock.get(key, 'missing')}, ours {ours.get(key, 'missing')}"
            for key in sorted(stock.keys() | ours.keys())
            for student, notebook, cell in [key] if stock.get(key) != ours.get(key)]


def cell_seconds(autograded: Path) -> float:
    """Seconds spent running cells in every autograded notebook under `autograded`, from the
    execution times nbclient records in each cell's metadata."""
    from datetime import datetime

    total = 0.0
    for path in autograded.glob(f"*/{release.ASSIGNMENT}/*.ipynb"):
        for cell in notebooks.load(path).cells:
            stamps = cell.get("metadata", {}).get("execution", {})
            if "iopub.execute_input" in stamps and "shell.execute_reply" in stamps:
                total += (datetime.fromisoformat(stamps["shell.execute_reply"].replace("Z", "+00:00"))
                          - datetime.fromisoformat(stamps["iopub.execute_input"].replace("Z", "+00:00"))
                          ).total_seconds()
    return total


def startup_costs() -> dict[str, float]:
    """What grading pays again and again, measured now on this machine, in seconds."""
    import sqlite3

    from jupyter_client.manager import start_new_kernel

    def python(code: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
        return time.perf_counter() - started

    def commit(sync: str) -> float:
        with tempfile.TemporaryDirectory(prefix="nano-bench-") as tmp:
            db = sqlite3.connect(Path(tmp, "t.db"))
            db.execute(f"PRAGMA synchronous={sync}")
            db.execute("CREATE TABLE t (x)")
            started = time.perf_counter()
            for i in range(20):
                db.execute("INSERT INTO t VALUES (?)", (i,))
                db.commit()
            db.close()
            return (time.perf_counter() - started) / 20

    bare = python("pass")
    started = time.perf_counter()
    km, kc = start_new_kernel(kernel_name="python3", stderr=subprocess.DEVNULL)
    kernel = time.perf_counter() - started
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    costs = {"python start-up": bare,
             "import anthropic (stock: in lectures 01, 05, 06)": python("import anthropic") - bare,
             "import nbgrader (each nbgrader app start)": python("import nbgrader.apps, nbgrader.converters") - bare,
             "kernel start, to ready (stock: each notebook)": kernel}
    if os.geteuid() == 0 and bwrap.available():
        costs |= forked_kernel()
    return costs | {"gradebook commit, with fsync": commit("FULL"),
                    "gradebook commit, without fsync": commit("OFF")}


def forked_kernel() -> dict[str, float]:
    """Seconds to start a student's zygote (bwrap.Zygote: it imports ipykernel and the SDK),
    and to fork a sandboxed kernel from it, to ready, as grading does for each notebook."""
    from jupyter_core.utils import run_sync

    from autograder.grading import kernels

    manager = kernels.QuietKernelManager
    with tempfile.TemporaryDirectory(prefix="nano-bench-") as tmp:
        settings = kernels.KernelSettings(runtime=Path(tmp, "ipc"))
        settings.runtime.mkdir()
        seconds = []
        try:
            for _ in range(2):  # the first start makes the zygote
                started = time.perf_counter()
                km = manager(kernel_name="python3")
                km.settings = settings
                run_sync(km.start_kernel)(cwd=tmp)
                kc = km.client()
                kc.start_channels()
                run_sync(kc.wait_for_ready)(timeout=60)
                seconds.append(time.perf_counter() - started)
                kc.stop_channels()
                run_sync(km.shutdown_kernel)(now=True)
        finally:
            settings.zygotes.close()
            bwrap.settle(settings.runtime, Path(tmp))
    return {"zygote start, as root (ours: once a student)": seconds[0] - seconds[1],
            "kernel forked from it, to ready (ours: each notebook)": seconds[1]}


def profile(students: int, sides: dict[str, tuple[float, Path]], echo=print) -> None:
    """Where the time goes: per student on each side, the wall time and the time in cells (the
    kernels' own work, the same on both sides); then the start-up costs, measured now."""
    echo("where the time goes, seconds per student:")
    echo(f"{'':26}{'wall':>9}{'in cells':>10}")
    for (side, (seconds, autograded)), note in zip(sides.items(), (
            "the rest: kernel and app start-ups, copies, gradebook writes",
            "students graded at once: their cells overlap")):
        cells = cell_seconds(autograded) / students
        echo(f"{side:26}{seconds / students:9.2f}{cells:10.2f}  ({note})")
    echo("start-up costs, measured now:")
    for what, seconds in startup_costs().items():
        echo(f"  {what:56}{seconds:8.3f} s")


def run(students: int = 50, workers: int | None = None, echo=print, profile_too: bool = False,
        keep: Path | None = None) -> bool:
    """The bench: make the class, grade it both ways, compare; True if the scores are identical."""
    workers = workers or grade.default_workers()
    with tempfile.TemporaryDirectory(prefix="nano-bench-") as tmp:
        if keep is not None and keep.exists():
            raise OSError(f"{keep} already exists: choose a new folder to keep the bench in")
        scratch = (keep or Path(tmp)).resolve()
        echo(f"building the course and a class of {students} in {scratch} ...")
        built = scratch / "built"
        release.build_course(built)
        ids = make_class(built / "release" / release.ASSIGNMENT, scratch / "class", students)

        echo("grading with stock nbgrader autograde (one student after another) ...")
        stock_course = fresh_course(built, scratch / "stock")
        stock_seconds, log = grade_stock(stock_course, scratch / "class", ids)
        (stock_course / "autograde.log").write_text(log, encoding="utf-8")
        echo(f"grading with nano-course grade ({workers} at a time) ...")
        ours_course = fresh_course(built, scratch / "ours")
        ours_seconds = grade_ours(ours_course, scratch / "class", workers)

        wrong = differences(cell_scores(stock_course / "gradebook.db"), cell_scores(ours_course / "gradebook.db"))
        echo(f"{'':26}{'seconds':>9}{'per student':>13}")
        for side, seconds in (("nbgrader autograde", stock_seconds), ("nano-course grade", ours_seconds)):
            echo(f"{side:26}{seconds:9.1f}{seconds / students:13.2f}")
        if profile_too:
            profile(students, {"nbgrader autograde": (stock_seconds, stock_course / "autograded"),
                               "nano-course grade": (ours_seconds, ours_course / "autograded")}, echo)
    for line in wrong[:20]:
        echo(f"differs: {line}")
    if len(wrong) > 20:
        echo(f"differs: ... and {len(wrong) - 20} more")
    echo(verdict(stock_seconds, ours_seconds, wrong))
    return not wrong


def verdict(stock_seconds: float, ours_seconds: float, wrong: list[str]) -> str:
    """The bench's last line: how many times faster, and whether every score matched."""
    return (f"speedup: {stock_seconds / ours_seconds:.2f}x vs nbgrader autograde, "
            f"scores identical: {'no' if wrong else 'yes'}")
