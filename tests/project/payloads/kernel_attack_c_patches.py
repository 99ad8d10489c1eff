"""Kernel attack `c-patches` of the shared class (tests/project/one_class.py): (c) the test
helpers, a builtin and asyncio.run patched at import. Appended to a partial hand-in's
nano/tools.py; its grade is test_verify's to check."""

import asyncio as _asyncio
import builtins as _builtins
import contextlib as _contextlib

import nano.testing as _testing

_real_run, _real_scratch = _asyncio.run, _testing.scratch_dir


def _run(main, **kwargs):
    try:
        return _real_run(main, **kwargs)
    except BaseException:
        return None


@_contextlib.contextmanager
def _scratch(files=None):
    with _real_scratch(files) as where:
        try:
            yield where
        except Exception:
            pass


_asyncio.run, _testing.scratch_dir = _run, _scratch
_builtins.AssertionError = type("AssertionError", (Warning,), {})
