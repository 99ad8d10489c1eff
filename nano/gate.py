"""The gate: a human says y or n before nano changes anything.

Lecture 04 writes `preview` (what the human is shown) and `confirm` (ask once, accept only a
clear yes). Given: `GATED`, the tools that need a yes; `Asker`, the one-method seam through which
the gate asks; and two askers, one for a terminal and one for a notebook.
"""

import asyncio
import difflib
import html
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, Protocol

GATED = frozenset({"write_file", "edit_file", "bash"})


class Asker(Protocol):
    """Anything that can put a question to a human and wait for the answer."""

    async def question(self, prompt: str) -> str:
        """Show `prompt`, return the line the human answers; raise EOFError if input is closed."""
        ...


class TerminalAsker:
    """Asks on the terminal. Works when stdin is a pipe; raises EOFError at the end of input."""

    async def question(self, prompt: str) -> str:
        loop = asyncio.get_running_loop()
        answer = loop.create_future()

        def settle(outcome: Any, failed: bool) -> None:
            if not answer.done():
                answer.set_exception(outcome) if failed else answer.set_result(outcome)

        def read() -> None:
            try:
                line = input(prompt)
                if not sys.stdin.isatty():
                    print(line)  # echo piped input, so the transcript reads like a session
                loop.call_soon_threadsafe(settle, line, False)
            except BaseException as exc:  # EOFError above all
                print()  # end the prompt's line
                loop.call_soon_threadsafe(settle, exc, True)

        # A daemon thread, not asyncio.to_thread: a blocked read must not keep Python from exiting.
        threading.Thread(target=read, daemon=True).start()
        return await answer


def headless() -> bool:
    """True where nobody can click a button: under nbgrader, or when NANO_HEADLESS is set.

    Notebook demos that would wait for a click check this first and script the answer instead.
    """
    return bool(os.environ.get("NBGRADER_EXECUTION") or os.environ.get("NANO_HEADLESS"))


class WidgetAsker:
    """Asks in a Jupyter notebook. A y/n question gets y and n buttons; anything else a text box.

    `await asker.question(prompt)` shows the prompt under the running cell and resolves when the
    human clicks. The text box's "end" button raises EOFError, as closing a terminal would.
    """

    async def question(self, prompt: str) -> str:
        import ipywidgets as widgets
        from IPython.display import display

        answer = asyncio.get_running_loop().create_future()
        shown = widgets.HTML(f"<pre style='white-space: pre-wrap; margin: 0'>{html.escape(prompt)}</pre>")
        if prompt.rstrip().endswith("[y/n]"):
            yes = widgets.Button(description="y", button_style="success", tooltip="allow it")
            no = widgets.Button(description="n", button_style="danger", tooltip="decline it")
            controls = [yes, no]
            yes.on_click(lambda _: finish("y"))
            no.on_click(lambda _: finish("n"))
        else:
            box = widgets.Text(placeholder="type a request, then press Enter or send")
            send = widgets.Button(description="send", button_style="primary")
            end = widgets.Button(description="end", tooltip="end the session, like Ctrl-D")
            controls = [box, send, end]
            send.on_click(lambda _: finish(box.value))
            box.on_submit(lambda _: finish(box.value))
            end.on_click(lambda _: finish(EOFError("the session was ended")))
        status = widgets.HTML()

        def finish(outcome: Any) -> None:
            if answer.done():
                return
            for control in controls:
                control.disabled = True
            if isinstance(outcome, BaseException):
                status.value = "<i>ended</i>"
                answer.set_exception(outcome)
            else:
                status.value = f"<b>&rarr; {html.escape(outcome)}</b>"
                answer.set_result(outcome)

        display(widgets.VBox([shown, widgets.HBox([*controls, status])]))
        return await answer


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
