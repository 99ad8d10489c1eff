"""Imported at start-up by every Python that has this folder on PYTHONPATH: the packages named in
NANO_NOT_INSTALLED (comma-separated) then cannot be imported, as in an install without them.
tests/project/test_install.py runs `nano-course student` and `./ok` so, with the extras' packages
missing, as a student's environment has them."""

import os
import sys

for name in filter(None, os.environ.get("NANO_NOT_INSTALLED", "").split(",")):
    sys.modules[name] = None  # `import name` now raises ModuleNotFoundError
