"""Feedback a student can read: which graded behaviours passed, which failed, why, and what to reread.

`write_student` writes `COURSE/feedback/<student>/index.html` (the lectures, their scores and
what went wrong with the hand-in) and one page per lecture: each graded behaviour in words (the
cell's `nano.behaviour` metadata, see `described`), its points, and for a failure what went
wrong and the section of the lecture to reread (the `## N. Title` the cell sits under). A failure
that only says the work is not there yet (a stub raised, a question unanswered) is "not
attempted", told apart from one that is wrong (`Behaviour.not_attempted`; the report counts
both); where a nano/*.py was graded as its stub (missing, or it does not parse: the problem's
`file`), each behaviour that met the stub says that instead, with the line. The pages are built
from the gradebook, the independent check's record (COURSE/checks/<student>.json) and the
outputs of the autograded notebooks, never from nbgrader's generate_feedback, which shows the
hidden tests (nbgrader issue #917): no cell source and no traceback reaches them.

Nothing a page shows was produced next to a secret. A failed behaviour's message is its judge's,
written in the grader from what the sandboxed subject returned, which holds no judge, input or
answer (check/driver.py); a failure of a cell's visible part comes from the kernel, which runs
only what the release shows. As a second line, whatever came from student code, and every
message, is shown only after `sanitise`: printable, bounded, and withheld when any reading of it
(as written, reversed, Caesar-shifted such as rot13, base64/base32/hex-decoded, each after
Unicode's compatibility folding and a table of look-alike letters) shares a run of 16 letters
and digits with the grader's secrets (the judges' code, the reference solution, the answers)
that the release does not show. Everything a student controls is escaped.
"""

import ast
import base64
import contextlib
import binascii
import functools
import html
import io
import re
import shutil
import string
import tokenize
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

from autograder.authoring import notebooks, release
from autograder.check import independent, kit
from autograder.course import Course
from autograder.grading import records

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
"""

LIMIT = 240  # characters of a message from student code that a page may show
JUDGED = 1200  # characters of a judge's message (which quotes what the student's code gave)
PENDING = ("pending: the grader failed while checking this behaviour, which is not your doing; it "
           "scores nothing until your instructor has fixed the grader and graded it again")
FIELD_LIMIT = 120  # characters of one value interpolated into a grader's message
GRAM = 16  # a run of this many letters and digits shared with the hidden tests is a leak
WITHHELD = "[withheld: it contained text of the hidden tests]"
LONG_RUN = "[a long run of letters and digits]"  # what base64 and its kind look like: never shown
# Errors the grading process itself writes into a cell (autograder/grading/autograde.py, nbclient).
GRADER_ERRORS = {"DeadKernelError", "KernelUnresponsive", "NotRun", "NotebookTimeLimit"}
TIMED_OUT = "this cell ran past its time limit and was interrupted"


@dataclass(frozen=True)
class Described:
    """What a lecture says about one graded cell: the behaviour in words, the section it is in."""

    grade_id: str
    words: str  # "agent_loop stops after max_turns model calls and returns 'max_turns'"
    section: str  # "section 4, Sending the results back, and knowing when to stop"; "" if none


@dataclass(frozen=True)
class Behaviour:
    """One graded test cell of one student's notebook."""

    grade_id: str
    points: float
    score: float | None  # None: never graded (the notebook was not)
    message: str  # why it failed; empty when it passed
    words: str = ""
    section: str = ""
    held: bool = False  # the grader failed on it: its points are pending a re-grade
    stub: str = ""  # it failed because a stub of this file ("nano/gate.py") raised (`stubbed`)
    unanswered: bool = False  # it failed because its question was not answered (UNANSWERED)

    @property
    def status(self) -> str:
        if self.held:
            return "pending"
        if self.score is None or self.score <= 0:
            return "fail"
        return "pass" if self.score >= self.points - 1e-9 else "partial"

    def not_attempted(self, problems) -> bool:
        """Whether it failed only because the student has not tried it yet (its function is still
        the stub, or its question is unanswered), rather than tried and got it wrong. A file
        graded as its stub because it does not parse (a records.UNPARSABLE problem among
        `problems`) was tried."""
        return self.status == "fail" and (self.unanswered or bool(self.stub) and not any(
            p.file == self.stub and p.kind == records.UNPARSABLE for p in problems))


