"""Imported at start-up by every Python that has this folder on PYTHONPATH (test_grader_errors puts
it there, with the repository, for a grading run): the module NANO_TEST_BEHAVIOURS names
(tests.project.faulty_judge, say) then replaces the course's behaviours in the grading
processes, as the test has replaced them in the coordinator. Where the repository cannot be
imported (a sandboxed process), it does nothing."""

import importlib
import os

try:
    module = importlib.import_module(os.environ.get("NANO_TEST_BEHAVIOURS", ""))
except (ImportError, ValueError):
    pass
else:
    module.install()
