"""Correct alternatives to the reference's nano/tools.py (lectures 02 and 03), written differently:
test_verify.py puts each function's body in place of the solution and expects the independent
check to confirm every cell. Names not defined here are nano/tools.py's own."""
# ruff: noqa: F821


def read_file(path):
    inside_project(path)  # the fence (lecture 03)
    import os
    if os.path.isdir(path):
        raise IsADirectoryError(f"'{path}' is a folder")
    try:
        with open(path, encoding="utf-8") as handle:
            return clip(handle.read())
    except FileNotFoundError:
        raise FileNotFoundError(f"cannot read {path}: it does not exist") from None


def list_files(path="."):
    inside_project(path)  # the fence (lecture 03)
    import os
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{path!r} is not a directory I can find")
    names = []
    for entry in os.scandir(path):
        names.append(entry.name + "/" if entry.is_dir() else entry.name)
    names.sort()
    return "\n".join(names)


def run_tool(name, input):
    if name == "read_file":
        return read_file(**input)
    elif name == "list_files":
        return list_files(**input)
    elif name == "write_file":
        return write_file(**input)
    elif name == "edit_file":
        return edit_file(**input)
    elif name == "bash":
        return bash(**input)
    raise ValueError(f"no tool named {name!r} (choose from read_file, list_files, write_file, edit_file, bash)")


def write_file(path, content):
    inside_project(path)  # the fence (lecture 03)
    import os
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(content)
    return "Wrote %d characters to %s" % (len(content), path)


def edit_file(path, old_string, new_string):
    inside_project(path)  # the fence (lecture 03)
    import os
    if old_string == "":
        raise ValueError("refusing an empty old_string")
    if not os.path.exists(path):
        raise FileNotFoundError(path + " does not exist")
    with open(path, encoding="utf-8", newline="") as handle:
        text = handle.read()
    found = text.count(old_string)
    if found != 1:
        if found == 0:
            raise LookupError(f"{path}: text not found")
        raise LookupError(f"{path}: {found} matches, need exactly one")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text.replace(old_string, new_string))
    return "Edited " + path


def bash(command):
    proc = subprocess.Popen(command, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=BASH_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(os.getpgid(proc.pid), signal.SIGTERM)
        proc.communicate()
        raise TimeoutError("timed out: " + command)
    out, err = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    return clip("exit code: %d\nstdout:\n%s\nstderr:\n%s" % (proc.returncode, out, err))
