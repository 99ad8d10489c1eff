"""A fork bomb whose every child forks too; prints its uid, how many forks it made and the
error that stopped it (test_sandbox.py runs its text in the sandbox with `python -c`)."""

import os, sys, time
forks = 0
try:
    while forks < 10_000:
        if os.fork() == 0:
            while True:  # every child forks too, until the limit says no
                try:
                    os.fork()
                except OSError:
                    time.sleep(0.05)
        forks += 1
except OSError as exc:
    print(os.getuid(), forks, type(exc).__name__)
