"""Feedback a student can read: which graded behaviours passed, which failed, and why.

`write_student` writes `COURSE/feedback/<student>/index.html` (the lectures, their scores and
what went wrong with the hand-in) and one page per lecture (each graded behaviour, its points,
and for a failure the message of the failing check, which names the section to reread). The
pages are built from the gradebook, the outputs of the autograded notebooks and the independent
check's verdict (a pass it did not confirm scores 0, and the page says so), never from
nbgrader's generate_feedback, which would show the hidden tests (nbgrader issue #917): no
cell source and no traceback reaches them. Everything a student controls is escaped.
"""

import functools
import html
import shutil
from dataclasses import dataclass
from pathlib import Path

from autograder import notebooks, release, verify

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #1d1d1f; line-height: 1.45; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
.pass { color: #176b2c; font-weight: 600; } .fail { color: #a4161a; font-weight: 600; }
.partial { color: #8a5a00; font-weight: 600; }
code, .msg { font-family: ui-monospace, monospace; font-size: .9em; }
.msg { white-space: pre-wrap; color: #444; }
.problems { background: #fff4e5; border-left: 4px solid #e69500; padding: .5rem 1rem; }
"""


@dataclass(frozen=True)
class Behaviour:
    """One graded test cell of one student's notebook."""

    grade_id: str
    points: float
    score: float | None  # None: never graded (the notebook was not)
    message: str  # why it failed; empty when it passed

    @property
    def status(self) -> str:
        if self.score is None or self.score <= 0:
            return "fail"
        return "pass" if self.score >= self.points - 1e-9 else "partial"


def title_of(nb) -> str:
    """The notebook's "# ..." heading, e.g. "Lecture 02: Tools that read"."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


def _course_notebook(path: Path):
    """A notebook of the course's own (release/, source/), read once for the whole class; not to
    be changed by the caller."""
    info = path.stat()
    return _read(path, info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=32)
def _read(path: Path, _mtime: int, _size: int):
    return notebooks.load(path)


def hidden_lines(course: Path, notebook: str) -> frozenset[str]:
    """The lines of `notebook`'s hidden tests (from the course's source), as a student's error
    message could quote them: student code shares the kernel with the tests and can read them
    from IPython's history, then raise them as an exception's message."""
    source = course / "source" / release.ASSIGNMENT / f"{notebook}.ipynb"
    if not source.is_file():
        return frozenset()
    found = set()
    for cell in _course_notebook(source).cells:
        for part in cell.source.split("### BEGIN HIDDEN TESTS")[1:]:
            part = part.split("### END HIDDEN TESTS")[0]
            found |= {line.strip() for line in part.splitlines() if len(line.strip()) >= 12}
    return frozenset(found)


def failure_message(cell, hidden: frozenset[str] = frozenset()) -> str:
    """What a failed test cell said, without its code: the error's type and message (an
    assert's message names the section to reread), or the first line it wrote to stderr.
    A message that quotes a line of `hidden` is withheld."""
    said = _failure_message(cell)
    if any(line in said for line in hidden):
        return "the error message quoted the hidden tests, so it is not shown"
    return said


def _failure_message(cell) -> str:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            name, value = output.get("ename", "Error"), str(output.get("evalue", "")).strip()
            if name == "AssertionError":
                return value or "a check failed (an assert without a message)"
            return f"{name}: {value}" if value else name
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            first = next((line for line in output.get("text", "").splitlines() if line.strip()), "")
            return ("the cell wrote to stderr, and a graded cell that does scores 0: "
                    + first.strip()[:300])
    return ""


def behaviours(course: Path, student: str, notebook: str) -> list[Behaviour] | None:
    """The graded behaviours of one lecture notebook for `student`, in notebook order;
    None if the student has no graded submission."""
    from nbgrader.api import MissingEntry

    from autograder import gradebook

    released = _course_notebook(course / "release" / release.ASSIGNMENT / f"{notebook}.ipynb")
    order = notebooks.points(released)
    with gradebook.open_gradebook(gradebook.url(course)) as gb:
        try:
            submitted = gb.find_submission_notebook(notebook, release.ASSIGNMENT, student)
        except MissingEntry:
            return None
        scores = {g.name: (g.auto_score if g.manual_score is None else g.manual_score)
                  for g in submitted.grades}
        points = {g.name: float(g.max_score) for g in submitted.grades}
    graded = course / "autograded" / student / release.ASSIGNMENT / f"{notebook}.ipynb"
    cells = {}
    if graded.is_file():
        cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in notebooks.load(graded).cells}
    hidden = hidden_lines(course, notebook)
    found = []
    for grade_id in [*order, *sorted(set(points) - set(order))]:
        if grade_id not in points:
            continue
        score = scores.get(grade_id)
        cell = cells.get(grade_id)
        message = ""
        if score is None or score < points[grade_id] - 1e-9:
            message = failure_message(cell, hidden) if cell is not None else ""
            message = message or ("not run: this notebook was not graded" if cell is None
                                  else "scored less than full points")
        found.append(Behaviour(grade_id, points[grade_id], None if score is None else float(score),
                               message))
    return found


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n"
            "</body></html>\n")


def _points(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def write_student(course: Path, grade) -> Path:
    """Write the feedback pages of one student (a grade.Grade); return the index page."""
    folder = course / "feedback" / grade.student
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    esc = html.escape
    lectures = sorted((course / "release" / release.ASSIGNMENT).glob("*.ipynb"))
    rows = []
    total_points = 0.0
    for released in lectures:
        number, name = released.stem[:2], released.stem
        title = title_of(_course_notebook(released)) or name
        found = behaviours(course, grade.student, name) if grade.graded else None
        points = sum(notebooks.points(_course_notebook(released)).values())
        total_points += points
        said = [p[4:] for p in grade.problems if p.startswith(f"{number}: ")]
        passed = sum(1 for b in found or [] if b.status == "pass")
        rows.append(f"<tr><td><a href=\"{esc(name)}.html\">{esc(title)}</a></td>"
                    f"<td class=\"num\">{grade.scores.get(number, 0.0):g} / {points:g}</td>"
                    f"<td class=\"num\">{passed} of {len(found or [])}</td></tr>")
        (folder / f"{name}.html").write_text(
            _lecture_page(grade, title, number, points, found, said), encoding="utf-8")
    problems = ""
    if grade.problems:
        problems = ("<div class=\"problems\"><p>What the grader found in your hand-in:</p><ul>"
                    + "".join(f"<li>{esc(p)}</li>" for p in grade.problems) + "</ul></div>")
    if not grade.graded:
        problems += "<p>Your hand-in could not be graded, so every lecture scores 0.</p>"
    body = (f"<h1>Feedback for {esc(grade.student)}</h1>\n"
            f"<p>Total: <b>{grade.total:g} / {total_points:g}</b> points.</p>\n{problems}\n"
            "<table><tr><th>lecture</th><th class=\"num\">points</th>"
            "<th class=\"num\">behaviours passed</th></tr>\n" + "\n".join(rows) + "</table>\n"
            + "<p>Each lecture's page lists its graded behaviours; a failed one says why, and "
              "which section of the lecture to reread.</p>")
    index = folder / "index.html"
    index.write_text(_page(f"Feedback: {grade.student}", body), encoding="utf-8")
    return index


def _lecture_page(grade, title: str, number: str, points: float, found, said: list[str]) -> str:
    esc = html.escape
    parts = [f"<p><a href=\"index.html\">&larr; all lectures</a></p>",
             f"<h1>{esc(title)}</h1>",
             f"<p>{esc(grade.student)}: <b>{grade.scores.get(number, 0.0):g} / {points:g}</b> points.</p>"]
    if said:
        parts.append("<div class=\"problems\"><ul>" + "".join(f"<li>{esc(s)}</li>" for s in said)
                     + "</ul></div>")
    if found is None:
        parts.append("<p>This lecture was not graded: see the problems on the "
                     "<a href=\"index.html\">first page</a>.</p>")
        return _page(f"{title}: {grade.student}", "\n".join(parts))
    rows = []
    unconfirmed = verify.unconfirmed_in(grade.problems)
    for b in found:
        if b.grade_id in unconfirmed:  # nbgrader's output shows a pass: say why it scores 0
            b = Behaviour(b.grade_id, b.points, b.score, verify.FEEDBACK)
        label = {"pass": "passed", "partial": "partly", "fail": "failed"}[b.status]
        rows.append(f"<tr><td><code>{esc(b.grade_id)}</code></td>"
                    f"<td class=\"num\">{_points(b.score)} / {b.points:g}</td>"
                    f"<td class=\"{b.status}\">{label}</td>"
                    f"<td class=\"msg\">{esc(b.message)}</td></tr>")
    parts.append("<table><tr><th>behaviour</th><th class=\"num\">points</th><th>result</th>"
                 "<th>why it failed</th></tr>\n" + "\n".join(rows) + "</table>")
    return _page(f"{title}: {grade.student}", "\n".join(parts))
