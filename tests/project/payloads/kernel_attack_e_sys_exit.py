"""Kernel attack `e-sys-exit` of the shared class (tests/project/one_class.py): (e) leaving the
process: the check's at once, the kernel's at import. Appended to a partial hand-in's
nano/tools.py; its grade is test_verify's to check."""

import sys as _sys

_sys.exit(0)
