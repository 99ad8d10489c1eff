"""Intake: a folder of hand-ins, turned into one clean workspace copy per student, or a reason why not.

A hand-in is a folder named by student id, a `<student_id>.zip`, a student's folder in the
`submitted/` of an nbgrader course (as `nbgrader collect` leaves it), or a student's files in a
Canvas or Moodle download (lms.py), mapped to their id through the roster: a zip, loose
`nano/*.py` and notebooks, put together into one workspace (`assemble`). The download may come
as its zip (`opened`). Archives may nest the workspace in top folders and carry `__MACOSX` or
`.ipynb_checkpoints`; those are found or dropped. A bad id, two hand-ins for one id, an unsafe or
oversized zip are reported with their reason and never guessed at. A folder with nothing that
could be a hand-in (empty, stray files, a workspace itself) is refused as a whole (`class_in`).
"""

import contextlib
import datetime
import errno
import os
import re
import shutil
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from autograder import trees
from autograder.grading import lms
from autograder.grading import roster as rosters
from autograder.limits import (MAX_BYTES, MAX_DEPTH, MAX_DOWNLOAD_BYTES, MAX_DOWNLOAD_FILES, MAX_FILES,
                               MAX_RATIO, RATIO_FLOOR, TREE_DEPTH)

STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
JUNK_DIRS = {"__MACOSX", ".ipynb_checkpoints", "__pycache__", ".git", ".venv", "venv"}
JUNK_FILES = re.compile(r"^(\._.*|\.DS_Store|Thumbs\.db|desktop\.ini|.*\.pyc)$")
NOTEBOOK = re.compile(r"^\d\d-.*\.ipynb$")
PACKAGE_FILES = ("protocol.py", "tools.py", "gate.py", "model.py", "loop.py", "repl.py")
# Files that look like a hand-in in a format we do not take; other stray files are only noted.
ARCHIVES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".rar", ".7z", ".gz", ".ipynb", ".py")
SKIPPED = "a file, not a folder or a .zip"
MACHINE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS, errno.ENOMEM, errno.EMFILE}  # not a zip's
NBGRADER_FILES = ("timestamp.txt", "submission_secret.txt")  # nbgrader's, never a hand-in's own



class IntakeError(ValueError):
    """A hand-in that cannot be graded, and why, in words for the table."""


@dataclass(frozen=True)
class HandIn:
    """One row of the class: a student id, where the hand-in is, and why it cannot be graded."""

    student: str
    source: Path
    problem: str = ""
    parts: tuple[tuple[Path, str], ...] = ()  # an LMS download's entries of this student and their
    #                                            files' names as uploaded, oldest first (`assemble`)
    notes: tuple[str, ...] = ()  # what the LMS says of the hand-in: late, the newest of several


def hand_ins(folder: Path) -> tuple[list[HandIn], list[str], list[lms.Unplaced]]:
    """Every hand-in in `folder`, with a problem for bad ids and duplicates; notes on skipped
    files, and those files as entries not placed.

    `folder` may be an nbgrader course (its `submitted/` is read) or hold one entry per student.
    """
    if (folder / "submitted").is_dir() and (folder / "nbgrader_config.py").is_file():
        folder = folder / "submitted"
    found: dict[str, list[tuple[str, Path]]] = {}  # lower-case id -> (id, path)
    rows: list[HandIn] = []
    notes: list[str] = []
    skipped: list[lms.Unplaced] = []
    for entry in sorted(folder.iterdir()):
        name = entry.name
        if name.startswith(".") or name in JUNK_DIRS or JUNK_FILES.match(name):
            continue
        if entry.is_dir():
            student = name
        elif name.lower().endswith(".zip"):
            student = name[:-4]
        elif name.lower().endswith(ARCHIVES):
            rows.append(HandIn(name, entry, "handed in as one file, not the workspace folder or its .zip: not "
                                            "graded; hand in the workspace folder as a .zip"))
            continue
        else:
            notes.append(f"skipped {name}: {SKIPPED}")
            skipped.append(lms.Unplaced(name, SKIPPED))
            continue
        if not STUDENT_ID.match(student):
            rows.append(HandIn(name, entry, "handed in under a name that is not a valid student id (letters, "
                                            "digits, _ . @ -): not graded; hand it in again named by your "
                                            "student id"))
            continue
        found.setdefault(student.lower(), []).append((student, entry))
    for claims in found.values():
        if len(claims) == 1:
            rows.append(HandIn(claims[0][0], claims[0][1]))
            continue
        names = " and ".join(path.name + ("/" if path.is_dir() else "") for _, path in claims)
        for student in sorted({student for student, _ in claims}):
            rows.append(HandIn(student, claims[0][1], f"duplicate: {len(claims)} hand-ins carry this id ({names}), "
                               "so none was graded; hand in one only"))
    return sorted(rows, key=lambda row: row.student.lower()), notes, skipped


