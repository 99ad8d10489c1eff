"""`nano-course check NN`: does lecture NN's notebook grade what it should?

Runs the instructor's notebook against the reference with `pytest --nbval-lax` (every cell must
run clean) and the released notebook in a fresh student workspace (every graded test cell must
fail on the stubs, or it would give points for nothing), and prints one row per graded cell.

nbval does not look at stderr, and nbgrader scores a graded cell that writes there 0, so this
module is also the small pytest plugin (`-p autograder.authoring.audit`) that fails such a cell
and writes one `CellRun` per code cell for `check_lecture` to read.

`nano-course check NN --behaviours` runs the lecture's graded behaviours instead (the independent
check, autograder/check/) in the sandbox on the reference, on each of the lecture's mutants and on
each of its alternatives (`check_behaviours`).
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import nbformat
import pytest

from autograder.authoring import notebooks, release

CELL_TIMEOUT = 120  # seconds a cell of the instructor's notebook may take against the reference
REPORT_OPTION = "--nano-cell-report"


@dataclass(frozen=True)
class CellRun:
    """One code cell of a notebook as nbval ran it: None if it ran clean, else the error's one line."""
    cell_id: str
    problem: str | None


def run_clean(nb: nbformat.NotebookNode, folder: Path, timeout: int = CELL_TIMEOUT) -> dict[str, str | None]:
    """Run `nb` from `folder` with `pytest --nbval-lax`, headless; cell id -> None or its problem.

    The notebook is written next to the lectures (a hidden file, removed afterwards) because its
    setup cell finds the workspace root from where it runs.
    """
    import nbval  # noqa: F401  (the plugin the pytest below loads; named here if it is missing)

    with tempfile.TemporaryDirectory(prefix="nano-nbval-") as tmp:
        report = Path(tmp, "cells.jsonl")
        handle, name = tempfile.mkstemp(prefix=".nbval-", suffix=".ipynb", dir=folder)
        path = Path(name)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(notebooks.render(nb))
            done = subprocess.run(
                [sys.executable, "-m", "pytest", path.name, "-q", "-p", "no:cacheprovider", "-p", __name__,
                 "--nbval-lax", "--nbval-current-env", f"--nbval-cell-timeout={timeout}",
                 f"{REPORT_OPTION}={report}"],
                cwd=folder, env={**os.environ, "NANO_HEADLESS": "1"}, capture_output=True, text=True)
        finally:
            path.unlink(missing_ok=True)
        runs = [CellRun(**json.loads(line)) for line in report.read_text().splitlines()] \
            if report.exists() else []
    if done.returncode not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or not runs:
        said = (done.stdout + done.stderr).strip().splitlines() or ["no output"]
        raise RuntimeError(f"pytest --nbval-lax could not run the notebook (exit {done.returncode}): {said[-1]}")
    found = {run.cell_id: run.problem for run in runs}
    return {c.get("id"): found.get(c.get("id"), "not run by nbval")
            for c in nb.cells if c.cell_type == "code"}


