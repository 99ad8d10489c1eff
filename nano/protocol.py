"""The message protocol: the rules a conversation with the model must keep.

Lecture 01. `check_messages` is given: it reads a messages list the way the API does and says,
in plain words, the first rule it breaks. `warmup` is Problem 0, the student's first edit.
"""

from collections.abc import Sequence
from typing import Any


class ProtocolError(ValueError):
    """A messages list that the Messages API would reject, or that nano refuses as stricter.

    Two rules are nano's own. Roles alternate: the API combines consecutive turns of one role into
    a single turn (https://platform.claude.com/docs/en/api/messages); nano keeps one entry per
    turn. And the roles are "user" and "assistant": the SDK's MessageParam also admits a
    SystemMessageParam, {"role": "system", ...}, which recent models accept in the list under
    placement rules of their own (https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages);
    nano's standing instructions never change within a session, so they travel once, in the
    request's system field, and the list holds the two sides of the conversation only.
    """


USER_BLOCKS = {"text", "image", "document", "tool_result"}
ASSISTANT_BLOCKS = {"text", "tool_use", "thinking", "redacted_thinking"}


def warmup() -> int:
    """Return 61001, written as arithmetic that reads as "61" and "001" (Problem 0)."""
    ### BEGIN SOLUTION
    return 61 * 1000 + 1
    ### END SOLUTION


def field(block: Any, name: str, default: Any = None) -> Any:
    """Read `name` from a content block, whether it is a plain dict or an SDK object."""
    if isinstance(block, dict):
        return block.get(name, default)
    return getattr(block, name, default)


def check_messages(messages: Sequence[Any], *, at_rest: bool = False) -> None:
    """Raise ProtocolError naming the first rule `messages` breaks; return None if it keeps them all.

    The rules: every entry is a dict with a role of "user" or "assistant" and non-empty content
    (a string or a list of blocks); the first entry is the user's; roles alternate (stricter
    than the API, which combines two turns of one role in a row into one); tool_use
    blocks appear only in assistant turns and tool_result blocks only in user turns; each
    tool_use is answered by exactly one tool_result, with the same id, in the very next user
    message, and tool_results answer nothing else. The last assistant turn may still have its
    tool_use unanswered (the tools are about to run), unless `at_rest` is True: a log at rest,
    ready for the next line from the user, ends with an assistant turn that asks for nothing.
    """
    if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
        raise ProtocolError(f"messages must be a list of dicts, not {type(messages).__name__}.")
    pending: list[str] = []  # tool_use ids of the previous assistant turn, still unanswered
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise ProtocolError(f"{where} is a {type(message).__name__}; every entry must be a dict "
                                'like {"role": "user", "content": "..."}.')
        role, content = message.get("role"), message.get("content")
        if role not in ("user", "assistant"):
            why = ("nano sends its standing instructions in the request's system field, not as "
                   "an entry" if role == "system" else 'a tool result travels in a "user" message')
            raise ProtocolError(f'{where} has role {role!r}; the only roles are "user" and '
                                f'"assistant" ({why}).')
        if i == 0 and role != "user":
            raise ProtocolError(f'{where} is an assistant turn; a conversation starts with the user.')
        if i > 0 and role == messages[i - 1].get("role"):
            raise ProtocolError(f"{where} is a {role} message right after another {role} message; "
                                "roles must alternate user, assistant, user, ...")
        if isinstance(content, str):
            blocks: list[Any] = [{"type": "text", "text": content}]
        elif isinstance(content, Sequence) and not isinstance(content, bytes):
            blocks = list(content)
        else:
            raise ProtocolError(f"{where} has content of type {type(content).__name__}; content is "
                                "a string or a list of content blocks.")
        if not blocks or (isinstance(content, str) and not content):
            raise ProtocolError(f"{where} has empty content; the API rejects empty turns.")

        allowed = USER_BLOCKS if role == "user" else ASSISTANT_BLOCKS
        turn = "a user turn" if role == "user" else "an assistant turn"
        kinds = [field(block, "type") for block in blocks]
        for j, kind in enumerate(kinds):
            if kind not in allowed:
                hint = {"tool_use": "only the model asks for tools, so tool_use belongs in an "
                                    "assistant turn",
                        "tool_result": "the harness answers tools, so tool_result belongs in a "
                                       "user turn"}.get(kind, f"{turn} holds only "
                                                          f"{', '.join(sorted(allowed))} blocks")
                raise ProtocolError(f"{where}.content[{j}] is a block of type {kind!r} in {turn}: {hint}.")

        if role == "user":
            answered = [field(b, "tool_use_id") for b, k in zip(blocks, kinds) if k == "tool_result"]
            first_other = next((j for j, k in enumerate(kinds) if k != "tool_result"), len(kinds))
            if "tool_result" in kinds[first_other:]:
                raise ProtocolError(f"{where} puts text before its tool_result blocks; the tool "
                                    "results must come first in the message.")
            for tool_id in answered:
                if tool_id not in pending:
                    why = ("it answers twice" if answered.count(tool_id) > 1
                           else "the assistant turn just before it has no tool_use with that id")
                    raise ProtocolError(f"{where} has a tool_result for {tool_id!r}, but {why}.")
                pending.remove(tool_id)
            if pending:
                raise ProtocolError(f"messages[{i - 1}] asked for tool_use {pending[0]!r}, but "
                                    f"{where} has no tool_result for it; every tool_use must be "
                                    "answered in the very next user message.")
        else:
            pending = [field(b, "id") for b, k in zip(blocks, kinds) if k == "tool_use"]
            if len(set(pending)) != len(pending):
                raise ProtocolError(f"{where} uses the same tool_use id twice; ids must be unique.")

    if at_rest and messages:
        last = len(messages) - 1
        if messages[-1].get("role") != "assistant":
            raise ProtocolError(f"messages[{last}] is a user message with no reply yet; a log at "
                                "rest ends with an assistant turn.")
        if pending:
            raise ProtocolError(f"messages[{last}] asks for tool_use {pending[0]!r}, which was "
                                "never answered; a log at rest cannot end on a tool request.")
