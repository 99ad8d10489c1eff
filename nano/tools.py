"""The five tools: what nano can do on your machine, and the schemas that tell the model so.

Lecture 02 writes the tools that read (`read_file`, `list_files`) and the dispatcher `run_tool`;
lecture 03 writes the tools that write (`write_file`, `edit_file`, `bash`) and the fence
`inside_project`. `TOOLS` is given: it is the contract the model reads. Every tool takes plain
arguments, returns a string for the model, and raises on failure; the agent loop (lecture 05)
turns the exception into an error result. Paths are relative to the working directory, and
the four file tools stay inside it: each first asks `inside_project`, which refuses a path
outside the project folder.
"""

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

MAX_OUTPUT = 20_000  # characters of one tool result; more would crowd the model's context
BASH_TIMEOUT = 30  # seconds a bash command may run

TOOLS: list[dict[str, Any]] = [
    {
        "name": "read_file",
        "description": (
            "Read a text file and return its contents. Use this before editing a file, so that "
            "you edit what is really there. The path is relative to the working directory. "
            "Very long files are cut short, and the result says so."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to read, e.g. src/app.py"},
            },
            "required": ["path"],
        },
    },
    {
        "name": "list_files",
        "description": (
            "List the entries of one directory, sorted by name, one per line; directories end "
            "with a slash. Not recursive: list a subdirectory to look inside it."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Directory to list; defaults to the working directory.",
                },
            },
        },
    },
    {
        "name": "write_file",
        "description": (
            "Create a file, or replace a file's whole contents, creating parent directories as "
            "needed. To change part of an existing file, prefer edit_file. The user is asked "
            "to approve every write."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to write."},
                "content": {"type": "string", "description": "The complete new contents."},
            },
            "required": ["path", "content"],
        },
    },
    {
        "name": "edit_file",
        "description": (
            "Replace one exact piece of text in a file. old_string must appear in the file "
            "exactly once, character for character, whitespace included: copy it from "
            "read_file's output, with enough surrounding lines to make it unique. The user is "
            "asked to approve every edit."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to edit."},
                "old_string": {"type": "string", "description": "Exact text to replace."},
                "new_string": {"type": "string", "description": "Text to put in its place."},
            },
            "required": ["path", "old_string", "new_string"],
        },
    },
    {
        "name": "bash",
        "description": (
            "Run a command with bash in the working directory and return its exit code, stdout "
            f"and stderr. Commands are stopped after {BASH_TIMEOUT} seconds; do not start servers or "
            "anything interactive. The user is asked to approve every command."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command, e.g. python -m pytest -q"},
            },
            "required": ["command"],
        },
    },
]


def clip(text: str, limit: int | None = None) -> str:
    """Return `text`, or its first `limit` characters (default MAX_OUTPUT) and a note of the cut."""
    limit = MAX_OUTPUT if limit is None else limit
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... cut: {len(text) - limit} more characters not shown]"


def inside_project(path: str, root: str = ".") -> Path:
    """Return the absolute path of `path`, taken relative to `root`, if it lies inside `root`.

    `root` is the project folder, by default the working directory as it is when called. Raises
    PermissionError, naming `path`, when the path lies outside: `..` and symbolic links are
    followed before comparing, so "src/../../x" and a link that points out of the folder are
    refused, and so is a sibling folder whose name only begins like the project's
    ("/home/me/project-old" is not inside "/home/me/project"). read_file, list_files, write_file
    and edit_file call it first; bash cannot be fenced this way (a command can cd anywhere).
    Example: inside_project("src/app.py") -> PosixPath('/home/me/project/src/app.py')
    """
    ### BEGIN SOLUTION
    base = Path(root).resolve()
    target = (base / path).resolve()
    if not target.is_relative_to(base):
        raise PermissionError(f"{path} is outside the project folder {base}: the file tools stay inside it")
    return target
    ### END SOLUTION


def read_file(path: str) -> str:
    """Return the text of the file at `path`, cut by `clip` if it is very long.

    Raises FileNotFoundError, with the path in its message, when there is no such file, and
    IsADirectoryError when `path` is a directory. From lecture 03 on, it first calls
    inside_project(path), which raises PermissionError for a path outside the project.
    Example: read_file("fixtures/convert.py") -> '\"\"\"Temperature conversions...'
    """
    ### BEGIN SOLUTION
    inside_project(path)
    file = Path(path)
    if file.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a file: use list_files to look inside it")
    if not file.is_file():
        raise FileNotFoundError(f"No such file: {path}")
    return clip(file.read_text(encoding="utf-8", errors="replace"))
    ### END SOLUTION


