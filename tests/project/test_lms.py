"""Hand-ins as Canvas and Moodle deliver them, graded from the download as it arrives.

The downloads are made here as each LMS names them, from a perfect hand-in and an untouched
stub (the sample class's, fixtures/submissions/perfect and untouched, for reading them; the
mini course's, for grading them, as what is tested is the plumbing): Canvas's flat
`lastnamefirstname_[LATE_]<user id>_<number>_<file>` files (a late resubmission, loose files, a
user the roster lacks, a stray file, the download's own zip left in its folder), Moodle's
`Full Name_<participant>_assignsubmission_file_/` folders (a name with a comma matched by name,
loose files, a zip nested in top folders, online text, a participant the roster lacks). The
fast tests read them; the slow ones grade one of each with `nano-course grade --roster` on a
copy of the mini course, then remove a student with `nano-course remove`.
"""

import csv
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.authoring import notebooks, release
from autograder.course import Course
from autograder.grading import intake, lms, roster

SAMPLES = release.ROOT / "fixtures" / "submissions"
PERFECT, STUB = SAMPLES / "perfect", SAMPLES / "untouched"
NANO_COURSE = Path(sys.executable).parent / "nano-course"
ROSTER = ("student_id,name,canvas_id,moodle_participant\n"
          'grace,"Hopper, Grace",23456,\n'
          "ada,Ada Lovelace,,1002\n"
          "alan,Alan Turing,45678,1003\n")


def zip_workspace(workspace: Path, archive: Path, top: str = "", when: tuple[int, ...] | None = None) -> Path:
    """`workspace` zipped as a student does it, under the top folders `top` ("a/b/"), with a
    __MACOSX shadow; its entries dated `when` (year, month, day, hour, minute, second) if given."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(workspace.rglob("*")):
            if path.is_file():
                name = top + path.relative_to(workspace).as_posix()
                if when is None:
                    zf.write(path, name)
                else:
                    zf.writestr(zipfile.ZipInfo(name, when), path.read_bytes())
        zf.writestr(zipfile.ZipInfo(f"__MACOSX/{top}._01-shape-of-an-agent.ipynb", when or MORNING), b"\0\5\26\7")
    return archive


# The loose files Ada hands in on Canvas (lectures 01 and 02), and Alan's stubs on Moodle.
LOOSE = {"ada": ["nano/protocol.py", "nano/tools.py", "01-shape-of-an-agent.ipynb", "02-tools-that-read.ipynb"],
         "alan": ["nano/tools.py", "nano/protocol.py", "02-tools-that-read.ipynb"]}
# The same in the mini course: Ada's warmup and her notebook, not her tools.py.
MINI_LOOSE = {"ada": ["nano/protocol.py", "01-mini.ipynb"], "alan": ["nano/tools.py", "nano/protocol.py", "01-mini.ipynb"]}


def canvas_download(folder: Path, perfect: Path = PERFECT, stub: Path = STUB, loose=LOOSE) -> Path:
    """A Canvas "Download Submissions", unpacked, in `folder`."""
    folder.mkdir(parents=True)
    zip_workspace(stub, folder / "hoppergrace_23456_78901_nano.zip", "nano-workspace/")
    zip_workspace(perfect, folder / "hoppergrace_LATE_23456_79999_nano-1.zip", "grace/nano-workspace/")
    for number, name in enumerate(loose["ada"]):
        shutil.copy(perfect / name, folder / f"lovelaceada_34567_{80001 + number}_{Path(name).name}")
    zip_workspace(stub, folder / "turingalan_45678_80100_nano.zip")
    zip_workspace(perfect, folder / "smithjohn_99999_80200_nano.zip")
    (folder / "smithjohn_99999_80201_readme.txt").write_text("hello\n")
    (folder / "notes.txt").write_text("to grade by Friday\n")
    return folder


# A class whose names Canvas writes as they are, and whose students upload more than once.
AWKWARD_ROSTER = ("student_id,name,canvas_id\n"
                  "mary,Mary Smith-Jones,14142\n"
                  "sean,Seán O'Brien,\n"  # no canvas_id: matched by the name alone
                  "jose,José Müller-Lüdenscheidt,31415\n"
                  "anna,Anna van der Berg,16180\n"
                  "pat,Pat Partial,57721\n"
                  "lee,Lee Chen,33333\n"
                  "ghost,Ghost Writer,44444\n")
MORNING, NOON = (2026, 3, 2, 9, 0, 0), (2026, 3, 2, 12, 0, 0)


def awkward_canvas_download(folder: Path, perfect: Path = PERFECT, stub: Path = STUB) -> Path:
    """A Canvas "Download Submissions" with a hyphenated name (a zip), an apostrophe and an
    accent (matched by name), accents and a hyphen over loose files (the files a student writes, up to twelve), spaces, three
    uploads of one zip in one submission (the stubs first, the newest last), a file renamed by
    hand that still carries its student's id, and a roster student with nothing in it."""
    folder.mkdir(parents=True)
    zip_workspace(perfect, folder / "smith-jonesmary_14142_700142_workspace.zip")
    zip_workspace(perfect, folder / "o'briensean_27182_700200_nano.zip", "nano/")
    loose = [*(Path("nano", name) for name in sorted(release.STUDENT_FUNCTIONS) if (perfect / "nano" / name).exists()),
             *sorted(p.relative_to(perfect) for p in perfect.glob("*.ipynb"))][:12]  # the files a student writes
    for path in loose:
        shutil.copy(perfect / path, folder / f"müller-lüdenscheidtjosé_31415_700415_{path.name}")
    zip_workspace(perfect, folder / "van der berganna_16180_700300_nano.zip")
    zip_workspace(stub, folder / "partialpat_57721_700500_nano.zip", when=MORNING)
    zip_workspace(stub, folder / "partialpat_57721_700500_nano-1.zip", when=MORNING)
    zip_workspace(perfect, folder / "partialpat_57721_700500_nano-2.zip", when=NOON)
    zip_workspace(perfect, folder / "lee_33333.zip")
    return folder


