"""The grading sandbox: does student code run confined, and does grading stay honest under attack?

First `bwrap.wrap` on plain `python -c` payloads: no network, nothing of the course, the
repository or the instructor's home to read, nothing outside its folder to write, and fork,
memory, file-size and CPU bombs stopped by the limits. Then a hostile class on the mini course:
honest hand-ins before and after submissions whose `nano/protocol.py` attacks the grader from
inside the kernel (ATTACKS, in payloads/attack_*.py: add more there), graded as one batch. Last, `nano-course grade`
refusing to grade without a working bwrap unless told `--unsafe`.

Needs bubblewrap (apt-get install bubblewrap): skipped without it, failed under CI (CI=true).
"""

import contextlib
import csv
import hashlib
import json
import multiprocessing
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from autograder import cli
from autograder.authoring import notebooks, release
from autograder import gradebook
from autograder.grading import autograde, grade, intake
from autograder.records import REPAIRED, Job, problem
from autograder.sandbox import bwrap

ROOT = release.ROOT


@pytest.fixture(scope="module")
def needs_bwrap():
    if not bwrap.available():
        message = "the sandbox needs a working bubblewrap: apt-get install -y bubblewrap"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{message} [CI=true: failing instead of skipping]", pytrace=False)
        pytest.skip(message)


class Listener:
    """A TCP server on 127.0.0.1 that counts the connections it gets."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while self.running:
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self.running = False
        self.thread.join()
        self.server.close()


@pytest.fixture
def listener():
    server = Listener()
    yield server
    server.close()


@pytest.fixture(params=["wrap", "zygote"])
def started(request):
    """How the payload starts: on its own (`bwrap.wrap`), or forked from a `bwrap.Zygote`
    as grading starts kernels as root."""
    if request.param == "zygote" and os.geteuid() != 0:
        pytest.skip("a kernel zygote runs only as root")
    return request.param


def confined(code: str, workdir: Path, limits: bwrap.Limits = bwrap.LIMITS,
             started: str = "wrap") -> subprocess.CompletedProcess:
    """Run `code` with the sandbox's Python in the sandbox; its folders are settled after."""
    workdir.mkdir(parents=True, exist_ok=True)
    if started == "zygote":
        return forked(code, workdir, limits)
    try:
        return subprocess.run(bwrap.wrap([sys.executable, "-c", code], workdir=workdir, limits=limits),
                              capture_output=True, text=True, timeout=120)
    finally:
        bwrap.settle(workdir)


def forked(code: str, workdir: Path, limits: bwrap.Limits = bwrap.LIMITS, **zygote_args
           ) -> subprocess.CompletedProcess:
    """Run `code` as a module forked from a zygote made for it in `workdir` (whose own imports
    are left out unless `zygote_args` says), as `confined` does: output, exit status."""
    (workdir / "payload.py").write_text(code)
    with open(workdir.parent / "payload.out", "w+") as out, open(workdir.parent / "payload.err", "w+") as err:
        zygote = bwrap.Zygote(workdir, limits=limits, stdout=out, stderr=err, **{"preload": (), **zygote_args})
        try:
            argv, line = zygote.spawn("payload", [])
            with line:
                relay = subprocess.Popen(argv, pass_fds=[line.fileno()])
            code = relay.wait(timeout=120)
        finally:
            zygote.close()
            bwrap.settle(workdir)
            (workdir / "payload.py").unlink(missing_ok=True)
        out.seek(0), err.seek(0)
        return subprocess.CompletedProcess(argv, code, out.read(), err.read())


def sandbox_processes(uid: int) -> list[int]:
    """The processes still running as `uid`."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/status") as status:
                line = next(line for line in status if line.startswith("Uid:"))
        except (OSError, StopIteration):
            continue
        if int(line.split()[1]) == uid:
            found.append(int(entry))
    return found


@pytest.fixture
def course_tree(tmp_path):
    """A course folder as grading sees it, the sandbox's workdir inside it, secrets around it."""
    course = tmp_path / "course"
    (course / "source" / "nano").mkdir(parents=True)
    (course / "source" / "nano" / "hidden.txt").write_text("HIDDEN-TEST-TEXT")
    (course / "gradebook.db").write_text("GRADEBOOK")
    other = course / "submitted" / "bob" / "nano"
    other.mkdir(parents=True)
    (other / "answer.py").write_text("BOBS-ANSWER")
    work = course / grade.SCRATCH / "alice" / "autograded" / "alice" / "nano"
    work.mkdir(parents=True)
    return course, work


