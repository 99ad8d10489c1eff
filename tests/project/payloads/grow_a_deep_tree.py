"""Appended to an otherwise perfect hand-in's nano/protocol.py (test_trees_grading): at import it
makes a chain of 1,400 nested folders in its working folder, past Python's recursion limit and
past PATH_MAX, by open folders. WHERE says in which process: "kernel" (the notebook's kernel, its
workspace) or "subject" (the independent check's process, where the graded tools run)."""
import os as _os
import sys as _sys

WHERE = "kernel"
if ("wire" in _sys.modules) == (WHERE == "subject"):
    try:
        _folder = _os.open(".", _os.O_RDONLY | _os.O_DIRECTORY)
        for _ in range(1_400):
            _os.mkdir("d" * 40, dir_fd=_folder)
            _inner = _os.open("d" * 40, _os.O_RDONLY | _os.O_DIRECTORY, dir_fd=_folder)
            _os.close(_folder)
            _folder = _inner
        _os.close(_folder)
    except OSError:
        pass
