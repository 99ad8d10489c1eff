"""The first two commands on a fresh machine: the install sets, `nano-course student`, `./run course`.

pyproject.toml's dependencies are what a student needs; its extras `instructor` and `test` are
the grading cluster, the gradebook driver, the authoring tools and the browser tests.
environment.yml (conda, Binder) is the student's set. A student-only install is imitated by
tests/project/student_only/sitecustomize.py, which makes the extras' packages unimportable; the
extended test makes a real one from the package caches pip is configured with.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

from autograder.cli import INSTRUCTOR_MODULES
from autograder.authoring.release import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
# What each extra's package is imported as; nbclient and pyyaml come with the student's set
# (nbgrader and jupyterlab need them), so a student's environment has them anyway; jupyterhub and
# mystmd are programs nano-course hub and site run, never imported.
IMPORTED_AS = {"copydetect": ["copydetect"], "dask": ["dask", "distributed"], "jupytext": ["jupytext"],
               "matplotlib": ["matplotlib"], "psycopg": ["psycopg"], "nbval": ["nbval"],
               "playwright": ["playwright"], "axe-playwright-python": ["axe_playwright_python"],
               "pytest-xdist": ["xdist"], "hypothesis": ["hypothesis"],
               "nbclient": [], "pyyaml": [], "jupyterhub": [], "mystmd": []}
NOT_A_STUDENTS = sorted(m for modules in IMPORTED_AS.values() for m in modules)
STUDENT_ONLY = Path(__file__).parent / "student_only"
VENV_BIN = Path(sys.executable).parent
# A student's lab prints the URL of lecture 01 (the workspace's .jupyter says so).
URL = re.compile(r"(http://127\.0\.0\.1:\d+/)lab/tree/01-shape-of-an-agent\.ipynb\?(token=\w+)")
IS_ROOT = os.geteuid() == 0


def name(requirement: str) -> str:
    return re.split(r"[\[<>=!~ ]", requirement, maxsplit=1)[0].lower()


def test_environment_yml_installs_the_students_set_of_pyproject():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert f"python{PROJECT['requires-python']}" in conda
    assert pip[-1] == "-e .", "the course itself, without extras, last"
    assert env["channels"] == ["conda-forge"]
    packages = [d for d in conda if name(d) not in ("python", "pip")] + pip[:-1]
    assert sorted(packages) == sorted(PROJECT["dependencies"])


def test_the_extras_hold_what_only_instructors_and_tests_need():
    extras = PROJECT["optional-dependencies"]
    assert sorted(extras) == ["instructor", "test"]
    students = {name(r) for r in PROJECT["dependencies"]}
    assert {"anthropic", "jupyterlab", "ipywidgets", "nbgrader", "pytest"} <= students
    assert not students & {name(r) for r in extras["instructor"] + extras["test"]}
    assert sorted(IMPORTED_AS) == sorted(name(r) for r in extras["instructor"] + extras["test"])
    instructors = {m for r in extras["instructor"] for m in IMPORTED_AS[name(r)]}
    assert instructors == INSTRUCTOR_MODULES, "cli.py names them when one is missing"


def test_run_installs_the_students_set_for_course_and_everything_for_tests_and_ci():
    run = (ROOT / "run").read_text()
    assert re.search(r'course\)\n\s+setup ""\n', run)
    assert re.search(r'tests\)\n\s+setup "\[instructor,test\]"\n', run)
    assert "./run tests" in (ROOT / ".ci" / "run").read_text()


def test_setup_for_all_users_refuses_a_clone_others_cannot_enter_or_a_python_they_cannot_run(tmp_path):
    closed = tmp_path / "closed"
    (closed / "clone").mkdir(parents=True)
    closed.chmod(0o700)
    shutil.copy2(ROOT / "run", closed / "clone" / "run")
    done = subprocess.run(["bash", str(closed / "clone" / "run"), "setup", "--all-users"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"other users cannot enter {closed}, so they could not run this checkout's "
                                  ".venv: clone the course where every user can enter"), done.stderr
    open_clone = Path(tempfile.mkdtemp(prefix="nano-clone-", dir="/tmp"))  # every folder to it open to all
    try:
        open_clone.chmod(0o755)
        shutil.copy2(ROOT / "run", open_clone / "run")
        private = closed / "python3"  # a Python only its owner can reach
        private.write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
        private.chmod(0o755)
        done = subprocess.run(["bash", str(open_clone / "run"), "setup", "--all-users"], capture_output=True,
                              text=True, timeout=120, env={**os.environ, "PYTHON": str(private)})
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr == (f"no Python 3.11 or newer that every user can run was found (tried {private}): "
                               "install one where all can run it (apt-get install python3), or name it with "
                               "PYTHON=\n")
        assert not (open_clone / ".venv").exists()
    finally:
        shutil.rmtree(open_clone)


def student_only_env(**extra: str) -> dict[str, str]:
    """The environment of a process that cannot import the extras' packages."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "PYTHON"))}
    return {**env, "PYTHONPATH": str(STUDENT_ONLY), "NANO_NOT_INSTALLED": ",".join(NOT_A_STUDENTS),
            **extra}


