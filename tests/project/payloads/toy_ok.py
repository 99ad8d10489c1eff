"""A stand-in for a workspace's ./ok (tests/unit/test_warm_ok.py), copied in as `ok`: its argument
says what it does. It prints where and how it runs, on stdout, stderr and through a subprocess."""
import os
import subprocess
import sys
import time


def deep():
    raise ValueError("on purpose")


what = sys.argv[1]
if what == "prints":
    print("argv", sys.argv, "cwd", os.getcwd(), "file", __file__, "path", sys.path[0], "name", __name__)
    print("stdin", repr(sys.stdin.read()), "variable", os.environ.get("TOY_OK"))
    print("workspace modules loaded", [name for name in ("nano", "checks") if name in sys.modules])
    print("to stderr", file=sys.stderr)
    subprocess.run([sys.executable, "-c", "print('from a subprocess'); import sys; print('and its stderr', file=sys.stderr)"])
    print("last line, then code 3")
    sys.exit(3)
elif what == "loops":
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    print(os.getpid(), sleeper.pid, flush=True)
    while True:
        time.sleep(0.1)
elif what == "raises":
    deep()
else:
    print(what)
