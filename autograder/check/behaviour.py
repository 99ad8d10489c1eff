"""A graded behaviour: a rule (how the hand-in is driven, how what was seen is judged) and how
its inputs are drawn for each student.

Each graded test cell of a lecture has one or more `Behaviour`s in `behaviours/lNN.py`. Most are
a rule of `checks/lNN.py` (checks/rule.py: drive, judge and the visible case, which ./ok and the
notebook run too) with a `draw` of hidden cases of the same shape (`Behaviour.of`); the rest
(the quiz's answers, lectures whose rules have not moved to checks/ yet) are written here whole:

- `draw(rng)` picks the inputs (plain data) from a `random.Random`, to which `given` (fixed plain
  data) is added. Inputs may hold what the right answer is: they stay on the grader's side.
- `drive(subject, inputs)` runs the hand-in's functions through a `driver.Subject` and returns
  what was seen, as plain data: what each call returned, what the doubles were sent, what the
  files held, how long it took. It runs on the grader's side and never imports student code;
  it passes to the subject only what the function under test is given.
- `judge(inputs, seen)` says what is wrong: a message a student reads, naming the section to
  reread, or None (a generator of messages is read for its first). It is read through
  `Behaviour.failure`, which is checks/rule.py's `failure`: a stub is its sentence there
  (checks/kit.py, `written`), and `seen` a dict. It never raises, whatever `seen` holds: tests
  feed every judge arbitrary plain data.

The independent check (independent.py) runs them for `nano-course grade`, and the notebook's
hidden part runs the same ones under stock nbgrader (stock.py).
"""

import hashlib
import importlib
import json
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from checks import rule as rules


def no_inputs(rng):
    return {}


@dataclass(frozen=True)
class Behaviour:
    grade_id: str                                   # the graded cell it belongs to
    drive: Callable[..., dict]                      # drive(subject, inputs) -> what was seen
    judge: Callable[[dict, dict], Iterable[str] | str | None]  # judge(inputs, seen) -> what is wrong
    draw: Callable[[random.Random], dict] = no_inputs
    given: dict = field(default_factory=dict)       # fixed inputs, added to what draw picks
    answers: tuple[str, ...] = ()                   # answer cells (grade_ids) drive may read
    timeout: int | None = None                      # seconds, if longer than the check's default
    timed: bool = False                             # its judge reads the driver's clock: a failure
    #                                                 is driven once more, and stands only if the
    #                                                 second fails too (a stalled machine is not
    #                                                 the student's fault)
    visible: dict = field(default_factory=dict)     # a rule's visible case, which the draw extends

    @classmethod
    def of(cls, rule: rules.Rule, draw: Callable[[random.Random], dict]) -> "Behaviour":
        """`rule` graded on its visible case with the hidden cases `draw` adds: the draw's value
        for a key replaces the visible case's (a list of cases holds the visible ones first)."""
        return cls(rule.grade_id, rule.drive, rule.judge, draw, answers=rule.answers, timeout=rule.timeout,
                   timed=rule.timed, visible=rule.visible)

    def inputs(self, rng: random.Random) -> dict:
        return {**self.visible, **self.draw(rng), **self.given}

    def failure(self, inputs: dict, seen) -> str | None:
        """The judge's first message, or None (rule.failure: a stub is its sentence, `seen` not a
        dict is {}); anything else the judge raises, it raises."""
        return rules.failure(self.judge, inputs, seen)


def visible(defined: Iterable[rules.Rule], grade_id: str) -> dict:
    """The visible case of the rule of `defined` (a lecture's RULES) for the cell `grade_id`: what
    its draw adds hidden cases to."""
    return next(rule.visible for rule in defined if rule.grade_id == grade_id)


class GraderError(Exception):
    """A behaviour is wrong (it fails on the reference, or it raised): the grader's fault."""


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


def keys(behaviours: Iterable[Behaviour]) -> list[str]:
    """grade_id for a cell's first behaviour, grade_id#2, #3... for its further ones."""
    seen: dict[str, int] = {}
    found = []
    for b in behaviours:
        seen[b.grade_id] = seen.get(b.grade_id, 0) + 1
        found.append(b.grade_id if seen[b.grade_id] == 1 else f"{b.grade_id}#{seen[b.grade_id]}")
    return found


def rng_for(seed: int | str, student: str, key: str, hand_in: str = "") -> random.Random:
    """The draw of one behaviour for one student: it depends on the course's grading seed, the
    student, the hand-in (its `digest`) and the behaviour only, so a re-grade draws the same
    inputs, a student's inputs are not the next student's, and a hand-in changed to answer the
    inputs a feedback page showed draws new ones."""
    return random.Random(f"{seed}:{student}:{hand_in}:{key}")


def digest(files: Mapping[str, str], answers: Mapping[str, str]) -> str:
    """What a hand-in's draws follow: a digest of what it hands in to be graded, its nano/*.py
    ({"nano/tools.py": text}) and its notebooks' answer cells ({grade_id: source}), which
    grading reads before any of it runs (independent.student_files)."""
    text = json.dumps({"files": dict(files), "answers": dict(answers)}, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


HIDDEN = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
CALL = "from autograder.check.stock import hidden_tests"  # how a hidden part made here is known


def hidden_part(grade_id: str) -> str:
    """What nbgrader's hidden tests of a graded cell are: a call of its behaviours, which
    `nano-course grade` runs outside the kernel (it strips this part before the kernel sees it)
    and stock nbgrader runs here (stock.py). No judge, input or answer is in the notebook."""
    if not by_grade_id(grade_id):
        raise GraderError(f"no behaviour is defined for the graded cell {grade_id}")
    return "\n".join([HIDDEN[0],
                      f"# The behaviours of {grade_id} (autograder/check/behaviours/l{grade_id[1:3]}.py).",
                      CALL,
                      f"hidden_tests({grade_id!r}, globals())",
                      HIDDEN[1]])
