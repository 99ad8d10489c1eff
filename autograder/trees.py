"""Folder trees that student code may have made: walked, bounded and removed without recursion.

Student code can leave any tree in a folder it may write: thousands of levels deep (past
PATH_MAX, past Python's recursion limit, which os.walk, shutil.rmtree and shutil.copytree meet
once per level), folders of mode 000, symbolic links, FIFOs. Everything here works on open
folders (the *at system calls through `dir_fd`), never on paths below the top, never follows a
link, never recurses, and holds a bounded number of folders open at once:

- `walk` visits a tree depth-first, names in order, up to `Bounds` (depth and entries), and
  says which bound it passed;
- `bound` is `walk` that also removes what lies past the bounds, so that what is left can be
  walked by anyone (nbgrader's own os.walk included);
- `copy` copies the entries of a tree that a caller wants, within the bounds;
- `remove` removes a tree of any depth and any modes, and never raises.
"""

import contextlib
import itertools
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autograder.limits import TREE_DEPTH, TREE_ENTRIES
from checks.folder import escaped  # noqa: F401 (intake names what it refuses with it)

OPEN = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
HELD = 32  # folders `remove` holds open at once; a deeper folder is moved up to be removed later
_aside = itertools.count()


@dataclass(frozen=True)
class Bounds:
    """How far a tree student code made is followed: levels below its top, and entries in all."""

    depth: int = TREE_DEPTH
    entries: int = TREE_ENTRIES


@dataclass(frozen=True)
class Entry:
    """One entry of a walked tree: its folder (open while it is visited), name, lstat, level
    (1 for what lies in the top folder itself) and path below the top, as names (ending in `name`)."""

    folder: int
    name: str
    info: os.stat_result
    depth: int
    path: tuple[str, ...]


def walk(top: Path, visit: Callable[[Entry], None], bounds: Bounds = Bounds(),
         past: Callable[[Entry], None] | None = None, inside: Callable[[Entry], bool] | None = None) -> str | None:
    """Call `visit` on every entry of `top` within `bounds` (depth-first, names in order, links
    not followed), and `past` on each entry beyond them (instead of looking inside it); a folder
    for which `inside` says False is visited but not looked into. Returns
    None, or which bound the tree passed, in words. An entry that vanishes or cannot be read
    is skipped; `top` itself is not visited. At most `bounds.depth` folders are open at once."""
    try:
        first = os.open(top, OPEN)
    except OSError:
        return None
    passed = None
    seen = 0
    stack = [(first, iter(_names(first)))]  # open folders from the top down, each with its names left
    above: list[str] = []  # the names of the open folders below the top
    try:
        while stack:
            folder, names = stack[-1]
            name = next(names, None)
            if name is None:
                os.close(stack.pop()[0])
                del above[max(len(stack) - 1, 0):]
                continue
            try:
                info = os.lstat(name, dir_fd=folder)
            except OSError:
                continue
            entry = Entry(folder, name, info, len(stack), (*above, name))
            if seen >= bounds.entries or len(stack) > bounds.depth:
                passed = passed or (f"more than {bounds.entries} files and folders" if seen >= bounds.entries
                                    else f"folders nested more than {bounds.depth} deep")
                if past is not None:
                    past(entry)
                continue
            seen += 1
            visit(entry)
            if stat.S_ISDIR(info.st_mode) and (inside is None or inside(entry)):
                with contextlib.suppress(OSError):
                    inner = os.open(name, OPEN, dir_fd=folder)
                    stack.append((inner, iter(_names(inner))))
                    above.append(name)
    finally:
        for folder, _ in stack:
            with contextlib.suppress(OSError):
                os.close(folder)
    return passed


def _names(folder: int) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def bound(top: Path, visit: Callable[[Entry], None] = lambda entry: None, bounds: Bounds = Bounds()) -> str | None:
    """`walk`, removing every entry past `bounds`: afterwards `top` holds at most `bounds.entries`
    entries, none deeper than `bounds.depth`. Returns which bound it passed, or None."""
    return walk(top, visit, bounds, past=lambda entry: remove_at(entry.folder, entry.name))


