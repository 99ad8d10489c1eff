"""Correct alternatives to the reference's nano/model.py (lecture 05), written differently:
test_verify_04_06.py puts each function's body in place of the solution and expects the
independent check to confirm every cell. Names not defined here are nano/model.py's own."""
# ruff: noqa: F821


async def call_model(messages):
    global _client
    client = _client
    if client is None:
        client = _client = anthropic.AsyncAnthropic()
    fields = {"messages": messages, "tools": TOOLS, "system": SYSTEM_PROMPT, "max_tokens": MAX_TOKENS, "model": MODEL}
    response = await client.messages.create(**fields)
    return response
