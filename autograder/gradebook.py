"""Where a course's gradebook lives: one URL for every reader and writer of it.

By default the gradebook is nbgrader's `COURSE/gradebook.db` (SQLite); a course whose
nbgrader_config.py sets `c.CourseDirectory.db_url` (a postgresql:// URL, say; `nano-course build
--db-url`) keeps it in that database instead, and stock nbgrader commands find it there too.
Students are graded in private SQLite gradebooks that hold only the assignment's structure
(`private_copy`); there the grading process reads which cells nbgrader passed (`passed_cells`) and
takes back the points the independent check did not confirm (`withdraw`), and the one process
that grades the class merges each into the course's (`merge`) and reads the points back
(`scores`, `student_scores`). Every gradebook operation of grading is here.
"""

from pathlib import Path

from autograder.course import ASSIGNMENT, COURSE_ID

# Tables that hold students and their work; the rest is the assignment's structure.
STUDENT_TABLES = {"student", "submitted_assignment", "submitted_notebook", "grade", "comment"}


class GradebookError(RuntimeError):
    """The gradebook cannot be opened: where it is (password hidden) and why, in one line."""


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{Path(path).resolve()}"


def configured_url(course: Path) -> str | None:
    """The `CourseDirectory.db_url` of the course's nbgrader_config.py, if it sets one."""
    from traitlets.config.loader import ConfigFileNotFound, PyFileConfigLoader

    try:
        config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    except ConfigFileNotFound:
        return None
    return config.CourseDirectory.db_url if "db_url" in config.CourseDirectory else None


def url(course: Path) -> str:
    """The URL of the course's gradebook: its configured db_url, else COURSE/gradebook.db."""
    return configured_url(course) or sqlite_url(Path(course) / "gradebook.db")


def check_url(db_url: str) -> str:
    """`db_url` if it names a database nbgrader can use here; ValueError, in one line, if not."""
    scheme = db_url.split("://", 1)[0] if "://" in db_url else ""
    if scheme.split("+")[0] not in ("postgresql", "sqlite"):
        raise ValueError(f"db_url {db_url!r} is not a postgresql:// (or sqlite:///) URL")
    return db_url


def shown(db_url: str) -> str:
    """`db_url` with its password hidden, for messages."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(db_url).render_as_string(hide_password=True)
    except Exception:
        return "the configured db_url"


def open_gradebook(db_url: str):
    """nbgrader's Gradebook at `db_url`, or GradebookError saying why it cannot be opened."""
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SQLAlchemyError

    try:
        return Gradebook(db_url, COURSE_ID)
    except (SQLAlchemyError, ImportError) as exc:
        reason = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [type(exc).__name__])[0]
        raise GradebookError(f"cannot open the gradebook at {shown(db_url)}: {reason}") from None


def private_copy(db_url: str, path: Path) -> None:
    """A new SQLite gradebook at `path` holding the assignment's structure from `db_url` (its
    notebooks, cells and their hidden tests) and no student: what nbgrader needs to grade one.
    Made with SQLAlchemy, not nbgrader's Gradebook, which would start `alembic` (seconds) to
    stamp a new database: the version stamp is copied instead."""
    from nbgrader.api import Base
    from sqlalchemy import create_engine, text

    with open_gradebook(db_url) as src:
        target = create_engine(sqlite_url(path))
        try:
            Base.metadata.create_all(target)
            with src.engine.connect() as read, target.begin() as write:
                for table in Base.metadata.sorted_tables:
                    if table.name not in STUDENT_TABLES:
                        rows = [dict(row._mapping) for row in read.execute(table.select())]
                        if rows:
                            write.execute(table.insert(), rows)
                write.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
                for (version,) in read.execute(text("SELECT version_num FROM alembic_version")):
                    write.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v)"),
                                  {"v": version})
        finally:
            target.dispose()


