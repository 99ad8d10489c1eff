"""The Celsius trace, and a way to look at any conversation as cards in a notebook.

Given, used in lectures 01 and 05. `load_trace` reads fixtures/celsius_trace.json, a session
written by hand in the API's exact shape (its ids made up, no thinking blocks): the request,
the model's three scripted replies, the human's "y", and the six entries they produce.
`show(messages)` renders a messages list as HTML (roles, text, tool_use and tool_result cards
linked by id); `step_through(entries)` is a widget that walks a list one entry at a time;
`compare(actual, expected)` puts two lists side by side and highlights the entries that differ.
"""

import hashlib
import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nano.protocol import field

TRACE_PATH = Path(__file__).resolve().parent.parent / "fixtures" / "celsius_trace.json"


@dataclass(frozen=True)
class Trace:
    """One recorded session: what was asked, what the model replied, what the human answered."""

    request: str
    replies: list[Any]  # anthropic.types.Message, one per model call
    answers: list[str]  # what the human typed at the gate, in order
    entries: list[dict[str, Any]]  # the messages list the session ends with, as plain JSON
    notes: list[str]  # one sentence per entry: what just happened


def load_trace(path: str | Path = TRACE_PATH) -> Trace:
    """Read a trace file (by default the Celsius trace) into a Trace."""
    from anthropic.types.message import Message

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return Trace(request=data["request"],
                 replies=[Message.model_validate(r) for r in data["replies"]],
                 answers=list(data["answers"]), entries=data["entries"],
                 notes=list(data.get("notes", [])))


