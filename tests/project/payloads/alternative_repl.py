"""Correct alternatives to the reference's nano/repl.py (lecture 06), written differently:
test_verify_04_06.py puts each function's body in place of the solution and expects the
independent check to confirm every cell. Names not defined here are nano/repl.py's own."""
# ruff: noqa: F821


async def main(ask=None, model=call_model, messages=None):
    # the line pushed as a text block, and the repair by truncation rather than popping
    if ask is None:
        ask = TerminalAsker()
    history = messages if messages is not None else []
    while True:
        try:
            request = (await ask.question("> ")).strip()
        except (EOFError, KeyboardInterrupt):
            return history
        if request == "exit":
            return history
        if request == "":
            continue
        size = len(history)
        history.append({"role": "user", "content": [{"type": "text", "text": request}]})
        try:
            outcome = await agent_loop(history, ask, model)
        except (Exception, KeyboardInterrupt) as error:
            print("error: " + explain(error))
            del history[size:]
            continue
        if outcome != "done":
            print("error: the model needed more steps than the turn limit allows; that request was dropped")
            del history[size:]
