"""./ok: one line per check and a summary; green on the reference, "not implemented" on the stubs;
a nano/*.py that does not load named with its file, line and error, and what to do. (That it
fails every mistake of the mutants catalogue: test_ok_mutants.py.)"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.authoring import release

ROOT = release.ROOT
LECTURES = sorted(p.stem[1:] for p in (ROOT / "checks").glob("l0[0-6].py"))  # 00 is the setup


@pytest.fixture(scope="module")
def nested_workspace(course):
    """A fresh workspace inside the repository, as ./run course makes it: the reference solution
    sits one folder up, and must not be what the checks import."""
    where = ROOT / "build" / f"test-workspace-{os.getpid()}"
    workspace = release.make_workspace(course / "release" / release.ASSIGNMENT, where)
    yield workspace
    shutil.rmtree(workspace)


def ok(where, *args):
    return subprocess.run([sys.executable, "ok", *args], cwd=where, capture_output=True,
                          text=True, timeout=300)


def test_ok_passes_every_check_on_the_reference():
    done = ok(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.rstrip().splitlines()
    passed = [line for line in lines if line.startswith("  PASS  ")]
    assert re.fullmatch(rf"all: {len(passed)} passed, 0 failed", lines[-1]), done.stdout
    assert {line.split()[1] for line in passed} == set(LECTURES)


@pytest.mark.parametrize("lecture", [n for n in LECTURES if n != "01"])  # ./ok 00 runs 01
def test_a_fresh_workspace_fails_each_lecture_with_not_implemented(nested_workspace, lecture):
    done = ok(nested_workspace, lecture)
    lines = done.stdout.rstrip().splitlines()
    assert done.returncode == 1 and re.fullmatch(r"\d\d( and 01)?: \d+ passed, [1-9]\d* failed", lines[-1]), done.stdout
    failures = [(line, why) for line, why in zip(lines, lines[1:]) if line.startswith("  FAIL  ")]
    assert failures, done.stdout
    for line, why in failures:
        assert "not implemented" in why, f"{line.strip()} failed for another reason: {why.strip()}"
    allowed_to_pass = {"python_is_3_11_or_newer", "importing_nano_needs_no_api_key"}  # setup
    for line in lines:
        if line.startswith("  PASS  "):
            assert line.split()[2] in allowed_to_pass, f"passes on the stubs: {line}"


def test_ok_explains_bad_arguments_and_points_lecture_01_to_00():
    assert ok(ROOT, "9").returncode == 2 and "00 to 06" in ok(ROOT, "9").stdout
    assert ok(ROOT, "two").returncode == 2
    first = ok(ROOT, "01")
    assert first.returncode == 0 and first.stdout.startswith("Lecture 01's check is ./ok 00")


# Errors that point at the line: a student saves a broken nano/*.py, or runs ./ok with the wrong Python.

@pytest.fixture
def workspace(course, tmp_path):
    """A fresh student workspace of its own, to break."""
    return release.make_workspace(course / "release" / release.ASSIGNMENT, tmp_path / "ws")


def edit_tools(workspace, find, replace):
    """Replace the first line of nano/tools.py holding `find` with the lines `replace`, as a
    student saving the file would; return the (1-based) number of the first replaced line."""
    path = workspace / "nano" / "tools.py"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if find in line)
    lines[index:index + 1] = [f"{line}\n" for line in replace]
    path.write_text("".join(lines), encoding="utf-8")
    return index + 1


def check_lines(done):
    return done.stdout.rstrip().splitlines()


def test_a_syntax_error_is_named_with_its_file_and_line(workspace):
    line = edit_tools(workspace, "read_file is not implemented yet", ["    return ("])
    done = ok(workspace, "02")
    assert done.returncode == 1 and done.stderr == "", done.stdout + done.stderr
    assert check_lines(done) == [
        "  FAIL  02 could not load checks/l02.py",
        f"        nano/tools.py, line {line}: SyntaxError: '(' was never closed",
        "        Fix that line in nano/tools.py and save, then run ./ok 02 again.",
        "02: 0 passed, 1 failed"]
    # ./ok alone still runs the lectures that do not import nano/tools.py
    everything = check_lines(ok(workspace))
    assert "  PASS  00 python_is_3_11_or_newer" in everything
    assert f"        nano/tools.py, line {line}: SyntaxError: '(' was never closed" in everything
    setup = check_lines(ok(workspace, "00"))
    index = setup.index("  FAIL  00 importing_nano_needs_no_api_key")
    assert setup[index + 1:index + 3] == [
        "        importing nano without ANTHROPIC_API_KEY failed: "
        f"nano/tools.py, line {line}: SyntaxError: '(' was never closed",
        "        Fix that line in nano/tools.py and save, then run ./ok 00 again."]


def test_an_import_error_is_named_with_its_file_and_line(workspace):
    line = edit_tools(workspace, "import os", ["import os", "import nosuchmodule"]) + 1
    done = ok(workspace, "03")
    assert done.returncode == 1 and done.stderr == "", done.stdout + done.stderr
    assert check_lines(done)[1:3] == [
        f"        nano/tools.py, line {line}: ModuleNotFoundError: No module named 'nosuchmodule'",
        "        Fix that import in nano/tools.py (a module name misspelt?), then run ./ok 03 again."]


def test_a_name_error_at_import_time_is_named_with_its_file_and_line(workspace):
    line = edit_tools(workspace, "import os", ["import os", "LIMIT = MAX_OUTPUTS"])
    done = ok(workspace, "02")
    assert check_lines(done)[1:3] == [
        f"        nano/tools.py, line {line + 1}: NameError: name 'MAX_OUTPUTS' is not defined",
        "        Fix that line in nano/tools.py: it fails as soon as the file is imported. "
        "Then run ./ok 02 again."]


def test_an_error_inside_a_student_function_names_its_line(workspace):
    line = edit_tools(workspace, "read_file is not implemented yet", ["    return open(pth).read()"])
    lines = check_lines(ok(workspace, "02"))
    index = lines.index("  FAIL  02 read_file_returns_text")
    assert lines[index + 1] == f"        nano/tools.py, line {line}: NameError: name 'pth' is not defined"


def python_without_the_course_packages(where, keep=()):
    """A real virtualenv with none of the course's packages, but the distributions in `keep`
    (linked from this environment)."""
    import importlib.metadata

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    if keep:
        linked = where / "linked"
        linked.mkdir()
        for name in keep:
            dist = importlib.metadata.distribution(name)
            tops = {f.parts[0] for f in dist.files if ".dist-info" not in f.parts[0]
                    and f.parts[0] not in ("..", "__pycache__")}
            for top in tops:
                (linked / top).symlink_to(dist.locate_file(top))
        site = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        (Path(site) / "linked.pth").write_text(f"{linked}\n", encoding="utf-8")
    return python


def the_course_python(env):
    """What ./ok should name as the course's Python: the interpreter of the nano-course script."""
    script = shutil.which("nano-course", path=env["PATH"])
    with open(script, encoding="utf-8") as handle:
        return handle.readline().removeprefix("#!").strip()


