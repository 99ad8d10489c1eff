"""One run at a time on a course.

`nano-course grade` and `nano-course build` hold `COURSE/.lock` while they work, so that a second
one started on the same course refuses in one sentence instead of deleting the first one's
scratch folder, or its release, under it. The lock is the kernel's (flock): a run that dies, or
is stopped with Ctrl-C, lets go of it, and the file left behind only says who held it last.
"""

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

NAME = ".lock"


class Busy(RuntimeError):
    """Another run holds the course."""


def acquire(path: Path, mode: int = 0o644) -> int | None:
    """The file at `path` (made with `mode` if need be) open, its exclusive lock (fcntl.flock)
    taken; None if another open file holds that lock. A file this user may not write, made by
    another user, is opened to read: it locks as well."""
    flags = os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | flags, mode)
    except PermissionError:
        fd = os.open(path, os.O_RDONLY | flags)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


@contextlib.contextmanager
def holding(course: Path, doing: str) -> Iterator[None]:
    """Hold `course`'s lock (making the folder if need be) while `doing` ("grade") runs; Busy,
    naming the run that holds it, if another does."""
    course.mkdir(parents=True, exist_ok=True)
    fd = acquire(course / NAME)
    if fd is None:
        who = "another nano-course run"
        with contextlib.suppress(OSError):
            who = (course / NAME).read_bytes()[:200].decode("utf-8", "replace").strip() or who
        raise Busy(f"{course} is in use: {who} is working on it; wait for it to end, then run this again")
    try:
        with contextlib.suppress(OSError):  # opened to read only: it locks, but names no one
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"nano-course {doing} (process {os.getpid()})\n".encode(), 0)
        yield
    finally:
        os.close(fd)
