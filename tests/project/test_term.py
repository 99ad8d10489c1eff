"""A term of grading: do grades.csv and problems.csv keep the whole class, run after run?

An instructor grades the class, then a late hand-in, then (by mistake) an empty folder, all from
the command line on one course (the mini course: what is tested here is the plumbing around the
grading, which is the same for any course): each time both files list every student the gradebook
holds and every hand-in refused, a re-graded student's row is replaced, and a refused hand-in
never wipes an earlier grade. Bad arguments and folders with no hand-ins are refused in one
sentence before anything is written; a Ctrl-C mid-run, or a crash while the files are written,
leaves the previous grades.csv whole.
"""

import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder import cli
from autograder.authoring import release
from autograder.course import Course
from autograder import gradebook
from autograder.grading import grade, results

SAMPLES = release.ROOT / "fixtures" / "submissions"
TIMEOUT = "20"  # seconds per cell, as fixtures/submissions/expected.csv was made with


def zip_folder(folder: Path, archive: Path) -> Path:
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, f"{archive.stem}/{path.relative_to(folder).as_posix()}")
    return archive


def rows_of(course: Path) -> dict[str, str]:
    """student -> total, from grades.csv."""
    with (course / "grades.csv").open(newline="") as lines:
        return {row["student_id"]: row["total"] for row in csv.DictReader(lines)}


def problems_of(course: Path) -> dict[str, list[tuple[str, str]]]:
    """student -> [(graded, problem)], from problems.csv."""
    found: dict[str, list[tuple[str, str]]] = {}
    with (course / "problems.csv").open(newline="") as lines:
        for row in csv.DictReader(lines):
            found.setdefault(row["student_id"], []).append((row["graded"], row["problem"]))
    return found


def grade_cli(capsys, subs: Path, course: Path, *more: str) -> tuple[int, str, str]:
    code = cli.main(["grade", str(subs), "--course", str(course), "--timeout", TIMEOUT, *more])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------------------
# Refused before anything is written

@pytest.fixture
def one_hand_in(tmp_path) -> Path:
    subs = tmp_path / "subs"
    shutil.copytree(SAMPLES / "untouched", subs / "untouched")
    return subs


@pytest.mark.parametrize("option, value, said", [
    ("--workers", "0", "--workers must be at least 1, not 0"),
    ("--workers", "-3", "--workers must be at least 1, not -3"),
    ("--timeout", "0", "--timeout must be at least 1 (seconds a cell may run), not 0"),
    ("--timeout", "-1", "--timeout must be at least 1 (seconds a cell may run), not -1"),
])
def test_out_of_range_workers_and_timeout_are_refused_in_one_sentence(one_hand_in, tmp_path, capsys,
                                                                      option, value, said):
    course = tmp_path / "course"
    code = cli.main(["grade", str(one_hand_in), "--course", str(course), option, value])
    out, err = capsys.readouterr()
    assert code != 0 and out == ""
    assert err == f"nano-course grade: {said}\n"
    assert not course.exists(), "nothing is built or written"


def test_grade_all_refuses_the_same_values(one_hand_in, tmp_path):
    with pytest.raises(ValueError, match="workers must be at least 1, not 0"):
        grade.grade_all(one_hand_in, tmp_path / "course", echo=lambda *_: None, workers=0)
    with pytest.raises(ValueError, match="at least 1 second a cell, not -1"):
        grade.grade_all(one_hand_in, tmp_path / "course", echo=lambda *_: None, timeout=-1)
    assert not (tmp_path / "course").exists()


