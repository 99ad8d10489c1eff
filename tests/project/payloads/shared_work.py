"""A third way of writing the longer student functions, neither the reference's nor
alternative_*.py's: the work two students of test_similar.py share, one of them under renamed
variables and with the functions reordered. Each function goes into the nano/*.py that holds it
(test_similar.FILES); names not defined here are that module's own."""
# ruff: noqa: F821


def read_file(path):
    where = os.path.abspath(path)
    if os.path.isdir(where):
        raise IsADirectoryError(f"{path} names a folder; call list_files on it instead")
    if not os.path.exists(where):
        raise FileNotFoundError(f"there is no file at {path}")
    handle = open(where, "rb")
    try:
        raw = handle.read()
    finally:
        handle.close()
    return clip(raw.decode("utf-8", errors="replace"))


def list_files(path="."):
    where = os.path.abspath(path)
    if not os.path.exists(where):
        raise FileNotFoundError(f"there is no folder at {path}")
    if os.path.isfile(where):
        raise NotADirectoryError(f"{path} names a file; call read_file on it instead")
    listing = []
    for child in sorted(os.listdir(where)):
        marker = "/" if os.path.isdir(os.path.join(where, child)) else ""
        listing.append(child + marker)
    return clip("\n".join(listing))


def edit_file(path, old_string, new_string):
    where = os.path.abspath(path)
    if not os.path.isfile(where):
        raise FileNotFoundError(f"there is no file at {path}")
    if old_string == "":
        raise ValueError("an empty old_string matches everywhere: quote the text to change")
    with open(where, encoding="utf-8") as source:
        body = source.read()
    hits = body.count(old_string)
    if hits != 1:
        problem = "does not occur" if hits == 0 else f"occurs {hits} times"
        raise ValueError(f"old_string {problem} in {path}; it must occur exactly once")
    with open(where, "w", encoding="utf-8") as target:
        target.write(body.replace(old_string, new_string))
    return f"Edited {path}"


def bash(command):
    child = subprocess.Popen(["/bin/bash", "-c", command], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = child.communicate(timeout=BASH_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        raise TimeoutError(f"{command!r} ran for more than {BASH_TIMEOUT} seconds and was stopped") from None
    shown = "exit code: %d\nstdout:\n%s\nstderr:\n%s" % (
        child.returncode, out.decode(errors="replace"), err.decode(errors="replace"))
    return clip(shown)


def run_tool(name, input):
    known = {tool.__name__: tool for tool in (read_file, list_files, write_file, edit_file, bash)}
    tool = known.get(name)
    if tool is None:
        raise ValueError(f"{name!r} is not a tool; pick one of {sorted(known)}")
    return tool(**input)


def preview(name, input):
    if name == "bash":
        return "$ " + input.get("command", "")
    target = str(input.get("path", ""))
    if name not in ("write_file", "edit_file"):
        return name + json.dumps(input)
    current = _current_text(target)
    if name == "write_file":
        return _diff(target, current or "", str(input.get("content", "")))
    old, new = str(input.get("old_string", "")), str(input.get("new_string", ""))
    if current is None or not old or current.count(old) != 1:
        return _diff(target, old, new)
    return _diff(target, current, current.replace(old, new, 1))


async def agent_loop(messages, ask, model=call_model, *, max_turns=MAX_TURNS):
    for turn in range(max_turns):
        answer = await model(messages)
        messages.append({"role": "assistant", "content": answer.content})
        wanted = [block for block in answer.content if block.type == "tool_use"]
        for block in answer.content:
            if block.type == "text":
                print(block.text)
        if len(wanted) == 0:
            return "done"
        replies = []
        for use in wanted:
            print("● " + use.name + "(" + json.dumps(use.input)[:120] + ")")
            allowed = use.name not in GATED or await confirm(ask, use.name, use.input)
            reply = {"type": "tool_result", "tool_use_id": use.id, "is_error": False, "content": DECLINED}
            if allowed:
                try:
                    reply["content"] = run_tool(use.name, use.input)
                except Exception as failure:
                    reply["content"], reply["is_error"] = str(failure) or type(failure).__name__, True
            replies.append(reply)
        messages.append({"role": "user", "content": replies})
    return "max_turns"


async def main(ask=None, model=call_model, messages=None):
    if ask is None:
        ask = TerminalAsker()
    if messages is None:
        messages = []
    while True:
        try:
            typed = await ask.question("> ")
        except (EOFError, KeyboardInterrupt):
            return messages
        typed = typed.strip()
        if typed == "exit":
            return messages
        if not typed:
            continue
        mark = len(messages)
        messages.append({"role": "user", "content": typed})
        try:
            ending = await agent_loop(messages, ask, model)
        except (Exception, KeyboardInterrupt, asyncio.CancelledError) as failure:
            print("error: " + explain(failure))
            del messages[mark:]
            continue
        if ending == "max_turns":
            print("error: the turn limit was reached; this request was dropped")
            del messages[mark:]
