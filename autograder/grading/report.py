"""The class report: what a graded class struggles with, on one HTML page.

`write_report` reads the course's gradebook (the students of the last `nano-course grade`, as
listed in grades.csv) and writes `COURSE/report.html`: the distribution of each lecture's
scores and of the total, and the failure rate of every graded behaviour, as plots (matplotlib,
Agg, embedded as PNG data URIs, each one screen at most: one small panel per lecture) and as a
table that says each behaviour in words (feedback.described) and lists, a click away, the
students who lost points on it with a link to their feedback page; plus the hand-ins that could
not be graded, and what the last run left without a grade (entries of the hand-ins not placed,
students of the roster with no grade: `left_out_section`). A student who lost points on a
behaviour either got it wrong or did not attempt it (its function still the stub, its question
unanswered: feedback.Behaviour.not_attempted); the plot and the table show the two apart.
"""

import base64
import html
import io
import re
import statistics
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from autograder.authoring import notebooks, release
from autograder.course import Course

LECTURE_COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#9c755f"]


@dataclass(frozen=True)
class ClassResults:
    """Everything the report shows, read from the course."""

    students: list[str]  # graded, in grades.csv order
    lectures: dict[str, str]  # notebook name -> "01"
    titles: dict[str, str]  # "01" -> "Lecture 01: The shape of an agent"
    points: dict[str, float]  # "01" -> the lecture's points
    scores: dict[str, dict[str, float]]  # student -> "01" -> points
    cells: list[tuple[str, str, float]]  # (lecture, grade_id, points), in notebook order
    failed: dict[str, list[str]]  # grade_id -> the students who did not get its full points
    words: dict[str, str]  # grade_id -> the behaviour in words
    not_graded: list[tuple[str, str]]  # (entry, why)
    not_attempted: dict[str, list[str]] = field(default_factory=dict)  # grade_id -> those of `failed` who did not try

    def wrong(self, grade_id: str) -> list[str]:
        """The students who tried the behaviour and lost points on it."""
        untried = set(self.not_attempted.get(grade_id, ()))
        return [s for s in self.failed[grade_id] if s not in untried]


def read_results(course: Path) -> ClassResults:
    from nbgrader.api import MissingEntry

    from autograder.grading import feedback, gradebook, results

    facts = Course.at(course)
    release_dir = facts.release_dir
    lectures = facts.lectures
    titles, points, cells, words = {}, {}, [], {}
    for name, number in lectures.items():
        nb = notebooks.load(release_dir / f"{name}.ipynb")
        titles[number] = feedback.title_of(nb) or name
        words |= {grade_id: d.words for grade_id, d in feedback.described(nb).items()}
        cell_points = notebooks.points(nb)
        points[number] = round(sum(cell_points.values()), 3)
        cells += [(number, grade_id, p) for grade_id, p in cell_points.items()]

    graded = results.read_grades(course)
    listed = [g.student for g in graded]
    ungraded = {g.student: g.problem or "not graded" for g in graded if not g.graded}
    problems = {g.student: g.problems for g in graded}
    lost: list[tuple[str, str]] = []  # (student, notebook) with a behaviour that lost points

    scores: dict[str, dict[str, float]] = {}
    failed: dict[str, list[str]] = {grade_id: [] for _, grade_id, _ in cells}
    with gradebook.open_gradebook(gradebook.url(course)) as gb:
        if not listed:
            listed = sorted(s.student.id for s in gb.assignment_submissions(release.ASSIGNMENT))
        for student in listed:
            if student in ungraded:
                continue
            try:
                submission = gb.find_submission(release.ASSIGNMENT, student)
            except MissingEntry:
                continue
            scores[student] = {number: 0.0 for number in points}
            for nb in submission.notebooks:
                if nb.name not in lectures:
                    continue
                scores[student][lectures[nb.name]] = float(nb.score or 0.0)
                for g in nb.grades:
                    if g.name in failed and float(g.score or 0.0) < float(g.max_score) - 1e-9:
                        failed[g.name].append(student)
                        if not lost or lost[-1] != (student, nb.name):
                            lost.append((student, nb.name))
    not_attempted: dict[str, list[str]] = {grade_id: [] for grade_id in failed}
    for student, notebook in lost:  # what the student's feedback page says of each failure
        for b in feedback.behaviours(course, student, notebook) or []:
            if b.grade_id in failed and b.not_attempted(problems.get(student, ())):
                not_attempted[b.grade_id].append(student)
    not_graded = [(s, ungraded[s]) for s in listed if s in ungraded]
    return ClassResults([s for s in listed if s in scores], lectures, titles, points, scores,
                        cells, failed, words, not_graded, not_attempted)


