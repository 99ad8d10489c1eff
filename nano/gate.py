"""The gate: a human says y or n before nano changes anything.

Lecture 04 writes `preview` (what the human is shown) and `confirm` (ask once, accept only a
clear yes). Given: `GATED`, the tools that need a yes; `Asker`, the one-method seam through which
the gate asks; and two askers, one for a terminal and one for a notebook, which live in
nano/askers.py and are offered here too (`from nano.gate import WidgetAsker`).
"""

import difflib
import json
from pathlib import Path
from typing import Any, Protocol

from nano.askers import TerminalAsker, WidgetAsker, headless  # noqa: F401 (given; the lectures import them from here)

GATED = frozenset({"write_file", "edit_file", "bash"})


class Asker(Protocol):
    """Anything that can put a question to a human and wait for the answer."""

    async def question(self, prompt: str) -> str:
        """Show `prompt`, return the line the human answers; raise EOFError if input is closed."""
        ...


def _diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=f"a/{path}", tofile=f"b/{path}")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _current_text(path: Any) -> str | None:
    try:
        return Path(str(path)).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def preview(name: str, input: dict[str, Any]) -> str:
    """Return what the human should see before saying y or n to tool `name` with `input`.

    bash: the command, as "$ <command>". write_file: a unified diff from the file's current
    text (empty if it does not exist) to the new content. edit_file: a unified diff of the file
    before and after the edit (if the file cannot be read or the text is not found exactly once,
    a diff of old_string against new_string). Any other tool: its name and JSON input.
    Never raises for a bad input: the tool itself will report that.
    """
    ### BEGIN SOLUTION
    if name == "bash":
        return f"$ {input.get('command', '')}"
    path = str(input.get("path", ""))
    if name == "write_file":
        return _diff(path, _current_text(path) or "", str(input.get("content", "")))
    if name == "edit_file":
        old, new = str(input.get("old_string", "")), str(input.get("new_string", ""))
        text = _current_text(path)
        if text is not None and old and text.count(old) == 1:
            return _diff(path, text, text.replace(old, new, 1))
        return _diff(path, old, new)
    return f"{name}({json.dumps(input)})"
    ### END SOLUTION


async def confirm(ask: Asker, name: str, input: dict[str, Any]) -> bool:
    """Ask the human, exactly once, whether tool `name` may run with `input`.

    The prompt contains preview(name, input) and ends with "[y/n] ". Returns True only when the
    answer is "y" or "yes", in any case and with any surrounding spaces; anything else is a no.
    """
    ### BEGIN SOLUTION
    answer = await ask.question(f"{preview(name, input)}\nAllow {name}? [y/n] ")
    return answer.strip().lower() in ("y", "yes")
    ### END SOLUTION
