"""A class on `nano-course hub`, end to end, with real Unix users and a real JupyterHub.

The test makes an instructor and two students (Unix users with passwords and private homes),
builds the course as the instructor with an exchange of its own, releases the assignment, and
runs `nano-course hub --start`, which writes the hub and becomes JupyterHub (PAM, its
configurable-http-proxy from npm).
Each student logs in on the hub's login page in Chromium, opens Nbgrader > Assignment List,
fetches the assignment, writes `warmup` in JupyterLab's editor (Ana as the lecture asks, Ben
wrongly) and submits. The instructor collects, grades with `nano-course grade` and releases the
feedback, as in test_exchange's round trip, then looks at the grades in formgrader through the
hub. Each student fetches their feedback in the assignment list and reads their own page;
Ben can reach nothing of Ana's, neither her server through the hub nor her files.

The hub, its users' servers and the users are removed even when the test fails. Screenshots go
to build/screenshots/hub_round_trip/.
"""

import csv
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.authoring import release
from autograder.sandbox import bwrap
from tests.browser import axe
from tests.browser.conftest import CHROMIUM_FLAGS, Shots
from tests.browser.test_jupyterlab import expect
from tests.browser.test_student_lab import nbgrader_menu
from tests.project import reachable
from tests.project.test_exchange import Users, _cannot, remove_users

pytestmark = [pytest.mark.browser, pytest.mark.slow]

INSTRUCTOR, ANA, BEN = "hub_teacher", "hub_ana", "hub_ben"
WARMUP = {ANA: "return 61 * 1000 + 1", BEN: "return 61 * 1000"}  # Ben's is wrong
HUB_START_TIMEOUT = 180  # JupyterHub importing itself beside a busy test run
LAB_TIMEOUT = 240_000  # ms (past hub.SPAWN_TIMEOUT): the hub spawns the user's server, which loads JupyterLab's extensions
CELL_LIMIT = 60  # seconds a cell may run when the instructor grades (the course's own is 30)
STUB_LINE = "raise NotImplementedError('Lecture 01: warmup is not implemented yet"


@dataclass(frozen=True)
class RunningHub:
    url: str
    passwords: dict[str, str]
    users: Users
    course: Path
    exchange: Path
    log: Path


def _free_ports() -> int:
    """A port p with p + 1 and p + 2 free too: the hub takes all three."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port > 65000:
            continue
        try:
            for n in (1, 2):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port + n))
            return port
        except OSError:
            continue
    raise RuntimeError("found no three free ports in a row")


def _stop(process: subprocess.Popen, pid_file: Path) -> None:
    """The hub, its proxy and anything left in their process group."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)  # JupyterHub stops the users' servers and its proxy
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
    for pid in [process.pid] + ([int(pid_file.read_text())] if pid_file.is_file() else []):
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, ValueError):
            pass
    process.wait(timeout=10)


@pytest.fixture()
def running_hub(chromium_executable, screenshot_root):
    """Three new Unix users, the course built by the instructor, and the hub running for them;
    all stopped and removed afterwards."""
    if os.geteuid() != 0:
        _cannot("the hub test creates Unix users and runs JupyterHub: run it as root (CI does)")
    missing = [tool for tool in ("useradd", "userdel", "chpasswd", "runuser", "pkill",
                                 "configurable-http-proxy") if not shutil.which(tool)]
    if missing:
        _cannot(f"the hub test needs {', '.join(missing)} (configurable-http-proxy: "
                "npm install -g configurable-http-proxy, as .ci/run does)")
    if not bwrap.available():
        _cannot(bwrap.MISSING)
    remove_users(INSTRUCTOR, ANA, BEN)
    shared = Path(tempfile.mkdtemp(prefix="nano-hub-"))
    log = shared / "jupyterhub.log"
    try:
        with reachable.reachable_bin() as venv_bin:
            hub = None
            try:
                passwords = {user: secrets.token_urlsafe(12) for user in (INSTRUCTOR, ANA, BEN)}
                for user, password in passwords.items():
                    subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", user],
                                   capture_output=True, check=True)
                    os.chmod(f"/home/{user}", 0o700)
                    subprocess.run(["chpasswd"], input=f"{user}:{password}\n", text=True,
                                   capture_output=True, check=True)
                users = Users(venv_bin)
                shared.chmod(0o755)
                shutil.chown(shared, INSTRUCTOR, INSTRUCTOR)
                course, exchange = Path("/home", INSTRUCTOR, "course"), shared / "exchange"
                users.run(INSTRUCTOR, "nano-course", "build", "--out", course, "--exchange", exchange,
                          cwd=Path("/home", INSTRUCTOR))
                users.run(INSTRUCTOR, "nbgrader", "release_assignment", release.ASSIGNMENT, cwd=course)

                port = _free_ports()
                with log.open("wb") as out:  # nano-course hub writes the hub, then becomes JupyterHub
                    hub = subprocess.Popen([venv_bin / "nano-course", "hub", "--course", course,
                                            "--out", shared / "hub", "--instructor", INSTRUCTOR,
                                            "--student", ANA, "--student", BEN, "--ip", "127.0.0.1",
                                            "--port", str(port), "--start"],
                                           stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                           start_new_session=True)
                url = f"http://127.0.0.1:{port}/"
                _wait_for(hub, f"{url}hub/api/", log)
                assert f"students log in at {url} with their Unix passwords" in log.read_text()
                yield RunningHub(url, passwords, users, course, exchange, log)
            finally:
                if hub is not None:
                    _stop(hub, shared / "hub" / "state" / "jupyterhub-proxy.pid")
                remove_users(INSTRUCTOR, ANA, BEN)
    except reachable.Unreachable as reason:
        _cannot(str(reason))
    finally:
        if log.is_file():
            (screenshot_root / "jupyterhub.log").write_bytes(log.read_bytes())
        shutil.rmtree(shared, ignore_errors=True)


