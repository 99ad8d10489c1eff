"""The LMS export: do `nano-course export`'s files have the columns Canvas's and Moodle's grade
imports document, the course's points, the right ids, and is every roster mismatch listed?

The class is two sample hand-ins (perfect, partial) graded with `nano-course grade`, and twin,
handed in twice and so not graded: taken from the class the slow tests share (one_class.py),
graded once per session. The export runs as an instructor runs it, `nano-course export` in a
shell, with rosters as roster.py reads them (the class list intake reads too).

The formats, as their documentation and importers give them (cited in autograder/grading/export.py):
Canvas, https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807
and canvas-lms app/models/gradebook_importer.rb: the header starts Student, ID, SIS User ID,
SIS Login ID, Section, then one column per assignment; a "Points Possible" row gives each
assignment's points; Canvas finds a student by ID (its user id), then SIS User ID. Moodle,
https://docs.moodle.org/311/en/Grade_import and gradeimport_csv: a column that identifies the
user (Map from it, Map to the user field: ID number or Email address; Map to defaults to User
ID) and one column per grade item ("NAME (Real)").
"""

import csv
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.grading import roster as rosters

NANO_COURSE = Path(sys.executable).parent / "nano-course"

CANVAS_STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
LECTURES = ["01-shape-of-an-agent", "02-tools-that-read", "03-tools-that-write", "04-the-gate",
            "05-the-agent-loop", "06-repl"]
POINTS = ["1", "1.5", "1.5", "1.5", "2.5", "2"]  # README's table: 10 in all
PERFECT = ["1", "1.5", "1.5", "1.5", "2.5", "2"]
PARTIAL = ["1", "1.5", "1.5", "0", "0", "0"]  # fixtures/submissions/expected.csv


@pytest.fixture(scope="module")
def graded(graded_class, tmp_path_factory) -> Path:
    """The class the slow tests share (one_class.py), graded with `nano-course grade`, narrowed
    to three of its hand-ins: perfect and partial, graded, and twin (a folder and a zip), listed
    as a duplicate and not graded. A copy of its course keeps only their rows of grades.csv and
    problems.csv, as if they had been the whole class."""
    keep = {"perfect", "partial", "twin"}
    graded = tmp_path_factory.mktemp("export") / "course"
    shutil.copytree(graded_class.course, graded,
                    ignore=shutil.ignore_patterns("autograded", "feedback", "logs", "submitted", ".grading"))
    for name in ("grades.csv", "problems.csv"):
        table = rows(graded / name)
        with (graded / name).open("w", newline="", encoding="utf-8") as out:
            csv.writer(out).writerows([table[0], *(row for row in table[1:] if row[0] in keep)])
    assert {row[0] for row in rows(graded / "grades.csv")[1:]} == keep, "the shared class lacks one"
    return graded


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(NANO_COURSE), "export", *args], capture_output=True, text=True, timeout=120)


def rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as lines:
        return list(csv.reader(lines))


def by_first(table: list[list[str]], column: int) -> dict[str, list[str]]:
    return {row[column]: row for row in table}


@pytest.mark.slow
def test_without_a_roster_both_files_carry_every_graded_student_and_the_course_points(graded):
    (graded / "export").mkdir(exist_ok=True)
    (graded / "export" / "notes.txt").write_text("mine\n")
    grades_before = (graded / "grades.csv").read_bytes()

    done = run("--course", str(graded))

    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == (f"wrote {graded / 'export' / 'canvas.csv'}: 2 students, 6 assignments worth 10 "
                        "points (the Points Possible row); Canvas finds each student by SIS User ID")
    assert lines[1] == (f"wrote {graded / 'export' / 'moodle.csv'}: 2 students, 6 grade items; in Moodle's "
                        "import form set Map from \"ID number\" and Map to \"ID number\" (Map to defaults to "
                        "User ID, which finds no one), and map each (Real) column to its grade item")
    assert lines[2].startswith("no roster: our student ids are written as the LMS's")
    assert len(lines) == 4 and lines[3].startswith("not graded, left out: twin (") and "duplicate" in lines[3]
    assert lines[3].endswith("; grade it again, or pass --zero-refused to write it as 0")

    canvas = rows(graded / "export" / "canvas.csv")
    assert canvas[0] == CANVAS_STUDENT_COLUMNS + [f"nano {name}" for name in LECTURES]
    assert canvas[1] == ["Points Possible", "", "", "", ""] + POINTS
    assert sum(float(p) for p in canvas[1][5:]) == 10
    students = by_first(canvas[2:], 2)  # by SIS User ID
    assert set(students) == {"perfect", "partial"}
    assert students["perfect"][:5] == ["perfect", "", "perfect", "", ""]
    assert students["perfect"][5:] == PERFECT
    assert students["partial"][5:] == PARTIAL

    moodle = rows(graded / "export" / "moodle.csv")
    assert moodle[0] == ["ID number", "Full name"] + [f"nano {name} (Real)" for name in LECTURES]
    students = by_first(moodle[1:], 0)
    assert set(students) == {"perfect", "partial"}
    assert students["perfect"][2:] == PERFECT and students["partial"][2:] == PARTIAL

    assert (graded / "export" / "notes.txt").read_text() == "mine\n"
    assert sorted(p.name for p in (graded / "export").iterdir()) == ["canvas.csv", "moodle.csv", "notes.txt"]
    assert (graded / "grades.csv").read_bytes() == grades_before


