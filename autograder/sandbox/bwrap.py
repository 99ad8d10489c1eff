"""Running untrusted student code confined, with bubblewrap (`bwrap`).

`wrap(argv, workdir=...)` turns a command into one that runs it in a sandbox: no network, no
view of the machine but a read-only system and Python installation, a private /tmp, and only
`workdir` (and the folders named in `writable`) writable; under resource `Limits`, set by a tiny
Python wrapper inside the sandbox just before it runs the command. The grader runs every
kernel of a submission this way (grading/autograde.py), so student code cannot read the hidden tests in
`source/`, touch the gradebook or another student's folders, call out, or take the machine
down with a fork bomb, a memory bomb or a giant file.

As root (CI, this machine) the wrapper also drops to a uid of the sandbox's own, since Linux
does not enforce RLIMIT_NPROC for root: the folders the sandbox may write are handed over to
that uid, and `settle` takes them back (and removes what the grader must not follow, such as
symbolic links) once the sandboxed process has ended. Each grading process takes its sandbox
uids from a block no other process on the machine holds (`uid_block`), since `settle` kills
whatever runs as a uid it hands back.

Also as root, a `Zygote` is one such sandbox made for all of a student's notebook kernels: its
Python imports ipykernel and the SDK once, and forks each kernel, which then drops to the
sandbox's uid and limits as the wrapper does (inside.py is what runs first inside both).

A sandbox whose limits lower its CPU priority (`Limits.nice` above 0: every student's) runs, where
a cgroup can be made (as root), in one cgroup of the cpu controller for all such sandboxes
(`cpu_group`), weighted as one process at that nice value: however many processes and sessions
student code starts, together they take no more than that share of a CPU the grader's own
processes (the reference's) want. Elsewhere only the nice value and the sandbox's autogroup are
lowered (inside.py), which a process that starts a session of its own escapes.

As root, each sandbox also runs in a memory cgroup of its own where one can be made
(`memory_group`): all its processes together, a zygote's kernels included, charge at most
`Limits.sandbox_memory`, counting what RLIMIT_AS does not (memfds, shared memory, its /tmp,
kernel memory). Elsewhere only the per-process limits hold.
"""

import contextlib
import dataclasses
import functools
import itertools
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from autograder import lock, trees
from autograder.limits import SANDBOX, ZYGOTE_START, SandboxLimits
from autograder.limits import workers as machine_workers


Limits = SandboxLimits  # what one sandboxed process may use: see autograder/limits.py
LIMITS = SANDBOX

# Read-only inside the sandbox, where they exist: the system and what programs look up in /etc.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = ("alternatives", "ca-certificates", "fonts", "group", "host.conf", "hosts", "ld.so.cache",
       "ld.so.conf", "ld.so.conf.d", "localtime", "mime.types", "nsswitch.conf", "passwd",
       "ssl", "timezone")
# The environment inside is built from scratch; only these are taken from the caller's.
PASSED_ON = ("NBGRADER_EXECUTION", "NBGRADER_VALIDATING", "NANO_HEADLESS", "NANO_MODEL",
             "LANG", "LC_ALL", "TZ", "PYTHONHASHSEED")
MISSING = ("bwrap (bubblewrap) is missing or does not work here, and student code must run in its "
           "sandbox: apt-get install bubblewrap, or pass --unsafe to grade unconfined")
FIRST_UID = 2_000_000_000  # sandbox uids (as root): unused by any account, one per sandbox
UIDS_PER_PROCESS = 64  # sandboxes alive at once in one grading process (threads may run several)
BLOCKS = (2**32 - 2 - FIRST_UID) // UIDS_PER_PROCESS  # below 2**32 - 2: (uid_t) -2 and -1 are taken
# BLOCK.lock here is held (fcntl.flock) by the process whose uids are that block. Only root
# gives out sandbox uids, and /run is root's: one folder for every grading process of the
# machine, whichever service, shell or Dask worker started it.
UID_LOCKS = Path("/run/nano-course-uids")