@dataclass(frozen=True)
class Grader:
    """What a message shown to a student is checked against: the messages the grader's code for
    one cell can raise, as (exception name, pattern), and the runs of text of the hidden tests
    that the student never saw (see `sanitise`)."""

    messages: tuple[tuple[str, re.Pattern], ...] = ()
    secret: frozenset[str] = field(default_factory=frozenset)


def title_of(nb) -> str:
    """The notebook's "# ..." heading, e.g. "Lecture 02: Tools that read"."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


def sections(nb) -> list[str]:
    """The section each cell of a lecture notebook sits under, as a student finds it:
    "section 4, Sending the results back, and knowing when to stop" (the last `## N. Title`
    before it, or in it); "" before the first, and under a heading that is not numbered."""
    found, section = [], ""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                heading = re.match(r"## (\d+)\.\s+(.*)", line)
                if heading:
                    title = re.sub(r"(\s*\([^()]*\))+$", "", heading.group(2)).replace("`", "")
                    section = f"section {heading.group(1)}, {title.strip()}"
                elif line.startswith("## "):
                    section = ""
        found.append(section)
    return found


def described(nb) -> dict[str, Described]:
    """grade_id -> its behaviour in words and its section, for every graded cell of a lecture."""
    found = {}
    for cell, section in zip(nb.cells, sections(nb)):
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            words = cell.metadata.get("nano", {}).get("behaviour") or meta["grade_id"].replace("_", " ")
            found[meta["grade_id"]] = Described(meta["grade_id"], words, section)
    return found


def _course_notebook(path: Path):
    """A notebook of the course's own (release/, source/), read once for the whole class; not to
    be changed by the caller."""
    info = path.stat()
    return _read(path, info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=32)
def _read(path: Path, _mtime: int, _size: int):
    return notebooks.load(path)


# ---------------------------------------------------------------------------------------------
# What the grader wrote, and what may not be shown

def _hidden_regions(source: str) -> list[str]:
    return [part.split("### END HIDDEN TESTS")[0] for part in source.split("### BEGIN HIDDEN TESTS")[1:]]


# Letters of other scripts that look like Latin ones (after case folding), as Unicode's
# confusables list pairs them; NFKC already folds full-width, mathematical and circled letters.
LOOKALIKES = str.maketrans(
    "авеєкмнорстухіјѕԁһӏԛԝɡαβεζηικμνορτυχωօսցհոᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢı",
    "abeekmhopctyxijsdhlqwgabezhikmnoptyxwoughnabcdeghijklmnoprstuvwyzi")


def _normal(text: str) -> str:
    """Lower-case ASCII letters and digits only: what survives a change of spacing, quoting,
    width, font, accents or look-alike letters (other letters are dropped, as rot13 leaves
    them alone)."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(LOOKALIKES)
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]", "", text)


_SHIFTS = [str.maketrans(string.ascii_lowercase, string.ascii_lowercase[k:] + string.ascii_lowercase[:k])
           for k in range(26)]
_LETTER = re.compile("[a-z]")


def _grams(normal: str) -> set[str]:
    """Each run of GRAM characters, its letters Caesar-shifted so that the first of them is "a"
    (digits stay): a shifted text has the same runs as its original."""
    found = set()
    for i in range(len(normal) - GRAM + 1):
        run = normal[i:i + GRAM]
        first = _LETTER.search(run)
        found.add(run.translate(_SHIFTS[-(ord(first.group()) - 97) % 26]) if first else run)
    return found


def secret_grams(hidden: str, seen: str) -> frozenset[str]:
    """The runs of `hidden` (hidden test code) that `seen` (what the release shows) lacks."""
    return frozenset(_grams(_normal(hidden)) - _grams(_normal(seen)))


def code_without_strings(source: str) -> str:
    """Python source with its string literals left out: what a judge's code is, apart from the
    messages it shows students and the inputs it hands their code."""
    kept = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type not in (tokenize.STRING, tokenize.COMMENT) and not token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                kept.append(token.string)
    except (tokenize.TokenError, SyntaxError):
        return source
    return " ".join(kept)


def _solutions(text: str) -> list[str]:
    """The reference's solution regions of a file or cell."""
    return [part.split("### END SOLUTION")[0] for part in text.split("### BEGIN SOLUTION")[1:]]


