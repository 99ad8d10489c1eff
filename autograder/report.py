"""The class report: what a graded class struggles with, on one HTML page.

`write_report` reads the course's gradebook (the students of the last `nano-course grade`, as
listed in grades.csv) and writes `COURSE/report.html`: the distribution of each lecture's
scores and of the total, and the failure rate of every graded behaviour (grade_id), as plots
(matplotlib, Agg, embedded as PNG data URIs) and as tables, plus the hand-ins that could not
be graded.
"""

import base64
import html
import io
import statistics
from dataclasses import dataclass
from pathlib import Path

from autograder import notebooks, release

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
    failed: dict[str, int]  # grade_id -> students who did not get its full points
    not_graded: list[tuple[str, str]]  # (entry, why)


def read_results(course: Path) -> ClassResults:
    from nbgrader.api import MissingEntry

    from autograder import feedback, grade, gradebook

    release_dir = course / "release" / release.ASSIGNMENT
    lectures = grade.lectures_of(course)
    titles, points, cells = {}, {}, []
    for name, number in lectures.items():
        nb = notebooks.load(release_dir / f"{name}.ipynb")
        titles[number] = feedback.title_of(nb) or name
        cell_points = notebooks.points(nb)
        points[number] = round(sum(cell_points.values()), 3)
        cells += [(number, grade_id, p) for grade_id, p in cell_points.items()]

    graded = grade.read_grades(course)
    listed = [g.student for g in graded]
    ungraded = {g.student: g.problem or "not graded" for g in graded if not g.graded}

    scores: dict[str, dict[str, float]] = {}
    failed = {grade_id: 0 for _, grade_id, _ in cells}
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
                        failed[g.name] += 1
    not_graded = [(s, ungraded[s]) for s in listed if s in ungraded]
    return ClassResults([s for s in listed if s in scores], lectures, titles, points, scores,
                        cells, failed, not_graded)


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
    """The failure rate of every graded behaviour, in notebook order, coloured by lecture."""
    from matplotlib.figure import Figure

    n = max(len(results.scores), 1)
    numbers = sorted(results.points)
    labels = [grade_id for _, grade_id, _ in results.cells]
    rates = [100 * results.failed[grade_id] / n for grade_id in labels]
    colours = [LECTURE_COLOURS[numbers.index(number) % len(LECTURE_COLOURS)]
               for number, _, _ in results.cells]
    fig = Figure(figsize=(9, 0.22 * len(labels) + 1.2))
    ax = fig.add_subplot(1, 1, 1)
    positions = list(range(len(labels)))[::-1]
    ax.barh(positions, rates, color=colours)
    ax.set_yticks(positions, labels, fontsize=7)
    ax.set_ylim(-0.6, len(labels) - 0.4)
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"% of the {len(results.scores)} graded students who lost points on it", fontsize=9)
    ax.set_title("failure rate of each graded behaviour", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return _png(fig)


def write_report(course: Path) -> Path:
    """Write `course`/report.html; return its path."""
    from autograder.worker import quiet

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
    hardest = sorted(results.cells, key=lambda c: (-results.failed[c[1]], c[0], c[1]))
    behaviour_rows = [
        f"<tr><td>{esc(number)}</td><td><code>{esc(grade_id)}</code></td><td class=num>{p:g}</td>"
        f"<td class=num>{results.failed[grade_id]}</td>"
        f"<td class=num>{100 * results.failed[grade_id] / n:.0f}%</td></tr>"
        for number, grade_id, p in hardest]
    ungraded = ""
    if results.not_graded:
        ungraded = ("<h2>Not graded</h2><p>These hand-ins could not be graded (0 points in grades.csv) "
                    "and are left out of the numbers above:</p><ul>"
                    + "".join(f"<li><b>{esc(s)}</b>: {esc(why)}</li>" for s, why in results.not_graded)
                    + "</ul>")
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
<p>Each bar is one graded behaviour (an nbgrader grade_id), in the order the lectures teach
them; its length is the share of students who lost points on it.</p>
<img alt="failure rate of each graded behaviour" src="{failure_plot(results)}">
<table><tr><th>lecture</th><th>behaviour</th><th class=num>points</th><th class=num>students who lost points</th>
<th class=num>rate</th></tr>
{''.join(behaviour_rows)}</table>
{ungraded}"""
    page = course / "report.html"
    style = ("body{font-family:system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem;"
             "color:#1d1d1f}table{border-collapse:collapse;margin:1rem 0}th,td{text-align:left;"
             "padding:.3rem .6rem;border-bottom:1px solid #ddd}.num{text-align:right}"
             "img{max-width:100%}code{font-size:.9em}")
    page.write_text(f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    f"<title>nano: class report</title><style>{style}</style></head>\n<body>\n"
                    f"{body}\n</body></html>\n", encoding="utf-8")
    return page
