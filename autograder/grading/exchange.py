"""Feedback for students who handed in through nbgrader's exchange, where `nbgrader release_feedback` looks.

Students who `nbgrader submit` get their feedback with `nbgrader fetch_feedback`, which finds a
notebook's page in the exchange under a hash of the submission's secret (nbgrader's
`submission_secret.txt`, which `nbgrader collect` brings into `submitted/`) and the notebook's
name: only the student who submitted, who keeps the secret in their nbgrader cache, can
name their pages. `nbgrader release_feedback nano`, run in the course folder, puts there every
`COURSE/feedback/<student>/nano/<notebook>.html` beside that student's `timestamp.txt` and
`submission_secret.txt`.

`place_feedback` writes those files after grading: for each lecture, its page of our own
feedback (feedback.py, never nbgrader's generate_feedback, which shows the hidden tests) with
the student's overview below it, since a fetched feedback folder holds one page per notebook and
no index.
"""

import re
import shutil
from pathlib import Path

from autograder.authoring import release
from autograder.course import Course

SUBMISSION_FILES = ("timestamp.txt", "submission_secret.txt")  # what release_feedback reads
BODY = re.compile(r"<body[^>]*>(.*)</body>", re.DOTALL | re.IGNORECASE)
OVERVIEW = "all-lectures"


def place_feedback(course: Path, students: list[str], echo=print) -> list[str]:
    """Put the feedback of each of `students` who handed in through the exchange where
    `nbgrader release_feedback` takes it; return those students, and say what to run next."""
    placed = [s for s in students if _place(course, s)]
    if placed:
        echo(f"{len(placed)} of these students handed in through nbgrader's exchange: release their "
             f"feedback with `nbgrader release_feedback {release.ASSIGNMENT}` run in {course}, then each "
             f"fetches their own with `nbgrader fetch_feedback {release.ASSIGNMENT}`")
    return placed


def _place(course: Path, student: str) -> bool:
    submitted = course / "submitted" / student / release.ASSIGNMENT
    pages = course / "feedback" / student
    if not (pages / "index.html").is_file():
        return False
    if not all((submitted / name).is_file() for name in SUBMISSION_FILES):  # not from the exchange
        return False
    folder = pages / release.ASSIGNMENT
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    index = (pages / "index.html").read_text(encoding="utf-8")
    for name in Course.at(course).notebooks:
        page = pages / f"{name}.html"
        if page.is_file():
            (folder / page.name).write_text(with_overview(page.read_text(encoding="utf-8"), index),
                                            encoding="utf-8")
    for name in SUBMISSION_FILES:
        shutil.copyfile(submitted / name, folder / name)
    return True


def with_overview(lecture: str, index: str) -> str:
    """The lecture's page with the index page's body below it, its links to the index pointed
    there: the index's own links to the lecture pages work in a fetched folder, which has those
    pages under the same names."""
    found = BODY.search(index)
    lecture = lecture.replace('href="index.html"', f'href="#{OVERVIEW}"')
    end = lecture.lower().rfind("</body>")
    if found is None or end < 0:
        return lecture
    return (lecture[:end] + f'<hr>\n<section id="{OVERVIEW}">\n{found.group(1).strip()}\n</section>\n'
            + lecture[end:])
