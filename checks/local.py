"""The hand-in's code in this very process: how ./ok and the notebook's graded cells run a rule's
visible case.

`Local` is a `Subject` (rule.py) whose harness (subject/harness.py, the same one the grader runs
in its sandbox) lives here: a request is a function call, and a call of a double comes straight
back to `Driving.reply`. So a rule's drive and judge run unchanged, on what you wrote, with
nothing between them and your code but the harness. `follow(rule)` runs the visible case and
raises an AssertionError with the judge's message when it fails: caused by what your code raised,
if the message is about that, so the traceback ends at your line; a function not written yet
raises its stub's NotImplementedError, which says where to write it.
"""

import contextlib
import gc
import os
import signal
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from checks.doubles import ROOT
from checks.driving import Driving
from checks.folder import Folder
from checks.processes import descendants, working_in
from checks.rule import Rule
from checks.subject import harness, wire

class Local(Driving):
    """A subject in this process, its scratch folders made below the working directory."""

    def __init__(self, workspace: Path = ROOT):
        super().__init__()
        self.workspace = Path(workspace)
        self.home = os.getcwd()
        self.base = Path(tempfile.mkdtemp(prefix="rule-", dir=self.home))
        self.fd = os.open(self.base, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        self.harness = harness.Subject(self, self.home)
        self.raised: list[BaseException] = []  # what the code under test raised, in order
        self.watched = False  # whether the rule asked for the processes (item then ends those left)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    # harness.Subject's channel: a call of a double is answered here and now
    def invoke(self, handler: str, args, kwargs, refs, kwrefs) -> wire.Answer:
        return self.reply(wire.Invoke(next(self._ids), handler, args, kwargs, refs, kwrefs))

    def _request(self, message) -> dict:
        self.harness.raised = None
        outcome = self.harness.handle(message)
        if self.harness.raised is not None:
            self.raised.append(self.harness.raised)
        return outcome

    @contextlib.contextmanager
    def item(self, seconds: float | None = None, answers=()) -> Iterator["Local"]:
        """One rule's run; what it set up in the harness is undone after, and, if the rule
        watched processes, one still running in its scratch folders is killed. `seconds` is the
        grader's bound: here no clock stops a loop that never ends, the stop button does."""
        try:
            yield self
        finally:
            self.harness.handle(wire.Reset(next(self._ids)))
            gc.collect(1)  # what the code under test just left to be collected says so now, in the rule's output
            self.handlers.clear()
            self.stood.clear()
            if self.watched:
                for pid in set(working_in(self.base)) - {os.getpid()}:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
            self.watched = False

    @contextlib.contextmanager
    def scratch(self, files: Mapping[str, str] | None = None) -> Iterator[Folder]:
        folder = Folder.make(self.fd, self.base, None)
        try:
            for path, text in (files or {}).items():
                folder.write(path, text)
            self.chdir(folder.path)
            yield folder
        finally:
            folder.close()
            self.chdir(self.home)

    def serve(self, server) -> str:
        return server.url

    def processes(self) -> list[int]:
        """What this process started and still runs, and what runs in its scratch folders (a
        process whose parent ended is no longer a descendant, but it keeps its folder)."""
        self.watched = True
        return sorted((set(descendants(os.getpid())) | set(working_in(self.base))) - {os.getpid()})

    def answers(self, names) -> dict:
        return {name: {"missing": True} for name in names}  # the quiz's rules stay with the grader


def follow(rule: Rule) -> None:
    """Run `rule`'s visible case on the code in this process; an AssertionError with the judge's
    message if it fails."""
    subject = Local()
    try:
        with subject.item(rule.timeout):
            seen = rule.drive(subject, rule.visible)
        message = rule.failure(rule.visible, seen)
    finally:
        subject.close()
    if message:
        stub = next((exc for exc in subject.raised if isinstance(exc, NotImplementedError)), None)
        if stub is not None and "NotImplementedError" in message:
            from checks import trimmed

            raise trimmed(stub)  # the stub's own words: what is not written yet, and where to write it
        raise AssertionError(message) from cause(message, subject.raised)


def cause(message: str, raised: list[BaseException]) -> BaseException | None:
    """The exception of the code under test that `message` is about (it names its class), with
    the frames above the hand-in's code cut; None if it names none."""
    from checks import trimmed

    for exc in raised:
        if f"raised {type(exc).__name__}" in message:
            return trimmed(exc)
    return None
