"""The one class the slow grading tests share: graded once per session, from the command line.

Grading a hand-in with real nbgrader and the independent check costs seconds of CPU, and three
tests need a class of them: the sample class (fixtures/submissions; test_grading), the mutant
catalogue (autograder/authoring/mutants.py; test_mutations) and the attacks from the kernel (ATTACKS below;
test_verify). Graded together, the workers stay busy, and the course copy, the reference's
observations and the workers' start-up are paid once. Each test reads its own students' rows.

The ids keep the groups apart: the samples as committed; each mutant as mutant-<name>, on a
perfect hand-in; each alternative (autograder/authoring/alternatives.py; test_mutations) as
alt-<name>, on a perfect hand-in too; the attackers as m-<attack>, each on the honest partial hand-in
(ab-honest-partial: lecture 02's read_file not written), graded between the perfect aa-honest and
zz-honest. zz-honest is also the mutant test's reference.
"""

import contextlib
import io
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from autograder import cli
from autograder.authoring import release
from autograder.grading import grade
from autograder.authoring.alternatives import ALTERNATIVES
from autograder.authoring.mutants import MORE_MUTANTS, MUTANTS, Mutant, apply

SAMPLES = release.ROOT / "fixtures" / "submissions"
TIMEOUT = 20  # seconds per cell, as expected.csv was made with


def replace_solution(source: str, function: str, body: str) -> str:
    """`source` with the solution region of `function` replaced by `body` (indented 4)."""
    pattern = re.compile(rf"(def {function}\(.*?\n)(\s*)### BEGIN SOLUTION\n.*?### END SOLUTION\n", re.S)
    assert pattern.search(source), function
    return pattern.sub(lambda m: m.group(1) + "".join(f"    {line}\n" if line else "\n"
                                                      for line in body.strip("\n").splitlines()), source, 1)


# The attacks from inside the kernel: each is appended to nano/tools.py, or to the file named.

ATTACKS = {
    # (a) a result equal to anything
    "a-always-equal": '''
class _Yes(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


def read_file(path):
    return _Yes("")
''',
    # (b) every failing test cell made silent
    "b-custom-exc": '''
try:
    from IPython import get_ipython as _get_ipython

    _shell = _get_ipython()
    if _shell is not None:
        _shell.set_custom_exc((AssertionError, Exception), lambda *args, **kwargs: None)
        _shell._showtraceback = lambda *args, **kwargs: None  # no error output: nbgrader sees a pass
except Exception:
    pass
''',
    # (c) the test helpers, a builtin and asyncio.run patched at import
    "c-patches": '''
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
''',
    # (c) warmup's literal hidden from the hidden test's source check by a patched inspect
    "c-getsource": ("nano/protocol.py", '''
import inspect as _inspect

_real_getsource = _inspect.getsource


def _getsource(obj):
    if getattr(obj, "__name__", "") == "warmup":
        return "def warmup() -> int:\\n    return 61 * 1000 + 1\\n"
    return _real_getsource(obj)


_inspect.getsource = _getsource


def warmup() -> int:
    return 61001
'''),
    # (d) the expected values read from the caller's frame
    "d-frame": '''
import inspect as _inspect


def read_file(path):
    frame = _inspect.currentframe().f_back
    while frame is not None:
        names = frame.f_locals
        if isinstance(names.get("cases"), dict) and path in names["cases"]:
            return names["cases"][path]
        if isinstance(names.get("content"), str):
            return names["content"]
        if isinstance(names.get("long_text"), str):
            return clip(names["long_text"])
        frame = frame.f_back
    raise NotImplementedError("only what the caller's frame gives away")
''',
    # (d) the calling test cell's source, hidden tests and all, read back through linecache and
    # raised encoded (base64, rot13, reversed in turn) for the feedback page to show
    "d-frame-source": '''
import base64 as _base64
import codecs as _codecs
import linecache as _linecache
import sys as _sys

_calls = []


def _caller_source():
    frame = _sys._getframe(2)
    while frame is not None:
        lines = _linecache.getlines(frame.f_code.co_filename)
        if lines and "nano" not in frame.f_code.co_filename:
            return "".join(lines)
        frame = frame.f_back
    return ""


def read_file(path):
    tail = _caller_source()[-400:]
    _calls.append(path)
    encode = [lambda s: _base64.b64encode(s.encode()).decode(), lambda s: _codecs.encode(s, "rot13"),
              lambda s: s[::-1]][len(_calls) % 3]
    raise FileNotFoundError(encode(tail))
''',
    # (e) leaving the process: the check's at once, the kernel's at import
    "e-exit-outside-kernel": '''
import os as _os
import sys as _sys

if "ipykernel" not in _sys.modules:
    _os._exit(0)
''',
    "e-sys-exit": '''
import sys as _sys

_sys.exit(0)
''',
    # (f) a function that loops forever and ignores SIGINT
    "f-endless": '''
import signal as _signal


def list_files(path="."):
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    while True:
        pass
''',
}


def mutants() -> list[Mutant]:
    """The catalogue graded: MUTANTS, and MORE_MUTANTS too when NANO_ALL_MUTANTS=1 is set."""
    return MUTANTS + (MORE_MUTANTS if os.environ.get("NANO_ALL_MUTANTS") else [])


def write_class(release_dir: Path, subs: Path) -> None:
    """The samples, the honest students, the attackers, the mutants and the alternatives, as hand-ins in `subs`."""
    shutil.copytree(SAMPLES, subs)

    def solved(name: str) -> Path:
        return release.solve_workspace(release.make_workspace(release_dir, subs / name))

    solved("aa-honest")
    partial = solved("ab-honest-partial")
    tools = partial / "nano" / "tools.py"
    tools.write_text(replace_solution(tools.read_text(encoding="utf-8"), "read_file",
                                      'raise NotImplementedError("not yet")'), encoding="utf-8")
    for name, attack in ATTACKS.items():  # at the end of nano/tools.py, or of the file named
        target, code = attack if isinstance(attack, tuple) else ("nano/tools.py", attack)
        attacker = subs / f"m-{name}"
        shutil.copytree(partial, attacker)
        module = attacker / target
        module.write_text(module.read_text(encoding="utf-8") + "\n" + code, encoding="utf-8")
    for mutant in mutants():
        apply(solved(f"mutant-{mutant.name}"), mutant)
    for alternative in ALTERNATIVES:
        apply(solved(f"alt-{alternative.name}"), alternative)
    solved("zz-honest")


@dataclass(frozen=True)
class Graded:
    course: Path    # the graded copy of the course: grades.csv, problems.csv, feedback/, logs/
    hand_ins: Path  # the class as handed in
    code: int       # what `nano-course grade` returned
    out: str        # what it printed
    err: str
    grades: dict[str, grade.Grade]  # read back from grades.csv and problems.csv


def grade_class(course: Path, scratch: Path) -> Graded:
    """Write the class in `scratch` and grade it there with `nano-course grade` (default workers)."""
    subs = scratch / "subs"
    write_class(course / "release" / release.ASSIGNMENT, subs)
    graded = scratch / "course"
    shutil.copytree(course, graded)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["grade", str(subs), "--course", str(graded), "--timeout", str(TIMEOUT)])
    return Graded(graded, subs, code, out.getvalue(), err.getvalue(),
                  {g.student: g for g in grade.read_grades(graded)})
