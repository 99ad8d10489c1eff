"""The check's driver: a hand-in's functions, run in a subject process and observed from here.

This is the trusted side of the check. It never imports student code. It starts the subject
(subject/harness.py, in the sandbox), asks it across one bounded channel (subject/wire.py) to
call the hand-in's functions, and records everything that can be recorded outside it:

- what the code under test sends to a double or a proxy (a scripted model, an asker, a stand-in
  for run_tool) arrives here as an Invoke, is recorded here and answered from here;
- the Messages API server the SDK talks to (nano/server.py) runs here, behind a relay;
- the files a tool wrote are read here, from the scratch folder, without following links;
- time is this process's clock around each call;
- whether a command's processes still run is read here, from /proc: the processes of the
  sandbox's pid namespace, which nothing in it can leave.

The subject decides only what its functions return and what they send: to forge an
observation, student code must do the work. Whatever the subject sends is bounded (`Bounds`):
a frame too large, an item or a hand-in over its budget, too many calls to the doubles, or an
item past its time ends the subject (`Lost`), costing that item only. Values are counted before
they are parsed (wire.values_in): a frame or an item past its count of values ends the subject
too, and the item's outcome is a value too large to judge (`unjudged`).

A behaviour's `drive(subject, inputs)` (behaviour.py) uses a `Subject` like this:

    with subject.scratch({"notes.txt": "hi\\n"}) as folder:
        got = subject.call("nano.tools.read_file", "notes.txt")    # {"value": ..., "type": "str"}
        written = folder.read("out.txt")                           # read here, not by the subject
"""

import contextlib
import fcntl
import itertools
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from autograder import trees
from autograder.course import ROOT
from autograder.limits import BUSY_CELL
from autograder.sandbox import bwrap
from autograder.sandbox import space
from checks.driving import Driving, Lost
from checks.folder import Folder
from checks.processes import alive, cpu_waits, descendants, parents, status, waited
from checks.subject import wire

HARNESS = ROOT / "checks" / "subject"
SCRATCH_ROOM = 1 << 20  # bytes of the subject's tmpfs made free for each behaviour's scratch files (space.room)


@dataclass(frozen=True)
class Bounds:
    """What one subject may send and take, before it is stopped."""

    frame: int = wire.FRAME  # bytes of one message
    item: int = 32_000_000  # bytes of all the messages of one behaviour
    hand_in: int = 128_000_000  # bytes of all the messages of one hand-in, every subject it took
    invokes: int = 20_000  # calls of doubles and proxies in one behaviour
    # values (wire.values_in) of one message is wire.VALUES, 100,000; parsed, each is a Python object
    item_values: int = 500_000  # of all the messages of one behaviour
    hand_in_values: int = 4_000_000  # of all the messages of one hand-in


COPIED = ("nano", "fixtures")  # what a subject's copy of a workspace holds: the package, its data


