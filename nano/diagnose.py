"""Errors that point at the line: where a broken nano/*.py went wrong, in one line, and what to do.

Given code, for ./ok, the setup check (`python -m nano.diagnose MODULE ...` imports each module
and reports the first that fails) and the notebooks: after you save a nano/*.py that does not
parse or fails when imported, the next cell you run says so, file and line, instead of
autoreload's traceback and the old code's error. Nothing to write here.
"""

import contextlib
import importlib
import importlib.util
import io
import logging
import os
import shutil
import sys
import traceback
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent  # the workspace: the folder holding nano/ and ok
SETUP_CHECK = "./ok 00"
HELPERS = frozenset({"testing.py", "trace.py", "server.py", "askers.py"})  # given helpers the checks call
# The packages the workspace imports that a bare Python lacks: their absence means the wrong Python.
COURSE_PACKAGES = frozenset({"anthropic", "IPython", "ipykernel", "ipywidgets", "pytest"})


def location(exc: BaseException) -> tuple[Path, int] | None:
    """Where in the workspace `exc` arose: a SyntaxError's own file and line, else the innermost
    traceback frame in a nano/*.py of yours, else the innermost in any file of the workspace."""
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        path = Path(exc.filename).resolve()
        if path.is_relative_to(ROOT):
            return path, exc.lineno
    frames = [(Path(frame.f_code.co_filename).resolve(), line)
              for frame, line in traceback.walk_tb(exc.__traceback__)]
    frames = [(path, line) for path, line in frames if path != Path(__file__).resolve()]
    yours = [(path, line) for path, line in frames
             if path.parent == PACKAGE and path.name not in HELPERS]
    anywhere = [(path, line) for path, line in frames if path.is_relative_to(ROOT)]
    return (yours or anywhere or [None])[-1]


def in_package(exc: BaseException) -> bool:
    """Did `exc` arise in a nano/*.py of yours (not in a check's own assert, or a given helper)?"""
    place = location(exc)
    return place is not None and place[0].parent == PACKAGE and place[0].name not in HELPERS


def describe(exc: BaseException) -> str:
    """One line: `nano/tools.py, line 118: SyntaxError: '(' was never closed`; without the place
    when `exc` did not arise in the workspace."""
    text = exc.msg if isinstance(exc, SyntaxError) else str(exc)
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    error = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    error = error if len(error) <= 300 else error[:297] + "..."
    place = location(exc)
    return f"{place[0].relative_to(ROOT)}, line {place[1]}: {error}" if place else error


def lacking() -> str | None:
    """The first course package this Python cannot import, without importing any; None if none."""
    return next((name for name in sorted(COURSE_PACKAGES) if importlib.util.find_spec(name) is None), None)


def missing_package(exc: BaseException) -> str | None:
    """The course package `exc` says this Python lacks (anthropic, say), if that is what it says."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.partition(".")[0]
        return top if top in COURSE_PACKAGES else None
    return None


def advice(exc: BaseException, command: str) -> str:
    """What to do about `exc`, which stopped `command` (./ok 02, say), in one sentence."""
    package = missing_package(exc)
    if package:
        return wrong_python(package, command)
    place = location(exc)
    where = f" in {place[0].relative_to(ROOT)}" if place else ""
    if isinstance(exc, SyntaxError):
        return f"Fix that line{where} and save, then run {command} again."
    if isinstance(exc, ImportError):
        return f"Fix that import{where} (a module name misspelt?), then run {command} again."
    return f"Fix that line{where}: it fails as soon as the file is imported. Then run {command} again."


def wrong_python(package: str, command: str) -> str:
    """The sentence for a Python without the course's packages: which one to use instead."""
    here = f"This Python ({sys.executable}) does not have {package}, one of the course's packages"
    python = course_python()
    if python:
        return f"{here}: run {python} {command.removeprefix('./')} instead."
    return (f"{here}: activate the environment you installed the course into (README.md, "
            f"Quick start), then run {command} again.")


