"""The end of term: a graded class's points as the files Canvas's and Moodle's grade imports take.

`export` reads what `nano-course grade` last wrote (`results.read_grades`) and the points of each
lecture from the course's release, and writes two files, and only those two:
- canvas.csv, the Canvas gradebook import: the student columns, one column per assignment and a
  "Points Possible" row;
- moodle.csv, the Moodle CSV grade import: a column that identifies the user ("ID number" or
  "Email address") and one "(Real)" column per grade item.
An optional roster (roster.py, the class list intake reads too) gives the ids each LMS matches
students by. A graded student the roster does not list, a roster row the gradebook does not
have, and a student the roster gives no id an LMS matches on are left out of that file and
listed, never guessed at. A hand-in that could not be graded is listed, and written as 0 only
when asked (`zero_refused`).
"""

from dataclasses import dataclass
from pathlib import Path

from autograder.course import Course
from autograder.grading import results, roster as rosters
from autograder.grading.roster import Person

CANVAS_FILE = "canvas.csv"
MOODLE_FILE = "moodle.csv"
FOLDER = "export"  # in the course, unless --out says otherwise

# Canvas: "How do I import grades in the Gradebook?",
# https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807
# and https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades
# (Student, ID, SIS User ID, SIS Login ID, Section, then one column per assignment). Canvas's own
# importer, app/models/gradebook_importer.rb in instructure/canvas-lms, takes a header whose
# first columns match Student, ID, SIS User ID, SIS Login ID and whose last student column is
# Section; a row whose first cell is "Points Possible" sets each assignment's points; every other
# column is an assignment, "Title (id)" or a bare title, matched by title or created ("New
# assignment columns in the Gradebook generate new assignments", OSU's guide). It finds a student
# by ID (Canvas's numeric user id: the roster's canvas_id), then by SIS User ID (the roster's
# sis_id; our id without a roster), then by SIS Login ID, then by name. We write each id the
# roster gives, and leave out a student it gives neither, whom only a name would match.
CANVAS_STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_IDS = {"canvas_id": "ID (the Canvas user id)", "sis_id": "SIS User ID"}  # roster column -> as said
POINTS_POSSIBLE = "Points Possible"

# Moodle: "Grade import", https://docs.moodle.org/311/en/Grade_import (the CSV import maps one
# column to identify users, by user id, username, ID number or email, and each other column to a
# grade item, a new item, a grade item's feedback, or nothing). Its mapping form
# (grade/import/grade_import_form.php in moodle/moodle) asks "Map from" (a column of the file,
# the first by default) and "Map to" (User ID, Username, ID number, Email address; User ID, the
# first, by default); grade/import/csv/classes/load_data.php looks each row's user up by that
# field, and one it cannot find aborts the whole import, so every row must be a user it knows.
MOODLE_IDS = {"idnumber": "ID number", "email": "Email address"}  # roster column -> header and Map to, first preferred
MOODLE_NAME_COLUMN = "Full name"
MOODLE_GRADE_SUFFIX = " (Real)"

# A hand-in that could not be graded gets no column saying why: Canvas would take a "Notes" or
# "Reason" column for an assignment of that name and create it, text grades and all, and Moodle
# would offer it as one more column to map. Nor is it written as 0 unasked: both imports
# overwrite the grade the LMS holds, which the instructor may have given by hand, and the
# hand-in may yet be fixed and graded again. So it is left out and listed, with its reason and
# the flag that writes it as 0 (`zero_refused`: nano-course export --zero-refused); never a blank.


@dataclass(frozen=True)
class Item:
    """One column of grades: an LMS assignment (grade item), its points, and the lecture it
    scores ("01"), or None for the whole assignment's total."""

    name: str
    points: float
    lecture: str | None


@dataclass(frozen=True)
class Written:
    """One of the two files, or why it was not written: whom it holds, whom it left out."""

    path: Path | None  # None: not written, for `why`
    students: tuple[str, ...] = ()  # our ids, in grades.csv order
    unmatched: tuple[str, ...] = ()  # in the roster, but without an id this LMS matches on
    identifier: str = ""  # what identifies the students in it, as the LMS calls it
    why: str = ""


