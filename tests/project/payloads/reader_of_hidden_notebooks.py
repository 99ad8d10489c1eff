"""Run as a module forked from a kernel zygote: can it read the notebooks the zygote hides?
Prints what reading 01.ipynb and 02.ipynb gave, and its uid (test_sandbox.py)."""

import os
def read(name):
    try:
        return open(name).read() or "empty"
    except OSError as exc:
        return type(exc).__name__
print(read("01.ipynb"), read("02.ipynb"), os.getuid(), flush=True)
