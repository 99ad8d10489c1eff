"""A graded behaviour, defined once, and the code made from it for the notebook and the check.

Each graded test cell of a lecture has one or more `Behaviour`s in `behaviours/lNN.py`:

- `draw(rng)` picks the inputs (plain data) from a `random.Random`, to which `given` (fixed plain
  data) is added. It runs where the judging runs: in the grader for the independent check, in
  the kernel for the notebook.
- `observe(inputs, answers)` runs the student's code on them and returns what it saw, as plain
  data. It runs where student code runs: the notebook's kernel, or the check's sandbox.
- `judge(inputs, seen)` yields the failure messages a student reads, each naming the section
  to reread; none means the behaviour is right.

`standalone` turns the three into one self-contained block of source: the functions, the helpers
they use from kit.py and their own module, and the imports they need. `nano-course notebooks`
writes it into the hidden part of the graded cell (`notebook_code`), and the independent check
sends it to its sandboxed runner (runner.py), so both run the same observe code, and the judge
the check imports is the one the notebook ran.
"""

import ast
import builtins
import dis
import functools
import importlib
import inspect
import random
import textwrap
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.check.kit import plain


def no_inputs(rng):
    return {}


@dataclass(frozen=True)
class Behaviour:
    grade_id: str                                   # the graded cell it belongs to
    observe: Callable[..., dict]                    # observe(inputs, answers) -> plain data
    judge: Callable[[dict, dict], Iterable[str]]    # judge(inputs, seen) -> failure messages
    draw: Callable[[random.Random], dict] = no_inputs
    given: dict = field(default_factory=dict)       # fixed inputs, added to what draw picks
    answers: tuple[str, ...] = ()                   # answer cells (grade_ids) observe reads
    timeout: int | None = None                      # seconds, if longer than the check's default

    def inputs(self, rng: random.Random) -> dict:
        return {**self.draw(rng), **self.given}

    def failures(self, inputs: dict, seen: dict) -> list[str]:
        return [str(message) for message in self.judge(inputs, seen)]


class GraderError(Exception):
    """A behaviour is wrong (it fails on the reference, or its judge raised): the grader's fault."""


BEHAVIOURS = "autograder.check.behaviours"


