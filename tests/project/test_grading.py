"""Bulk grading: is every hand-in taken in safely, graded honestly, and reported readably?

Intake (folders, zips, nbgrader's submitted/, bad ids, duplicates, unsafe zips), the repairs
made before grading, the grading of bad submissions with real nbgrader on the mini course,
feedback that shows no hidden test, the report, and the sample class in fixtures/submissions
graded end to end against its expected grades (in the class the slow grading tests share,
one_class.py; its feedback pages, attackers' included, are searched for hidden test code).
"""

import csv
import html
import re
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from autograder import cli
from autograder.authoring import notebooks, release, samples
from autograder import records
from autograder.grading import autograde, grade, intake, leaks, outcomes, results

ROOT = release.ROOT
SAMPLES = ROOT / "fixtures" / "submissions"


def make_zip(path: Path, members: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return path


def workspace_files(root: str = "") -> dict[str, bytes]:
    return {f"{root}01-shape-of-an-agent.ipynb": b"{}", f"{root}nano/protocol.py": b"x = 1\n"}


# ---------------------------------------------------------------------------------------------
# Intake

def test_hand_ins_checks_ids_reports_duplicates_and_skips_junk(tmp_path):
    for name in ["alice", "bob", "not valid!", "Carol", "__MACOSX", ".ipynb_checkpoints"]:
        (tmp_path / name).mkdir()
    make_zip(tmp_path / "carol.zip", workspace_files())
    make_zip(tmp_path / "bob.ZIP", workspace_files())
    make_zip(tmp_path / "dave.zip", workspace_files())
    (tmp_path / "eve.tar.gz").write_bytes(b"\x1f\x8b")
    (tmp_path / "grades-from-lms.csv").write_text("id\n")
    (tmp_path / ".DS_Store").write_bytes(b"")

    rows, notes, _ = intake.hand_ins(tmp_path)
    by_id = {row.student: row for row in rows}
    assert set(by_id) == {"alice", "bob", "Carol", "carol", "dave", "eve.tar.gz", "not valid!"}
    assert by_id["alice"].problem == "" and by_id["dave"].problem == ""
    assert by_id["dave"].source.name == "dave.zip"
    assert "duplicate" in by_id["bob"].problem and "bob.ZIP" in by_id["bob"].problem
    assert "duplicate" in by_id["Carol"].problem and "duplicate" in by_id["carol"].problem
    assert "not a valid student id" in by_id["not valid!"].problem
    assert "not the workspace folder or its .zip" in by_id["eve.tar.gz"].problem
    assert notes == ["skipped grades-from-lms.csv: a file, not a folder or a .zip"]


def test_a_course_folder_is_read_through_its_submitted_folder(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("")
    (tmp_path / "submitted" / "alice" / "nano").mkdir(parents=True)
    rows, _, _ = intake.hand_ins(tmp_path)
    assert [(r.student, r.source) for r in rows] == [("alice", tmp_path / "submitted" / "alice")]


@pytest.mark.parametrize("member", ["../escaped.py", "a/../../escaped.py", "/etc/escaped.py",
                                    "..\\escaped.py", "C:/escaped.py"])
def test_unpack_refuses_path_traversal(tmp_path, member):
    archive = make_zip(tmp_path / "evil.zip", {**workspace_files(), member: b"boom"})
    (tmp_path / "out").mkdir()
    with pytest.raises(intake.IntakeError, match="outside the submission"):
        intake.unpack(archive, tmp_path / "out")
    assert not any((tmp_path / "out").iterdir()), "nothing may be written before the zip is refused"
    assert not (tmp_path / "escaped.py").exists()


def test_unpack_refuses_a_zip_bomb_and_oversized_or_crowded_zips(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    bomb = make_zip(tmp_path / "bomb.zip", {"w/data.bin": bytes(5_000_000)})
    assert bomb.stat().st_size < 20_000
    with pytest.raises(intake.IntakeError, match="zip bomb"):
        intake.unpack(bomb, out)
    big = make_zip(tmp_path / "big.zip", {"w/a.bin": bytes(600), "w/b.bin": bytes(600)})
    with pytest.raises(intake.IntakeError, match="more than"):
        intake.unpack(big, out, max_bytes=1000)
    crowded = make_zip(tmp_path / "crowded.zip", {f"w/{i}.txt": b"x" for i in range(20)})
    with pytest.raises(intake.IntakeError, match="holds 20 files"):
        intake.unpack(crowded, out, max_files=10)
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(intake.IntakeError, match="not a readable zip"):
        intake.unpack(tmp_path / "broken.zip", out)
    assert not any(out.iterdir())


def test_a_zip_with_nested_folders_macosx_checkpoints_and_links_is_staged_clean(tmp_path):
    members = workspace_files("alice/workspace/")
    members["alice/workspace/.ipynb_checkpoints/01-shape-of-an-agent-checkpoint.ipynb"] = b"{"
    members["__MACOSX/alice/workspace/._01-shape-of-an-agent.ipynb"] = b"\x00\x05"
    members["alice/workspace/nano/__pycache__/protocol.cpython-311.pyc"] = b"\x00"
    archive = make_zip(tmp_path / "alice.zip", members, links={"alice/workspace/secret": "/etc/passwd"})
    dest = tmp_path / "course" / "submitted" / "alice" / "nano"
    assert intake.stage(intake.HandIn("alice", archive), dest) == []
    found = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert found == ["01-shape-of-an-agent.ipynb", "nano/protocol.py", "timestamp.txt"]


def test_workspace_root_finds_the_shallowest_workspace_and_refuses_two(tmp_path):
    nested = tmp_path / "a" / "b" / "c"
    (nested / "nano").mkdir(parents=True)
    (nested / "nano" / "tools.py").write_text("")
    assert intake.workspace_root(tmp_path) == nested
    collected = tmp_path / "collected" / "nano"  # nbgrader's submitted/<id>/<assignment>/
    (collected / "nano").mkdir(parents=True)
    (collected / "02-tools-that-read.ipynb").write_text("{}")
    assert intake.workspace_root(tmp_path / "collected") == collected
    for twin in ("x", "y"):
        (tmp_path / "two" / twin).mkdir(parents=True)
        (tmp_path / "two" / twin / "01-a.ipynb").write_text("{}")
    with pytest.raises(intake.IntakeError, match="more than one workspace"):
        intake.workspace_root(tmp_path / "two")
    (tmp_path / "empty" / "docs").mkdir(parents=True)
    with pytest.raises(intake.IntakeError, match="nothing to grade"):
        intake.workspace_root(tmp_path / "empty")


def test_a_hand_in_already_in_submitted_is_graded_where_it_is(tmp_path):
    dest = tmp_path / "course" / "submitted" / "alice" / "nano"
    (dest / "nano").mkdir(parents=True)
    (dest / "01-a.ipynb").write_text("{}")
    (dest / "timestamp.txt").write_text("2026-01-05 10:00:00.000000 UTC")
    intake.stage(intake.HandIn("alice", dest.parent), dest)
    assert (dest / "01-a.ipynb").read_text() == "{}"
    assert (dest / "timestamp.txt").read_text() == "2026-01-05 10:00:00.000000 UTC"


# ---------------------------------------------------------------------------------------------
# Repairs before grading (on the mini course's release)

def test_repair_removes_unreadable_notebooks_restores_test_cells_and_stubs_broken_files(mini_course, tmp_path):
    course, lectures = mini_course
    release_dir = course / "release" / "nano"
    work = release.solve_workspace(release.make_workspace(release_dir, tmp_path / "w"), lecture_dir=lectures)
    nb = notebooks.load(work / "01-mini.ipynb")
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")
                not in ("mini_warmup", "mini_entries_answer")]
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "mini_read_file":
            cell.source = "assert True\n"
    (work / "01-mini.ipynb").write_text(notebooks.render(nb))
    (work / "nano" / "tools.py").write_text("def read_file(path:\n")
    (work / "nano" / "gate.py").unlink()

    problems = grade.repair(work, release_dir)
    with pytest.raises(SyntaxError) as raised:
        compile("def read_file(path:\n", "tools.py", "exec")
    assert [str(p) for p in problems] == [
        "01: answer cell mini_entries_answer deleted",
        "01: test cell mini_warmup deleted (put back and run)",
        "01: test cell mini_read_file was edited (restored)",
        f"nano/tools.py does not parse (line 1: {raised.value.msg}), so read_file, list_files, run_tool, "
        "inside_project, write_file, edit_file and bash were graded as not written",
        "nano/gate.py missing: graded as not written",
    ]
    assert [(p.lecture, p.grade_ids, p.file) for p in problems] == [
        ("01", ("mini_entries_answer",), ""), ("01", ("mini_warmup",), ""), ("01", ("mini_read_file",), ""),
        (None, (), "nano/tools.py"), (None, (), "nano/gate.py")], "each problem says what it is about, not only in words"
    assert [p.kind for p in problems][3:] == [records.UNPARSABLE, records.REPAIRED]
    assert results.Grade("x", problems=tuple(problems)).about("03")[-1].file == "nano/tools.py", \
        "lecture 03 grades write_file: its page tells of tools.py"
    assert not [p for p in results.Grade("x", problems=tuple(problems)).about("05") if p.file]
    repaired = [c.metadata.get("nbgrader", {}).get("grade_id") for c in notebooks.load(work / "01-mini.ipynb").cells]
    assert repaired == [i for i in ids if i != "mini_entries_answer"], "mini_warmup goes back where it was"
    for name in ("tools.py", "gate.py"):
        assert (work / "nano" / name).read_bytes() == (release_dir / "nano" / name).read_bytes()

    (work / "01-mini.ipynb").write_text('{"cells": [')
    assert str(grade.repair(work, release_dir)[0]).startswith("01: 01-mini.ipynb is not a readable notebook")
    assert not (work / "01-mini.ipynb").exists()
    assert str(grade.repair(work, release_dir)[0]) == "01: notebook 01-mini.ipynb missing (scores 0)"


def test_the_workers_pass_on_what_stopped_the_staging_and_end_on_a_class_of_none(tmp_path):
    def staging_fails():
        yield from ()
        raise OSError("the disk is gone")

    with pytest.raises(OSError, match="the disk is gone"):
        list(autograde.run(staging_fails(), 2, tmp_path / "logs"))
    assert list(autograde.run(iter(()), 2, tmp_path / "logs")) == []


# ---------------------------------------------------------------------------------------------
# Grading bad submissions with real nbgrader (the mini course: one notebook, 3 points)

@pytest.fixture(scope="module")
def mini_class(mini_course, tmp_path_factory):
    """A small class graded once: each student breaks the mini lecture in another way."""
    course, lectures = mini_course
    base = tmp_path_factory.mktemp("mini-class")
    graded_course = base / "course"
    shutil.copytree(course, graded_course)
    release_dir = graded_course / "release" / "nano"
    subs = base / "subs"

    def student(name: str, warmup_body: str | None = None) -> Path:
        work = release.solve_workspace(release.make_workspace(release_dir, subs / name), lecture_dir=lectures)
        if warmup_body is not None:
            protocol = work / "nano" / "protocol.py"
            protocol.write_text(protocol.read_text().replace("    return 61 * 1000 + 1\n", warmup_body))
        return work

    student("perfect")
    student("loops", "    while True:\n        pass\n")
    student("dies", "    import os\n    os._exit(1)\n")
    student("deaf", "    import signal\n    signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                    "    while True:\n        pass\n")
    student("html", "    import os\n    raise ValueError('<script>alert(\"owned\")</script> & '"
                    " + os.environ.get('ANTHROPIC_API_KEY', 'no key'))\n")
    (student("garbled") / "01-mini.ipynb").write_text("not json at all")
    zipped = student("zipped")
    make_zip(subs / "zipped.zip", {f"top/{p.relative_to(zipped).as_posix()}": p.read_bytes()
                                   for p in zipped.rglob("*") if p.is_file()})
    shutil.rmtree(zipped)
    lines = []
    with pytest.MonkeyPatch.context() as env:  # an instructor's key must not reach student code
        env.setenv("ANTHROPIC_API_KEY", "sk-ant-instructor-secret")
        grades = grade.grade_all(subs, graded_course, echo=lines.append, workers=2, timeout=6)
    return graded_course, {g.student: g for g in grades}, lines


def test_each_bad_submission_gets_the_points_it_earns_and_a_reason(mini_class):
    course, grades, _ = mini_class
    assert {s: g.scores["01"] for s, g in grades.items()} == {
        "perfect": 3.0, "zipped": 3.0,
        "loops": 2.0, "dies": 2.0, "deaf": 2.0, "html": 2.0,  # only mini_warmup (1 point) lost
        "garbled": 0.0}
    assert grades["perfect"].problem == "" and grades["zipped"].problem == ""
    assert "mini_warmup ran past the 6 s limit (interrupted" in grades["loops"].problem
    assert "the kernel died at mini_warmup (the kernel was restarted" in grades["dies"].problem
    assert "mini_warmup ran past 6 s and ignored the interrupt" in grades["deaf"].problem
    assert "01-mini.ipynb is not a readable notebook" in grades["garbled"].problem
    rows = list(csv.reader((course / "grades.csv").open()))
    assert rows[0] == ["student_id", "01", "total"]
    assert sorted(r[0] for r in rows[1:]) == sorted(grades)


def test_progress_lines_and_table_list_every_student(mini_class):
    _, grades, lines = mini_class
    progress = [line for line in lines if re.match(r"\[\d+/\d+\] [#-]{20} ", line)]
    assert len(progress) == len(grades) == 7
    assert any(re.fullmatch(r"\[\d/7\] #*-* perfect \.\.\. 3/3", line) for line in progress), progress
    assert progress[-1].startswith("[7/7] " + "#" * 20), progress
    table = next(line for line in lines if line.startswith("student"))
    assert table.split("\n")[0].split() == ["student", "01", "total", "problem"]
    assert all(f"\n{s}" in table for s in grades)


def test_the_course_gradebook_holds_every_graded_submission(mini_class):
    from nbgrader.api import Gradebook

    course, grades, _ = mini_class
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "nano") as gb:
        scores = {s.student.id: s.score for s in gb.assignment_submissions("nano")}
    assert scores == {s: g.total for s, g in grades.items() if g.graded}
    assert not (course / grade.SCRATCH).exists()
    assert (course / "autograded" / "dies" / "nano" / "01-mini.ipynb").is_file()
    log = (course / "logs" / "perfect.txt").read_text()
    assert "==== nbgrader autograde 01-mini" in log and "==== kernels' own stderr" in log


def test_feedback_says_what_failed_and_escapes_what_students_wrote(mini_class):
    course, grades, _ = mini_class
    page = (course / "feedback" / "html" / "01-mini.html").read_text()
    assert "&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt; &amp; no key" in page
    assert "<script>" not in page
    assert re.search(r"mini_read_file</code></td><td class=\"num\">1.5 / 1.5</td><td class=\"pass\">", page)
    index = (course / "feedback" / "html" / "index.html").read_text()
    assert "2 / 3" in index and 'href="01-mini.html"' in index
    died = (course / "feedback" / "dies" / "01-mini.html").read_text()
    assert "the kernel died while running this cell" in died
    garbled = (course / "feedback" / "garbled" / "index.html").read_text()
    assert "is not a readable notebook" in garbled


def test_feedback_never_shows_hidden_test_code(mini_class, mini_course):
    course, _, _ = mini_class
    _, lectures = mini_course
    hidden = set()
    for cell in notebooks.load(lectures / "01-mini.ipynb").cells:
        if "### BEGIN HIDDEN TESTS" in cell.source:
            part = cell.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
            hidden |= {line.strip() for line in part.splitlines() if len(line.strip()) > 12}
    assert hidden
    pages = list((course / "feedback").rglob("*"))
    assert pages and all(p.suffix == ".html" for p in pages if p.is_file())
    for page in (p for p in pages if p.is_file()):
        text = page.read_text()
        leaked = [line for line in hidden if line in text or html.escape(line) in text]
        assert not leaked, f"{page}: {leaked}"
        assert "Traceback" not in text and "BEGIN HIDDEN" not in text


def test_failure_message_is_the_assert_message_never_the_code():
    from nbformat import NotebookNode

    def cell(*outputs):
        return NotebookNode(cell_type="code", outputs=[NotebookNode(o) for o in outputs], metadata={})

    failed = cell({"output_type": "error", "ename": "AssertionError", "evalue": "reread section 4",
                   "traceback": ["assert secret_hidden_check() (hidden code)"]})
    grader = leaks.Grader(leaks.written_messages('assert secret_hidden_check(), "reread section 4"'))
    assert outcomes.failure_message(failed, grader) == "reread section 4"
    other = cell({"output_type": "error", "ename": "KeyError", "evalue": "'path'", "traceback": ["x"]})
    assert outcomes.failure_message(other) == "your code raised KeyError: 'path'"
    warned = cell({"output_type": "stream", "name": "stderr",
                   "text": "/tmp/x.py:3: RuntimeWarning: coroutine 'confirm' was never awaited\n"
                           "  assert hidden_line_of_the_test()\n"})
    said = outcomes.failure_message(warned)
    assert "never awaited" in said and "hidden_line" not in said
    quoting = cell({"output_type": "error", "ename": "ValueError", "traceback": ["x"],
                    "evalue": "stolen: assert read_file(path) == expected, 'reread 2.1'"})
    hidden = leaks.Grader(secret=leaks.secret_grams("assert read_file(path) == expected, 'reread 2.1'", ""))
    assert "ValueError" in outcomes.failure_message(quoting)
    assert leaks.WITHHELD in outcomes.failure_message(quoting, hidden)
    assert "stolen" not in outcomes.failure_message(quoting, hidden)


def test_report_plots_the_class_and_names_what_was_not_graded(mini_class, capsys):
    course, _, _ = mini_class
    assert cli.main(["report", "--course", str(course)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote the report in {course / 'report.html'}"
    page = (course / "report.html").read_text()
    assert len(re.findall(r'<img alt="[^"]+" src="data:image/png;base64,[A-Za-z0-9+/=]{200,}"', page)) == 2
    assert "<code>mini_warmup</code>" in page and "7 graded students" in page
    # 5 of 7 lost mini_warmup (loops, dies, deaf, html, and garbled, which lost everything)
    assert re.search(r"<code>mini_warmup</code></td><td class=num>1</td><td class=num><details><summary>5<span class=sr-only> students: who</span></summary>"
                     r'.*?<a href="feedback/loops/01-mini.html">loops</a>', page)


def test_a_course_collected_by_nbgrader_is_graded_in_place(mini_course, tmp_path):
    course, lectures = mini_course
    collected = tmp_path / "course"
    shutil.copytree(course, collected)
    handed_in = collected / "submitted" / "alice" / "nano"  # as nbgrader collect leaves it
    release.solve_workspace(release.make_workspace(collected / "release" / "nano", handed_in),
                            lecture_dir=lectures)
    (handed_in / "timestamp.txt").write_text("2026-03-01 09:30:00.000000 UTC")
    before = {p: p.read_bytes() for p in handed_in.rglob("*") if p.is_file()}
    lines = []
    grades = grade.grade_all(collected, collected, echo=lines.append, timeout=10)
    assert [(g.student, g.total, g.problem) for g in grades] == [("alice", 3.0, "")]
    assert f"wrote {collected / 'grades.csv'} and problems.csv (1 student); " in "\n".join(lines)
    assert {p: p.read_bytes() for p in handed_in.rglob("*") if p.is_file()} == before


def test_report_without_grades_says_what_to_do(mini_course, tmp_path, capsys):
    course, _ = mini_course
    empty = tmp_path / "course"
    shutil.copytree(course, empty)
    assert cli.main(["report", "--course", str(empty)]) == 1
    assert "run nano-course grade" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# The sample class

def hidden_test_lines() -> set[str]:
    """The code lines of the lectures' hidden tests that the visible parts do not show too
    (string-only lines are left out: an assert's message is meant to be seen)."""
    hidden, shown = set(), set()
    for source in sorted((ROOT / "lectures").glob("[0-9][0-9]-*.ipynb")):
        for cell in notebooks.load(source).cells:
            text = cell.source
            while "### BEGIN HIDDEN TESTS" in text:
                before, rest = text.split("### BEGIN HIDDEN TESTS", 1)
                part, text = rest.split("### END HIDDEN TESTS", 1)
                hidden |= {line.strip() for line in part.splitlines()}
                text = before + text
            shown |= {line.strip() for line in text.splitlines()}
    return {line for line in hidden - shown if len(line) >= 25 and not line.startswith(("#", '"', "f\"", "'"))}


def test_the_committed_samples_match_what_the_script_makes(course):
    stale = samples.differences(course / "release" / release.ASSIGNMENT, SAMPLES)
    assert not stale, f"fixtures/submissions is out of date: run nano-course samples ({stale[:5]})"


def test_the_samples_cover_every_kind_of_hand_in():
    rows = list(csv.DictReader((SAMPLES / "expected.csv").open()))
    assert [r["student_id"] for r in rows] == sorted((s.student for s in samples.SAMPLES), key=str.lower)
    assert {"perfect", "untouched", "partial", "zipped", "zip-bomb", "zip-escape", "twin",
            "not a valid id", "bad-json", "missing-notebook", "missing-py", "broken-py",
            "edited-cells", "runs-forever", "kernel-dies"} <= {r["student_id"] for r in rows}
    assert (SAMPLES / "zipped.zip").is_file() and (SAMPLES / "twin.zip").is_file()
    assert sum(p.stat().st_size for p in SAMPLES.rglob("*") if p.is_file()) < 8_000_000


@pytest.mark.slow
def test_the_sample_class_grades_as_expected_from_the_command_line(graded_class, capsys):
    graded, out = graded_class.course, graded_class.out
    assert graded_class.code == 0, graded_class.err
    assert graded_class.err == "", "grading must not print warnings: " + graded_class.err[:500]
    expected = {r["student_id"]: r for r in csv.DictReader((SAMPLES / "expected.csv").open())}
    with (graded / "grades.csv").open(newline="") as rows:
        got = {r["student_id"]: r for r in csv.DictReader(rows)}
    assert [s for s in got if s in expected] == list(expected)
    for student, want in expected.items():
        numbers = {k: v for k, v in want.items() if k != "problem"}
        assert got[student] == numbers, f"{student}: got {got[student]}, expected {numbers}"
        said = graded_class.grades[student].problem
        assert want["problem"] in said if want["problem"] else said == "", f"{student}: {said!r}"
        assert (graded / "feedback" / student / "index.html").is_file()
        shown = re.escape(f"{float(want['total']):5.2f}") if want["total"] else r"(\s+-){7}\s"  # no grade, no 0
        assert re.search(rf"^{re.escape(student)} .*{shown}", out, re.M), student
    assert out.count("] ") >= len(got) and "skipped expected.csv" in out

    hidden = hidden_test_lines()
    for page in (graded / "feedback").rglob("*.html"):
        text = page.read_text()
        shown = [line for line in hidden if line in text or html.escape(line) in text]
        assert not shown, f"{page.relative_to(graded)} shows hidden test code: {shown[:2]}"
    assert all(p.suffix == ".html" for p in (graded / "feedback").rglob("*") if p.is_file())

    assert cli.main(["report", "--course", str(graded)]) == 0
    assert "report.html" in capsys.readouterr().out
    page = (graded / "report.html").read_text()
    graded_students = sum(g.graded for g in graded_class.grades.values())
    assert "zip bomb" in page and f"{graded_students} graded students" in page
