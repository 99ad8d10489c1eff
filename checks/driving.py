"""The driver's side of a subject, whichever process the hand-in's code runs in.

A rule's `drive(subject, inputs)` (rule.py) asks a subject to call the hand-in's functions, to
stand doubles in for some of them, to make objects and read values; each ask is a request of
subject/wire.py, which subject/harness.py carries out where the hand-in's code runs, and each
call the code under test makes of a double comes back as an Invoke that `reply` answers here.
`Driving` holds all of that once. How a request reaches the harness is the subclass's:

- `autograder/check/driver.py`'s `Subject`: the grader's, across a bounded channel to a harness
  in a sandboxed process of its own (every case, hidden ones included);
- `local.py`'s `Local`: ./ok's and the graded cells', a harness in this very process (the
  visible case).
"""

import itertools
import time
from collections.abc import Callable

from checks.doubles import Raise, Ref, Reply, to_wire
from checks.folder import READ_LIMIT
from checks.subject import wire


class Lost(Exception):
    """The subject died, hung past the behaviour's time, or broke the protocol or its bounds:
    the behaviour in progress did not finish, and the next one gets a fresh subject."""


class Driving:
    """The requests a drive may make (`call`, `read`, `make`, `set`, `stand`, `proxy`,
    `environ`, `chdir`, `fresh`) and the answers to the doubles' calls (`reply`). A subclass
    gives `_request(message) -> outcome`, `_lose(why)` and `workspace` (the hand-in's folder, which
    `source` reads), and the rest of the Subject protocol (rule.py): `item`, `scratch`, `serve`,
    `processes`, `answers`."""

    def __init__(self):
        self.handlers: dict[str, Callable] = {}
        self.stood: set[str] = set()
        self.refs: list = []  # the refs of the Invoke being handled (see Invoke.refs)
        self.kwrefs: dict = {}
        self._ids = itertools.count(1)
        self._names = itertools.count(1)

    def _request(self, message) -> dict:
        raise NotImplementedError

    def _lose(self, why: str):
        raise Lost(why)

    def reply(self, invoke: wire.Invoke) -> wire.Answer:
        """The answer to a call of a double or proxy: its handler's value, Reply or Raise."""
        handler = self.handlers.get(invoke.handler)
        self.refs, self.kwrefs = invoke.refs, invoke.kwrefs
        try:
            if handler is None:
                raise Raise("RuntimeError", f"{invoke.handler} is not standing in any more")
            got = handler(*invoke.args, **{str(k): v for k, v in invoke.kwargs.items()})
            answer = got if isinstance(got, Reply) else Reply(got)
        except Raise as exc:
            answer = Reply(throw=(exc.kind, exc.message))
        except Lost:
            raise
        except Exception as exc:  # a handler given arguments it cannot take: as a function would
            answer = Reply(throw=(type(exc).__name__ if type(exc).__module__ == "builtins" else "RuntimeError",
                                  str(exc)[:500]))
        return wire.Answer(invoke.id, to_wire(answer.value), [[i, to_wire(v)] for i, v in answer.append],
                           list(answer.throw) if answer.throw else None)

    def call(self, target: str, *args, capture: bool = False, keep: bool = False, **kwargs) -> dict:
        """Call `target` in the subject: its outcome ({"value", "type"} or {"raised", "message"},
        "stdout" and "stderr" with `capture`, "ref" when it returned an object the subject names)
        and "seconds", the time it took by this process's clock."""
        start = time.monotonic()
        outcome = self._request(wire.Call(next(self._ids), target, to_wire(list(args)), to_wire(kwargs),
                                          capture, keep))
        return {**outcome, "seconds": time.monotonic() - start}

    def read(self, target: str | Ref) -> dict:
        """The outcome of reading `target` ("nano.tools.BASH_TIMEOUT", or a Ref)."""
        return self._request(wire.Read(next(self._ids), _target(target)))

    def make(self, value) -> Ref:
        """`value` as an object of the subject's (a list to hand to agent_loop, say)."""
        return self._ref(self._request(wire.Make(next(self._ids), to_wire(value))))

    def set(self, target: str, value) -> dict:
        """Set the attribute `target` in the subject, until the behaviour ends."""
        return self._request(wire.Set(next(self._ids), target, to_wire(value)))

    def stand(self, target: str, handler: Callable, also=()) -> dict:
        """Until the behaviour ends, calls of the function at `target` are calls of `handler`
        here, with plain arguments; it returns a value, a Reply, or raises Raise."""
        self.handlers[target] = handler
        if target in self.stood:
            return {"value": "again"}
        self.stood.add(target)
        return self._request(wire.Stand(next(self._ids), target, target, list(also)))

    def proxy(self, kind: str, handler: Callable) -> Ref:
        """An object of the subject's whose calls are calls of `handler` here (see wire.Proxy)."""
        name = f"proxy-{next(self._names)}"
        self.handlers[name] = handler
        return self._ref(self._request(wire.Proxy(next(self._ids), kind, name)))

    def environ(self, **values: str | None) -> dict:
        return self._request(wire.Environ(next(self._ids), values))

    def chdir(self, path) -> dict:
        return self._request(wire.Chdir(next(self._ids), str(path)))

    def fresh(self, module: str, name: str) -> dict:
        """Import a new copy of `module`'s file as `name`: the outcome, with its "ref"."""
        return self._request(wire.Fresh(next(self._ids), module, name))

    def source(self, path: str, limit: int = READ_LIMIT) -> str | None:
        """The text of the hand-in's file `path` ("nano/protocol.py") as saved in `self.workspace`,
        read here: for the grader, the folder the subject was copied from, which no student code
        has run in."""
        try:
            with open(self.workspace / path, "rb") as f:
                return f.read(limit).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def _ref(self, outcome: dict) -> Ref:
        number = outcome.get("ref")
        if not isinstance(number, int) or isinstance(number, bool):
            self._lose(f"it could not make an object ({outcome.get('message', 'no name came back')})")
        return Ref(number)


def _target(target: str | Ref) -> str:
    return f"${target.number}" if isinstance(target, Ref) else target