# ---------------------------------------------------------------------------------------------
# wrap, on plain payloads

PAYLOADS = Path(__file__).parent / "payloads"  # programs these tests run, kept as real files


def payload(name: str) -> str:
    return (PAYLOADS / name).read_text()


PROBE = payload("sandbox_probe.py")


def test_the_sandbox_sees_no_network_no_secrets_and_writes_only_its_folder(needs_bwrap, course_tree, listener,
                                                                          tmp_path, monkeypatch, started):
    course, work = course_tree
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-instructor-secret")
    secret_home = None
    if os.access(Path.home(), os.W_OK):
        secret_home = Path.home() / f".nano-sandbox-test-{os.getpid()}"
        secret_home.write_text("HOME-SECRET")
    outside = tmp_path / "outside.txt"
    private_tmp = Path("/tmp") / f"nano-sandbox-test-{os.getpid()}"
    reads = [course / "source" / "nano" / "hidden.txt", course / "gradebook.db",
             course / "submitted" / "bob" / "nano" / "answer.py", ROOT / "nano" / "tools.py",
             ROOT / "pyproject.toml", *([secret_home] if secret_home else [])]
    writes = [work / "mine.txt", outside, course / "gradebook.db", private_tmp,
              course / "submitted" / "bob" / "nano" / "answer.py", Path(sys.prefix) / "planted.py"]
    probe = PROBE.replace("sys.argv[1]", repr(json.dumps(
        {"read": [str(p) for p in reads], "write": [str(p) for p in writes], "port": listener.port})))
    try:
        done = confined(probe, work, started=started)
    finally:
        if secret_home:
            secret_home.unlink()
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    for path in reads:
        assert found[str(path)] in ("FileNotFoundError", "PermissionError"), (path, found[str(path)])
    assert found[str(work / "mine.txt")] == "written"
    assert (work / "mine.txt").read_text() == "PWNED"
    assert found[str(private_tmp)] == "written" and not private_tmp.exists(), "/tmp is the sandbox's own"
    for path in (outside, course / "gradebook.db", course / "submitted" / "bob" / "nano" / "answer.py",
                 Path(sys.prefix) / "planted.py"):
        assert found[str(path)] != "written", path
    assert not outside.exists() and not (Path(sys.prefix) / "planted.py").exists()
    assert (course / "gradebook.db").read_text() == "GRADEBOOK"
    assert (course / "submitted" / "bob" / "nano" / "answer.py").read_text() == "BOBS-ANSWER"
    assert found["connect"] != "connected" and found["dns"] != "resolved"
    assert listener.connections == 0
    assert found["keys"] == [] and found["home"] == "/tmp"
    if os.geteuid() == 0:
        assert found["uid"] != 0, "as root, the sandbox runs as a uid of its own"
    assert (work / "mine.txt").stat().st_uid == os.getuid(), "settle gives the folder back"


FORK_BOMB = payload("fork_bomb.py")


def test_a_fork_bomb_is_stopped_at_the_process_limit_and_leaves_nothing_running(needs_bwrap, tmp_path, started):
    limits = bwrap.Limits(processes=24)
    done = confined(FORK_BOMB, tmp_path / "work", limits, started)
    assert done.returncode == 0, done.stderr
    uid, forks, error = done.stdout.split()
    assert error in ("BlockingIOError", "OSError") and int(forks) < limits.processes
    if os.geteuid() == 0:
        assert sandbox_processes(int(uid)) == [], "the bomb's processes outlive the sandbox"
    assert subprocess.run(["true"]).returncode == 0, "the machine can still start processes"


def test_a_memory_bomb_is_stopped_at_the_memory_limit(needs_bwrap, tmp_path, started):
    bomb = payload("memory_bomb.py")
    limits = bwrap.Limits(memory=512 << 20)
    done = confined(bomb, tmp_path / "work", limits, started)
    assert done.returncode == 0, done.stderr
    assert 0 < int(done.stdout) <= 512, "stopped before it got past the limit (MB)"