def class_in(folder: Path, roster: Path | None = None, shown: Path | None = None,
             refused: list[lms.Unplaced] = ()) -> tuple[list[HandIn], list[str], list[lms.Unplaced]]:
    """The hand-ins of `folder` (`hand_ins`, or a Canvas or Moodle download's, mapped to student
    ids through the CSV `roster`), the lines to say before grading, and the entries that became
    no student's hand-in (lms.Unplaced); or IntakeError, in one sentence starting "no hand-ins in",
    when nothing in `folder` could be a student's hand-in: it is empty, holds only stray files or
    folders without a workspace, is itself one student's workspace, or is an nbgrader course with
    no `submitted/`. Grading such a folder is a mistake of the command line, not a class.
    `shown` is the folder's name in messages (the download's zip, for its unpacked copy);
    `refused` the entries `opened` took out of it, each refused as its student's hand-in."""
    said = f"no hand-ins in {shown or folder}"
    course = (folder / "nbgrader_config.py").is_file()
    if course and not (folder / "submitted").is_dir():
        raise IntakeError(f"{said}: it is an nbgrader course with no submitted/ folder (run nbgrader "
                          "collect there first, or give the folder that holds the hand-ins)")
    if _is_workspace(folder):
        raise IntakeError(f"{said}: it is one student's workspace; give the folder that holds one "
                          "folder or <student_id>.zip per student")
    entries = [] if course else _entries(folder)
    try:
        kind = lms.layout(entries)
    except lms.LayoutError as exc:
        raise IntakeError(f"{shown or folder} cannot be graded: {exc}") from None
    if kind:
        return _download(entries, kind, roster, shown or folder, refused)
    rows, notes, skipped = hand_ins(folder)
    rows, skipped = _refuse(rows, skipped, refused, folder)
    if any(_could_be_graded(row.source) for row in rows):
        return rows, notes, skipped
    where = folder / "submitted" if course else folder
    names = sorted(entry.name for entry in where.iterdir())
    if not names:
        raise IntakeError(f"{said}: {'its submitted/ folder' if course else 'it'} is empty")
    shown_names = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    raise IntakeError(f"{said}: nothing in it is a student's folder holding a workspace or a "
                      f"<student_id>.zip (it holds {shown_names})")


def _entries(folder: Path) -> list[Path]:
    return [entry for entry in sorted(folder.iterdir())
            if not (entry.name.startswith(".") or entry.name in JUNK_DIRS or JUNK_FILES.match(entry.name))]


def _refuse(rows: list[HandIn], skipped: list[lms.Unplaced], refused: list[lms.Unplaced],
            folder: Path) -> tuple[list[HandIn], list[lms.Unplaced]]:
    """`rows` with each hand-in `refused` names (`<id>/` or `<id>.zip`) refused for it, and the
    refused entries that name no student added to `skipped`."""
    why = {}
    for one in refused:
        student = one.entry[:-4] if one.entry.lower().endswith(".zip") else one.entry
        if STUDENT_ID.match(student):
            why[student.lower()] = (student, f"{one.why}: not graded; hand it in again")
        else:
            skipped = [*skipped, one]
    rows = [row for row in rows if row.student.lower() not in why]
    rows += [HandIn(student, folder / student, problem) for student, problem in why.values()]
    return sorted(rows, key=lambda row: row.student.lower()), skipped