def moodle_download(folder: Path, perfect: Path = PERFECT, stub: Path = STUB, loose=LOOSE) -> Path:
    """A Moodle "Download all submissions" (in folders), unpacked, in `folder`."""
    grace = folder / "Hopper, Grace_1001_assignsubmission_file_"
    grace.mkdir(parents=True)
    for path in perfect.rglob("*.py"):
        shutil.copy(path, grace / path.name)
    for path in perfect.glob("*.ipynb"):
        shutil.copy(path, grace / path.name)
    ada = folder / "Ada Lovelace_1002_assignsubmission_file_"
    ada.mkdir()
    zip_workspace(perfect, ada / "nano.zip", "Ada Lovelace/nano-workspace/")
    alan = folder / "Alan Turing_1003_assignsubmission_file_"
    alan.mkdir()
    for name in loose["alan"]:
        shutil.copy(stub / name, alan / Path(name).name)
    text = folder / "Alan Turing_1003_assignsubmission_onlinetext_"
    text.mkdir()
    (text / "onlinetext.html").write_text("<p>see my files</p>")
    nobody = folder / "Nobody Here_1009_assignsubmission_file_"
    nobody.mkdir()
    zip_workspace(perfect, nobody / "nano.zip")
    (folder / "grading-worksheet.csv").write_text("Identifier,Full name\n")
    return folder


def zip_download(folder: Path, archive: Path) -> Path:
    """The download as the LMS hands it over: `folder`'s entries, at the top of one zip."""
    files = [path for path in sorted(folder.rglob("*")) if path.is_file()]  # before the zip is among them
    with zipfile.ZipFile(archive, "w") as zf:
        for path in files:
            zf.write(path, path.relative_to(folder).as_posix())
    return archive