def course_python() -> str | None:
    """The course's Python, when it can be found: a .venv in the workspace or a folder above it
    (./run course makes one there), else the Python that runs the nano-course command."""
    for folder in [ROOT, *ROOT.parents]:
        venv = folder / ".venv"
        if (venv / "bin" / "python").is_file():
            return None if Path(sys.prefix).resolve() == venv.resolve() else str(venv / "bin" / "python")
    script = shutil.which("nano-course")
    if script is None:
        return None
    with open(script, "rb") as handle:
        first = handle.readline().decode("utf-8", "replace").strip()
    python = first.removeprefix("#!").strip()
    return python if first.startswith("#!") and Path(python).is_file() and python != sys.executable else None


def main(modules: list[str]) -> int:
    """Import each module in turn; at the first that fails, print where and why, then what to do."""
    for name in modules:
        try:
            importlib.import_module(name)
        except (Exception, SystemExit) as exc:
            print(describe(exc))
            print(advice(exc, SETUP_CHECK))
            return 1
    return 0


# In a notebook.

def watch_notebook() -> None:
    """In an IPython kernel, install the guard on saved files once; never while nbgrader grades
    (a graded cell that writes to stderr scores 0; the files do not change then anyway)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or os.environ.get("NBGRADER_EXECUTION"):
        return
    if any(getattr(t, "is_nano_guard", False) for t in shell.ast_transformers):
        return
    guard = SavedFileGuard(shell)
    # First in line: the guard runs autoreload's check before autoreload's own callback does.
    shell.events.callbacks["pre_run_cell"].insert(0, guard.before_cell)
    shell.ast_transformers.append(guard)


class SavedFileGuard:
    """Before each cell, it runs autoreload's check itself, with autoreload's messages held back:
    if a saved nano/*.py fails to reload (it does not parse, or fails when imported), the cell is
    rejected before it runs, with the file, the line and what to do, and so is every later cell
    until that file is saved again."""

    is_nano_guard = True

    def __init__(self, shell: Any):
        self.shell = shell
        self.said: dict[str, str] = {}  # a file that failed to reload -> what went wrong
        self.problem: str | None = None

    def reloader(self) -> Any:
        magics = self.shell.magics_manager.registry.get("AutoreloadMagics")
        return getattr(magics, "_reloader", None)

    def before_cell(self, info: Any = None) -> None:
        self.problem = None
        reloader = self.reloader()
        if reloader is None or not reloader.enabled:
            return
        failures, held = [], io.StringIO()
        logger = logging.getLogger("autoreload")
        keep = Keep(failures)
        logger.addHandler(keep)
        propagate, logger.propagate = logger.propagate, False
        try:
            with contextlib.redirect_stderr(held):
                reloader.check()  # autoreload's own pre_run_cell, next in line, then finds it done
        except Exception:
            pass  # as autoreload's pre_run_cell does
        finally:
            logger.removeHandler(keep)
            logger.propagate = propagate
        ours = False
        for record in failures:
            filename = next((f for f in reloader.failed if f in record.getMessage()), None)
            if filename and Path(filename).resolve().parent == PACKAGE and record.exc_info:
                self.said[filename] = reload_failed(Path(filename), record.exc_info[1])
                ours = True
        if held.getvalue() and not ours:
            sys.stderr.write(held.getvalue())  # another module's failure: autoreload's own words
        for filename, mtime in list(reloader.failed.items()):
            with contextlib.suppress(OSError):
                if filename in self.said and os.path.getmtime(filename) == mtime:
                    self.problem = self.problem or self.said[filename]

    def visit(self, node: Any) -> Any:
        """IPython calls this with each cell's syntax tree, after the pre_run_cell callbacks."""
        problem, self.problem = self.problem, None
        if problem:
            from IPython.core.error import InputRejected

            class SavedFileFailsToLoad(InputRejected):
                def _render_traceback_(self) -> list[str]:
                    return problem.splitlines()

            raise SavedFileFailsToLoad(problem)
        return node


class Keep(logging.Handler):
    """Keeps the log records it is given (autoreload's "Failed to reload module" with the error)."""

    def __init__(self, records: list):
        super().__init__()
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def reload_failed(path: Path, exc: BaseException) -> str:
    """What a notebook says when the saved `path` failed to reload with `exc`: where and what to do."""
    name = path.resolve().relative_to(ROOT)
    how = "does not parse" if isinstance(exc, SyntaxError) else "fails when it is imported"
    return (f"{describe(exc)}\n"
            f"The saved {name} {how}, so this cell did not run (the notebook still has the last "
            f"version that worked). Fix that line and save, then run the cell again.")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
