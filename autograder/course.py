"""The facts of one built course, read once from its folder: `Course.at(folder)`.

nbgrader's course id, the assignment, the seconds a cell may run, the files students write and
the lectures of the course (its released notebooks, "01-shape-of-an-agent" is lecture "01").
The grading modules take them from here instead of working each out again.
"""

import secrets
from dataclasses import dataclass
from pathlib import Path

from autograder import limits
from autograder.authoring import release


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
        if (folder / "nbgrader_config.py").is_file():
            config = PyFileConfigLoader("nbgrader_config.py", path=str(folder)).load_config()
            if "timeout" in config.Execute:
                timeout = int(config.Execute.timeout)
        released = folder / "release" / release.ASSIGNMENT
        return cls(folder, release.COURSE_ID, release.ASSIGNMENT, timeout, tuple(release.STUDENT_FILES),
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
        from autograder.authoring import notebooks

        return {lecture_of(name): round(sum(notebooks.points(notebooks.load(self.release_dir / f"{name}.ipynb")).values()), 2)
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
