"""Run by test_trees.py as `python -c` in a process of its own (it moves into a mount
namespace of its own): a folder bounded to 8 MB and 100 files takes two pre-allocated files of
3 MB and refuses the third; `room` then gives it 2 MB more."""
import os
import sys
from pathlib import Path
from autograder.sandbox import space
folder = Path(sys.argv[1])
assert space.own_namespace()
assert space.bounded(folder, size=8 << 20, files=100)
written = 0
for i in range(10):
    fd = os.open(folder / f"f{i}", os.O_WRONLY | os.O_CREAT)
    try:
        os.posix_fallocate(fd, 0, 3 << 20)
        written += 3 << 20
    except OSError as exc:
        print("stopped", exc.errno, written >> 20)
        break
    finally:
        os.close(fd)
space.room(folder, free=2 << 20)
fd = os.open(folder / "after", os.O_WRONLY | os.O_CREAT)
os.posix_fallocate(fd, 0, 1 << 20)
os.close(fd)
print("room", folder.joinpath("f0").exists(), open("/proc/self/mountinfo").read().count(str(folder)))