@pytest.fixture
def memory_cgroup(needs_bwrap):
    """Skips where sandboxes get no memory cgroup (not root, or cgroups not writable here, as in
    many containers): only the per-process limits hold there."""
    if os.geteuid() != 0:
        pytest.skip("a sandbox's memory cgroup is made only as root")
    if not bwrap.memory_limited():
        pytest.skip("no memory cgroup can be made here (the cgroup filesystem is read-only or has no "
                    "memory controller to use)")


def available_memory() -> int:
    """The machine's MemAvailable, in MB."""
    with open("/proc/meminfo") as info:
        return next(int(line.split()[1]) >> 10 for line in info if line.startswith("MemAvailable:"))


def test_memory_no_process_maps_is_stopped_at_the_sandboxs_memory_bound(memory_cgroup, tmp_path, started):
    limits = bwrap.limits(sandbox_memory=512 << 20)
    before = available_memory()
    done = confined(payload("hoard_memfds.py"), tmp_path / "work", limits, started)
    held = [int(line) for line in done.stdout.split() if line.isdigit()]
    assert held and max(held) < 512, f"it held {max(held, default=0)} MB in memfds and shared memory"
    assert done.returncode != 0 or "stopped" in done.stdout, "stopped (killed, or a write failed)"
    assert before - available_memory() < 512, "what it held is freed with the sandbox"


def test_the_private_tmp_holds_a_bounded_number_of_files(needs_bwrap, tmp_path, started):
    if os.geteuid() != 0:
        pytest.skip("/tmp's inodes are bounded only as root (the remount needs CAP_SYS_ADMIN)")
    done = confined(payload("fill_tmp_with_files.py"), tmp_path / "work", bwrap.limits(tmp_files=1000), started)
    assert done.returncode == 0, done.stderr
    made, error = done.stdout.split(maxsplit=1)
    assert int(made) < 1000 and error.strip() == os.strerror(28), done.stdout  # ENOSPC


def test_a_2_gb_file_is_stopped_at_the_file_size_limit(needs_bwrap, tmp_path, started):
    writer = payload("big_file.py")
    done = confined(writer, tmp_path / "work", started=started)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "File too large"
    assert (tmp_path / "work" / "big.bin").stat().st_size <= bwrap.LIMITS.file_size


def test_a_busy_loop_is_stopped_at_the_cpu_limit(needs_bwrap, tmp_path, started):
    done = confined("while True:\n    pass", tmp_path / "work", bwrap.Limits(cpu=1), started)
    assert done.returncode != 0, "killed by SIGXCPU"


def test_wrap_binds_the_environment_not_the_repository(tmp_path):
    argv = bwrap.wrap(["true"], workdir=tmp_path)
    bwrap.settle(tmp_path)
    binds = [argv[i + 1] for i, a in enumerate(argv) if a in ("--bind", "--ro-bind")]
    assert str(ROOT) not in binds and str(Path(sys.prefix).resolve()) in binds
    assert not any(Path(b) != Path(sys.prefix).resolve() and Path(b).is_relative_to(ROOT) for b in binds)
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--bind"] == [str(tmp_path.resolve())]
    for option in ("--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session", "--clearenv"):
        assert option in argv


# ---------------------------------------------------------------------------------------------
# The kernel zygote: kernels forked from one sandbox per student keep what the sandbox promises

@pytest.fixture
def as_root(needs_bwrap):
    if os.geteuid() != 0:
        pytest.skip("a kernel zygote runs only as root")


def start(zygote: bwrap.Zygote, module: str) -> subprocess.Popen:
    """Fork `module` from `zygote` and start its relay, as jupyter_client does a kernel's command."""
    argv, line = zygote.spawn(module, [])
    with line:
        return subprocess.Popen(argv, pass_fds=[line.fileno()])


READER = payload("reader_of_hidden_notebooks.py")


