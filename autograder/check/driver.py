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
item past its time ends the subject (`Lost`), costing that item only.

A behaviour's `drive(subject, inputs)` (behaviour.py) uses a `Subject` like this:

    with subject.scratch({"notes.txt": "hi\\n"}) as folder:
        got = subject.call("nano.tools.read_file", "notes.txt")    # {"value": ..., "type": "str"}
        written = folder.read("out.txt")                           # read here, not by the subject
"""

import contextlib
import errno
import fcntl
import importlib
import itertools
import json
import os
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from autograder import trees
from autograder.check.subject import wire
from autograder.course import ROOT
from autograder.trees import escaped
from autograder.sandbox import bwrap
from autograder.sandbox import space

HARNESS = Path(__file__).with_name("subject")
READ_LIMIT = 4_000_000  # bytes of one file the driver reads back from a scratch folder
SCRATCH_ROOM = 1 << 20  # bytes of the subject's tmpfs made free for each behaviour's scratch files (space.room)
NAMES_LIMIT = 10_000  # entries of one folder the driver lists in a scratch folder


@dataclass(frozen=True)
class Bounds:
    """What one subject may send and take, before it is stopped."""

    frame: int = wire.FRAME  # bytes of one message
    item: int = 32_000_000  # bytes of all the messages of one behaviour
    hand_in: int = 128_000_000  # bytes of all the messages of one hand-in, every subject it took
    invokes: int = 20_000  # calls of doubles and proxies in one behaviour


def given(name: str):
    """The course's given module `nano.<name>` (server, testing, trace, protocol...) as the
    repository holds it: the grader's own copy, for a drive to build scripted replies or serve
    the Messages API with. Never a hand-in's: no hand-in's folder is ever on this process's path."""
    root = str(ROOT)
    if root not in sys.path:
        sys.path.append(root)
    return importlib.import_module(f"nano.{name}")


class Lost(Exception):
    """The subject died, hung past the behaviour's time, or broke the protocol or its bounds:
    the behaviour in progress did not finish, and the next one gets a fresh subject."""


@dataclass(frozen=True)
class Ref:
    """An object that lives in the subject (a list it was given, a proxy), by its name there."""

    number: int

    def wire(self) -> dict:
        return {"$ref": self.number}


@dataclass(frozen=True)
class Reply:
    """What a handler answers an Invoke with, when more than a value: `append` [[i, value]] to
    the list that was argument i (or the keyword argument i, for a name), then raise `throw`
    ([class name, message]) or return `value`."""

    value: object = None
    append: tuple = ()
    throw: tuple | None = None


class Raise(Exception):
    """Raised by a handler: the double raises exception `kind` (a builtin's name, or
    "anthropic.RateLimitError"...) with `message` in the subject."""

    def __init__(self, kind: str, message: str = ""):
        super().__init__(message)
        self.kind, self.message = kind, message