def _png(fig) -> str:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def distribution_plot(results: ClassResults) -> str:
    """One histogram per lecture and one of the total, as a PNG data URI."""
    from matplotlib.figure import Figure

    numbers = sorted(results.points)
    panels = [*numbers, "total"]
    columns = 4
    rows = -(-len(panels) // columns)
    fig = Figure(figsize=(3.1 * columns, 2.4 * rows))
    for i, number in enumerate(panels):
        ax = fig.add_subplot(rows, columns, i + 1)
        if number == "total":
            values = [sum(s.values()) for s in results.scores.values()]
            top, title, colour = sum(results.points.values()), "total", "#555555"
        else:
            values = [s[number] for s in results.scores.values()]
            top, title = results.points[number], f"lecture {number}"
            colour = LECTURE_COLOURS[i % len(LECTURE_COLOURS)]
        bins = [top * k / 10 for k in range(11)]
        ax.hist(values, bins=bins, color=colour, edgecolor="white")
        ax.set_xlim(0, top)
        ax.set_title(f"{title} (out of {top:g})", fontsize=10)
        ax.set_xlabel("points", fontsize=8)
        ax.set_ylabel("students", fontsize=8)
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.tick_params(labelsize=8)
    fig.tight_layout()
    return _png(fig)


def failure_plot(results: ClassResults) -> str:
    """The failure rate of every graded behaviour: one panel per lecture, three panels a row, its
    behaviours in notebook order, so that some seventy bars fit one screen; each bar the students
    who got it wrong, then, paler, those who did not attempt it."""
    from matplotlib.figure import Figure

    n = max(len(results.scores), 1)
    numbers = sorted(results.points)
    columns = min(3, len(numbers))
    rows = -(-len(numbers) // columns)
    per = {number: [c for c in results.cells if c[0] == number] for number in numbers}
    tallest = [max(len(per[number]) for number in numbers[r * columns:(r + 1) * columns]) for r in range(rows)]
    fig = Figure(figsize=(4.2 * columns, sum(0.15 * t + 0.75 for t in tallest)))
    grid = fig.add_gridspec(rows, columns, height_ratios=tallest)
    for i, number in enumerate(numbers):
        ax = fig.add_subplot(grid[i // columns, i % columns])
        cells = per[number]
        labels = [re.sub(rf"^l{number}_", "", grade_id)[:30] for _, grade_id, _ in cells]
        wrong = [100 * len(results.wrong(grade_id)) / n for _, grade_id, _ in cells]
        untried = [100 * len(results.not_attempted.get(grade_id, ())) / n for _, grade_id, _ in cells]
        positions = [tallest[i // columns] - 1 - k for k in range(len(cells))]  # from the top down
        colour = LECTURE_COLOURS[i % len(LECTURE_COLOURS)]
        ax.barh(positions, wrong, color=colour, height=0.7, label="wrong")
        ax.barh(positions, untried, left=wrong, color=colour, alpha=0.3, height=0.7, label="not attempted")
        if i == 0:
            ax.legend(fontsize=6.5, loc="lower right", frameon=False)
        ax.set_yticks(positions, labels, fontsize=6.5)
        ax.set_ylim(-0.6, tallest[i // columns] - 0.4)
        ax.set_xlim(0, 100)
        ax.set_title(f"lecture {number}", fontsize=9, loc="left")
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", alpha=0.3)
        if i // columns == rows - 1:
            ax.set_xlabel("% of students who lost points", fontsize=7)
    fig.tight_layout(pad=0.6)
    return _png(fig)


def _who(results: ClassResults, number: str, failed: list[str]) -> str:
    """Students (who lost points on one behaviour), behind a click, each linked to the feedback
    page of that lecture."""
    if not failed:
        return "0"
    notebook = next(name for name, n in results.lectures.items() if n == number)
    links = ", ".join(
        f'<a href="feedback/{urllib.parse.quote(s)}/{urllib.parse.quote(notebook)}.html">{html.escape(s)}</a>'
        for s in failed)
    return f"<details><summary>{len(failed)}</summary>{links}</details>"


def left_out_section(course: Path) -> str:
    """The entries of the last run's hand-ins that became no student's, and the students of its
    roster with no grade, each with why (results.read_left_out), as a heading and a table; ""
    when it left nothing out."""
    from autograder.grading import results as run

    left = run.read_left_out(course)
    if not left:
        return ""
    esc = html.escape
    rows = "".join(f"<tr><td>{esc(one.kind)}</td><td>{esc(one.entry) or '&mdash;'}</td>"
                   f"<td>{esc(one.student + (f' ({one.name})' if one.name else '')) or '&mdash;'}</td>"
                   f"<td>{esc(one.why)}</td></tr>" for one in left)
    placed = sum(one.kind == run.NOT_PLACED for one in left)
    missing = len(left) - placed
    return (f"<h2 id=\"left-out\">Not placed, and students with no grade</h2>\n"
            f"<p>The last <code>nano-course grade</code> left {placed} entr{'ies' if placed != 1 else 'y'} of the "
            f"hand-ins not placed (no student's hand-in) and {missing} student{'s' * (missing != 1)} of its "
            "roster with no grade in grades.csv:</p>\n"
            "<table><caption>What the last grading left without a grade, and why</caption>\n"
            "<tr><th scope=\"col\">what</th><th scope=\"col\">entry of the hand-ins</th>"
            "<th scope=\"col\">student</th><th scope=\"col\">why</th></tr>\n" + rows + "</table>")


def write_report(course: Path) -> Path:
    """Write `course`/report.html; return its path."""
    from autograder.grading.autograde import quiet

    with quiet():
        results = read_results(course)
    if not results.scores:
        raise RuntimeError(f"no graded submissions in {course}: run nano-course grade SUBMISSIONS first")
    esc = html.escape
    n = len(results.scores)
    totals = [sum(s.values()) for s in results.scores.values()]
    out_of = sum(results.points.values())
    lecture_rows = []
    for number in sorted(results.points):
        values = [s[number] for s in results.scores.values()]
        full = sum(1 for v in values if v >= results.points[number] - 1e-9)
        lecture_rows.append(
            f"<tr><td>{esc(results.titles[number])}</td><td class=num>{results.points[number]:g}</td>"
            f"<td class=num>{statistics.mean(values):.2f}</td>"
            f"<td class=num>{statistics.median(values):.2f}</td>"
            f"<td class=num>{full} of {n}</td></tr>")
    order = {c[1]: i for i, c in enumerate(results.cells)}
    hardest = sorted(results.cells, key=lambda c: (-len(results.wrong(c[1])), -len(results.failed[c[1]]), order[c[1]]))
    behaviour_rows = [
        f"<tr><td>{esc(number)}</td><td>{esc(results.words.get(grade_id, grade_id))}<br>"
        f"<code>{esc(grade_id)}</code></td><td class=num>{p:g}</td>"
        f"<td class=num>{_who(results, number, results.wrong(grade_id))}</td>"
        f"<td class=num>{_who(results, number, results.not_attempted.get(grade_id, []))}</td>"
        f"<td class=num>{100 * len(results.failed[grade_id]) / n:.0f}%</td></tr>"
        for number, grade_id, p in hardest]
    ungraded = ""
    if results.not_graded:
        ungraded = ("<h2>Not graded</h2><p>These hand-ins could not be graded (no grade in grades.csv) "
                    "and are left out of the numbers above:</p><ul>"
                    + "".join(f"<li><b>{esc(s)}</b>: {esc(why)}</li>" for s, why in results.not_graded)
                    + "</ul>")
    ungraded += left_out_section(course)
    body = f"""<h1>nano: class report</h1>
<p>{n} graded student{'s' * (n != 1)}; total out of {out_of:g}: mean {statistics.mean(totals):.2f},
median {statistics.median(totals):.2f}, lowest {min(totals):g}, highest {max(totals):g}.
Each student's own pages are in <code>feedback/&lt;student_id&gt;/index.html</code>.</p>
<h2>Scores per lecture</h2>
<img alt="histograms of the scores of each lecture and of the total" src="{distribution_plot(results)}">
<table><tr><th>lecture</th><th class=num>points</th><th class=num>mean</th><th class=num>median</th>
<th class=num>full points</th></tr>
{''.join(lecture_rows)}</table>
<h2>What the class struggles with</h2>
<p>Each bar is one graded behaviour (its nbgrader grade_id, without the lecture's prefix), in
the order the lecture teaches them; its length is the share of students who lost points on it:
first those who got it <b>wrong</b> (they wrote the function or answered the question), then,
paler, those who have <b>not attempted</b> it (the function is still the stub that raises
NotImplementedError, or the question is unanswered). The table says each behaviour in words, the
most often wrong first; click a count for the students, each linked to their feedback page.</p>
<img alt="failure rate of each graded behaviour, one panel per lecture" src="{failure_plot(results)}">
<table><tr><th>lecture</th><th>behaviour</th><th class=num>points</th><th class=num>wrong</th>
<th class=num>not attempted</th><th class=num>lost points</th></tr>
{''.join(behaviour_rows)}</table>
{ungraded}"""
    page = course / "report.html"
    style = ("body{font-family:system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem;"
             "color:#1d1d1f}table{border-collapse:collapse;margin:1rem 0}th,td{text-align:left;"
             "padding:.3rem .6rem;border-bottom:1px solid #ddd}.num{text-align:right}"
             "img{max-width:100%}code{font-size:.8em;color:#6e6e73}td{vertical-align:top}"
             "summary{cursor:pointer}details a{margin-right:.3rem}")
    page.write_text(f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    f"<title>nano: class report</title><style>{style}</style></head>\n<body>\n"
                    f"{body}\n</body></html>\n", encoding="utf-8")
    return page