def test_a_zygote_hides_the_notebooks_written_after_it_started(as_root, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "01.ipynb").write_text("HIDDEN-TESTS-01")
    (work / "reader.py").write_text(READER)
    with open(tmp_path / "out", "w+") as out:
        zygote = bwrap.Zygote(work, hide=[work / name for name in ("01.ipynb", "02.ipynb", "03.ipynb")],
                                stdout=out, preload=())
        try:
            (work / "02.ipynb").write_text("HIDDEN-TESTS-02")  # as nbgrader writes the next notebook
            for _ in range(2):
                assert start(zygote, "reader").wait(timeout=60) == 0
                bwrap.settle(work)
        finally:
            zygote.close()
        out.seek(0)
        seen = out.read().splitlines()
    assert len(seen) == 2
    for line in seen:
        first, second, uid = line.split()
        assert (first, second) == ("PermissionError", "PermissionError") and int(uid) != 0
    assert (work / "02.ipynb").read_text() == "HIDDEN-TESTS-02"
    assert not (work / "03.ipynb").exists(), "a placeholder nothing was written in is removed"


def test_a_forked_kernel_passes_on_its_exit_status_and_dies_with_its_relay(as_root, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "quitter.py").write_text("import sys\nsys.exit(7)\n")
    (work / "sleeper.py").write_text(payload("sleeper.py"))
    zygote = bwrap.Zygote(work, preload=())
    try:
        assert start(zygote, "quitter").wait(timeout=60) == 7
        relay = start(zygote, "sleeper")
        for _ in range(600):
            if (work / "started").exists():
                break
            time.sleep(0.05)
        assert sandbox_processes(zygote.uid), "the kernel runs as the zygote's sandbox uid"
        relay.kill()
        relay.wait()
        for _ in range(100):
            if not sandbox_processes(zygote.uid):
                break
            time.sleep(0.05)
        assert sandbox_processes(zygote.uid) == [], "the kernel outlived its relay"
        assert zygote.process.poll() is None, "the zygote goes on"
    finally:
        zygote.close()
    assert zygote.process is None


KERNEL_STATE = payload("kernel_state.py")