@functools.lru_cache(maxsize=4)
def _course_secret(course: Path, _stamp: tuple) -> frozenset[str]:
    from autograder.check import behaviour

    source, released = course / "source" / release.ASSIGNMENT, course / "release" / release.ASSIGNMENT
    hidden = []
    for path in sorted(source.glob("*.ipynb")):
        for cell in _course_notebook(path).cells:
            hidden += [part for part in _hidden_regions(cell.source) if behaviour.CALL not in part]
            hidden += _solutions(cell.source)
            if notebooks.REFERENCE_TAG in cell.metadata.get("tags", []):
                hidden.append(cell.source)
    for name in release.STUDENT_FILES:
        with contextlib.suppress(OSError):
            hidden += _solutions((release.ROOT / name).read_text(encoding="utf-8"))
    judges = Path(behaviour.__file__).with_name("behaviours")
    hidden += [code_without_strings(p.read_text(encoding="utf-8")) for p in sorted(judges.glob("l*.py"))]
    cells = [cell for path in sorted(released.glob("*.ipynb")) for cell in _course_notebook(path).cells]
    seen = [cell.source for cell in cells] + [str(cell.metadata.get("nano", {}).get("behaviour", "")) for cell in cells]
    seen += [p.read_text(encoding="utf-8", errors="replace") for p in sorted(released.rglob("*.py"))]
    return secret_grams("\n".join(hidden), "\n".join(seen))


def course_secret(course: Path) -> frozenset[str]:
    """`secret_grams` of the course: what the grader holds and students never see (the judges'
    code, the reference's solutions, the answers and the instructor's notes of the source
    notebooks) against what the release shows them."""
    source = course / "source" / release.ASSIGNMENT
    stamp = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(source.glob("*.ipynb")))
    return _course_secret(course, stamp)


def _parts(node) -> list[str | None]:
    """A message expression as literal text and holes (None) where a value goes."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [p for value in node.values for p in _parts(value)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _parts(node.left) + _parts(node.right)
    return [None]


def written_messages(code: str) -> tuple[tuple[str, re.Pattern], ...]:
    """The messages `code` can raise, as (exception name, pattern matching the whole message):
    each assert's message, and the first argument of each `raise Name(...)`. A message with too
    little literal text to tell it from anything (a bare variable) is left out: a message it
    raised counts as the student's."""
    lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return ()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            name, message = "AssertionError", node.msg
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            message = node.exc.args[0]
        else:
            continue
        parts = _parts(message) if message is not None else [""]
        if sum(len(p) for p in parts if p is not None) < 8 and parts != [""]:
            continue
        pattern = "".join("(.*?)" if p is None else re.escape(p) for p in parts)
        found.append((name, re.compile(pattern, re.S)))
    return tuple(found)


@functools.lru_cache(maxsize=4)
def _helper_messages(path: Path, _mtime: int) -> tuple[tuple[str, re.Pattern], ...]:
    return written_messages(path.read_text(encoding="utf-8"))


def grader_for(course: Path, notebook: str) -> dict[str, Grader]:
    """grade_id -> the Grader of each graded cell of `notebook` in the course (worked out once
    for the whole class; not to be changed by the caller)."""
    assignment = course / "source" / release.ASSIGNMENT
    source = assignment / f"{notebook}.ipynb"
    if not source.is_file():
        return {}
    # The graded cells' visible checks (checks/lNN.py, and the helpers they share) and nano/testing.py.
    helpers = tuple(path for path in (assignment / "checks" / f"l{notebook[:2]}.py",
                                      assignment / "checks" / "__init__.py", assignment / "nano" / "testing.py")
                    if path.is_file())
    stamp = (source.stat().st_mtime_ns, *(path.stat().st_mtime_ns for path in helpers))
    return _graders(source, helpers, course_secret(course), stamp)


@functools.lru_cache(maxsize=16)
def _graders(source: Path, helpers: tuple[Path, ...], secret: frozenset[str], _stamp: tuple) -> dict[str, Grader]:
    written = tuple(message for path in helpers for message in _helper_messages(path, path.stat().st_mtime_ns))
    return {c.metadata["nbgrader"]["grade_id"]: Grader(written_messages(c.source) + written, secret)
            for c in _course_notebook(source).cells if c.metadata.get("nbgrader", {}).get("grade")}


