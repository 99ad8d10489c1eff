"""The course's Python from any shell: a workspace records the Python the course is installed in.

A student's shell may put another Python first (pyenv or conda in ~/.bashrc). These tests run a
real interactive bash whose ~/.bashrc puts a bare Python (a real venv without the course's
packages) first on PATH as `python` and `python3`: there `./ok 02` and the replay command the
lectures print (`./python -m nano --replay ...`) must still run with the course's Python, and
the shell JupyterLab's terminal starts (the workspace's `.jupyter/bashrc`) must find the course's
`python` first. The browser test of that terminal is tests/browser/test_student_lab.py.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.authoring import release
from tests.project.test_ok import python_without_the_course_packages

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def solved(course, tmp_path_factory):
    return release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT,
                                                          tmp_path_factory.mktemp("student") / "ws"))


def home_with_another_python(home: Path) -> Path:
    """A HOME whose ~/.bashrc (which ~/.profile reads, so login shells too) puts a bare Python
    first as `python` and `python3`; the bare Python's path."""
    bare = python_without_the_course_packages(home / "bare")
    bin_ = home / "other-python"
    bin_.mkdir()
    for name in ("python", "python3"):
        (bin_ / name).symlink_to(bare)
    (home / ".bashrc").write_text(f'export PATH="{bin_}:$PATH"\n', encoding="utf-8")
    (home / ".profile").write_text('. "$HOME/.bashrc"\n', encoding="utf-8")  # as Debian's does
    return bare


def bash(command: str, cwd: Path, home: Path, *options: str, typed: str = "") -> subprocess.CompletedProcess:
    """Run `command` in an interactive bash (which reads the startup files) with HOME=`home`."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "NANO_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), PATH="/usr/local/bin:/usr/bin:/bin")
    return subprocess.run(["bash", *options, "-i", "-c", command], cwd=cwd, env=env, input=typed,
                          capture_output=True, text=True, timeout=300)


def test_ok_and_the_replay_use_the_course_python_in_a_shell_that_puts_another_first(solved, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    bare = home_with_another_python(home)
    assert bash("command -v python3", solved, home).stdout.strip() == str(home / "other-python" / "python3")

    checked = bash("./ok 02", solved, home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert re.search(r"^02: \d+ passed, 0 failed$", checked.stdout, re.M), checked.stdout
    assert "does not have" not in checked.stdout

    copy = tmp_path / "copy"  # the lecture says: in a copy of the workspace
    shutil.copytree(solved, copy)
    replayed = bash("./python -m nano --replay fixtures/celsius_trace.json", copy, home, typed="y\n")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "Allow edit_file? [y/n] y\n" in replayed.stdout, replayed.stdout
    assert "return (c * 9) / 5 + 32" in (copy / "fixtures" / "convert.py").read_text(encoding="utf-8")
    assert str(bare) not in replayed.stdout + replayed.stderr


def test_jupyterlabs_terminal_starts_with_the_course_python_first(solved, tmp_path):
    """The shell command the workspace's Jupyter config gives the terminal: the user's startup
    files run (their PATH stays), and then the course's Python comes first."""
    home = tmp_path / "home"
    home.mkdir()
    home_with_another_python(home)
    config = json.loads((solved / release.STUDENT_LAB_CONFIG / "jupyter_server_config.json").read_text())
    shell = config["ServerApp"]["terminado_settings"]["shell_command"]
    assert shell[:2] == ["bash", "--rcfile"] and shell[-1] == "-i"
    found = bash('command -v python; python -c "import sys; print(sys.prefix)"; echo "$PATH"',
                 solved, home, *shell[1:-1])
    which, prefix, path = found.stdout.split()
    assert Path(which).parent == Path(sys.executable).parent and Path(prefix) == Path(sys.prefix)
    assert f"{home / 'other-python'}:" in path, "the user's own ~/.bashrc ran"


class WorkspaceKernel:
    """A kernel started from the workspace's own kernel spec, as JupyterLab starts it there."""

    def __init__(self, workspace: Path):
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import KernelManager

        specs = KernelSpecManager(kernel_dirs=[str(workspace / release.STUDENT_LAB_CONFIG / "kernels")])
        self.manager = KernelManager(kernel_name="python3", kernel_spec_manager=specs)
        self.manager.start_kernel(cwd=str(workspace))
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def run(self, code: str) -> str:
        """What the cell printed, its errors' names and values included."""
        said = []

        def keep(message):
            content = message["content"]
            if message["msg_type"] == "stream":
                said.append(content["text"])
            elif message["msg_type"] == "error":
                said.append(f"{content['ename']}: {content['evalue']}")
            elif message["msg_type"] == "execute_result":
                said.append(content["data"]["text/plain"])

        self.client.execute_interactive(code, output_hook=keep, timeout=120)
        return "".join(said)

    def close(self):
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def test_after_a_restart_a_later_section_runs_without_the_first_cell(solved, tmp_path):
    """The workspace's kernel is the course's Python and does what the first cell does: a `!{sys.executable} ok`
    cell and one that needs ROOT and Path run straight away, and a saved edit is picked up."""
    workspace = tmp_path / "ws"
    shutil.copytree(solved, workspace)
    kernel = WorkspaceKernel(workspace)
    try:
        assert kernel.run("print(sys.executable)").strip() == sys.executable
        assert re.search(r"^02: \d+ passed, 0 failed\r?$", kernel.run("!{sys.executable} ok 02"), re.M)
        assert kernel.run("print(ROOT == Path.cwd() == Path(os.getcwd()))") == "True\n"
        assert kernel.run("from nano.tools import read_file; print(len(read_file('fixtures/convert.py')) > 100)") == "True\n"
        tools = workspace / "nano" / "tools.py"
        text = tools.read_text(encoding="utf-8")
        tools.write_text(text.replace('    """Return the text of the file at `path`', '    return "saved"\n    """Return the text of the file at `path`', 1),
                         encoding="utf-8")
        later = time.time() + 2
        os.utime(tools, (later, later))
        assert kernel.run("print(read_file('fixtures/convert.py'))") == "saved\n", "the saved edit was not reloaded"
    finally:
        kernel.close()
    kernel = WorkspaceKernel(workspace)  # in order, the lecture's first cell says nothing more than before
    try:
        nb = json.loads((workspace / "02-tools-that-read.ipynb").read_text(encoding="utf-8"))
        assert kernel.run(next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")) == ""
    finally:
        kernel.close()
