"""The doubles a rule's drive hands the code under test, and what their handlers answer.

A double lives on the driver's side (the grader's process, or ./ok's): the code under test holds
only a proxy (see subject/harness.py), and each call it makes arrives here as plain data, is
recorded here and answered from here. `Model` is a scripted model, `Asker` a scripted human;
a handler answers with a value, a `Reply`, or raises `Raise`. `Ref` names an object that lives in
the subject.
"""

import importlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the course, or the workspace, holding nano/ and checks/


@dataclass(frozen=True)
class Ref:
    """An object that lives in the subject (a list it was given, a proxy), by its name there."""

    number: int

    def wire(self) -> dict:
        return {"$ref": self.number}


@dataclass(frozen=True)
class Reply:
    """What a handler answers an Invoke with, when more than a value: `append` [[i, value]] to
    the list that was argument i (or the keyword argument i, for a name), then raise `throw`
    ([class name, message]) or return `value`."""

    value: object = None
    append: tuple = ()
    throw: tuple | None = None


class Raise(Exception):
    """Raised by a handler: the double raises exception `kind` (a builtin's name, or
    "anthropic.RateLimitError"...) with `message` in the subject."""

    def __init__(self, kind: str, message: str = ""):
        super().__init__(message)
        self.kind, self.message = kind, message


def to_wire(value):
    """A value for the subject: Refs as {"$ref": n}, recursively."""
    if isinstance(value, Ref):
        return value.wire()
    if isinstance(value, (list, tuple)):
        return [to_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: to_wire(v) for k, v in value.items()}
    return value


class Model:
    """A scripted model whose replies are handed out from here: `subject.model(replies)`. It
    keeps, in `seen`, the messages each call sent (as the JSON the API would get)."""

    RUNAWAY_AFTER = 20  # calls past the script before the code under test is stopped (nano.testing)

    def __init__(self, replies):
        self.replies = [message_json(r) for r in replies]
        self.seen: list = []

    @property
    def calls(self) -> int:
        return len(self.seen)

    def __call__(self, messages=None, *args, **kwargs):
        self.seen.append(messages)
        if len(self.seen) > len(self.replies) + self.RUNAWAY_AFTER:
            raise Raise("Runaway", f"the model was called {len(self.seen)} times: the code under test never stops")
        if len(self.seen) > len(self.replies):
            raise Raise("AssertionError", f"the model was called {len(self.seen)} times, but the script has "
                                          f"only {len(self.replies)} replies")
        return {"$message": self.replies[len(self.seen) - 1]}


class Asker:
    """A scripted human: each question gets the next answer; past the last, EOFError (or, for
    `refuse`, an AssertionError: the code under test must not ask). Keeps the prompts."""

    def __init__(self, answers=(), refuse: bool = False):
        self.answers, self.refuse = list(answers), refuse
        self.prompts: list = []

    def __call__(self, prompt=None, *args, **kwargs):
        self.prompts.append(prompt)
        if self.refuse:
            raise Raise("AssertionError", f"the gate should not have been consulted, but it asked: {prompt!r}")
        if len(self.prompts) > len(self.answers) + Model.RUNAWAY_AFTER:
            raise Raise("Runaway", "the human was asked again and again after the input ended")
        if len(self.prompts) > len(self.answers):
            raise Raise("EOFError", f"asked {len(self.prompts)} questions, but only {len(self.answers)} "
                                    "answers were scripted")
        return self.answers[len(self.prompts) - 1]


def message_json(reply) -> dict:
    if hasattr(reply, "model_dump"):
        return reply.model_dump(mode="json", exclude_none=True)
    return json.loads(json.dumps(reply))


def model(subject, replies) -> tuple[Model, Ref]:
    """A scripted model here and its proxy in the subject: (the recorder, what to pass)."""
    recorder = Model(replies)
    return recorder, subject.proxy("model", recorder)


def asker(subject, answers=(), refuse: bool = False) -> tuple[Asker, Ref]:
    """A scripted human here and its proxy in the subject (an object with `question`)."""
    recorder = Asker(answers, refuse)
    return recorder, subject.proxy("asker", recorder)


def given(name: str):
    """The given module `nano.<name>` (server, testing, trace, protocol...) of the folder that
    holds these checks, for a drive to build scripted replies or serve the Messages API with. In
    the grader that is the course's own copy, never a hand-in's (no hand-in's folder is ever on
    its path); in ./ok, the workspace's."""
    root = str(ROOT)
    if root not in sys.path:
        sys.path.append(root)
    return importlib.import_module(f"nano.{name}")
