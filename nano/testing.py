"""Stand-ins for the model and the human, so that every check runs offline and the same each time.

Given, used by the notebooks, the visible checks and the hidden tests alike. `scripted_model`
plays back replies that are real `anthropic.types.Message` objects (built with `reply` from
`text`, `tool_use` and `thinking` blocks), so code under test cannot tell them from the API's; `scripted_asker` answers the gate from a list; `no_asker` fails the
test if the gate is consulted at all; `Transcript` shows an asker's questions and answers as a
terminal would. `local_api` points `call_model` at the key-free local Messages API of `nano.server`.
`stand_in` puts a double in place of a function however it is written: the one way the visible
checks and the grader's subject process (checks/subject/harness.py) both do it.
"""

import base64
import contextlib
import copy
import functools
import hashlib
import inspect
import itertools
import os
import sys
import tempfile
import threading
import types
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

_ids = itertools.count(1)


RUNAWAY_AFTER = 20  # calls past the end of a script before the code under test is stopped


class ScriptExhausted(AssertionError):
    """The code under test called the model (or asked the human) more often than scripted."""


class Runaway(BaseException):
    """The code under test kept calling long after its script ended: a loop that never stops.

    A BaseException, so that `except Exception` in the code under test cannot swallow it.
    """


def _stop_runaway(calls: int, scripted: int, what: str) -> None:
    if calls > scripted + RUNAWAY_AFTER:
        raise Runaway(f"{what} {calls} times, {calls - scripted} past the end of the script: "
                      "the code under test never stops")


def text(value: str) -> dict[str, Any]:
    """A text block, as the model would send it: text("Done.")."""
    return {"type": "text", "text": value}


def tool_use(id: str, name: str, input: dict[str, Any]) -> dict[str, Any]:
    """A tool_use block: tool_use("toolu_1", "read_file", {"path": "a.txt"})."""
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def thinking(value: str = "") -> dict[str, Any]:
    """A thinking block with a signature, as today's models send them: thinking() is one at the
    default display setting, where the text comes back empty and the signature carries it.

    The signature is opaque, as the API's is; nano.server.MessagesServer accepts it back only
    with the same text, as the API accepts only a block it signed.
    """
    seed = f"{next(_ids)}:{value}".encode()
    signature = base64.b64encode(b"nano" + hashlib.sha256(seed).digest() * 3).decode()
    return {"type": "thinking", "thinking": value, "signature": signature}


def reply(*blocks: dict[str, Any], stop_reason: str | None = None) -> Any:
    """A real anthropic.types.Message holding `blocks`, as the API would return it.

    stop_reason defaults to "tool_use" when a block asks for a tool and "end_turn" otherwise.
    """
    from anthropic.types.message import Message

    if stop_reason is None:
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return Message.model_validate({
        "id": f"msg_scripted_{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": "scripted",
        "content": [copy.deepcopy(b) for b in blocks],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    })


class ScriptedModel:
    """Returns the scripted replies in order, one per call; keeps what it was sent in `.seen`."""

    def __init__(self, replies: Iterable[Any]):
        self.replies = list(replies)
        self.seen: list[list[Any]] = []

    async def __call__(self, messages: list[Any]) -> Any:
        _stop_runaway(len(self.seen) + 1, len(self.replies), "the model was called")
        self.seen.append(copy.deepcopy(list(messages)))
        if len(self.seen) > len(self.replies):
            raise ScriptExhausted(f"the model was called {len(self.seen)} times, but the script "
                                  f"has only {len(self.replies)} replies")
        return self.replies[len(self.seen) - 1]

    @property
    def calls(self) -> int:
        return len(self.seen)


def scripted_model(replies: Iterable[Any]) -> ScriptedModel:
    """A fake model for agent_loop: scripted_model([reply(text("hi"))])."""
    return ScriptedModel(replies)