def passed_cells(path: Path, student: str) -> set[str]:
    """The graded cells nbgrader gave points in the private gradebook at `path` (sqlite)."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(sqlite_url(path), COURSE_ID) as gb:
        try:
            submission = gb.find_submission(ASSIGNMENT, student)
        except MissingEntry:
            return set()
        return {grade.name for nb in submission.notebooks for grade in nb.grades if grade.auto_score}


def withdraw(path: Path, student: str, zero: set[str], held: set[str]) -> list[tuple[str, str]]:
    """In the private gradebook at `path`, take back the points of the cells in `zero` and `held`
    that nbgrader gave points; mark the `held` ones for manual grading (nbgrader's formgrader
    lists them). Returns (notebook, cell) of each held cell so marked."""
    from nbgrader.api import Gradebook, MissingEntry

    marked = []
    with Gradebook(sqlite_url(path), COURSE_ID) as gb:
        try:
            submission = gb.find_submission(ASSIGNMENT, student)
        except MissingEntry:
            return []
        for nb in submission.notebooks:
            for grade in nb.grades:
                if not grade.auto_score or grade.name not in zero | held:
                    continue
                grade.auto_score = 0.0
                if grade.name in held:
                    grade.needs_manual_grade = True
                    marked.append((nb.name, grade.name))
        gb.db.commit()
    return marked


def merge(source_url: str, target_url: str, student: str) -> None:
    """Copy `student`'s submission, grades and comments from one gradebook into another,
    replacing what the target held for them."""
    from nbgrader.api import MissingEntry

    with open_gradebook(source_url) as src, open_gradebook(target_url) as dst:
        dst.update_or_create_student(student)
        try:
            dst.remove_submission(ASSIGNMENT, student)
        except MissingEntry:
            pass
        try:
            theirs = src.find_submission(ASSIGNMENT, student)
        except MissingEntry:  # nothing nbgrader could read: a submission of zeros
            for nb in dst.add_submission(ASSIGNMENT, student).notebooks:
                for grade in nb.grades:
                    grade.auto_score, grade.needs_manual_grade = 0.0, False
            dst.db.commit()
            return
        dst.add_submission(ASSIGNMENT, student, timestamp=theirs.timestamp,
                           extension=theirs.extension)
        for nb in theirs.notebooks:
            ours = dst.find_submission_notebook(nb.name, ASSIGNMENT, student)
            ours.flagged = nb.flagged
            ours.late_submission_penalty = nb.late_submission_penalty
            for grade in nb.grades:
                into = dst.find_grade(grade.name, nb.name, ASSIGNMENT, student)
                into.auto_score, into.manual_score = grade.auto_score, grade.manual_score
                into.extra_credit, into.needs_manual_grade = grade.extra_credit, grade.needs_manual_grade
            for comment in nb.comments:
                into = dst.find_comment(comment.name, nb.name, ASSIGNMENT, student)
                into.auto_comment, into.manual_comment = comment.auto_comment, comment.manual_comment
        dst.db.commit()


def scores(course: Path, lectures: dict[str, str]) -> dict[str, dict[str, float]]:
    """Student -> points per lecture, for every student the course's gradebook holds a
    submission of (graded by any run, or by stock nbgrader)."""
    numbers = sorted(set(lectures.values()))
    found: dict[str, dict[str, float]] = {}
    with open_gradebook(url(course)) as gb:
        for name, number in lectures.items():
            for row in gb.notebook_submission_dicts(name, ASSIGNMENT):
                scores = found.setdefault(row["student"], {k: 0.0 for k in numbers})
                scores[number] = round(float(row["score"] or 0.0), 3)
    return found


def student_scores(course: Path, student: str, lectures: dict[str, str]) -> dict[str, float]:
    """Points per lecture of `student` in the course's gradebook (0 where it holds none)."""
    from nbgrader.api import MissingEntry

    scores = {number: 0.0 for number in lectures.values()}
    with open_gradebook(url(course)) as gb:
        try:
            submission = gb.find_submission(ASSIGNMENT, student)
        except MissingEntry:
            return scores
        for notebook in submission.notebooks:
            if notebook.name in lectures:
                scores[lectures[notebook.name]] = round(float(notebook.score or 0.0), 3)
    return scores
