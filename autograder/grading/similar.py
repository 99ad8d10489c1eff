"""Similarity across a class: which hand-ins share their nano/*.py, for the instructor to look into.

`compare` reads what each student wrote in the six nano/*.py (`written`: the statements the
release's file does not hold as they are; the hand-ins taken in as `grade` takes them,
intake.py) and compares every pair of students file by file with copydetect (PyPI), which
fingerprints the code's tokens by winnowing: names, strings, comments and layout do not count,
so renamed variables and functions in another order still match. Every fingerprint of the
release's own file (the given code and the stubs, which every hand-in holds) is taken out as
boilerplate too, so a student who wrote nothing matches no one. `write` ranks the pairs by
the share of the smaller hand-in's code that the other's matches and writes `report.html` (the
ranking, then each flagged pair's matching lines side by side) and `pairs.csv`.

Short functions every honest student writes alike (warmup, write_file: a line or four) make
a share of about a third at most, and a fragment shorter than NOISE tokens is never a match;
a pair is flagged at FLAG. Similar is not copied: the report is where to start looking.
Why copydetect and not Dolos, measured on the same class: docs/commands.md#similar.
"""

import ast
import csv
import html
import io
import itertools
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder.authoring import release
from autograder.course import Course
from autograder.grading import intake

NOISE = 40  # tokens: a matching fragment shorter than this is never a match (copydetect's noise_t)
# and every fragment that long is found: copydetect's guarantee_t equal to noise_t keeps every
# fingerprint (a window of 1). A larger one would winnow by Python's hash of each fragment,
# which changes from one process to the next: the same class would rank differently each run.
GUARANTEE = NOISE
FLAG = 0.6  # the share of the smaller hand-in's code matched at which a pair is flagged
CONTEXT = 4  # lines shown around each matching fragment
SHOWN = 50  # flagged pairs whose code the report shows side by side, the most alike first
FOLDER = "similar"  # COURSE/similar/report.html and pairs.csv


@dataclass(frozen=True)
class Match:
    """The matching code of one file of two students: the fragments of each, as character slices."""

    file: str  # "nano/tools.py"
    tokens: int  # matching tokens
    left: tuple[str, tuple[tuple[int, int], ...]]  # (the first student's code, its matching slices)
    right: tuple[str, tuple[tuple[int, int], ...]]


@dataclass(frozen=True)
class Pair:
    """Two students and how much of their code matches."""

    a: str
    b: str
    share_a: float  # of a's code (its tokens outside the release's), the share that matches b's
    share_b: float
    tokens: int  # matching tokens in all
    matches: tuple[Match, ...] = field(default=(), compare=False)

    @property
    def share(self) -> float:
        """The share of the smaller hand-in's code that matches: what the ranking and FLAG go by."""
        return max(self.share_a, self.share_b)

    @property
    def flagged(self) -> bool:
        return self.share >= FLAG


@dataclass(frozen=True)
class Comparison:
    """A class compared: its pairs, most alike first, the hand-ins left out and why, the time taken."""

    students: tuple[str, ...]
    pairs: tuple[Pair, ...]
    left_out: tuple[tuple[str, str], ...]  # (student or entry, why)
    seconds: float


def compare(submissions: Path, course: Path, roster: Path | None = None) -> Comparison:
    """Every pair of the hand-ins in `submissions` (what `grade` takes: a folder, an LMS download
    with `roster`, or the course itself, whose submitted/ the last grade staged), compared
    against the release of `course`."""
    from copydetect import CodeFingerprint, compare_files

    start = time.perf_counter()
    given = Course.at(course).release_dir
    boilerplate = {name: sorted(CodeFingerprint(str(given / name), NOISE, 1).hashes) for name in release.STUDENT_FILES}
    window = GUARANTEE - NOISE + 1
    prints: dict[str, dict[str, object]] = {}
    left_out: list[tuple[str, str]] = []
    refused: list = []
    with intake.opened(submissions, refused) as folder, tempfile.TemporaryDirectory(prefix="nano-similar-") as tmp:
        hand_ins, _, unplaced = intake.class_in(folder, roster, shown=submissions, refused=refused)
        left_out += [(u.entry, u.why) for u in unplaced]
        for hand_in in hand_ins:
            if hand_in.problem:
                left_out.append((hand_in.student, hand_in.problem))
                continue
            work = Path(tmp, hand_in.student, release.ASSIGNMENT)
            try:
                intake.stage(hand_in, work)
            except intake.IntakeError as exc:
                left_out.append((hand_in.student, str(exc)))
                continue
            try:
                prints[hand_in.student] = {
                    name: CodeFingerprint(name, NOISE, window, boilerplate[name], fp=io.StringIO(code))
                    for name in release.STUDENT_FILES if (work / name).is_file()
                    if (code := written(work / name, given / name))}
            except (MemoryError, RecursionError):  # the hand-in's, as grade finds it (grade.repair)
                left_out.append((hand_in.student, "a nano/*.py nested too deeply for Python to read"))
    pairs = []
    for a, b in itertools.combinations(sorted(prints, key=str.lower), 2):
        matches, tokens_a, tokens_b = [], 0, 0
        for name in release.STUDENT_FILES:
            if name not in prints[a] or name not in prints[b]:
                continue
            one, two = prints[a][name], prints[b][name]
            overlap, (_, share_b), (slices_a, slices_b) = compare_files(one, two)
            if not overlap:
                continue
            tokens_a += int(overlap)
            tokens_b += round(share_b * two.token_coverage)  # b's own count of its matching tokens
            matches.append(Match(name, int(overlap), (one.raw_code, _slices(slices_a)),
                                 (two.raw_code, _slices(slices_b))))
        pairs.append(Pair(a, b, _share(tokens_a, prints[a]), _share(tokens_b, prints[b]), tokens_a, tuple(matches)))
    pairs.sort(key=lambda p: (-p.share, -p.tokens, p.a, p.b))
    return Comparison(tuple(sorted(prints, key=str.lower)), tuple(pairs), tuple(left_out),
                      time.perf_counter() - start)


