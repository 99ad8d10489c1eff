"""nbgrader's exchange on our course: does build keep what the instructor wrote in
nbgrader_config.py and set a working exchange, and does the round trip instructors really run
work with real, separate Unix users?

The round trip: an instructor releases, two students fetch, write some functions and submit,
the instructor collects, grades with `nano-course grade`, releases the feedback with stock
`nbgrader release_feedback`, and each student fetches their own feedback and cannot read the
other's. The users are created for the test (it runs as root, as CI does) and removed after it;
when they cannot run this venv (its Python or the checkout in a private folder, as in CI), they
run a copy of it made for the test (reachable.py).
"""

import csv
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder import cli
from autograder.authoring import release
from autograder.sandbox import bwrap
from autograder.grading import exchange as exchange_pages
from tests.project import reachable

BIN = Path(sys.executable).parent
HAND_WRITTEN = '''\
"""Our section's nbgrader settings, kept by hand."""
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "cs101-nano"
c.Exchange.root = "/srv/cs101/exchange"
c.Autograde.exclude_overwriting = {"nano": %r}
c.Execute.timeout = 45  # the lab machines are slow
''' % release.STUDENT_FILES


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture()
def built(mini_course, tmp_path):
    """A fresh copy of the built mini course (its release and gradebook) to build over."""
    course = tmp_path / "course"
    shutil.copytree(mini_course[0], course)
    return course, mini_course[1]


def test_build_sets_a_working_exchange_that_nbgrader_list_can_use(built):
    course, lectures = built
    (course / "nbgrader_config.py").unlink()
    release.build_course(course, lecture_dir=lectures)
    exchange = course / "exchange"
    assert release.course_settings(course).exchange == str(exchange)
    assert exchange.stat().st_mode & 0o7777 == 0o1777, "every student must be able to submit"
    path = f"{BIN}{os.pathsep}{os.environ['PATH']}"
    listed = subprocess.run([BIN / "nbgrader", "list"], cwd=course, capture_output=True, text=True,
                            timeout=120, env={**os.environ, "PATH": path})
    assert listed.returncode == 0 and "Unwritable directory" not in listed.stderr, listed.stderr


def test_a_rebuild_keeps_a_hand_edited_config_as_it_is(built, capsys):
    course, lectures = built
    (course / "nbgrader_config.py").write_text(HAND_WRITTEN)
    shutil.rmtree(course / "exchange", ignore_errors=True)
    release.build_course(course, lecture_dir=lectures)
    assert (course / "nbgrader_config.py").read_text() == HAND_WRITTEN
    assert not (course / "exchange").exists(), "the instructor's exchange is elsewhere"
    assert (course / "release" / release.ASSIGNMENT / "01-mini.ipynb").is_file()


KEEPS = f"c.Autograde.exclude_overwriting = {{'nano': {release.STUDENT_FILES!r}}}\n"
ELSEWHERE = "sqlite:////srv/cs101/gradebook.db"


@pytest.mark.parametrize("edit, option, said", [
    ("", [], "c.Autograde.exclude_overwriting = {'nano': ['nano/protocol.py'"),
    (KEEPS, ["--db-url", ELSEWHERE], f"c.CourseDirectory.db_url = {ELSEWHERE!r}"),
    (KEEPS, ["--exchange", "/srv/other"], "c.Exchange.root = '/srv/other'"),
])
def test_a_hand_edited_config_that_would_change_is_refused_in_one_line(built, capsys, edit, option, said):
    course, _ = built
    config = 'c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "cs101-nano"\n' + edit
    (course / "nbgrader_config.py").write_text(config)
    shutil.rmtree(course / "source")
    assert cli.main(["build", "--out", str(course), *option]) == 1
    err = capsys.readouterr().err
    assert "was edited by hand, so build leaves it as it is" in err and said in err, err
    assert err.count("\n") == 1, err
    assert (course / "nbgrader_config.py").read_text() == config
    assert not (course / "source").exists(), "nothing may be built before the refusal"


def test_a_config_build_wrote_is_rewritten_with_its_settings_kept(built, tmp_path):
    course, lectures = built
    elsewhere = tmp_path / "shared" / "exchange"
    release.build_course(course, lecture_dir=lectures, exchange=elsewhere)
    assert elsewhere.stat().st_mode & 0o7777 == 0o1777
    release.build_course(course, lecture_dir=lectures)
    assert release.course_settings(course).exchange == str(elsewhere)

    # A course built before build wrote the exchange: the same file without its last lines.
    old = release.config_text(release.CourseSettings("nano", None, None, None))
    (course / "nbgrader_config.py").write_text(old)
    release.build_course(course, lecture_dir=lectures)
    assert release.course_settings(course).exchange == str(course / "exchange")
    assert (course / "nbgrader_config.py").read_text().startswith(old)


# ---------------------------------------------------------------------------------------------
# The round trip, with real users

