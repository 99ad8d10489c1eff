"""JupyterLab in headless Chromium: a real server on a solved student workspace, a real browser.

`lab` starts `python -m jupyterlab` on 127.0.0.1 with a random token, in a workspace made the way
a student gets one (`build_course`, `make_workspace`) and then solved with the reference
(`solve_workspace`), with the workspace's own Jupyter config folder on JUPYTER_CONFIG_PATH, as
`./run course` starts it (`running_lab` starts others: the instructor's, or one with a key).
NANO_HEADLESS is deliberately *not* set: the notebooks' widgets wait for real clicks. Every
other Jupyter directory (config, data, runtime, settings, workspaces) and the kernels' TMPDIR
are private to the test session, so nothing of the user's setup leaks in and nothing is left
behind. `browser` is Debian's Chromium driven by Playwright; `page` is one tab
per test, whose kernels are shut down when the test ends; `shots` saves numbered screenshots of
it in build/screenshots/<test>/.

Missing Chromium or Playwright skips these tests locally and fails them under CI (CI=true).
"""

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.authoring import release
from tests.project import groups

ROOT = release.ROOT
SCREENSHOTS = ROOT / "build" / "screenshots"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
SERVER_START_TIMEOUT = 90  # seconds: JupyterLab loads nbgrader's and jupytext's extensions too
SERVER_STOP_TIMEOUT = 30
# Variables that would make the notebooks script the human (headless) or go live against the API.
NOT_FOR_THE_SERVER = ("NANO_HEADLESS", "NBGRADER_EXECUTION", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
                      "ANTHROPIC_BASE_URL",
                      "JUPYTER_TOKEN", "JUPYTER_PATH", "JUPYTER_CONFIG_PATH", "JUPYTER_PREFER_ENV_PATH",
                      "PYTHONPATH")


