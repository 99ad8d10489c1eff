"""Allocates 32 MB at a time until a MemoryError, then prints how many MB it got
(test_sandbox.py runs its text in the sandbox with `python -c`)."""

hoard = []
try:
    while True:
        hoard.append(b'x' * (32 << 20))
except MemoryError:
    print(len(hoard) * 32)
