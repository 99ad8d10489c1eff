"""Appended to an otherwise perfect hand-in's nano/protocol.py (test_unforgeable): at import, in
the first of its notebook kernels (the ones graded beside the grader's reference run), it starts
two processes that keep both cores busy for twenty seconds. Sandboxed code runs at a lower CPU
priority than the grader's, so the reference finishes in time and the class is graded."""
import os as _os
import sys as _sys
import time as _time

_MARK = "/tmp/.burning"  # the sandbox's own /tmp, which a student's kernels share
if "wire" not in _sys.modules and not _os.path.exists(_MARK):
    open(_MARK, "w").close()
    for _ in range(2):
        try:
            if _os.fork() == 0:
                _end = _time.time() + 20
                while _time.time() < _end:
                    pass
                _os._exit(0)
        except OSError:
            break