INSTRUCTOR, ALICE, BOB = "nano_instructor", "nano_alice", "nano_bob"


def _cannot(reason: str) -> None:
    if in_ci():
        pytest.fail(f"{reason} [CI=true: failing instead of skipping]", pytrace=False)
    pytest.skip(reason)


@dataclass(frozen=True)
class Users:
    """Runs commands as the test's users, from a venv `bin` folder they can all run."""
    bin: Path

    def run(self, user: str, *argv, cwd: Path, check: bool = True,
            timeout: int = 300) -> subprocess.CompletedProcess:
        """`argv` run as `user`, in `cwd`, with a clean environment whose PATH starts at `bin`."""
        env = [f"HOME=/home/{user}", f"USER={user}", f"LOGNAME={user}", "LANG=C.UTF-8",
               f"PATH={self.bin}:/usr/local/bin:/usr/bin:/bin"]
        done = subprocess.run(["runuser", "-u", user, "--", "env", "-i", *env, *map(str, argv)],
                              cwd=cwd, capture_output=True, text=True, timeout=timeout)
        if check and done.returncode != 0:
            pytest.fail(f"{user}: {' '.join(map(str, argv))} exited {done.returncode}:\n"
                        f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}", pytrace=False)
        return done


def remove_users(*users: str) -> None:
    """Remove these Unix users, their homes and their processes; those that do not exist are skipped."""
    for user in users:
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        subprocess.run(["pkill", "-KILL", "-u", user], capture_output=True)
        subprocess.run(["userdel", "--remove", "--force", user], capture_output=True, check=True)


@pytest.fixture()
def unix_users():
    """Three new Unix users with private homes, an instructor and two students, and a venv they
    can run (a copy when they cannot run ours); all removed after."""
    if os.geteuid() != 0:
        _cannot("the exchange round trip creates Unix users: run it as root (CI does)")
    if not all(shutil.which(tool) for tool in ("useradd", "userdel", "runuser", "pkill")):
        _cannot("the exchange round trip needs useradd, userdel, runuser and pkill")
    if not bwrap.available():
        _cannot(bwrap.MISSING)
    remove_users(INSTRUCTOR, ALICE, BOB)  # what a killed run left
    try:
        with reachable.reachable_bin() as venv_bin:
            try:
                for user in (INSTRUCTOR, ALICE, BOB):
                    subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", user],
                                   capture_output=True, check=True)
                    os.chmod(f"/home/{user}", 0o700)  # as a shared server's homes should be
                yield Users(venv_bin)
            finally:
                remove_users(INSTRUCTOR, ALICE, BOB)  # their processes end before the venv they run from goes
    except reachable.Unreachable as reason:
        _cannot(str(reason))


def _own(path: Path, user: str) -> None:
    for folder, _, files in os.walk(path):
        shutil.chown(folder, user, user)
        for name in files:
            shutil.chown(Path(folder, name), user, user)


def test_a_venv_copy_other_users_run_leaves_ours_as_it_was():
    """Can another user run nano-course from the copy, on our repository's copy, with no path
    into our venv or checkout left in its scripts, and is our venv the same after it is gone?"""
    if os.geteuid() != 0 or not shutil.which("runuser"):
        _cannot("the copy is checked as the user nobody: run it as root with runuser (CI does)")
    ours = Path(sys.prefix)
    site = ours / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    read = [ours / "pyvenv.cfg", *(ours / "bin").iterdir(), *site.glob("*.pth"), *site.glob("*.py")]
    watched = {path: path.read_bytes() for path in read if path.is_file() and not path.is_symlink()}
    try:
        with reachable.venv_copy() as there:
            top = there.parent.parent
            helped = reachable.runs_as_nobody(there / "nano-course", "--help")
            assert helped.returncode == 0 and "grade" in helped.stdout, helped.stderr
            copied = site.relative_to(ours)
            paths = [there / p.name for p in watched if p.parent == ours / "bin"]
            paths += [there.parent / copied / p.name for p in watched if p.parent == site]
            old = (str(ours).encode(), str(release.ROOT).encode())
            named = [p for p in paths if p.is_file() and not p.is_symlink()
                     and any(path in p.read_bytes() for path in old)]
            assert not named, f"still naming our venv or checkout: {named}"
            site_copy = there.parent / copied
            editable = [*site_copy.glob("*.pth"), *site_copy.glob("__editable__*.py")]
            assert str(top / "repo") in "".join(p.read_text() for p in editable), "autograder's copy"
    except reachable.Unreachable as reason:
        _cannot(str(reason))
    assert not top.exists(), "the copy is removed"
    assert {path: path.read_bytes() for path in watched} == watched, "our venv is as it was"