# Runs first inside every sandbox, as root: the limits, the uid, the folder (see inside.py).
INSIDE = (Path(__file__).parent / "inside.py").read_text()

_owners: dict[Path, int] = {}  # folder handed over -> the sandbox uid that holds it
_memory_groups: dict[int, Path] = {}  # sandbox uid -> its memory cgroup (memory_group)
_reserved: set[int] = set()  # uids of live zygotes, whichever folders they hold now
_serial = itertools.count()
_choosing = threading.Lock()
_claiming = threading.Lock()
_claimed: tuple[int, int] | None = None  # (the pid that claimed it, its block): a forked child claims anew


def bwrap() -> str | None:
    return shutil.which("bwrap")


@functools.cache
def available() -> bool:
    """Whether bwrap is here and really works: a confined `python -c pass` is tried once."""
    if bwrap() is None:
        return False
    with tempfile.TemporaryDirectory(prefix="nano-sandbox-") as tmp:
        try:
            done = subprocess.run(wrap([sys.executable, "-S", "-c", "pass"], workdir=Path(tmp)),
                                  capture_output=True, timeout=60)
            return done.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False
        finally:
            settle(Path(tmp))


def wrap(argv: list[str], *, workdir: Path, writable: Sequence[Path] = (), limits: Limits = LIMITS,
         env: Mapping[str, str] | None = None, hide: Sequence[Path] = ()) -> list[str]:
    """The command that runs `argv` confined, in `workdir`, with only `workdir` and `writable`
    writable. `env` supplies the variables of PASSED_ON (a clean environment otherwise: HOME and
    TMPDIR are the private /tmp); the files in `hide` (inside those folders) can be neither read
    nor replaced. As root, hands the writable folders to the sandbox's uid."""
    workdir = Path(workdir).resolve()
    open_ = [workdir, *(Path(p).resolve() for p in writable)]
    uid = -1
    if os.geteuid() == 0:
        with _choosing:  # a uid no live sandbox has: settle() kills whatever runs as it
            uid = _free_uid()
            for folder in open_:
                _hand_over(folder, uid)
    return _lowered(limits, _confined(open_, hide, limits, env) + [
        sys.executable, "-S", "-c", INSIDE, "exec", str(limits.tmp_files), str(limits.cpu), str(limits.memory),
        str(limits.processes), str(limits.file_size), str(limits.nice), str(uid), str(workdir), *argv], uid)


def limits(**changes) -> Limits:
    """LIMITS with `changes` (e.g. nice=0 for the reference's process)."""
    return dataclasses.replace(LIMITS, **changes)


def owner(folder: Path) -> int | None:
    """The sandbox uid `folder` is handed over to (as root), or None."""
    return _owners.get(Path(folder).resolve())