@dataclass(frozen=True)
class Export:
    """What `export` wrote and whom it left out."""

    canvas: Written
    moodle: Written
    items: tuple[Item, ...]
    not_in_roster: tuple[str, ...]  # graded, but the roster does not list them
    not_in_gradebook: tuple[str, ...]  # in the roster, with no grade
    not_graded: tuple[tuple[str, str], ...]  # (student, why) of hand-ins that could not be graded
    zeroed: bool  # those are written as 0 (zero_refused)
    roster: bool

    @property
    def points(self) -> float:
        return round(sum(item.points for item in self.items), 2)


def items(course: Path, total: bool = False) -> list[Item]:
    """The grade columns: one per lecture with its points from the course's release, or one for
    the whole assignment (their sum)."""
    facts = Course.at(course)
    points = facts.max_points()
    if not points:
        raise ValueError(f"{course} is not a built course: it has no release/{facts.assignment}/*.ipynb")
    if total:
        return [Item(facts.assignment, round(sum(points.values()), 2), None)]
    return [Item(f"{facts.assignment} {facts.notebook(number)}", points[number], number) for number in sorted(points)]


def export(course: Path, out: Path | None = None, roster: Path | None = None, total: bool = False,
           zero_refused: bool = False) -> Export:
    """Write OUT/canvas.csv and OUT/moodle.csv (OUT defaults to COURSE/export) from the course's
    grades; the roster, if any, is read first, so that a bad one writes nothing. `zero_refused`
    writes the hand-ins that could not be graded too, with 0 in every column."""
    course = Path(course)
    people = rosters.read(roster) if roster is not None else None
    if people is not None and not people.columns & {*CANVAS_IDS, *MOODLE_IDS}:
        raise rosters.RosterError(f"roster {roster} gives no id Canvas or Moodle finds students by: add a column "
                                  f"{', '.join([*CANVAS_IDS, *MOODLE_IDS])} (or lms_id)")
    columns = items(course, total)
    grades = results.read_grades(course)
    if not grades:
        raise ValueError(f"{course} has no grades yet: grade the class first "
                         f"(nano-course grade SUBMISSIONS --course {course})")
    written = [g for g in grades if g.graded or zero_refused]
    not_graded = tuple((g.student, g.problem) for g in grades if not g.graded)
    if people is None:  # our ids are the LMS's: Canvas's SIS User ID, Moodle's ID number
        rows = [(g, Person(g.student, g.student, sis_id=g.student, idnumber=g.student)) for g in written]
        given = frozenset({"sis_id", "idnumber"})
        not_in_roster: tuple[str, ...] = ()
        not_in_gradebook: tuple[str, ...] = ()
    else:
        listed = people.by_student()
        rows = [(g, listed[g.student]) for g in written if g.student in listed]
        given = people.columns
        not_in_roster = tuple(g.student for g in written if g.student not in listed)
        known = {g.student for g in grades}
        not_in_gradebook = tuple(p.student_id for p in people.people if p.student_id not in known)

    folder = Path(out) if out is not None else course / FOLDER
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} is a file: the export goes in a folder (--out DIR)")
    folder.mkdir(parents=True, exist_ok=True)
    return Export(_canvas(folder / CANVAS_FILE, columns, rows, given),
                  _moodle(folder / MOODLE_FILE, columns, rows, given), tuple(columns), not_in_roster,
                  not_in_gradebook, not_graded, zero_refused, people is not None)


def _canvas(path: Path, columns: list[Item], rows: list[tuple[results.Grade, Person]], given) -> Written:
    ids = [column for column in CANVAS_IDS if column in given]
    if not ids:
        return Written(None, why="the roster has no canvas_id or sis_id column, which Canvas finds students by")
    found = [(g, p) for g, p in rows if p.canvas_id or p.sis_id]
    results.save_csv(path, canvas_rows(columns, found))
    return Written(path, tuple(g.student for g, _ in found),
                   tuple(p.student_id for _, p in rows if not (p.canvas_id or p.sis_id)),
                   ", else ".join(CANVAS_IDS[column] for column in ids))


