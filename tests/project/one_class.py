"""The one class the slow grading tests share: graded once per session, from the command line.

Grading a hand-in with real nbgrader and the independent check costs seconds of CPU, and three
tests need a class of them: the sample class (fixtures/submissions; test_grading), the mutant
catalogue (autograder/authoring/mutants.py; test_mutations) and the attacks from the kernel (ATTACKS below, in payloads/;
test_verify). Graded together, the workers stay busy, and the course copy, the reference's
observations and the workers' start-up are paid once. Each test reads its own students' rows.

The ids keep the groups apart: the samples as committed; each mutant as mutant-<name>, on a
perfect hand-in; the alternatives (autograder/authoring/alternatives.py; test_mutations) packed
as alt-pack-<n> on perfect hand-ins, a contested one alone as alt-<name>; the attackers as m-<attack>, each on the honest partial hand-in
(ab-honest-partial: lecture 02's read_file not written), graded between the perfect aa-honest and
zz-honest. zz-honest is also the mutant test's reference.
"""

import ast
import contextlib
import io
import os
import re
import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path

from autograder import cli
from autograder.authoring import release
from autograder.grading import results
from autograder.authoring import notebooks
from autograder.authoring.alternatives import ALTERNATIVES, Alternative
from autograder.authoring.mutants import MORE_MUTANTS, MUTANTS, Mutant, apply

SAMPLES = release.ROOT / "fixtures" / "submissions"
TIMEOUT = 20  # seconds per cell, as expected.csv was made with


def replace_solution(source: str, function: str, body: str) -> str:
    """`source` with the solution region of `function` replaced by `body` (indented 4)."""
    pattern = re.compile(rf"(def {function}\(.*?\n)(\s*)### BEGIN SOLUTION\n.*?### END SOLUTION\n", re.S)
    assert pattern.search(source), function
    return pattern.sub(lambda m: m.group(1) + "".join(f"    {line}\n" if line else "\n"
                                                      for line in body.strip("\n").splitlines()), source, 1)


def function_bodies(module: Path) -> dict[str, str]:
    """Name -> body (docstring left out, dedented) of each top-level function of a payload module,
    for `replace_solution`."""
    text = module.read_text(encoding="utf-8")
    lines = text.splitlines()
    bodies = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if ast.get_docstring(node) else node.body
            first = body[0].lineno
            while lines[first - 2].strip().startswith("#"):  # a comment opening the body is part of it
                first -= 1
            bodies[node.name] = textwrap.dedent("\n".join(lines[first - 1:body[-1].end_lineno])) + "\n"
    return bodies


# The attacks from inside the kernel, payloads/kernel_attack_*.py: each is appended to nano/tools.py,
# or to the file named.
PAYLOADS = Path(__file__).parent / "payloads"


def payload(name: str) -> str:
    return (PAYLOADS / name).read_text(encoding="utf-8")


ATTACKS = {name: payload(f"kernel_attack_{name.replace('-', '_')}.py") for name in (
    "a-always-equal",         # (a) a result equal to anything
    "b-custom-exc",           # (b) every failing test cell made silent
    "c-patches",              # (c) the test helpers, a builtin and asyncio.run patched at import
    "c-getsource",            # (c) warmup's literal hidden from the hidden test's source check
    "d-frame",                # (d) the expected values read from the caller's frame
    "d-frame-source",         # (d) the calling test cell's source raised, encoded, for the feedback page
    "e-exit-outside-kernel",  # (e) leaving the process: the check's at once
    "e-sys-exit",             # (e) and the kernel's at import
    "f-endless",              # (f) a function that loops forever and ignores SIGINT
)}
ATTACKS["c-getsource"] = ("nano/protocol.py", ATTACKS["c-getsource"])  # where warmup lives


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
    for name, group in alternative_hand_ins().items():
        work = solved(name)
        for alternative in group:
            apply(work, alternative)
    solved("zz-honest")


GROUP = 10  # alternatives at most in one hand-in


def alternative_hand_ins() -> dict[str, tuple[Alternative, ...]]:
    """Hand-in name -> the alternatives it carries. A contested one is a hand-in of its own (it may
    lose points, and must be told apart); the others are packed, up to GROUP in a hand-in, each
    edit still applying exactly once after the ones before it: correct code plus correct code
    is correct code, and the class is 35 hand-ins shorter for it."""
    texts = {}

    def text(file: str) -> str:
        if file not in texts:
            path = release.ROOT / file if file.startswith("nano/") else \
                next((release.ROOT / "lectures").glob(file))
            texts[file] = path.read_text(encoding="utf-8") if file.endswith(".py") else \
                "\n\x00\n".join(c.source for c in notebooks.load(path).cells)
        return texts[file]

    hand_ins: dict[str, tuple[Alternative, ...]] = {}
    packs: list[tuple[list[Alternative], dict[str, str]]] = []
    for alternative in ALTERNATIVES:
        if alternative.contested:
            hand_ins[f"alt-{alternative.name}"] = (alternative,)
            continue
        for members, edited in packs:
            current = edited.get(alternative.file, text(alternative.file))
            if len(members) < GROUP and current.count(alternative.old) == 1 and \
                    all(a.file != alternative.file or a.new not in current or alternative.old not in a.new
                        for a in members):
                break
        else:
            members, edited = [], {}
            packs.append((members, edited))
        current = edited.get(alternative.file, text(alternative.file))
        edited[alternative.file] = current.replace(alternative.old, alternative.new)
        members.append(alternative)
    for number, (members, _) in enumerate(packs, 1):
        hand_ins[f"alt-pack-{number}"] = tuple(members)
    return hand_ins


@dataclass(frozen=True)
class Graded:
    course: Path    # the graded copy of the course: grades.csv, problems.csv, feedback/, logs/
    hand_ins: Path  # the class as handed in
    code: int       # what `nano-course grade` returned
    out: str        # what it printed
    err: str
    grades: dict[str, results.Grade]  # read back from grades.csv and problems.csv


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
                  {g.student: g for g in results.read_grades(graded)})