def _confined(open_: Sequence[Path], hide: Sequence[Path], limits: Limits,
              env: Mapping[str, str] | None, caps: Sequence[str] = ("CAP_SETUID", "CAP_SETGID", "CAP_SYS_ADMIN")) -> list[str]:
    """bwrap and its options, up to the command: the sandbox's view, with the folders `open_`
    writable and the files `hide` unreadable, and its environment; as root, `caps` are
    all the capabilities its first process keeps (they go when it drops to a sandbox uid)."""
    args = [bwrap() or "bwrap", "--die-with-parent", "--new-session", "--unshare-pid",
            "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--hostname", "sandbox"]
    if os.geteuid() == 0:
        # No user namespace: the limiter needs real root's setuid to drop to `uid` for good.
        args += ["--cap-drop", "ALL"] + [a for cap in caps for a in ("--cap-add", cap)]
    else:
        args += ["--unshare-user", "--disable-userns"]
    host: list[Path] = []  # mounted from the host: what lies under them exists inside
    made: set[Path] = {Path("/")}  # folders made inside (their contents do not)
    for top in SYSTEM:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
            host.append(Path(top))
    args += ["--perms", "0755", "--dir", "/etc"]
    for name in ETC:
        if os.path.lexists(f"/etc/{name}"):
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    args += ["--dev", "/dev", "--proc", "/proc",
             "--perms", "1777", "--size", str(limits.tmp_size), "--tmpfs", "/tmp"]
    made |= {Path("/etc"), Path("/dev"), Path("/proc"), Path("/tmp")}

    def mount(option: str, folder: Path) -> list[str]:
        """Bind `folder` at its own path, after making its missing parents with mode 0755 (bwrap
        would make them 0700, which the sandbox's uid could not cross)."""
        out = []
        for parent in reversed(folder.parents):
            if parent not in made and not any(parent.is_relative_to(h) for h in host):
                out += ["--perms", "0755", "--dir", str(parent)]
                made.add(parent)
        host.append(folder)
        return out + [option, str(folder), str(folder)]

    # The Python installation and the environment (a venv in the repository: that folder only).
    for folder in dict.fromkeys(Path(p).resolve() for p in (sys.base_prefix, sys.prefix)):
        if not any(folder.is_relative_to(h) for h in host):
            args += mount("--ro-bind", folder)
    for folder in _course_packages():
        if any(folder.is_relative_to(h) for h in host):
            args += ["--tmpfs", str(folder)]  # an install of the course itself: its judges stay out
    for folder in open_:
        args += mount("--bind", folder)
    for path in hide:
        args += ["--ro-bind", "/dev/null", str(Path(path).resolve())]
    args += ["--clearenv"] + [a for k, v in _variables(env).items() for a in ("--setenv", k, v)]
    return args + ["--chdir", "/", "--"]


def _lowered(limits: Limits, command: list[str], uid: int) -> list[str]:
    """`command` (bwrap's), started in the CPU group of `limits.nice` and in a memory group of
    its own (the sandbox uid's, see memory_group), where there are ones."""
    memory = memory_group(f"sandbox-{uid}", limits) if uid >= 0 else None
    if memory is not None:
        _memory_groups[uid] = memory.parent
    cpu = cpu_group(limits.nice)
    if memory is not None and "" in _hierarchies() and memory.is_relative_to(_hierarchies()[""]):
        cpu = None  # cgroup v2: the memory group lies in the CPU group, whose weight it takes
    groups = [str(g) for g in (cpu, memory) if g is not None]
    return command if not groups else [sys.executable, "-S", "-c", LOWERED, *groups, "--", *command]


@functools.cache
def _hierarchies() -> dict[str, Path]:
    """The cgroup this process is in, in each hierarchy it could make cgroups in: "cpu" and
    "memory" (cgroup v1: a hierarchy per controller), "" (cgroup v2, the unified one)."""
    mounts: dict[str, tuple[str, Path]] = {}  # key -> (the mount's root, its mount point)
    with contextlib.suppress(OSError), open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            kind, options = fields[fields.index("-") + 1], fields[fields.index("-") + 3].split(",")
            for controller in ("cpu", "memory"):
                if kind == "cgroup" and controller in options:
                    mounts.setdefault(controller, (fields[3], Path(fields[4])))
            if kind == "cgroup2":
                mounts.setdefault("", (fields[3], Path(fields[4])))
    found = {}
    with contextlib.suppress(OSError), open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for key in ({"cpu", "memory"} & set(controllers.split(","))) | ({""} if controllers == "" else set()):
                if key in mounts and Path(path).is_relative_to(mounts[key][0]):
                    found.setdefault(key, mounts[key][1] / Path(path).relative_to(mounts[key][0]))
    return found


def _enable(folder: Path, controller: str) -> None:
    """cgroup v2: let `folder`'s children use `controller` (a cgroup's controllers are the ones its
    parent enables for its children)."""
    enabled = folder / "cgroup.subtree_control"
    if controller not in enabled.read_text().split():
        enabled.write_text(f"+{controller}")


