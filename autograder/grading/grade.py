"""Bulk grading: every hand-in of a class, autograded by real nbgrader, into grades.csv and feedback.

`grade_all` takes a folder of hand-ins (see intake.py), stages each one in the course's
`submitted/`, and autogrades it with the course's config: the student's nano/*.py are kept,
everything else is restored from the source. One bad hand-in never stops the batch, and each
gets the points it earns, with the reason in the `problem` column:
- an unreadable or missing notebook scores 0 for its lecture; the others are graded;
- a missing or unparsable nano/*.py is graded as its stub (not written), so that the later
  lectures, whose tests replace it with test doubles, are still graded on their own work;
- a deleted test cell is put back and run; an edited one is restored (nbgrader does that);
- a cell past the time limit is interrupted and scores 0; a cell that kills the kernel or
  ignores the interrupt scores 0, and the kernel is restarted so that the cells after it count.
Students are graded `workers` at a time, each in a private copy of the course (its own
gradebook, merged back after) by a worker process that student code can kill without harm; or,
with `scheduler`, on the workers of a Dask cluster (cluster.py). Either way this process is the
only writer of the course's gradebook (gradebook.py: a file, or PostgreSQL through db_url).
The kernel runs each graded cell's visible part; the cell's behaviours (its hidden tests) are
driven and judged outside it by the independent check (independent.py), and the cell scores
only if both pass. The reference solution is checked first (its own process, at the grader's
CPU priority; students' sandboxes run below it).

Grades accumulate over a term: grades.csv and problems.csv always list the whole class, every
student the course's gradebook holds and every hand-in refused so far, whatever one run graded
(`whole_class`, in results.py, which also writes and reads them). Each student is recorded as
they come back, the gradebook, their pages and both files together, a Ctrl-C meanwhile waiting
for the end (`undivided`), so the four always agree. The run ends listing what it left without
a grade and why (`closing`; kept in left-out.csv for the report).
"""

import contextlib
import copy
import json
import os
import shutil
import signal
import threading
from pathlib import Path

from autograder import limits, lock, trees
from autograder.authoring import notebooks, release
from autograder.check import behaviour, independent
from autograder.course import Course, lecture_of, require
from autograder import gradebook, records
from autograder.grading import autograde, intake
from autograder.grading import roster as rosters
from autograder.grading.results import (LEFT_OUT, NO_GRADE, NOT_PLACED, Grade, LeftOut, earlier_problems, table,
                                        whole_class, write_csv, write_left_out, write_problems)
from autograder.records import Job, Outcome, Problem, problem
from autograder.sandbox import bwrap

STUDENT_ID = intake.STUDENT_ID
SCRATCH = ".grading"  # private course copies live here while their student is graded
TEMPLATE = ".gradebook.db"  # in SCRATCH: the assignment's structure, copied for each student
REFERENCE = ".reference.json"  # in SCRATCH: the reference's result and the seed, for the workers' check
CHECKS = "checks"  # COURSE/checks/<student>.json: what the independent check did (independent.write_record)


def lectures_of(course: Path) -> dict[str, str]:
    """Notebook name -> lecture number ("01-shape-of-an-agent" -> "01") of the course's release."""
    return Course.at(course).lectures


def max_points(course: Path) -> dict[str, float]:
    """Lecture number -> the points its notebook awards."""
    return Course.at(course).max_points()


