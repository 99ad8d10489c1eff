"""Running untrusted student code confined, with bubblewrap (`bwrap`).

`wrap(argv, workdir=...)` turns a command into one that runs it in a sandbox: no network, no
view of the machine but a read-only system and Python installation, a private /tmp, and only
`workdir` (and the folders named in `writable`) writable; under resource `Limits`, set by a tiny
Python wrapper inside the sandbox just before it runs the command. The grader runs every
kernel of a submission this way (worker.py), so student code cannot read the hidden tests in
`source/`, touch the gradebook or another student's folders, call out, or take the machine
down with a fork bomb, a memory bomb or a giant file.

As root (CI, this machine) the wrapper also drops to a uid of the sandbox's own, since Linux
does not enforce RLIMIT_NPROC for root: the folders the sandbox may write are handed over to
that uid, and `settle` takes them back (and removes what the grader must not follow, such as
symbolic links) once the sandboxed process has ended.
"""

import functools
import itertools
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Limits:
    """What one sandboxed process may use. Measured here: a sandboxed kernel that has imported
    anthropic, ipywidgets and matplotlib, drawn a plot and run a bash command peaks at 1.06 GB
    of address space and 13 threads, after 4.4 s of CPU. Memory and CPU are per process: a
    bomb of `processes` processes could map `processes * memory` in all (only a cgroup bounds
    the sum; none is delegated on CI)."""

    cpu: int = 300  # seconds of CPU per process (RLIMIT_CPU; SIGXCPU, then SIGKILL 5 s later)
    memory: int = 4 << 30  # bytes of address space per process (RLIMIT_AS)
    processes: int = 64  # processes and threads of the sandbox's user (RLIMIT_NPROC)
    file_size: int = 64 << 20  # bytes any one file may grow to (RLIMIT_FSIZE)
    tmp_size: int = 256 << 20  # bytes of the private /tmp (a tmpfs, held in memory)


LIMITS = Limits()

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

# Runs inside the sandbox as `python -S -c LIMITER cpu memory processes file_size uid workdir argv...`
# (it enters workdir only as `uid`: root without capabilities may not).
LIMITER = """\
import os, resource, sys
def limit(kind, soft, hard):
    ceiling = resource.getrlimit(kind)[1]
    if ceiling != resource.RLIM_INFINITY:
        soft, hard = min(soft, ceiling), min(hard, ceiling)
    resource.setrlimit(kind, (soft, hard))
cpu, memory, processes, size, uid = (int(a) for a in sys.argv[1:6])
limit(resource.RLIMIT_CPU, cpu, cpu + 5)
limit(resource.RLIMIT_AS, memory, memory)
limit(resource.RLIMIT_NPROC, processes, processes)
limit(resource.RLIMIT_FSIZE, size, size)
limit(resource.RLIMIT_CORE, 0, 0)
if uid >= 0:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
os.chdir(sys.argv[6])
os.environ["PWD"] = sys.argv[6]
os.execvp(sys.argv[7], sys.argv[7:])
"""

_owners: dict[Path, int] = {}  # folder handed over -> the sandbox uid that holds it
_serial = itertools.count()
_choosing = threading.Lock()
UIDS_PER_PROCESS = 64  # sandboxes alive at once in one grading process (threads may run several)


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
    TMPDIR are the private /tmp); the files in `hide` (inside those folders) read as empty and
    cannot be replaced. As root, hands the writable folders to the sandbox's uid."""
    workdir = Path(workdir).resolve()
    open_ = [workdir, *(Path(p).resolve() for p in writable)]
    uid = -1
    args = [bwrap() or "bwrap", "--die-with-parent", "--new-session", "--unshare-pid",
            "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--hostname", "sandbox"]
    if os.geteuid() == 0:
        with _choosing:  # a uid no live sandbox has: settle() kills whatever runs as it
            uid = _free_uid()
            for folder in open_:
                _hand_over(folder, uid)
        # No user namespace: the limiter needs real root's setuid to drop to `uid` for good.
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
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
    for folder in open_:
        args += mount("--bind", folder)
    for path in hide:
        args += ["--ro-bind", "/dev/null", str(Path(path).resolve())]
    passed = {k: v for k, v in (env or {}).items() if k in PASSED_ON}
    variables = {"PATH": f"{Path(sys.prefix) / 'bin'}:/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp",
                 "TMPDIR": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", **passed}
    args += ["--clearenv"] + [a for k, v in variables.items() for a in ("--setenv", k, v)]
    args += ["--chdir", "/", "--", sys.executable, "-S", "-c", LIMITER, str(limits.cpu), str(limits.memory),
             str(limits.processes), str(limits.file_size), str(uid), str(workdir), *argv]
    return args


def settle(*folders: Path) -> None:
    """After a sandbox ends: stop whatever it left running, remove from `folders` what is neither
    a regular file nor a folder (a symbolic link planted for the grader to write through, a
    FIFO to block it), and give the folders back to the grader's own uid."""
    for folder in (Path(f).resolve() for f in folders):
        uid = _owners.pop(folder, None)
        if uid is not None:
            _stop_user(uid)
        if not folder.is_dir() or folder.is_symlink():
            continue
        for root, dirs, files in os.walk(folder):
            for name in dirs + files:
                path = os.path.join(root, name)
                mode = os.lstat(path).st_mode
                if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    os.unlink(path)
                elif uid is not None:
                    os.lchown(path, os.getuid(), os.getgid())
        if uid is not None:
            os.lchown(folder, os.getuid(), os.getgid())


def _free_uid() -> int:
    """A sandbox uid of this process's own block that no folder is handed over to."""
    base = FIRST_UID + (os.getpid() % 2**21) * UIDS_PER_PROCESS
    busy = set(_owners.values())
    for _ in range(UIDS_PER_PROCESS):
        uid = base + next(_serial) % UIDS_PER_PROCESS
        if uid not in busy:
            return uid
    raise RuntimeError(f"more than {UIDS_PER_PROCESS} sandboxes at once in one process")


def _hand_over(folder: Path, uid: int) -> None:
    """Make `folder` and everything in it the sandbox user's (as root), not following links."""
    if _owners.get(folder, uid) != uid:  # a sandbox before this one (a restarted kernel) is over
        _stop_user(_owners[folder])
    _owners[folder] = uid
    os.lchown(folder, uid, uid)
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            os.lchown(os.path.join(root, name), uid, uid)


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
            return
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.1)
