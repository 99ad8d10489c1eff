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
(`whole_class`). Both files are replaced only once complete (written aside, then renamed).
"""

import copy
import csv
import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from autograder import lock
from autograder.authoring import notebooks, release
from autograder.check import behaviour, independent
from autograder.course import Course, lecture_of
from autograder.grading import autograde, gradebook, intake, records
from autograder.grading.records import Job, Outcome, Problem, problem
from autograder.sandbox import bwrap

STUDENT_ID = intake.STUDENT_ID
COURSE_ID = release.COURSE_ID
SCRATCH = ".grading"  # private course copies live here while their student is graded
TEMPLATE = ".gradebook.db"  # in SCRATCH: the assignment's structure, copied for each student
REFERENCE = ".reference.json"  # in SCRATCH: the reference's result and the seed, for the workers' check
CHECKS = "checks"  # COURSE/checks/<student>.json: what the independent check did (independent.write_record)


@dataclass(frozen=True)
class Grade:
    """One student's result: points per lecture ("01".."06"), and what went wrong, if anything."""

    student: str
    scores: dict[str, float] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    graded: bool = True

    @property
    def total(self) -> float:
        return round(sum(self.scores.values()), 2)

    @property
    def problem(self) -> str:
        """The problem column: each problem as a line of its own would say it ("02: ..."), joined."""
        return "; ".join(str(p) for p in self.problems)

    def about(self, lecture: str) -> list[Problem]:
        """The problems that belong to lecture `lecture` ("02"): its own, and those about a file
        whose functions it grades (a nano/*.py graded as its stub)."""
        return [p for p in self.problems if p.lecture == lecture or lecture in lectures_of_file(p.file)]


def lectures_of_file(name: str) -> set[str]:
    """The lectures ("04") that grade the functions of student file `name` ("nano/gate.py")."""
    return set(release.STUDENT_FUNCTIONS.get(name.removeprefix("nano/"), {}).values())


def lectures_of(course: Path) -> dict[str, str]:
    """Notebook name -> lecture number ("01-shape-of-an-agent" -> "01") of the course's release."""
    return Course.at(course).lectures


def max_points(course: Path) -> dict[str, float]:
    """Lecture number -> the points its notebook awards."""
    return Course.at(course).max_points()