def nano_course(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(VENV_BIN / "nano-course"), *args], capture_output=True, text=True,
                          env=env or student_only_env(), timeout=300)


@pytest.mark.parametrize("case", ["a file", "inside a file", "not empty", "no course",
                                  "course is a file", "not a course"])
def test_student_says_in_one_sentence_why_it_cannot_write_there(case, tmp_path):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n")
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "work.py").write_text("print('mine')\n")
    (tmp_path / "empty").mkdir()
    args, said = {
        "a file": ([a_file], f"{a_file} is a file: name a new folder for the workspace"),
        "inside a file": ([a_file / "ws"], f"cannot make the folder {a_file / 'ws'}: {a_file} is a "
                                           "file, not a folder"),
        "not empty": ([tmp_path / "used"], f"{tmp_path / 'used'} already exists and is not empty"),
        "no course": ([tmp_path / "ws", "--course", tmp_path / "none"],
                      f"there is no course at {tmp_path / 'none'}: build one there first with "
                      f"nano-course build --out {tmp_path / 'none'}"),
        "course is a file": ([tmp_path / "ws", "--course", a_file],
                             f"{a_file} is a file, not a course folder: --course names the folder "
                             "nano-course build made"),
        "not a course": ([tmp_path / "ws", "--course", tmp_path / "empty"],
                         f"{tmp_path / 'empty'} is not a nano course (it has no nbgrader_config.py)"),
    }[case]
    done = nano_course("student", *map(str, args))
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"nano-course student: {said}"), done.stderr
    assert a_file.read_text() == "mine\n" and not (tmp_path / "ws").exists()
    assert [p.name for p in (tmp_path / "used").iterdir()] == ["work.py"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(command: list[str], cwd: Path, env: dict[str, str], then=None) -> str:
    """Start JupyterLab with `command`; when it prints its URL, answers it and serves no
    formgrader (a student's lab: the workspace's .jupyter is read), call `then(url)` if given (a
    browser's visit), stop it and return everything it printed. Fails with its output when it
    exits or prints no URL in time."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    printed = []
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            printed.append(line)
            found = URL.search(line)
            if found:
                assert b"JupyterLab" in page(found.group(0)), "".join(printed)
                assert status(f"{found.group(1)}formgrader?{found.group(2)}") == 404, \
                    "nbgrader's formgrader is served in a student's JupyterLab"
                if then is not None:
                    then(found.group(0))
                return "".join(printed)
        pytest.fail(f"JupyterLab printed no URL (exit code {process.poll()}):\n" + "".join(printed))
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        process.stdout.close()


def page(url: str) -> bytes:
    """The page at `url`, once the server that printed it accepts connections (it prints first)."""
    for _ in range(60):
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return response.read()
        except urllib.error.URLError as exc:
            if not isinstance(exc.reason, ConnectionRefusedError):
                raise
            time.sleep(0.5)
    raise AssertionError(f"nothing answers at {url}")


def status(url: str) -> int:
    """The HTTP status `url` answers with."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def lab_env(home: Path, path: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "PYTHON", "JUPYTER", "VIRTUAL_ENV"))}
    return {**env, "HOME": str(home), "PATH": path, "JUPYTER_RUNTIME_DIR": str(home / "runtime")}


@pytest.mark.slow
def test_student_builds_a_workspace_without_the_extras_and_its_next_line_opens_it(tmp_path):
    """With only the student's packages: the workspace, the hint that opens it, ./ok 00."""
    outside = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                              if Path(p).resolve() != VENV_BIN.resolve())
    done = nano_course("student", str(tmp_path / "ws"), env=student_only_env(PATH=outside))
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    ready, hint, then = done.stdout.splitlines()
    workspace = tmp_path / "ws"
    assert ready == f"student workspace ready in {workspace}"
    root = " --allow-root" if IS_ROOT else ""
    activate = (f"source {VENV_BIN / 'activate'}" if (VENV_BIN / "activate").is_file() else
                f'export PATH={VENV_BIN}:"$PATH"')  # a venv, or conda's environment
    assert hint == (f"next: {activate} && cd {workspace} && "
                    f"JUPYTER_CONFIG_PATH={workspace / '.jupyter'} JUPYTER_PATH={workspace / '.jupyter'} "
                    f"jupyter lab{root} 01-shape-of-an-agent.ipynb")
    assert then.startswith("then follow the notebook; ./ok 00 checks lecture 01 once you have "
                           "written warmup")

    checked = subprocess.run(["./ok", "00"], cwd=workspace, capture_output=True, text=True,
                             env=student_only_env(PATH=f"{VENV_BIN}{os.pathsep}{outside}"),
                             timeout=120)
    assert checked.stdout.rstrip().endswith("00 and 01: 2 passed, 1 failed"), checked.stdout
    assert "FAIL  01 warmup_returns_61001" in checked.stdout, "only the stub fails"

    port = f"--port={free_port()}"
    typed = hint.removeprefix("next: ") + f" --no-browser --ip=127.0.0.1 {port}"
    printed = serve(["bash", "-c", typed], tmp_path, lab_env(tmp_path, outside))
    assert "Running as root is not recommended" not in printed


