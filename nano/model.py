"""The model: the one place where nano leaves your machine and talks to Anthropic's API.

Lecture 05 writes `call_model`. Given: the settings it sends and `_client`, the SDK client it
builds on first use, so that importing this module never needs an API key. `Model` names the
seam: anything with this call shape can stand in for the real model, as the scripted model in
`nano.testing` does.
"""

import os
from typing import Any, Protocol

import anthropic
from anthropic.types.message import Message
from anthropic.types.message_param import MessageParam

from nano.tools import TOOLS

MODEL = os.environ.get("NANO_MODEL", "claude-sonnet-5-5")
MAX_TOKENS = 16000  # thinking plus text; more would need streaming (lecture 05, section 1)
SYSTEM_PROMPT = """\
You are nano, a small coding agent working in the user's current directory.
Use the tools to look before you act: list and read files rather than guess their contents.
Make the smallest change that does what was asked, then say in a sentence or two what you did.
The user approves every write, edit and command; if they decline, ask rather than retry."""

_client: Any = None  # the anthropic.AsyncAnthropic client, built by the first call_model


class Model(Protocol):
    """The shape of call_model: the conversation so far in, the model's next reply out."""

    async def __call__(self, messages: list[MessageParam]) -> Message: ...


async def call_model(messages: list[MessageParam]) -> Message:
    """Send the conversation to the model and return its reply, a `Message`.

    Builds `anthropic.AsyncAnthropic()` on the first call (it finds the credentials, such as
    ANTHROPIC_API_KEY), keeps it in `_client`, and reuses it on every later call. Sends exactly five fields: model=MODEL,
    max_tokens=MAX_TOKENS, system=SYSTEM_PROMPT, tools=TOOLS and messages.
    """
    ### BEGIN SOLUTION
    global _client
    if _client is None:
        _client = anthropic.AsyncAnthropic()
    return await _client.messages.create(
        model=MODEL,
        max_tokens=MAX_TOKENS,
        system=SYSTEM_PROMPT,
        tools=TOOLS,
        messages=messages,
    )
    ### END SOLUTION