class ScriptedAsker:
    """Answers each question with the next scripted answer; records the prompts it was shown."""

    def __init__(self, answers: Iterable[str]):
        self.answers = list(answers)
        self.prompts: list[str] = []

    async def question(self, prompt: str) -> str:
        _stop_runaway(len(self.prompts) + 1, len(self.answers), "the human was asked")
        self.prompts.append(prompt)
        if len(self.prompts) > len(self.answers):
            raise EOFError(f"asked {len(self.prompts)} questions, but only {len(self.answers)} "
                           "answers were scripted")
        return self.answers[len(self.prompts) - 1]


def scripted_asker(answers: Iterable[str]) -> ScriptedAsker:
    """A fake human: scripted_asker(["y", "n"]) says y, then n, then raises EOFError."""
    return ScriptedAsker(answers)


class Transcript:
    """An asker that passes each question on to `inner` and prints it with its answer, as a
    terminal session would show them: Transcript(scripted_asker(["fix it", "y"])).

    An end of input is shown as "^D"; if the code under test keeps asking after the input has
    ended twice, it is stopped with SystemExit (a main that never stops at EOFError).
    """

    def __init__(self, inner: Any):
        self.inner, self.ends = inner, 0

    async def question(self, prompt: str) -> str:
        try:
            answer = await self.inner.question(prompt)
        except EOFError:
            self.ends += 1
            if self.ends > 2:
                raise SystemExit("main kept asking after the input had ended: see lecture 06, "
                                 "section 2") from None
            print(f"{prompt}^D   (end of input)")
            raise
        print(f"{prompt}{answer}")
        return answer


class NoAsker:
    """An asker for code that must not ask: every question fails the test (and is recorded)."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    async def question(self, prompt: str) -> str:
        self.prompts.append(prompt)
        raise AssertionError(f"the gate should not have been consulted, but it asked: {prompt!r}")


no_asker = NoAsker()


@contextlib.contextmanager
def scratch_dir(files: dict[str, str] | None = None) -> Iterator[Path]:
    """Work in a new empty temporary directory holding `files` ({path: text}), then come back."""
    home = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="nano-") as tmp:
        for name, content in (files or {}).items():
            target = Path(tmp, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        os.chdir(tmp)
        try:
            yield Path(tmp)
        finally:
            os.chdir(home)


LOCAL_KEY = "sk-ant-local-no-real-key"
_ENVIRONMENT = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "NO_PROXY", "no_proxy")


@contextlib.asynccontextmanager
async def local_api(replies: Iterable[Any], **options: Any):
    """For the length of the block, `call_model` talks to a `nano.server.MessagesServer` serving
    `replies` on this machine: no key and no network needed. Yields the server (its `.requests`
    hold what was sent). The environment and nano.model's client are restored afterwards.
    """
    import nano.model
    from nano.server import MessagesServer

    saved_env = {name: os.environ.get(name) for name in _ENVIRONMENT}
    saved_client, nano.model._client = nano.model._client, None
    try:
        with MessagesServer(replies, api_key=LOCAL_KEY, **options) as server:
            os.environ.pop("ANTHROPIC_AUTH_TOKEN", None)
            os.environ.update(ANTHROPIC_API_KEY=LOCAL_KEY, ANTHROPIC_BASE_URL=server.url,
                              NO_PROXY="127.0.0.1", no_proxy="127.0.0.1")
            yield server
    finally:
        client, nano.model._client = nano.model._client, saved_client
        if client is not None and hasattr(client, "close"):
            await client.close()
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def open_fence(path: str, root: str = ".") -> Path:
    """inside_project with the gate open: the absolute path of `path` taken relative to `root`,
    as the fence gives it, refusing nothing. Lecture 02's checks put it in the fence's place, so
    that a fence not written yet (lecture 03) costs lecture 02 nothing."""
    return (Path(root).resolve() / path).resolve()


@contextlib.contextmanager
def no_stderr() -> Iterator[None]:
    """What the code under test writes to stderr (print(..., file=sys.stderr), logging, warnings)
    is shown as ordinary output for the length of the block.

    nbgrader scores a graded cell that writes to stderr 0, so every graded cell runs your code
    inside this: a progress line or a warning of yours costs nothing, and you still see it.
    """
    with written_to(sys.stdout, sys.stdout):
        yield


@contextlib.contextmanager
def written_to(stdout, stderr) -> Iterator[None]:
    """For the length of the block, what the code under test writes to stdout goes to `stdout`
    and what it writes to stderr to `stderr` (objects with a `write`), however it writes it:
    print, sys.stdout.write, or a stream it took hold of earlier, even at import (a
    logging.StreamHandler, functools.partial(print, file=sys.stderr)). The streams themselves
    are diverted (their `write` replaced: a notebook kernel's streams and a process's own let it
    be), so that what takes hold of them inside the block holds them, not a buffer of the
    block's; a stream that does not let it is rebound, as contextlib.redirect_stdout does."""
    with contextlib.ExitStack() as stack:
        for name, target in (("stdout", stdout), ("stderr", stderr)):
            if not stack.enter_context(_diverted(getattr(sys, name), target)):
                stack.enter_context(contextlib.redirect_stdout(target) if name == "stdout"
                                    else contextlib.redirect_stderr(target))
        yield