def written(path: Path, released: Path) -> str:
    """What the student wrote in the nano/*.py at `path`: each top-level statement the release's
    file (`released`) does not hold as it is, a function as its body without the docstring (its
    name in a comment, which does not count), in the file's order. The given code and the
    stubs left as they are make nothing: the hand-in's own code alone is fingerprinted, so no
    fragment of it runs on into the given code around it."""
    try:
        source = path.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):  # a file that does not parse is compared as it is
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    given = released.read_text(encoding="utf-8")
    given_parts = {ast.get_source_segment(given, node) for node in ast.parse(given).body}
    parts = []
    for node in tree.body:
        segment = ast.get_source_segment(source, node)
        if segment in given_parts:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if ast.get_docstring(node) is not None and len(node.body) > 1 else node.body
            lines = source.splitlines()[body[0].lineno - 1:body[-1].end_lineno]
            segment = f"# {node.name}\n" + textwrap.dedent("\n".join(lines))
        parts.append(segment)
    return "\n\n".join(parts) + "\n" if parts else ""


def _share(tokens: int, files: dict) -> float:
    own = sum(fp.token_coverage for fp in files.values())  # its tokens outside the release's code
    return round(float(min(tokens / own, 1.0)), 3) if own else 0.0


def _slices(slices) -> tuple[tuple[int, int], ...]:
    return tuple((int(begin), int(end)) for begin, end in zip(*slices))


