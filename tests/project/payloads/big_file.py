"""Writes a 2 GB file a megabyte at a time and prints the error that stops it
(test_sandbox.py runs its text in the sandbox with `python -c`)."""

import os

chunk = b'x' * (1 << 20)
try:
    with open('big.bin', 'wb') as out:
        for _ in range(2048):
            out.write(chunk)
            out.flush()
except OSError as exc:
    print(exc.strerror)
