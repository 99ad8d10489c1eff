"""A student's JupyterLab shows the student's parts of nbgrader only; the instructor's keeps all.

nbgrader is installed beside JupyterLab, so without care a student meets its instructor interface
(the Nbgrader menu, the Create Assignment sidebar, formgrader, the course list). A workspace from
`make_workspace` carries a Jupyter config folder that turns those off, as nbgrader documents
(`jupyter labextension disable`, `jupyter server extension disable`), read when JupyterLab starts
with it on JUPYTER_CONFIG_PATH as `./run course` does. Validate and the assignment list stay. The same workspace served
by a plain `jupyter lab` (the instructor's) shows everything.
"""

import urllib.error
import urllib.request

import pytest

from tests.browser.conftest import running_lab
from tests.browser.test_jupyterlab import expect, open_notebook

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
    return {"the Nbgrader menu": page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader"),
            "the Create Assignment sidebar": page.get_by_role("tab", name="Create Assignment")}


def test_student_lab_shows_no_instructor_parts(page, shots, lab):
    """The student's lab: no Nbgrader menu, no Create Assignment, no formgrader or course list."""
    open_notebook(page, lab, shots, "01-shape-of-an-agent.ipynb")
    expect(page.locator(".jp-NotebookPanel-toolbar", has_text="Validate")).to_be_visible()
    for name, part in instructor_parts(page).items():
        expect(part, f"{name} is shown to the student").to_have_count(0)
    page.get_by_role("menuitem", name="View", exact=True).click()  # menus drawn, nothing added
    shots("student-lab", show=None)
    page.keyboard.press("Escape")
    for path in ("formgrader", "formgrader/api/assignments", "formgraders"):  # formgrader, course list
        assert status(lab, path) == 404, f"/{path} answers the student's lab"
    assert status(lab, "lab") == 200


def test_instructor_lab_keeps_nbgrader(browser, solved_workspace, tmp_path_factory, screenshot_root):
    """The same workspace in a plain `jupyter lab`: nbgrader's instructor parts are all there."""
    with running_lab(solved_workspace, tmp_path_factory.mktemp("instructor-lab-home"), student=False) as lab:
        tab = browser.new_page()
        try:
            tab.goto(lab.url("lab/workspaces/instructor/tree/01-shape-of-an-agent.ipynb", reset=""))
            expect(tab.locator(".jp-NotebookPanel .jp-Cell").first).to_be_visible(timeout=60_000)
            for name, part in instructor_parts(tab).items():
                expect(part.first, f"{name} is missing from the instructor's lab").to_be_visible()
            folder = screenshot_root / "instructor_lab_keeps_nbgrader"
            folder.mkdir(exist_ok=True)
            tab.screenshot(path=str(folder / "01-instructor-lab.png"))
            assert status(lab, "formgrader") == 200 and status(lab, "formgraders") == 200
        finally:
            tab.close()
            lab.shut_down_kernels()
