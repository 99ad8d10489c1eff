"""Makes empty files in the sandbox's /tmp, 100,000 at most (a tmpfs's size does not count
them; each holds a kernel inode of 1 KB or more), until a file cannot be made; prints how many it
made and the error's name (test_sandbox.py runs its text with `python -c`)."""

import os

made, error = 0, "none"
try:
    for made in range(100_000):
        os.close(os.open(f"/tmp/{made:0100d}", os.O_CREAT | os.O_WRONLY))
    made = 100_000
except OSError as exc:
    error = type(exc).__name__ if exc.errno is None else os.strerror(exc.errno)
print(made, error)
