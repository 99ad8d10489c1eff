"""A graded rule, defined once: how the hand-in is driven, and how what was seen is judged.

Each graded cell of a lecture has one or more rules, in `checks/lNN.py`'s `RULES`:

- `drive(subject, inputs)` runs the hand-in's functions through a `Subject` (below) and returns
  what was seen, as plain data: what each call returned, what the doubles were sent, what the
  files held, how long it took. It never imports the hand-in's code itself; it passes to the
  subject only what the function under test is given.
- `judge(inputs, seen)` says what is wrong: a message a student reads, naming the section to
  reread, or None (a generator of messages is read for its first). It is read only through
  `failure` below, the one place that makes a judge total: `seen` is a dict there ({} for
  anything else), and a judge's stub handling is the one line `kit.written(function, outcomes,
  section)`, whose NotWritten `failure` turns into the stub's sentence. Beyond that a judge never
  raises, whatever `seen` holds: the tests feed every judge arbitrary plain data.
- `visible` is the visible case: the inputs the notebook's graded cell and `./ok NN` run, in
  your own process (local.py). The grader runs the same drive and judge on the visible case and
  on hidden cases of the same shape, drawn per student, in a sandbox; only those draws, the
  quiz answers and the reference stay with the grader.
"""

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Protocol

from checks.kit import NotWritten


class Subject(Protocol):
    """What a drive may ask of the hand-in's code, wherever it runs (checks/driving.py holds the
    requests once; the grader's sandboxed subject and ./ok's in-process one differ only in how
    a request gets there)."""

    def call(self, target: str, *args, capture: bool = False, keep: bool = False, **kwargs) -> dict: ...
    def read(self, target) -> dict: ...
    def make(self, value): ...
    def set(self, target: str, value) -> dict: ...
    def stand(self, target: str, handler: Callable, also=()) -> dict: ...
    def proxy(self, kind: str, handler: Callable): ...
    def environ(self, **values: str | None) -> dict: ...
    def chdir(self, path) -> dict: ...
    def fresh(self, module: str, name: str) -> dict: ...
    def answers(self, names) -> dict: ...
    def scratch(self, files: Mapping[str, str] | None = None) -> AbstractContextManager: ...
    def source(self, path: str) -> str | None: ...
    def serve(self, server) -> str: ...
    def processes(self) -> list[int]: ...
    def item(self, seconds: float, answers=()) -> AbstractContextManager: ...


@dataclass(frozen=True)
class Rule:
    grade_id: str                                   # the graded cell it belongs to
    drive: Callable[..., dict]                      # drive(subject, inputs) -> what was seen
    judge: Callable[[dict, dict], Iterable[str] | str | None]  # judge(inputs, seen) -> what is wrong
    visible: dict = field(default_factory=dict)     # the visible case's inputs
    answers: tuple[str, ...] = ()                   # answer cells (grade_ids) drive may read
    timeout: int | None = None                      # seconds, if longer than the default
    timed: bool = False                             # its judge reads the driver's clock

    def failure(self, inputs: dict, seen: dict) -> str | None:
        return failure(self.judge, inputs, seen)


def failure(judge: Callable, inputs: dict, seen) -> str | None:
    """The judge's first message, or None: what ./ok's subject (local.py) and the grader read of
    every judge. `seen` that is not a dict is judged as {}; a stub the judge met (kit.written)
    is its sentence; anything else the judge raises, it raises (the grader's error)."""
    try:
        said = judge(inputs, seen if isinstance(seen, dict) else {})
        if said is None or isinstance(said, str):
            return said
        for message in said:
            return str(message)
        return None
    except NotWritten as stub:
        return str(stub)


def first(messages: Iterator[str]) -> Iterator[str]:
    """The first of `messages`, if any (a judge that reads its cases in turn stops at the first wrong one)."""
    for message in messages:
        yield message
        return
