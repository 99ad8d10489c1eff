"""Appended to an otherwise perfect hand-in's nano/protocol.py (test_processes), or run on its own
in a sandbox (then it waits as long as they burn): at import, in the first of its notebook
kernels (the ones graded beside the grader's reference run), it starts four processes, each in
a session of its own (where a nice value ranks only inside the session), that keep every core
busy for forty seconds. Sandboxed code weighs less than the reference's, however many sessions
it makes: the reference's timed behaviours pass beside it."""
import os as _os
import sys as _sys
import time as _time

_MARK = "/tmp/.burning-in-sessions"  # the sandbox's own /tmp, which a student's kernels share
if "wire" not in _sys.modules and not _os.path.exists(_MARK):
    open(_MARK, "w").close()
    for _ in range(4):
        try:
            if _os.fork() == 0:
                _os.setsid()
                _end = _time.time() + 40
                while _time.time() < _end:
                    pass
                _os._exit(0)
        except OSError:
            break
    if __name__ == "__main__":  # run on its own: the sandbox ends with its first process
        _time.sleep(40)