def _wire(value):
    """A value for the subject: Refs as {"$ref": n}, recursively."""
    if isinstance(value, Ref):
        return value.wire()
    if isinstance(value, (list, tuple)):
        return [_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    return value


COPIED = ("nano", "fixtures")  # what a subject's copy of a workspace holds: the package, its data


class Subject:
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
        self.deadline: float | None = None
        self.handlers: dict[str, Callable] = {}
        self.stood: set[str] = set()
        self.refs: list = []  # the refs of the Invoke being handled (see Invoke.refs)
        self.kwrefs: dict = {}
        self._ids = itertools.count(1)
        self._names = itertools.count(1)
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
        self.reader = wire.Reader(self._out, self.bounds.frame, self.bounds.hand_in - self.sent)
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
        """One behaviour's time: its requests must all be answered within `seconds` (a process
        started for it first gets `startup` seconds to start), its messages within the item's bounds.
        `answers`: the answer cells (grade_ids) it may read. Everything it set up in the subject
        is undone after. A value past the wire's bounds (wire.past_bounds) that crossed in it is
        kept in `unjudged`, in words: the item's outcome is then that value, too deep or too large
        to judge."""
        self.lost = self.unjudged = None
        self.cells = tuple(answers)
        if not self.alive():
            self.close()
            self._start()
            self.deadline = time.monotonic() + self.startup
            self._request(wire.Read(next(self._ids), "sys.version"))  # it has started: its Python is up
        space.room(self.tmp, SCRATCH_ROOM)  # for the scratch folder's files, however full its code left it
        self.deadline = time.monotonic() + seconds
        left = self.bounds.hand_in - self.sent - self.reader.total
        self.reader.budget = self.reader.total + max(0, min(self.bounds.item, left))
        self.invokes = 0
        self.handlers.clear()
        try:
            yield self
        finally:
            for server in self._servers:
                server.close()
            self._servers.clear()
            if self.alive():
                self.deadline = max(self.deadline, time.monotonic() + 10)
                with contextlib.suppress(Lost):
                    self._request(wire.Reset(next(self._ids)))
            self.stood.clear()
            self.deadline = None

    # --- requests -------------------------------------------------------------------------

    def _send(self, message) -> None:
        data = memoryview(wire.encode(message))
        while data:
            wait = None if self.deadline is None else self.deadline - time.monotonic()
            if wait is not None and wait <= 0:
                self._lose("it stopped reading the driver's messages")
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
            except wire.ProtocolError as exc:
                self._lose(f"it sent too much or garbled its channel ({exc})")
            self.unjudged = self.unjudged or wire.past_bounds(got)
            if got is None:
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
        handler = self.handlers.get(invoke.handler)
        self.refs, self.kwrefs = invoke.refs, invoke.kwrefs
        try:
            if handler is None:
                raise Raise("RuntimeError", f"{invoke.handler} is not standing in any more")
            got = handler(*invoke.args, **{str(k): v for k, v in invoke.kwargs.items()})
            reply = got if isinstance(got, Reply) else Reply(got)
        except Raise as exc:
            reply = Reply(throw=(exc.kind, exc.message))
        except Lost:
            raise
        except Exception as exc:  # a handler given arguments it cannot take: as a function would
            reply = Reply(throw=(type(exc).__name__ if type(exc).__module__ == "builtins" else "RuntimeError",
                                 str(exc)[:500]))
        self._send(wire.Answer(invoke.id, _wire(reply.value), [[i, _wire(v)] for i, v in reply.append],
                               list(reply.throw) if reply.throw else None))

    def call(self, target: str, *args, capture: bool = False, keep: bool = False, **kwargs) -> dict:
        """Call `target` in the subject: its outcome ({"value", "type"} or {"raised", "message"},
        "stdout" and "stderr" with `capture`, "ref" when it returned an object the subject names)
        and "seconds", the time it took by this process's clock."""
        start = time.monotonic()
        outcome = self._request(wire.Call(next(self._ids), target, _wire(list(args)), _wire(kwargs),
                                          capture, keep))
        return {**outcome, "seconds": time.monotonic() - start}

    def read(self, target: str | Ref) -> dict:
        """The outcome of reading `target` ("nano.tools.BASH_TIMEOUT", or a Ref)."""
        return self._request(wire.Read(next(self._ids), _target(target)))

    def make(self, value) -> Ref:
        """`value` as an object of the subject's (a list to hand to agent_loop, say)."""
        return self._ref(self._request(wire.Make(next(self._ids), _wire(value))))

    def set(self, target: str, value) -> dict:
        """Set the attribute `target` in the subject, until the behaviour ends."""
        return self._request(wire.Set(next(self._ids), target, _wire(value)))

    def stand(self, target: str, handler: Callable, also=()) -> dict:
        """Until the behaviour ends, calls of the function at `target` are calls of `handler`
        here, with plain arguments; it returns a value, a Reply, or raises Raise."""
        self.handlers[target] = handler
        if target in self.stood:
            return {"value": "again"}
        self.stood.add(target)
        return self._request(wire.Stand(next(self._ids), target, target, list(also)))

    def proxy(self, kind: str, handler: Callable) -> Ref:
        """An object of the subject's whose calls are calls of `handler` here (see wire.Proxy)."""
        name = f"proxy-{next(self._names)}"
        self.handlers[name] = handler
        return self._ref(self._request(wire.Proxy(next(self._ids), kind, name)))

    def environ(self, **values: str | None) -> dict:
        return self._request(wire.Environ(next(self._ids), values))

    def chdir(self, path: Path | str) -> dict:
        return self._request(wire.Chdir(next(self._ids), str(path)))

    def fresh(self, module: str, name: str) -> dict:
        """Import a new copy of `module`'s file as `name`: the outcome, with its "ref"."""
        return self._request(wire.Fresh(next(self._ids), module, name))

    def answers(self, names) -> dict:
        """The values `names` have after the behaviour's answer cells (see `item`) ran."""
        if self.values is not None:
            return self.values(list(names))
        sources = {g: s for g, s in self.sources.items() if g in set(self.cells)}
        outcome = self._request(wire.Answers(next(self._ids), sources, list(names)))
        value = outcome.get("value")
        return value if isinstance(value, dict) else {name: {"missing": True} for name in names}

    def _ref(self, outcome: dict) -> Ref:
        number = outcome.get("ref")
        if not isinstance(number, int) or isinstance(number, bool):
            self._lose(f"it could not make an object ({outcome.get('message', 'no name came back')})")
        return Ref(number)

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

    def source(self, path: str, limit: int = READ_LIMIT) -> str | None:
        """The text of the hand-in's file `path` ("nano/protocol.py") as it was handed in: read
        here, from the workspace the subject was copied from, which no student code has run in."""
        try:
            with open(self.workspace / path, "rb") as f:
                return f.read(limit).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

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
_ENDING = sum(1 << (s - 1) for s in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT))
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
        status = _status(int(entry))
        if status is None or not _alive(status):
            continue
        inner = status.get(b"NSpid", b"").split()
        if space == sandbox and (not inner or int(inner[-1]) <= spare):
            continue
        found.append(int(entry))
    return found


