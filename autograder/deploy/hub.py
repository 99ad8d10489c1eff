"""A JupyterHub for one built course: what `nano-course hub` writes, and starts with --start.

One machine, local Unix users who log in with their passwords (JupyterHub's PAM authenticator),
each with a single-user JupyterLab run as that user from the course's Python (its `bin` first on
PATH, so `nbgrader` and `nano-course` are the course's). The folder holds:

- `jupyterhub_config.json`: the hub's whole configuration, as data (JupyterHub reads a
  `-f ....json` as it reads a `.py`): who may log in, the groups `nano-instructors` and
  `nano-students`, and the environment of each group's servers (`Spawner.group_overrides`);
- `student/`: the Jupyter config folder every student's server reads (JUPYTER_CONFIG_PATH):
  nbgrader's instructor parts off, exactly as in a workspace (release.write_student_lab_config:
  the Nbgrader menu holds the assignment list alone) with the terminal's bashrc, nbgrader's
  course id and exchange, and JupyterLab opening on its file browser (a workspace opens lecture
  01, which a student here has only once the assignment is fetched);
- `instructor/`: the instructor's config folder: the course folder, for formgrader and nbgrader;
- `state/` (root only): the hub's database, cookie secret and the proxy's pid file.

Students share only the exchange, which must lie outside the course folder (it holds the hidden
tests and the gradebook); their homes must be private (mode 700), since nbgrader keeps each
submission's secret there, by which `fetch_feedback` finds only that student's pages.
"""

import json
import os
import pwd
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from autograder.authoring import release
from autograder.course import require

CONFIG = "jupyterhub_config.json"
STUDENTS, INSTRUCTORS = "nano-students", "nano-instructors"
SPAWN_TIMEOUT = 180  # seconds a user's server may take to start and to answer
PROXY = "configurable-http-proxy"
TEMPLATES = Path(__file__).with_name("hub_templates")  # page.html: JupyterHub's, its orange darkened to 5.3:1


@dataclass(frozen=True)
class Hub:
    """One course's hub: where it is written, what it serves, who logs in, where it listens."""

    folder: Path
    course: Path
    exchange: Path
    instructor: str
    students: tuple[str, ...]
    bin: Path  # the course's Python environment's scripts: jupyterhub-singleuser, nbgrader, nano-course
    ip: str = ""  # JupyterHub's own default: every interface
    port: int = 8000

    @property
    def config(self) -> Path:
        return self.folder / CONFIG

    @property
    def url(self) -> str:
        return f"http://{self.ip or 'localhost'}:{self.port}/"


def refusal(hub: Hub) -> str | None:
    """Why this hub cannot serve its class, in one sentence; None when it can."""
    exchange, course = hub.exchange.resolve(), hub.course.resolve()
    if exchange == course or course in exchange.parents:
        return (f"the course's exchange, {exchange}, is inside the course folder, which students must "
                f"never enter (it holds the hidden tests and the gradebook): build the course again "
                f"with --exchange DIR, a folder of its own such as /srv/nbgrader/exchange")
    if not hub.students:
        return "name the students who may log in: --student NAME, once for each"
    if hub.instructor in hub.students:
        return f"{hub.instructor} is named both as the instructor and as a student"
    if course in hub.folder.resolve().parents or hub.folder.resolve() == course:
        return "write the hub outside the course folder, which students must never enter: --out DIR"
    for path, what, fix in ((hub.folder.resolve(), "read their settings in", "--out a folder such as /srv/nano-hub"),
                            (exchange, "fetch and submit through", "build the course again with --exchange DIR")):
        closed = closed_folder(path)
        if closed:
            return (f"students' servers must {what} {path}, but other users cannot enter {closed}: {fix}, "
                    "in folders every user can enter")
    for user in (hub.instructor, *hub.students):
        try:
            home = Path(pwd.getpwnam(user).pw_dir)
        except KeyError:
            return (f"there is no Unix user {user}: students and the instructor log in with their Unix "
                    f"accounts (useradd --create-home {user}, then passwd {user})")
        if user in hub.students and home.is_dir() and home.stat().st_mode & 0o077:
            return (f"{user}'s home {home} can be read by other users, and with it their nbgrader "
                    f"secrets and files: chmod 700 {home}")
    return None


def closed_folder(path: Path) -> Path | None:
    """The first existing folder on the way to `path` (itself included) that other users cannot
    enter; None when they can enter them all."""
    for folder in [*reversed(path.parents), path]:
        if folder.is_dir() and not folder.stat().st_mode & stat.S_IXOTH:
            return folder
    return None


def python_warning(hub: Hub) -> str | None:
    """A sentence when other users could not run the course's Python, which starts their servers."""
    for path in (hub.bin, (hub.bin / "python").resolve()):
        closed = closed_folder(path.parent if path.is_file() else path)
        if closed:
            return (f"warning: other users cannot enter {closed}, so their servers cannot start from {path}: "
                    "in a clone of the course every user can enter (such as /opt/nano), run sudo ./run setup "
                    "--all-users, then run that clone's .venv/bin/nano-course hub")
    return None


