"""The one channel between the check's driver (the grader's side) and its subject (the process
that imports a hand-in's `nano`): the messages that may cross it, and how they are framed.

The driver asks, the subject answers. Every request (Call, Read, Stand, ...) gets one Result
with its id. While a request runs, student code may call a double or a proxy the driver put in
the subject: that sends an Invoke, and the driver answers it with an Answer before the request
goes on. Nothing else crosses.

A frame is a 4-byte big-endian length, then that many bytes of UTF-8 JSON: one message, as
{"$type": "Call", field: value, ...}. The driver reads the subject's frames with `Reader`, which
holds at most one frame in memory and refuses one larger than its bound, so whatever the
subject writes (it is student code's process) costs the grader a bounded amount.

Values in messages are plain JSON. Where the driver means an object that lives in the subject,
a value is {"$ref": n}; {"$message": {...}} asks the subject to build an
`anthropic.types.Message` from that JSON. The subject marks what is not plain JSON as
{"__unplain__": "module.Class"}, and a value past the wire's bounds (nested deeper than DEPTH,
an int of more than DIGITS digits, a message over FRAME bytes or of more than VALUES values) as
{"__unplain__": "nested too deep"} or {"__unplain__": "too large: ..."}; the driver's `decode`
marks them again whatever the subject sent, and `past_bounds` finds them: such a value is the
hand-in's outcome, too deep or too large to judge. A frame of more than VALUES values is counted
before it is parsed (`values_in`) and refused whole (`TooLarge`): its bytes are within FRAME, but
parsed they could be millions of Python objects (a list of 660,000 empty lists is 2 MB).

Both sides use this file: the driver imports it as `checks.subject.wire`; the subject
runs `harness.py` with a copy of this file beside it and imports nothing else of autograder.
"""

import contextlib
import json
import math
import os
import re
import select
import socket
import struct
import time
from dataclasses import asdict, dataclass, field, fields

HEADER = struct.Struct(">I")
DEPTH = 60  # nesting a value from the subject may have; deeper parts become a marker
DIGITS = 4000  # digits an int from the subject may have; a longer one becomes a marker
FRAME = 2_000_000  # bytes of one message the driver reads; the subject sends a marker for a larger value
VALUES = 100_000  # values (each list, dict, string, number...) one message may hold; the same, past it


# --- requests: driver -> subject --------------------------------------------------------------

@dataclass(frozen=True)
class Call:
    """Call `target` (a dotted name, "nano.tools.read_file", or "$n.method") with these
    arguments; a coroutine runs to its end on the subject's event loop. `capture`: keep what it
    printed. `keep`: remember what it returned, so that later requests can name it ("$n")."""
    id: int
    target: str
    args: list = field(default_factory=list)
    kwargs: dict = field(default_factory=dict)
    capture: bool = False
    keep: bool = False


@dataclass(frozen=True)
class Read:
    """The value at `target` ("nano.tools.BASH_TIMEOUT", "$n"), as plain data."""
    id: int
    target: str


@dataclass(frozen=True)
class Make:
    """Make `value` an object of the subject's (a list, a dict...) and name it: Result's "ref"."""
    id: int
    value: object


@dataclass(frozen=True)
class Set:
    """Set the attribute `target` to `value` until the next Reset."""
    id: int
    target: str
    value: object


@dataclass(frozen=True)
class Stand:
    """Until the next Reset, every call of the function at `target` calls the driver's
    `handler` instead (an Invoke), however the code under test reaches the function (see
    nano.testing.stand_in). `also`: modules, beyond nano's, whose names for it are rebound too."""
    id: int
    target: str
    handler: str
    also: list = field(default_factory=list)


@dataclass(frozen=True)
class Proxy:
    """Make an object whose calls are the driver's `handler` (Invokes), and name it. `kind`:
    "sync" or "async" (a callable), "asker" (an object with `async question(prompt)`), "model"
    (`async model(messages)`, returning the Message the driver answers with)."""
    id: int
    kind: str
    handler: str


@dataclass(frozen=True)
class Environ:
    """Set these environment variables (None: remove it) until the next Reset."""
    id: int
    values: dict


@dataclass(frozen=True)
class Chdir:
    id: int
    path: str


@dataclass(frozen=True)
class Relay:
    """Listen on the subject's loopback and carry each connection to the unix socket `socket`
    (the driver's Messages API server); Result's value is the URL to give the SDK."""
    id: int
    socket: str


@dataclass(frozen=True)
class Answers:
    """Run the student's answer cells `sources` ({grade_id: source}, in order); the value of
    each of `names` they leave ({"missing": True} where none)."""
    id: int
    sources: dict
    names: list


@dataclass(frozen=True)
class Fresh:
    """Load a new copy of `module`'s file as a module named `name` (what importing it does
    now), and name it."""
    id: int
    module: str
    name: str


@dataclass(frozen=True)
class Reset:
    """Undo every Set, Stand, Environ and Chdir, close the event loop, forget the names."""
    id: int


# --- answers: subject -> driver ---------------------------------------------------------------