@pytest.fixture
def roster_file(tmp_path) -> Path:
    path = tmp_path / "roster.csv"
    path.write_text(ROSTER, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Reading a download: fast, nothing graded


def test_the_layout_is_told_from_the_names_by_most_entries_and_an_even_mix_is_refused(tmp_path, roster_file):
    canvas = canvas_download(tmp_path / "canvas")
    moodle = moodle_download(tmp_path / "moodle")
    assert lms.layout(sorted(canvas.iterdir())) == lms.CANVAS
    assert lms.layout(sorted(moodle.iterdir())) == lms.MOODLE
    assert lms.layout(sorted(SAMPLES.iterdir())) is None
    stray = "Ada Lovelace_1002_assignsubmission_file_"
    shutil.copytree(moodle / stray, canvas / stray)  # one Moodle-looking entry does not refuse the class
    rows, _, unplaced = intake.class_in(canvas, roster_file)
    assert sorted(row.student for row in rows) == ["ada", "alan", "grace"]
    assert any(u.entry == stray + "/" and "not named as a Canvas download names" in u.why for u in unplaced)
    (canvas / "moodle").mkdir()
    for one in sorted(moodle.iterdir())[:2]:
        shutil.move(one, canvas / "moodle")
    two = [next(canvas.glob("hoppergrace_*")), next(canvas.glob("lovelaceada_*")),
           *sorted((canvas / "moodle").iterdir())]
    with pytest.raises(lms.LayoutError, match="mixes a Canvas download .* and a Moodle one"):
        lms.layout(two)


def test_a_canvas_upload_named_like_moodle_is_read_as_canvas_and_the_class_is_graded(tmp_path, roster_file):
    canvas = canvas_download(tmp_path / "canvas")
    (canvas / "hoppergrace_23456_80001_a_1_assignsubmission_file_.txt").write_text("hi")
    assert lms.layout(sorted(canvas.iterdir())) == lms.CANVAS
    rows, _, _ = intake.class_in(canvas, roster_file)
    by = {row.student: row for row in rows}
    assert sorted(by) == ["ada", "alan", "grace"] and not any(row.problem for row in rows)
    assert "a_1_assignsubmission_file_.txt" in [name for _, name in by["grace"].parts]


def test_a_moodle_file_is_its_uploaders_and_one_that_names_another_participant_is_not_placed(tmp_path):
    download = tmp_path / "dl"
    download.mkdir()
    zip_workspace(PERFECT, download / "Alice Honest_222_assignsubmission_file_nano.zip")
    zip_workspace(PERFECT, download / "Eve Evil_111_assignsubmission_file_nano.zip")
    (download / "Eve Evil_111_assignsubmission_file_x_222_assignsubmission_file_tools.py").write_text("def f(:\n")
    rows, _, unplaced = intake.class_in(download, _written(tmp_path / "roster.csv", "student_id,name,moodle_participant\n"
                                                           "alice,Alice Honest,222\neve,Eve Evil,111\n"))
    by = {row.student: row for row in rows}
    assert [name for _, name in by["alice"].parts] == ["nano.zip"], "nothing of Eve's in Alice's hand-in"
    assert [name for _, name in by["eve"].parts] == ["nano.zip"]
    [odd] = unplaced
    assert odd.entry.endswith("x_222_assignsubmission_file_tools.py") and odd.student == "eve"
    assert "prefix more than once" in odd.why


def test_a_canvas_download_is_grouped_by_user_and_mapped_through_the_roster(tmp_path, roster_file):
    canvas = canvas_download(tmp_path / "canvas")
    zip_download(canvas, canvas / "submissions.zip")  # the download's own zip, left beside it
    rows, notes, unplaced = intake.class_in(canvas, roster_file)
    by = {row.student: row for row in rows}
    assert sorted(by) == ["ada", "alan", "grace"]
    assert [name for _, name in by["grace"].parts] == ["nano.zip"], "the older upload is left out"
    assert by["grace"].parts[0][0].name == "hoppergrace_LATE_23456_79999_nano-1.zip"
    assert by["grace"].notes == ("Canvas marks it late", "handed in a zip 2 times: graded the newest, nano-1.zip")
    assert [name for _, name in by["ada"].parts] == ["protocol.py", "tools.py", "01-shape-of-an-agent.ipynb",
                                                     "02-tools-that-read.ipynb"]
    assert by["alan"].notes == ()
    assert not any(row.problem for row in rows)
    assert notes == []
    said = [str(u) for u in unplaced]
    assert len(said) == 3, said
    assert any(n.startswith("not placed: Canvas user 99999 (smithjohn), 2 files: not in the roster") for n in said)
    assert any(n.startswith("not placed: notes.txt: a file not named as a Canvas download names") for n in said)
    assert any(n.startswith("not placed: submissions.zip:") for n in said)
    assert not any(u.student for u in unplaced), "none carries a roster student's id"


def test_a_canvas_name_may_hold_hyphens_apostrophes_accents_and_spaces(tmp_path):
    download = awkward_canvas_download(tmp_path / "canvas")
    rows, notes, unplaced = intake.class_in(download, _written(tmp_path / "roster.csv", AWKWARD_ROSTER))
    by = {row.student: row for row in rows}
    assert sorted(by) == ["anna", "jose", "mary", "pat", "sean"], "each by its user id, or by its name"
    assert [name for _, name in by["mary"].parts] == ["workspace.zip"]
    assert len(by["jose"].parts) == 12 and all(path.name.startswith("müller-lüdenscheidtjosé_31415_")
                                               for path, _ in by["jose"].parts)
    assert not any(row.problem for row in rows) and notes == []
    [lee] = unplaced
    assert lee.entry == "lee_33333.zip" and lee.student == "lee"
    assert str(lee) == ("not placed: lee_33333.zip: a file not named as a Canvas download names a student's "
                        "(lastnamefirstname_<user id>_<number>_<file>); not graded; it carries the Canvas id "
                        "33333 of lee (Lee Chen): if it is their hand-in, give it the download's name "
                        "(lastnamefirstname_<user id>_<number>_<file>) or grade it on its own")


def test_of_three_uploads_the_newest_is_graded_by_its_number_and_never_by_its_zip_times(tmp_path):
    download = awkward_canvas_download(tmp_path / "canvas")
    rows, _, _ = intake.class_in(download, _written(tmp_path / "roster.csv", AWKWARD_ROSTER))
    [pat] = [row for row in rows if row.student == "pat"]
    assert [path.name for path, _ in pat.parts] == ["partialpat_57721_700500_nano-2.zip"]
    assert pat.notes == ("handed in a zip 3 times: graded the newest, nano-2.zip",)

    def newest(*names: str, when: dict | None = None) -> str:
        folder = tmp_path / "uploads" / str(len(list((tmp_path / "uploads").glob("*"))) if
                                            (tmp_path / "uploads").exists() else "0")
        folder.mkdir(parents=True)
        for name in names:
            zip_workspace(STUB, folder / f"partialpat_57721_{name}", when=(when or {}).get(name, MORNING))
        [row] = intake.class_in(folder, _written(tmp_path / "roster.csv", AWKWARD_ROSTER))[0]
        return row.problem or row.parts[0][0].name.removeprefix("partialpat_57721_")

    assert newest("700500_nano-9.zip", "700500_nano-10.zip") == "700500_nano-10.zip", "-N is a number"
    assert newest("700600_nano.zip", "700500_nano-3.zip") == "700600_nano.zip", "a later upload first"
    for late in ("700500_nano.zip", "700500_workspace.zip"):  # dates a student sets decide nothing
        assert newest("700500_nano.zip", "700500_workspace.zip", when={late: NOON}) == (
            "handed in a zip 2 times (nano.zip and workspace.zip) and Canvas does not say which is newer: "
            "not graded; hand in one only")


def test_the_run_lists_what_it_left_out_and_whom_the_roster_has_with_no_grade(tmp_path):
    from autograder.grading import grade, results

    people = roster.read(_written(tmp_path / "roster.csv", AWKWARD_ROSTER))
    unplaced = [lms.Unplaced("lee_33333.zip", "a file not named ...", "lee"), lms.Unplaced("notes.txt", "a file")]
    graded = [results.Grade(s, {"01": 1.0}) for s in ("mary", "sean", "jose", "anna")]
    refused = results.Grade("pat", {"01": 0.0}, (lms_problem := results.problem("duplicate: ...", "refused"),),
                            graded=False)
    left = grade.left_out(unplaced, people, [*graded, refused])
    assert [(one.kind, one.entry, one.student) for one in left] == [
        ("not placed", "lee_33333.zip", "lee"), ("not placed", "notes.txt", ""),
        ("no grade", "", "lee"), ("no grade", "", "ghost")], "pat is listed: not graded"
    assert str(left[2]) == ("no grade: lee (Lee Chen), in the roster: lee_33333.zip carries their id but was not "
                            "placed (see why at its entry)")
    assert str(left[3]).startswith("no grade: ghost (Ghost Writer), in the roster: nothing in the hand-ins is theirs")
    lines = grade.closing([*graded, refused], [], left)
    assert lines[0] == f"not graded: pat: {lms_problem.message}"
    assert lines[1:5] == [str(one) for one in left]
    assert lines[-1] == ("5 hand-ins: 4 graded, 1 not graded (no grade in grades.csv); 2 entries not placed; "
                         "2 students of the roster with no grade; each is listed above, and in report.html "
                         "(nano-course report)")
    results.write_left_out(left, tmp_path / "left-out.csv")
    assert results.read_left_out(tmp_path) == left
    assert grade.closing(graded, [], [])[-1] == ("4 hand-ins: 4 graded, 0 not graded (no grade in grades.csv); "
                                                 "0 entries not placed; 0 students of the roster with no grade")
    failed = results.Grade("ghost", {"01": 0.0}, (results.problem("OSError: ...", "failed"),), graded=False)
    [*_, ghost] = grade.left_out(unplaced, people, [*graded, refused], [failed])
    assert str(ghost) == ("no grade: ghost (Ghost Writer), in the roster: grading failed, the grader's failure "
                          "and not the hand-in's: grade again"), "not 'not handed in'"


def test_a_moodle_download_is_mapped_by_participant_or_by_a_name_with_a_comma(tmp_path, roster_file):
    rows, notes, unplaced = intake.class_in(moodle_download(tmp_path / "moodle"), roster_file)
    assert [row.student for row in rows] == ["ada", "alan", "grace"]
    assert all(len(row.parts) == 1 and row.parts[0][0].is_dir() for row in rows)
    assert sorted([*notes, *map(str, unplaced)]) == [
        "ignored: Alan Turing_1003_assignsubmission_onlinetext_: Moodle's online text of Alan Turing; "
        "nano is graded from the files handed in",
        f"not placed: Moodle user 1009 (Nobody Here), Nobody Here_1009_assignsubmission_file_/: not in the "
        f"roster {roster_file} (no moodle_participant 1009, and no one name matches): add them there, then "
        "grade again",
        "not placed: grading-worksheet.csv: a file not named as a Moodle download names a student's "
        "(Full Name_<participant id>_assignsubmission_file_/); not graded"]


def test_each_hand_in_is_assembled_into_one_workspace(tmp_path, roster_file):
    rows, _, _ = intake.class_in(moodle_download(tmp_path / "moodle"), roster_file)
    rows += intake.class_in(canvas_download(tmp_path / "canvas"), roster_file)[0]
    for row in rows:
        dest = tmp_path / "staged" / row.source.name / "nano"
        intake.stage(row, dest)
        assert (dest / "timestamp.txt").is_file()
        if row.student == "ada" and not row.source.is_dir():  # Canvas: Ada's loose files
            assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.*")) == [
                "01-shape-of-an-agent.ipynb", "02-tools-that-read.ipynb", "nano/protocol.py", "nano/tools.py",
                "timestamp.txt"]
            assert (dest / "nano/tools.py").read_bytes() == (PERFECT / "nano/tools.py").read_bytes()
        elif row.student in ("ada", "grace"):  # a nested zip, loose files, the newer upload
            for path in PERFECT.rglob("*.*"):
                assert (dest / path.relative_to(PERFECT)).read_bytes() == path.read_bytes(), (row, path)
        else:
            assert (dest / "nano/tools.py").read_bytes() == (STUB / "nano/tools.py").read_bytes()


