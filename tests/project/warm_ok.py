"""A workspace's ./ok forked from a warm process, for the tests that run it dozens of times.

`python ok` costs 2.4 to 3.5 CPU-seconds, 2 of them importing the anthropic SDK, and the 2-core CI
machine is bound by its CPUs: test_ok_mutants.py runs it 119 times (151 CPU-seconds counted),
test_alternatives.py about 30. run() gives what `subprocess.run([sys.executable, "ok", *args],
cwd=workspace, capture_output=True, text=True, timeout=timeout)` gives, but forks the process that
runs ./ok from a server that has imported the SDK already (test_ok_mutants.py: 44 CPU-seconds).
The server is this file run as a script, started by the first run() of a pytest process; it
imports third-party packages only, never a workspace's nano or checks (every test has its own),
and ends when the pytest process does (its stdin closes). test_ok.py keeps real `python ok`
processes: it tests ./ok as a student runs it.

For each run the server forks a waiter, and the waiter forks the child, which becomes `python ok
ARGS` in the workspace: in a process group of its own, with the test's environment, stdin
/dev/null, stdout and stderr the run's files (at the descriptor level, so that what the checks'
own subprocesses print is there too). It runs ok as __main__ and ends as Python does (atexit,
threads, SystemExit's code, a traceback and 1). The waiter sends the child's pid at once and its
exit status and CPU time at the end; tests/cputime.py counts that time, since the child is no
child of the test's process. A run that times out has its child's process group killed, and
raises subprocess.TimeoutExpired as subprocess.run does.

What a fresh `python ok` would differ in: the SDK is imported (ok's defer_sdk_init then does
nothing); what Python sets up from the environment at start-up (sys.path from PYTHONPATH, the hash
seed, the encodings) is the server's, from the pytest process's environment when it started it,
and every run has the same hash seed; stdin is /dev/null, where subprocess.run passes on the
test's own.
"""

import atexit
import builtins
import gc
import importlib.machinery
import io
import json
import os
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import types

# With these, every third-party module ./ok's checks load.
PRELOAD = ("anthropic", "httpx", "httpcore2", "anyio._backends._asyncio")

_server: subprocess.Popen | None = None
_address = ""
_starting = threading.Lock()


def run(workspace, args=(), timeout: float | None = None) -> subprocess.CompletedProcess:
    """`python ok ARGS` in `workspace`, forked from the warm server."""
    command = [sys.executable, "ok", *args]
    deadline = None if timeout is None else time.monotonic() + timeout
    request = json.dumps({"cwd": os.path.abspath(workspace), "args": list(args), "env": dict(os.environ)})
    with (tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err,
          socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as waiter):
        waiter.connect(_warm())
        socket.send_fds(waiter, [request.encode() + b"\n"], [out.fileno(), err.fileno()])
        reply = b""
        while b"\n" not in reply:
            reply += _received(waiter, None)
        pid, _, reply = reply.partition(b"\n")
        expired = False
        try:
            while not reply.endswith(b"\n"):
                reply += _received(waiter, deadline)
        except TimeoutError:
            _kill(int(pid))
            while not reply.endswith(b"\n"):
                reply += _received(waiter, None)
            expired = True
        except BaseException:  # Ctrl-C, say: the child is killed, as subprocess.run kills it
            _kill(int(pid))
            raise
        status, cpu = reply.split()
        _count(float(cpu))
        if expired:
            raise subprocess.TimeoutExpired(command, timeout, output=_read(out), stderr=_read(err))
        return subprocess.CompletedProcess(command, os.waitstatus_to_exitcode(int(status)),
                                           _text(_read(out)), _text(_read(err)))


def _received(connection: socket.socket, deadline: float | None) -> bytes:
    left = None if deadline is None else deadline - time.monotonic()
    if left is not None and left <= 0:
        raise TimeoutError
    connection.settimeout(left)
    data = connection.recv(4096)
    if not data:
        raise RuntimeError("the warm ./ok server's waiter ended without a word (see the server's stderr)")
    return data


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _read(file) -> bytes:
    file.seek(0)
    return file.read()


def _text(data: bytes) -> str:
    """As subprocess.run(text=True) decodes: the locale's encoding, universal newlines."""
    encoding = io.TextIOWrapper(io.BytesIO()).encoding
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def _count(seconds: float) -> None:
    from tests import cputime  # here: the server, run as a script, cannot import the tests package

    cputime.counted(seconds)


