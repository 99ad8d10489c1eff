"""The class list: who each student is in the course (our student id) and in each LMS.

One CSV, read by intake (an LMS download names hand-ins by the LMS's ids and names) and by
export (each LMS's grade import matches students by its own ids). Its first line names the
columns, in any order and case, separated by commas, semicolons or tabs; only `student_id` is
required, and each other column is one way an LMS knows the student:

    student_id          our id: the one grades.csv, the gradebook and the feedback use
    name                the full name as the LMS shows it ("Hopper, Grace" or "Grace Hopper")
    canvas_id           Canvas's numeric user id: the ID column of its gradebook export, the
                        12345 of a Canvas download's `hoppergrace_12345_678_nano.zip`
    sis_id              Canvas's SIS User ID (the institution's student number)
    moodle_participant  Moodle's participant id for the assignment: the 12345 of a Moodle
                        download's `Grace Hopper_12345_assignsubmission_file_/`
    idnumber            Moodle's "ID number" user field, which its grade import can match on
    email               the student's email, which Moodle's grade import can match on too
    section             the Canvas section, written to its export as it is
    lms_id              older rosters' one LMS id: read as sis_id and idnumber both

Other columns are ignored. A column's values must be unique where given (two students with one
canvas_id is a roster error); names may repeat, and then do not identify anyone.
"""

import csv
import unicodedata
from dataclasses import dataclass, fields
from pathlib import Path

# column -> what it is, for messages; "lms_id" is read into sis_id and idnumber
COLUMNS = {
    "student_id": "our student id",
    "name": "full name",
    "canvas_id": "Canvas user id",
    "sis_id": "Canvas SIS User ID",
    "moodle_participant": "Moodle participant id",
    "idnumber": "Moodle ID number",
    "email": "email",
    "section": "section",
}
UNIQUE = ("canvas_id", "sis_id", "moodle_participant", "idnumber", "email")
LEGACY = "lms_id"


class RosterError(ValueError):
    """A roster that cannot be used, and why, in one sentence."""


@dataclass(frozen=True)
class Person:
    """One student of the roster: our id and each id the LMSs know them by ("" where not given)."""

    student_id: str
    name: str = ""
    canvas_id: str = ""
    sis_id: str = ""
    moodle_participant: str = ""
    idnumber: str = ""
    email: str = ""
    section: str = ""


@dataclass(frozen=True)
class Roster:
    """The people of one roster file, in its order, and the columns it gave."""

    path: Path
    people: tuple[Person, ...]
    columns: frozenset[str]  # of COLUMNS, those the file has (lms_id counted as sis_id and idnumber)

    def by_student(self) -> dict[str, Person]:
        return {p.student_id: p for p in self.people}

    def find(self, column: str, value: str) -> Person | None:
        """The one person whose `column` is `value` (ids compared as text, names folded: case,
        accents, spaces and the order of "Last, First"); None if nobody or, for names, several."""
        if not value:
            return None
        if column == "name":
            key = name_key(value)
            found = [p for p in self.people if p.name and name_key(p.name) == key]
        else:
            found = [p for p in self.people if getattr(p, column) == value.strip()]
        return found[0] if len(found) == 1 else None


def name_key(name: str) -> tuple[str, ...]:
    """A full name as a key that "Hopper, Grace", "grace  hopper" and "Grace Hopper" share: the
    words, without case or accents, sorted."""
    plain = unicodedata.normalize("NFKD", name.replace(",", " "))
    plain = "".join(c for c in plain if not unicodedata.combining(c)).casefold()
    return tuple(sorted(plain.split()))


def read(path: Path) -> Roster:
    """The roster in the CSV at `path`, or RosterError in one sentence that names the file."""
    said = f"roster {path}"
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise RosterError(f"{said} does not exist") from None
    except IsADirectoryError:
        raise RosterError(f"{said} is a folder, not a CSV file") from None
    if data.startswith(b"PK\x03\x04"):
        raise RosterError(f"{said} is not a CSV file (it is a spreadsheet or a zip: save it as "
                          "CSV, e.g. File > Save As > CSV UTF-8)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RosterError(f"{said} is not a CSV file (it is not UTF-8 text)") from None
    if "\0" in text:
        raise RosterError(f"{said} is not a CSV file (it holds binary data)")
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        raise RosterError(f"{said} is empty: its first line must name its columns, student_id first")
    try:
        dialect = csv.Sniffer().sniff(lines[0], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = list(csv.reader(lines, dialect))
    except csv.Error as exc:
        raise RosterError(f"{said} is not a CSV file ({exc})") from None
    header = [column.strip().lower().replace(" ", "_") for column in rows[0]]
    known = [c for c in header if c in COLUMNS or c == LEGACY]
    if "student_id" not in header or len(known) < 2:
        missing = "student_id column" if "student_id" not in header else "column that names an LMS's id"
        raise RosterError(f"{said} has no {missing}: its first line must name student_id and at "
                          f"least one of {', '.join(c for c in COLUMNS if c != 'student_id')} "
                          f"(or {LEGACY})")
    people: list[Person] = []
    line_of: dict[tuple[str, str], int] = {}  # (column, value) -> the line that gave it
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        cells = {column: (row[i].strip() if i < len(row) else "") for i, column in enumerate(header)}
        if cells.get(LEGACY):
            cells.setdefault("sis_id", "")
            cells.setdefault("idnumber", "")
            cells["sis_id"] = cells["sis_id"] or cells[LEGACY]
            cells["idnumber"] = cells["idnumber"] or cells[LEGACY]
        person = Person(**{f.name: cells.get(f.name, "") for f in fields(Person)})
        if not person.student_id:
            raise RosterError(f"{said} line {number} has no student_id")
        if not any(getattr(person, c) for c in COLUMNS if c != "student_id"):
            raise RosterError(f"{said} line {number} gives {person.student_id} no other column")
        for column in ("student_id",) + UNIQUE:
            value = getattr(person, column)
            if not value:
                continue
            if (column, value) in line_of:
                what = "lists student" if column == "student_id" else f"gives {column}"
                raise RosterError(f"{said} {what} {value} twice (lines {line_of[column, value]} and {number})")
            line_of[column, value] = number
        people.append(person)
    given = {c for c in header if c in COLUMNS} | ({"sis_id", "idnumber"} if LEGACY in header else set())
    return Roster(Path(path), tuple(people), frozenset(given))
