"""The one class the slow grading tests share: graded once per session, from the command line.

Grading a hand-in with real nbgrader and the independent check costs seconds of CPU, and several
tests need a class of them: the sample class (fixtures/submissions; test_grading), the mutant
catalogue (autograder/authoring/mutants.py; test_mutations), the alternatives (test_mutations),
the attacks from the kernel (ATTACKS below, in payloads/; test_verify) and the forgers
(FORGERS below; test_unforgeable) and the odd shapes (SHAPES below; test_shapes). Graded together, the workers stay busy, and the course copy,
the reference's observations and the workers' start-up are paid once. Each test reads its own
students' rows.

The ids keep the groups apart: the samples as committed; the mutants packed as
mutant-pack-<n> on perfect hand-ins, at most one of each lecture in a hand-in
(mutant_hand_ins); the alternatives (autograder/authoring/alternatives.py) packed as
alt-pack-<n> on perfect hand-ins, a contested one alone as alt-<name> (alternative_hand_ins);
the attackers as m-<attack>, each on the honest partial hand-in (ab-honest-partial: lecture 02's
read_file not written), graded between the perfect aa-honest and zz-honest; the forgers as
u-<name>. zz-honest is also the mutant test's reference and the forgers' honest student, and
the sample `untouched` their untouched stubs. The odd shapes of test_shapes are s-<name>;
test_processes' hiders p-hider and p-twin, and its burner a-burner, graded first of all, beside
the reference's run; test_doubles' decorated hand-in d-decorated.
"""

import ast
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from autograder import cli
from autograder.authoring import release
from autograder.grading import results
from autograder.authoring import notebooks
from autograder.authoring.alternatives import ALTERNATIVES, Alternative
from autograder.authoring.mutants import MORE_MUTANTS, MUTANTS, Edit, Mutant, apply

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
    """The samples, the honest students, the attackers, the forgers, the mutants and the
    alternatives, as hand-ins in `subs`."""
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
    write_forgers(release_dir, subs)
    for name, (module, attack) in SHAPES.items():
        append(solved(name) / "nano" / module, attack)
    write_hiders(solved)
    decorated = solved(DECORATED_HAND_IN)
    for name in DECORATED:
        apply(decorated, next(a for a in ALTERNATIVES if a.name == name))
    for name, group in {**mutant_hand_ins(), **alternative_hand_ins()}.items():
        work = solved(name)
        for edit in group:
            apply(work, edit)
    solved(HONEST)


# The forgers of test_unforgeable (issue 22): each a hand-in made from the payloads below.
FORGERS = ("u-forger", "u-clock", "u-huge", "u-twin", "u-flood", "u-leak", "u-burner")
HONEST, UNTOUCHED = "zz-honest", "untouched"  # their honest and untouched classmates


# test_doubles' hand-in: run_tool and call_model wrapped by decorators (functools.wraps); graded
# again in AGAIN, its draws must be the same.
DECORATED = ("run_tool_logged_by_a_decorator", "call_model_timed_by_a_decorator")
DECORATED_HAND_IN = "d-decorated"

# The odd shapes of test_shapes (issue 31): a perfect hand-in with a payload at the end of a module.
SHAPES = {"s-odd-name": ("gate.py", "odd_file_name.py"), "s-deep-value": ("protocol.py", "deep_value.py")}