@dataclass(frozen=True)
class Result:
    """What a request gave. `outcome` is {"value", "type"} (and "ref" when it is named), or
    {"raised": [class names, most derived first], "message"}; with "stdout" and "stderr"
    for a Call that captured them."""
    id: int
    outcome: dict


@dataclass(frozen=True)
class Invoke:
    """Student code called the double or proxy `handler`. A double's arguments come bound to the
    signature of the function it stands in for: those that can be positional are, in order,
    however the caller passed them. `refs[i]` names args[i] when it is an object the subject
    knows by a name (a list it was given, a proxy), else None; `kwrefs` the same for kwargs."""
    id: int
    handler: str
    args: list
    kwargs: dict
    refs: list
    kwrefs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """The driver's answer to an Invoke: first append each [i, value] of `append` to the list
    that was args[i] (or kwargs[i], for a name), then raise `throw` ([class name, message]) or
    return `value`."""
    id: int
    value: object = None
    append: list = field(default_factory=list)
    throw: list | None = None


MESSAGES = {cls.__name__: cls for cls in (Call, Read, Make, Set, Stand, Proxy, Environ, Chdir, Relay,
                                          Answers, Fresh, Reset, Result, Invoke, Answer)}
FROM_SUBJECT = (Result, Invoke)


class ProtocolError(Exception):
    """The other side sent something that is not a message of this protocol, or too much."""


class TooLarge(ProtocolError):
    """A frame within the byte bound whose values are past a count of them (VALUES in one message,
    or a Reader's budget): not parsed. `why` says so as a marker does ("too large: ...")."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


def encode(message) -> bytes:
    data = json.dumps({"$type": type(message).__name__, **asdict(message)}, ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8", "surrogatepass")
    return HEADER.pack(len(data)) + data


def decode(data: bytes, allowed=tuple(MESSAGES.values()), values: int | None = None):
    """The message in one frame's bytes, its values plain (see `clean`); ProtocolError for
    anything else, TooLarge for more than VALUES values (`values`: `values_in(data)`, if counted
    already), before any is parsed. Nothing else escapes it, whatever the bytes."""
    values = values_in(data) if values is None else values
    if values > VALUES:
        raise TooLarge(too_many(values))
    try:
        raw = json.loads(data.decode("utf-8", "surrogatepass"), parse_constant=str, parse_int=_integer)
    except (ValueError, RecursionError, UnicodeDecodeError, MemoryError) as exc:
        raise ProtocolError(f"a frame is not JSON: {type(exc).__name__}") from None
    cls = MESSAGES.get(raw.get("$type")) if isinstance(raw, dict) else None
    if cls is None or cls not in allowed:
        raise ProtocolError("a frame is not a message this side accepts")
    names = {f.name for f in fields(cls)}
    given = {k: v for k, v in raw.items() if k in names}
    if not isinstance(given.get("id"), int) or isinstance(given.get("id"), bool):
        raise ProtocolError(f"a {cls.__name__} without an id")
    try:
        message = cls(**given)
    except TypeError:
        raise ProtocolError(f"a {cls.__name__} with missing fields") from None
    return _checked(message)


# What stands in a value for a part the wire does not carry ({"__unplain__": why}). Two of them
# say the value went past the wire's bounds, which makes it the hand-in's outcome: too deep, or
# too large, to judge (`past_bounds`).
UNPLAIN = "__unplain__"
TOO_DEEP = "nested too deep"
TOO_LARGE = "too large: "  # then what it was ("too large: an int of 5000 digits")


def marker(why: str) -> dict:
    return {UNPLAIN: why}


def _integer(digits: str):
    """A JSON integer; one too long for Python's int() (4,300 digits) becomes a marker."""
    return int(digits) if len(digits) <= DIGITS else marker(f"{TOO_LARGE}an int of {len(digits)} digits")


# A JSON string: what lies between its quotes is not counted (a string is one value, whatever it
# holds). Where the bytes are JSON, these are exactly the strings json.loads reads; one never
# closed runs to the end (json.loads stops there). Possessive, and always matching from a quote:
# one pass, whatever the bytes (a quote then a million \" took a backtracking pattern hours).
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)


def values_in(data: bytes) -> int:
    """How many values a frame's bytes hold, parsed, counted without parsing them: each list,
    dict, string, number, true, false or null counts one, a dict's key and its value one. That is
    one for the message, and one for each item of a list or a dict that is not empty: its commas,
    and one. Spaces in an empty list or dict ("[ ]") count it as one item more, never fewer. The
    strings set aside are at most twice VALUES (a key and its value are two strings): past them,
    what looks like a comma or a bracket in a string counts too, more, never fewer."""
    bare, _ = _STRING.subn(b'""', data, count=2 * VALUES + 1)
    return (1 + bare.count(b",") + bare.count(b"[") + bare.count(b"{")
            - bare.count(b"[]") - bare.count(b"{}"))