def chromium_path() -> str | None:
    """Debian's Chromium (apt-get install chromium); NANO_CHROMIUM names another binary."""
    for candidate in (os.environ.get("NANO_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _missing(what: str) -> None:
    message = (f"{what}: the browser tests need Debian's Chromium (apt-get install -y chromium) and "
               f"Playwright (.venv/bin/pip install playwright; its own browser download is not used)")
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{message} [CI=true: failing instead of skipping]", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    try:
        import playwright.sync_api  # noqa: F401
        problem = None
    except ImportError as exc:
        problem = f"Playwright is not installed ({exc})"
    if problem:
        _missing(problem)
    path = chromium_path()
    if path is None:
        _missing("Chromium is not installed (no /usr/bin/chromium)")
    return path


# ---------------------------------------------------------------------------- screenshots

_taken: list[Path] = []


@pytest.fixture(scope="session")
def screenshot_root() -> Path:
    """build/screenshots/, which tests/conftest.py empties of the previous run's pictures once a
    run, before any worker starts; each test writes a folder of its own in it."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


class Shots:
    """Numbered screenshots of one test: build/screenshots/<test>/NN-<step>.png."""

    def __init__(self, page, folder: Path):
        self.page, self.folder, self.count = page, folder, 0

    def __call__(self, step: str, show=None, align: str = "center") -> Path:
        """Screenshot the window as the student sees it, after scrolling the notebook so that
        element `show` sits at its `align` ("center", "start" or "end")."""
        if show is not None:
            show.evaluate("(e, block) => e.scrollIntoView({block})", align)
        self.count += 1
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{self.count:02d}-{step}.png"
        self.page.screenshot(path=str(path))
        _taken.append(path)
        return path


def pytest_terminal_summary(terminalreporter):
    if _taken:
        terminalreporter.write_line(f"browser screenshots ({len(_taken)}): {SCREENSHOTS}")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """The browser tests share one pytest-xdist worker (tests/project/groups.py), and so one
    JupyterLab and one Chromium; the hub's round trip, which starts its own of each and takes the
    longest, has a worker of its own."""
    groups.mark(items, "hub", lambda item: item.get_closest_marker("browser") is not None
                and item.path.name == "test_hub.py")
    groups.mark(items, "browser", lambda item: item.get_closest_marker("browser") is not None
                and item.path.name != "test_hub.py")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which sends the names to the scheduler
def pytest_collection_finish(session):
    groups.rename(session.config, session.items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


# ---------------------------------------------------------------------------- the workspace

@pytest.fixture(scope="session")
def solved_workspace(tmp_path_factory) -> Path:
    """A student workspace from a freshly built course, holding the reference solution."""
    base = tmp_path_factory.mktemp("lab-course")
    released = release.build_course(base / "course")
    workspace = release.make_workspace(released, base / "workspace")
    return release.solve_workspace(workspace)


# ---------------------------------------------------------------------------- the server

def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Lab:
    """A running JupyterLab: where it listens, its token, its folders, its process."""

    base_url: str
    token: str
    workspace: Path
    tmpdir: Path  # the kernels' TMPDIR: tempfile.mkdtemp() in a notebook lands here
    runtime_dir: Path  # kernel connection files: every kernel's command line names this folder
    log: Path
    process: subprocess.Popen

    def url(self, path: str, **query: str) -> str:
        from urllib.parse import urlencode

        return f"{self.base_url}{path.lstrip('/')}?" + urlencode({"token": self.token, **query})

    def api(self, method: str, path: str, timeout: float = 10):
        request = urllib.request.Request(f"{self.base_url}api/{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body else None

    def shut_down_kernels(self, timeout: float = 60) -> None:
        """End every session and kernel, as File > Shut Down would for each notebook.

        A kernel the page asked for may still be starting: jupyter_server lists it before it has
        its last_activity, and answers the listing with 500 until then (its start is awaited in
        the request that made it). So a 5xx is waited out, and a kernel already gone is done.
        """
        deadline = time.monotonic() + timeout
        while True:
            try:
                for session in self.api("GET", "sessions"):
                    self._delete(f"sessions/{session['id']}")
                kernels = self.api("GET", "kernels")
                for kernel in kernels:
                    self._delete(f"kernels/{kernel['id']}")
                if not kernels:
                    return
                if time.monotonic() > deadline:
                    raise AssertionError(f"kernels still running {timeout} s after they were shut down: {kernels}")
            except urllib.error.HTTPError as error:
                if error.code < 500 or time.monotonic() > deadline:
                    raise
            time.sleep(0.5)  # polling the server: it offers nothing to wait on

    def _delete(self, path: str) -> None:
        try:
            self.api("DELETE", path, timeout=30)
        except urllib.error.HTTPError as error:
            if error.code != 404:  # 404: it ended meanwhile (a session's kernel goes with it)
                raise

    def log_tail(self, lines: int = 40) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def _our_kernels(runtime_dir: Path) -> list[int]:
    """Pids of live processes started with a connection file in `runtime_dir`: our kernels."""
    marker = str(runtime_dir).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@contextlib.contextmanager
def running_lab(workspace: Path, home: Path, student: bool = True, extra_env: dict[str, str] | None = None):
    """JupyterLab serving `workspace` on 127.0.0.1, stopped (with its kernels) when the block ends.

    `student`: started as `./run course` starts it, with the workspace's own Jupyter config folder
    (release.STUDENT_LAB_CONFIG) on JUPYTER_CONFIG_PATH and JUPYTER_PATH; False, as the instructor's plain
    `jupyter lab`. `extra_env` is added to the server's (and so the kernels') environment.
    """
    dirs = {name: home / name for name in ("config", "data", "runtime", "settings", "workspaces",
                                           "tmp", "ipython")}
    for folder in dirs.values():
        folder.mkdir()
    # No news feed, no update check: nothing asks the student anything, nothing goes to the network.
    notification = dirs["settings"] / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True)
    notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))

    token = secrets.token_hex(24)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in NOT_FOR_THE_SERVER}
    env.update(JUPYTER_TOKEN=token,
               JUPYTER_CONFIG_DIR=str(dirs["config"]), JUPYTER_DATA_DIR=str(dirs["data"]),
               JUPYTER_RUNTIME_DIR=str(dirs["runtime"]), JUPYTERLAB_SETTINGS_DIR=str(dirs["settings"]),
               JUPYTERLAB_WORKSPACES_DIR=str(dirs["workspaces"]), IPYTHONDIR=str(dirs["ipython"]),
               TMPDIR=str(dirs["tmp"]),
               PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    if student:
        env["JUPYTER_CONFIG_PATH"] = env["JUPYTER_PATH"] = str(workspace / release.STUDENT_LAB_CONFIG)
    env.update(extra_env or {})
    log = home / "jupyterlab.log"
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
               "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
               f"--ServerApp.root_dir={workspace}",
               "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=workspace, env=env, stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    server = Lab(base_url=f"http://127.0.0.1:{port}/", token=token, workspace=workspace,
                 tmpdir=dirs["tmp"], runtime_dir=dirs["runtime"], log=log, process=process)
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"JupyterLab exited with code {process.returncode} before answering:\n"
                            f"{server.log_tail()}", pytrace=False)
            try:
                server.api("GET", "status", timeout=2)
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer on {server.base_url} within "
                                f"{SERVER_START_TIMEOUT} s:\n{server.log_tail()}", pytrace=False)
                time.sleep(0.25)  # polling a socket: there is nothing to wait on
        yield server
    finally:
        try:
            _stop(server)
        finally:
            if SCREENSHOTS.is_dir() and log.exists():  # the server's log beside the pictures
                text = log.read_text(encoding="utf-8", errors="replace").replace(token, "<token>")
                (SCREENSHOTS / f"jupyterlab-{home.name}.log").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def lab(chromium_executable, solved_workspace, tmp_path_factory):
    """JupyterLab serving the solved workspace as `./run course` does, for this test module."""
    with running_lab(solved_workspace, tmp_path_factory.mktemp("lab-home")) as server:
        yield server


def _stop(server: Lab) -> None:
    process = server.process
    if process.poll() is None:
        try:
            server.shut_down_kernels()
        except (OSError, urllib.error.URLError):
            pass  # the server goes down next anyway; its own shutdown ends its kernels
        os.killpg(process.pid, signal.SIGTERM)  # the server's group; it shuts its kernels down
        try:
            process.wait(timeout=SERVER_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    try:
        os.killpg(process.pid, signal.SIGKILL)  # anything left in the server's process group
    except ProcessLookupError:
        pass
    # Kernels run in sessions of their own (jupyter_client starts them so): find any that
    # survived by the connection file in our private runtime folder, and end them.
    leftovers = _our_kernels(server.runtime_dir)
    for pid in leftovers:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert not leftovers, f"kernels outlived the JupyterLab server and were killed: pids {leftovers}"


# ---------------------------------------------------------------------------- the browser

@pytest.fixture(scope="module")
def browser(chromium_executable, tmp_path_factory):
    """Headless Chromium with a fresh profile, 1400x1000, driven by Playwright.

    Module scope: Playwright's sync API keeps an asyncio loop running in this thread while it is
    open, and later tests that call asyncio.run() must not find it there.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=chromium_executable,
            headless=True, args=CHROMIUM_FLAGS, viewport={"width": 1400, "height": 1000})
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser, lab):
    """A new tab for one test; afterwards the tab is closed and its kernels are shut down."""
    from playwright.sync_api import expect

    tab = browser.new_page()
    tab.set_default_timeout(30_000)  # clicks, waits for selectors
    expect.set_options(timeout=20_000)  # expect(...) assertions; a kernel reply can lag a little
    console: list[str] = []
    tab.on("console", lambda message: message.type in ("error", "warning")
           and console.append(f"{message.type}: {message.text}"))
    tab.on("pageerror", lambda error: console.append(f"pageerror: {error}"))
    tab.console = console
    try:
        yield tab
    finally:
        tab.close()
        lab.shut_down_kernels()


@pytest.fixture
def shots(page, request, screenshot_root):
    """Screenshots of this test in build/screenshots/<test>/; one more, FAILED, if it fails."""
    taker = Shots(page, screenshot_root / request.node.name.removeprefix("test_"))
    yield taker
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        try:
            taker("FAILED")
        except Exception:  # the page may be gone; the failure itself is what matters
            pass
    if page.console:
        taker.folder.mkdir(parents=True, exist_ok=True)
        (taker.folder / "console.log").write_text("\n".join(page.console) + "\n", encoding="utf-8")