def _download(entries: list[Path], kind: str, roster: Path | None, shown: Path,
              refused: list[lms.Unplaced] = ()) -> tuple[list[HandIn], list[str], list[lms.Unplaced]]:
    """The hand-ins of a `kind` download (lms.py), each under the student id the roster gives
    its LMS id, notes, and the entries that cannot be placed, which never become students."""
    column = lms.ROSTER_COLUMN[kind]
    if roster is None:
        raise IntakeError(f"{shown} is a {kind} download, which names students by {kind}'s ids: pass "
                          f"--roster FILE, a CSV with the columns student_id and {column} (or name), "
                          "to grade each under your student id (student_id may be the "
                          f"{kind} id itself)")
    people = rosters.read(roster)
    if column not in people.columns and "name" not in people.columns:
        raise IntakeError(f"roster {roster} has no {column} column and no name column, which a "
                          f"{kind} download is matched by: add {column}")
    claims, notes, unplaced = lms.claims(entries, kind, people, refused)
    found: dict[str, list[lms.Claim]] = {}
    for claim in claims:
        if not STUDENT_ID.match(claim.student):
            unplaced.append(lms.Unplaced(claim.who, f"the roster's student_id {claim.student!r} is not a valid "
                                                    "student id (letters, digits, _ . @ -): fix it in the roster"))
            continue
        found.setdefault(claim.student.lower(), []).append(claim)
    rows = []
    for group in found.values():
        first = group[0]
        if len(group) == 1:
            rows.append(HandIn(first.student, first.parts[0][0], first.problem, parts=first.parts, notes=first.notes))
            continue
        who = " and ".join(claim.who for claim in group)
        rows.append(HandIn(first.student, first.parts[0][0], f"duplicate: the class list gives this id to "
                                                             f"{who}, so none was graded; ask your instructor "
                                                             "to correct the class list"))
    if not rows:
        said = [*notes, *map(str, unplaced)]
        raise IntakeError(f"no hand-ins in {shown}: no one in this {kind} download could be placed ("
                          + "; ".join(said[:3]) + (f"; and {len(said) - 3} more" if len(said) > 3 else "")
                          + ")")
    return sorted(rows, key=lambda row: row.student.lower()), notes, unplaced


@contextlib.contextmanager
def opened(submissions: Path, refused: list[lms.Unplaced] | None = None) -> Iterator[Path]:
    """`submissions` as a folder: itself, or a download's zip unpacked into a temporary folder
    while the `with` lasts (under the class's limits; each hand-in's own apply when it is staged).
    A zip whose one top folder holds the class is read through that folder. A member the zip
    cannot give (unreadable, or refused for itself: a zip bomb, a name the file system cannot
    hold) takes its whole entry out, a student's file or folder, which is added to `refused`
    (pass it to `class_in`: that student is refused, not the class)."""
    if submissions.is_dir():
        yield submissions
        return
    if not submissions.exists():
        raise IntakeError(f"{submissions} does not exist: name the folder of hand-ins, or the LMS download's zip")
    if not submissions.name.lower().endswith(".zip"):
        raise IntakeError(f"{submissions} is not a folder of hand-ins or an LMS download's .zip")
    with tempfile.TemporaryDirectory(prefix="nano-download-") as tmp:
        folder = Path(tmp)
        skipped: list[tuple[str, str]] = []
        unpack(submissions, folder, MAX_DOWNLOAD_BYTES, MAX_DOWNLOAD_FILES, skipped=skipped)
        inner = _entries(folder)
        top = ()
        if len(inner) == 1 and inner[0].is_dir() and not lms.entry(inner[0]) and not _could_be_graded(inner[0]):
            folder, top = inner[0], (inner[0].name,)
        for member, why in skipped:
            parts = PurePosixPath(member.replace("\\", "/")).parts
            name = parts[len(top)] if len(parts) > len(top) and parts[:len(top)] == top else member
            if refused is None:
                raise IntakeError(f"{submissions.name} refused: {why}")
            if "/" not in name and name not in ("", ".", ".."):
                trees.remove(folder / name)  # nothing of the entry is graded without the member
            refused.append(lms.Unplaced(name, f"the download's member {member!r} cannot be taken in ({why})"))
        yield folder