def append(path: Path, name: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n" + payload(name), encoding="utf-8")


def swap_bash(workspace: Path, name: str, edit=lambda text: text) -> None:
    """nano/tools.py with bash's solution replaced by the payload's bash (`edit`ed), and the
    payload's helpers after it."""
    tools = workspace / "nano" / "tools.py"
    source = workspace / f".{name}"
    source.write_text(edit(payload(name)), encoding="utf-8")
    [body] = [b for function, b in function_bodies(source).items() if function == "bash"]
    helpers = source.read_text(encoding="utf-8").split("\ndef bash(")[0]
    source.unlink()
    tools.write_text(replace_solution(tools.read_text(encoding="utf-8"), "bash", body) + "\n" + helpers,
                     encoding="utf-8")


def write_hiders(solved) -> None:
    """test_processes' hand-ins: a bash that hides its children by rewriting the command, its honest
    twin, and four CPU burners in sessions of their own (a-burner: the class's first hand-in)."""
    append(solved("a-burner") / "nano" / "protocol.py", "burn_in_sessions.py")
    swap_bash(solved("p-hider"), "hide_the_children.py")
    swap_bash(solved("p-twin"), "hide_the_children.py",
              lambda text: "".join(line for line in text.splitlines(True) if "# the hiding" not in line))


def set_answer(workspace: Path, notebook: str, old: str, new: str) -> None:
    [path] = workspace.glob(notebook)
    nb = notebooks.load(path)
    hits = [c for c in nb.cells if old in c.source]
    assert len(hits) == 1, old
    hits[0].source = hits[0].source.replace(old, new)
    path.write_text(notebooks.render(nb), encoding="utf-8")


def write_forgers(release_dir: Path, subs: Path) -> None:
    """The FORGERS, as hand-ins in `subs` (test_unforgeable says what each tries)."""
    def solved(name):
        return release.solve_workspace(release.make_workspace(release_dir, subs / name))

    append(release.make_workspace(release_dir, subs / "u-forger") / "nano" / "tools.py", "forge_the_subject.py")
    swap_bash(solved("u-clock"), "bend_the_clock.py")
    huge = solved("u-huge")
    swap_bash(huge, "huge_numbers.py")
    set_answer(huge, "01-*.ipynb", "answer_q1 = 3", 'answer_q1 = "9" * 5000')
    twin = solved("u-twin")  # the honest twin of u-huge: the same, with numbers of a few digits
    swap_bash(twin, "huge_numbers.py", lambda text: text.replace('"9" * 5000', '"99999"'))
    set_answer(twin, "01-*.ipynb", "answer_q1 = 3", "answer_q1 = 99999")
    append(solved("u-flood") / "nano" / "tools.py", "flood_the_channel.py")
    append(solved("u-leak") / "nano" / "tools.py", "leak_the_judges.py")
    append(solved("u-burner") / "nano" / "protocol.py", "burn_the_cpu.py")


GROUP = 10  # alternatives at most in one hand-in


def packed(edits: list[Edit], fits) -> list[tuple[Edit, ...]]:
    """`edits` packed first-fit: each joins the first pack whose members `fits(members, edit)`
    allows and where its edit still applies exactly once after the ones before it, touching no
    text they wrote; else it starts a pack."""
    texts = {}

    def text(file: str) -> str:
        if file not in texts:
            path = release.ROOT / file if file.startswith("nano/") else \
                next((release.ROOT / "lectures").glob(file))
            texts[file] = path.read_text(encoding="utf-8") if file.endswith(".py") else \
                "\n\x00\n".join(c.source for c in notebooks.load(path).cells)
        return texts[file]

    packs: list[tuple[list[Edit], dict[str, str]]] = []
    for edit in edits:
        for members, edited in packs:
            current = edited.get(edit.file, text(edit.file))
            if fits(members, edit) and current.count(edit.old) == 1 and \
                    all(a.file != edit.file or a.new not in current or edit.old not in a.new for a in members):
                break
        else:
            members, edited = [], {}
            packs.append((members, edited))
        current = edited.get(edit.file, text(edit.file))
        edited[edit.file] = current.replace(edit.old, edit.new)
        members.append(edit)
    return [tuple(members) for members, _ in packs]


def alternative_hand_ins() -> dict[str, tuple[Alternative, ...]]:
    """Hand-in name -> the alternatives it carries. A contested one is a hand-in of its own (it may
    lose points, and must be told apart); the others are packed, up to GROUP in a hand-in:
    correct code plus correct code is correct code, and the class is 35 hand-ins shorter for it."""
    hand_ins = {f"alt-{a.name}": (a,) for a in ALTERNATIVES if a.contested}
    packs = packed([a for a in ALTERNATIVES if not a.contested], lambda members, _: len(members) < GROUP)
    return hand_ins | {f"alt-pack-{number}": pack for number, pack in enumerate(packs, 1)}


def mutant_hand_ins() -> dict[str, tuple[Mutant, ...]]:
    """Hand-in name -> the mutants it carries: at most one of each lecture, so that every lecture's
    loss is owed to its own mutant (as many hand-ins as the lecture with the most mutants has)."""
    packs = packed(mutants(), lambda members, mutant: all(m.lecture != mutant.lecture for m in members))
    return {f"mutant-pack-{number}": pack for number, pack in enumerate(packs, 1)}


# The class's grading is the suite's longest path, and a hand-in's grading mostly waits (on its
# kernels, on commands that sleep until their timeout): four at once, beside the suite's other
# workers, keep the two cores busy.
CLASS_WORKERS = 4
# Graded a second time beside the class: those whose grading could vary from run to run (the clock
# bent, numbers past the int limit, CPU burnt beside the reference), with an honest and an
# untouched classmate, and test_doubles' decorated hand-in, whose draws must not change. The other forgers' grades depend on nothing the run could change.
AGAIN = (HONEST, UNTOUCHED, "u-clock", "u-huge", "u-burner", DECORATED_HAND_IN)


@dataclass(frozen=True)
class Graded:
    course: Path    # the graded copy of the course: grades.csv, problems.csv, feedback/, logs/
    hand_ins: Path  # the class as handed in
    code: int       # what `nano-course grade` returned
    out: str        # what it printed
    err: str
    grades: dict[str, results.Grade]  # read back from grades.csv and problems.csv
    again: "Graded | None" = None  # AGAIN graded again, beside the class


def grade_class(course: Path, scratch: Path) -> Graded:
    """Write the class in `scratch` and grade it there with `nano-course grade`, CLASS_WORKERS
    students at once; beside it, in a process of its own, AGAIN as a class of their own into
    another copy of the course (test_unforgeable compares the two gradings)."""
    release_dir = course / "release" / release.ASSIGNMENT
    subs = scratch / "subs"
    write_class(release_dir, subs)
    again = scratch / "again"
    for student in AGAIN:
        shutil.copytree(subs / student, again / "subs" / student)
    shutil.copytree(course, again / "course")
    graded = scratch / "course"
    shutil.copytree(course, graded)
    out, err = io.StringIO(), io.StringIO()
    with (again / "out.txt").open("w", encoding="utf-8") as said:
        beside = subprocess.Popen([str(Path(sys.executable).with_name("nano-course")), "grade", str(again / "subs"),
                                   "--course", str(again / "course"), "--timeout", str(TIMEOUT)],
                                  stdout=said, stderr=subprocess.STDOUT)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli.main(["grade", str(subs), "--course", str(graded), "--timeout", str(TIMEOUT),
                                 "--workers", str(CLASS_WORKERS)])
        finally:
            beside.wait()
    regraded = Graded(again / "course", again / "subs", beside.returncode,
                      (again / "out.txt").read_text(encoding="utf-8"), "",
                      {g.student: g for g in results.read_grades(again / "course")})
    return Graded(graded, subs, code, out.getvalue(), err.getvalue(),
                  {g.student: g for g in results.read_grades(graded)}, regraded)
