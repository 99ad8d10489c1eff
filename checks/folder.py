"""A scratch folder made for a rule's drive, read back without trusting what the code under
test left in it (see `Folder`)."""

import contextlib
import errno
import itertools
import os
import stat
from pathlib import Path

READ_LIMIT = 4_000_000  # bytes of one file read back from a scratch folder
NAMES_LIMIT = 10_000  # entries of one folder listed in a scratch folder


def escaped(name: str) -> str:
    """A file name as the file system gave it (undecodable bytes as lone surrogates, os.fsdecode)
    as text that holds none: each such byte as a backslash escape, "\\xff"."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


class Folder:
    """A scratch folder the driver made, reached only through its own file descriptor: what the
    subject does to the path (a symbolic link, a rename) cannot send a read or a write of the
    driver's anywhere else. What it reads back (`read`, `text`, `names`) is bounded, and never
    raises whatever the subject left there: a name is bytes to the file system, and comes back
    as text with each byte that is not UTF-8 escaped ("odd\\xffname"), so that it can be kept,
    compared and written anywhere."""

    _serial = itertools.count(1)

    def __init__(self, fd: int, path: Path, uid: int | None):
        self.fd, self.path, self.uid = fd, path, uid

    @classmethod
    def make(cls, parent_fd: int, parent: Path, uid: int | None) -> "Folder":
        while True:
            name = f"s{next(cls._serial)}"
            try:
                os.mkdir(name, 0o755, dir_fd=parent_fd)
                break
            except FileExistsError:
                continue
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent_fd)
        if uid is not None:
            os.fchown(fd, uid, uid)
        return cls(fd, parent / name, uid)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def _walk(self, parts: list[str], create: bool) -> int:
        """A new descriptor of the folder `parts` below this one, not following links."""
        fd = os.dup(self.fd)
        try:
            for part in parts:
                if part in ("", ".", ".."):
                    raise OSError(errno.EINVAL, f"not a plain path component: {part!r}")
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, 0o755, dir_fd=fd)
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                if create and self.uid is not None:
                    os.fchown(inner, self.uid, self.uid)
                os.close(fd)
                fd = inner
            return fd
        except BaseException:
            os.close(fd)
            raise

    def write(self, path: str, text: str) -> None:
        *folders, name = path.split("/")
        fd = self._walk(folders, create=True)
        try:
            out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=fd)
        finally:
            os.close(fd)
        try:
            if self.uid is not None:
                os.fchown(out, self.uid, self.uid)
            data = memoryview(text.encode("utf-8"))
            while data:
                data = data[os.write(out, data):]
        finally:
            os.close(out)

    def mkdir(self, path: str) -> None:
        os.close(self._walk(path.split("/"), create=True))

    def read(self, path: str, limit: int = READ_LIMIT) -> bytes | None:
        """The bytes of the regular file at `path` (at most `limit`), or None if there is none
        (or it is a link, a FIFO, a folder...)."""
        *folders, name = path.split("/")
        try:
            fd = self._walk(folders, create=False)
        except (OSError, ValueError):
            return None
        try:
            inner = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
        except (OSError, ValueError):
            return None
        finally:
            os.close(fd)
        try:
            if not stat.S_ISREG(os.fstat(inner).st_mode):
                return None
            chunks, left = [], limit
            while left > 0 and (chunk := os.read(inner, min(left, 1 << 20))):
                chunks.append(chunk)
                left -= len(chunk)
            return b"".join(chunks)
        except OSError:
            return None
        finally:
            os.close(inner)

    def names(self, path: str = "", limit: int = NAMES_LIMIT) -> list[str] | None:
        """The sorted names in the folder at `path` (this one by default), each escaped (see the
        class), or None if there is none, it cannot be listed or it holds more than `limit`."""
        try:
            fd = self._walk([p for p in path.split("/") if p], create=False)
        except (OSError, ValueError):
            return None
        try:
            with os.scandir(fd) as entries:
                found = [escaped(entry.name) for entry in itertools.islice(entries, limit + 1)]
        except OSError:
            return None
        finally:
            os.close(fd)
        return sorted(found) if len(found) <= limit else None

    def text(self, path: str, limit: int = READ_LIMIT) -> str | None:
        """The file at `path` as UTF-8 text, or None if it is missing or not text."""
        data = self.read(path, limit)
        try:
            return None if data is None else data.decode("utf-8")
        except UnicodeDecodeError:
            return None
