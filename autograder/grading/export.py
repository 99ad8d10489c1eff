"""The end of term: a graded class's points as the files Canvas's and Moodle's grade imports take.

`export` reads what `nano-course grade` last wrote (`results.read_grades`) and the points of each
lecture from the course's release, and writes two files, and only those two:
- canvas.csv, the Canvas gradebook import: the student columns, one column per assignment and a
  "Points Possible" row;
- moodle.csv, the Moodle CSV grade import: an "ID number" column and one "(Real)" column per
  grade item.
An optional roster (`student_id,lms_id,...`) maps our student ids to the LMS's. A graded student
the roster does not list, a roster row the gradebook does not have, and a hand-in that could not
be graded are left out of both files and listed, never guessed at.
"""

import csv
from dataclasses import dataclass
from pathlib import Path

from autograder.course import Course
from autograder.grading import results

CANVAS_FILE = "canvas.csv"
MOODLE_FILE = "moodle.csv"
FOLDER = "export"  # in the course, unless --out says otherwise

# Canvas: "How do I import grades in the Gradebook?",
# https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807
# and https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades
# (Student, ID, SIS User ID, SIS Login ID, Section, then one column per assignment). Canvas's own
# importer, app/models/gradebook_importer.rb in instructure/canvas-lms, takes a header whose
# first columns match Student, ID, SIS User ID, SIS Login ID and whose last student column is
# Section; a row whose first cell is "Points Possible" sets each assignment's points; an
# assignment column is "Title (id)" or a bare title, matched by title or created. It finds a
# student by ID (Canvas's own user id, which we never know, so it stays empty), then by SIS User
# ID, then by SIS Login ID, then by name.
CANVAS_STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_POSSIBLE = "Points Possible"

# Moodle: "Grade import", https://docs.moodle.org/311/en/Grade_import (the CSV import maps one
# column to identify users, by user id, username, ID number or email, and each other column to
# a grade item, a new item, or nothing). Its mapping form (gradeimport_csv, grade_import_form.php
# and grade/import/csv/classes/load_data.php in moodle/moodle) preselects the identifier column
# whose header is the user field's label, "ID number", and maps a column headed "NAME (Real)" to
# the grade item NAME; a user it cannot find aborts the whole import, so every row must be one.
MOODLE_ID_COLUMN = "ID number"
MOODLE_NAME_COLUMN = "Full name"
MOODLE_GRADE_SUFFIX = " (Real)"

ROSTER_COLUMNS = ("student_id", "lms_id")


class RosterError(ValueError):
    """A roster that cannot be used, and why, in one sentence."""


@dataclass(frozen=True)
class Item:
    """One column of grades: an LMS assignment (grade item), its points, and the lecture it
    scores ("01"), or None for the whole assignment's total."""

    name: str
    points: float
    lecture: str | None


@dataclass(frozen=True)
class Person:
    """A student as the LMS knows them: our id, the LMS's id, and what the LMS shows."""

    student_id: str
    lms_id: str
    name: str = ""
    section: str = ""


@dataclass(frozen=True)
class Export:
    """What `export` wrote and whom it left out."""

    canvas: Path
    moodle: Path
    items: tuple[Item, ...]
    students: tuple[str, ...]  # written, in grades.csv order
    not_in_roster: tuple[str, ...]  # graded, but the roster does not list them
    not_in_gradebook: tuple[str, ...]  # in the roster, with no grade
    not_graded: tuple[tuple[str, str], ...]  # (student, why) of hand-ins that could not be graded
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


