"""Feedback a student can read: which graded behaviours passed, which failed, why, and what to reread.

`write_student` writes `COURSE/feedback/<student>/index.html` (the lectures, their scores and
what went wrong with the hand-in) and one page per lecture: each graded behaviour in words, its
points, its result in words and a symbol (never by colour alone), and for a failure what went
wrong and the section of the lecture to reread, as outcomes.py reads them; where a nano/*.py was
graded as its stub (missing, or it does not parse: the problem's `file`), each behaviour that met
the stub says that instead, with the line. The pages are built from the gradebook, the
independent check's record and the outputs of the autograded notebooks, never from nbgrader's
generate_feedback, which shows the hidden tests (nbgrader issue #917): no cell source and no
traceback reaches them, and what came from student code passes leaks.sanitise. Everything a
student controls is escaped. The pages meet WCAG 2.1 AA as axe-core checks it (tests/project/
test_feedback.py): a heading per page, table headers, contrast, a focus ring.
"""

import html
import re
import shutil
from dataclasses import replace
from pathlib import Path

from autograder.authoring import notebooks
from autograder.course import Course
from autograder.grading.leaks import course_notebook
from autograder.grading.outcomes import behaviours, title_of

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 64rem; margin: 2rem auto; padding: 0 1rem;
       color: #1d1d1f; line-height: 1.45; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