def test_a_python_without_the_course_packages_names_the_import_and_the_python_to_use(workspace, tmp_path):
    (workspace / "python").unlink()  # a workspace that does not know its Python
    bare = python_without_the_course_packages(tmp_path / "bare", keep=["pytest", "pluggy", "iniconfig",
                                                                       "packaging", "pygments"])
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    course_python = the_course_python(env)
    done = subprocess.run([str(bare), "ok", "05"], cwd=workspace, env=env, capture_output=True,
                          text=True, timeout=300)
    loop = (workspace / "nano" / "loop.py").read_text(encoding="utf-8").splitlines()
    line = loop.index("from anthropic.types.message_param import MessageParam") + 1
    assert done.returncode == 1 and done.stderr == "", done.stdout + done.stderr
    assert check_lines(done)[1:3] == [
        f"        nano/loop.py, line {line}: ModuleNotFoundError: No module named 'anthropic'",
        f"        This Python ({bare}) does not have anthropic, one of the course's packages: "
        f"run {course_python} ok 05 instead."]
    # doing what it says works
    advised = subprocess.run([course_python, "ok", "05"], cwd=workspace, env=env,
                             capture_output=True, text=True, timeout=300)
    assert "could not load" not in advised.stdout and "is not implemented yet" in advised.stdout, advised.stdout


def test_ok_needs_no_pytest(workspace, tmp_path):
    """./ok runs the checks itself: a Python with none of the course's packages runs lecture 02's,
    which need only the standard library."""
    (workspace / "python").unlink()  # a workspace that does not know its Python
    bare = python_without_the_course_packages(tmp_path / "bare")
    done = subprocess.run([str(bare), "ok", "02"], cwd=workspace, capture_output=True, text=True, timeout=300)
    lines = check_lines(done)
    assert done.returncode == 1 and done.stderr == "", done.stdout + done.stderr
    assert lines[-1] == "02: 0 passed, 10 failed" and "pytest" not in done.stdout, done.stdout
    assert all("is not implemented yet" in why for line, why in zip(lines, lines[1:]) if line.startswith("  FAIL")), done.stdout


def test_ok_into_a_closed_pipe_stops_quietly(nested_workspace):
    """./ok | head: once the reader is gone, ./ok stops without a traceback."""
    read, write = os.pipe()
    os.close(read)  # the reader went away before the first line
    done = subprocess.run([sys.executable, "ok", "02"], cwd=nested_workspace, stdout=write,
                          stderr=subprocess.PIPE, text=True, timeout=300)
    os.close(write)
    assert done.stderr == "" and done.returncode == 1, done.stderr
