"""What a page may show a student: text from student code made safe, and never the grader's secrets.

Nothing a page shows was produced next to a secret. A failed behaviour's message is its judge's,
written in the grader from what the sandboxed subject returned, which holds no judge, input or
answer (check/driver.py); a failure of a cell's visible part comes from the kernel, which runs
only what the release shows. As a second line, whatever came from student code, and every
message, is shown only after `sanitise`: printable, bounded, and withheld when any reading of it
(as written, reversed, Caesar-shifted such as rot13, base64/base32/hex-decoded, each after
Unicode's compatibility folding and a table of look-alike letters) shares a run of 16 letters
and digits with the grader's secrets (the judges' code, the reference solution, the answers)
that the release does not show (`course_secret`). A message the grader's own code wrote is shown
as written, each value put into it sanitised (`Grader`, `as_written`).
"""

import ast
import base64
import binascii
import contextlib
import functools
import io
import re
import string
import tokenize
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from autograder.authoring import notebooks, release

LIMIT = 240  # characters of a message from student code that a page may show
JUDGED = 1200  # characters of a judge's message (which quotes what the student's code gave)
FIELD_LIMIT = 120  # characters of one value interpolated into a grader's message
GRAM = 16  # a run of this many letters and digits shared with the hidden tests is a leak
WITHHELD = "[withheld: it contained text of the hidden tests]"
LONG_RUN = "[a long run of letters and digits]"  # what base64 and its kind look like: never shown


@dataclass(frozen=True)
class Grader:
    """What a message shown to a student is checked against: the messages the grader's code for
    one cell can raise, as (exception name, pattern), and the runs of text of the hidden tests
    that the student never saw (see `sanitise`)."""

    messages: tuple[tuple[str, re.Pattern], ...] = ()
    secret: frozenset[str] = field(default_factory=frozenset)



def course_notebook(path: Path):
    """A notebook of the course's own (release/, source/), read once for the whole class; not to
    be changed by the caller."""
    info = path.stat()
    return _read(path, info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=32)
def _read(path: Path, _mtime: int, _size: int):
    return notebooks.load(path)



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
    # NFKD splits an accented letter into the letter and its marks, which the next line drops.
    return re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKD", text))


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
        for cell in course_notebook(path).cells:
            hidden += [part for part in _hidden_regions(cell.source) if behaviour.CALL not in part]
            hidden += _solutions(cell.source)
            if notebooks.REFERENCE_TAG in cell.metadata.get("tags", []):
                hidden.append(cell.source)
    for name in release.STUDENT_FILES:
        with contextlib.suppress(OSError):
            hidden += _solutions((release.ROOT / name).read_text(encoding="utf-8"))
    judges = Path(behaviour.__file__).with_name("behaviours")
    hidden += [code_without_strings(p.read_text(encoding="utf-8")) for p in sorted(judges.glob("l*.py"))]
    cells = [cell for path in sorted(released.glob("*.ipynb")) for cell in course_notebook(path).cells]
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
    each assert's message, the first argument of each `raise Name(...)`, and each message a
    rule's judge yields (checks/local.py raises it as an AssertionError). A message with too
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
        elif isinstance(node, ast.Yield) and node.value is not None:
            name, message = "AssertionError", node.value
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
    # The graded cells' visible checks and rules (checks/lNN*.py, and the helpers they share) and nano/testing.py.
    helpers = tuple(path for path in (*sorted((assignment / "checks").glob(f"l{notebook[:2]}*.py")),
                                      assignment / "checks" / "__init__.py", assignment / "checks" / "kit.py",
                                      assignment / "nano" / "testing.py")
                    if path.is_file())
    stamp = (source.stat().st_mtime_ns, *(path.stat().st_mtime_ns for path in helpers))
    return _graders(source, helpers, course_secret(course), stamp)


@functools.lru_cache(maxsize=16)
def _graders(source: Path, helpers: tuple[Path, ...], secret: frozenset[str], _stamp: tuple) -> dict[str, Grader]:
    written = tuple(message for path in helpers for message in _helper_messages(path, path.stat().st_mtime_ns))
    return {c.metadata["nbgrader"]["grade_id"]: Grader(written_messages(c.source) + written, secret)
            for c in course_notebook(source).cells if c.metadata.get("nbgrader", {}).get("grade")}


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


def exception_name(name: str, secret: frozenset[str]) -> str:
    name = name.strip()
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]{0,60}", name) and not leaks(name, secret):
        return name
    return "an exception"


def as_written(name: str, value: str, grader: Grader) -> str | None:
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