def grade_all(submissions: Path, course: Path, echo=print, *, workers: int = 1,
              timeout: int | None = None, feedback: bool = True, unsafe: bool = False,
              scheduler: str | None = None, db_url: str | None = None,
              roster: Path | None = None) -> list[Grade]:
    """Grade every hand-in in `submissions` (a folder, or an LMS download's zip: intake.py) with
    the course at `course`; `roster` maps an LMS download's ids to student ids.

    Writes `grades.csv`, `problems.csv`, `feedback/<student>/` and `logs/<student>.txt` in the
    course; echoes one progress line per student and the table. `timeout` overrides the
    course's seconds per cell; `workers` grades that many students at once; `scheduler` (a Dask
    scheduler's address) grades them on that cluster instead. `db_url` is where a course built
    here keeps its gradebook; a built course must already have it there. Student code runs in
    the sandbox (bwrap.py) unless `unsafe`. Each cell nbgrader passed is then judged by the
    independent check (independent.py). Returns the rows of this run's students
    as grades.csv now holds them, then those the grader failed on (`Grade.failed`: in neither
    file); refuses (ValueError) bad arguments and a folder with no
    hand-ins before anything is written, a folder that is not a built nano course (nothing is
    built or written there: `nano-course build` makes a course), and a course another run holds
    (lock.Busy).
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if timeout is not None and timeout < 1:
        raise ValueError(f"the time limit must be at least 1 second a cell, not {timeout}")
    if not unsafe and not bwrap.available():
        raise RuntimeError(bwrap.MISSING)
    refused: list = []
    with intake.opened(submissions, refused) as folder:
        hand_ins, notes, unplaced = intake.class_in(folder, roster, shown=submissions, refused=refused)
        people = rosters.read(roster) if roster is not None else None
        course = course.resolve()
        require(course)
        with lock.holding(course, "grade"):
            return _grade_all(hand_ins, notes, course, echo, workers=workers, timeout=timeout,
                              feedback=feedback, unsafe=unsafe, scheduler=scheduler, db_url=db_url,
                              unplaced=unplaced, people=people)


def _grade_all(hand_ins, notes, course: Path, echo, *, workers, timeout, feedback, unsafe, scheduler,
               db_url, unplaced=(), people=None) -> list[Grade]:
    echo(f"grading into the course at {course}")
    facts = Course.at(course)
    release.nbgrader_api(course)  # checks the config and puts alembic on PATH
    course_db = gradebook.url(course)
    if db_url and db_url != course_db:
        raise ValueError(f"{course} keeps its gradebook at {gradebook.shown(course_db)}, not "
                         f"{gradebook.shown(db_url)}: move it with nano-course build --out {course} "
                         "--db-url URL")
    gradebook.open_gradebook(course_db).close()  # unreachable: say so before anything is staged
    if scheduler:
        from autograder.grading import cluster

        client = cluster.connect(scheduler)
    lectures = facts.lectures
    numbers = facts.numbers
    out_of = sum(facts.max_points().values())
    before = set(gradebook.scores(course, lectures))  # students with a grade from an earlier run
    earlier = earlier_problems(course)  # read now: a damaged file stops the run before it starts
    for note in [*notes, *map(str, unplaced)]:
        echo(note)

    grades: dict[str, Grade] = {}
    graded: set[str] = set()  # the students handed to nbgrader
    scratch = course / SCRATCH
    trees.remove(scratch)  # a crashed run's, whatever its hand-ins left in it
    scratch.mkdir(parents=True)
    gradebook.private_copy(course_db, scratch / TEMPLATE)
    done, reporting = 0, threading.Lock()

    def report(grade: Grade) -> None:
        nonlocal done
        with reporting:  # the refused hand-ins are reported while the graded ones come back
            done += 1
            grades[grade.student] = grade
            said = (f"{grade.total:g}/{out_of:g}" if grade.graded
                    else "grading failed (the grader's failure: see the end)" if grade.failed else "not graded")
            echo(f"{progress_bar(done, len(hand_ins))} {grade.student} ... {said}"
                 + (f"  ({grade.problem})" if grade.problem else ""))

    reference = scratch / REFERENCE
    checker = None
    anyone = any(not h.problem for h in hand_ins)  # a hand-in that may reach nbgrader
    if anyone:
        echo("checking the reference solution's behaviours, beside the grading ...")
        checker = threading.Thread(target=_reference, args=(course, reference, unsafe, echo), daemon=True)
        checker.start()

    def staged():
        """Each hand-in staged in submitted/ and its private course, as a job; the workers grade
        the first ones while the later ones are staged and the reference is run."""
        for hand_in in hand_ins:
            zeros = {k: 0.0 for k in numbers}
            if hand_in.problem:
                report(Grade(hand_in.student, zeros, (problem(hand_in.problem, records.REFUSED),), graded=False))
                continue
            try:
                found = [problem(said, records.NOTED) for said in hand_in.notes]
                found += [problem(said, records.REPAIRED)
                          for said in intake.stage(hand_in, course / "submitted" / hand_in.student / facts.assignment)]
                found += _prepare(course, hand_in.student)
            except intake.IntakeError as exc:
                report(Grade(hand_in.student, zeros, (problem(str(exc), records.REFUSED),), graded=False))
                continue
            except Exception as exc:  # ours, not the hand-in's (intake says what is the hand-in's)
                report(Grade(hand_in.student, zeros, (problem(f"the grader could not stage the hand-in: "
                                                              f"{type(exc).__name__}: {exc}", records.FAILED),),
                             graded=False))
                continue
            graded.add(hand_in.student)
            yield hand_in.student, Job(course, course / SCRATCH / hand_in.student, hand_in.student,
                                       tuple(found), timeout, unsafe=unsafe, verify=reference)

    if anyone:
        echo("grading with nbgrader" + (f" on the Dask cluster at {scheduler}" if scheduler
                                        else f", {workers} at a time" if workers > 1 else "") + " ...")
    paged: set[str] = set()  # the students whose pages this run wrote
    everyone: list[Grade] = []

    def commit(finished: Grade | None = None) -> None:
        """Write what the run has so far, together: `finished` (merged into the gradebook by
        _finish), its pages, the pages of the hand-ins refused since the last commit, and
        grades.csv and problems.csv of the whole class. A Ctrl-C meanwhile waits for the end, so
        the three always agree, as before the student or after."""
        nonlocal everyone
        with reporting:
            run = [g for g in grades.values() if not g.failed]
        if finished is not None and not finished.failed:
            run.append(finished)
            if feedback:
                feedback_pages.write_student(course, finished)
                paged.add(finished.student)
        everyone = whole_class(course, run, lectures, before, earlier)
        rows = {g.student: g for g in everyone}
        if feedback:
            for grade in run:
                if grade.student not in graded and grade.student not in paged:  # not graded now: why
                    feedback_pages.write_student(course, rows[grade.student])
                    paged.add(grade.student)
        write_problems(everyone, course / "problems.csv")
        write_csv(everyone, numbers, course / "grades.csv")

    with autograde.quiet():
        from autograder.grading import feedback as feedback_pages

        results = (cluster.run(dict(staged()), client, course / "logs") if scheduler
                   else autograde.run(staged(), workers, course / "logs"))
        for student, outcome in results:
            if checker is not None:  # every worker waits for the reference: it is done by now
                checker.join()
                independent.wait_for_reference(reference, limit=0)  # a grader error stops it all here
            with undivided():
                finished = _finish(course, student, outcome, lectures)
                commit(finished)
            report(finished)
        try:
            if checker is not None:
                checker.join()
                independent.wait_for_reference(reference, limit=0)  # raises what stopped the reference
        finally:
            trees.remove(scratch)
        with undivided():
            commit()

    failed = [grades[h.student] for h in hand_ins if grades[h.student].failed]
    rows = {g.student: g for g in everyone}
    ordered = [rows[h.student] for h in hand_ins if not grades[h.student].failed]
    echo(table(ordered, numbers))
    kept = len(everyone) - len(ordered)
    echo(f"wrote {course / 'grades.csv'} and problems.csv ({len(everyone)} student{'s' * (len(everyone) != 1)}"
         + (f", {kept} of them from earlier runs)" if kept else ")")
         + (f"; each student's feedback in {course / 'feedback'}/<student_id>/index.html" if feedback else ""))
    for line in grader_errors(ordered) + grading_failed(failed, course):
        echo(line)
    if feedback:  # hand-ins from nbgrader collect: their pages where nbgrader release_feedback looks
        from autograder.grading import exchange

        exchange.place_feedback(course, [g.student for g in ordered], echo)
    left = left_out(unplaced, people, everyone, failed)
    write_left_out(left, course / LEFT_OUT)
    for line in closing(ordered, failed, left):
        echo(line)
    return ordered + failed


def left_out(unplaced, people: rosters.Roster | None, everyone: list[Grade], failed: list[Grade] = ()) -> list[LeftOut]:
    """What a run leaves without a grade, and why: each entry of the hand-ins that became no
    student's (`unplaced`), then each student of the roster `people` whom grades.csv (the
    whole class, `everyone`) does not list: one the grader failed on (`failed`) as such."""
    found = [LeftOut(NOT_PLACED, u.entry, u.student, u.why) for u in unplaced]
    listed = {g.student.lower() for g in everyone}
    grader = {g.student.lower() for g in failed}
    for person in people.people if people is not None else ():
        if person.student_id.lower() in listed:
            continue
        theirs = [u.entry for u in unplaced if u.student == person.student_id]
        why = ("grading failed, the grader's failure and not the hand-in's: grade again"
               if person.student_id.lower() in grader
               else f"{' and '.join(theirs)} carries their id but was not placed (see why at its entry)" if theirs
               else "nothing in the hand-ins is theirs: not handed in, or under a name no one could place")
        found.append(LeftOut(NO_GRADE, "", person.student_id, why, person.name))
    return found


def closing(ordered: list[Grade], failed: list[Grade], left: list[LeftOut]) -> list[str]:
    """The run's last lines: each hand-in not graded, each entry not placed and each roster
    student with no grade, with why, then one line that counts them."""
    refused = [g for g in ordered if not g.graded]
    lines = [f"not graded: {g.student}: {g.problem}" for g in refused]
    lines += [str(one) for one in left]
    placed = len(ordered) + len(failed)
    counts = [f"{placed} hand-in{'s' * (placed != 1)}: {placed - len(refused) - len(failed)} graded",
              f"{len(refused)} not graded (no grade in grades.csv)"]
    counts += [f"{len(failed)} failed by the grader"] if failed else []
    unplaced = sum(one.kind == NOT_PLACED for one in left)
    missing = sum(one.kind == NO_GRADE for one in left)
    lines.append(", ".join(counts) + f"; {unplaced} entr{'ies' if unplaced != 1 else 'y'} not placed; "
                 f"{missing} student{'s' * (missing != 1)} of the roster with no grade"
                 + ("; each is listed above, and in report.html (nano-course report)"
                    if refused or left else ""))
    return lines


@contextlib.contextmanager
def undivided():
    """A block that a Ctrl-C does not cut in two: the interrupt waits for the block's end (in the
    main thread; elsewhere, and where Ctrl-C is ignored, the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    stopped = []
    signal.signal(signal.SIGINT, lambda *_: stopped.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if stopped:
        raise KeyboardInterrupt


def grading_failed(failed: list[Grade], course: Path) -> list[str]:
    """For the instructor, one line per hand-in the grader itself failed on (records.FAILED):
    what happened, and that nothing was recorded for that student."""
    return [f"grading failed for {g.student}, the grader's failure and not the hand-in's: "
            f"{'; '.join(p.message for p in g.problems if p.kind == records.FAILED)}. Nothing was recorded "
            f"for {g.student} (grades.csv, problems.csv and the feedback are as they were); see "
            f"{course / 'logs' / (g.student + '.txt')}, then grade {g.student} again." for g in failed]


def grader_errors(grades: list[Grade]) -> list[str]:
    """For the instructor, one line per graded cell held by a grader error (a problem of kind
    "grader": its judge or drive raised on a student's code, or the reference did not finish it):
    whose cells it holds, and what happened. Those cells award nothing until a re-grade."""
    met: dict[str, list[str]] = {}
    raised: dict[str, str] = {}
    for g in grades:
        for p in g.problems:
            if p.kind == records.GRADER:
                for grade_id in p.grade_ids:
                    met.setdefault(grade_id, []).append(g.student)
                    raised.setdefault(grade_id, p.detail)
    return [f"grader error: {grade_id} is held for {len(students)} student{'s' if len(students) > 1 else ''} "
            f"({', '.join(students)}), scoring nothing until it is fixed: {raised[grade_id]}. Fix that behaviour in "
            f"autograder/check/behaviours/l{grade_id[1:3]}.py, then grade "
            f"{'them' if len(students) > 1 else 'that student'} again."
            for grade_id, students in sorted(met.items())]


def _reference(course: Path, path: Path, unsafe: bool, echo) -> None:
    """Check the reference solution's behaviours (independent.reference, the course's seed) and
    write the result to `path`, where each worker waits for it (independent.check_submission);
    or, if it could not run, why, so that no worker waits in vain."""
    try:
        data = independent.reference(course, Course.at(course).seed, unsafe=unsafe, echo=echo)
        if independent.unchecked(course):
            echo(f"note: no behaviour of the independent check covers {', '.join(independent.unchecked(course))}: "
                 "nbgrader's result on the visible part stands there")
    except behaviour.GraderError as exc:
        data = {"error": f"grading stopped before any grade was recorded: {exc}"}
    except Exception as exc:
        data = {"error": f"the reference solution could not be run for the independent check: "
                         f"{type(exc).__name__}: {exc}"}
    path.with_suffix(".tmp").write_text(json.dumps(data), encoding="utf-8")
    path.with_suffix(".tmp").replace(path)


WORKERS_VARIABLE = "NANO_WORKERS"


def default_workers(environ=os.environ) -> int:
    """Students graded at once by default. A worker waits on its kernel, on sleeping test commands
    and on the gradebook as much as it computes: four per CPU, at most 8 (on two cores, three per
    CPU left them idle a sixth of the time, four a twelfth). On a machine that does other work
    at the same time, NANO_WORKERS says how many instead: the test suite, which grades several
    classes at once, sets it (tests/conftest.py), as their time limits assume a machine not
    oversubscribed several times over."""
    said = environ.get(WORKERS_VARIABLE, "").strip()
    if not said:
        return limits.workers()
    if not said.isdigit() or int(said) < 1:
        raise ValueError(f"{WORKERS_VARIABLE} must be a whole number of students graded at once, "
                         f"at least 1, not {said!r}")
    return int(said)


def progress_bar(done: int, total: int, width: int = 20) -> str:
    """`[ 3/15] ####----------------`: how far the batch has got, at the start of each line."""
    filled = round(width * done / total) if total else width
    return f"[{done:>{len(str(total))}}/{total}] " + "#" * filled + "-" * (width - filled)


# ---------------------------------------------------------------------------------------------
# Before grading: a private copy of the course, with the hand-in repaired where it must be.

def _prepare(course: Path, student: str) -> list[Problem]:
    """Make the private course in which `student` is graded; return the problems it had to repair.

    The hand-in in submitted/ stays as it came; only the private copy is repaired.
    """
    private = course / SCRATCH / student
    trees.remove(private)
    private.mkdir(parents=True)
    shutil.copy2(course / SCRATCH / TEMPLATE, private / "gradebook.db")
    (private / "source").symlink_to(course / "source", target_is_directory=True)
    work = private / "submitted" / student / release.ASSIGNMENT
    shutil.copytree(course / "submitted" / student / release.ASSIGNMENT, work)
    return repair(work, course / "release" / release.ASSIGNMENT)


def repair(work: Path, release_dir: Path) -> list[Problem]:
    """Make the workspace copy `work` gradeable, in place; return what was wrong, in words.

    Unreadable notebooks are removed (nbgrader then scores them 0, as it does missing ones);
    deleted test cells are put back from the release; a missing or unparsable nano/*.py is
    replaced by its stub. Edited test cells are only reported: nbgrader restores them.
    """
    problems: list[Problem] = []
    for released in sorted(release_dir.glob("*.ipynb")):
        number, mine = lecture_of(released.stem), work / released.name
        if not mine.is_file():
            problems.append(problem(f"notebook {released.name} missing (scores 0)", records.REPAIRED, number))
            continue
        try:
            data = mine.read_bytes()
            if (values := json_values(data, limits.MAX_NOTEBOOK_VALUES)) > limits.MAX_NOTEBOOK_VALUES:
                raise ValueError(f"{values:,} JSON values, more than the limit of {limits.MAX_NOTEBOOK_VALUES:,}")
            json.loads(data.decode("utf-8"))
            nb = notebooks.load(mine)
            if not isinstance(nb.get("cells"), list):
                raise ValueError("it has no list of cells")
        except Exception as exc:  # JSON errors, nbformat errors, encoding errors
            mine.unlink()
            if isinstance(exc, json.JSONDecodeError):
                why = f"not valid JSON: {exc.msg}, line {exc.lineno}"
            elif isinstance(exc, UnicodeDecodeError):
                why = "not UTF-8 text"
            else:
                why = (str(exc).splitlines() or [type(exc).__name__])[0][:80]
            problems.append(problem(f"{released.name} is not a readable notebook ({why}): scores 0",
                                    records.REPAIRED, number))
            continue
        changed, said = restore_test_cells(nb, notebooks.load(released))
        problems += [problem(words, records.REPAIRED, number, [grade_id]) for grade_id, words in said]
        if changed:
            mine.write_text(notebooks.render(nb), encoding="utf-8")
    for name in release.STUDENT_FILES:
        mine, stub = work / name, release_dir / name
        if not mine.is_file():
            problems.append(problem(f"{name} missing: graded as not written", records.REPAIRED, file=name))
        else:
            try:
                compile(mine.read_bytes(), name, "exec")
                continue
            except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:  # the pages say so where graded
                why = ("nested too deeply for Python to read" if isinstance(exc, (MemoryError, RecursionError))
                       else " ".join(str(getattr(exc, "msg", None) or exc).split())[:100])
                where = f"line {exc.lineno}: {why}" if getattr(exc, "lineno", None) else why
                functions = list(release.STUDENT_FUNCTIONS[name.removeprefix("nano/")])
                written = ", ".join(functions[:-1]) + " and " * (len(functions) > 1) + functions[-1]
                problems.append(problem(f"{name} does not parse ({where}), so {written} "
                                        f"{'were' if len(functions) > 1 else 'was'} graded as not written",
                                        records.UNPARSABLE, file=name))
        mine.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(stub, mine)
    return problems


def json_values(data: bytes, limit: int) -> int:
    """About how many values the JSON text `data` holds (list items, object members, strings),
    counted without parsing it, in C-speed passes and bounded memory; past `limit` only a lower bound."""
    data = data.replace(b"\\\\", b"").replace(b'\\"', b"")  # escapes: left are the quotes that delimit strings
    strings = data.count(b'"') // 2
    if strings > limit:
        return strings
    outside = b"".join(data.split(b'"')[0::2])
    return sum(outside.count(mark) for mark in (b",", b"[", b"{")) + 1


def restore_test_cells(nb, released) -> tuple[bool, list[tuple[str, str]]]:
    """Put back each graded test cell of `released` that `nb` lost, after the cell it followed.

    Returns whether `nb` changed and what was found, as (grade_id, words): deleted or edited test
    cells, deleted answer cells. An edited test cell gets its nbgrader metadata back here; its source is left
    to nbgrader, which restores it (hidden tests included) from its database.
    """
    def key(cell):
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        return ("grade_id", gid) if gid else ("id", cell.get("id"))

    said, changed = _odd_metadata(nb, released)
    position = {key(c): i for i, c in enumerate(nb.cells)}
    anchor = -1
    for cell in released.cells:
        meta = cell.metadata.get("nbgrader", {})
        k = key(cell)
        if k in position:
            anchor = position[k]
            mine = nb.cells[anchor]
            if meta.get("grade") and not meta.get("solution") and (
                    mine.source != cell.source or mine.cell_type != cell.cell_type
                    or mine.metadata.get("nbgrader") != meta):
                said.append((meta["grade_id"], f"test cell {meta['grade_id']} was edited (restored)"))
                if mine.metadata.get("nbgrader") != meta:  # nbgrader trusts some of these flags
                    mine.metadata["nbgrader"] = copy.deepcopy(meta)
                    changed = True
            continue
        if meta.get("solution"):
            said.append((meta["grade_id"], f"answer cell {meta['grade_id']} deleted"))
        elif meta.get("grade"):
            said.append((meta["grade_id"], f"test cell {meta['grade_id']} deleted (put back and run)"))
            anchor += 1
            nb.cells.insert(anchor, cell)
            position = {key(c): i for i, c in enumerate(nb.cells)}
            changed = True
    return changed, said


def _odd_metadata(nb, released) -> tuple[list[tuple[str, str]], bool]:
    """Give each cell of `nb` whose nbgrader metadata is not what nbgrader writes (not a dict, a
    grade_id that is not text) the metadata of the release's cell of its id, as an edited test
    cell, or none (then it is the student's own cell); return what was said and whether `nb` changed."""
    by_id = {c.get("id"): c for c in released.cells if c.get("id")}
    said, changed = [], False
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if isinstance(meta, dict) and isinstance(meta.get("grade_id", ""), str):
            continue
        original = by_id.get(cell.get("id"))
        if original is not None and "nbgrader" in original.metadata:
            cell.metadata["nbgrader"] = copy.deepcopy(original.metadata["nbgrader"])
            grade_id = original.metadata["nbgrader"].get("grade_id", "")
            said.append((grade_id, f"cell {grade_id} had its nbgrader metadata edited (restored)"))
        else:
            del cell.metadata["nbgrader"]
        changed = True
    return said, changed


# ---------------------------------------------------------------------------------------------
# After grading: the private course merged back into the course.

def _finish(course: Path, student: str, outcome: Outcome, lectures: dict[str, str]) -> Grade:
    """Merge a graded private course back into the course; return the student's Grade.

    The outcome names the private course it was graded in when that is not the staged one (a
    cluster grades each attempt in its own copy). Merging replaces what the course held for
    the student, so a student merged twice is recorded once.
    """
    staged = course / SCRATCH / student
    private = outcome.private or staged
    problems = list(outcome.problems)
    failed = outcome.failed
    try:
        logs = course / "logs"
        logs.mkdir(exist_ok=True)
        (logs / f"{student}.txt").write_text(outcome.log, encoding="utf-8")
        if not failed:
            (course / CHECKS).mkdir(exist_ok=True)
            graded = private / "autograded" / student
            target = course / "autograded" / student
            trees.remove(target)
            if graded.is_dir():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(graded), str(target))
            checked = private / independent.RECORD
            if checked.is_file():
                shutil.move(str(checked), str(course / CHECKS / f"{student}.json"))
            else:
                (course / CHECKS / f"{student}.json").unlink(missing_ok=True)
            # last: the gradebook, which grades.csv is made from, takes the student once all else is in place
            gradebook.merge(gradebook.sqlite_url(private / "gradebook.db"), gradebook.url(course),
                             student)
    except Exception as exc:  # ours: the course folder or the gradebook, not the hand-in
        problems.append(problem(f"its results could not be kept: {type(exc).__name__}: {exc}", records.FAILED))
        failed = True
    finally:
        trees.remove(private)
        trees.remove(staged)
    numbers = sorted(set(lectures.values()))
    if failed:
        return Grade(student, {k: 0.0 for k in numbers}, tuple(problems), graded=False)
    return Grade(student, gradebook.student_scores(course, student, lectures), tuple(problems))