@pytest.mark.slow
def test_a_roster_maps_ids_and_lists_each_mismatch_never_guessing(graded, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,lms_id,name,section,email\n"
                      "perfect,S1001,\"Lovelace, Ada\",Section A,ada@example.org\n"
                      "ghost,S1003,Nobody Here,Section B,\n")
    out = tmp_path / "lms"

    done = run("--course", str(graded), "--roster", str(roster), "--out", str(out))

    assert done.returncode == 0, done.stderr
    assert f"wrote {out / 'canvas.csv'}: 1 student," in done.stdout
    assert "not in the roster, left out: partial" in done.stdout
    assert "in the roster but not in the gradebook, left out: ghost" in done.stdout
    assert "no roster" not in done.stdout

    canvas = rows(out / "canvas.csv")
    assert canvas[0][:5] == CANVAS_STUDENT_COLUMNS and canvas[1][0] == "Points Possible"
    assert canvas[2:] == [["Lovelace, Ada", "", "S1001", "", "Section A"] + PERFECT]
    moodle = rows(out / "moodle.csv")
    assert moodle[1:] == [["S1001", "Lovelace, Ada"] + PERFECT]
    assert not (graded / "export" / "roster.csv").exists()


@pytest.mark.slow
def test_total_writes_one_column_worth_the_whole_assignment(graded, tmp_path):
    done = run("--course", str(graded), "--out", str(tmp_path), "--total")

    assert done.returncode == 0, done.stderr
    assert "1 assignment worth 10 points" in done.stdout
    canvas = rows(tmp_path / "canvas.csv")
    assert canvas[0] == CANVAS_STUDENT_COLUMNS + ["nano"]
    assert canvas[1] == ["Points Possible", "", "", "", "", "10"]
    assert {row[2]: row[5] for row in canvas[2:]} == {"perfect": "10", "partial": "4"}
    moodle = rows(tmp_path / "moodle.csv")
    assert moodle[0] == ["ID number", "Full name", "nano (Real)"]
    assert {row[0]: row[2] for row in moodle[1:]} == {"perfect": "10", "partial": "4"}