def _could_be_graded(source: Path) -> bool:
    if source.is_file():
        return source.name.lower().endswith(".zip")
    try:
        workspace_root(source)
        return True
    except (IntakeError, OSError):
        return False


def unpack(archive: Path, dest: Path, max_bytes: int = MAX_BYTES, max_files: int = MAX_FILES,
           max_ratio: float = MAX_RATIO, skipped: list[tuple[str, str]] | None = None) -> None:
    """Extract the zip `archive` into `dest`, or raise IntakeError before writing anything unsafe.

    Refuses absolute paths and `..` (path traversal), encrypted members, more than `max_files`
    members, more than `max_bytes` unpacked, and members that inflate more than `max_ratio` times
    (a zip bomb); and members that zipfile cannot read or the file system cannot hold (a file
    and a folder of one name, a name too long), named. Symbolic links and junk (`__MACOSX`,
    checkpoints, caches) are not extracted. With `skipped` (an LMS download's, whose members are
    many students' hand-ins), a member refused for itself is left out and listed there as (its
    name, why) instead; the limits of the whole zip still refuse it all.
    """
    refused = f"{archive.name} refused"

    def refuse(name: str, why: str, unreadable: bool = False) -> None:
        if skipped is None:
            raise IntakeError(f"{archive.name} is not a readable zip file ({why})" if unreadable
                              else f"{refused}: {why}")
        skipped.append((name, why))

    with open(archive, "rb") as raw:  # an OSError here is the machine's, not the hand-in's
        try:
            zf = zipfile.ZipFile(raw)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, RuntimeError, NotImplementedError) as exc:
            raise IntakeError(f"{archive.name} is not a readable zip file ({type(exc).__name__}: {exc})") from None
        with zf:
            for info, parts in _checked(zf, archive, max_bytes, max_files, max_ratio, refuse):
                try:
                    _extract(zf, info, parts, dest.resolve(), refused)
                except _Unwritable as exc:
                    refuse(info.filename, str(exc), unreadable=exc.unreadable)


class _Unwritable(Exception):
    """A member that cannot be read or written, and why (`unreadable`: zipfile could not read it)."""

    def __init__(self, why: str, unreadable: bool):
        super().__init__(why)
        self.unreadable = unreadable


def _checked(zf: zipfile.ZipFile, archive: Path, max_bytes: int, max_files: int, max_ratio: float,
             refuse) -> list[tuple[zipfile.ZipInfo, tuple[str, ...]]]:
    """The members of `zf` to extract, with their paths as names; `refuse` is told of each member
    refused for itself; IntakeError for a zip past the limits of the whole."""
    refused = f"{archive.name} refused"
    members = zf.infolist()
    if len(members) > max_files:
        raise IntakeError(f"{refused}: it holds {len(members)} files, more than the limit of {max_files}")
    total = 0
    keep = []
    for info in members:
        name = info.filename.replace("\\", "/")
        parts = PurePosixPath(name).parts
        if name.startswith("/") or ".." in parts or (parts and ":" in parts[0]):
            refuse(name, f"member {name!r} would be written outside the submission (path traversal)")
        elif info.flag_bits & 0x1:
            refuse(name, f"member {name!r} is encrypted")
        elif len(parts) > MAX_DEPTH + TREE_DEPTH:
            refuse(name, f"it holds folders nested more than {TREE_DEPTH} deep: hand in the workspace without them")
        elif info.file_size > RATIO_FLOOR and info.file_size > max_ratio * max(info.compress_size, 1):
            refuse(name, f"member {name!r} inflates {info.file_size // max(info.compress_size, 1)} times "
                         f"({info.file_size:,} bytes; a zip bomb)")
        else:
            total += info.file_size
            if total > max_bytes:
                raise IntakeError(f"{refused}: it unpacks to more than {max_bytes // 1_000_000} MB, "
                                  f"{name!r} ({info.file_size / 1e6:.1f} MB) passing the limit (a zip "
                                  "bomb, or data that does not belong in a workspace: hand in without it)")
            if not (stat.S_ISLNK(info.external_attr >> 16) or any(p in JUNK_DIRS for p in parts)
                    or (parts and JUNK_FILES.match(parts[-1])) or not parts):
                keep.append((info, parts))
    return keep