def write(comparison: Comparison, out: Path) -> tuple[Path, Path]:
    """`out`/report.html and `out`/pairs.csv for `comparison`; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    table = out / "pairs.csv"
    with table.open("w", newline="", encoding="utf-8") as rows:
        writer = csv.writer(rows)
        writer.writerow(["student_a", "student_b", "share", "share_a", "share_b", "tokens", "flagged", "files"])
        for p in comparison.pairs:
            writer.writerow([p.a, p.b, f"{p.share:.3f}", f"{p.share_a:.3f}", f"{p.share_b:.3f}", p.tokens,
                             "yes" if p.flagged else "no", " ".join(m.file for m in p.matches)])
    page = out / "report.html"
    page.write_text(_page(comparison), encoding="utf-8")
    return page, table


def summary(comparison: Comparison, page: Path, table: Path) -> list[str]:
    """What `nano-course similar` prints: the flagged pairs, the hand-ins left out, the files."""
    n = len(comparison.students)
    flagged = [p for p in comparison.pairs if p.flagged]
    lines = [f"flagged: {p.a} and {p.b}: {p.share:.0%} of the smaller hand-in's code matches "
             f"({p.share_a:.0%} of {p.a}'s, {p.share_b:.0%} of {p.b}'s; {', '.join(m.file for m in p.matches)})"
             for p in flagged]
    lines += [f"not compared: {who}: {why}" for who, why in comparison.left_out]
    lines.append(f"compared {n} hand-in{'s' * (n != 1)} ({len(comparison.pairs)} pairs) in "
                 f"{comparison.seconds:.1f} s: {len(flagged)} pair{'s' * (len(flagged) != 1)} flagged "
                 f"({FLAG:.0%} or more of the smaller hand-in's code matches); wrote {page} and {table.name}")
    return lines


def _highlighted(code: str, slices: tuple[tuple[int, int], ...]) -> str:
    """`code` escaped, each matching slice in <mark>, and only the lines near one."""
    parts, last = [], 0
    for begin, end in slices:
        parts += [html.escape(code[last:begin]), "<mark>", html.escape(code[begin:end]), "</mark>"]
        last = end
    parts.append(html.escape(code[last:]))
    lines = "".join(parts).split("\n")
    near = set()
    depth = 0
    for number, line in enumerate(lines):
        inside = depth > 0 or "<mark>" in line
        depth += line.count("<mark>") - line.count("</mark>")
        if inside:
            near.update(range(number - CONTEXT, number + CONTEXT + 1))
    shown, gap = [], False
    for number, line in enumerate(lines):
        if number in near:
            shown.append(f"{number + 1:4}  {line}")
            gap = False
        elif not gap:
            shown.append("   ...")
            gap = True
    return "\n".join(shown)  # a line inside a mark is always near one: no mark is cut


def _page(comparison: Comparison) -> str:
    esc = html.escape
    rows = "".join(
        f"<tr><td>{i}</td><td>{esc(p.a)}</td><td>{esc(p.b)}</td><td class=num>{p.share:.0%}</td>"
        f"<td class=num>{p.share_a:.0%}</td><td class=num>{p.share_b:.0%}</td><td class=num>{p.tokens}</td>"
        + (f'<td><a href="#pair-{i}">flagged</a></td></tr>' if p.flagged and i <= SHOWN
           else "<td>flagged</td></tr>" if p.flagged else "<td>no</td></tr>")
        for i, p in enumerate(comparison.pairs, 1))
    sections = []
    for i, p in enumerate(comparison.pairs[:SHOWN], 1):
        if not p.flagged:
            continue
        files = "".join(
            f"<h3>{esc(m.file)}: {m.tokens} matching tokens</h3>\n<table class=code>"
            f"<tr><th scope=col>{esc(p.a)}</th><th scope=col>{esc(p.b)}</th></tr>"
            f"<tr><td><pre>{_highlighted(*m.left)}</pre></td><td><pre>{_highlighted(*m.right)}</pre></td></tr>"
            "</table>" for m in p.matches)
        sections.append(f"<h2 id=\"pair-{i}\">{i}. {esc(p.a)} and {esc(p.b)}: {p.share:.0%}</h2>\n"
                        f"<p>{p.share_a:.0%} of {esc(p.a)}'s code matches {esc(p.b)}'s, and {p.share_b:.0%} of "
                        f"{esc(p.b)}'s matches {esc(p.a)}'s. Each file shows what its student wrote in it (each "
                        "function's body under its name, in the file's order; the release's given code and "
                        "stubs left out, as they never count), the matching code marked.</p>\n" + files)
    left = ""
    if comparison.left_out:
        left = ("<h2>Not compared</h2><table><tr><th scope=col>hand-in</th><th scope=col>why</th></tr>"
                + "".join(f"<tr><td>{esc(who)}</td><td>{esc(why)}</td></tr>" for who, why in comparison.left_out)
                + "</table>")
    n = len(comparison.students)
    flagged = sum(p.flagged for p in comparison.pairs)
    body = f"""<h1>nano: similar hand-ins</h1>
<p>{n} hand-ins, {len(comparison.pairs)} pairs, compared file by file (the six <code>nano/*.py</code>
students write in) with copydetect: names, strings, comments and layout do not count, so renamed
variables and reordered functions still match; the release's own code is left out of every file
first. A pair is <b>flagged</b> when {FLAG:.0%} or more of the smaller hand-in's code matches the
other's ({flagged} here{f"; the code of the first {SHOWN} is shown below" if flagged > SHOWN else ""}); short
functions every honest student writes alike make about a third at most. Similar is not copied:
read the flagged pairs' code below before you decide anything.</p>
<table><caption>Every pair, most alike first</caption>
<tr><th scope=col>rank</th><th scope=col>student</th><th scope=col>student</th>
<th scope=col class=num>share</th><th scope=col class=num>of the first's</th>
<th scope=col class=num>of the second's</th><th scope=col class=num>tokens</th><th scope=col>flagged</th></tr>
{rows}</table>
{left}
{''.join(sections)}"""
    style = ("body{font-family:system-ui,sans-serif;max-width:90rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}"
             "table{border-collapse:collapse;margin:1rem 0}th,td{text-align:left;padding:.3rem .6rem;"
             "border-bottom:1px solid #ddd;vertical-align:top}.num{text-align:right}caption{text-align:left;"
             "font-weight:600}table.code{width:100%;table-layout:fixed}table.code td{width:50%}"
             "pre{font-size:.85rem;line-height:1.35;overflow-x:auto;margin:0}mark{background:#ffe08a}")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>nano: similar hand-ins"
            f"</title><style>{style}</style></head>\n<body>\n{body}\n</body></html>\n")
