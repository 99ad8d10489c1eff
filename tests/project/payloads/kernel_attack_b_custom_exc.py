"""Kernel attack `b-custom-exc` of the shared class (tests/project/one_class.py): (b) every failing
test cell made silent. Appended to a partial hand-in's nano/tools.py; its grade is test_verify's
to check."""

try:
    from IPython import get_ipython as _get_ipython

    _shell = _get_ipython()
    if _shell is not None:
        _shell.set_custom_exc((AssertionError, Exception), lambda *args, **kwargs: None)
        _shell._showtraceback = lambda *args, **kwargs: None  # no error output: nbgrader sees a pass
except Exception:
    pass