@pytest.mark.slow
def test_each_lms_gets_the_ids_it_matches_on_and_whom_the_roster_cannot_place_is_listed(graded, tmp_path):
    """Canvas: ID is its user id, SIS User ID the institution's; Moodle: the ID number, else the
    email. A student with no id an LMS matches on is left out of that file alone, and listed."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,canvas_id,sis_id,email,moodle_participant\n"
                      "perfect,\"Lovelace, Ada\",12345,S1001,ada@example.org,501\n"
                      "partial,Grace Hopper,,,grace@example.org,502\n"
                      "twin,Alan Turing,23456,,,503\n")
    out = tmp_path / "lms"

    done = run("--course", str(graded), "--roster", str(roster), "--out", str(out))

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith("1 student, 6 assignments worth 10 points (the Points Possible row); Canvas "
                             "finds each student by ID (the Canvas user id), else SIS User ID"), lines[0]
    assert lines[1].startswith(f"wrote {out / 'moodle.csv'}: 2 students, 6 grade items; in Moodle's import form "
                               "set Map from \"Email address\" and Map to \"Email address\"")
    assert "no canvas_id or sis_id in the roster, left out of canvas.csv: partial" in lines
    assert lines[-1].startswith("not graded, left out: twin (")
    canvas = rows(out / "canvas.csv")
    assert canvas[2:] == [["Lovelace, Ada", "12345", "S1001", "", ""] + PERFECT]
    moodle = rows(out / "moodle.csv")
    assert moodle[0][:2] == ["Email address", "Full name"]
    assert moodle[1:] == [["grace@example.org", "Grace Hopper"] + PARTIAL, ["ada@example.org", "Lovelace, Ada"] + PERFECT]

    done = run("--course", str(graded), "--roster", str(roster), "--out", str(out), "--zero-refused")

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("not graded, written as 0: twin (")
    assert "no email in the roster, left out of moodle.csv: twin" in done.stdout
    canvas = rows(out / "canvas.csv")
    assert canvas[2:] == [["Lovelace, Ada", "12345", "S1001", "", ""] + PERFECT,
                          ["Alan Turing", "23456", "", "", ""] + ["0"] * 6]


@pytest.mark.slow
def test_zero_refused_writes_a_hand_in_that_could_not_be_graded_as_0_in_both_files(graded, tmp_path):
    done = run("--course", str(graded), "--out", str(tmp_path), "--zero-refused")

    assert done.returncode == 0, done.stderr
    assert "2 students" not in done.stdout and done.stdout.count("3 students") == 2
    assert done.stdout.splitlines()[-1].startswith("not graded, written as 0: twin (")
    assert by_first(rows(tmp_path / "canvas.csv")[2:], 2)["twin"][5:] == ["0"] * 6
    assert by_first(rows(tmp_path / "moodle.csv")[1:], 0)["twin"][2:] == ["0"] * 6


def xlsx(path: Path) -> None:
    """A workbook with a student_id column, as a spreadsheet saves one (an Office Open XML zip)."""
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/'
                      'package/2006/content-types"/>')
        book.writestr("xl/workbook.xml", "<workbook/>")
        book.writestr("xl/worksheets/sheet1.xml", '<worksheet><sheetData><row><c t="inlineStr"><is><t>student_id'
                      "</t></is></c></row></sheetData></worksheet>")


@pytest.mark.slow
@pytest.mark.parametrize("name, content, says", [
    ("roster.xlsx", xlsx, "is not a CSV file (it is a spreadsheet or a zip: save it as CSV"),
    ("roster.csv", b"student_id,name\nperfect,Ada\n", "gives no id Canvas or Moodle finds students by"),
    ("roster.csv", b'{"perfect": "S1001"}\n', "has no student_id column"),
    ("roster.csv", b"student_id,lms_id\nperfect,S1\nperfect,S2\n", "lists student perfect twice (lines 2 and 3)"),
    ("roster.csv", b"student_id,lms_id\nperfect,S1\npartial,S1\n", "gives sis_id S1 twice (lines 2 and 3)"),
    ("roster.csv", b"student_id,lms_id\nperfect,\n", "line 2 gives perfect no other column"),
])
def test_a_roster_that_cannot_be_used_gets_one_sentence_and_changes_nothing(graded, tmp_path, name, content, says):
    out = tmp_path / "lms"
    out.mkdir()
    (out / "canvas.csv").write_text("last term's\n")
    roster = tmp_path / name
    content(roster) if callable(content) else roster.write_bytes(content)

    done = run("--course", str(graded), "--roster", str(roster), "--out", str(out))

    assert done.returncode != 0
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith(f"nano-course export: roster {roster} ") and says in done.stderr, done.stderr
    assert (out / "canvas.csv").read_text() == "last term's\n"
    assert not (out / "moodle.csv").exists()


def test_a_roster_saved_by_a_spreadsheet_is_read(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_bytes("\ufeffStudent_ID;LMS_ID;Name\r\nperfect;S1001;Ada Lovelace\r\n;;\r\n".encode("utf-8"))

    assert rosters.read(roster).people == (rosters.Person("perfect", "Ada Lovelace", sis_id="S1001", idnumber="S1001"),)


@pytest.mark.parametrize("command", [["report"], ["export"], ["replay", "alice"]])
def test_a_folder_that_is_not_a_course_is_refused_alike_and_left_as_it_was(tmp_path, command):
    """report, export and replay read a graded course: given another folder, or none, each says
    so in the same sentence, and writes nothing there (no gradebook, no export folder)."""
    (tmp_path / "notes").mkdir()
    for course, said in [(tmp_path / "nope", f"there is no course at {tmp_path / 'nope'}: build one there first "
                                             f"with nano-course build --out {tmp_path / 'nope'} (or check --course)"),
                         (tmp_path / "notes", f"{tmp_path / 'notes'} is not a nano course (it has no nbgrader_config.py): "
                                              "--course names the folder nano-course build made")]:
        done = subprocess.run([str(NANO_COURSE), *command, "--course", str(course)], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr == f"nano-course {command[0]}: {said}\n"
    assert not (tmp_path / "nope").exists() and list((tmp_path / "notes").iterdir()) == []


@pytest.mark.slow
def test_an_ungraded_course_is_refused_in_one_sentence(course, tmp_path):
    done = run("--course", str(course), "--out", str(tmp_path / "lms"))

    assert done.returncode != 0
    assert done.stderr.strip() == (f"nano-course export: {course} has no grades yet: grade the class "
                                   f"first (nano-course grade SUBMISSIONS --course {course})")
    assert not (tmp_path / "lms").exists()


@pytest.mark.slow
def test_an_out_that_is_a_file_is_refused_and_kept(graded, tmp_path):
    taken = tmp_path / "grades.csv"
    taken.write_text("mine\n")

    done = run("--course", str(graded), "--out", str(taken))

    assert done.returncode != 0
    assert done.stderr.strip() == f"nano-course export: {taken} is a file: the export goes in a folder (--out DIR)"
    assert taken.read_text() == "mine\n"
