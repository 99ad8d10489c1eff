"""The subject: the process that imports a hand-in's `nano` and runs its functions when the
check's driver asks (see wire.py for what may be asked).

Run as `python -I harness.py IN_FD OUT_FD WORKSPACE` inside the sandbox, with wire.py beside
it. It holds no judge, no expected value and no answer: it calls what it is told to call, with
the arguments it is given, and says what came back. Every double and proxy it installs only
carries the call to the driver and brings back the driver's answer, so what the code under test
sends to them is recorded on the driver's side, where this process cannot reach.

Student code runs in this process and may rewrite any of it; that costs the grade nothing,
since the driver trusts only what crosses the channel, and checks that too.
"""

import asyncio
import builtins
import contextlib
import dataclasses
import importlib
import importlib.util
import inspect
import io
import itertools
import math
import os
import queue
import socket
import sys
import threading

if __package__:  # imported: the in-process subject of ./ok and the graded cells (checks/local.py)
    from . import wire
else:  # run as a script in the grader's sandbox, with wire.py beside it (`python -I` leaves it off the path)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import wire  # noqa: E402

PRINTED = 64_000  # characters of a call's stdout (and of its stderr) sent back
MESSAGE = 4_000  # characters of an exception's message sent back
EXCEPTIONS = {  # what the driver may ask a double to raise
    name: getattr(builtins, name)
    for name in ("AssertionError", "ConnectionResetError", "EOFError", "FileNotFoundError",
                 "KeyboardInterrupt", "NotADirectoryError", "OSError", "PermissionError",
                 "RuntimeError", "SystemExit", "TimeoutError", "TypeError", "UnicodeError",
                 "ValueError", "KeyError", "IsADirectoryError")}


class Runaway(BaseException):
    """The code under test kept calling a double long after its script ended: a loop that never
    stops. A BaseException, so that `except Exception` cannot swallow it (as nano.testing's)."""


