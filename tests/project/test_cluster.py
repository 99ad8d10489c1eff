"""Grading beyond one machine: does a Dask cluster grade as local workers do, does the gradebook
live in PostgreSQL when db_url says so, and does a worker killed mid-grading lose or double no one?

A real Dask LocalCluster (worker processes under nannies) grades the mini course; a real
PostgreSQL server (Debian's binaries, run as an unprivileged user on a unix socket in a
temporary folder) holds a gradebook. Scores are compared with a plain local run of the same
class, never with numbers written here.
"""

import csv
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

from autograder import cli
from autograder.authoring import release
from autograder import gradebook
from autograder.grading import cluster, grade, intake
from autograder.records import Job, Outcome

PATIENCE = 240  # seconds a test waits for something to happen before it gives up


def _missing(what: str) -> None:
    message = f"{what}: these tests need PostgreSQL's server binaries (apt-get install -y postgresql)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{message} [CI=true: failing instead of skipping]", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server for the session; call it with a name to get a new database's URL."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not found:
        _missing("no /usr/lib/postgresql/*/bin/initdb")
    bin_dir = found[-1].parent
    home = Path(tempfile.mkdtemp(prefix="nano-pg-"))
    as_server = []
    if os.geteuid() == 0:  # the server refuses to run as root
        shutil.chown(home, "nobody")
        as_server = ["runuser", "-u", "nobody", "--"]
    data = home / "data"

    def server(*args):
        return subprocess.run([*as_server, *map(str, args)], cwd=home, capture_output=True, text=True,
                              timeout=120, check=True)

    server(bin_dir / "initdb", "-D", data, "-A", "trust", "-U", "nano", "-E", "UTF8", "--locale=C")
    server(bin_dir / "pg_ctl", "-D", data, "-l", home / "server.log", "-w", "-t", "60",
           "-o", f"-k {home} -c listen_addresses=''", "start")
    import psycopg

    def new_database(name: str) -> str:
        name = f"{name}_{uuid.uuid4().hex[:6]}"
        with psycopg.connect(dbname="postgres", user="nano", host=str(home), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://nano@/{name}?host={home}"  # SQLAlchemy's default driver: psycopg 3

    try:
        yield new_database
    finally:
        subprocess.run([*as_server, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                       cwd=home, capture_output=True, timeout=120)
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="module")
def dask_cluster():
    """A Dask LocalCluster of two single-threaded worker processes, each under a nanny."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.CRITICAL) as local:
        yield local


def make_class(course: Path, lectures: Path, subs: Path) -> Path:
    """A small mini-course class: a perfect hand-in, one whose warmup is wrong, a slow one (right,
    after a few seconds), and one whose warmup kills the kernel."""
    release_dir = course / "release" / release.ASSIGNMENT
    bodies = {"perfect": None, "partial": "    return 42\n",
              "slow": "    import time\n    time.sleep(4)\n    return 61 * 1000 + 1\n",
              "dies": "    import os\n    os._exit(1)\n"}
    for name, body in bodies.items():
        work = release.solve_workspace(release.make_workspace(release_dir, subs / name), lecture_dir=lectures)
        if body is not None:
            protocol = work / "nano" / "protocol.py"
            protocol.write_text(protocol.read_text().replace("    return 61 * 1000 + 1\n", body))
    return subs


def copy_course(course: Path, dest: Path) -> Path:
    shutil.copytree(course, dest)
    return dest


def submissions_of(db_url: str) -> dict[str, list[float]]:
    """Student -> the scores of each of their submissions of the assignment in the gradebook."""
    from nbgrader.api import SubmittedAssignment

    found: dict[str, list[float]] = {}
    with gradebook.open_gradebook(db_url) as gb:
        for submission in gb.db.query(SubmittedAssignment).all():
            found.setdefault(submission.student.id, []).append(submission.score)
    return found


def csv_rows(course: Path) -> list[dict]:
    return list(csv.DictReader((course / "grades.csv").open()))


@pytest.fixture(scope="module")
def mini_class(mini_course, tmp_path_factory):
    """The small class, and its grades from a plain local run (two worker processes)."""
    course, lectures = mini_course
    base = tmp_path_factory.mktemp("cluster-class")
    subs = make_class(course, lectures, base / "subs")
    local = copy_course(course, base / "local")
    grades = grade.grade_all(subs, local, echo=lambda *_: None, workers=2, timeout=10)
    return subs, {g.student: g for g in grades}


# ---------------------------------------------------------------------------------------------
# Dask

def test_a_class_graded_on_a_dask_cluster_scores_as_a_local_run(mini_course, mini_class, dask_cluster, tmp_path):
    subs, local = mini_class
    course = copy_course(mini_course[0], tmp_path / "course")
    lines = []
    grades = grade.grade_all(subs, course, echo=lines.append, timeout=10,
                             scheduler=dask_cluster.scheduler_address)
    assert {g.student: (g.scores, g.problems) for g in grades} == \
        {s: (g.scores, g.problems) for s, g in local.items()}
    assert local["perfect"].total == sum(grade.max_points(course).values())
    assert local["partial"].total < local["perfect"].total, "the class must not all score the same"
    assert submissions_of(gradebook.url(course)) == {s: [g.total] for s, g in local.items()}
    assert [r["student_id"] for r in csv_rows(course)] == sorted(local)
    for student in local:
        assert (course / "feedback" / student / "index.html").is_file()
        assert "==== nbgrader autograde 01-mini" in (course / "logs" / f"{student}.txt").read_text()
    assert not (course / grade.SCRATCH).exists()
    assert sum(line.startswith("[") for line in lines) == len(local)


def test_an_attempt_that_ran_twice_is_recorded_once(mini_course, tmp_path):
    """Two attempts at one student (the first finished before its worker died): each graded in
    a private course of its own, and merging both leaves one submission."""
    course, lectures = mini_course
    course = copy_course(course, tmp_path / "course")
    work = release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT,
                                                          tmp_path / "subs" / "alice"), lecture_dir=lectures)
    intake.stage(intake.HandIn("alice", work), course / "submitted" / "alice" / release.ASSIGNMENT)
    (course / grade.SCRATCH).mkdir()
    gradebook.private_copy(gradebook.url(course), course / grade.SCRATCH / grade.TEMPLATE)
    job = Job(course, course / grade.SCRATCH / "alice", "alice", tuple(grade._prepare(course, "alice")), timeout=10)
    staged = {p: p.read_bytes() for p in job.private.rglob("*") if p.is_file()}

    first, second = (Outcome.from_json(cluster.attempt(job.to_json(), str(course / "logs"))) for _ in range(2))
    assert first.private != second.private
    assert not first.failed and not second.failed, (first, second)
    assert {p: p.read_bytes() for p in job.private.rglob("*") if p.is_file()} == staged, \
        "an attempt must leave the staged course as it found it"

    for process in cluster._graders.values():  # attempt() kept this thread's grading process
        process.close()
    lectures_of = grade.lectures_of(course)
    results = [grade._finish(course, "alice", outcome, lectures_of) for outcome in (first, second)]
    full = sum(grade.max_points(course).values())
    assert [r.total for r in results] == [full, full]
    assert submissions_of(gradebook.url(course)) == {"alice": [full]}


def _children(pid: int) -> list[int]:
    import psutil

    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_dask_worker_killed_mid_grading_loses_and_doubles_no_one(mini_course, mini_class, dask_cluster,
                                                                     tmp_path):
    from distributed import Client

    subs, local = mini_class
    course = copy_course(mini_course[0], tmp_path / "course")
    attempts = course / grade.SCRATCH / cluster.ATTEMPTS
    result: dict = {}

    def grade_class():
        try:
            result["grades"] = grade.grade_all(subs, course, echo=lambda *_: None, timeout=10,
                                               scheduler=dask_cluster.scheduler_address)
        except BaseException as exc:  # reported by the test below
            result["error"] = exc

    grading = threading.Thread(target=grade_class)
    grading.start()
    seen: set[str] = set()
    killed, orphans = None, []
    with Client(dask_cluster.scheduler_address, set_as_default=False) as client:
        deadline = time.monotonic() + PATIENCE
        while killed is None and time.monotonic() < deadline and grading.is_alive():
            if attempts.is_dir():
                seen |= {p.name for p in attempts.iterdir()}
            if any(name.startswith("slow-") and (attempts / name / "kernels.log").is_file() for name in seen):
                # The slow student's kernel is running: kill the Dask worker grading it.
                for address, keys in client.processing().items():
                    if any(str(key).startswith("nano-grade-slow-") for key in keys):
                        pid = client.run(os.getpid, workers=[address])[address]
                        orphans = _children(pid)
                        os.kill(pid, signal.SIGKILL)
                        killed = address
            time.sleep(0.05)
        while grading.is_alive() and time.monotonic() < deadline:
            if attempts.is_dir():
                seen |= {p.name for p in attempts.iterdir()}
            time.sleep(0.05)
    grading.join(timeout=max(1.0, deadline - time.monotonic()))
    assert not grading.is_alive(), "grading did not finish"
    assert "error" not in result, result.get("error")
    assert killed, "the slow student was never seen being graded"
    assert len([name for name in seen if name.startswith("slow-")]) >= 2, \
        f"the killed worker's task was not tried again elsewhere: {sorted(seen)}"

    grades = {g.student: g for g in result["grades"]}
    assert {s: (g.scores, g.problems) for s, g in grades.items()} == \
        {s: (g.scores, g.problems) for s, g in local.items()}
    assert submissions_of(gradebook.url(course)) == {s: [g.total] for s, g in local.items()}
    assert sorted(r["student_id"] for r in csv_rows(course)) == sorted(local)

    assert orphans, "the killed worker had no grading child"
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in orphans) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in orphans if _alive(pid)], "the killed worker's grading child went on grading"


def test_an_unreachable_scheduler_is_one_line_and_stages_nothing(mini_course, mini_class, tmp_path,
                                                                 monkeypatch, capsys):
    subs, _ = mini_class
    course = copy_course(mini_course[0], tmp_path / "course")
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 2)
    code = cli.main(["grade", str(subs), "--course", str(course), "--scheduler", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("nano-course grade: cannot reach the Dask scheduler at tcp://127.0.0.1:9") and \
        err.count("\n") == 1, err
    assert not (course / "submitted").exists() and not (course / "grades.csv").exists()


# ---------------------------------------------------------------------------------------------
# PostgreSQL

def test_the_gradebook_lives_in_postgresql_when_db_url_says_so(mini_course, mini_class, postgres,
                                                                dask_cluster, tmp_path, capsys):
    """Built with --db-url, graded on the cluster twice, reported: every read and write goes to
    PostgreSQL, no gradebook.db appears, and a regrade replaces instead of adding."""
    subs, local = mini_class
    _, lectures = mini_course
    db_url = postgres("course")
    course = tmp_path / "course"
    release.build_course(course, lecture_dir=lectures, db_url=db_url)
    assert gradebook.url(course) == db_url
    assert release.nbgrader_api(course).coursedir.db_url == db_url, "stock nbgrader must find it too"
    release.build_course(course, lecture_dir=lectures)  # a rebuild keeps the database
    assert gradebook.url(course) == db_url

    for _ in range(2):
        grades = grade.grade_all(subs, course, echo=lambda *_: None, timeout=10,
                                 scheduler=dask_cluster.scheduler_address, db_url=db_url)
        assert {g.student: g.scores for g in grades} == {s: g.scores for s, g in local.items()}
        assert submissions_of(db_url) == {s: [g.total] for s, g in local.items()}
    assert not (course / "gradebook.db").exists()

    index = (course / "feedback" / "partial" / "index.html").read_text()
    assert f"{local['partial'].total:g} / {sum(grade.max_points(course).values()):g}" in index
    capsys.readouterr()
    assert cli.main(["report", "--course", str(course)]) == 0
    assert f"{len(local)} graded students" in (course / "report.html").read_text()


def test_a_bad_or_unreachable_db_url_is_one_line_and_changes_nothing(mini_course, tmp_path, capsys):
    course = copy_course(mini_course[0], tmp_path / "course")
    config = (course / "nbgrader_config.py").read_text()
    for url, said in [("mysql://x@localhost/nano", "is not a postgresql:// (or sqlite:///) URL"),
                      ("postgresql://nano@127.0.0.1:9/nano", "cannot open the gradebook at")]:
        assert cli.main(["build", "--out", str(course), "--db-url", url]) == 1
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
        assert (course / "nbgrader_config.py").read_text() == config

    other = "postgresql://nano:secret@127.0.0.1:9/other"
    subs = release.make_workspace(course / "release" / "nano", tmp_path / "subs" / "alice").parent
    assert cli.main(["grade", str(subs), "--course", str(course), "--db-url", other]) == 1
    err = capsys.readouterr().err
    assert "keeps its gradebook at sqlite:///" in err and "secret" not in err and err.count("\n") == 1, err


# ---------------------------------------------------------------------------------------------
# The real course

@pytest.mark.slow
@pytest.mark.extended
def test_real_submissions_graded_on_a_cluster_from_the_command_line(course, dask_cluster, tmp_path, capsys):
    samples = release.ROOT / "fixtures" / "submissions"
    chosen = ["kernel-dies", "partial", "perfect"]
    subs = tmp_path / "subs"
    for name in chosen:
        shutil.copytree(samples / name, subs / name)
    graded = copy_course(course, tmp_path / "course")
    code = cli.main(["grade", str(subs), "--course", str(graded), "--timeout", "20",
                     "--scheduler", dask_cluster.scheduler_address])
    out, err = capsys.readouterr()
    assert code == 0, err
    expected = {r["student_id"]: r for r in csv.DictReader((samples / "expected.csv").open())}
    got = {r["student_id"]: r for r in csv_rows(graded)}
    assert list(got) == chosen
    for student in chosen:
        assert got[student] == {k: v for k, v in expected[student].items() if k != "problem"}, student
    assert submissions_of(gradebook.url(graded)).keys() == set(chosen)