def repository_copy(folder: Path) -> Path:
    """What a clone has, in `folder`, with a .venv that finds this environment's packages but
    installs nano-course anew (from the copy) when ./run runs pip: a clone's first ./run."""
    for file in ("run", "ok", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / file, folder / file)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", "*.egg-info")
    for tree in ("autograder", "nano", "lectures", "fixtures", "tests", "checks"):
        shutil.copytree(ROOT / tree, folder / tree, ignore=skip)
    subprocess.run([sys.executable, "-m", "venv", str(folder / ".venv")], check=True)
    site = next((folder / ".venv" / "lib").glob("python3*/site-packages"))
    this = next(p for p in map(Path, sys.path) if p.name == "site-packages" and p.is_dir())
    (site / "this-environment.pth").write_text(f"{this}\n")
    return folder


@pytest.mark.slow
def test_run_course_installs_writes_the_workspace_and_starts_jupyterlab(tmp_path):
    """`./run course --no-browser` in a copy of the repository: it installs, writes ./workspace
    and JupyterLab prints its URL and serves it, as root too (JupyterLab needs --allow-root)."""
    clone = repository_copy(tmp_path)
    (tmp_path / "home").mkdir()
    env = lab_env(tmp_path / "home", f"{os.environ['PATH']}{os.pathsep}{VENV_BIN}")
    command = ["./run", "course", "--no-browser", "--ip=127.0.0.1"]
    printed = serve([*command, f"--port={free_port()}"], clone, env)
    assert re.search(r"^installed nano-course \S+ in \.venv$", printed, re.M), printed
    assert f"student workspace ready in {clone / 'workspace'}\n" in printed
    assert (clone / "workspace" / "01-shape-of-an-agent.ipynb").is_file()
    (clone / "workspace" / ".jupyter" / "lab" / "workspaces").mkdir(parents=True)
    (clone / "workspace" / ".jupyter" / "lab" / "workspaces" / "default-37a8.jupyterlab-workspace").write_text("{}")
    printed = serve([*command, f"--port={free_port()}"], clone, env)
    assert "student workspace ready" not in printed, "the workspace is made once"
    assert "installed nano-course" not in printed, "pip runs again only when pyproject.toml changed"
    assert not (clone / "workspace" / ".jupyter" / "lab" / "workspaces" / "default-37a8.jupyterlab-workspace").exists(), \
        "the last session's layout (six notebooks, six kernels) is restored"


@pytest.mark.slow
@pytest.mark.extended
def test_a_fresh_environment_with_only_the_students_set_makes_and_checks_a_workspace(tmp_path):
    """A new venv, `pip install -e .` (no extras) from the configured package caches: several
    minutes. `nano-course student` and `./ok 00` work, and the instructor's packages are absent."""
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True)
    bin_ = tmp_path / "venv" / "bin"
    subprocess.run([str(bin_ / "python"), "-m", "pip", "install", "--quiet", "-e", str(ROOT)],
                   check=True, timeout=1800)
    for package in (p for p, modules in IMPORTED_AS.items() if modules):
        missing = subprocess.run([str(bin_ / "python"), "-m", "pip", "show", package],
                                 capture_output=True)
        assert missing.returncode != 0, f"{package} is installed with the student's set"
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([str(bin_ / "nano-course"), "student", str(tmp_path / "ws")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    checked = subprocess.run(["./ok", "00"], cwd=tmp_path / "ws", capture_output=True, text=True,
                             env=env, timeout=120)
    assert checked.stdout.rstrip().endswith("00 and 01: 2 passed, 1 failed"), checked.stdout
