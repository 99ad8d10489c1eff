"""Imported at start-up by every Python that has this folder on PYTHONPATH (test_grader_errors puts
it there, and the repository, for one grading run): the grading processes then judge the mini
lecture with tests/project/faulty_judge.py's wrong judge, as the coordinator does. Where the
repository cannot be imported (a sandboxed kernel), it does nothing."""

try:
    from tests.project import faulty_judge
except ImportError:
    pass
else:
    faulty_judge.install()
