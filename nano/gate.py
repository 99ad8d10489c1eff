"""The gate: a human says y or n before nano changes anything.

Lecture 04 writes `preview` (what the human is shown) and `confirm` (ask once, accept only a
clear yes). Given: `GATED`, the tools that need a yes; `Asker`, the one-method seam through which
the gate asks; and two askers, one for a terminal and one for a notebook.
"""

import asyncio
import difflib
import functools
import html
import json
import os
import sys
import threading
from pathlib import Path
from collections.abc import Callable
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
    human clicks (or presses Enter in the text box). The text box's "end" button raises EOFError,
    as closing a terminal would.
    """

    async def question(self, prompt: str) -> str:
        import ipywidgets as widgets
        from IPython.display import display

        loop = asyncio.get_running_loop()
        answer = loop.create_future()

        def settle(outcome: Any) -> None:
            # ipykernel 7 may run a widget's callbacks on a thread of its own (a "subshell"):
            # hand the outcome to this cell's event loop, or the cell would not wake up.
            loop.call_soon_threadsafe(finish, outcome)

        shown = widgets.HTML(f"<pre style='white-space: pre-wrap; margin: 0'>{html.escape(prompt)}</pre>")
        if prompt.rstrip().endswith("[y/n]"):
            yes = widgets.Button(description="y", button_style="success", tooltip="allow it")
            no = widgets.Button(description="n", button_style="danger", tooltip="decline it")
            controls = [yes, no]
            yes.on_click(lambda _: settle("y"))
            no.on_click(lambda _: settle("n"))
        else:
            box = TypedLine(placeholder="type a request, then press Enter or send")
            box.widget.layout = widgets.Layout(flex="1 1 auto", width="auto", min_width="20em")  # a long request shows whole
            narrow = widgets.Layout(width="auto", flex="0 0 auto")  # the box gets the rest of the row
            send = widgets.Button(description="send", button_style="primary", layout=narrow)
            end = widgets.Button(description="end", tooltip="end the session, like Ctrl-D", layout=narrow)
            controls = [box.widget, send, end]
            box.on_enter(lambda: box.read(settle))
            send.on_click(lambda _: box.read(settle))
            end.on_click(lambda _: settle(EOFError("the session was ended")))
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

        display(widgets.VBox([shown, widgets.HBox([*controls, status], layout=widgets.Layout(width="100%"))]))
        if not prompt.rstrip().endswith("[y/n]"):
            # Focus scrolls the notebook down to the new box, and the answer just above it. The
            # box's view is drawn a moment after the display: a focus sent before it is lost.
            for delay in (0.3, 1.5):
                loop.call_later(delay, lambda: None if answer.done() else controls[0].focus())
        return await answer


class TypedLine:
    """A text box whose whole line reaches the kernel, typed key by key, while a cell awaits it.

    Two things stand in the way. The ipywidgets front end sends a box's next edit only once the
    kernel has reported "idle" for the previous one, and ipykernel 7, which handles a widget's
    messages on the running cell's own thread without waiting for the cell, reports nothing for
    them: so the first keystroke would arrive and no other. And Enter, or a click on a button,
    is a message of its own that can overtake the last edit. So the box reports those messages
    handled itself, and `read` first has the front end answer through the box's own channel,
    behind every edit it has sent, before it hands over the text.
    """

    def __init__(self, placeholder: str):
        import ipywidgets as widgets

        self.widget = _line_class()(placeholder=placeholder)
        self.widget.acknowledge = _acknowledger()
        self._asked = widgets.IntText(value=0)  # never shown: the browser copies it to `confirmed`
        self._link = widgets.jsdlink((self._asked, "value"), (self.widget, "confirmed"))
        self._readers: list[Callable[[str], None]] = []
        self.widget.observe(self._confirmed, names="confirmed")

    def on_enter(self, callback: Callable[[], None]) -> None:
        """Call `callback` when the human presses Enter in the box."""
        def pressed(_: Any, content: dict[str, Any], buffers: Any) -> None:
            if content.get("event") == "submit":
                callback()

        self.widget.on_msg(pressed)

    def read(self, reader: Callable[[str], None]) -> None:
        """Call `reader` with the box's text once every edit made before this call has arrived."""
        self._readers.append(reader)
        self._asked.value += 1

    def _confirmed(self, change: dict[str, Any]) -> None:
        if change["new"] == self._asked.value:
            readers, self._readers = self._readers, []
            for reader in readers:
                reader(self.widget.value)


def _acknowledger() -> Callable[[Any], None]:
    """What reports a widget message handled where ipykernel does not: on the cell's own thread.

    "idle" for the message lets the front end send the widget's next edit; "busy" for the running
    cell, right after, keeps JupyterLab from showing the kernel idle while the cell runs. (On a
    subshell's thread ipykernel reports the message itself, and a second "idle" would be wrong.)
    """
    from IPython import get_ipython

    kernel = getattr(get_ipython(), "kernel", None)
    publish = getattr(kernel, "_publish_status", None)  # ipykernel's own way to send a status
    if publish is None:
        return lambda message: None
    cell, cell_thread = kernel.get_parent("shell"), threading.get_ident()

    def acknowledge(message: Any) -> None:
        if threading.get_ident() == cell_thread:
            publish("idle", "shell", parent=message)
            publish("busy", "shell", parent=cell)

    return acknowledge


@functools.cache
def _line_class() -> type:
    """ipywidgets' Text with a counter the browser sets when asked, built on first use (see TypedLine)."""
    import ipywidgets as widgets
    import traitlets

    class Line(widgets.Text):
        confirmed = traitlets.Int(0).tag(sync=True)
        acknowledge: Callable[[Any], None] = staticmethod(lambda message: None)

        def _handle_msg(self, msg: dict[str, Any]) -> None:
            waiting = not self.disabled  # a disabled box has answered: its cell may be over
            try:
                super()._handle_msg(msg)
            finally:
                if waiting:
                    self.acknowledge(msg)

    return Line


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