.pass { color: #176b2c; font-weight: 600; } .fail { color: #a4161a; font-weight: 600; }
.pending { color: #5a4a8a; font-weight: 600; }
.partial { color: #8a5a00; font-weight: 600; }
code, .msg { font-family: ui-monospace, monospace; font-size: .9em; }
.id { color: #6e6e73; font-size: .8em; }
.msg { white-space: pre-wrap; color: #444; }
.reread { font-family: system-ui, sans-serif; color: #1d1d1f; margin-top: .3rem; }
.problems { background: #fff4e5; border-left: 4px solid #e69500; padding: .5rem 1rem; }
a:focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
"""


# A result is said in words, and shown by a symbol as well as a colour, for a glance.
SYMBOLS = {"pass": "✓", "partial": "◐", "fail": "✗", "pending": "…", "untried": "○"}


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n"
            "</body></html>\n")


def _points(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _out_of(grade, points: float, of: float, sentence: bool = False) -> str:
    """Points out of `of` as a page shows them, "3 / 10" (in a sentence: "<b>3 / 10</b> points");
    a hand-in that could not be graded has no grade, which is not 0: "no grade (of 10)"."""
    if sentence:
        return f"<b>{points:g} / {of:g}</b> points" if grade.graded else f"<b>no grade</b> (out of {of:g} points)"
    return f"{points:g} / {of:g}" if grade.graded else f"no grade (of {of:g})"


def _section_number(section: str) -> str:
    match = re.match(r"section (\d+)", section)
    return match.group(1) if match else ""


def write_student(course: Path, grade) -> Path:
    """Write the feedback pages of one student (a results.Grade); return the index page. The
    pages are written aside and put in place of the old ones at once: a stop meanwhile leaves
    the old pages whole."""
    final = course / "feedback" / grade.student
    folder = final.with_name(f".{grade.student}.new")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    esc = html.escape
    facts = Course.at(course)
    stubs = {p.file: p for p in grade.problems if p.file}  # nano/*.py missing or unparsable: graded as stubs
    rows = []
    total_points = 0.0
    for name, number in facts.lectures.items():
        released = facts.release_dir / f"{name}.ipynb"
        title = title_of(course_notebook(released)) or name
        found = behaviours(course, grade.student, name) if grade.graded else None
        if found is not None:  # a file graded as its stub: each of its behaviours says why
            found = [replace(b, message=stubs[b.stub].message) if b.stub in stubs else b for b in found]
        points = sum(notebooks.points(course_notebook(released)).values())
        total_points += points
        said = [p.message for p in grade.about(number)]
        passed = sum(1 for b in found or [] if b.status == "pass")
        untried = sum(1 for b in found or [] if b.not_attempted(grade.problems))
        reread = sorted({_section_number(b.section) for b in found or []
                         if b.status not in ("pass", "pending") and b.section}, key=int)
        tally = ("not graded" if found is None else f"{passed} of {len(found)}"
                 + (f" ({untried} not attempted yet)" if untried else ""))
        rows.append(f"<tr><td><a href=\"{esc(name)}.html\">{esc(title)}</a></td>"
                    f"<td class=\"num\">{_out_of(grade, grade.scores.get(number, 0.0), points)}</td>"
                    f"<td class=\"num\">{tally}</td>"
                    f"<td>{esc(', '.join(reread))}</td></tr>")
        (folder / f"{name}.html").write_text(
            _lecture_page(grade, title, number, points, found, said), encoding="utf-8")
    problems = ""
    if grade.problems:
        problems = ("<div class=\"problems\"><p>What the grader found in your hand-in:</p><ul>"
                    + "".join(f"<li>{esc(str(p))}</li>" for p in grade.problems) + "</ul></div>")
    if not grade.graded:
        problems += ("<p>Your hand-in could not be graded, so it has no grade yet. Do what the note above "
                     "says and hand it in again; it is graded then.</p>")
    body = (f"<h1>Feedback for {esc(grade.student)}</h1>\n"
            f"<p>Total: {_out_of(grade, grade.total, total_points, sentence=True)}.</p>\n{problems}\n"
            "<table><tr><th>lecture</th><th class=\"num\">points</th>"
            "<th class=\"num\">behaviours passed</th><th>sections to reread</th></tr>\n"
            + "\n".join(rows) + "</table>\n"
            + "<p>Each lecture's page lists its graded behaviours; a failed one says what went "
              "wrong, and which section of the lecture to reread.</p>")
    (folder / "index.html").write_text(_page(f"Feedback: {grade.student}", body), encoding="utf-8")
    old = final.with_name(f".{grade.student}.old")
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    folder.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    return final / "index.html"


def _lecture_page(grade, title: str, number: str, points: float, found, said: list[str]) -> str:
    esc = html.escape
    parts = ["<p><a href=\"index.html\">&larr; all lectures</a></p>",
             f"<h1>{esc(title)}</h1>",
             f"<p>{esc(grade.student)}: {_out_of(grade, grade.scores.get(number, 0.0), points, sentence=True)}.</p>"]
    if said:
        parts.append("<div class=\"problems\"><ul>" + "".join(f"<li>{esc(s)}</li>" for s in said)
                     + "</ul></div>")
    if found is None:
        parts.append("<p>This lecture was not graded: see the problems on the "
                     "<a href=\"index.html\">first page</a>.</p>")
        return _page(f"{title}: {grade.student}", "\n".join(parts))
    rows = []
    for b in found:
        message = b.message
        label = ({"pass": "passed", "partial": "partly", "fail": "failed", "pending": "pending"}[b.status]
                 if not b.not_attempted(grade.problems) else "not answered" if b.unanswered else "not written")
        mark = SYMBOLS["untried" if b.not_attempted(grade.problems) else b.status]
        why = ""
        if b.status == "pending":
            why = esc(message)
        elif b.status != "pass":
            reread = (f"Reread {b.section}." if b.section
                      else "Reread the part of the lecture this check follows.")
            why = f"{esc(message)}<div class=\"reread\">{esc(reread)}</div>"
        rows.append(f"<tr><td>{esc(b.words)}<br><code class=\"id\">{esc(b.grade_id)}</code></td>"
                    f"<td class=\"num\">{_points(b.score)} / {b.points:g}</td>"
                    f"<td class=\"{b.status}\"><span aria-hidden=\"true\">{mark} </span>{label}</td>"
                    f"<td class=\"msg\">{why}</td></tr>")
    parts.append("<table><tr><th>behaviour</th><th class=\"num\">points</th><th>result</th>"
                 "<th>what went wrong</th></tr>\n" + "\n".join(rows) + "</table>")
    return _page(f"{title}: {grade.student}", "\n".join(parts))
