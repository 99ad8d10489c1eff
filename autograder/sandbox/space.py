"""Room for student code's writes, bounded by the system: a size-limited tmpfs on each folder it may write.

Per-file limits (RLIMIT_FSIZE) do not bound a total: 130 pre-allocated files of 62 MB each are
7.9 GB on disk in a second. So, as root, a grading process moves into a mount namespace of its
own (`own_namespace`, at its start) and mounts a tmpfs of WRITE_SIZE bytes and WRITE_FILES
inodes on every folder it hands to student code (`bounded`): the kernels' workspaces, their
sockets' folder, the subject's folder. A write past it fails in the student's code (ENOSPC);
nothing reaches the disk; and the mounts, invisible to every other process, go with the grading
process however it ends, so a crashed run leaves none behind. Once the code has stopped, `room`
gives the grader back room to write its own results there (nbgrader's graded notebook). The sandbox's own /tmp is a tmpfs
already (bwrap's --size, SandboxLimits.tmp_size; inside.py bounds its inodes, tmp_files).

Where there is no namespace of its own (not root, or a process that shares its mounts with the
coordinator), `bounded` mounts nothing and says so: the writes are then bounded per file only.
"""

import ctypes
import ctypes.util
import os
from pathlib import Path

from autograder.limits import WRITE_FILES, WRITE_ROOM, WRITE_SIZE

CLONE_NEWNS = 0x00020000
MS_REMOUNT, MS_REC, MS_PRIVATE = 32, 0x4000, 1 << 18
MNT_DETACH = 2

_own = False  # this process has a mount namespace of its own
_mounted: set[Path] = set()


def _libc():
    return ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def own_namespace() -> bool:
    """Move this process (before it starts any thread) into a mount namespace of its own, whose
    mounts propagate nowhere; True if it now has one (as root), False otherwise."""
    global _own
    if _own or os.geteuid() != 0:
        return _own
    libc = _libc()
    try:
        _check(libc.unshare(CLONE_NEWNS), "unshare")
        _check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    except OSError:
        return False
    _own = True
    return True


def bounded(folder: Path, size: int = WRITE_SIZE, files: int = WRITE_FILES) -> bool:
    """Mount a tmpfs of `size` bytes and `files` inodes on the (empty) `folder`, if this process
    has a namespace of its own; True if it did. What `folder` held stays on the disk below it,
    unseen until `release`."""
    if not _own:
        return False
    folder = Path(folder).resolve()
    options = f"size={size},nr_inodes={files},mode=0755".encode()
    _check(_libc().mount(b"tmpfs", os.fsencode(folder), b"tmpfs", 0, options), f"mount a tmpfs on {folder}")
    _mounted.add(folder)
    return True


def room(folder: Path, free: int = WRITE_ROOM, files: int = 256) -> None:
    """Grow the tmpfs that holds `folder` (if `bounded` mounted one) until `free` bytes and
    `files` inodes of it are free: for the grader's own writes there, however full student code
    left it. Each call adds at most that much to what the tmpfs may hold."""
    folder = Path(folder).resolve()
    mount = next((m for m in _mounted if folder.is_relative_to(m)), None)
    if mount is None:
        return
    info = os.statvfs(mount)
    if info.f_bavail * info.f_frsize >= free and info.f_favail >= files:
        return
    size = (info.f_blocks - info.f_bfree) * info.f_frsize + free
    inodes = info.f_files - info.f_ffree + files
    options = f"size={max(size, info.f_blocks * info.f_frsize)},nr_inodes={max(inodes, info.f_files)}"
    _check(_libc().mount(b"tmpfs", os.fsencode(mount), b"tmpfs", MS_REMOUNT, options.encode()),
           f"grow the tmpfs on {mount}")


def release(folder: Path) -> None:
    """Unmount the tmpfs `bounded` put on `folder` (and drop everything written in it)."""
    folder = Path(folder).resolve()
    if folder in _mounted:
        _mounted.discard(folder)
        _check(_libc().umount2(os.fsencode(folder), MNT_DETACH), f"unmount {folder}")
