"""`nano-course similar` on a class where two students share their work and the others do not.

The class is similar_class.py's: sharer-b hands in sharer-a's files with the variables renamed
and the functions reordered; honest-ref and honest-alt wrote the longer functions each their
own way and the short ones alike (as every honest student does); untouched-1 and untouched-2
hand in the release as it is. Only the sharers may be flagged, and they must come first.
"""

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.authoring import release
from tests.project import similar_class
from tests.project.test_install import student_only_env

NANO_COURSE = Path(sys.executable).parent / "nano-course"


def nano_course(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([str(NANO_COURSE), *map(str, args)], capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def compared(course, tmp_path_factory):
    """The class written from the course's release, and `nano-course similar` run on it."""
    base = tmp_path_factory.mktemp("similar")
    subs = similar_class.write_class(course / "release" / release.ASSIGNMENT, base / "subs")
    done = nano_course("similar", subs, "--course", course, "--out", base / "out")
    with (base / "out" / "pairs.csv").open(newline="") as rows:
        pairs = list(csv.DictReader(rows))
    return done, pairs, (base / "out" / "report.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_two_students_sharing_renamed_and_reordered_work_are_flagged_at_the_top(compared):
    done, pairs, page = compared
    assert done.returncode == 0, done.stderr
    top = pairs[0]
    assert (top["student_a"], top["student_b"], top["flagged"]) == ("sharer-a", "sharer-b", "yes")
    assert float(top["share"]) > 0.9 and "nano/loop.py" in top["files"].split()
    lines = done.stdout.splitlines()
    assert lines[0].startswith("flagged: sharer-a and sharer-b: ") and not lines[1].startswith("flagged")
    assert lines[-1].startswith("compared 6 hand-ins (15 pairs) in ") and " 1 pair flagged " in lines[-1]
    assert page.index("<h2 id=\"pair-1\">1. sharer-a and sharer-b") > page.index("Every pair, most alike first")
    pair = page[page.index('<h2 id="pair-1">'):]
    assert pair.count("<mark>") >= 10 and "<th scope=col>sharer-a</th><th scope=col>sharer-b</th>" in pair


@pytest.mark.slow
def test_honest_students_who_wrote_the_same_short_functions_and_the_stubs_are_not_flagged(compared):
    _, pairs, page = compared
    rest = {(p["student_a"], p["student_b"]): float(p["share"]) for p in pairs[1:]}
    assert len(rest) == 14 and all(p["flagged"] == "no" for p in pairs[1:])
    assert 0 < rest["honest-alt", "honest-ref"] < 0.4, "the short functions alike match, and stay below the flag"
    assert all(0 < share < 0.4 for (a, b), share in rest.items() if "untouched" not in a + b)
    assert all(share == 0 for (a, b), share in rest.items() if "untouched" in a + b), \
        "the release's code (the given code and the stubs) never matches"
    assert page.count('<h2 id="pair-') == 1


def test_a_copy_keeps_its_code_but_not_its_names_or_order():
    source = (release.ROOT / "nano" / "tools.py").read_text(encoding="utf-8")
    copied = similar_class.disguised(source)
    order = [line.split("(")[0] for line in copied.splitlines() if line.startswith("def ")]
    assert order != [line.split("(")[0] for line in source.splitlines() if line.startswith("def ")]
    assert "file = Path(path)" in source and "file = Path(path)" in copied, "a name not in RENAMED stays"
    assert sorted(copied.splitlines()) != sorted(source.splitlines())


@pytest.mark.slow
def test_without_copydetect_it_says_what_to_install_and_writes_nothing(course, tmp_path):
    subs = tmp_path / "subs"
    shutil.copytree(release.ROOT / "fixtures" / "submissions" / "perfect", subs / "perfect")
    done = nano_course("similar", subs, "--course", course, "--out", tmp_path / "out",
                       env=student_only_env(NANO_NOT_INSTALLED="copydetect"))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("nano-course similar: needs copydetect, which only the instructor's install has: "
                           "pip install -e '.[instructor]' in the course repository (./run setup does it)\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_by_default_it_compares_what_the_last_grade_took_in(course, tmp_path):
    mine = tmp_path / "course"
    shutil.copytree(course, mine)
    for student in ("ana", "ben"):  # as grade stages them: submitted/<id>/nano/
        release.solve_workspace(release.make_workspace(mine / "release" / release.ASSIGNMENT,
                                                       mine / "submitted" / student / release.ASSIGNMENT))
    done = nano_course("similar", "--course", mine)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("flagged: ana and ben: 100% of the smaller hand-in's code matches")
    assert (mine / "similar" / "report.html").is_file() and (mine / "similar" / "pairs.csv").is_file()


def test_a_hand_in_too_deeply_nested_to_read_is_not_compared_and_the_rest_are(course, tmp_path):
    from autograder.grading import similar

    subs = tmp_path / "subs"
    for student in ("alice", "bob", "eve"):
        shutil.copytree(release.ROOT / "fixtures" / "submissions" / "perfect", subs / student)
    with open(subs / "eve" / "nano" / "tools.py", "a") as tools:
        tools.write("\nx = 1" + "+1" * 1_000_000 + "\n")
    comparison = similar.compare(subs, course)
    assert comparison.students == ("alice", "bob")
    assert comparison.left_out == (("eve", "a nano/*.py nested too deeply for Python to read"),)