def memory_group(name: str, limits: Limits) -> Path | None:
    """The cgroup.procs file of a memory cgroup for one sandbox (named `name`, sandbox-UID, after
    its uid): CPU_GROUPS/NAME, below the cgroup this process is in, in the memory controller's own
    hierarchy (cgroup v1: memory.limit_in_bytes, and memory.memsw.limit_in_bytes, swap included,
    where swap is accounted), or CPU_GROUPS/nice-N/NAME in the unified one (cgroup v2:
    memory.max, memory.swap.max 0, memory.oom.group: the whole sandbox is killed together), where
    the memory controller can be enabled for it. Made (or taken back, from a sandbox of that
    uid before) at each sandbox's start, with `limits.sandbox_memory`, and removed once its
    processes have ended (_stop_user). Everything the sandbox's processes charge counts, whatever
    no RLIMIT_AS sees: memfds, shared memory, its /tmp's pages, kernel memory (a tmpfs's inodes).
    None where it cannot be made (not root, in a container whose cgroups are read-only, no memory
    controller to use): only the per-process limits hold then."""
    found = _hierarchies()
    for key in ("memory", ""):
        if key not in found:
            continue
        top = found[key] / CPU_GROUPS
        group = (top / f"nice-{limits.nice}" if key == "" else top) / name
        try:
            if key == "":
                for folder in (top.parent, top, group.parent):
                    if folder != top.parent:
                        folder.mkdir(mode=0o755, exist_ok=True)
                    _enable(folder, "memory")
            else:
                top.mkdir(mode=0o755, exist_ok=True)
            group.mkdir(mode=0o755, exist_ok=True)
            size = str(limits.sandbox_memory)
            if key == "":
                (group / "memory.max").write_text(size)
                for file, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
                    with contextlib.suppress(OSError):
                        (group / file).write_text(value)
            else:
                with contextlib.suppress(OSError):  # memsw may not be below the new limit
                    (group / "memory.memsw.limit_in_bytes").write_text(size)
                (group / "memory.limit_in_bytes").write_text(size)
                with contextlib.suppress(OSError):  # only where swap is accounted
                    (group / "memory.memsw.limit_in_bytes").write_text(size)
            return group / "cgroup.procs"
        except OSError:
            continue
    return None


@functools.cache
def memory_limited() -> bool:
    """Whether sandboxes here get a memory cgroup each (memory_group): one is made and removed."""
    procs = memory_group(f"probe-{os.getpid()}", LIMITS) if os.geteuid() == 0 else None
    if procs is not None:
        procs.parent.rmdir()
    return procs is not None


def _remove_memory_group(uid: int) -> None:
    """Remove the memory cgroup of `uid`'s sandbox once its last processes (root's: bwrap, which
    may still be freeing the sandbox's /tmp) have ended, waiting a second at most; else a later
    sandbox of that uid takes it back."""
    group = _memory_groups.pop(uid, None)
    for _ in range(20 if group is not None else 0):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)


@functools.cache
def cpu_group(nice: int) -> Path | None:
    """The cgroup.procs file of the cgroup for sandboxes at `nice`, made once: CPU_GROUPS/nice-N,
    below the cgroup this process is in, in the cpu controller's own hierarchy (cgroup v1,
    cpu.shares) or the unified one (cgroup v2, cpu.weight, where the cpu controller can be
    enabled for it). CPU_GROUPS weighs as many processes at nice 0 as a grading run has workers
    (limits.workers), so that the kernels, whose cells run against the clock,
    are not starved by the grader's own processes on a busy machine; inside it each group weighs
    as one process at its nice value: the sandboxes at nice 0 (the reference's) come first, and
    however many processes and sessions the others start, together they weigh as one process at
    their nice value. None where neither can be made (not root, or no cpu controller to use). Tasks in a cgroup other than the root are never put in
    autogroups, so `setsid` in a sandbox makes no new share."""
    for key, parent in _hierarchies().items():
        if key == "memory":
            continue
        group = parent / CPU_GROUPS / f"nice-{nice}"
        try:
            for folder in (group.parent, group):
                if key == "":
                    _enable(folder.parent, "cpu")
                folder.mkdir(mode=0o755, exist_ok=True)
            workers = machine_workers()
            if key == "cpu":
                (group.parent / "cpu.shares").write_text(str(1024 * workers))
                (group / "cpu.shares").write_text(str(max(2, round(1024 / 1.25 ** nice))))
            else:
                (group.parent / "cpu.weight").write_text(str(min(10_000, 100 * workers)))
                (group / "cpu.weight").write_text(str(max(1, round(100 / 1.25 ** nice))))
            return group / "cgroup.procs"
        except OSError:
            continue
    return None