def grade_all(submissions: Path, course: Path, echo=print, *, workers: int = 1,
              timeout: int | None = None, feedback: bool = True, unsafe: bool = False,
              scheduler: str | None = None, db_url: str | None = None) -> list[Grade]:
    """Grade every hand-in in `submissions` with the course at `course`.

    Writes `grades.csv`, `problems.csv`, `feedback/<student>/` and `logs/<student>.txt` in the
    course; echoes one progress line per student and the table. `timeout` overrides the
    course's seconds per cell; `workers` grades that many students at once; `scheduler` (a Dask
    scheduler's address) grades them on that cluster instead. `db_url` is where a course built
    here keeps its gradebook; a built course must already have it there. Student code runs in
    the sandbox (bwrap.py) unless `unsafe`. Each cell nbgrader passed is then judged by the
    independent check (independent.py). Returns the rows of this run's students
    as grades.csv now holds them; refuses (ValueError) bad arguments and a folder with no
    hand-ins before anything is written, and a course another run holds (lock.Busy).
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if timeout is not None and timeout < 1:
        raise ValueError(f"the time limit must be at least 1 second a cell, not {timeout}")
    if not unsafe and not bwrap.available():
        raise RuntimeError(bwrap.MISSING)
    hand_ins, notes = intake.class_in(submissions)
    course = course.resolve()
    with lock.holding(course, "grade"):
        return _grade_all(hand_ins, notes, course, echo, workers=workers, timeout=timeout, feedback=feedback,
                          unsafe=unsafe, scheduler=scheduler, db_url=db_url)


def _grade_all(hand_ins, notes, course: Path, echo, *, workers, timeout, feedback, unsafe, scheduler,
               db_url) -> list[Grade]:
    if not (course / "release" / release.ASSIGNMENT).is_dir():
        echo(f"building the course in {course} ...")
        release.build_course(course, db_url=db_url)
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
    before = set(held(course, lectures))  # students with a grade from an earlier run
    earlier = earlier_problems(course)  # read now: a damaged file stops the run before it starts
    for note in notes:
        echo(note)

    grades: dict[str, Grade] = {}
    graded: set[str] = set()  # the students handed to nbgrader
    scratch = course / SCRATCH
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    gradebook.private_copy(course_db, scratch / TEMPLATE)
    done, reporting = 0, threading.Lock()

    def report(grade: Grade) -> None:
        nonlocal done
        with reporting:  # the refused hand-ins are reported while the graded ones come back
            done += 1
            grades[grade.student] = grade
            said = f"{grade.total:g}/{out_of:g}" if grade.graded else "not graded"
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
                found = [problem(said, records.REPAIRED)
                         for said in intake.stage(hand_in, course / "submitted" / hand_in.student / facts.assignment)]
                found += _prepare(course, hand_in.student)
            except intake.IntakeError as exc:
                report(Grade(hand_in.student, zeros, (problem(str(exc), records.REFUSED),), graded=False))
                continue
            except Exception as exc:  # a bad submission must not stop the batch
                report(Grade(hand_in.student, zeros, (problem(f"could not be read: {type(exc).__name__}: {exc}",
                                                              records.REFUSED),), graded=False))
                continue
            graded.add(hand_in.student)
            yield hand_in.student, Job(course, course / SCRATCH / hand_in.student, hand_in.student,
                                       tuple(found), timeout, unsafe=unsafe, verify=reference)

    if anyone:
        echo("grading with nbgrader" + (f" on the Dask cluster at {scheduler}" if scheduler
                                        else f", {workers} at a time" if workers > 1 else "") + " ...")
    with autograde.quiet():
        from autograder.grading import feedback as feedback_pages

        results = (cluster.run(dict(staged()), client, course / "logs") if scheduler
                   else autograde.run(staged(), workers, course / "logs"))
        for student, outcome in results:
            if checker is not None:  # every worker waits for the reference: it is done by now
                checker.join()
                independent.wait_for_reference(reference, limit=0)  # a grader error stops it all here
            report(_finish(course, student, outcome, lectures))
            if feedback:  # while the workers grade the next ones
                feedback_pages.write_student(course, grades[student])
        try:
            if checker is not None:
                checker.join()
                independent.wait_for_reference(reference, limit=0)  # raises what stopped the reference
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

        everyone = whole_class(course, [grades[h.student] for h in hand_ins], lectures, before, earlier)
        rows = {g.student: g for g in everyone}
        ordered = [rows[h.student] for h in hand_ins]
        write_problems(everyone, course / "problems.csv")
        write_csv(everyone, numbers, course / "grades.csv")
        if feedback:
            for grade in ordered:
                if grade.student not in graded:  # not graded now: feedback that says why
                    feedback_pages.write_student(course, grade)
    echo(table(ordered, numbers))
    kept = len(everyone) - len(ordered)
    echo(f"wrote {course / 'grades.csv'} and problems.csv ({len(everyone)} student{'s' * (len(everyone) != 1)}"
         + (f", {kept} of them from earlier runs)" if kept else ")")
         + (f"; each student's feedback in {course / 'feedback'}/<student_id>/index.html" if feedback else ""))
    for line in grader_errors(ordered):
        echo(line)
    if feedback:  # hand-ins from nbgrader collect: their pages where nbgrader release_feedback looks
        from autograder.grading import exchange

        exchange.place_feedback(course, [g.student for g in ordered], echo)
    return ordered


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


def default_workers() -> int:
    """Students graded at once by default. A worker waits on its kernel, on sleeping test commands
    and on the gradebook as much as it computes: four per CPU, at most 8 (on two cores, three per
    CPU left them idle a sixth of the time, four a twelfth)."""
    return min(8, 4 * (os.cpu_count() or 1))


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
    shutil.rmtree(private, ignore_errors=True)
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
            json.loads(mine.read_text(encoding="utf-8"))
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
            except (SyntaxError, ValueError) as exc:  # the lectures' pages say so where they graded it
                why = " ".join(str(getattr(exc, "msg", None) or exc).split())[:100]
                where = f"line {exc.lineno}: {why}" if getattr(exc, "lineno", None) else why
                functions = list(release.STUDENT_FUNCTIONS[name.removeprefix("nano/")])
                written = ", ".join(functions[:-1]) + " and " * (len(functions) > 1) + functions[-1]
                problems.append(problem(f"{name} does not parse ({where}), so {written} "
                                        f"{'were' if len(functions) > 1 else 'was'} graded as not written",
                                        records.UNPARSABLE, file=name))
        mine.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(stub, mine)
    return problems


def restore_test_cells(nb, released) -> tuple[bool, list[tuple[str, str]]]:
    """Put back each graded test cell of `released` that `nb` lost, after the cell it followed.

    Returns whether `nb` changed and what was found, as (grade_id, words): deleted or edited test
    cells, deleted answer cells. An edited test cell gets its nbgrader metadata back here; its source is left
    to nbgrader, which restores it (hidden tests included) from its database.
    """
    def key(cell):
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        return ("grade_id", gid) if gid else ("id", cell.get("id"))

    position = {key(c): i for i, c in enumerate(nb.cells)}
    said, changed, anchor = [], False, -1
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
        if not failed:
            merge_submission(gradebook.sqlite_url(private / "gradebook.db"), gradebook.url(course),
                             student)
            graded = private / "autograded" / student
            target = course / "autograded" / student
            if target.exists():
                shutil.rmtree(target)
            if graded.is_dir():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(graded), str(target))
            checked = private / independent.RECORD
            (course / CHECKS).mkdir(exist_ok=True)
            if checked.is_file():
                shutil.move(str(checked), str(course / CHECKS / f"{student}.json"))
            else:
                (course / CHECKS / f"{student}.json").unlink(missing_ok=True)
        logs = course / "logs"
        logs.mkdir(exist_ok=True)
        (logs / f"{student}.txt").write_text(outcome.log, encoding="utf-8")
    except Exception as exc:  # a submission that wrecked its private course
        problems.append(problem(f"grading failed: {type(exc).__name__}: {exc}", records.FAILED))
        failed = True
    finally:
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(staged, ignore_errors=True)
    numbers = sorted(set(lectures.values()))
    if failed:
        return Grade(student, {k: 0.0 for k in numbers}, tuple(problems), graded=False)
    return Grade(student, _scores(course, student, lectures), tuple(problems))


def merge_submission(source_url: str, target_url: str, student: str) -> None:
    """Copy `student`'s submission, grades and comments from one gradebook into another,
    replacing what the target held for them."""
    from nbgrader.api import MissingEntry

    with gradebook.open_gradebook(source_url) as src, gradebook.open_gradebook(target_url) as dst:
        dst.update_or_create_student(student)
        try:
            dst.remove_submission(release.ASSIGNMENT, student)
        except MissingEntry:
            pass
        try:
            theirs = src.find_submission(release.ASSIGNMENT, student)
        except MissingEntry:  # nothing nbgrader could read: a submission of zeros
            for nb in dst.add_submission(release.ASSIGNMENT, student).notebooks:
                for grade in nb.grades:
                    grade.auto_score, grade.needs_manual_grade = 0.0, False
            dst.db.commit()
            return
        dst.add_submission(release.ASSIGNMENT, student, timestamp=theirs.timestamp,
                           extension=theirs.extension)
        for nb in theirs.notebooks:
            ours = dst.find_submission_notebook(nb.name, release.ASSIGNMENT, student)
            ours.flagged = nb.flagged
            ours.late_submission_penalty = nb.late_submission_penalty
            for grade in nb.grades:
                into = dst.find_grade(grade.name, nb.name, release.ASSIGNMENT, student)
                into.auto_score, into.manual_score = grade.auto_score, grade.manual_score
                into.extra_credit, into.needs_manual_grade = grade.extra_credit, grade.needs_manual_grade
            for comment in nb.comments:
                into = dst.find_comment(comment.name, nb.name, release.ASSIGNMENT, student)
                into.auto_comment, into.manual_comment = comment.auto_comment, comment.manual_comment
        dst.db.commit()


def _scores(course: Path, student: str, lectures: dict[str, str]) -> dict[str, float]:
    from nbgrader.api import MissingEntry

    scores = {number: 0.0 for number in lectures.values()}
    with gradebook.open_gradebook(gradebook.url(course)) as gb:
        try:
            submission = gb.find_submission(release.ASSIGNMENT, student)
        except MissingEntry:
            return scores
        for notebook in submission.notebooks:
            if notebook.name in lectures:
                scores[lectures[notebook.name]] = round(float(notebook.score or 0.0), 3)
    return scores


# ---------------------------------------------------------------------------------------------
# Results: the whole class, the CSV, the problems, the table.


def held(course: Path, lectures: dict[str, str]) -> dict[str, dict[str, float]]:
    """Student -> points per lecture, for every student the course's gradebook holds a
    submission of (graded by any run, or by stock nbgrader)."""
    numbers = sorted(set(lectures.values()))
    found: dict[str, dict[str, float]] = {}
    with gradebook.open_gradebook(gradebook.url(course)) as gb:
        for name, number in lectures.items():
            for row in gb.notebook_submission_dicts(name, release.ASSIGNMENT):
                scores = found.setdefault(row["student"], {k: 0.0 for k in numbers})
                scores[number] = round(float(row["score"] or 0.0), 3)
    return found


def earlier_problems(course: Path) -> dict[str, tuple[bool, tuple[Problem, ...]]]:
    """Student -> (graded, problems) from the course's problems.csv as the last run wrote it;
    ValueError, in one sentence, if it is not such a file any more."""
    path = course / "problems.csv"
    found: dict[str, tuple[bool, tuple[Problem, ...]]] = {}
    if not path.is_file():
        return found
    try:
        with path.open(newline="", encoding="utf-8") as lines:
            reader = csv.DictReader(lines)
            if not {"student_id", "graded", "problem"} <= set(reader.fieldnames or ()):
                raise csv.Error("its columns are not student_id,graded,problem")
            for row in reader:
                graded, problems = found.get(row["student_id"], (True, ()))
                found[row["student_id"]] = (graded and row["graded"] != "no", (*problems, problem_of(row)))
    except (csv.Error, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not the file nano-course grade wrote ({exc}): put it back as it was, "
                         "or move it away to start its list of refused hand-ins afresh") from None
    return found


def whole_class(course: Path, run: list[Grade], lectures: dict[str, str], before: set[str],
                earlier: dict[str, tuple[bool, tuple[Problem, ...]]]) -> list[Grade]:
    """The rows grades.csv and problems.csv hold after a run, sorted by student id.

    The graded students are those the gradebook holds, with their problems from the last
    problems.csv (`earlier`); the refused hand-ins, never in the gradebook, are carried over from
    it until their student is graded. This `run` replaces the rows of its students, except that
    a hand-in it could not grade does not wipe the grade of the student's earlier one (`before`:
    the students the gradebook held when the run began).
    """
    scores = held(course, lectures)
    zeros = {k: 0.0 for k in sorted(set(lectures.values()))}
    rows = {student: Grade(student, points, earlier.get(student, (True, ()))[1])
            for student, points in scores.items()}
    rows |= {student: Grade(student, zeros, problems, graded=False)
             for student, (graded, problems) in earlier.items() if not graded and student not in scores}
    for g in run:
        if g.graded or g.student not in scores:
            rows[g.student] = g
        else:
            kept = tuple(p for p in rows[g.student].problems if p.kind != records.EARLIER)
            said = ((*kept, problem(f"this hand-in was not graded ({g.problem}); the grade of the earlier "
                                    "one stands", records.EARLIER))
                    if g.student in before else g.problems)
            rows[g.student] = Grade(g.student, scores[g.student], said)
    return sorted(rows.values(), key=lambda g: (g.student.lower(), g.student))


def write_csv(grades: list[Grade], lectures: list[str], path: Path) -> None:
    """grades.csv: one row per student, points per lecture and in all."""
    def rows():
        yield ["student_id", *lectures, "total"]
        for g in grades:
            yield [g.student, *(f"{g.scores.get(k, 0.0):g}" for k in lectures), f"{g.total:g}"]
    save_csv(path, rows())


PROBLEM_COLUMNS = ["student_id", "graded", "problem", "lecture", "kind", "grade_ids", "message", "detail", "file"]


def write_problems(grades: list[Grade], path: Path) -> None:
    """problems.csv: one row per problem found, for the students who had any: the problem as the
    table says it, then its parts (records.Problem; grade_ids separated by spaces), which is
    what is read back. `detail` is for the instructor: no feedback page shows it; `file` is the
    nano/*.py graded as its stub."""
    def rows():
        yield PROBLEM_COLUMNS
        for g in grades:
            for p in g.problems:
                yield [g.student, "yes" if g.graded else "no", str(p), p.lecture or "", p.kind,
                       " ".join(p.grade_ids), p.message, p.detail, p.file]
    save_csv(path, rows())


def problem_of(row: dict[str, str]) -> Problem:
    """The Problem of a row of problems.csv. A row written before the file had its parts keeps
    its words whole, as a problem of the hand-in (kind "repaired")."""
    if row.get("kind") and row.get("message") is not None:
        return Problem(row.get("lecture") or None, tuple((row.get("grade_ids") or "").split()), row["kind"],
                       row["message"], row.get("detail") or "", row.get("file") or "")
    return problem(row["problem"], records.REPAIRED)


def save_csv(path: Path, rows: Iterable[list[str]]) -> None:
    """Write `rows` as a CSV beside `path`, then rename it over `path`: a crash or Ctrl-C while
    writing (or while `rows` makes a row) leaves the previous file whole."""
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", newline="", encoding="utf-8") as out:
            csv.writer(out).writerows(rows)
            out.flush()
            os.fsync(out.fileno())
        if path.exists():
            shutil.copymode(path, name)
        else:
            os.chmod(name, 0o644)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def read_grades(course: Path) -> list[Grade]:
    """The grades `grade_all` last wrote in `course` (the whole class), read back from grades.csv
    and problems.csv, in their order; [] if it has not graded there."""
    def rows(name: str) -> list[dict[str, str]]:
        path = course / name
        if not path.is_file():
            return []
        with path.open(newline="", encoding="utf-8") as lines:
            return list(csv.DictReader(lines))

    problems: dict[str, list[Problem]] = {}
    ungraded = set()
    for row in rows("problems.csv"):
        problems.setdefault(row["student_id"], []).append(problem_of(row))
        if row["graded"] == "no":
            ungraded.add(row["student_id"])
    return [Grade(row["student_id"],
                  {k: float(v) for k, v in row.items() if k not in ("student_id", "total")},
                  tuple(problems.get(row["student_id"], ())), row["student_id"] not in ungraded)
            for row in rows("grades.csv")]


def table(grades: list[Grade], lectures: list[str]) -> str:
    width = max([10, *(len(g.student) for g in grades)])
    lines = [f"{'student':{width}}  " + "  ".join(f"{k:>5}" for k in lectures) + "  total  problem"]
    for g in grades:
        cells = "  ".join(f"{g.scores.get(k, 0.0):5.2f}" for k in lectures)
        lines.append(f"{g.student:{width}}  {cells}  {g.total:5.2f}  {g.problem}".rstrip())
    return "\n".join(lines)


if __name__ == "__main__":  # python -m autograder.grading.grade SUBMISSIONS [--course DIR] ...
    from autograder.cli import main

    sys.exit(main(["grade", *sys.argv[1:]]))