def pytest_addoption(parser):
    parser.addoption(REPORT_OPTION, help="file to append one JSON CellRun per notebook code cell to")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Record each cell nbval ran; fail a graded cell that wrote to stderr, as nbgrader would."""
    report = (yield).get_result()
    path = item.config.getoption("nano_cell_report")
    if not path or not hasattr(item, "cell") or call.when not in ("setup", "call"):
        return
    if call.when == "setup" and not call.excinfo:
        return
    problem = cell_problem(item, call)
    if problem and report.passed:
        report.outcome, report.longrepr = "failed", problem
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(asdict(CellRun(item.cell.get("id", item.name), problem))) + "\n")


def cell_problem(item, call) -> str | None:
    outputs = getattr(item, "test_outputs", None) or []
    errors = [o for o in outputs if o.get("output_type") == "error"]
    if call.excinfo:
        if errors and not item.parent.timed_out:
            return f"{errors[0]['ename']}: {errors[0]['evalue']}"[:200]
        return str(call.excinfo.value).splitlines()[0][:200]
    stderr = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stderr")
    if stderr and item.cell.metadata.get("nbgrader", {}).get("grade"):
        return "wrote to stderr (nbgrader scores such a cell 0): " + stderr[:150].replace("\n", " ")
    return None


def check_lecture(number: str, root: Path = release.ROOT, echo=print) -> bool:
    sources = [s for s in notebooks.sources(root / "lectures") if s.name.startswith(f"{number}-")]
    if not sources:
        raise SystemExit(f"no lecture {number} in {root / 'lectures' / 'src'}")
    source_path = sources[0]
    stale = notebooks.sync(root / "lectures", check=True)
    if f"{source_path.stem}.ipynb" in stale:
        echo(f"note: lectures/{source_path.stem}.ipynb is out of date; run nano-course notebooks")
    nb = notebooks.build(source_path)
    echo(f"running {source_path.name} against the reference (pytest --nbval-lax) ...")
    reference_run = run_clean(nb, root / "lectures")
    with tempfile.TemporaryDirectory(prefix="nano-check-") as tmp:
        lectures = Path(tmp, "lectures")
        lectures.mkdir()
        (lectures / f"{source_path.stem}.ipynb").write_text(notebooks.render(nb), encoding="utf-8")
        released = release.build_course(Path(tmp, "course"), root, lecture_dir=lectures)
        workspace = release.make_workspace(released, Path(tmp, "student"))
        student_nb = notebooks.load(workspace / f"{source_path.stem}.ipynb")
        echo("running the released notebook on the stubs ...")
        stub_run = notebooks.execute(student_nb, workspace)

    good = True
    for index, cell in enumerate(nb.cells):
        problem = reference_run.get(cell.get("id"))
        if problem:
            good = False
            echo(f"  FAIL  reference: cell {index} ({cell.get('id')}): {problem}")
    by_id = {c.get("id"): r for c, r in zip(student_nb.cells, stub_run)}
    total = 0.0
    echo(f"  {'graded cell':44} {'points':>6}  reference  stubs")
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("grade"):
            continue
        problem = reference_run.get(cell.get("id"))
        total += meta["points"]
        on_stubs = by_id.get(cell.get("id"), "missing from the release")
        passes_stubs = on_stubs is None
        good &= problem is None and not passes_stubs
        echo(f"  {meta['grade_id']:44} {meta['points']:6.2f}  {'ok' if problem is None else 'FAILS':9}  "
             f"{'PASSES (gives free points)' if passes_stubs else 'fails (good)'}")
    echo(f"  {'total':44} {total:6.2f}")
    echo(f"lecture {number}: {'ok' if good else 'problems above'}")
    return good


def check_behaviours(number: str, *, unsafe: bool = False, built: Path | None = None, echo=print) -> bool:
    """Build the course, then run lecture `number`'s behaviours on the reference, on each of its
    mutants (each must be refused somewhere in the lecture) and on each of its alternatives (each
    must be confirmed everywhere); print what each judge said. True if all is as it should be."""
    from autograder.authoring import alternatives, mutants
    from autograder.check.independent import (PASSED, Verdict, check_files, course_behaviours, keyed,
                                              student_files)

    seed = f"{random.SystemRandom().randrange(2**31)}"
    with tempfile.TemporaryDirectory(prefix="nano-try-") as tmp:
        course = built or Path(tmp) / "course"
        if built is None:
            release.build_course(course)
        lecture = keyed([b for b in course_behaviours(course) if b.grade_id[1:3] == number])
        if not lecture:
            echo(f"lecture {number} has no behaviours in this course")
            return False
        solved = release.solve_workspace(release.make_workspace(
            course / "release" / release.ASSIGNMENT, Path(tmp) / "solved"))

        def verdicts(edit=None) -> list[Verdict]:
            work = Path(tmp) / "work"
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(solved, work)
            if edit is not None:
                mutants.apply(work, edit)
            files, answers = student_files(work)
            return [r.verdict for r in check_files(course, files, answers, seed, "author", lecture, unsafe=unsafe)]

        good = True
        for v in verdicts():
            good &= v.state == PASSED
            echo(f"  reference  {v.key:50} {'ok' if v.state == PASSED else v.state.upper() + ': ' + (v.message or v.detail)}")
        for kind, catalogue, want_refused in (("mutant", mutants.MUTANTS + mutants.MORE_MUTANTS, True),
                                              ("alternative", getattr(alternatives, "ALTERNATIVES", []), False)):
            for edit in [e for e in catalogue if e.lecture == number]:
                refused = [v.key for v in verdicts(edit) if v.state != PASSED]
                right = bool(refused) == want_refused or getattr(edit, "contested", False)
                good &= right
                echo(f"  {kind:11} {edit.name:50} {'refused by ' + ', '.join(refused) if refused else 'confirmed everywhere'}"
                     f"{'' if right else '   <-- WRONG'}")
    echo(f"lecture {number}: {'as it should be' if good else 'problems above'}")
    return good