def too_many(values: int, bound: int = VALUES, where: str = "one message") -> str:
    """A marker's words for `values` values in `where`, past `bound`."""
    return f"{TOO_LARGE}{values} values in {where}, over the {bound} it may hold"


_SHAPES = {"args": list, "kwargs": dict, "refs": list, "kwrefs": dict, "outcome": dict, "handler": str,
           "append": list}


def _checked(message):
    """The message with its fields of the right JSON type and its values plain (see `clean`)."""
    changes = {}
    for f in fields(message):
        value = getattr(message, f.name)
        shape = _SHAPES.get(f.name)
        if shape is not None and not isinstance(value, shape):
            raise ProtocolError(f"{type(message).__name__}.{f.name} is not a {shape.__name__}")
        changes[f.name] = clean(value)
    return type(message)(**changes)


def clean(value, depth: int = 0):
    """`value` (parsed JSON) as what the grader's side may keep, compare and write to a page:
    strings free of lone surrogates, keys that are strings, no float that is not finite (its
    repr instead, as the subject sends one), no int past DIGITS digits and nothing nested deeper
    than DEPTH (markers instead), and a marker naming the type of anything that is not JSON.
    It never raises."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -_HUGE < value < _HUGE else marker(f"{TOO_LARGE}an int of more than {DIGITS} digits")
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, str):
        return _text(value)
    if not isinstance(value, (list, dict)):
        return marker(type(value).__name__)
    if depth >= DEPTH:
        return marker(TOO_DEEP)
    if isinstance(value, list):
        return [clean(v, depth + 1) for v in value]
    return {_text(k) if isinstance(k, str) else f"({type(k).__name__})": clean(v, depth + 1) for k, v in value.items()}


_HUGE = 10 ** DIGITS


def _text(value: str) -> str:
    return value if value.isascii() else value.encode("utf-8", "replace").decode("utf-8")


def past_bounds(value) -> str | None:
    """What in `value` (a cleaned message, or a part of one) went past the wire's bounds, in words
    ("nested too deep", "too large: an int of 5000 digits"); None if nothing did."""
    if isinstance(value, dict):
        why = value.get(UNPLAIN) if len(value) == 1 else None
        if isinstance(why, str) and (why == TOO_DEEP or why.startswith(TOO_LARGE)):
            return why
        value = list(value.values())
    elif hasattr(value, "__dataclass_fields__"):
        value = [getattr(value, f.name) for f in fields(value)]
    if isinstance(value, list):
        for item in value:
            found = past_bounds(item)
            if found is not None:
                return found
    return None


class Reader:
    """Reads frames from a pipe, never holding more than one frame of at most `limit` bytes, and
    counting what it has read against `budget` bytes (ProtocolError past either), and the values
    of its frames (`values_in`) against `values` (TooLarge past it, the frame not parsed: the
    words count from `since`, in `where`)."""

    def __init__(self, fd: int, limit: int, budget: float = float("inf"), values: float = float("inf")):
        self.fd, self.limit, self.budget, self.values = fd, limit, budget, values
        self.buffer = bytearray()
        self.total = 0
        self.counted = 0
        self.since, self.where = 0, "its messages"

    def read(self, deadline: float | None = None, allowed=FROM_SUBJECT):
        """The next message; None at the end of the stream or when `deadline` (monotonic) passes
        first; ProtocolError for a frame too large or not a message."""
        size = None
        while True:
            if size is None and len(self.buffer) >= HEADER.size:
                (size,) = HEADER.unpack(self.buffer[:HEADER.size])
                if size > self.limit:
                    raise ProtocolError(f"a frame of {size} bytes, over the bound of {self.limit}")
            if size is not None and len(self.buffer) >= HEADER.size + size:
                data = bytes(self.buffer[HEADER.size:HEADER.size + size])
                del self.buffer[:HEADER.size + size]
                count = values_in(data)
                self.counted += count
                if count <= VALUES and self.counted > self.values:
                    raise TooLarge(too_many(self.counted - self.since, int(self.values - self.since), self.where))
                return decode(data, allowed, count)
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready:
                return None
            want = HEADER.size - len(self.buffer) if size is None else HEADER.size + size - len(self.buffer)
            chunk = os.read(self.fd, max(1, min(want, 1 << 20)))
            if not chunk:
                return None
            self.total += len(chunk)
            if self.total > self.budget:
                raise ProtocolError(f"more than {int(self.budget)} bytes in all")
            self.buffer += chunk


def write(fd: int, message) -> None:
    write_frame(fd, encode(message))


def write_frame(fd: int, data: bytes) -> None:
    """Write a frame (`encode`'s bytes) to a blocking pipe."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def read_blocking(stream) -> object | None:
    """The subject's side: the next message from the driver (trusted, so unbounded), or None."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        return None
    return decode(data)


def pump(source: socket.socket, sink: socket.socket) -> None:
    """Carry one direction of a connection of the Messages API relay, which both sides run: the
    subject between the SDK and the sandbox's edge, the driver between that edge and its server."""
    with contextlib.suppress(OSError):
        while data := source.recv(1 << 16):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)