class Channel:
    """Frames to and from the driver. A thread reads: requests queue up for the main thread,
    Answers go to the thread waiting for them, whichever thread that is."""

    def __init__(self, fd_in: int, fd_out: int):
        self.stream = os.fdopen(fd_in, "rb", buffering=1 << 16)
        self.fd_out = fd_out
        self.requests: queue.Queue = queue.Queue()
        self.waiting: dict[int, queue.Queue] = {}
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        threading.Thread(target=self._read, name="channel", daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                message = wire.read_blocking(self.stream)
            except BaseException:
                message = None
            if message is None:
                os._exit(0)  # the driver is gone, or its channel is broken
            if isinstance(message, wire.Answer):
                box = self.waiting.pop(message.id, None)
                if box is not None:
                    box.put(message)
            else:
                self.requests.put(message)

    def send(self, message) -> None:
        data = wire.encode(message)
        if len(data) - wire.HEADER.size > wire.FRAME:  # the driver would not read it: what it was, instead
            data = wire.encode(too_large(message, f"a value of {len(data) - wire.HEADER.size} bytes, over the "
                                                  f"{wire.FRAME} a message may have"))
        else:
            values = wire.values_in(data[wire.HEADER.size:])
            if values > wire.VALUES:  # nor this one, however few its bytes
                data = wire.encode(too_large(message, wire.too_many(values).removeprefix(wire.TOO_LARGE)))
        with self.lock:
            wire.write_frame(self.fd_out, data)

    def invoke(self, handler: str, args, kwargs, refs, kwrefs) -> wire.Answer:
        box: queue.Queue = queue.Queue()
        number = next(self.ids)
        self.waiting[number] = box
        self.send(wire.Invoke(number, handler, args, kwargs, refs, kwrefs))
        return box.get()


class Subject:
    def __init__(self, channel: Channel, workspace: str):
        self.channel = channel
        self.workspace = workspace
        self.objects: dict[int, object] = {}  # name -> object; the names the driver may use
        self.names: dict[int, int] = {}  # id(object) -> name
        self.undo: list = []  # what Reset puts back, last first
        self.loop = None
        self.raised: BaseException | None = None

    # --- values ---------------------------------------------------------------------------

    def name(self, obj) -> int:
        key = id(obj)
        if key not in self.names:
            self.names[key] = len(self.objects) + 1
            self.objects[self.names[key]] = obj
        return self.names[key]

    def named(self, obj) -> int | None:
        number = self.names.get(id(obj))
        return number if number is not None and self.objects.get(number) is obj else None

    def plain(self, value, depth: int = 0):
        """`value` as JSON data, as the API would see it (SDK objects as their JSON); a known
        object is {"$ref": n} only where it is a proxy."""
        kind = type(value)
        if depth > wire.DEPTH:
            return wire.marker(wire.TOO_DEEP)
        if value is None or kind in (bool, str):
            return value
        if kind is int:
            return wire.clean(value)
        if kind is float:
            return value if math.isfinite(value) else repr(value)
        if kind in (list, tuple):
            return [self.plain(v, depth + 1) for v in value]
        if kind is dict:  # a key that could pass for a marker ("$ref") is kept apart: "$$ref"
            return {(k if not k.startswith("$") else "$" + k) if type(k) is str else repr(k): self.plain(v, depth + 1)
                    for k, v in value.items()}
        if isinstance(value, str):
            return str.__str__(value)
        if isinstance(value, Proxied):
            return {"$ref": value.number}
        dump = getattr(value, "model_dump", None)
        if callable(dump) and type(value).__module__.startswith("anthropic."):
            return self.plain(dump(mode="json", exclude_none=True), depth + 1)
        return {"__unplain__": f"{kind.__module__}.{kind.__qualname__}"}

    def material(self, value):
        """A value from the driver as an object here: {"$ref": n} is that object,
        {"$message": json} a new anthropic Message."""
        if isinstance(value, dict) and len(value) == 1:
            (key, inner), = value.items()
            if key == "$ref":
                return self.objects[inner]
            if key == "$message":
                from anthropic.types import Message
                return Message.model_validate(inner)
        if isinstance(value, list):
            return [self.material(v) for v in value]
        if isinstance(value, dict):
            return {k: self.material(v) for k, v in value.items()}
        return value

    def find(self, target: str):
        """(the object holding the last part of `target`, that part's name)."""
        first, _, rest = target.partition(".")
        if first.startswith("$"):
            holder = self.objects[int(first[1:])]
            parts = rest.split(".") if rest else []
        else:
            parts = target.split(".")
            for cut in range(len(parts) - 1, 0, -1):
                module = ".".join(parts[:cut])
                try:
                    holder = importlib.import_module(module)
                except ModuleNotFoundError as exc:
                    if exc.name != module:
                        raise
                    continue
                parts = parts[cut:]
                break
            else:
                holder = importlib.import_module("builtins")
        for part in parts[:-1]:
            holder = getattr(holder, part)
        return holder, parts[-1] if parts else None

    def resolve(self, target: str):
        if target.startswith("$") and "." not in target:
            return self.objects[int(target[1:])]
        holder, last = self.find(target)
        return getattr(holder, last)

    def invoke(self, handler: str, args, kwargs, signature=None):
        """Carry a call of a double or proxy to the driver; do what its Answer says. With the
        `signature` of the function a double stands in for, the arguments go bound to it."""
        if signature is not None:
            args, kwargs = bound(signature, args, kwargs)

        def ref(value):
            return self.name(value) if isinstance(value, (list, dict, Proxied)) else None

        answer = self.channel.invoke(handler, self.plain(list(args)), self.plain(dict(kwargs)),
                                     [ref(a) for a in args], {k: ref(v) for k, v in kwargs.items()})
        for index, item in answer.append:
            target = args[index] if isinstance(index, int) and 0 <= index < len(args) else \
                kwargs.get(index) if isinstance(index, str) else None
            if isinstance(target, list):
                target.append(self.material(item))
        if answer.throw:
            raise exception(*answer.throw)
        return self.material(answer.value)

    # --- running code ---------------------------------------------------------------------

    def run(self, function, args, kwargs):
        result = function(*args, **kwargs)
        if inspect.isawaitable(result):
            result = self.await_(result)
        return result

    def await_(self, awaitable):
        """Run `awaitable` to its end on this item's event loop (in a thread of its own, so a
        loop of student code's can run in this one); what escapes it is raised here."""
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
            self.looping = threading.Thread(target=self.loop.run_forever, name="loop", daemon=True)
            self.looping.start()

        async def guarded():
            try:
                return False, await awaitable
            except BaseException as exc:  # KeyboardInterrupt too: the loop must survive it
                return True, exc

        failed, value = asyncio.run_coroutine_threadsafe(guarded(), self.loop).result()
        if failed:
            raise value
        return value

    def outcome(self, produce, keep: bool = False, capture: bool = False) -> dict:
        out, err = Bounded(), Bounded()
        try:
            with contextlib.ExitStack() as stack:
                if capture:
                    stack.enter_context(importlib.import_module("nano.testing").written_to(out, err))
                value = produce()
            found = {"value": self.plain(value), "type": type(value).__name__}
            if keep or self.named(value) is not None:
                found["ref"] = self.name(value)
        except BaseException as exc:  # everything the code under test let escape
            found = {"raised": [c.__name__ for c in type(exc).__mro__], "message": message_of(exc)}
            self.raised = exc  # for an in-process subject, to show where (checks/local.py)
        if capture:
            found.update(stdout=out.getvalue(), stderr=err.getvalue())
        return found

    def handle(self, request) -> dict:
        kind = type(request)
        if kind is wire.Call:
            args = [self.material(a) for a in request.args]
            kwargs = {k: self.material(v) for k, v in request.kwargs.items()}
            return self.outcome(lambda: self.run(self.resolve(request.target), args, kwargs),
                                request.keep, request.capture)
        if kind is wire.Read:
            return self.outcome(lambda: self.resolve(request.target))
        if kind is wire.Make:
            return self.outcome(lambda: self.material(request.value), keep=True)
        if kind is wire.Set:
            return self.outcome(lambda: self.set(request.target, self.material(request.value)))
        if kind is wire.Stand:
            return self.outcome(lambda: self.stand(request.target, request.handler, request.also))
        if kind is wire.Proxy:
            return self.outcome(lambda: Proxied.make(self, request.kind, request.handler), keep=True)
        if kind is wire.Environ:
            return self.outcome(lambda: self.environ(request.values))
        if kind is wire.Chdir:
            return self.outcome(lambda: os.chdir(request.path))
        if kind is wire.Relay:
            return self.outcome(lambda: relay(request.socket))
        if kind is wire.Answers:
            return self.outcome(lambda: answers(request.sources, request.names))
        if kind is wire.Fresh:
            return self.outcome(lambda: self.fresh(request.module, request.name), keep=True)
        if kind is wire.Reset:
            return self.outcome(self.reset)
        return {"raised": ["ValueError"], "message": f"unknown request {kind.__name__}"}

    # --- what Reset undoes ----------------------------------------------------------------

    def set(self, target: str, value) -> None:
        holder, name = self.find(target)
        missing = object()
        old = getattr(holder, name, missing)
        self.undo.append(lambda: delattr(holder, name) if old is missing else setattr(holder, name, old))
        setattr(holder, name, value)

    def stand(self, target: str, handler: str, also) -> None:
        """Make the function at `target` call the driver's `handler`, however it is written and
        however the code under test reaches it: nano.testing.stand_in (the course's given copy,
        the one the visible checks use), with the attribute at `target` and the modules in
        `also` among the holders whose names for it it rebinds."""
        holder, name = self.find(target)
        function = getattr(holder, name)
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            signature = None

        def double(*args, **kwargs):
            return self.invoke(handler, args, kwargs, signature)
        stand_in = importlib.import_module("nano.testing").stand_in
        standing = stand_in(function, double, [holder, *filter(None, map(sys.modules.get, also))])
        standing.__enter__()
        self.undo.append(lambda: standing.__exit__(None, None, None))

    def environ(self, values: dict) -> None:
        saved = dict(os.environ)

        def put_back():
            os.environ.clear()
            os.environ.update(saved)
        self.undo.append(put_back)
        for key, value in values.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = str(value)

    def fresh(self, module: str, name: str):
        """A new copy of `module`'s file, imported as `name` in `module`'s package, as an import
        would: in sys.modules while it runs and until the behaviour ends (code may look itself up
        there), and its relative imports ("from .tools import TOOLS") found."""
        package = module.rpartition(".")[0]
        full = f"{package}.{name}" if package else name
        spec = importlib.util.spec_from_file_location(full, importlib.import_module(module).__file__)
        copy = importlib.util.module_from_spec(spec)
        sys.modules[full] = copy
        self.undo.append(lambda: sys.modules.pop(full, None))
        spec.loader.exec_module(copy)
        return copy

    def reset(self) -> None:
        while self.undo:
            with contextlib.suppress(BaseException):
                self.undo.pop()()
        loop, self.loop = self.loop, None
        if loop is not None:
            with contextlib.suppress(BaseException):
                asyncio.run_coroutine_threadsafe(_shutdown(), loop).result(timeout=5)
            loop.call_soon_threadsafe(loop.stop)
            self.looping.join(5)
            if not loop.is_running():  # closed here, not by the garbage collector at some later moment
                loop.close()
        self.objects.clear()
        self.names.clear()
        os.chdir(self.workspace)


async def _shutdown() -> None:
    this = asyncio.current_task()
    tasks = [t for t in asyncio.all_tasks() if t is not this]
    for task in tasks:
        task.cancel()
    await asyncio.wait(tasks, timeout=2) if tasks else None
    await asyncio.get_running_loop().shutdown_asyncgens()


class Bounded(io.StringIO):
    """A StringIO that keeps the first PRINTED characters."""

    def write(self, text) -> int:
        room = PRINTED - self.tell()
        if room > 0 and isinstance(text, str):
            super().write(text[:room])
        return len(text) if isinstance(text, str) else 0


def message_of(exc: BaseException) -> str:
    try:
        text = str(exc)
    except BaseException:
        return "(its message could not be read)"
    return str.__str__(text)[:MESSAGE] if isinstance(text, str) else ""


def too_large(message, what: str):
    """`message` (a Result or an Invoke) with its values replaced by a marker: they came to
    `what` ("a value of 2000100 bytes, over ..."), more than a message may have."""
    why = wire.marker(f"{wire.TOO_LARGE}{what}")
    if isinstance(message, wire.Invoke):
        return dataclasses.replace(message, args=[why], kwargs={}, refs=[None], kwrefs={})
    return dataclasses.replace(message, outcome={"value": why, "type": message.outcome.get("type")})


def exception(kind: str, message: str) -> BaseException:
    """The exception a double raises when the driver says so: a builtin one by name, or one of
    the SDK's errors, built as the SDK builds them."""
    if kind == "Runaway":
        return Runaway(message)
    if kind in EXCEPTIONS:
        return EXCEPTIONS[kind](message) if kind != "KeyboardInterrupt" else KeyboardInterrupt()
    if kind in ("anthropic.RateLimitError", "anthropic.NotFoundError", "anthropic.APIConnectionError",
                "anthropic.AuthenticationError", "anthropic.InternalServerError"):
        import anthropic
        import httpx

        request = httpx.Request("POST", "https://api.anthropic.com/v1/messages")
        status = {"anthropic.RateLimitError": 429, "anthropic.NotFoundError": 404,
                  "anthropic.AuthenticationError": 401, "anthropic.InternalServerError": 500}
        cls = getattr(anthropic, kind.split(".")[1])
        if kind == "anthropic.APIConnectionError":
            return cls(request=request)
        return cls(message, response=httpx.Response(status[kind], request=request), body=None)
    return RuntimeError(message)


def bound(signature, args, kwargs) -> tuple[list, dict]:
    """The arguments as the function of `signature` would take them: each one that can be
    positional, positional and in order (up to the first one not given); the rest by keyword.
    As given, when they do not fit it."""
    try:
        arguments = signature.bind_partial(*args, **kwargs).arguments
    except TypeError:
        return list(args), dict(kwargs)
    positional, named, gap = [], {}, False
    for parameter in signature.parameters.values():
        if parameter.name not in arguments:
            gap = gap or parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
            continue
        value = arguments[parameter.name]
        if parameter.kind == parameter.VAR_POSITIONAL:
            positional += list(value)
        elif parameter.kind == parameter.VAR_KEYWORD:
            named.update(value)
        elif parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD) and not gap:
            positional.append(value)
        else:
            named[parameter.name] = value
    return positional, named