def _decodings(text: str) -> list[str]:
    """What `text` says if a run of it is base64, base32 or hex."""
    found = []
    runs = re.findall(r"[A-Za-z0-9+/_=-]{16,}", text)
    compact = re.sub(r"[^A-Za-z0-9+/_=-]", "", text)
    for run in [*runs, compact] if len(compact) >= 16 else runs:
        run = run.rstrip("=")
        for start in range(4):
            piece = run[start:]
            for whole in (piece[:len(piece) - len(piece) % 4], piece + "=" * (-len(piece) % 4)):
                try:  # either alphabet: urlsafe's - and _ are standard's + and /
                    found.append(base64.b64decode(whole.replace("-", "+").replace("_", "/")).decode("latin-1"))
                except (binascii.Error, ValueError):
                    pass
        for start in range(8):
            piece = run[start:].upper()
            for whole in (piece[:len(piece) - len(piece) % 8], piece + "=" * (-len(piece) % 8)):
                try:
                    found.append(base64.b32decode(whole).decode("latin-1"))
                except (binascii.Error, ValueError):
                    pass
    for run in re.findall(r"(?:[0-9a-fA-F]{2}[\s:,]?){8,}", text):
        digits = re.sub(r"[^0-9a-fA-F]", "", run)
        for start in range(2):
            piece = digits[start:]
            try:
                found.append(bytes.fromhex(piece[:len(piece) - len(piece) % 2]).decode("latin-1"))
            except ValueError:
                pass
    return found


def leaks(text: str, secret: frozenset[str]) -> bool:
    """Whether any reading of `text` shares a run with `secret` (see `secret_grams`): as written
    or reversed, Caesar-shifted (rot13 is one), or base64/base32/hex-decoded, then reversed."""
    if not secret or not text:
        return False
    readings = [text, text[::-1]]
    for reading in list(readings):
        for decoded in _decodings(reading):
            readings += [decoded, decoded[::-1]]
    return any(_grams(_normal(reading)) & secret for reading in readings)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def sanitise(text: str, secret: frozenset[str], limit: int = LIMIT) -> str:
    """`text` from student code as a page may show it: one printable line of at most `limit`
    characters, long runs that look encoded dropped, WITHHELD if it leaks `secret`."""
    text = _ANSI.sub("", text)
    text = re.sub(r"\s+", " ", "".join(ch if ch.isprintable() else " " for ch in text)).strip()
    text = re.sub(r"[A-Za-z0-9+/_=-]{40,}", LONG_RUN, text)  # either base64 alphabet
    if len(text) > limit:
        text = text[:limit - 1].rstrip() + "…"
    return WITHHELD if leaks(text, secret) else text


def _exception_name(name: str, secret: frozenset[str]) -> str:
    name = name.strip()
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]{0,60}", name) and not leaks(name, secret):
        return name
    return "an exception"


def _as_written(name: str, value: str, grader: Grader) -> str | None:
    """The message as the grader wrote it, each interpolated value sanitised; None if no
    assertion or raise of the grader's can have produced it."""
    for raised, pattern in grader.messages:
        if raised != name:
            continue
        match = pattern.fullmatch(value)
        if match is None:
            continue
        out, last = [], 0
        for i in range(1, (pattern.groups or 0) + 1):
            out.append(value[last:match.start(i)])
            out.append(sanitise(match.group(i), grader.secret, FIELD_LIMIT))
            last = match.end(i)
        out.append(value[last:])
        return "".join(out)
    return None


def failure_message(cell, grader: Grader = Grader()) -> str:
    """What a failed test cell said, without its code: a message the grader wrote (an assertion
    of the cell names the section to reread), "question N was not answered", or the exception
    type and sanitised message of student code, or the first line it wrote to stderr."""
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if any(o.get("ename") == "CellTimeoutError" for o in errors):
        return TIMED_OUT
    for output in errors:
        name, value = str(output.get("ename", "Error")), str(output.get("evalue", "")).strip()
        unanswered = re.fullmatch(r"name 'answer_q(\d+)\w*' is not defined", value)
        if name == "NameError" and unanswered:
            return (f"question {unanswered.group(1)} was not answered: its answer cell did not set "
                    f"answer_q{unanswered.group(1)} (run it after writing your answer)")
        if name == "AssertionError" and not value:
            return "a check failed (an assert without a message)"
        written = _as_written(name, value, grader)
        if written is not None:
            return written[:2000] if name == "AssertionError" else f"{name}: {written[:2000]}"
        if name in GRADER_ERRORS:
            return sanitise(value, grader.secret)
        name = _exception_name(name, grader.secret)
        return f"your code raised {name}: {sanitise(value, grader.secret)}" if value else f"your code raised {name}"
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            first = next((line for line in output.get("text", "").splitlines() if line.strip()), "")
            return ("the cell wrote to stderr, and a graded cell that does scores 0: "
                    + sanitise(first, grader.secret, 300))
    return ""


