"""A student module whose functions do what a subject process must survive (test_verify.py writes
it as nano/m.py): noise on stdout and stderr, values that are not plain data, values too deep
and too large to judge (a string of 3 MB; 660,000 small lists, by the harness or forged past it), exits, a loop
that ignores signals, a flood of bytes down every pipe, a child left running."""

import math
import os
import signal
import stat
import subprocess
import sys


def twice(x):
    print('noise')
    print('more', file=sys.stderr)
    return 2 * x


def boom():
    raise KeyError("boom")


class Odd(str):
    pass


def odd():
    return {"odd": Odd("x"), "obj": object(), "nan": math.nan, "big": 10 ** 5000, "deep": [[[[[[[[[[]]]]]]]]]] * 2}


def deep():
    value = "bottom"
    for _ in range(100):
        value = {"k": value}
    return value


def huge_text():
    return "x" * 3_000_000


def exits_hard():
    os._exit(3)


def deaf():
    for kind in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM):
        signal.signal(kind, signal.SIG_IGN)
    while True:
        pass


def exits():
    sys.exit(0)


def floods():
    chunk = b"\xff" * (1 << 20)
    for name in os.listdir("/proc/self/fd"):
        try:
            fd = int(name)
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                for _ in range(64):
                    os.write(fd, chunk)
        except (OSError, ValueError):
            pass
    return "flooded"


def leaves_a_child(tag):
    subprocess.Popen(["sleep", f"30.{tag}"], start_new_session=True)
    return "left"


def many():
    return [[]] * 150_000  # 450 kB on the wire, 150,000 lists parsed (660,000 in 2 MB: too slow for 3 s)


def many_forged():
    """A Result of 660,000 values written on the channel past the harness (which would mark it)."""
    data = b'{"$type":"Result","id":1,"outcome":{"value":[' + b"[]," * 659_999 + b'[]],"type":"list"}}'
    frame = len(data).to_bytes(4, "big") + data
    for name in os.listdir("/proc/self/fd"):
        try:
            fd = int(name)
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and fd > 2:
                os.write(fd, frame)
        except (OSError, ValueError):
            pass
    return "forged"
