"""What every attack of test_sandbox.py's hostile class may use. Appended to the student's
nano/protocol.py after one line that sets SCRATCH, STUDENT, VICTIMS and PORT; the attack
follows (cwd: COURSE/.grading/<id>/autograded/<id>/nano)."""

import os
from pathlib import Path

COURSE = Path.cwd().parents[3].parent
grade_dir = Path(SCRATCH) / STUDENT  # noqa: F821 (both set by the line before)