def test_a_download_without_a_roster_or_with_no_one_placed_is_refused_in_one_sentence(tmp_path):
    canvas = canvas_download(tmp_path / "canvas")
    with pytest.raises(intake.IntakeError, match=r"is a Canvas download, which names students by Canvas's ids: "
                                                 r"pass --roster FILE, a CSV with the columns student_id and canvas_id"):
        intake.class_in(canvas)
    strangers = tmp_path / "strangers.csv"
    strangers.write_text("student_id,canvas_id,name\nzed,1,Zed Zed\n")
    with pytest.raises(intake.IntakeError, match="no hand-ins in .*: no one in this Canvas download could be placed"):
        intake.class_in(canvas, strangers)
    emails = tmp_path / "emails.csv"
    emails.write_text("student_id,email\ngrace,grace@example.org\n")
    with pytest.raises(intake.IntakeError, match="has no canvas_id column and no name column"):
        intake.class_in(canvas, emails)


def test_a_canvas_slug_matches_one_roster_name_only_and_never_one_with_another_id(tmp_path):
    people = roster.read(_written(tmp_path / "r.csv", "student_id,name,canvas_id\n"
                                                      "g1,Grace Hopper,\ng2,Grace Brewster Hopper,777\n"
                                                      "o,Seán O'Brien,\n"))
    assert lms._by_name(people, lms.CANVAS, "hoppergrace", "canvas_id", "1").student_id == "g1"
    assert lms._by_name(people, lms.CANVAS, "obriensean", "canvas_id", "2").student_id == "o"
    assert lms._by_name(people, lms.CANVAS, "hoppergracebrewster", "canvas_id", "3") is None, "another id"
    assert lms._by_name(people, lms.CANVAS, "hoppergracebrewster", "canvas_id", "777").student_id == "g2"