def copy(top: Path, into: int, wanted: Callable[[tuple[str, ...]], bool], bounds: Bounds = Bounds(),
         inside: Callable[[Entry], bool] | None = None) -> None:
    """Copy what `top` holds within `bounds` into the open folder `into`: each folder and regular
    file whose path below `top` (its names, as a tuple) is `wanted`; nothing else (no links, no
    FIFOs, nothing below a folder not copied). Files get mode 0644 (0755 if any may run it) and
    folders 0755."""
    made = [into]  # the folder made for each level of the walk, from `into` down

    def visit(entry: Entry) -> None:
        for folder in made[entry.depth:]:  # the folders of the entries walked before this one
            os.close(folder)
        del made[entry.depth:]
        if len(made) < entry.depth or not wanted(entry.path):
            return
        parent, mode = made[entry.depth - 1], entry.info.st_mode
        with contextlib.suppress(OSError):
            if stat.S_ISDIR(mode):
                with contextlib.suppress(FileExistsError):
                    os.mkdir(entry.name, 0o755, dir_fd=parent)
                made.append(os.open(entry.name, OPEN, dir_fd=parent))
            elif stat.S_ISREG(mode):
                source = os.open(entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=entry.folder)
                try:
                    target = os.open(entry.name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                                     0o755 if mode & 0o111 else 0o644, dir_fd=parent)
                    with open(source, "rb", closefd=False) as src, open(target, "wb") as dst:
                        shutil.copyfileobj(src, dst)
                finally:
                    os.close(source)

    try:
        walk(top, visit, bounds, inside=inside)
    finally:
        for folder in made[1:]:
            with contextlib.suppress(OSError):
                os.close(folder)


def remove(path: Path) -> None:
    """Remove `path` (a file, a link, or a folder of any depth and any modes) if it is there, as
    far as this user can; never raises OSError, never follows a link."""
    path = Path(os.path.abspath(path))
    try:
        parent = os.open(path.parent, OPEN)
    except OSError:
        return
    try:
        remove_at(parent, path.name)
    finally:
        os.close(parent)


def remove_at(parent: int, name: str) -> None:
    """Remove `name` in the open folder `parent`, as `remove` does.

    Depth-first, holding at most HELD folders open: a folder found deeper is first moved up into
    `parent` (under a name of its own) and removed after, so that any depth is removed with a
    bounded number of open files and no path longer than one name."""
    todo = [name]
    while todo:
        _remove_one(parent, todo.pop(), todo)


def _remove_one(parent: int, name: str, todo: list[str]) -> None:
    with contextlib.suppress(OSError):
        if not stat.S_ISDIR(os.lstat(name, dir_fd=parent).st_mode):
            _unlink(parent, name)
            return
    stuck: set[tuple[int, int]] = set()  # folders that could not be removed or moved: left alone
    chain: list[tuple[int, str]] = []  # (open folder, its name in the folder before it)
    try:
        opened = _open(parent, name)
        if opened is None:
            return
        chain.append((opened, name))
        while chain:
            folder = chain[-1][0]
            deeper = None
            for entry in _names(folder):
                try:
                    info = os.lstat(entry, dir_fd=folder)
                except OSError:
                    continue
                if not stat.S_ISDIR(info.st_mode):
                    _unlink(folder, entry)
                elif (info.st_dev, info.st_ino) in stuck:
                    continue
                elif len(chain) >= HELD:
                    aside = _aside_name(parent)
                    try:
                        os.rename(entry, aside, src_dir_fd=folder, dst_dir_fd=parent)
                        todo.append(aside)
                    except OSError:
                        stuck.add((info.st_dev, info.st_ino))
                else:
                    deeper = _open(folder, entry)
                    if deeper is not None:
                        chain.append((deeper, entry))
                        break
                    stuck.add((info.st_dev, info.st_ino))
            if deeper is None:
                done, done_name = chain.pop()
                info = os.fstat(done)
                os.close(done)
                try:
                    os.rmdir(done_name, dir_fd=chain[-1][0] if chain else parent)
                except OSError:
                    stuck.add((info.st_dev, info.st_ino))
    finally:
        for folder, _ in chain:
            with contextlib.suppress(OSError):
                os.close(folder)


def _open(parent: int, name: str) -> int | None:
    """`name` in `parent` opened as a folder (made readable and writable by its owner first if
    it was not), or None if it is not a folder or cannot be opened."""
    for attempt in range(2):
        try:
            folder = os.open(name, OPEN, dir_fd=parent)
        except PermissionError:
            if attempt:
                return None
            with contextlib.suppress(OSError):
                os.chmod(name, 0o700, dir_fd=parent)  # it is a folder (lstat), not a link
            continue
        except OSError:
            return None
        with contextlib.suppress(OSError):
            if os.fstat(folder).st_mode & 0o700 != 0o700:
                os.chmod(folder, 0o700)
        return folder
    return None


def _unlink(folder: int, name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=folder)


def _aside_name(parent: int) -> str:
    while True:
        name = f".nano-removing-{os.getpid()}-{next(_aside)}"
        try:
            os.lstat(name, dir_fd=parent)
        except FileNotFoundError:
            return name
        except OSError:
            return name