def _extract(zf: zipfile.ZipFile, info: zipfile.ZipInfo, parts: tuple[str, ...], root: Path, refused: str) -> None:
    """Write the member `info` at `parts` below `root`, no more than it says it holds; _Unwritable when
    zipfile cannot read it or the file system cannot hold it; IntakeError when it lied about its size."""
    try:
        target = root.joinpath(*parts)
        if root not in target.resolve().parents and target.resolve() != root:
            raise _Unwritable(f"member {info.filename!r} escapes the submission", False)
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        written = 0
        with zf.open(info) as src, open(target, "wb") as out:
            while chunk := src.read(1 << 16):
                written += len(chunk)
                if written > info.file_size:  # the headers lied about the sizes
                    raise IntakeError(f"{refused}: it unpacks to more than it says, "
                                      f"{info.filename!r} passing its size (a zip bomb)")
                out.write(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError, RuntimeError) as exc:
        raise _Unwritable(f"member {info.filename!r}: {type(exc).__name__}: {exc}", True) from None
    except OSError as exc:
        if exc.errno in MACHINE_ERRORS:
            raise
        raise _Unwritable(f"member {info.filename!r} cannot be unpacked here ({exc.strerror or exc}): hand in "
                          "the workspace without it", False) from None


def workspace_root(folder: Path) -> Path:
    """The folder inside `folder` that holds the lecture notebooks or the nano/ package.

    Takes the shallowest such folder, so that an archive's top folders (`alice/`,
    `workspace/`, `submitted/alice/nano/`) do not matter. Raises IntakeError if there is none,
    or two at the same depth.
    """
    level = [folder]
    for _ in range(MAX_DEPTH + 1):
        roots = [d for d in level if _is_workspace(d)]
        if len(roots) == 1:
            return roots[0]
        if roots:
            names = ", ".join(str(d.relative_to(folder)) + "/" for d in roots)
            raise IntakeError(f"holds more than one workspace ({names}): hand in one")
        level = [child for d in level for child in sorted(d.iterdir())
                 if child.is_dir() and not child.is_symlink() and child.name not in JUNK_DIRS
                 and not child.name.startswith(".")]
        if not level:
            break
    raise IntakeError("holds no lecture notebook and no nano/ package: nothing to grade")


def _is_workspace(folder: Path) -> bool:
    if any(NOTEBOOK.match(p.name) and p.is_file() for p in folder.iterdir()):
        return True
    package = folder / "nano"
    return package.is_dir() and any((package / name).is_file() for name in PACKAGE_FILES)


def copy_clean(src: Path, dest: Path, max_bytes: int = MAX_BYTES, max_files: int = MAX_FILES,
               budget: "Budget | None" = None) -> list[str]:
    """Copy the workspace `src` to `dest` without junk or symbolic links; return what was left out.
    A hand-in's tree is walked without recursion (trees.py): one nested past TREE_DEPTH levels or
    holding more than `max_files` files is refused before anything is copied. What is copied is
    counted in `budget`, if given."""
    skipped, count, total = measure(src, max_bytes, max_files)
    dest.mkdir(parents=True, exist_ok=True)
    into = os.open(dest, os.O_RDONLY | os.O_DIRECTORY)
    try:
        trees.copy(src, into, _wanted, inside=_not_junk)
    finally:
        os.close(into)
    if budget is not None:
        budget.files += count
        budget.bytes += total
    return [f"ignored symbolic link {name}" for name in skipped]


