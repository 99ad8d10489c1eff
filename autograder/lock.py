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


@contextlib.contextmanager
def holding(course: Path, doing: str) -> Iterator[None]:
    """Hold `course`'s lock (making the folder if need be) while `doing` ("grade") runs; Busy,
    naming the run that holds it, if another does."""
    course.mkdir(parents=True, exist_ok=True)
    path, flags = course / NAME, os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        fd, writable = os.open(path, os.O_RDWR | os.O_CREAT | flags, 0o644), True
    except PermissionError:  # made by another user: a read-only descriptor locks as well
        fd, writable = os.open(path, os.O_RDONLY | flags), False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            who = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another nano-course run"
            raise Busy(f"{course} is in use: {who} is working on it; wait for it to end, then run this "
                       "again") from None
        if writable:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"nano-course {doing} (process {os.getpid()})\n".encode(), 0)
        yield
    finally:
        os.close(fd)