def test_a_download_zip_is_unpacked_under_the_guards_and_names_itself(tmp_path, roster_file):
    archive = zip_download(canvas_download(tmp_path / "canvas"), tmp_path / "submissions.zip")
    with intake.opened(archive) as folder:
        rows, _, _ = intake.class_in(folder, roster_file, shown=archive)
        assert [row.student for row in rows] == ["ada", "alan", "grace"]
    assert not folder.exists()
    with pytest.raises(intake.IntakeError, match=r"^submissions.zip refused: it unpacks to more than 0 MB, "
                                                 r"'hoppergrace_23456_78901_nano.zip' \("):
        intake.unpack(archive, tmp_path / "out", max_bytes=1000)
    with pytest.raises(intake.IntakeError, match="is not a folder of hand-ins or an LMS download's .zip"):
        with intake.opened(roster_file):
            pass


def test_the_size_limit_names_the_largest_file(tmp_path):
    work = tmp_path / "alice"
    shutil.copytree(PERFECT, work)
    (work / "data").mkdir()
    (work / "data" / "weights.bin").write_bytes(b"\0" * 2_000_000)
    with pytest.raises(intake.IntakeError, match=r"larger than the limit of 1 MB \(2.\d MB; its largest file: "
                                                 r"data/weights.bin, 2.0 MB\): not graded"):
        intake.copy_clean(work, tmp_path / "copy", max_bytes=1_000_000)