@functools.cache
def _stub_sayings() -> tuple[tuple[str, str], ...]:
    """(words, file) for each function students write: what its stub raises
    (release.stub_message), and what a judge says of a call that met a stub (kit.NOT_WRITTEN)."""
    return tuple((words, f"nano/{module}") for module, functions in release.STUDENT_FUNCTIONS.items()
                 for function, lecture in functions.items()
                 for words in (release.stub_message(lecture, function, module),
                               kit.NOT_WRITTEN.format(function=function)))


def stubbed(message: str) -> str:
    """The file ("nano/gate.py") whose stub a failure message says raised, or ""."""
    return next((file for words, file in _stub_sayings() if words in message), "")


# How a question cell's failure starts when its answer cell did not run: the lectures' asserts
# say so, and so does `failure_message` of the NameError it meets.
UNANSWERED = re.compile(r"question \d+ was not answered\b")


# ---------------------------------------------------------------------------------------------
# The pages

def behaviours(course: Path, student: str, notebook: str) -> list[Behaviour] | None:
    """The graded behaviours of one lecture notebook for `student`, in notebook order;
    None if the student has no graded submission."""
    from nbgrader.api import MissingEntry

    from autograder.grading import gradebook

    released = _course_notebook(course / "release" / release.ASSIGNMENT / f"{notebook}.ipynb")
    order = notebooks.points(released)
    words = described(released)
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
    graders = grader_for(course, notebook)
    secret = course_secret(course) if not graders else next(iter(graders.values())).secret
    checked = independent.cell_states(independent.read_record(course / "checks" / f"{student}.json").values())
    found = []
    for grade_id in [*order, *sorted(set(points) - set(order))]:
        if grade_id not in points:
            continue
        score = scores.get(grade_id)
        cell = cells.get(grade_id)
        verdict = checked.get(grade_id)
        message, held = "", verdict is not None and verdict.state == independent.HELD
        if held:
            message = PENDING
        elif score is None or score < points[grade_id] - 1e-9:
            if verdict is not None and verdict.state in (independent.FAILED, independent.LATE):
                message = sanitise(verdict.message, secret, JUDGED)
            else:
                message = failure_message(cell, graders.get(grade_id, Grader(secret=secret))) if cell is not None else ""
            message = message or ("not run: this notebook was not graded" if cell is None
                                  else "scored less than full points")
        about = words.get(grade_id, Described(grade_id, grade_id.replace("_", " "), ""))
        found.append(Behaviour(grade_id, points[grade_id], None if score is None else float(score),
                               message, about.words, about.section, held, stubbed(message),
                               bool(UNANSWERED.match(message))))
    return found


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
        title = title_of(_course_notebook(released)) or name
        found = behaviours(course, grade.student, name) if grade.graded else None
        if found is not None:  # a file graded as its stub: each of its behaviours says why
            found = [replace(b, message=stubs[b.stub].message) if b.stub in stubs else b for b in found]
        points = sum(notebooks.points(_course_notebook(released)).values())
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
        why = ""
        if b.status == "pending":
            why = esc(message)
        elif b.status != "pass":
            reread = (f"Reread {b.section}." if b.section
                      else "Reread the part of the lecture this check follows.")
            why = f"{esc(message)}<div class=\"reread\">{esc(reread)}</div>"
        rows.append(f"<tr><td>{esc(b.words)}<br><code class=\"id\">{esc(b.grade_id)}</code></td>"
                    f"<td class=\"num\">{_points(b.score)} / {b.points:g}</td>"
                    f"<td class=\"{b.status}\">{label}</td>"
                    f"<td class=\"msg\">{why}</td></tr>")
    parts.append("<table><tr><th>behaviour</th><th class=\"num\">points</th><th>result</th>"
                 "<th>what went wrong</th></tr>\n" + "\n".join(rows) + "</table>")
    return _page(f"{title}: {grade.student}", "\n".join(parts))
