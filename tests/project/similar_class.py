"""A class for `nano-course similar`: honest students and two who share their work.

Every student writes the short functions alike, as the reference does (warmup, write_file,
confirm, call_model: a line or four each, the same for anyone who writes them correctly), and
the longer ones in a way of their own: honest-ref as the reference, honest-alt as the correct
alternatives (payloads/alternative_*.py), sharer-a as payloads/shared_work.py, and sharer-b
hands in sharer-a's files with the variables renamed and each file's functions in another
order. untouched-1 and untouched-2 hand in the release as it is (the stubs and the given code,
the same in every hand-in). `similar` must flag sharer-a and sharer-b, and no other pair.
"""

import ast
import re
from pathlib import Path

from autograder.authoring import release
from tests.project.one_class import PAYLOADS, function_bodies, replace_solution

SHORT = ("warmup", "write_file", "confirm", "call_model")  # what every honest student writes alike
FILES = {function: f"nano/{module}" for module, functions in release.STUDENT_FUNCTIONS.items()
         for function in functions}
ALTERNATIVES = {function: body for module in release.STUDENT_FUNCTIONS
                for function, body in function_bodies(PAYLOADS / f"alternative_{module}").items()}
SHARED = function_bodies(PAYLOADS / "shared_work.py")
# sharer-b's renaming: each name sharer-a chose, to one of sharer-b's own
RENAMED = {"where": "location", "raw": "data", "handle": "fh", "listing": "items", "child": "entry",
           "marker": "suffix", "source": "infile", "target": "outfile", "body": "contents", "hits": "found",
           "problem": "what", "out": "output", "err": "errors", "shown": "report", "known": "tools",
           "tool": "function", "current": "existing", "answer": "response", "wanted": "calls",
           "replies": "results", "use": "call", "allowed": "permitted", "reply": "result",
           "failure": "exc", "typed": "line", "mark": "start", "ending": "status"}


def write_class(release_dir: Path, subs: Path) -> Path:
    """The class, one workspace folder per student, in `subs`."""
    def student(name: str, bodies: dict[str, str] | None) -> Path:
        work = release.make_workspace(release_dir, subs / name)
        if bodies is None:  # untouched
            return work
        release.solve_workspace(work)
        for function, body in bodies.items():
            path = work / FILES[function]
            path.write_text(replace_solution(path.read_text(encoding="utf-8"), function, body), encoding="utf-8")
        return work

    student("honest-ref", {})
    student("honest-alt", {f: body for f, body in ALTERNATIVES.items() if f not in SHORT})
    shared = student("sharer-a", SHARED)
    copied = student("sharer-b", {})
    for name in release.STUDENT_FILES:
        (copied / name).write_text(disguised((shared / name).read_text(encoding="utf-8")), encoding="utf-8")
    student("untouched-1", None)
    student("untouched-2", None)
    return subs


def disguised(source: str) -> str:
    """`source` (a nano/*.py) as a student who copied it hands it in: its student functions in
    the reverse order, each where another stood, with RENAMED's names renamed in them."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    spans = [(node.lineno - 1 - len(node.decorator_list), node.end_lineno) for node in tree.body
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in FILES]
    names = re.compile(r"\b(" + "|".join(RENAMED) + r")\b")
    blocks = [names.sub(lambda m: RENAMED[m.group(1)], "".join(lines[start:end])) for start, end in spans]
    out, last = [], 0
    for (start, end), block in zip(spans, reversed(blocks)):
        out += [*lines[last:start], block]
        last = end
    return "".join(out + lines[last:])
