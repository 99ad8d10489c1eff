"""Kernel attack `f-endless` of the shared class (tests/project/one_class.py): (f) a function that
loops forever and ignores SIGINT. Appended to a partial hand-in's nano/tools.py; its grade is
test_verify's to check."""

import signal as _signal


def list_files(path="."):
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    while True:
        pass