def _moodle(path: Path, columns: list[Item], rows: list[tuple[results.Grade, Person]], given) -> Written:
    column = next((column for column in MOODLE_IDS if column in given), None)
    if column is None:
        return Written(None, why="the roster has no idnumber or email column, which Moodle's import finds users by")
    found = [(g, p) for g, p in rows if getattr(p, column)]
    results.save_csv(path, moodle_rows(columns, found, column))
    return Written(path, tuple(g.student for g, _ in found),
                   tuple(p.student_id for _, p in rows if not getattr(p, column)), MOODLE_IDS[column])


def score(g: results.Grade, item: Item) -> str:
    value = g.total if item.lecture is None else g.scores.get(item.lecture, 0.0)
    return f"{round(value, 2):g}"


def canvas_rows(columns: list[Item], rows: list[tuple[results.Grade, Person]]) -> list[list[str]]:
    """ID gets the roster's canvas_id and SIS User ID its sis_id, each where given; SIS Login ID
    stays empty."""
    table = [CANVAS_STUDENT_COLUMNS + [item.name for item in columns],
             [POINTS_POSSIBLE, "", "", "", ""] + [f"{item.points:g}" for item in columns]]
    for g, person in rows:
        table.append([person.name or person.student_id, person.canvas_id, person.sis_id, "", person.section]
                     + [score(g, item) for item in columns])
    return table


def moodle_rows(columns: list[Item], rows: list[tuple[results.Grade, Person]], identifier: str) -> list[list[str]]:
    """The column `identifier` of the roster (one of MOODLE_IDS), the name, then the grades."""
    table = [[MOODLE_IDS[identifier], MOODLE_NAME_COLUMN] + [item.name + MOODLE_GRADE_SUFFIX for item in columns]]
    for g, person in rows:
        table.append([getattr(person, identifier), person.name or person.student_id]
                     + [score(g, item) for item in columns])
    return table


def summary(result: Export) -> list[str]:
    """What the command prints: each file and how to import it, then whom they leave out and why."""
    def count(n: int, what: str) -> str:
        return f"{n} {what}{'s' if n != 1 else ''}"

    canvas, moodle = result.canvas, result.moodle
    lines = [f"{CANVAS_FILE} not written: {canvas.why}" if canvas.path is None else
             f"wrote {canvas.path}: {count(len(canvas.students), 'student')}, "
             f"{count(len(result.items), 'assignment')} worth {result.points:g} points (the Points Possible "
             f"row); Canvas finds each student by {canvas.identifier}",
             f"{MOODLE_FILE} not written: {moodle.why}" if moodle.path is None else
             f"wrote {moodle.path}: {count(len(moodle.students), 'student')}, "
             f"{count(len(result.items), 'grade item')}; in Moodle's import form set Map from "
             f"\"{moodle.identifier}\" and Map to \"{moodle.identifier}\" (Map to defaults to User ID, "
             "which finds no one), and map each (Real) column to its grade item"]
    if not result.roster:
        lines.append("no roster: our student ids are written as the LMS's (Canvas SIS User ID, Moodle "
                     "ID number); pass --roster FILE to map them")
    if result.not_in_roster:
        lines.append(f"not in the roster, left out: {', '.join(result.not_in_roster)}")
    if result.not_in_gradebook:
        lines.append(f"in the roster but not in the gradebook, left out: {', '.join(result.not_in_gradebook)}")
    if canvas.unmatched:
        lines.append(f"no canvas_id or sis_id in the roster, left out of {CANVAS_FILE}: {', '.join(canvas.unmatched)}")
    if moodle.unmatched:
        column = next(c for c, label in MOODLE_IDS.items() if label == moodle.identifier)
        lines.append(f"no {column} in the roster, left out of {MOODLE_FILE}: {', '.join(moodle.unmatched)}")
    for student, why in result.not_graded:
        lines.append(f"not graded, written as 0: {student} ({why})" if result.zeroed else
                     f"not graded, left out: {student} ({why}); grade it again, or pass --zero-refused "
                     "to write it as 0")
    return lines
