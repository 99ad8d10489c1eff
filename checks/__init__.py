"""The visible checks, each written once: `./ok NN` runs every check of lecture NN, and a graded
cell of the notebook runs its own with `check("l05_one_user_message_for_all_results")`.

`lNN.py` holds lecture NN's checks (`l00.py`: is the setup ready). A lecture's graded behaviours
are its `RULES` (rule.py): each names its graded cell, and its visible case runs here on your
code, in this process (local.py), by the very drive and judge the grader runs on more cases.
A lecture whose rules have not moved here yet has plain check functions, each named by its
graded cell's id. A check runs in a new empty folder that is its working directory, with what
your code writes to stderr shown as ordinary output (nbgrader scores a graded cell that writes
to stderr 0); it fails with an AssertionError whose message says what went wrong and which
section of the lecture to reread. A check may be a coroutine function: it then runs on an event
loop of its own.
"""

import asyncio
import contextlib
import ctypes
import importlib
import inspect
import io
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent  # the workspace: the folder holding nano/, checks/ and ok
SETUP = "00"  # ./ok 00: the setup checks, then lecture 01's


@dataclass(frozen=True)
class Outcome:
    """How one check went: its id, whether it passed, and why not (one to three lines)."""

    name: str
    passed: bool
    why: tuple[str, ...] = ()


def lectures(number: str | None = None) -> list[str]:
    """The check modules ./ok runs: ["00", "01"] for 00 or 01, [number] otherwise, all without one."""
    found = sorted(p.stem[1:] for p in HERE.glob("l[0-9][0-9].py"))
    if number is None:
        return found
    wanted = [SETUP, "01"] if number in (SETUP, "01") else [number]
    return [n for n in wanted if n in found]


def load(number: str):
    """Lecture `number`'s check module, with the nano modules its rules drive (`NEEDS`) loaded
    first: an exception from importing nano/*.py goes through, before any check runs."""
    module = importlib.import_module(f"checks.l{number}")
    for name in getattr(module, "NEEDS", ()):
        importlib.import_module(name)
    return module


def names(module) -> list[str]:
    """The checks of a module: its rules' graded cells, then its check functions as written."""
    prefix = f"l{module.__name__[-2:]}_"
    found = [(fn.__code__.co_firstlineno, name) for name, fn in vars(module).items()
             if name.startswith(prefix) and inspect.isfunction(fn) and fn.__module__ == module.__name__]
    cells = list(dict.fromkeys(rule.grade_id for rule in getattr(module, "RULES", ())))
    return cells + [name for _, name in sorted(found)]


def find(module, name: str) -> Callable:
    """The check `name` of `module`: a function that runs the visible case of each of the cell's
    rules in turn, or the check function of that name."""
    rules = [rule for rule in getattr(module, "RULES", ()) if rule.grade_id == name]
    if not rules:
        return getattr(module, name)

    def visible_case():
        from checks.local import follow

        for rule in rules:
            follow(rule)
    visible_case.__name__ = name
    return visible_case


def run(name: str, function: Callable, quiet: bool = False) -> Outcome:
    """Run one check in a new empty folder; its outcome, with the reason it failed. What the
    code under test prints is shown on stdout, or, when `quiet` (./ok), not at all."""
    from nano import diagnose

    try:
        execute(function, quiet)
    except NotImplementedError as exc:
        said = str(exc)
        return Outcome(name, False, lines(said if "not implemented" in said else f"not implemented yet: {said}"))
    except AssertionError as exc:
        where = exc.__cause__ if exc.__cause__ is not None and diagnose.location(exc.__cause__) else None
        return Outcome(name, False, ((diagnose.describe(where),) if where else ()) + (lines(str(exc)) or ("failed",)))
    except Exception as exc:
        if diagnose.location(exc) is None or not diagnose.in_package(exc):
            return Outcome(name, False, lines(f"{type(exc).__name__}: {exc}"))
        return Outcome(name, False, (diagnose.describe(exc),))
    except BaseException as exc:  # SystemExit, KeyboardInterrupt, a runaway script
        return Outcome(name, False, lines(f"{type(exc).__name__}: {exc}"))
    return Outcome(name, True)


def execute(function: Callable, quiet: bool = False) -> None:
    """Call `function` in a new empty folder (on an event loop of its own if it is a coroutine
    function), with stderr shown as stdout, or with both thrown away when `quiet`."""
    from nano.testing import no_stderr, scratch_dir, written_to

    output = contextlib.ExitStack()
    if quiet:
        sink = io.StringIO()
        output.enter_context(written_to(sink, sink))
    else:
        output.enter_context(no_stderr())
    with scratch_dir(), output:
        result = function()
        if inspect.isawaitable(result):
            on_own_loop(result)


def on_own_loop(awaitable) -> None:
    """Run a coroutine to the end on a new event loop: here, or, in a notebook's kernel, which
    already runs a loop in this thread, in a thread of its own. An interrupt of the kernel
    (nbgrader's time limit, or the stop button) is passed on to that thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(awaitable)
        return
    failure: list[BaseException] = []

    def target():
        try:
            asyncio.run(awaitable)
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=target, name="check", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.05)
    except KeyboardInterrupt:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(KeyboardInterrupt))
        thread.join(2)
        raise
    if failure:
        raise failure[0].with_traceback(failure[0].__traceback__)


def lines(text: str) -> tuple[str, ...]:
    """A message as at most three lines of at most 300 characters; a longer line loses its
    middle, so that its end, which names the section to reread, stays."""
    kept = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return tuple(line if len(line) <= 300 else f"{line[:250]} ... {line[-45:]}" for line in kept[:3])


def files(spec: dict[str, str]) -> None:
    """Write {path: text} into the working directory."""
    for name, text in spec.items():
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(text, encoding="utf-8")


def raised(call, expected, what: str, section: int) -> str:
    """The message of the `expected` exception that `call()` raised; an AssertionError saying
    what came back (or what else was raised) otherwise. A stub's NotImplementedError goes through."""
    try:
        got = call()
    except NotImplementedError:
        raise
    except expected as exc:
        return str(exc)
    except Exception as exc:
        raise AssertionError(f"{what} must raise {expected.__name__}, but it raised {type(exc).__name__}: "
                             f"{exc} (section {section})") from None
    raise AssertionError(f"{what} must raise {expected.__name__}, but it returned {got!r} (section {section})")


def check(name: str) -> None:
    """Run the visible check `name` ("l05_turn_limit") and print PASS; what graded cells call.

    A failure is raised as it is: the check's AssertionError, whose message says what went wrong
    and which section to reread, or what your code raised, with its traceback to your line.
    The check's code is in checks/lNN.py."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    try:
        execute(find(load(name[1:3]), name))
    except Exception as exc:
        raise trimmed(exc) from exc.__cause__
    print(f"PASS  {name}")


def trimmed(exc: BaseException) -> BaseException:
    """`exc` with the frames of the checks' own code cut from the top of its traceback (as
    pytest hides its own), so that a traceback shows your line, and a failed check its message."""
    tb = exc.__traceback__
    while tb is not None and Path(tb.tb_frame.f_code.co_filename).resolve().is_relative_to(HERE):
        tb = tb.tb_next
    return exc.with_traceback(tb)