def no_hand_ins(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Folders an instructor might give by mistake -> (folder, what the refusal says)."""
    folders = {}
    empty = tmp_path / "empty"
    empty.mkdir()
    folders["empty"] = (empty, "it is empty")
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "grades-from-lms.csv").write_text("id\n1\n")
    folders["stray file"] = (stray, "nothing in it is a student's folder holding a workspace or a "
                                    "<student_id>.zip (it holds grades-from-lms.csv)")
    folders["a workspace"] = (SAMPLES / "perfect", "it is one student's workspace")
    lost = tmp_path / "lost"
    for name in ("photos", "music", "tax"):
        (lost / name).mkdir(parents=True)
    (lost / "tax" / "2025.pdf").write_bytes(b"%PDF")
    folders["folders without a workspace"] = (lost, "(it holds music, photos, tax)")
    course = tmp_path / "a-course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text("c = get_config()\n")
    shutil.copytree(SAMPLES / "perfect", course / "release" / "nano")
    folders["a course with nothing collected"] = (course, "an nbgrader course with no submitted/ folder")
    collected = tmp_path / "collected"
    (collected / "submitted").mkdir(parents=True)
    (collected / "nbgrader_config.py").write_text("c = get_config()\n")
    folders["a course whose submitted/ is empty"] = (collected, "its submitted/ folder is empty")
    return folders


def test_a_folder_with_no_hand_ins_is_refused_in_one_sentence_and_nothing_is_written(tmp_path, capsys):
    course = tmp_path / "course"
    for kind, (folder, said) in no_hand_ins(tmp_path).items():
        code = cli.main(["grade", str(folder), "--course", str(course)])
        out, err = capsys.readouterr()
        assert code != 0 and out == "", kind
        assert err.startswith(f"nano-course grade: no hand-ins in {folder}: ") and err.count("\n") == 1, (kind, err)
        assert said in err, (kind, err)
        assert not course.exists(), kind


def test_a_crash_while_writing_grades_leaves_the_previous_file_whole(tmp_path):
    path = tmp_path / "grades.csv"
    path.write_text("student_id,01,total\nalice,1,1\n")
    before = path.read_bytes()
    broken = results.Grade("bob", {"01": "not a number"})  # fails while its row is formatted
    with pytest.raises(ValueError):
        results.write_csv([results.Grade("alice", {"01": 0.5}), broken], ["01"], path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["grades.csv"], "no half-written file is left"
    results.write_csv([results.Grade("alice", {"01": 0.5})], ["01"], path)
    assert path.read_text() == "student_id,01,total\nalice,0.5,0.5\n"


@pytest.mark.slow
def test_a_problems_csv_saved_over_by_a_spreadsheet_stops_the_run_before_it_starts(mini_course, tmp_path, capsys):
    course = Path(shutil.copytree(mini_course[0], tmp_path / "course"))
    saved = b"student_id;graded;problem\r\ntwin;no;duplicate: twin/ and twin.zip both claim this id\r\n"
    (course / "problems.csv").write_bytes(saved)
    subs = release.make_workspace(course / "release" / release.ASSIGNMENT, tmp_path / "subs" / "alice").parent
    code = cli.main(["grade", str(subs), "--course", str(course)])
    out, err = capsys.readouterr()
    assert code != 0
    assert err == (f"nano-course grade: {course / 'problems.csv'} is not the file nano-course grade wrote "
                   "(its columns are not student_id,graded,problem): put it back as it was, or move it "
                   "away to start its list of refused hand-ins afresh\n")
    assert (course / "problems.csv").read_bytes() == saved
    assert not (course / "submitted").exists() and not (course / "grades.csv").exists()


# ---------------------------------------------------------------------------------------------
# A term on the mini course

@pytest.fixture(scope="module")
def term(mini_course, tmp_path_factory):
    """The mini course, its full marks as grades.csv writes them, and four hand-ins: perfect,
    partial (warmup wrong: the one-point cell lost), slow (right, after ten seconds: a Ctrl-C
    lands while it is graded) and untouched."""
    course, lectures = mini_course
    release_dir = course / "release" / release.ASSIGNMENT
    hands = tmp_path_factory.mktemp("term-hand-ins")
    perfect = release.solve_workspace(release.make_workspace(release_dir, hands / "perfect"), lecture_dir=lectures)
    partial = hands / "partial"
    shutil.copytree(perfect, partial)
    protocol = partial / "nano" / "protocol.py"
    protocol.write_text(protocol.read_text(encoding="utf-8").replace("    return 61 * 1000 + 1\n", "    return 42\n"),
                        encoding="utf-8")
    slow = hands / "slow"
    shutil.copytree(perfect, slow)
    protocol = slow / "nano" / "protocol.py"
    protocol.write_text(protocol.read_text(encoding="utf-8").replace(
        "    return 61 * 1000 + 1\n", "    import time\n    time.sleep(10)\n    return 61 * 1000 + 1\n"), encoding="utf-8")
    untouched = release.make_workspace(release_dir, hands / "untouched")
    full = sum(grade.max_points(course).values())
    return Term(course, f"{full:g}", f"{full - 1:g}",
                {"perfect": perfect, "partial": partial, "slow": slow, "untouched": untouched})


@dataclass(frozen=True)
class Term:
    course: Path
    full: str     # a perfect hand-in's total, as grades.csv writes it
    partial: str  # the partial hand-in's
    hand_ins: dict[str, Path]


@pytest.mark.slow
def test_grades_accumulate_over_a_term(term, tmp_path, capsys):
    course = tmp_path / "course"  # a copy: the module's other tests start from the course as built
    shutil.copytree(term.course, course)

    # The class: one folder, one zip, one refused zip.
    first = tmp_path / "first"
    shutil.copytree(term.hand_ins["perfect"], first / "perfect")
    zip_folder(term.hand_ins["untouched"], first / "untouched.zip")
    shutil.copy2(SAMPLES / "zip-escape.zip", first / "zip-escape.zip")
    code, out, err = grade_cli(capsys, first, course)
    assert code == 0, err
    assert rows_of(course) == {"perfect": term.full, "untouched": "0", "zip-escape": ""}, "no grade is not 0"
    assert [g for g, _ in problems_of(course)["zip-escape"]] == ["no"]
    assert "path traversal" in problems_of(course)["zip-escape"][0][1]
    assert "wrote" in out and "(3 students)" in out

    # A late hand-in, a student who handed in again, and a refused re-hand-in of a graded one.
    late = tmp_path / "late"
    shutil.copytree(term.hand_ins["partial"], late / "partial")
    shutil.copytree(term.hand_ins["partial"], late / "untouched")
    shutil.copy2(SAMPLES / "zip-bomb.zip", late / "perfect.zip")
    code, out, err = grade_cli(capsys, late, course)
    assert code == 0, err
    assert rows_of(course) == {"partial": term.partial, "perfect": term.full, "untouched": term.partial,
                               "zip-escape": ""}
    problems = problems_of(course)
    assert "path traversal" in problems["zip-escape"][0][1], "a refused hand-in stays listed"
    graded, said = problems["perfect"][-1]
    assert graded == "yes" and "zip bomb" in said and "the grade of the earlier one stands" in said
    assert problems.get("untouched") == problems.get("partial"), "the row is replaced, problems too"
    table = out[out.index("\nstudent "):out.index("\nwrote ")]
    assert [line.split()[0] for line in table.strip().splitlines()[1:]] == ["partial", "perfect", "untouched"]
    assert out.splitlines()[-1] == ("3 hand-ins: 3 graded, 0 not graded (no grade in grades.csv); 0 entries not "
                                    "placed; 0 students of the roster with no grade")
    assert "(4 students, 1 of them from earlier runs)" in out
    assert f"{term.full} / {term.full}" in (course / "feedback" / "perfect" / "index.html").read_text()
    assert results.read_grades(course)[1].scores == grade.max_points(course)

    # An empty folder, and a folder holding one stray file: refused, and nothing changes.
    written = {name: (course / name).read_bytes() for name in ("grades.csv", "problems.csv")}
    for folder in (tmp_path / "empty", tmp_path / "stray"):
        folder.mkdir()
    (tmp_path / "stray" / "README.txt").write_text("hand-ins go here\n")
    for folder in (tmp_path / "empty", tmp_path / "stray"):
        code, out, err = grade_cli(capsys, folder, course)
        assert code != 0 and out == ""
        assert err.startswith(f"nano-course grade: no hand-ins in {folder}: ") and err.count("\n") == 1, err
        assert {name: (course / name).read_bytes() for name in written} == written

    # The report still names the hand-in that could not be graded.
    assert cli.main(["report", "--course", str(course)]) == 0
    capsys.readouterr()
    assert "zip-escape" in (course / "report.html").read_text()


@pytest.mark.slow
def test_ctrl_c_mid_run_leaves_the_previous_grades(term, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(term.course, course)
    (course / "grades.csv").write_text(f"student_id,01,total\nearlier,{term.full},{term.full}\n")
    before = (course / "grades.csv").read_bytes()
    subs = tmp_path / "subs"
    shutil.copytree(term.hand_ins["partial"], subs / "partial")
    command = [sys.executable, "-m", "autograder.cli", "grade", str(subs), "--course", str(course),
               "--workers", "1", "--timeout", TIMEOUT]
    run = subprocess.Popen(command, cwd=release.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, start_new_session=True)
    try:
        seen = []
        for line in run.stdout:
            seen.append(line)
            if line.startswith("grading with nbgrader"):
                break
        assert seen and seen[-1].startswith("grading with nbgrader"), seen
        os.killpg(run.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        rest = run.communicate(timeout=120)[0]
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode != 0, rest
    assert (course / "grades.csv").read_bytes() == before
    assert not [p.name for p in course.glob(".grades.csv.*")]


def test_a_ctrl_c_inside_an_undivided_block_waits_for_its_end():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with grade.undivided():
            os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C does, mid-way through the writes
            done.append("the rest of the block")
    assert done == ["the rest of the block"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, "Ctrl-C is as it was"


def records_of(course: Path) -> dict[str, dict[str, str]]:
    """student -> the total that grades.csv, the gradebook and the feedback page each give ("" where
    one has none)."""
    lectures = Course.at(course).lectures
    book = {s: f"{round(sum(points.values()), 3):g}" for s, points in gradebook.scores(course, lectures).items()}
    pages = {}
    for index in (course / "feedback").glob("*/index.html"):
        pages[index.parent.name] = re.search(r"Total: <b>([\d.]+) / ", index.read_text()).group(1)
    table = rows_of(course)
    return {s: {"grades.csv": table.get(s, ""), "gradebook": book.get(s, ""), "page": pages.get(s, "")}
            for s in sorted({*table, *book, *pages})}


@pytest.mark.slow
def test_ctrl_c_just_after_a_student_is_graded_leaves_grades_csv_the_gradebook_and_the_pages_agreeing(
        term, tmp_path, capsys):
    course = tmp_path / "course"
    shutil.copytree(term.course, course)
    first = tmp_path / "first"
    shutil.copytree(term.hand_ins["partial"], first / "partial")
    assert grade_cli(capsys, first, course)[0] == 0
    assert records_of(course) == {"partial": {"grades.csv": term.partial, "gradebook": term.partial,
                                              "page": term.partial}}

    again = tmp_path / "again"  # partial hands in the whole work, with two classmates
    shutil.copytree(term.hand_ins["perfect"], again / "partial")
    shutil.copytree(term.hand_ins["slow"], again / "slow")
    shutil.copytree(term.hand_ins["perfect"], again / "zz-perfect")
    command = [sys.executable, "-m", "autograder.cli", "grade", str(again), "--course", str(course),
               "--workers", "1", "--timeout", TIMEOUT]
    run = subprocess.Popen(command, cwd=release.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, start_new_session=True)
    try:
        seen = []
        for line in run.stdout:
            seen.append(line)
            if line.startswith("[1/3]"):
                break
        assert seen[-1].startswith("[1/3]") and seen[-1].rstrip().endswith(f"partial ... {term.full}/{term.full}"), seen
        os.killpg(run.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        rest = run.communicate(timeout=120)[0]
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == 130, rest
    assert records_of(course) == {"partial": {"grades.csv": term.full, "gradebook": term.full, "page": term.full}}, \
        "the student said to be graded is so everywhere, and nobody else is half-recorded"
    assert [p.name for p in (course / "feedback").iterdir()] == ["partial"], "no page written aside is left"
    assert not [p.name for p in course.glob(".*.csv.*")]