@contextlib.contextmanager
def _diverted(stream, target) -> Iterator[bool]:
    """Writes to `stream` go to `target` for the length of the block, if `stream` lets its
    `write` be replaced: yields whether it did."""
    plain = getattr(type(stream), "write", None)
    state = getattr(stream, "__dict__", None)
    if plain is None or state is None:
        yield False
        return
    inside = threading.local()

    def write(text):
        if target is stream or getattr(inside, "busy", False):  # no loop back into this stream
            return plain(stream, text)
        inside.busy = True
        try:
            return target.write(text)
        finally:
            inside.busy = False
    before = state.get("write")
    try:
        stream.write = write
    except (AttributeError, TypeError):
        yield False
        return
    try:
        yield True
    finally:
        if before is None:
            state.pop("write", None)
        else:
            stream.write = before


@contextlib.contextmanager
def stand_in(function, double, also: Iterable[Any] = ()):
    """For the length of the block, a call to `function` calls `double` instead, however the
    code under test reaches it and however `function` is written.

    A plain function's code is swapped for a forwarder's, so every name and every table holding
    it meets the double, and it keeps its name; so is a bound method's function, or a callable
    object's `__call__`, for calls on that one instance (`self.preview(...)`, a table of tool
    objects). Any other `function` has no code to swap (a decorated one's wrapper, a closure, a
    `functools.partial`, a builtin): what it wraps (`__wrapped__`, as functools.wraps sets it, or
    the function a wrapper made without it closes over) has its code swapped if it can, and
    every name that holds `function` itself in a module of `nano` (`run_tool` in nano.tools, and
    in nano.loop after `from nano.tools import run_tool`) or in one of `also` (modules or
    classes) is bound to a forwarder with its name and docstring. All is put back at the end.

    `double` may be a plain or a coroutine function: where `function` is awaited, what `double`
    returns is awaited if it can be.
    """
    holders = [m for name, m in list(sys.modules.items()) if name == "nano" or name.startswith("nano.")]
    holders = [*holders, *also]
    names = {name for holder in holders for name, value in list(vars(holder).items()) if value is function}
    swapped, owner = next(((f, o) for f, o in _targets(function, names) if _can_swap(f)), (None, None))
    saved = None if swapped is None else (swapped.__code__, swapped.__defaults__, swapped.__kwdefaults__)
    bound: list[tuple[Any, str]] = []
    try:
        if swapped is not None:
            original = None
            if owner is not None:  # a method: other instances of its class keep their own code
                original = types.FunctionType(swapped.__code__, swapped.__globals__, swapped.__name__,
                                              swapped.__defaults__)
                original.__kwdefaults__ = swapped.__kwdefaults__
            forward = _forwarder(double, inspect.iscoroutinefunction(swapped), owner, original)
            swapped.__code__ = forward.__code__
            swapped.__defaults__, swapped.__kwdefaults__ = forward.__defaults__, forward.__kwdefaults__
        if swapped is not function:  # its names must be rebound: to a forwarder that looks like it
            forward = functools.update_wrapper(_forwarder(double, _asynchronous(function, names)), function,
                                               updated=())
            for holder in holders:
                for name, value in list(vars(holder).items()):
                    if value is function:
                        setattr(holder, name, forward)
                        bound.append((holder, name))
        yield
    finally:
        for holder, name in reversed(bound):
            setattr(holder, name, function)
        if swapped is not None:
            swapped.__code__, swapped.__defaults__, swapped.__kwdefaults__ = saved


