"""What a nano course is: its constants, whether a folder is one, and the facts of one built
course, read once from its folder (`Course.at(folder)`).

nbgrader's course id, the assignment, the seconds a cell may run, the files students write and
the lectures of the course (its released notebooks, "01-shape-of-an-agent" is lecture "01").
The grading and authoring modules take them from here instead of working each out again; it
is part of the base, which every other part imports and which imports none of them.
"""

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from autograder import limits, notebook

ROOT = Path(__file__).resolve().parents[1]  # the repository: the reference nano/, lectures/, fixtures/

ASSIGNMENT = "nano"  # the one assignment: its folders in source/, release/, submitted/...
COURSE_ID = "nano"  # nbgrader's course id, unless the instructor set another
CONFIG = "nbgrader_config.py"
# Each function students write, by module, with its lecture. The stub messages, the grader's
# `exclude_overwriting` and the tests read this table; release.stub_source checks the modules
# against it.
STUDENT_FUNCTIONS: dict[str, dict[str, str]] = {
    "protocol.py": {"warmup": "01"},
    "tools.py": {"read_file": "02", "list_files": "02", "run_tool": "02",
                 "inside_project": "03", "write_file": "03", "edit_file": "03", "bash": "03"},
    "gate.py": {"preview": "04", "confirm": "04"},
    "model.py": {"call_model": "05"},
    "loop.py": {"agent_loop": "05"},
    "repl.py": {"main": "06"},
}
STUDENT_FILES = [f"nano/{name}" for name in STUDENT_FUNCTIONS]
PROJECT = Path(__file__).resolve().parents[1]  # the checkout, when nano-course runs from one


def default_course() -> Path:
    """The course a command works on without --course: $NANO_COURSE, else build/course in the
    checkout nano-course is installed from (wherever the command is run), else ./build/course."""
    if os.environ.get("NANO_COURSE"):
        return Path(os.environ["NANO_COURSE"])
    if (PROJECT / "pyproject.toml").is_file() and (PROJECT / "autograder").is_dir():
        return PROJECT / "build" / "course"
    return Path("build") / "course"


def refusal(folder: Path, built: bool = True) -> str | None:
    """Why `folder` is not a nano course to work on, in one sentence; None when it is one.

    A nano course is what nano-course build writes: an nbgrader_config.py with the course's
    settings and, once `built`, the release of the assignment. Another nbgrader course, a
    student's workspace and any other folder are named as what they are.
    """
    folder = Path(folder)
    build = f"nano-course build --out {folder}"
    names = ("--course names the folder nano-course build made" if built
             else "build writes a course in a new or empty folder, or builds a nano course again")
    if not folder.exists():
        return f"there is no course at {folder}: build one there first with {build} (or check --course)"
    if not folder.is_dir():
        return f"{folder} is a file, not a course folder: {names}"
    if (folder / "ok").is_file() and any(folder.glob("[0-9][0-9]-*.ipynb")):
        return f"{folder} is a student's workspace, not a course: {names}"
    if not (folder / CONFIG).is_file():
        if not built and not any(folder.iterdir()):
            return None
        return f"{folder} is not a nano course (it has no {CONFIG}): {names}"
    ours, assignments = _nbgrader_course(folder)
    if ours is None:
        return f"{folder}/{CONFIG} cannot be read: this is not a nano course as it stands"
    if not ours:
        held = f" (its assignments are {', '.join(sorted(assignments))})" if assignments else ""
        return f"this is not a nano course: {folder} is another nbgrader course{held}; {names}"
    if built and not (folder / "release" / ASSIGNMENT / "ok").is_file():
        return f"{folder} is a nano course that is not built (it has no release/{ASSIGNMENT}): run {build}"
    return None


def require(folder: Path, built: bool = True) -> None:
    """ValueError with `refusal`'s sentence unless `folder` is a nano course to work on."""
    refused = refusal(folder, built)
    if refused:
        raise ValueError(refused)


