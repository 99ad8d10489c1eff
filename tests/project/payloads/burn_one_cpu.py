"""Run in a sandbox by test_busy_machine: keeps the CPU numbered by its argument busy until killed,
as another student's kernel on a busy grading machine does."""
import os
import sys

os.sched_setaffinity(0, {int(sys.argv[1])})
while True:
    pass
