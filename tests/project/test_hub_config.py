"""`nano-course hub` without starting it: what it writes, read as JupyterHub and nbgrader read it,
and what it refuses in one line. (tests/browser/test_hub.py runs a class on a real hub.)"""

import json
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from autograder import cli
from autograder.authoring import release
from autograder.deploy import hub

DOCS = release.ROOT / "docs"
# Users every Debian machine has: root's home is private, nobody's does not exist, daemon's
# (/usr/sbin) is readable by all.
INSTRUCTOR, STUDENT, OPEN_HOME = "root", "nobody", "daemon"


@pytest.fixture()
def shared():
    """A folder every user can enter (pytest's own are root's alone), for the exchange and the hub."""
    folder = Path(tempfile.mkdtemp(prefix="nano-hub-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


@pytest.fixture()
def course(mini_course, tmp_path, shared):
    """A built mini course whose exchange is a folder of its own, where students can reach it."""
    course = tmp_path / "course"
    shutil.copytree(mini_course[0], course)
    release.build_course(course, lecture_dir=mini_course[1], exchange=shared / "exchange")
    return course


def write(course: Path, *extra: str, out: Path | None = None) -> int:
    out = out or Path(release.course_settings(course).exchange).parent / "hub"
    return cli.main(["hub", "--course", str(course), "--instructor", INSTRUCTOR, "--out", str(out), *extra])


def test_the_written_hub_is_what_jupyterhub_and_nbgrader_read(course, shared, capsys, monkeypatch):
    from jupyterhub.app import JupyterHub
    from nbgrader.apps import NbGrader

    assert write(course, "--student", STUDENT, "--port", "8100", "--ip", "127.0.0.1") == 0
    folder = shared / "hub"
    assert f"wrote the hub in {folder}: students log in at http://127.0.0.1:8100/" in capsys.readouterr().out
    app = JupyterHub()
    app.load_config_file(str(folder / hub.CONFIG))
    config = app.config
    assert config.Authenticator.allowed_users == sorted([INSTRUCTOR, STUDENT])
    assert config.JupyterHub.load_groups[hub.INSTRUCTORS]["users"] == [INSTRUCTOR]
    assert Path(config.Spawner.cmd[0]).name == "jupyterhub-singleuser"
    student_config = Path(config.Spawner.environment["JUPYTER_CONFIG_PATH"])
    instructor_env = config.Spawner.group_overrides["1-instructors"]["spawner_override"]["environment"]
    assert instructor_env["NANO_COURSE"] == str(course)
    assert (folder / "state").stat().st_mode & 0o777 == 0o700, "the hub's secrets are root's"

    for configured, course_root in ((student_config, None), (Path(instructor_env["JUPYTER_CONFIG_PATH"]), str(course))):
        monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(configured))  # as the hub starts each server
        reader = NbGrader()
        reader.load_config_file()
        assert reader.config.Exchange.root == str(shared / "exchange")
        assert reader.config.CourseDirectory.course_id == "nano"
        assert reader.config.CourseDirectory.get("root") == course_root, "students never name the course folder"
    # The student's lab: nbgrader's instructor parts off (its menu, which opens the assignment
    # list, stays), opening on the file browser, the terminal starting with the course's Python first.
    page = json.loads((student_config / "labconfig" / "page_config.json").read_text())
    assert set(page["disabledExtensions"]) == set(release.INSTRUCTOR_LAB_PLUGINS)
    assert "@jupyter/nbgrader:menu" not in page["disabledExtensions"]
    server = json.loads((student_config / "jupyter_server_config.json").read_text())
    assert server["LabApp"]["default_url"] == "/lab"
    rcfile = Path(server["ServerApp"]["terminado_settings"]["shell_command"][2])
    assert rcfile.is_file() and f"PATH={Path(sys.executable).parent}:$PATH" in rcfile.read_text()
    assert str(course) not in "".join(p.read_text() for p in student_config.parent.rglob("*") if p.is_file())


@pytest.mark.parametrize("argv, said", [
    (["--student", OPEN_HOME], "daemon's home /usr/sbin can be read by other users"),
    (["--student", "no_such_user_here"], "there is no Unix user no_such_user_here"),
    (["--student", INSTRUCTOR], "root is named both as the instructor and as a student"),
    ([], "name the students who may log in"),
])
def test_a_hub_that_would_not_keep_students_apart_is_refused_in_one_line(course, shared, capsys, argv, said):
    assert write(course, *argv) == 1
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err
    assert not (shared / "hub").exists()


def test_a_hub_students_could_not_read_is_refused(course, tmp_path, capsys):
    """pytest's folders are root's alone (mode 700): students' servers could not read a hub there."""
    assert write(course, "--student", STUDENT, out=tmp_path / "hub") == 1
    err = capsys.readouterr().err
    assert "students' servers must read their settings in" in err and "other users cannot enter" in err, err
    assert not (tmp_path / "hub").exists()


def test_an_exchange_inside_the_course_folder_is_refused(mini_course, tmp_path, capsys):
    course = tmp_path / "course"
    shutil.copytree(mini_course[0], course)
    release.build_course(course, lecture_dir=mini_course[1], exchange=course / "exchange")  # build's default
    assert write(course, "--student", STUDENT, out=tmp_path / "hub") == 1
    err = capsys.readouterr().err
    assert "is inside the course folder, which students must never enter" in err and "--exchange" in err, err


def test_the_zero_to_jupyterhub_values_configure_what_the_hub_writes():
    """The values file on paper names JupyterHub settings that exist, as our hub sets them."""
    from jupyterhub.app import JupyterHub
    from jupyterhub.auth import Authenticator
    from jupyterhub.spawner import Spawner

    values = yaml.safe_load((DOCS / "zero-to-jupyterhub.yaml").read_text())
    config = values["hub"]["config"]
    for section, cls in (("JupyterHub", JupyterHub), ("Authenticator", Authenticator)):
        assert set(config[section]) <= set(cls.class_trait_names()), section
    assert set(config["KubeSpawner"]) <= set(Spawner.class_trait_names())  # KubeSpawner is a Spawner
    assert config["KubeSpawner"]["group_overrides"]["1-instructors"]["groups"] == [hub.INSTRUCTORS]
    env = values["singleuser"]["extraEnv"]
    assert env["JUPYTER_CONFIG_PATH"].endswith("/student/config")
