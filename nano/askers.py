"""The askers: how the gate and the REPL put a question to a human. Given; nothing here to write.

`TerminalAsker` reads a line from the terminal; `WidgetAsker` shows y and n buttons, or a text box,
under a notebook cell. Each is an `Asker` (nano/gate.py): `await asker.question(prompt)` returns
the human's line, or raises EOFError when input has ended. `headless()` says when nobody is there
to click. Lecture 04 reads the two `question` methods; the rest is plumbing for the notebook.
"""

import asyncio
import functools
import html
import os
import re
import sys
import threading
from collections.abc import Callable
from typing import Any


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
    as closing a terminal would. Everything works from the keyboard: the new question takes the
    focus (the text box, or the n button: a stray Enter declines), Tab and Shift+Tab move between
    the controls, Enter or Space presses a button, and the answer, once given, is announced to a
    screen reader (an ARIA alert). Each button is described by the question ("Allow edit_file?
    yes"), the box is labelled.
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

        asked = _last_line(prompt)
        shown = widgets.HTML(f"{FOCUS_STYLE}<pre class='nano-prompt'>{html.escape(prompt)}</pre>")
        if prompt.rstrip().endswith("[y/n]"):
            question = asked.removesuffix("[y/n]").strip()
            yes = widgets.Button(description="y", button_style="success", tooltip=f"{question} yes")
            no = widgets.Button(description="n", button_style="danger", tooltip=f"{question} no")
            controls = [yes, no]
            yes.on_click(lambda _: settle("y"))
            no.on_click(lambda _: settle("n"))
            first = no
        else:
            label = asked if re.search(r"[^\W\d_]", asked) else "request"
            box = TypedLine(placeholder="type a request, then press Enter or send", label=label)
            box.widget.layout = widgets.Layout(flex="1 1 auto", width="auto", min_width="20em")  # a long request shows whole
            narrow = widgets.Layout(width="auto", flex="0 0 auto")  # the box gets the rest of the row
            send = widgets.Button(description="send", button_style="primary", tooltip="send the request",
                                  layout=narrow)
            end = widgets.Button(description="end", tooltip="end the session, like Ctrl-D", layout=narrow)
            controls = [box.widget, send, end]
            box.on_enter(lambda: box.read(settle))
            send.on_click(lambda _: box.read(settle))
            end.on_click(lambda _: settle(EOFError("the session was ended")))
            first = box.widget
        status = widgets.HTML()

        def finish(outcome: Any) -> None:
            if answer.done():
                return
            for control in controls:
                control.disabled = True
            if isinstance(outcome, BaseException):
                status.value = "<span role='alert'><i>ended</i></span>"
                answer.set_exception(outcome)
            else:
                status.value = f"<span role='alert'><b>&rarr; {html.escape(outcome)}</b></span>"
                answer.set_result(outcome)

        row = widgets.HBox([*controls, status], layout=widgets.Layout(width="100%"))
        asking = widgets.VBox([shown, row])
        asking.add_class("nano-ask")
        # Focus scrolls the notebook down to the new question, and a keyboard or a screen reader
        # starts there. A focus sent before the control's view is drawn is lost, and on a busy
        # machine drawing can take seconds: the front end counts the views it has drawn
        # (ipywidgets' _view_count, once it is a number), and the focus is sent when a view is
        # drawn where none was (a view drawn again has lost its focus with the old one). Not
        # resent on a timer: a student who has moved from n to y would be pulled back. Should no
        # count come at all within FOCUS_FALLBACK seconds, the focus is sent once anyway.
        def drawn(change: dict) -> None:
            if answer.done():  # answered: a view drawn later (the notebook reopened) asks nothing
                first.unobserve(drawn, "_view_count")
            elif change["new"] and not change["old"]:
                loop.call_soon_threadsafe(loop.call_later, 0.1, take_focus)

        def take_focus(fallback: bool = False) -> None:
            if not answer.done() and not (fallback and first._view_count):
                first.focus()

        first._view_count = 0
        first.observe(drawn, "_view_count")
        loop.call_later(FOCUS_FALLBACK, take_focus, True)
        display(asking)
        return await answer


FOCUS_FALLBACK = 3.0  # seconds: a question whose view no front end has counted by then takes the focus

# A focus ring a student sees at a glance: JupyterLab's own is a 1-pixel line. (The HTML widget
# shows the prompt; a style element in it holds for the page.)
# The row has room for the ring, and the buttons a gap, so that no neighbour hides part of it.
FOCUS_STYLE = ("<style>.nano-ask .jupyter-button:focus-visible, .nano-ask input:focus-visible "
               "{outline: 3px solid #1a5fb4; outline-offset: 2px;} "
               ".nano-ask .widget-hbox {padding: 6px 4px; overflow: visible;} "
               ".nano-ask .jupyter-button {margin-right: 8px;} "
               ".nano-ask pre.nano-prompt {white-space: pre-wrap; margin: 0;}</style>")


def _last_line(prompt: str) -> str:
    """The prompt's last line that holds anything: the question itself ("Allow edit_file? [y/n]")."""
    return next((line.strip() for line in reversed(prompt.splitlines()) if line.strip()), "")


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

    def __init__(self, placeholder: str, label: str = ""):
        import ipywidgets as widgets

        # The description is the box's <label>, which a screen reader announces with it.
        self.widget = _line_class()(placeholder=placeholder, description=label,
                                    style={"description_width": "initial"})
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
