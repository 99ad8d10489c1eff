"""The independent check: each graded behaviour re-run in a fresh sandboxed process that imports
only the hand-in's `nano`, and judged in the grader's process, which never ran student code."""
