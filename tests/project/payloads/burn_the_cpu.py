"""Appended to an otherwise perfect hand-in's nano/protocol.py (test_unforgeable): at import, in
every process of its own (the check's and each kernel), it starts processes that keep both
cores busy for a minute, beside the grader's reference run. Sandboxed code runs at a lower CPU
priority than the grader's, so the reference finishes in time and the class is graded."""
import os as _os
import time as _time

for _ in range(3):
    try:
        if _os.fork() == 0:
            _end = _time.time() + 60
            while _time.time() < _end:
                pass
            _os._exit(0)
    except OSError:
        break
