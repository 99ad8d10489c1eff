"""The LMS export: do `nano-course export`'s files have the columns Canvas's and Moodle's grade
imports document, the course's points, the right ids, and is every roster mismatch listed?

The class is two sample hand-ins (perfect, partial) graded with `nano-course grade`, and twin,
handed in twice and so not graded: taken from the class the slow tests share (one_class.py),
graded once per session. The export runs as an instructor runs it, `nano-course export` in a
shell.

The formats, as their documentation and importers give them (cited in autograder/grading/export.py):
Canvas, https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807
and canvas-lms app/models/gradebook_importer.rb: the header starts Student, ID, SIS User ID,
SIS Login ID, Section, then one column per assignment; a "Points Possible" row gives each
assignment's points. Moodle, https://docs.moodle.org/311/en/Grade_import and gradeimport_csv:
a column that identifies the user (mapped to ID number, preselected when headed "ID number")
and one column per grade item ("NAME (Real)" maps to the item NAME).
"""

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grading import export

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
                        "points (the Points Possible row)")
    assert lines[1].startswith(f"wrote {graded / 'export' / 'moodle.csv'}: 2 students, 6 grade items")
    assert lines[2].startswith("no roster: our student ids are written as the LMS's")
    assert len(lines) == 4 and lines[3].startswith("not graded, left out: twin (") and "duplicate" in lines[3]

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
    assert "graded but not in the roster, left out: partial" in done.stdout
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
@pytest.mark.parametrize("name, content, says", [
    ("roster.xlsx", b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00\xb2\xff\xfe\x80", "is not a CSV file"),
    ("roster.csv", b"student_id,name\nperfect,Ada\n", "has no lms_id column"),
    ("roster.csv", b'{"perfect": "S1001"}\n', "has no student_id or lms_id column"),
    ("roster.csv", b"student_id,lms_id\nperfect,S1\nperfect,S2\n", "lists student perfect twice (lines 2 and 3)"),
    ("roster.csv", b"student_id,lms_id\nperfect,S1\npartial,S1\n", "gives lms_id S1 to both perfect and partial"),
    ("roster.csv", b"student_id,lms_id\nperfect,\n", "line 2 has no lms_id"),
])
def test_a_roster_that_cannot_be_used_gets_one_sentence_and_changes_nothing(graded, tmp_path, name, content, says):
    out = tmp_path / "lms"
    out.mkdir()
    (out / "canvas.csv").write_text("last term's\n")
    roster = tmp_path / name
    roster.write_bytes(content)

    done = run("--course", str(graded), "--roster", str(roster), "--out", str(out))

    assert done.returncode != 0
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith(f"nano-course export: roster {roster} ") and says in done.stderr
    assert (out / "canvas.csv").read_text() == "last term's\n"
    assert not (out / "moodle.csv").exists()


def test_a_roster_saved_by_a_spreadsheet_is_read(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_bytes("\ufeffStudent_ID;LMS_ID;Name\r\nperfect;S1001;Ada Lovelace\r\n;;\r\n".encode("utf-8"))

    assert export.read_roster(roster) == {"perfect": export.Person("perfect", "S1001", "Ada Lovelace")}


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