def read_roster(path: Path) -> dict[str, Person]:
    """student_id -> Person, from a CSV whose header names student_id and lms_id (and, if it
    likes, name, section and anything else, which is ignored); RosterError if it cannot be used."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise RosterError(f"roster {path} does not exist") from None
    except IsADirectoryError:
        raise RosterError(f"roster {path} is a folder, not a CSV file") from None
    except UnicodeDecodeError:
        raise RosterError(f"roster {path} is not a CSV file (it is not UTF-8 text)") from None
    if "\0" in text:
        raise RosterError(f"roster {path} is not a CSV file (it holds binary data)")
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        raise RosterError(f"roster {path} is empty: its first line must name the columns student_id and lms_id")
    try:
        dialect = csv.Sniffer().sniff(lines[0], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = list(csv.reader(lines, dialect))
    except csv.Error as exc:
        raise RosterError(f"roster {path} is not a CSV file ({exc})") from None
    header = [column.strip().lower() for column in rows[0]]
    missing = [column for column in ROSTER_COLUMNS if column not in header]
    if missing:
        raise RosterError(f"roster {path} has no {' or '.join(missing)} column: its first line must "
                          f"name the columns student_id and lms_id (then name, section, ... if you like)")
    people: dict[str, Person] = {}
    lines_of: dict[str, int] = {}
    owner: dict[str, str] = {}  # lms_id -> student_id
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        cells = {column: (row[i].strip() if i < len(row) else "") for i, column in enumerate(header)}
        student, lms_id = cells["student_id"], cells["lms_id"]
        if not student or not lms_id:
            raise RosterError(f"roster {path} line {number} has no {'student_id' if not student else 'lms_id'}")
        if student in people:
            raise RosterError(f"roster {path} lists student {student} twice (lines {lines_of[student]} and {number})")
        if lms_id in owner:
            raise RosterError(f"roster {path} gives lms_id {lms_id} to both {owner[lms_id]} and {student} "
                              f"(line {number})")
        people[student] = Person(student, lms_id, cells.get("name", ""), cells.get("section", ""))
        lines_of[student], owner[lms_id] = number, student
    return people


def export(course: Path, out: Path | None = None, roster: Path | None = None, total: bool = False) -> Export:
    """Write OUT/canvas.csv and OUT/moodle.csv (OUT defaults to COURSE/export) from the course's
    grades; the roster, if any, is read first, so that a bad one writes nothing."""
    course = Path(course)
    people = read_roster(roster) if roster is not None else None
    columns = items(course, total)
    grades = results.read_grades(course)
    if not grades:
        raise ValueError(f"{course} has no grades yet: grade the class first "
                         f"(nano-course grade SUBMISSIONS --course {course})")
    graded = [g for g in grades if g.graded]
    not_graded = tuple((g.student, g.problem) for g in grades if not g.graded)
    if people is None:
        rows = [(g, Person(g.student, g.student, g.student)) for g in graded]
        not_in_roster: tuple[str, ...] = ()
        not_in_gradebook: tuple[str, ...] = ()
    else:
        rows = [(g, people[g.student]) for g in graded if g.student in people]
        not_in_roster = tuple(g.student for g in graded if g.student not in people)
        known = {g.student for g in grades}
        not_in_gradebook = tuple(student for student in people if student not in known)

    folder = Path(out) if out is not None else course / FOLDER
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} is a file: the export goes in a folder (--out DIR)")
    folder.mkdir(parents=True, exist_ok=True)
    canvas, moodle = folder / CANVAS_FILE, folder / MOODLE_FILE
    results.save_csv(canvas, canvas_rows(columns, rows))
    results.save_csv(moodle, moodle_rows(columns, rows))
    return Export(canvas, moodle, tuple(columns), tuple(g.student for g, _ in rows), not_in_roster,
                  not_in_gradebook, not_graded, people is not None)


def score(g: results.Grade, item: Item) -> str:
    value = g.total if item.lecture is None else g.scores.get(item.lecture, 0.0)
    return f"{round(value, 2):g}"


def canvas_rows(columns: list[Item], rows: list[tuple[results.Grade, Person]]) -> list[list[str]]:
    """Our id goes in SIS User ID unless the roster gives the LMS's; ID (Canvas's internal user
    id) and SIS Login ID stay empty, so that Canvas matches on SIS User ID alone."""
    table = [CANVAS_STUDENT_COLUMNS + [item.name for item in columns],
             [POINTS_POSSIBLE, "", "", "", ""] + [f"{item.points:g}" for item in columns]]
    for g, person in rows:
        table.append([person.name or person.student_id, "", person.lms_id, "", person.section]
                     + [score(g, item) for item in columns])
    return table


def moodle_rows(columns: list[Item], rows: list[tuple[results.Grade, Person]]) -> list[list[str]]:
    table = [[MOODLE_ID_COLUMN, MOODLE_NAME_COLUMN] + [item.name + MOODLE_GRADE_SUFFIX for item in columns]]
    for g, person in rows:
        table.append([person.lms_id, person.name or person.student_id] + [score(g, item) for item in columns])
    return table


def summary(result: Export) -> list[str]:
    """What the command prints: the files written, then whom they leave out and why."""
    def count(n: int, what: str) -> str:
        return f"{n} {what}{'s' if n != 1 else ''}"

    students = count(len(result.students), "student")
    lines = [f"wrote {result.canvas}: {students}, {count(len(result.items), 'assignment')} worth "
             f"{result.points:g} points (the Points Possible row)",
             f"wrote {result.moodle}: {students}, {count(len(result.items), 'grade item')}; its "
             f"\"{MOODLE_ID_COLUMN}\" column identifies the users"]
    if not result.roster:
        lines.append("no roster: our student ids are written as the LMS's (Canvas SIS User ID, "
                     "Moodle ID number); pass --roster FILE to map them")
    if result.not_in_roster:
        lines.append(f"graded but not in the roster, left out: {', '.join(result.not_in_roster)}")
    if result.not_in_gradebook:
        lines.append(f"in the roster but not in the gradebook, left out: {', '.join(result.not_in_gradebook)}")
    for student, why in result.not_graded:
        lines.append(f"not graded, left out: {student} ({why})")
    return lines
