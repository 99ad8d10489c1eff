"""A student's JupyterLab shows the student's parts of nbgrader only; the instructor's keeps all.

nbgrader is installed beside JupyterLab, so without care a student meets its instructor interface
(the Create Assignment sidebar, formgrader, the course list). A workspace from `make_workspace`
carries a Jupyter config folder that turns those off, as nbgrader documents (`jupyter labextension
disable`, `jupyter server extension disable`), read when JupyterLab starts with it on
JUPYTER_CONFIG_PATH as `./run course` does. Validate stays. A workspace of one's own has no
exchange, so its Nbgrader menu holds one entry saying where fetch and submit are (the class's hub),
which opens lecture 01; where an exchange is configured (a hub, or a shared server: `exchange=True`)
the menu lists the assignment list alone, from which a student fetches and submits through a real
exchange. The same workspace served by a plain `jupyter lab` (the instructor's) shows everything.
The workspace's terminal starts with the course's Python first, whatever the user's ~/.bashrc does.
"""

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from autograder.authoring import release
from tests.browser.conftest import running_lab
from tests.browser.test_jupyterlab import expect, open_notebook, reset_done
from tests.project.test_course_python import home_with_another_python
from tests.project.test_install import free_port, lab_env, repository_copy, serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def status(lab, path: str) -> int:
    """The HTTP status of GET `path` on the lab's server (with its token)."""
    try:
        with urllib.request.urlopen(lab.url(path), timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def instructor_parts(page):
    """Locators of nbgrader's instructor interface in JupyterLab's window."""
    return {"the Create Assignment sidebar": page.get_by_role("tab", name="Create Assignment")}


def nbgrader_menu(page) -> list[str]:
    """Open the Nbgrader menu; the labels of the entries it shows (it stays open)."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    entries = page.locator(".lm-Menu-item:not(.lm-mod-hidden) .lm-Menu-itemLabel")
    expect(entries.first).to_be_visible()
    return entries.all_inner_texts()


def open_empty_workspace(page, lab, name: str) -> None:
    """Open a fresh, empty JupyterLab layout: the Launcher alone, the reset done."""
    page.goto(lab.url(f"lab/workspaces/{name}", reset=""), wait_until="commit")  # as open_notebook
    expect(page.locator(".jp-LauncherCard").first).to_be_visible(timeout=60_000)
    reset_done(page)


def test_student_lab_shows_no_instructor_parts(page, shots, lab):
    """The student's lab: the Nbgrader menu holds the assignment list alone; no Create
    Assignment, no formgrader or course list."""
    open_notebook(page, lab, shots, "01-shape-of-an-agent.ipynb")
    expect(page.locator(".jp-NotebookPanel-toolbar", has_text="Validate")).to_be_visible()
    for name, part in instructor_parts(page).items():
        expect(part, f"{name} is shown to the student").to_have_count(0)
    assert nbgrader_menu(page) == [release.NO_EXCHANGE]
    shots("student-lab", show=None)
    page.keyboard.press("Escape")
    for path in ("formgrader", "formgrader/api/assignments", "formgraders"):  # formgrader, course list
        assert status(lab, path) == 404, f"/{path} answers the student's lab"
    assert status(lab, "lab") == 200


def test_the_workspace_run_course_opens_says_where_fetch_and_submit_are(browser, tmp_path, screenshot_root):
    """`./run course` in a copy of the repository, as a student starts it: its Nbgrader menu holds
    one sentence saying that fetch and submit are on the class's hub, not nbgrader's assignment
    list, which would open here on "Error fetching courses!" (no exchange); the sentence opens
    lecture 01, whose Before you start says how to hand in from a workspace."""
    (tmp_path / "clone").mkdir()
    clone = repository_copy(tmp_path / "clone")
    (tmp_path / "home").mkdir()
    env = lab_env(tmp_path / "home", f"{os.environ['PATH']}{os.pathsep}{Path(sys.executable).parent}")
    folder = screenshot_root / "run_course_menu"
    folder.mkdir(exist_ok=True)
    seen = {}

    def visit(url: str) -> None:
        tab = browser.new_page()
        try:
            tab.goto(url.replace("/lab/tree/01-shape-of-an-agent.ipynb", "/lab/workspaces/menu")
                     + "&reset", wait_until="commit")
            expect(tab.locator(".jp-LauncherCard").first).to_be_visible(timeout=60_000)
            reset_done(tab)
            seen["menu"] = nbgrader_menu(tab)
            tab.screenshot(path=str(folder / "01-nbgrader-menu.png"))
            tab.locator(".lm-Menu-itemLabel", has_text=release.NO_EXCHANGE).click()
            expect(tab.locator(".jp-NotebookPanel", has_text="Handing in.")).to_be_visible(timeout=60_000)
            expect(tab.get_by_text("Error fetching courses")).to_have_count(0)
            tab.screenshot(path=str(folder / "02-lecture-01.png"))
        finally:
            tab.close()

    serve(["./run", "course", "--no-browser", "--ip=127.0.0.1", f"--port={free_port()}"], clone, env, then=visit)
    assert seen["menu"] == [release.NO_EXCHANGE]


def test_instructor_lab_keeps_nbgrader(browser, solved_workspace, tmp_path_factory, screenshot_root):
    """The same workspace in a plain `jupyter lab`: nbgrader's instructor parts are all there."""
    with running_lab(solved_workspace, tmp_path_factory.mktemp("instructor-lab-home"), student=False) as lab:
        tab = browser.new_page()
        try:
            tab.goto(lab.url("lab/workspaces/instructor/tree/01-shape-of-an-agent.ipynb", reset=""))
            expect(tab.locator(".jp-NotebookPanel .jp-Cell").first).to_be_visible(timeout=60_000)
            reset_done(tab)
            for name, part in instructor_parts(tab).items():
                expect(part.first, f"{name} is missing from the instructor's lab").to_be_visible()
            assert {"Assignment List", "Course List", "Formgrader"} <= set(nbgrader_menu(tab))
            folder = screenshot_root / "instructor_lab_keeps_nbgrader"
            folder.mkdir(exist_ok=True)
            tab.screenshot(path=str(folder / "01-instructor-lab.png"))
            assert status(lab, "formgrader") == 200 and status(lab, "formgraders") == 200
        finally:
            tab.close()
            lab.shut_down_kernels()


def test_a_student_opens_the_assignment_list_fetches_submits_and_validates(browser, tmp_path, screenshot_root):
    """A real exchange: the instructor builds and releases the course; in the student's lab
    (nbgrader's instructor parts off) the Nbgrader menu opens the assignment list, which fetches
    the assignment with lecture 01, validates a notebook and submits."""
    exchange = tmp_path / "exchange"
    course = tmp_path / "course"
    release.build_course(course, exchange=exchange)
    nbgrader = Path(sys.executable).parent / "nbgrader"
    subprocess.run([nbgrader, "release_assignment", release.ASSIGNMENT], cwd=course, check=True,
                   capture_output=True, timeout=300)
    student = tmp_path / "student"  # the student's home, where fetched assignments land
    student.mkdir()
    settings = {"CourseDirectory": {"course_id": release.COURSE_ID}, "Exchange": {"root": str(exchange)}}
    (student / "nbgrader_config.json").write_text(json.dumps(settings), encoding="utf-8")
    release.write_student_lab_config(student / release.STUDENT_LAB_CONFIG, exchange=True)
    folder = screenshot_root / "assignment_list"
    folder.mkdir(exist_ok=True)
    (tmp_path / "lab-home").mkdir()
    with running_lab(student, tmp_path / "lab-home") as lab:
        tab = browser.new_page()
        try:
            open_empty_workspace(tab, lab, "assignments")
            assert nbgrader_menu(tab) == ["Assignment List"]
            tab.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
            released = tab.locator("#released_assignments_list .list_item", has_text=release.ASSIGNMENT)
            released.get_by_role("button", name="Fetch").click()
            fetched = tab.locator("#fetched_assignments_list .list_item").first
            expect(fetched).to_contain_text(release.ASSIGNMENT, timeout=60_000)
            assert (student / release.ASSIGNMENT / "01-shape-of-an-agent.ipynb").is_file()
            tab.locator("#fetched_assignments_list a.assignment-notebooks-link").first.click()
            notebook = tab.locator("#fetched_assignments_list .nested_list_item", has_text="01-shape-of-an-agent")
            expect(notebook).to_be_visible()
            tab.screenshot(path=str(folder / "01-fetched.png"))

            validate = notebook.get_by_role("button", name="Validate")
            validate.click()
            dialog = tab.locator(".jp-Dialog")
            expect(dialog).to_be_visible(timeout=180_000)  # the notebook runs first
            expect(dialog).to_contain_text("Validation")
            tab.screenshot(path=str(folder / "02-validated.png"))
            dialog.get_by_role("button").last.click()

            tab.locator("#fetched_assignments_list").get_by_role("button", name="Submit").first.click()
            expect(tab.locator("#submitted_assignments_list .list_item").first).to_contain_text(
                release.ASSIGNMENT, timeout=60_000)
            tab.screenshot(path=str(folder / "03-submitted.png"))
            inbound = exchange / release.COURSE_ID / "inbound"
            assert [p.name.split("+")[1] for p in inbound.iterdir()] == [release.ASSIGNMENT]
        finally:
            tab.close()
            lab.shut_down_kernels()


def test_a_terminal_in_the_student_lab_runs_the_course_python(browser, solved_workspace, tmp_path, screenshot_root):
    """The user's ~/.bashrc puts another Python first (as pyenv or conda would); a terminal
    opened from the student's Launcher still runs the course's Python, and ./ok works there."""
    home = tmp_path / "home"
    home.mkdir()
    home_with_another_python(home)
    (tmp_path / "lab-home").mkdir()
    with running_lab(solved_workspace, tmp_path / "lab-home", extra_env={"HOME": str(home)}) as lab:
        tab = browser.new_page()
        try:
            open_empty_workspace(tab, lab, "terminal")
            tab.locator(".jp-LauncherCard", has_text="Terminal").click()
            terminal = tab.locator(".jp-Terminal")
            expect(terminal).to_be_visible(timeout=60_000)
            terminal.click()
            report = tmp_path / "which.txt"
            tab.keyboard.type(f'python -c "import sys; print(sys.prefix)" > {report}; ./ok 02 | tail -1 >> {report}\n')
            deadline = time.monotonic() + 120
            while len(lines := report.read_text().splitlines() if report.exists() else []) < 2:
                assert time.monotonic() < deadline, f"the terminal wrote {lines}"
                time.sleep(0.5)  # the shell writes a file: nothing to wait on
            assert Path(lines[0]) == Path(sys.prefix), "the terminal's python is not the course's"
            assert re.fullmatch(r"02: \d+ passed, 0 failed", lines[1]), lines
            folder = screenshot_root / "terminal"
            folder.mkdir(exist_ok=True)
            tab.screenshot(path=str(folder / "01-terminal.png"))
        finally:
            tab.close()
            lab.shut_down_kernels()


def test_the_student_lab_opens_lecture_01_unchanged_and_asks_nothing(browser, solved_workspace, tmp_path):
    """The lab's own URL opens lecture 01 (not the Launcher); the notebook is not marked as
    changed once its kernel has started; no "Jupyter news" question pops up."""
    home = tmp_path / "lab-home"
    home.mkdir()
    with running_lab(solved_workspace, home) as lab:
        # running_lab answers the news question for every other test; the student's config must.
        (home / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").unlink()
        tab = browser.new_page()
        try:
            tab.goto(lab.url(""))
            expect(tab).to_have_url(re.compile(r"/lab/tree/01-shape-of-an-agent\.ipynb"), timeout=60_000)
            kernel = tab.locator(".jp-StatusBar-Widget", has_text=re.compile(r"Python 3 \(ipykernel\) \| Idle"))
            expect(kernel.first).to_be_visible(timeout=60_000)
            expect(tab.locator(".lm-TabBar-tab", has_text="01-shape-of-an-agent")).to_be_visible()
            tab.wait_for_timeout(3000)  # the news question comes a moment after the page loads
            expect(tab.locator(".lm-TabBar-tab.jp-mod-dirty")).to_have_count(0)
            expect(tab.get_by_text(re.compile("Jupyter news", re.I))).to_have_count(0)
        finally:
            tab.close()
            lab.shut_down_kernels()
