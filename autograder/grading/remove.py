"""Taking a student out of a course: one who left, or a junk id an earlier run graded.

`remove` deletes everything the course holds under the id: the gradebook's student and
submission, the rows of grades.csv and problems.csv, and the folders and files grading wrote
for them (feedback/<id>/, logs/<id>.txt, checks/<id>.json, submitted/<id>/, autograded/<id>/).
Every id must be known to the course first; otherwise nothing at all is removed.
"""

from pathlib import Path

from autograder import lock, trees
from autograder.course import require
from autograder import gradebook
from autograder.grading import results

PLACES = ("feedback/{}", "logs/{}.txt", "checks/{}.json", "submitted/{}", "autograded/{}")


def remove(course: Path, students: list[str], echo=print) -> None:
    """Remove each of `students` from `course`, echoing one line per student of what went; a
    ValueError in one sentence, before anything is touched, for an id the course does not know
    (or one that is not a plain name); lock.Busy while another run works on the course."""
    course = course.resolve()
    require(course, built=False)
    for student in students:
        if not student or student in (".", "..") or "/" in student or "\0" in student:
            raise ValueError(f"{student!r} is not a student id: nothing removed")
    with lock.holding(course, "remove"):
        rows = results.read_grades(course)
        with gradebook.open_gradebook(gradebook.url(course)) as gb:
            enrolled = {s.id for s in gb.students}
        known = enrolled | {g.student for g in rows}
        unknown = [s for s in students if s not in known and not _files(course, s)]
        if unknown:
            raise ValueError(f"{', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not in {course} "
                             "(not in its gradebook, grades.csv or problems.csv, and no file of theirs): "
                             "nothing removed; grades.csv lists the ids")
        gone = set(students)
        if any(g.student in gone for g in rows):
            kept = [g for g in rows if g.student not in gone]
            numbers = [k for k in rows[0].scores]
            results.write_problems(kept, course / "problems.csv")
            results.write_csv(kept, numbers, course / "grades.csv")
        with gradebook.open_gradebook(gradebook.url(course)) as gb:
            for student in students:
                if student in enrolled:
                    gb.remove_student(student)
        for student in students:
            said = ["the gradebook"] if student in enrolled else []
            said += ["its row in grades.csv"] if any(g.student == student for g in rows) else []
            said += ["problems.csv's rows"] if any(g.student == student and g.problems for g in rows) else []
            for path in _files(course, student):
                said.append(str(path.relative_to(course)) + ("/" if path.is_dir() else ""))
                trees.remove(path)  # an autograded/ a hand-in's code may have left at any depth
            echo(f"removed {student} from {course}: {', '.join(said)}")


def _files(course: Path, student: str) -> list[Path]:
    """What grading wrote for `student` in `course` that is there."""
    found = [course / place.format(student) for place in PLACES]
    return [path for path in found if path.exists() or path.is_symlink()]

