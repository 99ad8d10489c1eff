"""A graded cell's hidden tests when stock nbgrader runs the notebook (not `nano-course grade`).

The hidden part nbgrader restores into each graded cell is one call, `hidden_tests(grade_id,
globals())` (behaviour.hidden_part). `nano-course grade` strips that part before the kernel
sees it and runs the cell's behaviours itself, outside the kernel (independent.py). Under stock
`nbgrader autograde`, or `nano-course check`, the call runs here, in the kernel: the same
behaviours, driven through a subject process of their own (driver.py, not sandboxed: stock
nbgrader runs student code with the instructor's permissions anyway), judged by the same
judges, on the inputs the same seed gives (the course's grading seed, the student, the
hand-in's digest, the behaviour), so stock nbgrader and `nano-course grade` agree on every cell.

The answer cells' values are taken from the kernel's namespace, where the student's cells ran.
"""

from pathlib import Path

from autograder.check import behaviour, independent
from autograder.check.driver import Subject
from autograder.course import SEED_FILE

_subject: Subject | None = None  # one per kernel, started at the first graded cell


def whereabouts(folder: Path) -> tuple[str, str, str]:
    """(the course's grading seed, the student, the hand-in's digest) for a kernel running in
    `folder`: nbgrader's autograde runs it in COURSE/autograded/STUDENT/ASSIGNMENT, and the
    digest is of COURSE/submitted/STUDENT/ASSIGNMENT, read as `nano-course grade` reads it;
    elsewhere (an author's run) a fixed seed, no student and no digest."""
    folder = folder.resolve()
    if len(folder.parents) >= 3 and folder.parents[1].name == "autograded":
        course = folder.parents[2]
        if (course / SEED_FILE).is_file():
            submitted = course / "submitted" / folder.parent.name / folder.name
            return ((course / SEED_FILE).read_text(encoding="utf-8").strip(), folder.parent.name,
                    behaviour.digest(*independent.student_files(submitted)))
    return "notebook", "", ""


def hidden_tests(grade_id: str, namespace: dict) -> None:
    """Run the behaviours of `grade_id` on the nano/ beside this kernel; an AssertionError with
    the judge's message if one fails (so that nbgrader fails the cell), or one saying it was the
    grader's error, which awards nothing here too."""
    global _subject
    seed, student, hand_in = whereabouts(Path.cwd())
    if _subject is None:
        _subject = Subject(Path.cwd(), unsafe=True, nice=0)
    _subject.values = lambda names: {name: _answer(namespace, name) for name in names}
    items = independent.keyed(behaviour.by_grade_id(grade_id))
    for key, b in items:
        inputs = b.inputs(behaviour.rng_for(seed, student, key, hand_in))
        verdict = independent.one(_subject, b, key, inputs, b.timeout or independent.TIMEOUT).verdict
        if verdict.state == independent.HELD:
            raise AssertionError(f"grader error, not the student's doing: {verdict.detail}")
        if verdict.state != independent.PASSED:
            raise AssertionError(verdict.message)


def _answer(namespace: dict, name: str):
    value = namespace.get(name, {"missing": True})
    return value if value is None or type(value) in (int, float, str, bool, dict, list) else repr(value)