def _targets(function, names=()) -> Iterator[tuple[Any, Any]]:
    """(a function whose code a forwarder's could replace, the instance it serves, or None):
    for `function` and each callable it wraps (`_wrapped`), the callable itself, or for a bound
    method its function, or for a callable object its class's `__call__`."""
    for f in _wrapped(function, names):
        if inspect.ismethod(f):
            yield f.__func__, f.__self__
        elif inspect.isfunction(f):
            yield f, None
        elif not isinstance(f, type) and inspect.isfunction(getattr(type(f), "__call__", None)):
            yield type(f).__call__, f


def _wrapped(function, names=()) -> Iterator[Any]:
    """`function`, then what it wraps, and so on: `__wrapped__`, as functools.wraps sets it, or,
    for a wrapper made without it, the function it closes over: the one named as the wrapper is
    known (`names`, or its own name), or the only one."""
    seen = set()
    while function is not None and id(function) not in seen:
        seen.add(id(function))
        yield function
        inner = getattr(function, "__wrapped__", None)
        if inner is None and inspect.isfunction(function) and function.__closure__:
            held = []
            for cell in function.__closure__:
                try:
                    value = cell.cell_contents
                except ValueError:  # a cell not filled yet
                    continue
                if callable(value) and not isinstance(value, type) and id(value) not in seen:
                    held.append(value)
            known = {*names, function.__name__}
            named = [f for f in held if getattr(f, "__name__", None) in known]
            inner = named[0] if named else held[0] if len(held) == 1 else None
        function = inner


def _can_swap(function) -> bool:
    """A Python function whose code a forwarder's can replace: one that closes over nothing."""
    return inspect.isfunction(function) and not function.__code__.co_freevars


def _asynchronous(function, names=()) -> bool:
    """Whether the code under test awaits what `function` returns, as far as can be told."""
    return any(inspect.iscoroutinefunction(f) or inspect.iscoroutinefunction(getattr(type(f), "__call__", None))
               for f in _wrapped(function, names))


def _forwarder(double, asynchronous: bool, owner=None, original=None):
    """A function that passes its call on to `double`. Its code reaches nothing but its own
    defaults, so that it still works swapped into a function whose globals are another module's.
    With an `owner`, it is a method's: a call on `owner` goes to `double` without the instance,
    a call on any other instance to `original`, the method's own code."""
    if owner is not None and asynchronous:
        async def forward(self, *args, _double=double, _owner=owner, _original=original,
                          _awaitable=inspect.isawaitable, **kwargs):
            if self is not _owner:
                return await _original(self, *args, **kwargs)
            result = _double(*args, **kwargs)
            return await result if _awaitable(result) else result
    elif owner is not None:
        def forward(self, *args, _double=double, _owner=owner, _original=original, **kwargs):
            if self is not _owner:
                return _original(self, *args, **kwargs)
            return _double(*args, **kwargs)
    elif asynchronous:
        async def forward(*args, _double=double, _awaitable=inspect.isawaitable, **kwargs):
            result = _double(*args, **kwargs)
            return await result if _awaitable(result) else result
    else:
        def forward(*args, _double=double, **kwargs):
            return _double(*args, **kwargs)
    return forward
