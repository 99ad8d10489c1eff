"""What runs first inside a sandbox (bwrap.py), as root, before any student code: it puts the
process under the sandbox's limits and drops it to the sandbox's uid, either once, for one
command, or for each kernel of a student, forked from a zygote.

Not imported by the grader: bwrap.py runs this file's source inside the sandbox, as root with
no capability but CAP_SETUID and CAP_SETGID (and CAP_KILL for a zygote), and CAP_SYS_ADMIN
only until it has bounded the inodes of the sandbox's /tmp (`bound_tmp`: bwrap mounts a tmpfs
of a size, and no option of its bounds the inodes):

- `python -S -c SOURCE exec tmp_files cpu memory processes file_size nice uid workdir argv...`
  (bwrap.wrap): the limits, the CPU priority, the uid and the folder, then exec of `argv`.
- `python -c SOURCE zygote tmp_files control_fd cpu memory processes file_size nice module...` (bwrap.Zygote):
  import the modules named (the kernel and the SDK: no student code), say "ready" on the
  control socket, then answer each request there, a JSON object with a file descriptor
  attached, by forking. The child takes the limits, the request's uid and folder and runs the
  kernel module as `python -m` would. The attached descriptor is the grader's line to that
  kernel: when the kernel ends, its exit status is written there; when the grader closes its
  end, the kernel is killed. Closing the control socket ends every kernel and the zygote.
"""

import ctypes
import gc
import json
import os
import resource
import runpy
import select
import signal
import socket
import sys


def limit(kind: int, soft: int, hard: int) -> None:
    ceiling = resource.getrlimit(kind)[1]
    if ceiling != resource.RLIM_INFINITY:
        soft, hard = min(soft, ceiling), min(hard, ceiling)
    resource.setrlimit(kind, (soft, hard))


CAP_SYS_ADMIN = 21
MS_NOSUID, MS_NODEV, MS_REMOUNT = 2, 4, 32


def bound_tmp(files: int) -> None:
    """Remount /tmp (bwrap's tmpfs, nosuid and nodev) to hold at most `files` inodes, then drop
    CAP_SYS_ADMIN: its size bounds its pages, not the kernel memory of its files (1 KB or more
    each). As root only (the capability is there); elsewhere, or if the remount fails, /tmp is
    left as it is (the sandbox's memory cgroup, where there is one, still counts the inodes)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount(b"tmpfs", b"/tmp", None, MS_REMOUNT | MS_NOSUID | MS_NODEV, f"nr_inodes={files}".encode())
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # (effective, permitted, inheritable) x 2
    if libc.capget(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    for i in range(3):
        data[i] &= ~(1 << CAP_SYS_ADMIN)
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "drop CAP_SYS_ADMIN")


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def serve(control: socket.socket) -> dict:
    """Fork a kernel per request until the control socket closes; return only in a child."""
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    lines: dict[int, socket.socket | None] = {}  # kernel pid -> the grader's line to it
    control.sendall(b"ready")
    while True:
        watched = [control, wake_r, *(line for line in lines.values() if line is not None)]
        try:
            ready, _, _ = select.select(watched, [], [])
        except InterruptedError:
            ready = []
        if control in ready:
            message, fds, _, _ = socket.recv_fds(control, 1 << 16, 1)
            if not message:
                for pid in lines:
                    kill(pid)
                sys.exit(0)
            request = json.loads(message)
            line = socket.socket(fileno=fds[0])
            pid = os.fork()
            if pid == 0:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                for fd in (wake_r, wake_w):
                    os.close(fd)
                for other in (control, line, *(o for o in lines.values() if o is not None)):
                    other.close()
                return request
            lines[pid] = line
            control.sendall(json.dumps({"pid": pid}).encode())
        for pid, line in list(lines.items()):
            if line is not None and line in ready:  # the grader let go: the kernel goes too
                kill(pid)
                line.close()
                lines[pid] = None
        if wake_r in ready:
            while True:
                try:
                    if not os.read(wake_r, 512):
                        break
                except BlockingIOError:
                    break
        while lines:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            line = lines.pop(pid, None)
            if line is not None:
                code = os.waitstatus_to_exitcode(status)
                try:
                    line.sendall(str(code if code >= 0 else 128 - code).encode())
                except OSError:
                    pass
                line.close()


def confine(cpu: int, memory: int, processes: int, size: int, nice: int, uid: int, workdir: str) -> None:
    """The sandbox's limits and CPU priority, then its uid (for good: root without capabilities
    may not enter the folder the uid was handed), then its folder. The priority is the nice value
    and, where the kernel groups processes by session (autogroups; not in a cgroup of the sandbox's
    own, see bwrap.cpu_group), the session's: a nice value ranks a process only inside its session."""
    if nice > 0:
        os.nice(nice)
        try:
            with open("/proc/self/autogroup", "w") as group:
                group.write(str(nice))
        except OSError:
            pass  # no autogroups here
    limit(resource.RLIMIT_CPU, cpu, cpu + 5)
    limit(resource.RLIMIT_AS, memory, memory)
    limit(resource.RLIMIT_NPROC, processes, processes)
    limit(resource.RLIMIT_FSIZE, size, size)
    limit(resource.RLIMIT_CORE, 0, 0)
    if uid >= 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    os.chdir(workdir)


def become(request: dict, cpu: int, memory: int, processes: int, size: int, nice: int) -> None:
    """In a forked child: confined as the request says, with the student's environment."""
    confine(cpu, memory, processes, size, nice, int(request["uid"]), request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = [request["module"], *request["args"]]
    sys.path.insert(0, request["cwd"])  # as `python -m` does


if __name__ == "__main__" and sys.argv[1] == "exec":
    bound_tmp(int(sys.argv[2]))
    confine(*(int(a) for a in sys.argv[3:9]), sys.argv[9])
    os.environ["PWD"] = sys.argv[9]
    os.execvp(sys.argv[10], sys.argv[10:])
elif __name__ == "__main__":
    bound_tmp(int(sys.argv[2]))
    control = socket.socket(fileno=int(sys.argv[3]))
    cpu, memory, processes, size, nice = (int(a) for a in sys.argv[4:9])
    del sys.path[0]  # "": the zygote's own folder, "/"; nothing is imported from a student's
    limit(resource.RLIMIT_AS, memory, memory)
    limit(resource.RLIMIT_CORE, 0, 0)
    for name in sys.argv[9:]:
        __import__(name)
    gc.collect()
    gc.freeze()  # each kernel's collections skip what was imported here, and leave its pages shared
    request = serve(control)
    become(request, cpu, memory, processes, size, nice)
    del control, request
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
