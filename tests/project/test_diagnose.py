"""In a notebook: a cell run after saving a nano/*.py that does not parse (or fails when imported)
says so first, file and line, and does not run the old code; silent when the files parse, and off
while nbgrader grades.

A real IPython kernel (jupyter_client) runs the lecture's own first cell in a fresh workspace.
"""

import json
import os
import re
import time

import pytest
from jupyter_client.manager import start_new_kernel

from autograder.authoring import release

STUB = "read_file is not implemented yet"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def workspace(course, tmp_path):
    return release.make_workspace(course / "release" / release.ASSIGNMENT, tmp_path / "ws")


class Kernel:
    """A kernel started in the workspace; `run` returns a cell's outputs in the order they came."""

    def __init__(self, workspace, **env):
        self.manager, self.client = start_new_kernel(kernel_name="python3", cwd=str(workspace),
                                                     env={**os.environ, **env})

    def run(self, code: str) -> list[dict]:
        outputs = []

        def keep(message):
            if message["msg_type"] in ("stream", "error", "execute_result", "display_data"):
                outputs.append({"type": message["msg_type"], **message["content"]})

        self.client.execute_interactive(code, output_hook=keep, timeout=120)
        return outputs

    def close(self):
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def first_cell(workspace, lecture="02"):
    nb = json.loads(next(workspace.glob(f"{lecture}-*.ipynb")).read_text(encoding="utf-8"))
    return next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")


def save_tools(workspace, find, *replace, module="tools.py") -> int:
    """Save nano/tools.py (or `module`) with the line holding `find` replaced by the lines
    `replace`, as the editor does, a little later than the version loaded; return the first
    line's number."""
    path = workspace / "nano" / module
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if find in line)
    lines[index:index + 1] = [f"{line}\n" for line in replace]
    path.write_text("".join(lines), encoding="utf-8")
    later = time.time() + 2 + index / 1000
    os.utime(path, (later, later))
    return index + 1


def test_a_cell_after_saving_a_file_that_does_not_parse_names_the_file_and_line(workspace):
    kernel = Kernel(workspace)
    try:
        assert kernel.run(first_cell(workspace)) == []
        assert kernel.run("from nano.tools import read_file") == []  # files that parse: silence

        line = save_tools(workspace, STUB, "    return (")
        outputs = kernel.run("print('the cell ran'); read_file('fixtures/convert.py')")
        assert outputs[0]["type"] == "error", outputs
        assert outputs[0]["traceback"] == [
            f"nano/tools.py, line {line}: SyntaxError: '(' was never closed",
            "The saved nano/tools.py does not parse, so this cell did not run (the notebook still "
            "has the last version that worked). Fix that line and save, then run the cell again."]
        assert len(outputs) == 1, outputs  # no autoreload traceback, no stub's NotImplementedError
        assert kernel.run("1 + 1")[0]["traceback"][0].startswith(f"nano/tools.py, line {line}:")

        save_tools(workspace, "    return (", "    return Path(path).read_text(encoding='utf-8')")
        fixed = kernel.run("read_file('fixtures/convert.py')")
        assert [o["type"] for o in fixed] == ["execute_result"], fixed
        assert "def celsius_to_fahrenheit" in fixed[0]["data"]["text/plain"]
    finally:
        kernel.close()


def test_a_cell_after_saving_a_file_that_fails_when_imported_names_the_file_and_line(workspace):
    kernel = Kernel(workspace)
    try:
        assert kernel.run(first_cell(workspace)) == []
        assert kernel.run("from nano.tools import read_file") == []

        line = save_tools(workspace, "import os", "import os", "import nosuchmodule") + 1
        outputs = kernel.run("read_file('fixtures/convert.py')")
        assert [o["type"] for o in outputs] == ["error"], outputs
        assert outputs[0]["traceback"] == [
            f"nano/tools.py, line {line}: ModuleNotFoundError: No module named 'nosuchmodule'",
            "The saved nano/tools.py fails when it is imported, so this cell did not run (the "
            "notebook still has the last version that worked). Fix that line and save, then run "
            "the cell again."]
        assert kernel.run("2 + 2")[0]["traceback"] == outputs[0]["traceback"]  # until it is fixed

        save_tools(workspace, "import nosuchmodule", "")
        assert [o["type"] for o in kernel.run("2 + 2")] == ["execute_result"]
    finally:
        kernel.close()


def test_a_runtime_error_after_saving_an_edit_points_at_the_saved_line(workspace):
    """IPython 9's default reloader patches a function with line numbers from the old file
    (ipython/ipython#15359); the lectures' `%autoreload 1 --full` reloads the module whole."""
    kernel = Kernel(workspace)
    try:
        assert kernel.run(first_cell(workspace, "04")) == []
        assert kernel.run("from nano.gate import preview") == []
        line = save_tools(workspace, "preview is not implemented yet", "    shown = {'$': name}",
                          "    return shown[input['command']]", module="gate.py") + 1
        assert line > 40  # far from the imports at the top, where the old reloader pointed
        outputs = kernel.run("preview('bash', {'command': 'ls'})")
        assert [o["type"] for o in outputs] == ["error"], outputs
        traceback = ANSI.sub("", "\n".join(outputs[0]["traceback"]))
        assert f"nano/gate.py:{line}, in preview" in traceback, traceback
        assert re.search(rf"^-*> {line} +return shown\[input\['command'\]\]$", traceback, re.M), traceback
    finally:
        kernel.close()


def test_the_guard_stays_off_while_nbgrader_grades(workspace):
    kernel = Kernel(workspace, NBGRADER_EXECUTION="autograde")
    try:
        assert kernel.run(first_cell(workspace)) == []
        assert kernel.run("from nano.tools import read_file") == []
        save_tools(workspace, STUB, "    return (")
        outputs = kernel.run("read_file('fixtures/convert.py')")
        assert not any("does not parse" in json.dumps(o) for o in outputs), outputs
    finally:
        kernel.close()
