"""A notebook cell that prints, as JSON, what a kernel sees of its process: cwd, path,
environment, limits, signals, capabilities (test_sandbox.py compares a forked kernel's with
a started one's)."""

import json, os, resource, signal, sys
print(json.dumps({
    "cwd": os.getcwd(), "path": sys.path, "env": dict(os.environ), "uid_is_root": os.getuid() == 0,
    "argv": [a for a in sys.argv if not a.endswith(".json")], "fds": sorted(os.listdir("/proc/self/fd")),
    "limits": {k: resource.getrlimit(getattr(resource, k)) for k in
               ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_CORE")},
    "sigint": str(signal.getsignal(signal.SIGINT)), "main": sys.modules["__main__"].__name__,
    "caps": [l.split()[1] for l in open("/proc/self/status") if l.startswith(("CapPrm", "CapEff", "CapAmb"))],
}))
