"""Correct alternatives to the reference's nano/loop.py (lecture 05), written differently:
test_verify_04_06.py puts each function's body in place of the solution and expects the
independent check to confirm every cell. Names not defined here are nano/loop.py's own."""
# ruff: noqa: F821


async def agent_loop(messages, ask, model=call_model, *, max_turns=MAX_TURNS):
    import json
    turns = 0
    while turns < max_turns:
        turns += 1
        response = await model(messages)
        messages.append({"role": "assistant", "content": response.content})
        calls = [block for block in response.content if block.type == "tool_use"]
        for block in response.content:
            if block.type == "text":
                print(block.text)
        if not calls:
            return "done"
        results = []
        for call in calls:
            print(f"● {call.name}({json.dumps(call.input)})")
            if call.name in GATED and not await confirm(ask, call.name, call.input):
                results.append({"type": "tool_result", "tool_use_id": call.id, "is_error": False,
                                "content": "Declined by the user: ask them what to do instead."})
                continue
            try:
                output = run_tool(call.name, call.input)
            except Exception as error:
                results.append({"type": "tool_result", "tool_use_id": call.id, "is_error": True,
                                "content": f"{type(error).__name__}: {error}"})
            else:
                results.append({"type": "tool_result", "tool_use_id": call.id, "content": output, "is_error": False})
        messages.extend([{"role": "user", "content": results}])
    return "max_turns"
