"""The processes a call left running, read from /proc: by parent (`descendants`), by working
directory (`working_in`), whether each still runs (`alive`: not a zombie, not sent a signal
that ends it), and how long their threads waited for a CPU (`cpu_waits`). Where there is no
/proc, none is found."""

import contextlib
import os
import signal

# the signals that end a process that neither blocks, ignores nor catches them
ENDING = sum(1 << (s - 1) for s in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT))


def descendants(pid: int) -> list[int]:
    """`pid` and the processes it started, and they started, that still run: by parent, read
    from /proc (a process whose parent ended is given to another, and is no longer found)."""
    children: dict[int, list[int]] = {}
    for child, parent in parents().items():
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        state = status(current)
        if state is not None and alive(state):
            found.append(current)
        todo += children.get(current, [])
    return found


def working_in(folder) -> list[int]:
    """The processes that still run in `folder` or below it, by their working directory: one
    whose parent ended (given to another, so no longer a descendant) keeps its folder."""
    top = os.path.realpath(folder)
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        try:
            where = os.readlink(f"/proc/{entry}/cwd") if entry.isdigit() else ""
        except OSError:
            continue
        if where == top or where.startswith(top + os.sep):
            state = status(int(entry))
            if state is not None and alive(state):
                found.append(int(entry))
    return found


def status(pid: int) -> dict[bytes, bytes] | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            return dict(row.split(b":", 1) for row in f.read(16384).splitlines() if b":" in row)
    except OSError:
        return None


def alive(status: dict[bytes, bytes]) -> bool:
    """Whether the process of `status` runs: not a zombie, not sent a signal that ends it."""
    try:
        state = status[b"State"].split()[0]
        masks = {k: int(status[k].strip(), 16) for k in (b"SigPnd", b"ShdPnd", b"SigBlk", b"SigIgn", b"SigCgt")}
    except (KeyError, IndexError, ValueError):
        return False
    pending = (masks[b"SigPnd"] | masks[b"ShdPnd"]) & ~(masks[b"SigBlk"] | masks[b"SigIgn"] | masks[b"SigCgt"])
    return state not in (b"Z", b"X") and not pending & ENDING


def parents() -> dict[int, int]:
    """Every process of this machine, and its parent's pid."""
    found: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:  # no /proc (macOS): no process is found
        return found
    for entry in entries:
        if entry.isdigit():
            state = status(int(entry))
            with contextlib.suppress(KeyError, ValueError, TypeError):
                found[int(entry)] = int(state[b"PPid"])
    return found


def cpu_waits(pids) -> dict[int, float]:
    """Seconds each thread of the processes `pids` and their descendants has spent runnable but
    waiting for a CPU that others held, by thread id (the run-queue delay of
    /proc/<pid>/task/<tid>/schedstat). Followed by /proc's `children` lists, without recursion and
    without reading every process of the machine: cheap enough to take before every cell."""
    found: dict[int, float] = {}
    todo, seen = list(pids), set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in threads:
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                    found[int(tid)] = int(f.read().split()[1]) / 1e9
            with contextlib.suppress(OSError, ValueError):
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    todo += [int(child) for child in f.read().split()]
    return found


def waited(before: dict[int, float], after: dict[int, float]) -> float:
    """The longest any one thread waited for a CPU between two `cpu_waits`: a thread new since
    `before` counts all it waited."""
    return max((wait - before.get(tid, 0.0) for tid, wait in after.items()), default=0.0)
