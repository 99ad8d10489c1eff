"""The class report: what a graded class struggles with, on one HTML page.

`write_report` reads the course's gradebook (the students of the last `nano-course grade`, as
listed in grades.csv) and writes `COURSE/report.html`: the distribution of each lecture's
scores and of the total, and the failure rate of every graded behaviour, as plots (matplotlib,
Agg, embedded as PNG data URIs, each at most one screen and shown at its own size: the histograms,
then one chart per lecture whose bars are labelled by the behaviour's words) and as tables: the
histograms' counts, and every behaviour in words (outcomes.described) with, a click away, the
students who lost points on it, each linked to their feedback page; plus the hand-ins that could
not be graded, and what the last run left without a grade (entries of the hand-ins not placed,
students of the roster with no grade: `left_out_section`). A student who lost points on a
behaviour either got it wrong or did not attempt it (its function still the stub, its question
unanswered: outcomes.Behaviour.not_attempted); the charts show the two apart by pattern as well as by shade, with the percentages written out, and
each chart's alt text says what it shows and where its numbers are, so that none of it is told by
colour or by the picture alone.
"""

import base64
import bisect
import html
import io
import statistics
import textwrap
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

    from autograder import gradebook
    from autograder.grading import outcomes, results

    facts = Course.at(course)
    release_dir = facts.release_dir
    lectures = facts.lectures
    titles, points, cells, words = {}, {}, [], {}
    for name, number in lectures.items():
        nb = notebooks.load(release_dir / f"{name}.ipynb")
        titles[number] = outcomes.title_of(nb) or name
        words |= {grade_id: d.words for grade_id, d in outcomes.described(nb).items()}
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
        for b in outcomes.behaviours(course, student, notebook) or []:
            if b.grade_id in failed and b.not_attempted(problems.get(student, ())):
                not_attempted[b.grade_id].append(student)
    not_graded = [(s, ungraded[s]) for s in listed if s in ungraded]
    return ClassResults([s for s in listed if s in scores], lectures, titles, points, scores,
                        cells, failed, words, not_graded, not_attempted)


def _png(fig) -> str:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


DPI = 110
WIDTH = 8.4  # inches: about 930 pixels, under the page's 64rem, so a chart is shown at its own size
BINS = 10  # a histogram's bars: tenths of the lecture's points


def histogram(values: list[float], top: float) -> list[int]:
    """Students per tenth of `top` points, the last tenth closed (as matplotlib's hist counts)."""
    edges = [top * k / BINS for k in range(BINS + 1)]
    counts = [0] * BINS
    for value in values:
        counts[min(max(bisect.bisect_right(edges, value) - 1, 0), BINS - 1)] += 1
    return counts


def distributions(results: ClassResults) -> dict[str, tuple[float, list[int]]]:
    """"01".. and "total" -> (the points it is out of, `histogram` of the students' scores)."""
    found = {number: (results.points[number], histogram([s[number] for s in results.scores.values()],
                                                        results.points[number]))
             for number in sorted(results.points)}
    found["total"] = (sum(results.points.values()),
                      histogram([sum(s.values()) for s in results.scores.values()], sum(results.points.values())))
    return found