def measure(src: Path, max_bytes: int = MAX_BYTES, max_files: int = MAX_FILES,
            everything: bool = False) -> tuple[list[str], int, int]:
    """The entries of the workspace `src` that are neither folders nor regular files (links,
    FIFOs), and how many files and bytes it holds, walked without recursion (trees.py), junk left
    out unless `everything`; IntakeError for a tree nested past TREE_DEPTH levels, or holding
    more than `max_files` files or `max_bytes`."""
    total, count, skipped, largest = 0, 0, [], (0, "")

    def visit(entry: trees.Entry) -> None:
        nonlocal total, count, largest
        if not (everything or _wanted(entry.path)) or stat.S_ISDIR(entry.info.st_mode):
            return
        shown = trees.escaped("/".join(entry.path))
        if not stat.S_ISREG(entry.info.st_mode):
            skipped.append(shown)
            return
        total += entry.info.st_size
        count += 1
        largest = max(largest, (entry.info.st_size, shown))
        if count > max_files:
            raise IntakeError(f"holds more than the limit of {max_files} files: not graded")

    passed = trees.walk(src, visit, trees.Bounds(entries=max(trees.Bounds().entries, 4 * max_files)),
                        inside=None if everything else _not_junk)
    if passed:
        raise IntakeError(f"holds {passed}: not graded; hand in the workspace without them")
    if total > max_bytes:
        raise IntakeError(f"larger than the limit of {max_bytes // 1_000_000} MB ({total / 1e6:.1f} MB; its "
                          f"largest file: {largest[1]}, {largest[0] / 1e6:.1f} MB): not graded; hand in "
                          "without what does not belong in the workspace")
    return skipped, count, total


def _not_junk(entry: trees.Entry) -> bool:
    return entry.name not in JUNK_DIRS


def _wanted(names: tuple[str, ...]) -> bool:
    """Whether the entry at `names` (its path below a workspace) is copied: not junk, nor in it,
    nor nbgrader's own files at the top, which the grader writes (`_stamp`)."""
    return (not any(name in JUNK_DIRS for name in names) and not JUNK_FILES.match(names[-1])
            and not (len(names) == 1 and names[0] in NBGRADER_FILES))


def assemble(parts: tuple[tuple[Path, str], ...], dest: Path) -> list[str]:
    """One workspace at `dest` from an LMS download's entries of one student, oldest first, each
    laid over those before it: a zip or a folder that holds a workspace (in top folders or not) is
    copied in whole; loose files go where a workspace has them, notebooks at the top and .py files
    in nano/; a folder or zip of loose files is read as its files. A zip inside an entry is not
    unpacked (noted); folders are followed without recursion, and the whole hand-in is held to
    one budget of files and bytes. Returns notes on files left out; IntakeError for an unsafe zip
    or one too large."""
    dest.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    budget = Budget()
    with contextlib.ExitStack() as temporary:
        for path, name in parts:
            _lay(path, name or path.name, dest, notes, budget, temporary)
    return notes


@dataclass
class Budget:
    """What one hand-in's loose files and folders have used so far, against MAX_FILES and MAX_BYTES."""

    files: int = 0
    bytes: int = 0

    def spend(self, size: int, name: str) -> None:
        """Count one more file of `size` bytes, or IntakeError past a limit."""
        self.files += 1
        self.bytes += size
        if self.files > MAX_FILES:
            raise IntakeError(f"holds more than the limit of {MAX_FILES} files: not graded")
        if self.bytes > MAX_BYTES:
            raise IntakeError(f"larger than the limit of {MAX_BYTES // 1_000_000} MB ({name} passing it): not "
                              "graded; hand in without what does not belong in the workspace")


