"""Holds memory no process maps, past any one process's RLIMIT_AS: 16 MB at a time written into
memfds (a memfd holds its pages with no mapping), and into a System V shared memory segment
every fourth step, 1536 MB in all; it prints how many MB it holds after each step, then
"stopped" and the error if a write fails (test_sandbox.py runs its text with `python -c`)."""

import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
chunk = b"x" * (16 << 20)
held = []
try:
    for step in range(1536 // 16):
        if step % 4 == 3:
            segment = libc.shmget(0, ctypes.c_size_t(len(chunk)), 0o1600)  # IPC_PRIVATE, IPC_CREAT
            address = libc.shmat(segment, None, 0)
            if segment < 0 or address in (None, ctypes.c_void_p(-1).value):
                raise OSError(ctypes.get_errno(), "shmget")
            ctypes.memset(address, 1, len(chunk))
            libc.shmdt(ctypes.c_void_p(address))
        else:
            fd = os.memfd_create(f"hoard{step}")
            os.write(fd, chunk)
            held.append(fd)
        print((step + 1) * 16, flush=True)
except OSError as error:
    print("stopped", error, flush=True)