def write(hub: Hub) -> Path:
    """Write the hub's folder (see the module's docstring); return its configuration file."""
    require(hub.course)
    refused = refusal(hub)
    if refused:
        raise ValueError(refused)
    hub.folder.mkdir(parents=True, exist_ok=True)
    hub.folder.chmod(0o755)  # every user's server reads student/ or instructor/
    state = hub.folder / "state"
    state.mkdir(exist_ok=True)
    state.chmod(0o700)
    for folder in ("student", "instructor"):
        if (hub.folder / folder).exists():
            shutil.rmtree(hub.folder / folder)
    student = hub.folder / "student" / "config"
    release.write_student_lab_config(student, exchange=True)
    release.write_terminal_rc(student, str(hub.bin / "python"))
    _write_json(student / "nbgrader_config.json", _nbgrader(hub, course_root=False))
    server = json.loads((student / "jupyter_server_config.json").read_text(encoding="utf-8"))
    server["LabApp"]["default_url"] = "/lab"
    _write_json(student / "jupyter_server_config.json", server)
    instructor = hub.folder / "instructor" / "config"
    _write_json(instructor / "nbgrader_config.json", _nbgrader(hub, course_root=True))
    _write_json(hub.config, configuration(hub))
    for path in [hub.folder / "student", hub.folder / "instructor",
                 *(hub.folder / "student").rglob("*"), *(hub.folder / "instructor").rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return hub.config


def configuration(hub: Hub) -> dict:
    """JupyterHub's configuration for `hub`, as its traitlets config file holds it."""
    path = os.pathsep.join([str(hub.bin), "/usr/local/bin", "/usr/bin", "/bin"])
    state = hub.folder / "state"
    return {
        "JupyterHub": {
            "bind_url": f"http://{hub.ip}:{hub.port}",
            "hub_bind_url": f"http://127.0.0.1:{hub.port + 1}",
            "db_url": f"sqlite:///{state / 'jupyterhub.sqlite'}",
            "cookie_secret_file": str(state / "jupyterhub_cookie_secret"),
            "load_groups": {STUDENTS: {"users": list(hub.students)},
                            INSTRUCTORS: {"users": [hub.instructor]}},
            "template_paths": [str(TEMPLATES)],  # JupyterHub's own pages, their contrast raised
        },
        "ConfigurableHTTPProxy": {"api_url": f"http://127.0.0.1:{hub.port + 2}",
                                  "pid_file": str(state / "jupyterhub-proxy.pid")},
        "Authenticator": {"allowed_users": sorted([hub.instructor, *hub.students])},
        "Spawner": {
            "cmd": [str(hub.bin / "jupyterhub-singleuser")],
            # JupyterLab with nbgrader's extensions, started for a whole class logging in at once
            # on one machine, can take longer than JupyterHub's defaults (60 s, 30 s to answer).
            "start_timeout": SPAWN_TIMEOUT, "http_timeout": SPAWN_TIMEOUT,
            "default_url": "/lab",
            "environment": {"PATH": path, "JUPYTER_CONFIG_PATH": str(hub.folder / "student" / "config")},
            "group_overrides": {"1-instructors": {"groups": [INSTRUCTORS], "spawner_override": {
                "environment": {"JUPYTER_CONFIG_PATH": str(hub.folder / "instructor" / "config"),
                                "NANO_COURSE": str(hub.course)}}}},
        },
    }


def _nbgrader(hub: Hub, course_root: bool) -> dict:
    settings = release.course_settings(hub.course)
    config = {"CourseDirectory": {"course_id": settings.course_id or release.COURSE_ID},
              "Exchange": {"root": str(hub.exchange)}}
    if course_root:
        config["CourseDirectory"]["root"] = str(hub.course)
    return config


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def exchange_of(course: Path) -> Path:
    """The exchange the built `course` uses (its nbgrader_config.py's, else the default build gives)."""
    settings = release.course_settings(course)
    return Path(settings.exchange) if settings and settings.exchange else course / "exchange"


def start_refusal(hub: Hub) -> str | None:
    """Why this machine cannot start the hub now, in one sentence; None when it can."""
    if os.geteuid() != 0:
        return "a hub starts each user's server as that user, so it runs as root: sudo nano-course hub ... --start"
    if shutil.which(PROXY) is None:
        return f"JupyterHub's proxy, {PROXY}, is not on PATH: npm install -g {PROXY} (Node.js 18 or newer)"
    if not (hub.bin / "jupyterhub").is_file():
        return f"JupyterHub is not installed in {hub.bin.parent}: pip install -e '.[instructor]' in the course repository"
    return None


def start(hub: Hub) -> None:
    """Replace this process with the hub (JupyterHub, then its proxy), run from its state folder."""
    refused = start_refusal(hub)
    if refused:
        raise RuntimeError(refused)
    os.chdir(hub.folder / "state")
    jupyterhub = str(hub.bin / "jupyterhub")
    os.execv(jupyterhub, [jupyterhub, "-f", str(hub.config)])