def distribution_plot(results: ClassResults) -> str:
    """One histogram per lecture and one of the total, as a PNG data URI (`distributions`' numbers)."""
    from matplotlib.figure import Figure

    panels = distributions(results)
    columns = 3
    rows = -(-len(panels) // columns)
    fig = Figure(figsize=(WIDTH, 2.7 * rows))
    for i, (number, (top, counts)) in enumerate(panels.items()):
        ax = fig.add_subplot(rows, columns, i + 1)
        colour = "#555555" if number == "total" else LECTURE_COLOURS[i % len(LECTURE_COLOURS)]
        ax.bar([top * k / BINS for k in range(BINS)], counts, width=top / BINS, align="edge",
               color=colour, edgecolor="white")
        ax.set_xlim(0, top)
        ax.set_title(f"{'total' if number == 'total' else 'lecture ' + number} (out of {top:g})", fontsize=12)
        ax.set_xlabel("points", fontsize=11)
        ax.set_ylabel("students", fontsize=11)
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.tick_params(labelsize=10)
    fig.tight_layout()
    return _png(fig)


LABEL = 42  # characters of a behaviour's words on one line of a chart's label


def _label(words: str) -> str:
    """A behaviour's words as a chart label: two lines at most, cut with an ellipsis past them."""
    lines = textwrap.wrap(words, LABEL)
    if len(lines) > 2:
        lines = [lines[0], textwrap.shorten(" ".join(lines[1:]), LABEL, placeholder=" …")]
    return "\n".join(lines)


def failure_plot(results: ClassResults, number: str) -> str:
    """The failure rate of each graded behaviour of lecture `number`, in notebook order, labelled
    by its words, as a PNG data URI: each bar the share of students who got it wrong (solid), then
    of those who did not attempt it (hatched, paler), its percentages written beside it."""
    from matplotlib.figure import Figure

    n = max(len(results.scores), 1)
    cells = [c for c in results.cells if c[0] == number]
    rows = max(len(cells), 1)
    colour = LECTURE_COLOURS[sorted(results.points).index(number) % len(LECTURE_COLOURS)]
    fig = Figure(figsize=(WIDTH, 0.4 * rows + 1.2))  # a row holds a label of two lines
    ax = fig.add_subplot()
    positions = [rows - 1 - k for k in range(len(cells))]  # from the top down
    wrong = [100 * len(results.wrong(grade_id)) / n for _, grade_id, _ in cells]
    untried = [100 * len(results.not_attempted.get(grade_id, ())) / n for _, grade_id, _ in cells]
    ax.barh(positions, wrong, color=colour, height=0.7, label="wrong")
    ax.barh(positions, untried, left=wrong, color=colour, alpha=0.35, hatch="//", edgecolor=colour,
            height=0.7, label="not attempted")
    for y, w, u in zip(positions, wrong, untried):
        said = f"{w:.0f}% wrong" + (f", {u:.0f}% not attempted" if u else "")
        ax.text(min(w + u, 100) + 1, y, said, va="center", fontsize=9.5)
    ax.set_yticks(positions, [_label(results.words.get(grade_id, grade_id)) for _, grade_id, _ in cells],
                  fontsize=10)
    ax.set_ylim(-0.6, rows - 0.4)
    ax.set_xlim(0, 130)  # room for the percentages past a full bar
    ax.set_xticks(range(0, 101, 20))
    ax.tick_params(axis="x", labelsize=10)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("% of students who lost points", fontsize=11)
    ax.set_title(results.titles.get(number, f"lecture {number}"), fontsize=12, loc="left")
    ax.legend(fontsize=10, loc="lower right", frameon=False)
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
    return (f"<details><summary>{len(failed)}<span class=sr-only> students: who</span></summary>"
            f"{links}</details>")


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
    tenths = "".join(f"<th class=num scope=col>{10 * k}&ndash;{10 * k + 10}%</th>" for k in range(BINS))
    histogram_rows = [
        f"<tr><th scope=row>{'total' if number == 'total' else 'lecture ' + esc(number)} "
        f"<span class=out>(of {top:g})</span></th>" + "".join(f"<td class=num>{c}</td>" for c in counts) + "</tr>"
        for number, (top, counts) in distributions(results).items()]
    charts = "\n".join(
        f"<img alt=\"{esc(results.titles.get(number, 'lecture ' + number))}: the share of students who lost "
        f"points on each of its {sum(1 for c in results.cells if c[0] == number)} graded behaviours, "
        f"wrong and not attempted; the numbers are in the table below\" src=\"{failure_plot(results, number)}\">"
        for number in sorted(results.points))
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
<img alt="Histograms of the scores of each lecture and of the total; the numbers are in the second table below" src="{distribution_plot(results)}">
<table><caption>Each lecture's scores</caption><tr><th>lecture</th><th class=num>points</th><th class=num>mean</th><th class=num>median</th>
<th class=num>full points</th></tr>
{''.join(lecture_rows)}</table>
<table><caption>The histograms' numbers: students per tenth of each lecture's points</caption>
<tr><th scope=col>scores</th>{tenths}</tr>
{''.join(histogram_rows)}</table>
<h2>What the class struggles with</h2>
<p>One chart per lecture; each bar is one graded behaviour, in the order the lecture teaches
them, and its length is the share of students who lost points on it: first those who got it
<b>wrong</b> (solid: they wrote the function or answered the question), then those who have
<b>not attempted</b> it (hatched and paler: the function is still the stub that raises
NotImplementedError, or the question is unanswered), both percentages written beside the bar. The
table after the charts holds the same numbers, the most often wrong first; click a count for the
students, each linked to their feedback page.</p>
{charts}
<table><caption>Every graded behaviour, the most often wrong first</caption><tr><th>lecture</th><th>behaviour</th><th class=num>points</th><th class=num>wrong</th>
<th class=num>not attempted</th><th class=num>lost points</th></tr>
{''.join(behaviour_rows)}</table>
{ungraded}"""
    page = course / "report.html"
    style = ("body{font-family:system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem;"
             "color:#1d1d1f}table{border-collapse:collapse;margin:1rem 0}th,td{text-align:left;"
             "padding:.3rem .6rem;border-bottom:1px solid #ddd}.num{text-align:right}"
             "img{max-width:100%}code{font-size:.8em;color:#6e6e73}td{vertical-align:top}"
             "summary{cursor:pointer}details a{margin-right:.3rem}caption{text-align:left;"
             "font-weight:600;padding:.3rem 0}.out{font-weight:normal;color:#555}th[scope=row]{white-space:nowrap}"
             ".sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}"
             "a:focus-visible,summary:focus-visible{outline:3px solid #1a5fb4;outline-offset:2px}")
    page.write_text(f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    f"<title>nano: class report</title><style>{style}</style></head>\n<body>\n"
                    f"{body}\n</body></html>\n", encoding="utf-8")
    return page