def first_inside(bwrap: int) -> int | None:
    """The first process of the sandbox that the bwrap process `bwrap` (started here) runs: its
    one child, in the pid namespace it made."""
    return next((pid for pid, parent in _parents().items() if parent == bwrap), None)


def descendants(pid: int) -> list[int]:
    """`pid` and the processes it started, and they started, that still run: by parent, read
    from /proc (a process whose parent ended is given to another, and is no longer found)."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        status = _status(current)
        if status is not None and _alive(status):
            found.append(current)
        todo += children.get(current, [])
    return found


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


def _status(pid: int) -> dict[bytes, bytes] | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            return dict(row.split(b":", 1) for row in f.read(16384).splitlines() if b":" in row)
    except OSError:
        return None


def _alive(status: dict[bytes, bytes]) -> bool:
    """Whether the process of `status` runs: not a zombie, not sent a signal that ends it."""
    try:
        state = status[b"State"].split()[0]
        masks = {k: int(status[k].strip(), 16) for k in (b"SigPnd", b"ShdPnd", b"SigBlk", b"SigIgn", b"SigCgt")}
    except (KeyError, IndexError, ValueError):
        return False
    pending = (masks[b"SigPnd"] | masks[b"ShdPnd"]) & ~(masks[b"SigBlk"] | masks[b"SigIgn"] | masks[b"SigCgt"])
    return state not in (b"Z", b"X") and not pending & _ENDING


def _parents() -> dict[int, int]:
    """Every process of this machine, and its parent's pid."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            status = _status(int(entry))
            with contextlib.suppress(KeyError, ValueError, TypeError):
                parents[int(entry)] = int(status[b"PPid"])
    return parents


def _target(target: str | Ref) -> str:
    return f"${target.number}" if isinstance(target, Ref) else target


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


# ---------------------------------------------------------------------------------------------
# Doubles that record here: the scripted model and the askers.

class Model:
    """A scripted model whose replies are handed out from here: `subject.model(replies)`. It
    keeps, in `seen`, the messages each call sent (as the JSON the API would get)."""

    RUNAWAY_AFTER = 20  # calls past the script before the code under test is stopped (nano.testing)

    def __init__(self, replies):
        self.replies = [_message_json(r) for r in replies]
        self.seen: list = []

    @property
    def calls(self) -> int:
        return len(self.seen)

    def __call__(self, messages=None, *args, **kwargs):
        self.seen.append(messages)
        if len(self.seen) > len(self.replies) + self.RUNAWAY_AFTER:
            raise Raise("Runaway", f"the model was called {len(self.seen)} times: the code under test never stops")
        if len(self.seen) > len(self.replies):
            raise Raise("AssertionError", f"the model was called {len(self.seen)} times, but the script has "
                                          f"only {len(self.replies)} replies")
        return {"$message": self.replies[len(self.seen) - 1]}


class Asker:
    """A scripted human: each question gets the next answer; past the last, EOFError (or, for
    `refuse`, an AssertionError: the code under test must not ask). Keeps the prompts."""

    def __init__(self, answers=(), refuse: bool = False):
        self.answers, self.refuse = list(answers), refuse
        self.prompts: list = []

    def __call__(self, prompt=None, *args, **kwargs):
        self.prompts.append(prompt)
        if self.refuse:
            raise Raise("AssertionError", f"the gate should not have been consulted, but it asked: {prompt!r}")
        if len(self.prompts) > len(self.answers) + Model.RUNAWAY_AFTER:
            raise Raise("Runaway", "the human was asked again and again after the input ended")
        if len(self.prompts) > len(self.answers):
            raise Raise("EOFError", f"asked {len(self.prompts)} questions, but only {len(self.answers)} "
                                    "answers were scripted")
        return self.answers[len(self.prompts) - 1]


def _message_json(reply) -> dict:
    if hasattr(reply, "model_dump"):
        return reply.model_dump(mode="json", exclude_none=True)
    return json.loads(json.dumps(reply))


def model(subject: Subject, replies) -> tuple[Model, Ref]:
    """A scripted model here and its proxy in the subject: (the recorder, what to pass)."""
    recorder = Model(replies)
    return recorder, subject.proxy("model", recorder)


def asker(subject: Subject, answers=(), refuse: bool = False) -> tuple[Asker, Ref]:
    """A scripted human here and its proxy in the subject (an object with `question`)."""
    recorder = Asker(answers, refuse)
    return recorder, subject.proxy("asker", recorder)
