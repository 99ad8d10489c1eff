"""nano-course: the instructor's command line (build, student, grade, report, export, similar), where a
class works (hub, site), the authors' (notebooks, check, samples) and the grading benchmark (bench)."""

import argparse
import os
import shlex
import shutil
import sys
from pathlib import Path

from autograder.course import default_course, refusal, require
# Imported by some commands, installed only with the extra: pip install -e ".[instructor]".
INSTRUCTOR_MODULES = {"dask", "distributed", "psycopg", "matplotlib", "jupytext", "nbval", "copydetect"}


COURSE_HELP = ("the course folder nano-course build made (default: $NANO_COURSE, else build/course in "
               "the nano checkout: %s)" % default_course())
STOPPED = {  # what a command stopped with Ctrl-C leaves, where it leaves something to know
    "grade": ("; the students finished before the stop are in grades.csv, problems.csv, the gradebook "
              "and their feedback pages, the others as they were: grade again to finish"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nano-course", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    build = commands.add_parser("build", help="write the nbgrader course: source, release, gradebook")
    build.add_argument("--out", type=Path, default=None,
                       help="a new or empty folder, or a nano course to build again (default: %s)" % default_course())
    build.add_argument("--db-url", default=None,
                       help="keep the gradebook in this database (postgresql://...) instead of "
                            "COURSE/gradebook.db; written to nbgrader_config.py")
    build.add_argument("--exchange", type=Path, default=None, metavar="DIR",
                       help="nbgrader's exchange, where students fetch and submit: a folder every "
                            "student can reach (default: COURSE/exchange, or the one the course has); "
                            "written to nbgrader_config.py")

    student = commands.add_parser("student", help="write a fresh student workspace (the release) at DIR")
    student.add_argument("dir", type=Path)
    student.add_argument("--course", type=Path, default=None,
                         help="take the release of this built course (default: build one in a temporary folder)")

    grade = commands.add_parser("grade", help="autograde every submission in SUBMISSIONS; write grades.csv and feedback")
    grade.add_argument("submissions", type=Path,
                       help="a folder holding one folder or <student_id>.zip per student, an "
                            "nbgrader course whose submitted/ came from nbgrader collect, or a Canvas "
                            "or Moodle download of the submissions (its zip, or the zip unpacked)")
    grade.add_argument("--roster", type=Path, default=None,
                       help="CSV of the class (student_id, and canvas_id, moodle_participant or name): "
                            "maps an LMS download's students to student ids")
    grade.add_argument("--course", type=Path, default=None, help=COURSE_HELP)
    grade.add_argument("--workers", type=int, default=None,
                       help="students graded at once (default: four per CPU, at most 8)")
    grade.add_argument("--timeout", type=int, default=None,
                       help="seconds a cell may run (default: the course's Execute.timeout, 30)")
    grade.add_argument("--unsafe", action="store_true",
                       help="run student code without the bubblewrap sandbox (it can then read the "
                            "hidden tests and rewrite the gradebook)")
    grade.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="grade on the Dask cluster of this scheduler (tcp://HOST:8786) instead of "
                            "local workers; the course folder must be shared with its workers")
    grade.add_argument("--db-url", default=None,
                       help="refuse to grade unless the course keeps its gradebook in this database "
                            "(nano-course build --db-url puts it there)")

    remove = commands.add_parser("remove", help="take students (or junk ids an earlier grade made) out of the "
                                                "course: gradebook, grades.csv, problems.csv, their files")
    remove.add_argument("students", nargs="+", metavar="STUDENT")
    remove.add_argument("--course", type=Path, default=None, help=COURSE_HELP)

    bench = commands.add_parser("bench", help="grade a generated class with nano-course grade and with "
                                              "stock nbgrader autograde; print the speedup")
    bench.add_argument("--students", type=int, default=50, help="size of the class (default: %(default)s)")
    bench.add_argument("--workers", type=int, default=None,
                       help="students nano-course grade grades at once (default: as nano-course grade)")
    bench.add_argument("--profile", action="store_true",
                       help="also say where the time goes: start-up costs, kernels, cells, the rest")
    bench.add_argument("--keep", type=Path, default=None,
                       help="work in this new folder and keep it (default: a temporary folder)")
    bench.add_argument("--ok", action="store_true",
                       help="instead, time ./ok NN for each lecture on the reference and on the stubs")
    bench.add_argument("--runs", type=int, default=5, help="with --ok: runs of each (default: %(default)s)")

    replay = commands.add_parser("replay", help="run one student's graded behaviours again, with the inputs they "
                                                "were graded on, and print what was seen")
    replay.add_argument("student")
    replay.add_argument("behaviours", nargs="*", metavar="GRADE_ID",
                        help="the graded cells (or behaviours) to run (default: those that did not pass)")
    replay.add_argument("--course", type=Path, default=None, help=COURSE_HELP)
    replay.add_argument("--unsafe", action="store_true", help="run the student's code without the sandbox")

    report = commands.add_parser("report", help="write COURSE/report.html: score distributions, failure rates")
    report.add_argument("--course", type=Path, default=None, help=COURSE_HELP)

    export = commands.add_parser("export", help="write the grades as Canvas's and Moodle's grade imports take them "
                                                "(COURSE/export/canvas.csv, moodle.csv)")
    export.add_argument("--course", type=Path, default=None, help=COURSE_HELP)
    export.add_argument("--roster", type=Path, default=None,
                        help="the class list (CSV): student_id and the LMS's ids, canvas_id, sis_id, idnumber, "
                             "email (or lms_id), name, section (default: our ids are the LMS's)")
    export.add_argument("--out", type=Path, default=None, help="folder for the two files (default: COURSE/export)")
    export.add_argument("--total", action="store_true",
                        help="one column, the assignment's total, instead of one per lecture")
    export.add_argument("--zero-refused", action="store_true",
                        help="write the hand-ins that could not be graded as 0 (default: leave them out "
                             "and list them, so that a grade given in the LMS by hand stands); without a "
                             "roster, a refused id the LMS does not know makes Moodle refuse the whole file")

    similar = commands.add_parser("similar", help="compare the class's nano/*.py for shared work (copydetect): "
                                                  "COURSE/similar/report.html and pairs.csv")
    similar.add_argument("submissions", type=Path, nargs="?", default=None,
                         help="the hand-ins, as grade takes them (default: those the course's last grade took in, "
                              "in COURSE/submitted)")
    similar.add_argument("--course", type=Path, default=None, help=COURSE_HELP)
    similar.add_argument("--roster", type=Path, default=None,
                         help="CSV of the class, for an LMS download (as for grade)")
    similar.add_argument("--out", type=Path, default=None, help="folder for the two files (default: COURSE/similar)")

    hub = commands.add_parser("hub", help="write a JupyterHub for the course (students log in with their Unix "
                                          "accounts; assignment list, formgrader, the exchange); --start runs it")
    hub.add_argument("--course", type=Path, default=None, help=COURSE_HELP)
    hub.add_argument("--out", type=Path, default=None, help="the hub's folder (default: hub beside the course folder)")
    hub.add_argument("--instructor", required=True, metavar="USER", help="the instructor's Unix user")
    hub.add_argument("--student", action="append", default=[], dest="students", metavar="USER",
                     help="a student's Unix user (once for each)")
    hub.add_argument("--ip", default="", help="the address to listen on (default: every interface)")
    hub.add_argument("--port", type=int, default=8000,
                     help="the port students open (default: %(default)s; the hub also takes the next two)")
    hub.add_argument("--start", action="store_true", help="then start JupyterHub (as root)")

    site = commands.add_parser("site", help="build the lectures as a static website (mystmd) from the student release")
    site.add_argument("--course", type=Path, default=None, help=COURSE_HELP)
    site.add_argument("--out", type=Path, default=None, help="the site's folder (default: COURSE/site)")

    samples = commands.add_parser("samples", help="write the sample class in fixtures/submissions from the release")
    samples.add_argument("--course", type=Path, default=None,
                         help="take the release of this built course (default: build one in a temporary folder)")
    samples.add_argument("--check", action="store_true", help="only list samples that differ from what would be written")

    nbs = commands.add_parser("notebooks", help="build lectures/NN-*.ipynb from lectures/src/*.md, and docs/graded-behaviours.md")
    nbs.add_argument("--check", action="store_true", help="only report notebooks that are out of date")

    check = commands.add_parser("check", help="run lecture NN against the reference and the stubs")
    check.add_argument("lecture", help="two digits, e.g. 02")
    check.add_argument("--behaviours", action="store_true",
                       help="run the lecture's graded behaviours instead, in the sandbox, on the reference, "
                            "each of its mutants and each of its alternatives")
    check.add_argument("--course", type=Path, default=None,
                       help="with --behaviours: a course built from the current lectures (saves a minute)")
    check.add_argument("--unsafe", action="store_true", help="with --behaviours: run without the sandbox")

    args = parser.parse_args(argv)
    if args.command in ("grade", "remove", "replay", "report", "export", "similar", "hub", "site") and args.course is None:
        args.course = default_course()
    if args.command == "build" and args.out is None:
        args.out = default_course()
    try:
        return COMMANDS[args.command](args)
    except (OSError, ValueError, RuntimeError) as exc:  # ReleaseError is a RuntimeError
        print(f"nano-course {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"nano-course {args.command}: stopped (Ctrl-C){STOPPED.get(args.command, '')}", file=sys.stderr)
        return 130
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in INSTRUCTOR_MODULES:
            raise
        print(f"nano-course {args.command}: needs {exc.name}, which only the instructor's install "
              "has: pip install -e '.[instructor]' in the course repository (./run setup does it)",
              file=sys.stderr)
        return 1


def _build(args) -> int:
    from autograder import lock
    from autograder.authoring import release

    out = args.out.resolve()
    if out.exists():
        require(out, built=False)
    with lock.holding(out, "build"):  # not while a grading reads the release
        folder = release.build_course(out, db_url=args.db_url, exchange=args.exchange)
    settings = release.course_settings(out)
    print(f"built the course in {out}: release in {folder}, nbgrader's exchange in "
          f"{settings.exchange or 'the nbgrader default (nbgrader_config.py sets none)'}")
    return 0


def _student(args) -> int:
    import tempfile

    problem = _not_a_new_folder(args.dir) or (args.course and refusal(args.course))
    if problem:
        print(f"nano-course student: {problem}", file=sys.stderr)
        return 2
    from autograder.authoring import release  # after the checks: it takes seconds to import

    activate = _activate()  # before building: the build puts this environment's scripts on PATH
    if args.course is not None:
        workspace = release.make_workspace(args.course / "release" / release.ASSIGNMENT, args.dir)
    else:
        with tempfile.TemporaryDirectory(prefix="nano-course-") as tmp:
            workspace = release.make_workspace(release.build_course(Path(tmp)), args.dir)
    print(f"student workspace ready in {workspace}\n"
          f"next: {activate}cd {shlex.quote(str(workspace))} && {_jupyter_lab(workspace)}\n"
          "then follow the notebook; ./ok 00 checks lecture 01 once you have written warmup "
          "in nano/protocol.py (until then it fails, as every stub does)")
    return 0


def _not_a_new_folder(path: Path) -> str | None:
    """Why `path` cannot become a new workspace, in a sentence; None when it can."""
    if path.is_file():
        return f"{path} is a file: name a new folder for the workspace"
    if path.is_dir() and any(path.iterdir()):
        return f"{path} already exists and is not empty: name a new folder for the workspace"
    parent = next((p for p in path.absolute().parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        return f"cannot make the folder {path}: {parent} is a file, not a folder"
    return None


def _activate() -> str:
    """How to make this environment the shell's, when it is not already: '' or 'source ... && '."""
    here = Path(sys.executable).parent
    found = shutil.which("jupyter")
    if found and Path(found).parent.resolve() == here.resolve():
        return ""
    if (here / "activate").is_file():
        return f"source {shlex.quote(str(here / 'activate'))} && "
    return f"export PATH={shlex.quote(str(here))}:\"$PATH\" && "  # conda, or no venv: its scripts first


def _jupyter_lab(workspace: Path) -> str:
    """The command that opens lecture 01 with the workspace's Jupyter config (no instructor
    parts) and its kernel; as root JupyterLab also needs --allow-root."""
    from autograder.authoring.release import STUDENT_LAB_CONFIG

    root = " --allow-root" if os.geteuid() == 0 else ""
    config = shlex.quote(str(Path(workspace).resolve() / STUDENT_LAB_CONFIG))
    return f"JUPYTER_CONFIG_PATH={config} JUPYTER_PATH={config} jupyter lab{root} 01-shape-of-an-agent.ipynb"


def _grade(args) -> int:
    from autograder.grading import grade
    from autograder.sandbox import bwrap

    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")
    if args.timeout is not None and args.timeout < 1:
        raise ValueError(f"--timeout must be at least 1 (seconds a cell may run), not {args.timeout}")
    if args.unsafe:
        print("nano-course grade: warning: --unsafe: student code runs unconfined, with your "
              "permissions", file=sys.stderr, flush=True)
    elif not bwrap.available():
        print(f"nano-course grade: {bwrap.MISSING}", file=sys.stderr)
        return 2
    workers = args.workers if args.workers is not None else grade.default_workers()
    grades = grade.grade_all(args.submissions, args.course, echo=lambda line: print(line, flush=True),
                             workers=workers, timeout=args.timeout, unsafe=args.unsafe,
                             scheduler=args.scheduler, db_url=args.db_url, roster=args.roster)
    return 1 if any(g.failed for g in grades) else 0


def _remove(args) -> int:
    from autograder.grading import remove

    require(args.course)
    remove.remove(args.course, args.students)
    return 0


def _bench(args) -> int:
    from autograder.grading import bench

    if args.ok:
        from autograder.authoring import okbench

        if args.runs < 1:
            raise ValueError(f"--runs must be at least 1, not {args.runs}")
        okbench.run(args.runs, echo=lambda line: print(line, flush=True))
        return 0
    if args.students < 1:
        raise ValueError(f"--students must be at least 1, not {args.students}")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")
    same = bench.run(args.students, workers=args.workers, profile_too=args.profile, keep=args.keep,
                     echo=lambda line: print(line, flush=True))
    return 0 if same else 1


def _replay(args) -> int:
    from autograder.check import independent
    from autograder.sandbox import bwrap

    if not args.unsafe and not bwrap.available():
        print(f"nano-course replay: {bwrap.MISSING}", file=sys.stderr)
        return 2
    course = args.course.resolve()
    require(course)
    return 0 if independent.replay(course, args.student, args.behaviours, unsafe=args.unsafe,
                                   echo=lambda line: print(line, flush=True)) else 1


def _report(args) -> int:
    from autograder.grading import report

    require(args.course)
    page = report.write_report(args.course.resolve())
    print(f"wrote the report in {page}")
    return 0


def _export(args) -> int:
    from autograder.grading import export

    require(args.course)
    result = export.export(args.course, out=args.out, roster=args.roster, total=args.total,
                           zero_refused=args.zero_refused)
    print("\n".join(export.summary(result)))
    return 0


def _similar(args) -> int:
    from autograder.grading import similar

    course = args.course.resolve()
    require(course)
    if args.submissions is None and not (course / "submitted").is_dir():
        raise ValueError(f"{course} holds no hand-ins yet (no submitted/ folder): grade the class first, "
                         "or name the folder of hand-ins (nano-course similar SUBMISSIONS)")
    comparison = similar.compare(args.submissions or course, course, roster=args.roster)
    page, table = similar.write(comparison, (args.out or course / similar.FOLDER).resolve())
    print("\n".join(similar.summary(comparison, page, table)))
    return 0


def _hub(args) -> int:
    from autograder.deploy import hub

    course = args.course.resolve()
    require(course)
    served = hub.Hub(folder=(args.out or course.parent / "hub").resolve(), course=course,
                     exchange=hub.exchange_of(course), instructor=args.instructor,
                     students=tuple(args.students), bin=Path(sys.executable).parent, ip=args.ip, port=args.port)
    config = hub.write(served)
    warning = hub.python_warning(served)
    if warning:
        print(f"nano-course hub: {warning}", file=sys.stderr, flush=True)
    print(f"wrote the hub in {served.folder}: students log in at {served.url} with their Unix passwords; "
          f"start it as root with {shlex.quote(str(served.bin / 'jupyterhub'))} -f {shlex.quote(str(config))}"
          " (or add --start)", flush=True)
    if args.start:
        hub.start(served)
    return 0


def _site(args) -> int:
    from autograder.deploy import site

    require(args.course)
    out = site.build(args.course.resolve(), (args.out or args.course / "site").resolve(),
                     echo=lambda line: print(line, flush=True))
    print(f"built the site in {out}: open {out / 'index.html'}")
    return 0


def _samples(args) -> int:
    from autograder.authoring import samples

    return samples.main(course=args.course, check=args.check)


def _notebooks(args) -> int:
    from autograder.authoring import contract, notebooks

    stale = [f"lectures/{n}" for n in notebooks.sync(check=args.check)] + contract.sync(check=args.check)
    if args.check:
        print("\n".join(f"out of date: {n}" for n in stale) or "all notebooks and docs/graded-behaviours.md match their sources")
        return 1 if stale else 0
    print("\n".join(f"wrote {n}" for n in stale) or "all notebooks and docs/graded-behaviours.md already match their sources")
    return 0


def _check(args) -> int:
    from autograder.authoring import audit

    if args.behaviours:
        return 0 if audit.check_behaviours(args.lecture, unsafe=args.unsafe, built=args.course) else 1
    return 0 if audit.check_lecture(args.lecture) else 1


COMMANDS = {"build": _build, "student": _student, "grade": _grade, "bench": _bench, "report": _report,
            "replay": _replay, "remove": _remove,
            "export": _export, "similar": _similar, "hub": _hub, "site": _site, "samples": _samples, "notebooks": _notebooks, "check": _check}

if __name__ == "__main__":
    sys.exit(main())