class Subject(Driving):
    """One hand-in's `nano`, in a process of its own: started on first use, started afresh after
    it is lost. `workspace`'s nano/ and fixtures/ are copied for each process; `answers` are the
    hand-in's answer cells ({grade_id: source}), run in the subject when a behaviour reads them,
    or `values(names)` gives their values instead (a notebook's kernel has them); `nice` is the
    process's CPU priority (students' run below the reference's)."""

    def __init__(self, workspace: Path, answers: Mapping[str, str] | None = None, *, unsafe: bool = False,
                 bounds: Bounds = Bounds(), nice: int | None = None, startup: float = 60.0,
                 values: Callable[[list], dict] | None = None):
        self.workspace = Path(workspace)
        self.sources = dict(answers or {})
        self.values = values
        self.unsafe, self.bounds, self.nice, self.startup = unsafe, bounds, nice, startup
        self.proc: subprocess.Popen | None = None
        self.sent = 0  # bytes read from every process of this hand-in so far
        self.counted = 0  # values in them (wire.values_in)
        self.deadline: float | None = None
        self._clock: tuple[float, float, dict[int, float]] | None = None  # (start, seconds, CPU waits then)
        super().__init__()
        self._servers: list = []
        self.lost: str | None = None  # why the last process was lost
        self.passed: str | None = None  # which bound a tree its processes left passed (bwrap.settle)
        self._sandbox: tuple[int, int | None] | None = None  # (bwrap's pid, the first process of its namespace)
        self.unjudged: str | None = None  # what of this item's values went past the wire's bounds

    # --- the process ----------------------------------------------------------------------

    def _start(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="nano-subject-"))
        if not self.unsafe:
            space.bounded(self.tmp)  # all the subject may write, its own copy of nano/ included
        self.work = self.tmp / "work"
        self.work.mkdir()
        for name in COPIED:
            if (self.workspace / name).is_dir():
                shutil.copytree(self.workspace / name, self.work / name, symlinks=False,
                                ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        (self.tmp / "harness").mkdir()
        for name in ("harness.py", "wire.py"):
            shutil.copy(HARNESS / name, self.tmp / "harness" / name)
        (self.tmp / "scratch").mkdir()
        to_subject, self._in = os.pipe()
        self._out, from_subject = os.pipe()
        argv = [sys.executable, "-I", str(self.tmp / "harness" / "harness.py"), str(to_subject),
                str(from_subject), str(self.work)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        env.update(NANO_HEADLESS="1", HOME=str(self.tmp), TMPDIR=str(self.tmp))
        if not self.unsafe:
            limits = bwrap.LIMITS if self.nice is None else bwrap.limits(nice=self.nice)
            argv = bwrap.wrap(argv, workdir=self.work, writable=[self.tmp], env=env, limits=limits)
        self.uid = None if self.unsafe else bwrap.owner(self.tmp)
        # made after the hand-over, so the subject's uid may enter them but not change them
        (self.tmp / "sockets").mkdir(mode=0o755)
        self._scratch = os.open(self.tmp / "scratch", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        self._sockets = os.open(self.tmp / "sockets", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        self.proc = subprocess.Popen(argv, cwd=self.work, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     pass_fds=(to_subject, from_subject), start_new_session=True)
        os.close(to_subject)
        os.close(from_subject)
        os.set_blocking(self._in, False)
        self.reader = wire.Reader(self._out, self.bounds.frame, self.bounds.hand_in - self.sent,
                                  self.bounds.hand_in_values - self.counted)
        self.reader.since, self.reader.where = -self.counted, "all of the hand-in's messages"
        self.stood.clear()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def close(self) -> None:
        """End the process (and all it started) and remove its folders."""
        for server in self._servers:
            server.close()
        self._servers.clear()
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        self.sent += self.reader.total
        self.counted += self.reader.counted
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        for fd in (self._in, self._out, self._scratch, self._sockets):
            with contextlib.suppress(OSError):
                os.close(fd)
        if not self.unsafe:
            self.passed = bwrap.settle(self.work, self.tmp) or self.passed
            with contextlib.suppress(OSError):
                space.release(self.tmp)
        trees.remove(self.tmp)

    def _lose(self, why: str):
        self.lost = why
        self.close()
        raise Lost(why)

    # --- one behaviour --------------------------------------------------------------------

    @contextlib.contextmanager
    def item(self, seconds: float, answers=()) -> Iterator["Subject"]:
        """One behaviour's time: its requests must all be answered within `seconds` of its own
        (what its processes waited for a CPU others held is added, up to BUSY_CELL times `seconds`:
        `_more_time`; a process started for it first gets `startup` seconds to start), its
        messages within the item's bounds.
        `answers`: the answer cells (grade_ids) it may read. Everything it set up in the subject
        is undone after. A value past the wire's bounds (wire.past_bounds) that crossed in it is
        kept in `unjudged`, in words: the item's outcome is then that value, too deep or too large
        to judge."""
        self.lost = self.unjudged = None
        self.cells = tuple(answers)
        if not self.alive():
            self.close()
            self._start()
            self._time(self.startup)
            self._request(wire.Read(next(self._ids), "sys.version"))  # it has started: its Python is up
        space.room(self.tmp, SCRATCH_ROOM)  # for the scratch folder's files, however full its code left it
        self._time(seconds)
        left = self.bounds.hand_in - self.sent - self.reader.total
        self.reader.budget = self.reader.total + max(0, min(self.bounds.item, left))
        left = self.bounds.hand_in_values - self.counted - self.reader.counted
        self.reader.values = self.reader.counted + max(0, min(self.bounds.item_values, left))
        self.reader.since = self.reader.counted if self.bounds.item_values <= left else -self.counted
        self.reader.where = ("one behaviour's messages" if self.bounds.item_values <= left
                             else "all of the hand-in's messages")
        self.invokes = 0
        self.handlers.clear()
        try:
            yield self
        finally:
            for server in self._servers:
                server.close()
            self._servers.clear()
            self._clock = None
            if self.alive():
                self.deadline = max(self.deadline, time.monotonic() + 10)
                with contextlib.suppress(Lost):
                    self._request(wire.Reset(next(self._ids)))
            self.stood.clear()
            self.deadline = None

    # --- its time -------------------------------------------------------------------------

    def _time(self, seconds: float) -> None:
        """Start the clock of a behaviour (or of the process's start): `seconds` of its own."""
        now = time.monotonic()
        self.deadline = now + seconds
        self._clock = (now, seconds, cpu_waits([self.proc.pid]))

    def _more_time(self) -> bool:
        """The deadline has passed: move it by the time the subject's processes waited for a CPU
        that other processes held (a busy machine; nice puts students' subjects behind the
        rest), up to BUSY_CELL times the behaviour's seconds in all, as a kernel's cell is timed.
        False when the time used was its own, or the stretch is used up."""
        if self._clock is None or not self.alive():
            return False
        start, seconds, before = self._clock
        now = time.monotonic()
        own = now - start - waited(before, cpu_waits([self.proc.pid]))
        later = min(now + seconds - own, start + BUSY_CELL * seconds)
        if own >= seconds or later <= now:
            return False
        self.deadline = later
        return True

    # --- requests -------------------------------------------------------------------------

    def _send(self, message) -> None:
        data = memoryview(wire.encode(message))
        while data:
            wait = None if self.deadline is None else self.deadline - time.monotonic()
            if wait is not None and wait <= 0:
                if not self._more_time():
                    self._lose("it stopped reading the driver's messages")
                continue  # the wait again, to the moved deadline
            _, ready, _ = select.select([], [self._in], [], wait)
            if not ready:
                continue
            try:
                data = data[os.write(self._in, data):]
            except BlockingIOError:
                continue
            except OSError:
                self._lose("it closed its channel")

    def _request(self, message) -> dict:
        if not self.alive():
            self._lose(self.lost or "it is not running")
        self._send(message)
        while True:
            try:
                got = self.reader.read(self.deadline)
            except wire.TooLarge as exc:  # not parsed, so not answered: the item's outcome, and its end
                self.unjudged = self.unjudged or exc.why
                self._lose(f"it sent a value too large to judge ({exc.why.removeprefix(wire.TOO_LARGE)})")
            except wire.ProtocolError as exc:
                self._lose(f"it sent too much or garbled its channel ({exc})")
            self.unjudged = self.unjudged or wire.past_bounds(got)
            if got is None:
                if self.deadline is not None and time.monotonic() >= self.deadline and self._more_time():
                    continue
                self._lose("it died, or ran past its time" if self.alive() or self.proc is None
                           else "it died")
            if isinstance(got, wire.Result) and got.id == message.id:
                return got.outcome
            if isinstance(got, wire.Invoke):
                self._answer(got)

    def _answer(self, invoke: wire.Invoke) -> None:
        self.invokes += 1
        if self.invokes > self.bounds.invokes:
            self._lose(f"it called the doubles more than {self.bounds.invokes} times in one behaviour")
        self._send(self.reply(invoke))

    def answers(self, names) -> dict:
        """The values `names` have after the behaviour's answer cells (see `item`) ran."""
        if self.values is not None:
            return self.values(list(names))
        sources = {g: s for g, s in self.sources.items() if g in set(self.cells)}
        outcome = self._request(wire.Answers(next(self._ids), sources, list(names)))
        value = outcome.get("value")
        return value if isinstance(value, dict) else {name: {"missing": True} for name in names}

    # --- what is observed here ------------------------------------------------------------

    @contextlib.contextmanager
    def scratch(self, files: Mapping[str, str] | None = None) -> Iterator["Folder"]:
        """A new folder holding `files` ({path: text}, written here as UTF-8), the subject's
        working directory for the block."""
        folder = Folder.make(self._scratch, self.tmp / "scratch", self.uid)
        try:
            for path, text in (files or {}).items():
                folder.write(path, text)
        except OSError as exc:
            folder.close()
            self._lose(f"its scratch folder could not be prepared: {exc}")
        self.chdir(folder.path)
        try:
            yield folder
        finally:
            folder.close()
            if self.alive():
                with contextlib.suppress(Lost):
                    self.chdir(self.work)

    def serve(self, server) -> str:
        """The URL the subject's SDK must use to reach `server` (a started nano.server
        MessagesServer of this process): a relay across the sandbox's edge."""
        bridge = Bridge(self._sockets, self.tmp / "sockets", server.url, self.uid)
        self._servers.append(bridge)
        outcome = self._request(wire.Relay(next(self._ids), str(bridge.path)))
        url = outcome.get("value")
        if not isinstance(url, str):
            self._lose("its relay to the Messages API server did not start")
        return url

    def processes(self) -> list[int]:
        """The processes the subject's code started that still run (pids of this machine), read
        from /proc here. In the sandbox: every process in the sandbox's pid namespace but the
        harness (`running`): nothing in it can leave the namespace, whatever it names itself or
        however it detaches. Unconfined (`unsafe`, trusted code only): the subject's descendants,
        which a process whose parent has ended escapes."""
        if self.proc is None or self.proc.poll() is not None:
            return []
        if self.unsafe:
            return [pid for pid in descendants(self.proc.pid) if pid != self.proc.pid]
        if self._sandbox is None or self._sandbox[0] != self.proc.pid:
            self._sandbox = (self.proc.pid, first_inside(self.proc.pid))
        return [] if self._sandbox[1] is None else running(self._sandbox[1])


# the signals that end a process that neither blocks, ignores nor catches them
NS_GET_PARENT = 0xB702  # ioctl_ns(2): the pid namespace a pid namespace was made in


def running(first: int, spare: int = 2) -> list[int]:
    """The processes still running in the pid namespace of the process `first` (a pid of this
    machine), or in any pid namespace made inside it, but the namespace's own first `spare` (pids
    1 and 2 inside a sandbox: bwrap's, and the command bwrap ran, the subject's harness). Read
    from /proc here, outside any sandbox: a process cannot leave its pid namespace. Zombies do
    not count, nor does a process already sent a signal that ends it (one it neither blocks,
    ignores nor catches): on a loaded machine a killed process at low priority can take a while
    to be scheduled and die, and it is as good as dead."""
    try:
        mine = os.stat(f"/proc/{first}/ns/pid")
    except OSError:
        return []
    sandbox = (mine.st_dev, mine.st_ino)
    own = os.stat("/proc/self/ns/pid")
    within = {sandbox: True, (own.st_dev, own.st_ino): False}  # namespace -> whether it is in the sandbox's
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            space = _namespace(int(entry), sandbox, within)
        except OSError:
            continue
        if space is None:
            continue
        state = status(int(entry))
        if state is None or not alive(state):
            continue
        inner = state.get(b"NSpid", b"").split()
        if space == sandbox and (not inner or int(inner[-1]) <= spare):
            continue
        found.append(int(entry))
    return found


def first_inside(bwrap: int) -> int | None:
    """The first process of the sandbox that the bwrap process `bwrap` (started here) runs: its
    one child, in the pid namespace it made."""
    return next((pid for pid, parent in parents().items() if parent == bwrap), None)


def _namespace(pid: int, sandbox: tuple, within: dict) -> tuple | None:
    """The pid namespace of `pid` ((device, inode)) if it is `sandbox` or one made inside it,
    else None; `within` holds what is known of namespaces so far, and learns what is found here."""
    fd = os.open(f"/proc/{pid}/ns/pid", os.O_RDONLY)
    opened, seen, answer = [fd], [], False
    try:
        while True:
            info = os.fstat(fd)
            key = (info.st_dev, info.st_ino)
            if key in within:
                answer = within[key]
                break
            seen.append(key)
            try:
                fd = fcntl.ioctl(fd, NS_GET_PARENT)
            except OSError:  # the top of what the grader sees
                break
            opened.append(fd)
    finally:
        for each in opened:
            os.close(each)
    within.update((each, answer) for each in seen)
    return (seen[0] if seen else key) if answer else None


class Bridge:
    """The driver's end of the relay to a Messages API server: a unix socket in the subject's
    sockets folder (made here, so the subject may connect but not replace it), each connection
    carried to the server's TCP port."""

    _serial = itertools.count(1)

    def __init__(self, folder_fd: int, folder: Path, url: str, uid: int | None):
        name = f"api-{next(self._serial)}.sock"
        self.path = folder / name
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(f"/proc/self/fd/{folder_fd}/{name}")
        if uid is not None:
            os.chown(f"/proc/self/fd/{folder_fd}/{name}", uid, uid, follow_symlinks=False)
        self.listener.listen(16)
        host, port = url.split("//")[1].split(":")
        self.address = (host, int(port))
        self.closed = threading.Event()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, name="bridge", daemon=True).start()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.address, timeout=10)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=wire.pump, args=(a, b), daemon=True).start()

    def close(self) -> None:
        self.closed.set()
        for sock in [self.listener, *self.sockets]:
            with contextlib.suppress(OSError):
                sock.close()