class Proxied:
    """An object of the driver's: calling it (or asking it a question) is an Invoke."""

    def __init__(self, subject: Subject, handler: str):
        self.subject, self.handler = subject, handler
        self.number = subject.name(self)

    @staticmethod
    def make(subject: Subject, kind: str, handler: str) -> "Proxied":
        cls = {"sync": SyncProxy, "async": AsyncProxy, "asker": AskerProxy, "model": AsyncProxy}[kind]
        return cls(subject, handler)


class SyncProxy(Proxied):
    def __call__(self, *args, **kwargs):
        return self.subject.invoke(self.handler, args, kwargs)


class AsyncProxy(Proxied):
    async def __call__(self, *args, **kwargs):
        return self.subject.invoke(self.handler, args, kwargs)


class AskerProxy(Proxied):
    async def question(self, prompt):
        return self.subject.invoke(self.handler, [prompt], {})


def answers(sources: dict, names: list) -> dict:
    """Run the answer cells in order (one that fails is skipped, as a failing cell would be);
    the value each name has then."""
    namespace = {"__name__": "__answers__"}
    for grade_id, source in sources.items():
        with contextlib.suppress(Exception):
            exec(compile(source, grade_id, "exec"), namespace)
    return {name: namespace[name] if name in namespace else {"missing": True} for name in names}


def relay(path: str) -> str:
    """Serve on this sandbox's loopback, carrying each connection to the unix socket at `path`."""
    listener = socket.create_server(("127.0.0.1", 0))

    def accept() -> None:
        while True:
            client, _ = listener.accept()
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                upstream.connect(path)
            except OSError:
                client.close()
                continue
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=wire.pump, args=(a, b), daemon=True).start()

    threading.Thread(target=accept, name="relay", daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}"


def main() -> None:
    fd_in, fd_out, workspace = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.path.insert(0, workspace)
    os.chdir(workspace)
    # The SDK, which nano/model.py and so every lecture from 05 on imports, is loaded in the
    # process's start-up time (the driver's `startup`), not in the first behaviour's: on a loaded
    # machine it takes tens of seconds, and a behaviour lost to it would lose the next one, in a
    # fresh process, to it again.
    with contextlib.suppress(ImportError):
        import anthropic  # noqa: F401
    channel = Channel(fd_in, fd_out)
    subject = Subject(channel, workspace)
    while True:
        request = channel.requests.get()
        channel.send(wire.Result(request.id, subject.handle(request)))


if __name__ == "__main__":
    main()