def test_a_forked_kernel_looks_to_a_notebook_like_one_started_on_its_own(as_root, tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from autograder.grading import kernels

    execute = kernels.GuardedExecute
    seen = {}
    for forked_ in (False, True):
        work = tmp_path / f"forked-{forked_}" / "nano"
        work.mkdir(parents=True)
        nb = new_notebook(cells=[new_code_cell(KERNEL_STATE)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, work / "01.ipynb")
        settings = kernels.KernelSettings(runtime=Path(tempfile.mkdtemp(prefix="nano-ipc-")),
                                          notebooks=("01.ipynb",))
        settings.zygotes.usable = forked_
        try:
            out = execute(timeout=60, settings=settings).preprocess(nb, {"metadata": {"path": str(work)}})[0]
            assert (settings.zygotes.zygote is not None) == forked_
        finally:
            settings.zygotes.close()
            bwrap.settle(settings.runtime)
            shutil.rmtree(settings.runtime)
        state = json.loads(out.cells[0].outputs[0]["text"])
        seen[forked_] = {**state, "cwd": Path(state["cwd"]).relative_to(work.parent.parent).parts[1:],
                         "path": [p for p in state["path"] if not p.startswith(str(tmp_path))],
                         "env": {**state["env"], "PWD": ""}}
    assert seen[True] == seen[False]
    assert not seen[True]["uid_is_root"] and seen[True]["caps"] == ["0000000000000000"] * 3


# ---------------------------------------------------------------------------------------------
# Sandbox uids: each grading process has a block of its own, whatever its pid

def hold_a_sandbox(pid: int, work: str, orders) -> None:
    """A grading process whose os.getpid() says `pid`: it starts a sandboxed `sleep`, sends back
    the sleep's uid and its own block of uids, then on "settle" settles its folder, as grading
    does after each kernel, and on "end" ends. Run in a process of its own (multiprocessing's
    spawn, as a Dask nanny starts its workers)."""
    real, os.getpid = os.getpid, lambda: pid
    workdir = Path(work)
    workdir.mkdir()
    sleeper = None
    try:
        sleeper = subprocess.Popen(bwrap.wrap(["sleep", "600"], workdir=workdir))
        uid = bwrap._owners[workdir.resolve()]
        for _ in range(600):
            if sandbox_processes(uid):
                break
            time.sleep(0.05)
        orders.send((uid, list(bwrap.uid_block())))
        while (order := orders.recv()) != "end":
            if order == "settle":
                bwrap.settle(workdir)
                orders.send("settled")
    finally:
        if sleeper is not None:
            sleeper.kill()
            sleeper.wait()
        bwrap.settle(workdir)
        os.getpid = real


def test_grading_processes_whose_pids_share_the_low_21_bits_keep_their_sandboxes_apart(as_root, tmp_path):
    """Do two grading processes whose pids differ by 2**21 (Linux allows pids up to 4,194,304)
    get disjoint uid blocks, so that `settle` in one leaves the other's sandbox running?"""
    spawn = multiprocessing.get_context("spawn")
    holders = []
    try:
        for n, pid in enumerate((4321, 4321 + 2**21)):
            ours, theirs = spawn.Pipe()
            process = spawn.Process(target=hold_a_sandbox, args=(pid, str(tmp_path / f"work-{n}"), theirs))
            process.start()
            holders.append((process, ours))
        held = []
        for process, orders in holders:
            assert orders.poll(120), "a grading process did not start its sandbox"
            held.append(orders.recv())
        (uid_a, block_a), (uid_b, block_b) = held
        assert uid_a in block_a and uid_b in block_b and len(block_a) == len(block_b) == bwrap.UIDS_PER_PROCESS
        assert set(block_a).isdisjoint(block_b), "two grading processes share sandbox uids"
        assert sandbox_processes(uid_a) and sandbox_processes(uid_b), "both sleeps run sandboxed"

        holders[0][1].send("settle")
        assert holders[0][1].poll(60) and holders[0][1].recv() == "settled"
        assert sandbox_processes(uid_a) == [], "settle stops what its own sandbox left running"
        assert sandbox_processes(uid_b), "settle in one grading process killed the other's sandbox"
    finally:
        for process, orders in holders:
            with contextlib.suppress(OSError):
                orders.send("end")
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
                process.join()
    assert [p.exitcode for p, _ in holders] == [0, 0]


def test_a_forked_child_claims_a_block_of_its_own(as_root):
    """Does a process forked after its parent claimed a block (the lock file is shared with the
    parent across a fork) get a different block, while the parent keeps its own?"""
    parent = bwrap.uid_block()
    ours, theirs = multiprocessing.get_context("fork").Pipe()
    child = os.fork()
    if child == 0:
        try:
            theirs.send(list(bwrap.uid_block()))
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert ours.poll(30)
    assert set(ours.recv()).isdisjoint(parent) and bwrap.uid_block() == parent



def test_uid_locks_fall_back_to_a_folder_of_the_users_own_and_refuse_one_others_can_write(tmp_path, monkeypatch):
    """Where /run cannot be written, are the locks kept in a folder of the user's own under the
    temporary folder, and is a folder that someone else could write (and swap a lock in) refused?"""
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setattr(bwrap, "UID_LOCKS", tmp_path / "not-a-folder" / "uids")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    mine = tmp_path / f"nano-course-uids-{os.geteuid()}"
    assert bwrap._lock_folder() == mine and not mine.stat().st_mode & 0o022
    mine.chmod(0o777)
    with pytest.raises(RuntimeError, match="no folder to lock sandbox uids in"):
        bwrap._lock_folder()

# ---------------------------------------------------------------------------------------------
# A hostile class on the mini course. Each attack, payloads/attack_NAME.py, is Python run when the
# kernel imports the student's nano/protocol.py (cwd: COURSE/.grading/<id>/autograded/<id>/nano).
# It may use COURSE (the course folder), VICTIMS (the honest students' ids) and PORT (a listener's
# port), which payloads/attack_prelude.py and the line before it set.

ATTACKS = {name: payload(f"attack_{name.replace('-', '_')}.py") for name in (
    "steal-hidden-tests", "wreck-the-gradebook", "write-to-others", "fork-bomb", "memory-bomb", "flood-output",
    "call-home")}
HONEST_BEFORE, HONEST_AFTER = "honest-a", "honest-z"  # ids sort the batch: before, attackers, after


def hand_in(subs: Path, release_dir: Path, lectures: Path, student: str, attack: str | None = None,
            port: int = 0) -> Path:
    """A perfect hand-in of the mini lecture; with `attack`, its nano/protocol.py runs it on import."""
    work = release.solve_workspace(release.make_workspace(release_dir, subs / student), lecture_dir=lectures)
    if attack:
        protocol = work / "nano" / "protocol.py"
        prelude = (f"SCRATCH, STUDENT, VICTIMS, PORT = {grade.SCRATCH!r}, {student!r}, "
                   f"{[HONEST_BEFORE, HONEST_AFTER]!r}, {port}\n" + payload("attack_prelude.py"))
        protocol.write_text(protocol.read_text() + "\n\n" + prelude + attack)
    return work


def files_of(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def hidden_lines(lectures: Path) -> set[str]:
    hidden = set()
    for cell in notebooks.load(lectures / "01-mini.ipynb").cells:
        if "### BEGIN HIDDEN TESTS" in cell.source:
            part = cell.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
            hidden |= {line.strip() for line in part.splitlines() if len(line.strip()) > 12}
    return hidden


def outputs_text(notebook: Path) -> str:
    return json.dumps([c.get("outputs", []) for c in notebooks.load(notebook).cells])


@pytest.mark.slow
def test_a_hostile_class_is_graded_honestly_and_harms_no_one(needs_bwrap, mini_course, tmp_path_factory):
    source_course, lectures = mini_course
    base = tmp_path_factory.mktemp("hostile")
    server = Listener()
    try:
        results = {}
        for batch, attacks in (("clean", {}), ("hostile", ATTACKS)):
            course = base / batch / "course"
            shutil.copytree(source_course, course)
            release_dir, subs = course / "release" / "nano", base / batch / "subs"
            hand_in(subs, release_dir, lectures, HONEST_BEFORE)
            for name, attack in attacks.items():
                hand_in(subs, release_dir, lectures, name, attack, server.port)
            hand_in(subs, release_dir, lectures, HONEST_AFTER)
            handed_in = files_of(subs)
            grades = grade.grade_all(subs, course, echo=lambda *_: None, workers=2, timeout=15)
            assert files_of(subs) == handed_in, "the hand-ins themselves are never changed"
            results[batch] = (course, {g.student: g for g in grades})
    finally:
        server.close()

    clean, honest = results["clean"][1], {HONEST_BEFORE, HONEST_AFTER}
    course, hostile = results["hostile"]
    assert set(hostile) == honest | set(ATTACKS), "the batch completes: a grade for everyone"
    out_of = sum(grade.max_points(course).values())
    for student in honest:
        assert clean[student].total == out_of and clean[student].problem == ""
        assert hostile[student].scores == clean[student].scores, student
        assert hostile[student].problem == "", hostile[student].problem
    for student in ATTACKS:
        assert hostile[student].total <= clean[HONEST_BEFORE].total, student
    assert server.connections == 0, "no connection from inside the sandbox"

    rows = {r["student_id"]: r for r in csv.DictReader((course / "grades.csv").open())}
    assert set(rows) == set(hostile), "grades.csv lists everyone: the gradebook was not wrecked"
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "nano") as gb:
        scores = {s.student.id: s.score for s in gb.assignment_submissions("nano")}
    assert {s: scores[s] for s in honest} == {s: clean[s].total for s in honest}

    for student in honest:  # untouched by the attackers: no trace of them anywhere
        for folder in (course / "submitted" / student, course / "autograded" / student):
            assert "protocol.py" in str(files_of(folder)), folder
            for path in folder.rglob("*"):
                assert not path.is_symlink() and (not path.is_file() or b"PWNED" not in path.read_bytes()), path
    for path in (course / "autograded").rglob("*"):
        assert not path.is_symlink(), f"{path}: a link the grader could have followed"
    assert (course / "autograded" / "wreck-the-gradebook" / "nano" / "01-mini.ipynb").is_file()

    hidden = hidden_lines(lectures)
    assert hidden
    thief = "steal-hidden-tests"
    seen = (outputs_text(course / "autograded" / thief / "nano" / "01-mini.ipynb")
            + (course / "logs" / f"{thief}.txt").read_text()
            + "".join(p.read_text() for p in (course / "feedback" / thief).rglob("*.html")))
    assert "STOLEN" in seen, "the thief ran, and what it found is shown"
    assert not [line for line in hidden if line in seen or json.dumps(line)[1:-1] in seen]

    flood = course / "autograded" / "flood-output" / "nano" / "01-mini.ipynb"
    assert flood.stat().st_size < 3 * worker_output_limit(), "gigabytes printed, and 100,000 errors, are not kept"
    assert "output passed" in outputs_text(flood)
    assert "KERNEL STDERR IS A FILE: False" in outputs_text(flood), "no file of the course's disk to reserve"
    if os.geteuid() == 0:
        assert not unowned_sandboxes(), "a sandbox outlived its kernel and its grading process"


def worker_output_limit() -> int:
    from autograder.limits import OUTPUT_LIMIT
    return OUTPUT_LIMIT


def unowned_sandboxes() -> list[int]:
    """Pids running as a sandbox uid of a block that no live process holds: sandboxes that outlived
    the grading process that started them. (Other tests' gradings, which may run beside this one
    under pytest-xdist, hold the blocks of their own live sandboxes.)"""
    uids = {int(proc.name): _uid_of(proc) for proc in Path("/proc").iterdir() if proc.name.isdigit()}
    return [pid for pid, uid in uids.items()
            if uid >= bwrap.FIRST_UID and not bwrap.held((uid - bwrap.FIRST_UID) // bwrap.UIDS_PER_PROCESS)]


def _uid_of(proc: Path) -> int:
    try:
        with open(proc / "status") as status:
            return int(next(line for line in status if line.startswith("Uid:")).split()[1])
    except (OSError, StopIteration):
        return -1


@pytest.mark.slow
def test_a_notebook_past_its_time_limit_scores_0_from_there_on(needs_bwrap, mini_course, tmp_path):
    source_course, lectures = mini_course
    course = tmp_path / "course"
    shutil.copytree(source_course, course)
    work = hand_in(tmp_path / "subs", course / "release" / "nano", lectures, "slow")
    protocol = work / "nano" / "protocol.py"
    protocol.write_text(protocol.read_text().replace("    return 61 * 1000 + 1\n",
                                                     "    import time\n    time.sleep(600)\n"))
    found = intake.stage(intake.HandIn("slow", work), course / "submitted" / "slow" / "nano")
    (course / grade.SCRATCH).mkdir(exist_ok=True)
    gradebook.private_copy(gradebook.url(course), course / grade.SCRATCH / grade.TEMPLATE)
    found += grade._prepare(course, "slow")
    job = Job(course, course / grade.SCRATCH / "slow", "slow", tuple(problem(p, REPAIRED) if isinstance(p, str) else p
                                                                    for p in found),
              timeout=60, notebook_limit=20)  # a cell could run 60 s, the notebook 20
    [(_, outcome)] = list(autograde.run([("slow", job)], 1, course / "logs"))
    result = grade._finish(course, "slow", outcome, grade.lectures_of(course))
    points = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"]
              for c in notebooks.load(course / "release" / "nano" / "01-mini.ipynb").cells
              if c.metadata.get("nbgrader", {}).get("points")}
    assert result.scores == {"01": points["mini_entries"]}, "the cells before the limit count"
    assert tuple(map(str, result.problems)) == ("01: the notebook ran past its 20 s limit: mini_warmup, mini_read_file "
                               "interrupted or not run (scores 0)",)


# ---------------------------------------------------------------------------------------------
# nano-course grade without a working bwrap

def test_grade_refuses_without_bwrap_unless_unsafe(mini_course, tmp_path, monkeypatch, capsys):
    source_course, lectures = mini_course
    course = tmp_path / "course"
    shutil.copytree(source_course, course)
    shutil.rmtree(course / "submitted", ignore_errors=True)  # the shared mini course may have graded
    (course / "grades.csv").unlink(missing_ok=True)
    hand_in(tmp_path / "subs", course / "release" / "nano", lectures, "alice")
    monkeypatch.setattr(bwrap, "available", lambda: False)

    code = cli.main(["grade", str(tmp_path / "subs"), "--course", str(course), "--timeout", "20"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "apt-get install bubblewrap" in err and "--unsafe" in err
    assert not (course / "grades.csv").exists() and not (course / "submitted").exists()
    with pytest.raises(RuntimeError, match="apt-get install bubblewrap"):  # grade_all itself too
        grade.grade_all(tmp_path / "subs", course, echo=lambda *_: None)
    assert not (course / "submitted").exists()

    code = cli.main(["grade", str(tmp_path / "subs"), "--course", str(course), "--timeout", "20", "--unsafe"])
    out, err = capsys.readouterr()
    assert code == 0
    assert len(err.splitlines()) == 1 and "--unsafe" in err and "unconfined" in err, err
    assert [r["total"] for r in csv.DictReader((course / "grades.csv").open())] == ["3"]
