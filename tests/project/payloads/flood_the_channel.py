"""Appended to an otherwise perfect hand-in's nano/tools.py (test_unforgeable): in the check's
process (where the module `wire` is loaded), read_file first floods every pipe its process holds
open for writing, the check's channel among them: frames of the protocol's own kind, 1.9 MB
each and 190 MB in all, answering nothing that was asked, then a gigabyte of bytes with no
frame around them. In a notebook's kernel it only reads. The flood must cost this hand-in the
behaviours it flooded in, and the grader no more than a bounded amount of memory."""
import os as _os
import stat as _stat
import sys as _sys

_real_read_file = read_file  # noqa: F821 (nano/tools.py's)


def _pipes() -> list[int]:
    found = []
    for name in _os.listdir("/proc/self/fd"):
        try:
            fd = int(name)
            if _stat.S_ISFIFO(_os.fstat(fd).st_mode):
                found.append(fd)
        except (OSError, ValueError):
            pass
    return found


def _flood() -> None:
    wire = _sys.modules.get("wire")
    if wire is None:
        return
    junk = wire.encode(wire.Result(10 ** 9, {"value": "x" * 1_900_000}))
    garbage = b"\x7f" * (1 << 20)
    for fd in _pipes():
        try:
            for _ in range(100):
                _os.write(fd, junk)
            for _ in range(1024):
                _os.write(fd, garbage)
        except OSError:
            continue


def read_file(path: str) -> str:
    _flood()
    return _real_read_file(path)