def _warm() -> str:
    """The server's address, the server started first if it is not running."""
    global _server, _address
    with _starting:
        if _server is None or _server.poll() is not None:
            _address = os.path.join(tempfile.mkdtemp(prefix="warm-ok-"), "socket")
            _server = subprocess.Popen([sys.executable, __file__, _address], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, start_new_session=True)
            ready = _server.stdout.readline()
            _server.stdout.close()
            if not ready:
                raise RuntimeError(f"the warm ./ok server did not start (exit code {_server.wait()})")
            _count(float(ready))  # its imports, paid by the run that started it
            atexit.register(_stop, _server)
        return _address


def _stop(server: subprocess.Popen) -> None:
    server.stdin.close()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


# ---------------------------------------------------------------------------------------------
# The server's side: this file run as a script


def serve(address: str) -> tuple[dict, int, int]:
    """Fork a waiter for each connection until stdin closes; only the child returns, with its
    request and the two descriptors for its stdout and stderr."""
    for name in PRELOAD:
        __import__(name)
    gc.freeze()  # else each child's collections walk the SDK's objects, at exit too: 0.5 CPU-seconds
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the waiters
    usage = resource.getrusage(resource.RUSAGE_SELF)
    os.write(1, f"{usage.ru_utime + usage.ru_stime}\n".encode())
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.close(quiet)
    while True:
        readable, _, _ = select.select([listener, 0], [], [])
        if 0 in readable and not os.read(0, 1):
            shutil.rmtree(os.path.dirname(address), ignore_errors=True)
            sys.exit(0)
        if listener in readable:
            connection, _ = listener.accept()
            if os.fork() == 0:
                listener.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                return wait_for_child(connection)
            connection.close()


def wait_for_child(connection: socket.socket) -> tuple[dict, int, int]:
    """The waiter: fork the child, send its pid, wait for it, send its status and CPU time."""
    message, fds, _, _ = socket.recv_fds(connection, 65536, 2)
    while not message.endswith(b"\n"):
        message += connection.recv(65536)
    pid = os.fork()
    if pid == 0:
        connection.close()
        return json.loads(message), *fds
    for fd in fds:
        os.close(fd)
    try:
        os.setpgid(pid, pid)  # the child does it too: the group exists before anyone may kill it
    except OSError:
        pass
    try:
        connection.sendall(f"{pid}\n".encode())
        _, status = os.waitpid(pid, 0)
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        connection.sendall(f"{status} {usage.ru_utime + usage.ru_stime}\n".encode())
    except OSError:  # the test is gone
        _kill(pid)
    finally:
        os._exit(0)


def become_ok(request: dict, out: int, err: int) -> None:
    """Run the workspace's ok as `python ok ARGS` would, here; what it raises ends this process."""
    os.setpgid(0, 0)
    null = os.open(os.devnull, os.O_RDONLY)
    for fd, target in ((null, 0), (out, 1), (err, 2)):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    script = os.path.join(os.getcwd(), "ok")
    sys.argv = ["ok", *request["args"]]
    sys.path.insert(0, os.path.dirname(os.path.realpath(script)))
    main = types.ModuleType("__main__")  # what Python makes of a script (runpy.run_path sets argv[0])
    main.__dict__.update(__loader__=importlib.machinery.SourceFileLoader("__main__", script),
                         __annotations__={}, __file__=script, __cached__=None, __builtins__=builtins)
    sys.modules["__main__"] = main
    try:
        with open(script, "rb") as source:
            code = compile(source.read(), script, "exec", dont_inherit=True)
        exec(code, main.__dict__)
    except Exception as exc:  # the traceback from ok's own frames on, as Python prints it
        while exc.__traceback__ and exc.__traceback__.tb_frame.f_code.co_filename != script:
            exc.__traceback__ = exc.__traceback__.tb_next
        sys.excepthook(type(exc), exc, exc.__traceback__)  # none left for ok's own SyntaxError
        sys.exit(1)


if __name__ == "__main__":
    del sys.path[0]  # this folder: nothing in it is the server's to import
    become_ok(*serve(sys.argv[1]))