@functools.cache
def _course_packages() -> list[Path]:
    """The folders this course's own packages (autograder, and a `nano` if one were installed)
    are imported from, when they are installed into the environment the sandbox shows (a
    non-editable install): the judges, the behaviours' inputs and any reference must not be
    readable where student code runs."""
    import importlib.util

    found = []
    for name in ("autograder", "nano", "fixtures"):
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            found.append(Path(location).resolve())
    return found


def _variables(env: Mapping[str, str] | None) -> dict[str, str]:
    """The environment inside: a few fixed variables and those of `env` that PASSED_ON names."""
    passed = {k: v for k, v in (env or {}).items() if k in PASSED_ON}
    return {"PATH": f"{Path(sys.prefix) / 'bin'}:/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp",
            "TMPDIR": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", **passed}


PRELOAD = ("ipykernel.kernelapp", "ipykernel.ipkernel", "anthropic")
READY_WAIT = ZYGOTE_START  # seconds a zygote may take to import PRELOAD
# Runs outside the sandbox in place of a kernel forked by a zygote, its exit status (see relay.py).
RELAY = (Path(__file__).parent / "relay.py").read_text()
# Runs outside in place of bwrap, to start a sandbox in its CPU group (see lowered.py).
LOWERED = (Path(__file__).parent / "lowered.py").read_text()
CPU_GROUPS = "nano-course"  # the cgroup of all sandboxes (see cpu_group)


class Zygote:
    """A sandbox made once for all of one student's kernels (see inside.py): its Python has
    imported PRELOAD, and each kernel is forked from it, already imported, instead of starting
    a Python and a sandbox of its own (about 0.3 s of CPU a kernel, and 1.1 s more for each
    notebook that imports the SDK). Its kernels share its view, its /tmp and one sandbox uid,
    which `settle` stops between them as before; each forks under the sandbox's limits.

    Root only: its kernels must drop to a uid the zygote itself does not run as (the zygote
    keeps CAP_KILL, to end a kernel whose relay was killed). The files in `hide` stay
    unreadable for its whole life, including those nbgrader has not written yet (they are made
    empty now, and removed at `close` if nothing was written in them)."""

    def __init__(self, workdir: Path, *, writable: Sequence[Path] = (), hide: Sequence[Path] = (),
                 env: Mapping[str, str] | None = None, limits: Limits = LIMITS, stdout=None,
                 stderr=None, preload: Sequence[str] = PRELOAD):
        if os.geteuid() != 0:
            raise RuntimeError("a kernel zygote needs root, to give its kernels a uid of their own")
        self.workdir = Path(workdir).resolve()
        self._inode = os.stat(self.workdir).st_ino  # nbgrader may remove the folder and make it again
        self.folders = [self.workdir, *(Path(p).resolve() for p in writable)]
        self.hidden = {Path(p).resolve() for p in hide}
        self.placeholders = [p for p in sorted(self.hidden) if not p.exists()]
        for path in self.placeholders:
            path.touch()
        self.env = _variables(env)
        with _choosing:
            self.uid = _free_uid()
            _reserved.add(self.uid)
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process = None
        try:
            self.process = subprocess.Popen(
                _lowered(limits, _confined(self.folders, sorted(self.hidden), limits, env,
                                           caps=("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_SYS_ADMIN")) + [
                    sys.executable, "-c", INSIDE, "zygote", str(limits.tmp_files), str(theirs.fileno()), str(limits.cpu),
                    str(limits.memory), str(limits.processes), str(limits.file_size), str(limits.nice),
                    *preload], self.uid),
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=stdout or subprocess.DEVNULL,
                stderr=stderr or subprocess.DEVNULL, start_new_session=True)
            theirs.close()
            self.control.settimeout(READY_WAIT)
            if self.control.recv(16) != b"ready":
                raise OSError("it ended before it was ready")
        except OSError as exc:
            theirs.close()
            self.close()
            raise RuntimeError(f"the kernel zygote did not start: {exc}") from exc

    def serves(self, workdir: Path, notebooks: Sequence[Path], env: Mapping[str, str] | None) -> bool:
        """Whether a kernel in `workdir`, whose folder holds `notebooks`, may be forked here."""
        return (self.process is not None and self.process.poll() is None
                and Path(workdir).resolve() == self.workdir and self._same_folder()
                and {Path(p).resolve() for p in notebooks} <= self.hidden
                and _variables(env) == self.env)

    def _same_folder(self) -> bool:
        try:
            return os.stat(self.workdir).st_ino == self._inode
        except OSError:
            return False

    def spawn(self, module: str, args: Sequence[str]) -> tuple[list[str], socket.socket]:
        """Fork a kernel running `python -m module args`; return the command to start in its
        place (a RELAY) and the line it needs: pass it to that command (Popen's pass_fds), then
        close it here."""
        with _choosing:
            for folder in self.folders:
                _hand_over(folder, self.uid)
        line, theirs = socket.socketpair()
        request = {"uid": self.uid, "cwd": str(self.workdir), "module": module, "args": list(args),
                   "env": {**self.env, "PWD": str(self.workdir)}}
        try:
            socket.send_fds(self.control, [json.dumps(request).encode()], [theirs.fileno()])
            reply = self.control.recv(1 << 16)
        except OSError as exc:
            line.close()
            raise RuntimeError(f"the kernel zygote did not answer: {exc}") from exc
        finally:
            theirs.close()
        if not reply:
            line.close()
            raise RuntimeError("the kernel zygote has ended")
        return [sys.executable, "-S", "-c", RELAY, str(line.fileno())], line

    def close(self) -> None:
        """End the zygote and its kernels; remove the placeholders nothing was written in."""
        self.control.close()
        if self.process is not None:
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None
        _stop_user(self.uid)
        with _choosing:
            _reserved.discard(self.uid)
        for path in self.placeholders:
            with contextlib.suppress(OSError):
                if path.stat().st_size == 0:
                    path.unlink()


def settle(*folders: Path) -> str | None:
    """After a sandbox ends: stop whatever it left running, remove from `folders` what is neither
    a regular file nor a folder (a symbolic link planted for the grader to write through, a
    FIFO to block it) and what lies past the bounds of a tree (trees.Bounds: too deep, too
    many entries), and give the folders back to the grader's own uid. Returns which bound a
    folder passed, in words (the hand-in's doing), or None. Nothing here recurses (trees.py)."""
    passed = None
    for folder in (Path(f).resolve() for f in folders):
        uid = _owners.pop(folder, None)
        if uid is not None:
            _stop_user(uid)
        if not folder.is_dir() or folder.is_symlink():
            continue

        def visit(entry: trees.Entry, uid=uid) -> None:
            with contextlib.suppress(FileNotFoundError):
                if not (stat.S_ISREG(entry.info.st_mode) or stat.S_ISDIR(entry.info.st_mode)):
                    os.unlink(entry.name, dir_fd=entry.folder)
                elif uid is not None:
                    os.chown(entry.name, os.getuid(), os.getgid(), dir_fd=entry.folder, follow_symlinks=False)

        passed = trees.bound(folder, visit) or passed
        if uid is not None:
            os.lchown(folder, os.getuid(), os.getgid())
    return passed


def _free_uid() -> int:
    """A sandbox uid of this process's own block that no folder is handed over to."""
    block = uid_block()
    busy = set(_owners.values()) | _reserved
    for _ in range(UIDS_PER_PROCESS):
        uid = block[next(_serial) % UIDS_PER_PROCESS]
        if uid not in busy:
            return uid
    raise RuntimeError(f"more than {UIDS_PER_PROCESS} sandboxes at once in one process")


def uid_block() -> range:
    """This process's sandbox uids: a block that no other live process on this machine holds.

    Claimed at first use, by taking the lock of the lowest block whose lock file in UID_LOCKS no
    process holds (fcntl.flock, which the kernel drops when the process ends, however it ends),
    and held for the process's life. A lock belongs to the open file, not to the pid: a process
    forked after the claim shares its parent's lock, so it sees the pid change and claims a
    block of its own (the parent's is held, so it gets another)."""
    global _claimed
    with _claiming:
        if _claimed is None or _claimed[0] != os.getpid():
            _claimed = (os.getpid(), _claim())
            first = FIRST_UID + _claimed[1] * UIDS_PER_PROCESS
            _sweep_memory_groups(range(first, first + UIDS_PER_PROCESS))
    first = FIRST_UID + _claimed[1] * UIDS_PER_PROCESS
    return range(first, first + UIDS_PER_PROCESS)


def _sweep_memory_groups(uids: range) -> None:
    """Remove the memory cgroups a process that held `uids` before left behind (it ended before
    its sandboxes' processes did, or was killed): those with no process left."""
    found = _hierarchies()
    tops = [found["memory"] / CPU_GROUPS] if "memory" in found else []
    if "" in found:
        with contextlib.suppress(OSError):
            tops += [p for p in (found[""] / CPU_GROUPS).iterdir() if p.name.startswith("nice-")]
    for top in tops:
        for uid in uids:
            with contextlib.suppress(OSError):
                (top / f"sandbox-{uid}").rmdir()


def _claim() -> int:
    """Lock the lowest free block; its file stays open (never closed: closing would unlock it)."""
    folder = _lock_folder()
    for block in range(BLOCKS):
        if _lock(folder, block) is not None:
            return block
    raise RuntimeError(f"all {BLOCKS} blocks of sandbox uids are held (their locks are in {folder})")


def held(block: int) -> bool:
    """Whether a live process holds `block` (the lock is taken to see, and let go at once)."""
    fd = _lock(_lock_folder(), block)
    if fd is not None:
        os.close(fd)
    return fd is None


def _lock(folder: Path, block: int) -> int | None:
    """The open, locked lock file of `block`, or None if another open file holds its lock."""
    return lock.acquire(folder / f"{block}.lock", 0o600)


def _lock_folder() -> Path:
    """UID_LOCKS, or where /run cannot be written, a folder of this user's own in the temporary
    folder; either must be this user's and writable by no one else (who could swap a lock file)."""
    mine = Path(tempfile.gettempdir()) / f"nano-course-uids-{os.geteuid()}"
    for folder in (UID_LOCKS, mine):
        with contextlib.suppress(OSError):
            folder.mkdir(mode=0o755, exist_ok=True)
        with contextlib.suppress(OSError):
            info = os.lstat(folder)
            if (stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022
                    and os.access(folder, os.W_OK)):
                return folder
    raise RuntimeError(f"no folder to lock sandbox uids in: neither {UID_LOCKS} nor {mine} can be made "
                       f"writable by this user alone")


def _hand_over(folder: Path, uid: int) -> None:
    """Make `folder` and everything in it the sandbox user's (as root), not following links
    (what lies past the bounds of a tree, left by an earlier sandbox, is removed: trees.bound)."""
    if _owners.get(folder, uid) != uid:  # a sandbox before this one (a restarted kernel) is over
        _stop_user(_owners[folder])
    _owners[folder] = uid
    os.lchown(folder, uid, uid)
    trees.bound(folder, lambda entry: os.chown(entry.name, uid, uid, dir_fd=entry.folder, follow_symlinks=False))


def _stop_user(uid: int) -> None:
    """Kill every process still running as `uid` (a sandbox's own uid: only its processes)."""
    for _ in range(50):
        alive = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/status") as status:
                        real = next(line for line in status if line.startswith("Uid:"))
                except (OSError, StopIteration):
                    continue
                if int(real.split()[1]) == uid:
                    alive.append(int(entry))
        if not alive:
            _remove_memory_group(uid)
            return
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.1)