def lecture(number: str) -> list[Behaviour] | None:
    """Lecture `number`'s behaviours ("03"), in cell order; None if it has no module yet."""
    try:
        module = importlib.import_module(f"{BEHAVIOURS}.l{number}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{BEHAVIOURS}.l{number}":
            raise
        return None
    return list(module.BEHAVIOURS)


def by_grade_id(grade_id: str) -> list[Behaviour]:
    return [b for b in lecture(grade_id[1:3]) or [] if b.grade_id == grade_id]


def rng_for(seed: int | str, key: str) -> random.Random:
    """The inputs of one behaviour depend on the seed and the behaviour only, not on run order."""
    return random.Random(f"{seed}:{key}")


# ---------------------------------------------------------------------------------------------
# One self-contained block of source from functions defined in real modules.

HOME = "autograder.check"  # helpers from modules under here are copied; others are imported


def _global_names(code: types.CodeType) -> set[str]:
    """The global names `code` (and the functions it defines) reads."""
    names = {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _module_assignment(module: types.ModuleType, name: str) -> str:
    tree = ast.parse(inspect.getsource(module))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return ast.get_source_segment(inspect.getsource(module), node)
    raise GraderError(f"{module.__name__}.{name} is used by a behaviour but is not a plain assignment")


def _definition(obj) -> str:
    return textwrap.dedent(inspect.getsource(obj))


def standalone(*functions: Callable, names: dict[str, str] | None = None) -> str:
    """Source that defines `functions` (under `names`, if given) and all they use.

    Functions and classes of modules under HOME are copied, with what they use in turn; modules
    are imported; anything else a module-level name refers to is imported from where it lives,
    and constants of HOME modules are copied as written. The order is definition-safe: imports,
    then constants, then functions, then the aliases in `names`.
    """
    imports: dict[str, str] = {}
    constants: dict[str, str] = {}
    definitions: dict[str, str] = {}
    pending = list(functions)
    seen_ids: set[int] = set()
    while pending:
        obj = pending.pop()
        if id(obj) in seen_ids:
            continue
        seen_ids.add(id(obj))
        definitions[obj.__name__] = _definition(obj)
        codes = [obj.__code__] if inspect.isfunction(obj) else \
            [m.__code__ for m in vars(obj).values() if inspect.isfunction(m)]
        if inspect.isclass(obj):  # its bases are names its definition reads
            codes.append(compile(f"({', '.join(b.__name__ for b in obj.__bases__)})", "<bases>", "eval"))
        home = inspect.getmodule(obj)
        for name in sorted(set().union(*map(_global_names, codes))):
            if name.startswith("__") or name not in vars(home) or (hasattr(builtins, name) and vars(home)[name] is getattr(builtins, name)):
                continue
            value = vars(home)[name]
            if name in definitions or name in imports or name in constants:
                continue
            if isinstance(value, types.ModuleType):
                imports[name] = f"import {value.__name__}" if value.__name__ == name else \
                    f"import {value.__name__} as {name}"
            elif inspect.isfunction(value) or inspect.isclass(value):
                origin = value.__module__
                if origin.startswith(HOME):
                    if value.__name__ != name:
                        raise GraderError(f"{home.__name__}: {name} is an alias of {value.__name__}; use one name")
                    pending.append(value)
                else:
                    imports[name] = f"from {origin} import {value.__name__}" + \
                        ("" if value.__name__ == name else f" as {name}")
            else:
                constants[name] = _module_assignment(home, name)
    parts = ["\n".join(sorted(set(imports.values()))), *constants.values(), *reversed(definitions.values()),
             *(f"{alias} = {original}" for original, alias in (names or {}).items() if alias != original)]
    return "\n\n".join(part.strip() for part in parts if part.strip()) + "\n"


def observe_code(behaviour: Behaviour) -> str:
    """What the check's runner execs: a block that defines `observe`."""
    return _observe_code(behaviour.observe)


@functools.cache  # once per grading process, not once per hand-in: inspect re-reads the sources
def _observe_code(observe: Callable) -> str:
    return standalone(observe, names={observe.__name__: "observe"})


NOTEBOOK_HEADER = "# Made by nano-course notebooks from {path}: change it there, not here."


def notebook_code(grade_id: str) -> str:
    """The hidden part of a graded cell: its behaviours run and judged, one assertion per failure.

    Everything is defined inside one function, so none of its names reach the student's globals.
    (Behaviour functions carry no annotations: in there, an annotation's names would have to
    exist when the function is defined.)
    """
    behaviours = by_grade_id(grade_id)
    if not behaviours:
        raise GraderError(f"no behaviour is defined for the graded cell {grade_id}")
    functions = [f for b in behaviours for f in (b.draw, b.observe, b.judge)]
    body = [standalone(_verdict, *functions)]
    for b in behaviours:
        body.append(f"_verdict({b.draw.__name__}, {b.given!r}, {b.observe.__name__}, {b.judge.__name__}, answers)")
    module = inspect.getmodule(behaviours[0].observe)
    path = Path(module.__file__).relative_to(Path(__file__).resolve().parents[2])
    return "\n".join([
        NOTEBOOK_HEADER.format(path=path.as_posix()),
        "def _hidden(answers):",
        textwrap.indent("\n".join(body), "    ").rstrip(),
        "",
        "",
        "_hidden(globals())",
        "del _hidden",
    ]) + "\n"


def _verdict(draw, given, observe, judge, answers):
    """Run one behaviour in the notebook: fresh inputs, observe with stderr shown as output, and
    an AssertionError carrying the first failure message.

    A judge that raises is the grader's mistake, not the student's: it is said in the cell's
    output and does not fail the cell, so nbgrader's result is the rest of the cell's; the
    independent check meets the same judge and reports it to the instructor (kind "grader").
    """
    import random as _random

    from nano.testing import no_stderr

    inputs = {**draw(_random.Random()), **given}
    with no_stderr():
        seen = plain(observe(inputs, dict(answers)))
    try:
        failures = [str(message) for message in judge(inputs, seen)]
    except Exception as exc:
        print(f"grader error, not the student's doing: the judge {judge.__name__} raised "
              f"{type(exc).__name__}: {exc}")
        return
    assert not failures, failures[0]