def plain(value: Any) -> Any:
    """`value` with every SDK object turned into plain JSON data (None fields dropped)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _color(tool_id: str) -> str:
    hue = int(hashlib.sha1(tool_id.encode()).hexdigest()[:4], 16) % 360
    return f"hsl({hue}, 65%, 28%)"  # dark enough for white text at any hue (4.8:1)


def _badge(tool_id: str) -> str:
    return (f"<span style='background:{_color(tool_id)};color:white;border-radius:4px;"
            f"padding:0 5px;font-family:monospace;font-size:85%'>{html.escape(tool_id)}</span>")


def _pre(value: str) -> str:
    return ("<pre style='white-space:pre-wrap;margin:4px 0;font-size:90%;background:none'>"
            f"{html.escape(value)}</pre>")


def _block_html(block: Any) -> str:
    kind = field(block, "type")
    card = "border:1px solid #bbb;border-radius:6px;padding:4px 8px;margin:4px 0;"
    if kind == "text":
        return f"<div style='{card}'><b>text</b>{_pre(field(block, 'text', ''))}</div>"
    if kind == "tool_use":
        tool_id = str(field(block, "id"))
        args = json.dumps(plain(field(block, "input", {})), indent=2)
        return (f"<div id='use-{html.escape(tool_id)}' style='{card}border-left:5px solid "
                f"{_color(tool_id)}'><b>tool_use</b> {_badge(tool_id)} "
                f"<code>{html.escape(str(field(block, 'name')))}</code>{_pre(args)}</div>")
    if kind == "tool_result":
        tool_id = str(field(block, "tool_use_id"))
        content = field(block, "content", "")
        if not isinstance(content, str):
            content = json.dumps(plain(content), indent=2)
        error = field(block, "is_error", False)
        flag = ("<b style='color:#c00'>is_error: true</b>" if error else
                "<span style='color:#666'>is_error: false</span>")
        return (f"<div style='{card}border-left:5px solid {_color(tool_id)}'><b>tool_result</b> "
                f"for <a href='#use-{html.escape(tool_id)}'>{_badge(tool_id)}</a> {flag}"
                f"{_pre(content)}</div>")
    return f"<div style='{card}'><b>{html.escape(str(kind))}</b>{_pre(json.dumps(plain(block)))}</div>"


def to_html(messages: list[Any], highlight: int | None = None, newest_first: bool = False) -> str:
    """The messages list as HTML cards; entry number `highlight` gets a yellow background and says
    "(newest)", so that it is not told by colour alone.

    `newest_first` puts the cards in reverse order, the last entry on top."""
    rows = []
    for i, message in enumerate(messages):
        role = message.get("role", "?")
        content = message.get("content", "")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        tint = "#fff7cc" if i == highlight else ("#eef4ff" if role == "user" else "#f3f3f3")
        inner = "".join(_block_html(b) for b in blocks)
        rows.append(f"<div style='background:{tint};border-radius:8px;padding:6px 10px;"
                    f"margin:6px 0'><b>messages[{i}]</b>{' (newest)' if i == highlight else ''}"
                    f" &middot; role: <b>{html.escape(role)}</b>"
                    f"{inner}</div>")
    if newest_first:
        rows.reverse()
    if not rows:
        rows.append("<div style='color:#666'><i>messages = [] (empty)</i></div>")
    return "<div style='font-family:sans-serif;max-width:900px'>" + "".join(rows) + "</div>"


def to_text(messages: list[Any]) -> str:
    """The messages list as plain text, one line per block, for terminals and test output."""
    lines = []
    for i, message in enumerate(messages):
        content = message.get("content", "")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            kind = field(block, "type")
            if kind == "text":
                detail = repr(field(block, "text"))
            elif kind == "tool_use":
                detail = f"{field(block, 'id')} {field(block, 'name')}({json.dumps(plain(field(block, 'input')))})"
            elif kind == "tool_result":
                detail = (f"{field(block, 'tool_use_id')} is_error={bool(field(block, 'is_error'))} "
                          f"{str(field(block, 'content'))[:60]!r}")
            else:
                detail = ""
            lines.append(f"[{i}] {message.get('role')}: {kind} {detail}")
    return "\n".join(lines)


class Rendered:
    """A messages list that shows itself as cards in a notebook and as text elsewhere."""

    def __init__(self, messages: list[Any], highlight: int | None = None):
        self.messages, self.highlight = list(messages), highlight

    def _repr_html_(self) -> str:
        return to_html(self.messages, self.highlight)

    def __repr__(self) -> str:
        return to_text(self.messages)


def show(messages: list[Any], highlight: int | None = -1) -> Rendered:
    """Render `messages` (the newest entry highlighted); put it last in a cell to display it."""
    if highlight is not None and highlight < 0:
        highlight = len(messages) + highlight
    return Rendered(messages, highlight)


class Comparison:
    """Two messages lists side by side, entry by entry; `differences` holds the entries that differ."""

    def __init__(self, actual: list[Any], expected: list[Any]):
        self.actual, self.expected = plain(list(actual)), plain(list(expected))
        rows = max(len(self.actual), len(self.expected))
        self.differences = [i for i in range(rows) if _entry(self.actual, i) != _entry(self.expected, i)]

    @property
    def same(self) -> bool:
        return not self.differences

    def _repr_html_(self) -> str:
        rows = []
        for i in range(max(len(self.actual), len(self.expected))):
            tint, mark = (("#ffd6d6", " <b style='color:#c00'>&ne; differs</b>") if i in self.differences
                          else ("#eaf7ea", " &#10003;"))
            cells = "".join(f"<td style='width:50%;text-align:left;vertical-align:top;padding:4px 8px'>"
                            f"<b>messages[{i}]</b>{mark}{_entry_html(entries, i)}</td>"
                            for entries in (self.actual, self.expected))
            rows.append(f"<tr style='background:{tint}'>{cells}</tr>")
        head = "".join(f"<th style='text-align:left'>{title}</th>" for title in ("produced", "expected"))
        return (f"<div style='font-family:sans-serif;max-width:1100px'><p><b>{html.escape(self.summary())}"
                f"</b></p><table style='width:100%;table-layout:fixed;border-collapse:collapse'>"
                f"<tr>{head}</tr>{''.join(rows)}</table></div>")

    def summary(self) -> str:
        head = f"{len(self.actual)} entries produced, {len(self.expected)} expected"
        return f"{head}: all match" if self.same else f"{head}: entries {self.differences} differ"

    def __repr__(self) -> str:
        lines = [self.summary()]
        for i in self.differences:
            for label, entries in (("produced", self.actual), ("expected", self.expected)):
                readable = [m if isinstance(m, dict) else {"role": "?", "content": repr(m)} for m in entries]
                found = [line for line in to_text(readable).splitlines() if line.startswith(f"[{i}] ")]
                lines += [f"  {label}:"] + [f"    {line}" for line in found or [f"[{i}] (no entry)"]]
        return "\n".join(lines)


def _entry(entries: list[Any], i: int) -> Any:
    return entries[i] if i < len(entries) else None


def _entry_html(entries: list[Any], i: int) -> str:
    message = _entry(entries, i)
    if not isinstance(message, dict):
        return _pre("(no entry)" if message is None else repr(message))
    content = message.get("content", "")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    return (f" &middot; role: <b>{html.escape(str(message.get('role')))}</b>"
            + "".join(_block_html(b) for b in blocks))


def compare(actual: list[Any], expected: list[Any]) -> Comparison:
    """`actual` beside `expected`, entry by entry, differences highlighted; put it last in a cell."""
    return Comparison(actual, expected)


def step_through(entries: list[Any], notes: list[str] | None = None) -> Any:
    """A widget that shows `entries` growing one entry at a time, with back and next buttons.

    The newest entry's card comes first, right under the buttons, so that clicking next never
    pushes it below the fold; the earlier ones follow it, newest to oldest.
    """
    import ipywidgets as widgets

    notes = list(notes or [])
    position = widgets.IntSlider(value=1 if entries else 0, min=0, max=len(entries),
                                 description="entries", continuous_update=True)
    back = widgets.Button(description="back", icon="arrow-left")
    forward = widgets.Button(description="next", icon="arrow-right")
    caption = widgets.HTML()
    view = widgets.HTML()

    def redraw(_: Any = None) -> None:
        n = position.value
        note = notes[n - 1] if 0 < n <= len(notes) else ""
        caption.value = (f"<b>{n} of {len(entries)} entries</b>"
                         + (f" &mdash; {html.escape(note)}" if note else ""))
        view.value = to_html(entries[:n], highlight=n - 1 if n else None, newest_first=True)
        back.disabled, forward.disabled = n == 0, n == len(entries)

    back.on_click(lambda _: setattr(position, "value", max(0, position.value - 1)))
    forward.on_click(lambda _: setattr(position, "value", min(len(entries), position.value + 1)))
    position.observe(redraw, names="value")
    redraw()
    return widgets.VBox([widgets.HBox([back, forward, position]), caption, view])
