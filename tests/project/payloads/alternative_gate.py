"""Correct alternatives to the reference's nano/gate.py (lecture 04), written differently:
test_verify_04_06.py puts each function's body in place of the solution and expects the
independent check to confirm every cell. Names not defined here are nano/gate.py's own."""
# ruff: noqa: F821


def preview(name, input):
    if name == "bash":
        return "$ " + str(input.get("command", ""))
    if name not in ("write_file", "edit_file"):
        return "%s %r" % (name, input)
    path = str(input.get("path", "?"))
    try:
        with open(path, encoding="utf-8") as handle:
            before = handle.read()
    except Exception:
        before = None
    if name == "write_file":
        before, after = before or "", str(input.get("content", ""))
    else:
        old, new = str(input.get("old_string", "")), str(input.get("new_string", ""))
        if before is not None and old and before.count(old) == 1:
            after = before.replace(old, new)
        else:
            before, after = old, new
    return "\n".join(difflib.unified_diff(before.splitlines(), after.splitlines(), "a/" + path, "b/" + path,
                                          lineterm=""))


async def confirm(ask, name, input):
    reply = await ask.question(preview(name, input) + "\n\nLet nano run " + name + "? [y/n]")
    reply = reply.lower().strip()
    return reply == "y" or reply == "yes"