def _nbgrader_course(folder: Path) -> tuple[bool | None, set[str]]:
    """Whether the nbgrader course in `folder` is a nano course (it holds the assignment, or its
    config keeps the assignment's student files, as build writes it; None if the config cannot
    be read) and the assignments its source/ and release/ hold."""
    from traitlets.config.loader import PyFileConfigLoader

    assignments = {p.name for where in ("source", "release") if (folder / where).is_dir()
                   for p in (folder / where).iterdir() if p.is_dir() and not p.name.startswith(".")}
    try:
        config = PyFileConfigLoader(CONFIG, path=str(folder)).load_config()
    except Exception:  # traitlets runs the file: anything can go wrong in it
        return None, assignments
    kept = config.Autograde.exclude_overwriting if "exclude_overwriting" in config.Autograde else {}
    return (isinstance(kept, dict) and ASSIGNMENT in kept) or ASSIGNMENT in assignments, assignments


@dataclass(frozen=True)
class Course:
    root: Path  # the course folder (nano-course build's --out)
    course_id: str  # nbgrader's course id in the gradebook grading writes
    assignment: str  # the one assignment: its folders in source/, release/, submitted/...
    cell_timeout: int  # seconds a cell may run: the course's c.Execute.timeout
    student_files: tuple[str, ...]  # "nano/tools.py"...: what students write, kept at autograde
    notebooks: tuple[str, ...]  # the released notebooks' names without .ipynb, in lecture order

    @classmethod
    def at(cls, folder: Path) -> "Course":
        """The course built in `folder` (its nbgrader_config.py and release/); a folder with no
        release yet has no lectures."""
        from traitlets.config.loader import PyFileConfigLoader

        folder = Path(folder)
        timeout = limits.CELL_TIMEOUT
        if (folder / CONFIG).is_file():
            config = PyFileConfigLoader(CONFIG, path=str(folder)).load_config()
            if "timeout" in config.Execute:
                timeout = int(config.Execute.timeout)
        released = folder / "release" / ASSIGNMENT
        return cls(folder, COURSE_ID, ASSIGNMENT, timeout, tuple(STUDENT_FILES),
                   tuple(sorted(p.stem for p in released.glob("*.ipynb"))))

    @property
    def release_dir(self) -> Path:
        return self.root / "release" / self.assignment

    @property
    def source_dir(self) -> Path:
        return self.root / "source" / self.assignment

    @property
    def lectures(self) -> dict[str, str]:
        """Notebook name -> lecture number ("01-shape-of-an-agent" -> "01")."""
        return {name: lecture_of(name) for name in self.notebooks}

    @property
    def numbers(self) -> list[str]:
        """The lecture numbers, "01" to "06"."""
        return sorted(set(self.lectures.values()))

    @property
    def seed(self) -> str:
        """The course's grading seed (see `grading_seed`)."""
        return grading_seed(self.root)

    def notebook(self, number: str) -> str:
        """The notebook name of lecture `number`."""
        return next(name for name in self.notebooks if lecture_of(name) == number)

    def max_points(self) -> dict[str, float]:
        """Lecture number -> the points its released notebook awards."""
        return {lecture_of(name): round(sum(notebook.points(notebook.load(self.release_dir / f"{name}.ipynb")).values()), 2)
                for name in self.notebooks}


def lecture_of(notebook: str) -> str:
    """The lecture number of a notebook's name: its first two characters ("01")."""
    return notebook[:2]


SEED_FILE = "grading_seed"


def grading_seed(course: Path) -> str:
    """The seed every draw of the course's grading starts from, with the student and the
    behaviour (check/behaviour.py: rng_for): made once, at the first build or grading, and kept
    in COURSE/grading_seed, so that grading a class again draws the same inputs. Students never
    see the course folder."""
    path = Path(course) / SEED_FILE
    try:
        seed = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        seed = ""
    if not seed:
        seed = secrets.token_hex(16)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(seed + "\n", encoding="utf-8")
    return seed
