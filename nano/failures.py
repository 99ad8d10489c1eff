"""What can go wrong in a turn, said in one sentence a person can act on.

Given, for lecture 06: `main` in nano/repl.py prints "error: " + `explain(exc)` for every failed
turn. `finished_only(model)` turns a reply the model did not finish (stop_reason max_tokens,
refusal or model_context_window_exceeded, or no content at all) into such a failure, `Unfinished`.
Every live path wraps the real model in it: `main`'s default model, `python -m nano`, lecture 06's
live run. Nothing to write here.
"""

import asyncio

from anthropic.types.message import Message
from anthropic.types.message_param import MessageParam

import nano.model
from nano.model import Model

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
# No credential anywhere the SDK looks: the key, the auth token, a profile, federation variables.
NO_KEY = "No API key: set ANTHROPIC_API_KEY (export ANTHROPIC_API_KEY=sk-ant-...)."


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
    reports it with explain and pops it. Other replies pass through untouched, pause_turn's
    among them (nano sends no server tools, so the API never pauses one of its turns).
    See https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons for what
    each stop reason means.
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
        return NO_KEY
    if isinstance(exc, EOFError):
        return "Input ended before the question was answered."
    return f"{type(exc).__name__}: {exc}"
