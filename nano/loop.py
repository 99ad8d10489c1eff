"""The agent loop: call the model, run what it asks for, report back, until it stops asking.

Lecture 05 writes `agent_loop`. It is short because everything it calls is already built:
`run_tool` (lectures 02-03), `GATED` and `confirm` (04), `call_model` (05).
"""

import json

from anthropic.types.message_param import MessageParam

from nano.gate import GATED, Asker, confirm
from nano.model import Model, call_model
from nano.tools import run_tool

MAX_TURNS = 25  # model calls per request before the loop gives up
DECLINED = "The user declined this action. Ask them what they want instead of retrying."


async def agent_loop(messages: list[MessageParam], ask: Asker, model: Model = call_model, *,
                     max_turns: int = MAX_TURNS) -> str:
    """Run the conversation in `messages` until the model stops asking for tools.

    Each turn: call `model(messages)`; append {"role": "assistant", "content": reply.content}
    as it came; walk its blocks in order. A text block: print its text. A tool_use block: print
    one line "● NAME(INPUT)", its name and json.dumps of its input (which may be cut short),
    before the gate asks or the tool runs; then give it exactly one tool_result whose tool_use_id
    is the block's id: for a GATED tool the human declined, DECLINED with is_error False and the
    tool never runs; otherwise run_tool's result with is_error False, or with is_error True the
    message of what it raised, str(exc) (its type's name when that is empty). No tool_use blocks:
    return "done", whatever the stop_reason. Otherwise append one user message holding all the
    results, and go round again. After `max_turns` model calls that all asked for tools, return
    "max_turns" without calling again. `messages` is changed in place, never replaced.
    """
    ### BEGIN SOLUTION
    for _ in range(max_turns):
        reply = await model(messages)
        messages.append({"role": "assistant", "content": reply.content})
        results = []
        for block in reply.content:
            if block.type == "text":
                print(block.text)
            if block.type != "tool_use":
                continue
            print(f"● {block.name}({json.dumps(block.input)[:120]})")
            if block.name in GATED and not await confirm(ask, block.name, block.input):
                content, is_error = DECLINED, False
            else:
                try:
                    content, is_error = run_tool(block.name, block.input), False
                except Exception as exc:
                    content, is_error = str(exc) or type(exc).__name__, True
            results.append({"type": "tool_result", "tool_use_id": block.id,
                            "content": content, "is_error": is_error})
        if not results:
            return "done"
        messages.append({"role": "user", "content": results})
    return "max_turns"
    ### END SOLUTION
