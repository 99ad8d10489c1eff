"""`python -m nano`: the REPL in a terminal, live against the real model, or from a recording.

    python -m nano                  a live session, with the credentials the SDK finds
                                    (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, a profile, federation)
    python -m nano --record FILE    a live session, saved to FILE when it ends: every request nano
                                    sent and every response it got (through nano.server.Recorder),
                                    the lines typed at "> ", the gate's answers, the final history
    python -m nano --replay FILE    a recorded session, with no key: a local nano.server answers
                                    with the recorded responses and checks that each request
                                    carries the recorded conversation; the recorded lines are
                                    typed for you, and you answer the gate

Both together replay a recording and record the replay. A replay whose requests left the
recording (a file that differs, another answer at the gate) or that stopped before its last
recorded request says so and exits with status 1. The model is
`finished_only(metered(call_model))`: each reply's tokens and the session's running cost are
printed as it arrives (nano/cost.py), and a reply that stopped with max_tokens, refusal or
model_context_window_exceeded, or came back empty, is a failed turn that main reports and drops.
Which credentials a live session uses is the SDK's decision, made where it always makes it; when
it finds none, or cannot use the ones it found, nano says so in one sentence before any prompt.
"""

import argparse
import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

NO_KEY = ("nano needs an Anthropic API key: set ANTHROPIC_API_KEY "
          "(export ANTHROPIC_API_KEY=sk-ant-...) and run ./python -m nano again.")
API = "https://api.anthropic.com"  # where the SDK sends requests unless ANTHROPIC_BASE_URL says
REPLAY_KEY = "replay"  # the SDK sends no request without a key; the replay server wants this one


class Keeping:
    """An asker that passes each question on to `inner` and keeps the answers it got.

    `lines` are the answers to main's "> ", `answers` the rest: the gate's y/n.
    """

    def __init__(self, inner: Any):
        self.inner, self.lines, self.answers = inner, [], []

    async def question(self, prompt: str) -> str:
        answer = await self.inner.question(prompt)
        (self.lines if prompt == "> " else self.answers).append(answer)
        return answer


class Replaying:
    """An asker that types the recorded `lines` at "> ", then ends input; `inner` asks the rest."""

    def __init__(self, lines: list[str], inner: Any):
        self.lines, self.inner = list(lines), inner

    async def question(self, prompt: str) -> str:
        if prompt != "> ":
            return await self.inner.question(prompt)
        if not self.lines:
            print(f"{prompt}(the recording ends here)")
            raise EOFError("the recording has no more lines")
        line = self.lines.pop(0)
        print(f"{prompt}{line}")
        return line


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m nano", description="nano, a coding agent.")
    parser.add_argument("--record", metavar="FILE", help="save the session to FILE when it ends")
    parser.add_argument("--replay", metavar="FILE",
                        help="replay the session recorded in FILE, with no API key")
    return parser.parse_args(argv)


def run(argv: list[str] | None = None) -> int:
    options = arguments(argv)
    if options.record and not Path(options.record).resolve().parent.is_dir():
        print(f"nano cannot record to {options.record}: there is no such folder.", file=sys.stderr)
        return 2
    if not options.replay:
        unusable = credentials_problem()
        if unusable:
            print(unusable, file=sys.stderr)
            return 2
    recording = None
    if options.replay:
        try:
            recording = json.loads(Path(options.replay).read_text(encoding="utf-8"))
            lines = list(recording.get("lines") or [recording["request"]])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            print(f"nano cannot replay {options.replay}: {exc}", file=sys.stderr)
            return 2

    from nano.cost import metered
    from nano.gate import TerminalAsker
    from nano.model import MODEL, call_model
    from nano.repl import finished_only, main
    from nano.server import MessagesServer, Recorder

    with contextlib.ExitStack() as servers:
        ask: Any = TerminalAsker()
        if recording is not None:
            try:
                server = servers.enter_context(MessagesServer.replaying(recording,
                                                                        api_key=REPLAY_KEY))
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                print(f"nano cannot replay {options.replay}: {exc}", file=sys.stderr)
                return 2
            os.environ.update(ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY=REPLAY_KEY)
            os.environ.pop("ANTHROPIC_AUTH_TOKEN", None)
            ask = Replaying(lines, ask)
            print(f"nano, replaying {options.replay} in {os.getcwd()}: the recorded requests are "
                  "typed for you, the model's replies are recorded, and you answer the gate.")
        else:
            print(f"nano, using {MODEL} in {os.getcwd()}. Type a request; 'exit' or Ctrl-D ends.")
        if options.record:
            recorder = servers.enter_context(
                Recorder(os.environ.get("ANTHROPIC_BASE_URL") or API))
            os.environ["ANTHROPIC_BASE_URL"] = recorder.url
            ask = Keeping(ask)
            print(f"Recording the session to {options.record}.")

        messages: list[Any] = []
        try:
            asyncio.run(main(ask, finished_only(metered(call_model)), messages))
        except KeyboardInterrupt:
            print()
        if options.record:
            save(Path(options.record), ask, recorder, messages)
        if recording is not None:
            return followed(server, options.replay)
    return 0


def credentials_problem() -> str | None:
    """Why a live session cannot start, in one sentence, or None when the SDK found a credential.

    The SDK looks where it always does, in its order (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, the
    profile ANTHROPIC_PROFILE names, workload identity federation variables, the active profile
    on disk) and raises for a profile it cannot read; no request is sent.
    """
    import anthropic

    try:
        client = anthropic.Anthropic()
    except Exception as exc:  # the SDK's CredentialsError and kin: a profile named but unusable
        return f"nano cannot use the Anthropic credentials it found: {exc}"
    try:
        found = client.api_key or client.auth_token or client.credentials is not None
    finally:
        client.close()
    return None if found else NO_KEY


def followed(server: Any, path: str) -> int:
    """0 when the replay sent every recorded request as recorded; else say where it left, 1."""
    if server.strayed:
        print(f"nano: the replay left {path} at {server.strayed[0]}. A replay follows "
              "only the session it recorded: the same files (start from a fresh copy of the "
              "workspace) and the same answers at the gate.", file=sys.stderr)
        return 1
    if server.unused:
        total = len(server.script)
        print(f"nano: the replay stopped after {total - server.unused} of the {total} recorded "
              f"requests of {path}.", file=sys.stderr)
        return 1
    return 0


def save(path: Path, ask: Keeping, recorder: Any, messages: list[Any]) -> None:
    """Write the session as a recording: the format of fixtures/celsius_trace.json."""
    from nano.trace import plain

    session = {
        "request": next((line.strip() for line in ask.lines if line.strip()), ""),
        "lines": ask.lines,  # everything typed at "> ", blank lines and exit included
        "answers": ask.answers,  # what the human typed at the gate, in order
        "replies": recorder.replies,  # the Message of each answered request
        "entries": plain(messages),  # the history the session ended with
        "notes": [],  # one sentence per entry, for a person to write
        "requests": recorder.requests,  # each request nano sent: its status and body
    }
    path.write_text(json.dumps(session, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"Recorded {len(recorder.requests)} requests to {path}.")


if __name__ == "__main__":
    sys.exit(run())