def list_files(path: str = ".") -> str:
    """Return the names in directory `path`, sorted, one per line, directories ending in "/".

    Raises FileNotFoundError naming the path when there is no such directory, and
    NotADirectoryError when it is a file. From lecture 03 on, it first calls inside_project(path).
    Example: list_files("fixtures") -> "celsius_trace.json\\nconvert.py"
    """
    ### BEGIN SOLUTION
    inside_project(path)
    folder = Path(path)
    if not folder.exists():
        raise FileNotFoundError(f"No such directory: {path}")
    if not folder.is_dir():
        raise NotADirectoryError(f"{path} is a file, not a directory: use read_file to read it")
    names = sorted(entry.name + ("/" if entry.is_dir() else "") for entry in folder.iterdir())
    return clip("\n".join(names))
    ### END SOLUTION


def write_file(path: str, content: str) -> str:
    """Write `content` to `path`, replacing what was there and creating parent directories.

    Returns exactly f"Wrote {len(content)} characters to {path}": characters, not bytes, and
    the path as given. It first calls inside_project(path): a path outside the project raises
    PermissionError, and nothing is written.
    """
    ### BEGIN SOLUTION
    inside_project(path)
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(content, encoding="utf-8")
    return f"Wrote {len(content)} characters to {path}"
    ### END SOLUTION


def edit_file(path: str, old_string: str, new_string: str) -> str:
    """Replace the one occurrence of `old_string` in the file at `path` with `new_string`.

    Returns f"Edited {path}". Raises, leaving the file untouched: FileNotFoundError when the file
    is missing (checked first, so it wins over an empty old_string too); ValueError when
    `old_string` is empty, or occurs zero times or more than once. The message names the path and
    says what to do instead; for zero matches it says "not found", for several it gives the count
    as digits ("occurs 3 times"). The file is read and written as text, the way read_file shows
    it: a file with Windows line endings (\\r\\n) is matched line by line and written back with \\n.
    It first calls inside_project(path): a path outside the project raises PermissionError.
    """
    ### BEGIN SOLUTION
    inside_project(path)
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"No such file: {path}")
    if not old_string:
        raise ValueError("old_string is empty: give the exact text to replace")
    text = file.read_text(encoding="utf-8")
    count = text.count(old_string)
    if count == 0:
        raise ValueError(f"old_string was not found in {path}: read the file and copy the text "
                         "exactly, whitespace included")
    if count > 1:
        raise ValueError(f"old_string occurs {count} times in {path}: include more of the "
                         "surrounding lines so that it matches exactly once")
    file.write_text(text.replace(old_string, new_string, 1), encoding="utf-8")
    return f"Edited {path}"
    ### END SOLUTION


def bash(command: str) -> str:
    """Run `command` with bash in the working directory, for at most BASH_TIMEOUT seconds.

    Returns the exit code, stdout and stderr, laid out as
    "exit code: 0\\nstdout:\\n...\\nstderr:\\n...", cut by `clip`. A non-zero exit code is a
    result, not an error. Raises TimeoutError, saying what timed out, when the command runs too
    long (and stops it and everything it started). The output is complete when every process
    holding stdout or stderr has let go of them: a command that leaves a child running in the
    background with those still open (`sleep 100 &`) runs until the timeout; one whose child's
    output goes elsewhere (`sleep 100 > /dev/null 2>&1 &`) returns when bash exits.
    """
    ### BEGIN SOLUTION
    # bash, as the tool's name promises: shell=True alone runs /bin/sh (dash on Debian), which
    # knows no [[ ]], source or {a,b}. A session of its own, so that a timeout stops the children.
    with subprocess.Popen(command, shell=True, executable="/bin/bash", stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                          start_new_session=True) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=BASH_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise TimeoutError(f"Command timed out after {BASH_TIMEOUT} seconds: {command}") from None
    return clip(f"exit code: {proc.returncode}\nstdout:\n{stdout}\nstderr:\n{stderr}")
    ### END SOLUTION


def run_tool(name: str, input: dict[str, Any]) -> str:
    """Run the tool called `name` with the arguments in `input`, and return its result.

    Does not catch what the tool raises. Raises ValueError naming the known tools when `name`
    is not one of them. Example: run_tool("read_file", {"path": "notes.txt"}).
    """
    ### BEGIN SOLUTION
    table = {
        "read_file": read_file,
        "list_files": list_files,
        "write_file": write_file,
        "edit_file": edit_file,
        "bash": bash,
    }
    if name not in table:
        raise ValueError(f"Unknown tool {name!r}; the tools are {', '.join(sorted(table))}")
    return table[name](**input)
    ### END SOLUTION