@pytest.mark.slow
def test_the_nbgrader_round_trip_with_real_users(unix_users):
    shared = Path(tempfile.mkdtemp(prefix="nano-exchange-"))
    try:
        _round_trip(shared, unix_users.run)
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def _round_trip(shared: Path, run_as: Callable[..., subprocess.CompletedProcess]) -> None:
    shared.chmod(0o755)
    shutil.chown(shared, INSTRUCTOR, INSTRUCTOR)
    exchange = shared / "exchange"
    home = Path("/home", INSTRUCTOR)
    course = home / "course"

    built = run_as(INSTRUCTOR, "nano-course", "build", "--out", course, "--exchange", exchange, cwd=home)
    assert f"nbgrader's exchange in {exchange}" in built.stdout
    run_as(INSTRUCTOR, "nbgrader", "release_assignment", release.ASSIGNMENT, cwd=course)

    for student in (ALICE, BOB):
        mine = Path("/home", student)
        (mine / ".jupyter").mkdir()
        (mine / ".jupyter" / "nbgrader_config.py").write_text(
            f'c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "nano"\n'
            f"c.Exchange.root = {str(exchange)!r}\n")
        _own(mine / ".jupyter", student)
        listed = run_as(student, "nbgrader", "list", cwd=mine)
        assert "nano nano" in listed.stderr + listed.stdout, listed.stderr
        run_as(student, "nbgrader", "fetch_assignment", release.ASSIGNMENT, cwd=mine)
        assert (mine / "nano" / "01-shape-of-an-agent.ipynb").is_file()

    # Alice writes everything as the reference does; Bob only the tools of lectures 02 and 03.
    release.solve_workspace(Path("/home", ALICE, "nano"))
    shutil.copy(release.ROOT / "nano" / "tools.py", Path("/home", BOB, "nano", "nano", "tools.py"))
    for student in (ALICE, BOB):
        _own(Path("/home", student, "nano"), student)
        run_as(student, "nbgrader", "submit", release.ASSIGNMENT, cwd=Path("/home", student))

    run_as(INSTRUCTOR, "nbgrader", "collect", release.ASSIGNMENT, cwd=course)
    graded = run_as(INSTRUCTOR, "nano-course", "grade", course, "--course", course, "--workers", "2",
                    cwd=home, timeout=900)
    assert "2 of these students handed in through nbgrader's exchange" in graded.stdout, graded.stdout
    with open(course / "grades.csv", newline="") as f:
        grades = {row["student_id"]: row for row in csv.DictReader(f)}
    assert float(grades[ALICE]["total"]) == 10.0, graded.stdout
    # Bob's tools earn points in their lectures (02 also asks questions in the notebook), no more.
    assert float(grades[BOB]["02"]) > 0 and float(grades[BOB]["03"]) > 0, graded.stdout
    assert float(grades[BOB]["total"]) == sum(float(grades[BOB][n]) for n in ("02", "03")), graded.stdout

    released = run_as(INSTRUCTOR, "nbgrader", "release_feedback", release.ASSIGNMENT, cwd=course)
    assert released.stderr.count("Releasing feedback for student") == 12, released.stderr

    pages = {}
    notebooks = sorted(nb.stem for nb in (course / "release" / release.ASSIGNMENT).glob("*.ipynb"))
    for student in (ALICE, BOB):
        mine = Path("/home", student)
        run_as(student, "nbgrader", "fetch_feedback", release.ASSIGNMENT, cwd=mine)
        fetched = sorted((mine / "nano" / "feedback").glob("*/*.html"))
        assert [p.stem for p in fetched] == notebooks, "one page per lecture, fetched"
        pages[student] = {p.stem: p.read_text() for p in fetched}

    alice, bob = pages[ALICE], pages[BOB]
    assert all(ALICE in page and BOB not in page for page in alice.values())
    assert all(BOB in page and ALICE not in page for page in bob.values())
    assert all(f'id="{exchange_pages.OVERVIEW}"' in page for page in [*alice.values(), *bob.values()])
    assert "BEGIN HIDDEN TESTS" not in "".join(alice.values()) + "".join(bob.values())

    # Bob cannot read Alice's feedback: not in the exchange (its folder cannot be listed, and
    # its pages are named by Alice's secret), not in her home.
    outbound = exchange / "nano" / "feedback"
    assert run_as(BOB, "ls", outbound, cwd=Path("/home", BOB), check=False).returncode != 0
    someone = next(Path("/home", ALICE, "nano", "feedback").glob("*/01-shape-of-an-agent.html"))
    assert run_as(BOB, "cat", someone, cwd=Path("/home", BOB), check=False).returncode != 0
    theirs = run_as(BOB, "nbgrader", "fetch_feedback", release.ASSIGNMENT, "--student", ALICE,
                    cwd=Path("/home", BOB), check=False)
    fetched = "".join(p.read_text() for p in Path("/home", BOB, "nano", "feedback").rglob("*.html"))
    assert ALICE not in fetched, theirs.stderr