def _lay(path: Path, name: str, dest: Path, notes: list[str], budget: Budget,
         temporary: contextlib.ExitStack) -> None:
    """Lay the entry `path`, uploaded as `name`, over the workspace at `dest`: a stack of what is
    left to lay, each with its level of folders and whether it came out of a zip."""
    todo = [(path, name, 0, False)]
    while todo:
        path, name, level, unpacked = todo.pop()
        if name in JUNK_DIRS or JUNK_FILES.match(name) or name.startswith("."):
            continue
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISLNK(info.st_mode):
            continue
        if stat.S_ISDIR(info.st_mode):
            if level > MAX_DEPTH + TREE_DEPTH:
                raise IntakeError(f"holds folders nested more than {TREE_DEPTH} deep: not graded; hand in the "
                                  "workspace without them")
            try:
                root = workspace_root(path)
            except IntakeError:
                root = path
            if (root / "nano").is_dir():
                notes += copy_clean(root, dest, MAX_BYTES - budget.bytes, MAX_FILES - budget.files, budget)
                continue
            # notebooks beside loose .py files (Moodle's folder of uploads), or no workspace at all
            children = sorted(root.iterdir(), reverse=True)  # popped in order
            todo += [(child, child.name, level + 1, unpacked) for child in children]
        elif not stat.S_ISREG(info.st_mode):
            notes.append(f"ignored {trees.escaped(name)}: not a regular file")
        elif name.lower().endswith(".zip") and unpacked:
            notes.append(f"ignored {trees.escaped(name)}: a zip inside a zip is not unpacked; hand in one zip")
        elif name.lower().endswith(".zip"):
            tmp = Path(temporary.enter_context(tempfile.TemporaryDirectory(prefix="nano-intake-")))
            unpack(path, tmp, MAX_BYTES - budget.bytes, MAX_FILES - budget.files)
            todo.append((tmp, name, level, True))
        elif NOTEBOOK.match(name):
            _copy_file(path, dest / name, budget)
        elif name in NBGRADER_FILES:
            notes.append(f"ignored {name}: nbgrader's own file, which the grader writes")
        elif name.endswith(".py"):
            (dest / "nano").mkdir(exist_ok=True)
            _copy_file(path, dest / "nano" / name, budget)
        else:
            notes.append(f"ignored {trees.escaped(name)}: not a file of the workspace (a lecture notebook or "
                         "a nano/*.py)")


def _copy_file(path: Path, target: Path, budget: Budget) -> None:
    """Copy the regular file `path` to `target`, its size counted in `budget` before a byte is
    written and never more than it said (a file that grows meanwhile is cut there)."""
    source = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(source, "rb") as src:
        info = os.fstat(source)
        if not stat.S_ISREG(info.st_mode):
            raise IntakeError(f"{trees.escaped(path.name)} is not a regular file: not graded")
        budget.spend(info.st_size, trees.escaped(path.name))
        left = info.st_size
        with open(target, "wb") as out:
            while left > 0 and (chunk := src.read(min(left, 1 << 16))):
                out.write(chunk)
                left -= len(chunk)


def stage(hand_in: HandIn, dest: Path) -> list[str]:
    """Put the workspace of `hand_in` at `dest` (a course's submitted/<id>/<assignment>), cleaned.

    Returns notes on what was left out; raises IntakeError when there is nothing safe to grade.
    A hand-in already at `dest` (nbgrader's own submitted/ folder) is graded where it is; one of
    an LMS download's is assembled from its parts first.
    """
    if hand_in.parts:
        with tempfile.TemporaryDirectory(prefix="nano-intake-") as tmp:
            notes = assemble(hand_in.parts, Path(tmp, "workspace"))
            try:
                root = workspace_root(Path(tmp, "workspace"))
            except IntakeError as exc:  # say what was left out: a zip inside a zip, say
                raise IntakeError("; ".join([str(exc), *notes])) from None
            return notes + _replace(root, dest)
    if hand_in.source.is_dir():
        root = workspace_root(hand_in.source)
        if root.resolve() == dest.resolve():  # graded as it is, so measured as a copy would be
            odd = measure(dest, everything=True)[0]
            if odd:
                raise IntakeError(f"holds {odd[0]}, neither a folder nor a regular file (a link, a FIFO): not "
                                  "graded; hand in without it")
            _stamp(dest, kept=True)
            return []
        return _replace(root, dest)
    with tempfile.TemporaryDirectory(prefix="nano-intake-") as tmp:
        unpack(hand_in.source, Path(tmp))
        return _replace(workspace_root(Path(tmp)), dest)


def _replace(root: Path, dest: Path) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="nano-intake-") as tmp:
        fresh = Path(tmp, "copy")
        notes = copy_clean(root, fresh)  # raises before anything at dest is touched
        trees.remove(dest.parent)
        dest.parent.mkdir(parents=True)
        shutil.move(str(fresh), str(dest))
    _stamp(dest)
    return notes


def _stamp(dest: Path, kept: bool = False) -> None:
    """Give the hand-in the timestamp.txt nbgrader reads: now, the time it was taken in, or, when
    `kept`, the one `nbgrader collect` left (a hand-in graded in place)."""
    if kept and (dest / "timestamp.txt").is_file():
        return
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
    (dest / "timestamp.txt").write_text(stamp, encoding="utf-8")