def _written(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Graded for real: one Canvas download (its zip) and one Moodle download (unpacked), one course


def nano_course(*args) -> subprocess.CompletedProcess:
    return subprocess.run([str(NANO_COURSE), *map(str, args)], capture_output=True, text=True, timeout=1800)


def grades_of(course: Path) -> dict[str, dict[str, str]]:
    with (course / "grades.csv").open(newline="") as lines:
        return {row["student_id"]: row for row in csv.DictReader(lines)}


def problems_of(course: Path) -> dict[str, list[dict[str, str]]]:
    found: dict[str, list[dict[str, str]]] = {}
    with (course / "problems.csv").open(newline="") as lines:
        for row in csv.DictReader(lines):
            found.setdefault(row["student_id"], []).append(row)
    return found


@pytest.fixture(scope="module")
def mini_hand_ins(mini_course, tmp_path_factory) -> tuple[Path, Path]:
    """A perfect hand-in of the mini course and its untouched stub."""
    course, lectures = mini_course
    release_dir = course / "release" / release.ASSIGNMENT
    base = tmp_path_factory.mktemp("mini-hand-ins")
    return (release.solve_workspace(release.make_workspace(release_dir, base / "perfect"), lecture_dir=lectures),
            release.make_workspace(release_dir, base / "untouched"))


@pytest.fixture(scope="module")
def graded(mini_course, mini_hand_ins, tmp_path_factory):
    """The mini course copied, the Canvas download's zip graded in it, then the Moodle download's
    folder: what each run printed and left in grades.csv and problems.csv."""
    base = tmp_path_factory.mktemp("lms")
    mine = base / "course"
    shutil.copytree(mini_course[0], mine)
    roster_path = _written(base / "roster.csv", ROSTER)
    canvas = zip_download(canvas_download(base / "canvas", *mini_hand_ins, loose=MINI_LOOSE), base / "submissions.zip")
    moodle = moodle_download(base / "moodle", *mini_hand_ins, loose=MINI_LOOSE)
    runs = {}
    for name, download in (("canvas", canvas), ("moodle", moodle)):
        done = nano_course("grade", download, "--course", mine, "--roster", roster_path, "--timeout", 20)
        runs[name] = (done, grades_of(mine), problems_of(mine))
    return mine, runs


@pytest.mark.parametrize("run", ["canvas", "moodle"])
@pytest.mark.slow
@pytest.mark.xdist_group("lms")
def test_a_download_is_graded_under_the_roster_ids_and_junk_is_listed_not_graded(graded, run):
    course, runs = graded
    done, grades, problems = runs[run]
    assert done.returncode == 0, done.stderr

    def said(start: str) -> bool:
        return any(line.startswith(start) for line in done.stdout.splitlines())

    points = Course.at(course).max_points()
    full = f"{sum(points.values()):g}"
    assert sorted(grades) == ["ada", "alan", "grace"], "no junk id, no LMS id"
    assert grades["alan"]["total"] == "0", "the stub scores nothing"
    assert grades["grace"]["total"] == full
    if run == "canvas":  # Ada handed in her warmup and her notebook as loose files, not her tools
        cells = notebooks.points(notebooks.load(next((course / "release" / release.ASSIGNMENT).glob("*.ipynb"))))
        assert grades["ada"]["total"] == f"{sum(points.values()) - cells['mini_read_file']:g}"
        noted = [p["message"] for p in problems["grace"] if p["kind"] == "noted"]
        assert noted == ["Canvas marks it late", "handed in a zip 2 times: graded the newest, nano-1.zip"]
        assert said("not placed: Canvas user 99999 (smithjohn), 2 files: not in the roster")
        assert said("not placed: notes.txt: ")
    else:
        assert grades["ada"]["total"] == full, "a zip nested in top folders, in the student's folder"
        assert said("not placed: Moodle user 1009 (Nobody Here)")
        assert said("not placed: grading-worksheet.csv: ")
        assert said("ignored: Alan Turing_1003_assignsubmission_onlinetext_: ")
    for junk in ("99999", "smithjohn", "1009", "Nobody", "notes", "submissions", "worksheet"):
        assert not any(junk in student for student in (*grades, *problems)), junk


@pytest.mark.slow
def test_an_awkward_canvas_download_grades_everyone_on_their_newest_upload_and_lists_who_has_none(
        mini_course, mini_hand_ins, tmp_path):
    mine = tmp_path / "course"
    shutil.copytree(mini_course[0], mine)
    download = zip_download(awkward_canvas_download(tmp_path / "canvas", *mini_hand_ins), tmp_path / "submissions.zip")
    roster_path = _written(tmp_path / "roster.csv", AWKWARD_ROSTER)
    done = nano_course("grade", download, "--course", mine, "--roster", roster_path, "--timeout", 20)
    assert done.returncode == 0, done.stderr
    full = f"{sum(Course.at(mine).max_points().values()):g}"
    grades = grades_of(mine)
    assert {s: row["total"] for s, row in grades.items()} == {s: full for s in ("anna", "jose", "mary", "pat", "sean")}
    assert [p["message"] for p in problems_of(mine)["pat"]] == ["handed in a zip 3 times: graded the newest, nano-2.zip"]
    assert "handed in a zip 3 times: graded the newest, nano-2.zip" in (mine / "feedback/pat/index.html").read_text()
    lines = done.stdout.splitlines()
    table = lines.index(next(line for line in lines if line.startswith("student ")))
    assert [line.split()[0] for line in lines[table + 1:table + 6]] == ["anna", "jose", "mary", "pat", "sean"]
    assert lines[-4].startswith("not placed: lee_33333.zip: a file not named as a Canvas download names")
    assert lines[-3] == ("no grade: lee (Lee Chen), in the roster: lee_33333.zip carries their id but was not placed "
                         "(see why at its entry)")
    assert lines[-2].startswith("no grade: ghost (Ghost Writer), in the roster: nothing in the hand-ins is theirs")
    assert lines[-1] == ("5 hand-ins: 5 graded, 0 not graded (no grade in grades.csv); 1 entry not placed; "
                         "2 students of the roster with no grade; each is listed above, and in report.html "
                         "(nano-course report)")
    assert nano_course("report", "--course", mine).returncode == 0
    page = (mine / "report.html").read_text()
    section = page[page.index('<h2 id="left-out">'):]
    assert section.count("<tr>") == 4 and "lee_33333.zip" in section and "Ghost Writer" in section


@pytest.mark.slow
@pytest.mark.xdist_group("lms")
def test_remove_takes_a_student_out_of_everything_and_refuses_an_unknown_id(graded):
    course, _ = graded
    kept = grades_of(course)["grace"]
    refused = nano_course("remove", "alan", "nobody", "--course", course)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("nano-course remove: nobody is not in ") and refused.stderr.count("\n") == 1
    assert "alan" in grades_of(course), "an unknown id removes nothing"
    assert (course / "feedback" / "alan").is_dir() and (course / "logs" / "alan.txt").is_file()
    there = [name for name in ("feedback/alan/", "logs/alan.txt", "checks/alan.json", "submitted/alan/",
                               "autograded/alan/") if (course / name).exists()]
    assert {"feedback/alan/", "logs/alan.txt", "submitted/alan/"} <= set(there)
    done = nano_course("remove", "alan", "--course", course)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"removed alan from {course}: the gradebook, its row in grades.csv")
    for gone in there:
        assert gone in done.stdout and not (course / gone).exists(), gone
    assert sorted(grades_of(course)) == ["ada", "grace"] and grades_of(course)["grace"] == kept
    assert "alan" not in problems_of(course)
    from autograder import gradebook

    with gradebook.open_gradebook(gradebook.url(course)) as gb:
        assert "alan" not in {s.id for s in gb.students}


