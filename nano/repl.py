"""The REPL: type a request, watch nano work, type the next one; one conversation throughout.

Lecture 06 writes `main`, the outer loop around `agent_loop`. Given: `explain`, which turns an
exception from a failed turn into one sentence a person can act on, and `finished_only`, which
turns a reply the model did not finish (stop_reason max_tokens, refusal or
model_context_window_exceeded, or no content at all) into such an exception. Every live path
uses `finished_only(call_model)`: it is `main`'s default model, and what `python -m nano` runs.
"""

import asyncio

from anthropic.types.message import Message
from anthropic.types.message_param import MessageParam

from nano.gate import Asker, TerminalAsker
from nano.loop import agent_loop
import nano.model
from nano.model import Model, call_model
from nano.protocol import ProtocolError, check_messages


# The stop reasons of a reply the model did not finish, and what to tell the human about each.
UNFINISHED = {
    "max_tokens": "The model's reply was cut off at its length limit (max_tokens), so the turn "
                  "was dropped and nothing in it ran: ask for a smaller step.",
    "refusal": "The model declined this request (a refusal), so the turn was dropped: rephrase "
               "it or ask for something else.",
    "model_context_window_exceeded": "The model's reply filled the rest of its context window "
                                     "and was cut off, so the turn was dropped: ask for a "
                                     "smaller step, or type exit and start a new session.",
}
# A reply with no content at all (possible with a refusal): pushed, it would be an empty turn.
EMPTY = ("The model sent back an empty reply, so the turn was dropped: try the request again, "
         "perhaps in other words.")


class Unfinished(Exception):
    """The model stopped before finishing its reply, or sent none; `reply` is the Message it sent."""

    def __init__(self, reply: Message):
        why = "sent no content" if not reply.content else "stopped"
        super().__init__(f"the model {why} with stop_reason {reply.stop_reason!r}")
        self.reply = reply


def finished_only(model: Model) -> Model:
    """`model`, except that a reply it did not finish raises Unfinished instead of coming back.

    Unfinished: a stop_reason in UNFINISHED, or empty content whatever the stop_reason.
    agent_loop pushes and runs whatever a reply holds. A reply cut off at max_tokens may end in
    a tool_use whose input was never completed, and a refusal may have no content at all: an
    empty assistant turn, which the API rejects when it is sent back (and which main's repair
    would pop without a word). Raised instead, each is a failed turn like any other: main
    reports it with explain and pops it. Other replies pass through untouched.
    See https://docs.anthropic.com/en/api/handling-stop-reasons for what each stop reason means.
    """
    async def checked(messages: list[MessageParam]) -> Message:
        message = await model(messages)
        if message.stop_reason in UNFINISHED or not message.content:
            raise Unfinished(message)
        return message

    return checked


def explain(exc: BaseException) -> str:
    """Say in one sentence what went wrong in a turn, and what to do about it if anything."""
    import anthropic._exceptions as anthropic  # the SDK's errors, without loading all of the SDK

    if isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError)):
        return "Interrupted."
    if isinstance(exc, Unfinished):
        return UNFINISHED.get(exc.reply.stop_reason or "", EMPTY)
    if isinstance(exc, anthropic.AuthenticationError):
        return "The API key was rejected: check ANTHROPIC_API_KEY."
    if isinstance(exc, anthropic.PermissionDeniedError):
        return "This API key may not use that model or feature."
    if isinstance(exc, anthropic.NotFoundError):
        return f"The API does not know the model {nano.model.MODEL!r}: set NANO_MODEL to a current model id."
    if isinstance(exc, anthropic.RateLimitError):
        return "Rate limited by the API: wait a minute, then try again."
    if isinstance(exc, anthropic.InternalServerError):
        return "The API is overloaded or failing right now: try again shortly."
    if isinstance(exc, anthropic.APITimeoutError):
        return "The API did not answer in time: try again."
    if isinstance(exc, anthropic.APIConnectionError):
        return "Could not reach the API: check your network connection."
    if isinstance(exc, anthropic.BadRequestError):
        return f"The API rejected the request: {getattr(exc, 'api_message', None) or exc}"
    if isinstance(exc, TypeError) and "authentication" in str(exc).lower():
        return "No API key: set ANTHROPIC_API_KEY (export ANTHROPIC_API_KEY=sk-ant-...)."
    if isinstance(exc, EOFError):
        return "Input ended before the question was answered."
    return f"{type(exc).__name__}: {exc}"


async def main(ask: Asker | None = None, model: Model = finished_only(call_model),
               messages: list[MessageParam] | None = None) -> list[MessageParam]:
    """Read requests with ask.question("> ") and run each through agent_loop; return the history.

    `model` is the guarded real model unless another is passed (the checks pass scripted ones).
    Uses TerminalAsker() when `ask` is None and a new list when `messages` is None; every line
    goes onto that one list, which lives across lines. Skips blank lines; stops at EOFError or
    the line "exit". When a turn fails (the model or the asker raises, or Ctrl-C), prints
    "error: " + explain(exc) on one line, pops the unfinished tail of `messages` until
    check_messages(messages, at_rest=True) holds, and reads the next line. A turn cut off by the
    turn limit is reported and repaired the same way.
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
