"""Does any graded behaviour pass code that does no work?

A hand-in's process decides what its functions return, so a behaviour must ask for evidence of
the work itself (the file written, the human asked, the request sent), not only for the one
fact it is named for: otherwise a function that returns a constant, or raises with whatever it
was given, earns that cell, and so does a hand-in that forges its process's answers. Here every
function students write is replaced, all at once, by such a body, and the check runs every
behaviour of the course on it: none may pass.
"""

import concurrent.futures
from pathlib import Path

import pytest

from autograder.authoring import release
from autograder.check import independent
from tests.project.one_class import replace_solution

pytestmark = pytest.mark.slow

LAZY = {  # bodies that do no work, each in place of every function a student writes
    "returns None": "return None",
    "returns an empty str": 'return ""',
    "returns True": "return True",
    "returns False": "return False",
    "returns an empty list": "return []",
    "returns 'done'": 'return "done"',
    "returns its arguments": "return repr(locals())",
    "returns a bash-like result": 'return "exit code: 0\\nstdout:\\n\\nstderr:\\n"',
    "raises ValueError with its arguments": "raise ValueError(repr(locals()))",
    "raises FileNotFoundError with its arguments": "raise FileNotFoundError(repr(locals()))",
    "raises TimeoutError with its arguments": "raise TimeoutError(repr(locals()))",
}


def lazy_workspace(course: Path, body: str, dest: Path) -> Path:
    work = release.make_workspace(course / "release" / release.ASSIGNMENT, dest)
    for module, functions in release.STUDENT_FUNCTIONS.items():
        text = (release.ROOT / "nano" / module).read_text(encoding="utf-8")
        for function in functions:
            text = replace_solution(text, function, body)
        (work / "nano" / module).write_text(text, encoding="utf-8")
    return work


def test_no_behaviour_passes_a_function_that_does_no_work(course, tmp_path):
    items = independent.keyed(independent.course_behaviours(course))

    def passed(kind):
        work = lazy_workspace(course, LAZY[kind], tmp_path / kind.replace(" ", "-"))
        files, answers = independent.student_files(work)
        runs = independent.check_files(course, files, answers, "lazy", kind, items)
        return kind, [key for (key, _), r in zip(items, runs) if r.verdict.state == independent.PASSED]

    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        found = dict(pool.map(passed, LAZY))
    holes = {kind: keys for kind, keys in found.items() if keys}
    assert not holes, "\n".join(f"{kind}: {', '.join(keys)}" for kind, keys in holes.items())