@pytest.mark.slow
def test_remove_takes_out_a_junk_id_only_in_the_csv_files_and_waits_for_no_running_grade(mini_course, tmp_path):
    from autograder import lock
    from autograder.grading import results
    from autograder.records import REFUSED, problem

    course = tmp_path / "course"
    shutil.copytree(mini_course[0], course)
    junk = "hoppergrace_23456_78901_nano"  # what an earlier run made of a Canvas file
    rows = [results.Grade(junk, {"01": 0.0}, (problem("holds no lecture notebook", REFUSED),), graded=False),
            results.Grade("zoe", {"01": 0.0}, (problem("holds no lecture notebook", REFUSED),), graded=False)]
    results.write_csv(rows, ["01"], course / "grades.csv")
    results.write_problems(rows, course / "problems.csv")
    (course / "feedback" / junk).mkdir(parents=True)
    with lock.holding(course, "grade"):
        busy = nano_course("remove", junk, "--course", course)
    assert busy.returncode == 1 and busy.stderr.count("\n") == 1 and "is in use: nano-course grade" in busy.stderr
    assert junk in grades_of(course), "a busy course is not touched"
    done = nano_course("remove", junk, "--course", course)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (f"removed {junk} from {course.resolve()}: its row in grades.csv, problems.csv's rows, "
                           f"feedback/{junk}/\n")
    assert list(grades_of(course)) == ["zoe"] and list(problems_of(course)) == ["zoe"]
    assert not (course / "feedback" / junk).exists()
