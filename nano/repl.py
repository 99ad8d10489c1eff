"""The REPL: type a request, watch nano work, type the next one; one conversation throughout.

Lecture 06 writes `main`, the outer loop around `agent_loop`. What it needs besides is given in
nano/failures.py: `explain(exc)`, the one sentence main prints for a failed turn, and
`finished_only`, which makes a reply the model did not finish such a failure (main's default
model is `finished_only(call_model)`).
"""

import asyncio

from anthropic.types.message_param import MessageParam

from nano.failures import explain, finished_only
from nano.gate import Asker, TerminalAsker
from nano.loop import agent_loop
from nano.model import Model, call_model
from nano.protocol import ProtocolError, check_messages


async def main(ask: Asker | None = None, model: Model = finished_only(call_model),
               messages: list[MessageParam] | None = None) -> list[MessageParam]:
    """Read requests with ask.question("> ") and run each through agent_loop; return the history.

    `model` is the guarded real model unless another is passed (the checks pass scripted ones).
    Uses TerminalAsker() when `ask` is None and a new list when `messages` is None; every line
    goes onto that one list, which lives across lines. Each line is stripped of surrounding
    whitespace: an empty one is skipped, the line "exit" stops, and any other is pushed stripped,
    as {"role": "user", "content": line}. Stops at EOFError. When a turn fails (the model or the
    asker raises, or Ctrl-C), prints "error: " + explain(exc) on one line, pops the unfinished
    tail of `messages` until check_messages(messages, at_rest=True) holds, and reads the next
    line. A turn cut off by the turn limit is reported and repaired the same way.
    """
    ### BEGIN SOLUTION
    ask = TerminalAsker() if ask is None else ask
    messages = [] if messages is None else messages
    while True:
        try:
            line = (await ask.question("> ")).strip()
        except (EOFError, KeyboardInterrupt):
            break
        if not line:
            continue
        if line == "exit":
            break
        messages.append({"role": "user", "content": line})
        try:
            status = await agent_loop(messages, ask, model)
            if status == "max_turns":
                print("error: stopped after the turn limit; the unfinished turn was dropped.")
        except (Exception, KeyboardInterrupt, asyncio.CancelledError) as exc:
            print(f"error: {explain(exc)}")
            current = asyncio.current_task()
            if isinstance(exc, asyncio.CancelledError) and current is not None:
                current.uncancel()
        while messages:
            try:
                check_messages(messages, at_rest=True)
                break
            except ProtocolError:
                messages.pop()
    return messages
    ### END SOLUTION