def _wait_for(hub: subprocess.Popen, url: str, log: Path) -> None:
    deadline = time.monotonic() + HUB_START_TIMEOUT
    while True:
        if hub.poll() is not None:
            pytest.fail(f"JupyterHub exited with {hub.returncode}:\n{log.read_text()[-3000:]}", pytrace=False)
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if time.monotonic() > deadline:
                pytest.fail(f"JupyterHub did not answer on {url} in {HUB_START_TIMEOUT} s:\n"
                            f"{log.read_text()[-3000:]}", pytrace=False)
            time.sleep(0.5)  # polling a socket: there is nothing to wait on


@pytest.fixture()
def chromium(chromium_executable):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable, headless=True,
                                             args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def log_in(browser, hub: RunningHub, user: str, shots_root: Path, shoot_login: bool = False):
    """A browser window of `user`'s own (its own cookies), logged in on the hub's login page."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    shots = Shots(page, shots_root / user)
    page.goto(f"{hub.url}hub/login")
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    if shoot_login:  # the hub's login page, as nano configures it, meets WCAG 2.1 AA (docs/accessibility.md)
        found = axe.audit(page)
        assert not found, f"the hub's login page:\n{axe.explain(found)}"
    page.locator("#username_input").click()
    page.keyboard.type(user)
    page.locator("#password_input").click()
    page.keyboard.type(hub.passwords[user])
    if shoot_login:
        shots("login")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"**/user/{user}/lab**", timeout=LAB_TIMEOUT)
    return page, shots


def open_assignment_list(page):
    expect(page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader")).to_be_visible(timeout=LAB_TIMEOUT)
    assert nbgrader_menu(page) == ["Assignment List"]  # the student's menu: no instructor entries
    page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    return page.locator("#nbgrader-assignment-list")


def write_warmup(page, hub: RunningHub, user: str, body: str) -> None:
    """Open nano/protocol.py of the fetched assignment in JupyterLab's editor, replace warmup's
    stub line with `body`, typed, and save."""
    page.goto(f"{hub.url}user/{user}/lab/tree/{release.ASSIGNMENT}/nano/protocol.py")
    stub = page.locator(".jp-FileEditor .cm-line", has_text=STUB_LINE)
    stub.click(timeout=LAB_TIMEOUT)
    page.keyboard.press("End")
    page.keyboard.press("Shift+Home")  # to the first non-blank: the indentation stays
    page.keyboard.type(body)
    page.keyboard.press("Control+s")
    expect(page.locator(".jp-mod-dirty")).to_have_count(0)


def test_hub_round_trip(running_hub, chromium, screenshot_root):
    hub, users = running_hub, running_hub.users
    shots_root = screenshot_root / "hub_round_trip"
    pages = {}
    for student in (ANA, BEN):
        page, shots = log_in(chromium, hub, student, shots_root, shoot_login=student == ANA)
        listing = open_assignment_list(page)
        released = listing.locator("#released_assignments_list")
        released.get_by_role("button", name="Fetch").click()
        fetched = listing.locator("#fetched_assignments_list")
        expect(fetched.get_by_text(release.ASSIGNMENT, exact=True).first).to_be_visible()
        expect(fetched.get_by_role("button", name="Submit")).to_be_visible()
        fetched.get_by_text(release.ASSIGNMENT, exact=True).first.click()  # its notebooks, listed
        expect(fetched.get_by_text("01-shape-of-an-agent").first).to_be_visible()
        expect(fetched.get_by_role("button", name="Validate")).to_have_count(6)  # one per notebook
        # The student's lab: the assignment list, but none of nbgrader's instructor parts.
        expect(page.get_by_role("tab", name="Create Assignment")).to_have_count(0)
        shots("assignment-list")
        assert (Path("/home", student, release.ASSIGNMENT, "01-shape-of-an-agent.ipynb")).is_file()

        write_warmup(page, hub, student, WARMUP[student])
        mine = Path("/home", student, release.ASSIGNMENT, "nano", "protocol.py").read_text()
        assert WARMUP[student] in mine and "warmup is not implemented yet" not in mine
        assert pwd.getpwuid(Path("/home", student, release.ASSIGNMENT).stat().st_uid).pw_name == student

        listing = open_assignment_list(page)
        listing.locator("#fetched_assignments_list").get_by_role("button", name="Submit").click()
        submitted = listing.locator("#submitted_assignments_list")
        expect(submitted.get_by_role("button", name="Fetch Feedback")).to_be_visible()
        shots("submitted")
        pages[student] = (page, shots)

    # The instructor: collect, grade, release the feedback (in a terminal, as the instructor).
    course, home = hub.course, Path("/home", INSTRUCTOR)
    users.run(INSTRUCTOR, "nbgrader", "collect", release.ASSIGNMENT, cwd=course)
    # Not root, the instructor's kernels each import the SDK (no zygote): beside a busy test run a
    # cell may wait a long time for a CPU, which counts up to twice the limit (kernels.py).
    graded = users.run(INSTRUCTOR, "nano-course", "grade", course, "--course", course, "--workers", "2",
                       "--timeout", str(CELL_LIMIT), cwd=home, timeout=900)
    assert "2 of these students handed in through nbgrader's exchange" in graded.stdout, graded.stdout
    with open(course / "grades.csv", newline="") as f:
        grades = {row["student_id"]: row for row in csv.DictReader(f)}
    assert float(grades[ANA]["01"]) > 0 and float(grades[BEN]["01"]) == 0, graded.stdout
    assert float(grades[ANA]["total"]) == float(grades[ANA]["01"]), graded.stdout
    users.run(INSTRUCTOR, "nbgrader", "release_feedback", release.ASSIGNMENT, cwd=course)

    # The instructor's grades through the hub, in formgrader (the instructor's lab has it).
    teacher, teacher_shots = log_in(chromium, hub, INSTRUCTOR, shots_root)
    teacher.goto(f"{hub.url}user/{INSTRUCTOR}/formgrader/manage_students")
    table = teacher.locator("#main-table")
    for student in (ANA, BEN):
        expect(table.get_by_text(student, exact=True)).to_be_visible()
    expect(table.locator("tr", has_text=ANA)).to_contain_text(f"{float(grades[ANA]['total']):g}")
    teacher_shots("grades")

    # Each student fetches their feedback and reads their own pages, no one else's.
    for student, other in ((ANA, BEN), (BEN, ANA)):
        page, shots = pages[student]
        listing = open_assignment_list(page)
        listing.get_by_role("button", name="Fetch Feedback").click()
        view = listing.get_by_text("(view feedback)")
        expect(view).to_be_visible()
        view.click()
        entry = page.locator(".jp-DirListing-item", has_text="01-shape-of-an-agent.html")
        entry.dblclick()
        frame = page.frame_locator(".jp-HTMLViewer iframe")
        expect(frame.locator("body")).to_contain_text(student)
        expect(frame.locator("body")).not_to_contain_text(other)
        shots("feedback")
        fetched = sorted(Path("/home", student, release.ASSIGNMENT, "feedback").glob("*/*.html"))
        assert len(fetched) == 6 and all(other not in p.read_text() for p in fetched)
        assert "BEGIN HIDDEN TESTS" not in "".join(p.read_text() for p in fetched)

    # Ben reaches nothing of Ana's: not her server through the hub, not her files.
    ben_page = pages[BEN][0]
    theirs = ben_page.request.get(f"{hub.url}user/{ANA}/api/contents/{release.ASSIGNMENT}", max_redirects=0)
    assert theirs.status in (302, 403, 404) and "protocol.py" not in theirs.text(), theirs.status
    page_of_ana = next(Path("/home", ANA, release.ASSIGNMENT, "feedback").glob("*/01-shape-of-an-agent.html"))
    assert users.run(BEN, "cat", page_of_ana, cwd=Path("/home", BEN), check=False).returncode != 0
    assert users.run(BEN, "ls", hub.exchange / release.ASSIGNMENT / "feedback", cwd=Path("/home", BEN),
                     check=False).returncode != 0
