"""The notebook's asker, seen from the kernel: when its question takes the focus, and what a
click answers. The front end's part is played by setting what it would send: the count of views
it has drawn (ipywidgets' `_view_count`), and a click."""

import asyncio

import ipywidgets
import pytest

from nano.askers import FOCUS_FALLBACK, WidgetAsker


class Question:
    """One open question: its buttons, and the focus messages sent to each."""

    def __init__(self, monkeypatch):
        self.buttons: dict[str, ipywidgets.Button] = {}
        self.focused: list[str] = []
        monkeypatch.setattr(ipywidgets.Button, "focus", lambda button: self.focused.append(button.description))
        ipywidgets.Widget.on_widget_constructed(self._seen)

    def _seen(self, widget) -> None:
        if isinstance(widget, ipywidgets.Button):
            self.buttons[widget.description] = widget


async def ask(question: Question, front_end) -> str:
    asked = asyncio.ensure_future(WidgetAsker().question("--- a/x\n+++ b/x\nAllow edit_file? [y/n]"))
    await asyncio.sleep(0)
    await front_end(question.buttons)
    return await asyncio.wait_for(asked, 5)


@pytest.fixture
def question(monkeypatch):
    yield Question(monkeypatch)
    ipywidgets.Widget.on_widget_constructed(None)


def test_the_focus_goes_to_n_when_its_view_is_drawn_and_not_on_a_timer(question):
    async def front_end(buttons):
        no = buttons["n"]
        await asyncio.sleep(2)  # a busy machine: nothing drawn for two seconds
        assert question.focused == [], "the focus was sent before the view was drawn"
        no._view_count = 1
        await asyncio.sleep(0.3)
        assert question.focused == ["n"]
        no._view_count = 2  # a second view of the same question: the first keeps the focus
        await asyncio.sleep(FOCUS_FALLBACK)  # the student moves to y meanwhile: nothing pulls them back
        assert question.focused == ["n"]
        no._view_count = 0  # both closed (the output drawn again), and one drawn anew
        no._view_count = 1
        await asyncio.sleep(0.3)
        assert question.focused == ["n", "n"], "a view drawn anew did not take the focus"
        buttons["y"].click()

    assert asyncio.run(ask(question, front_end)) == "y"
    assert question.buttons["n"].disabled and question.buttons["y"].disabled
    no = question.buttons["n"]
    no._view_count, no._view_count = 0, 1  # the notebook reopened, its loop long gone: nothing asked
    assert question.focused == ["n", "n"]


def test_a_front_end_that_counts_no_views_still_gets_the_focus_once(question):
    async def front_end(buttons):
        await asyncio.sleep(FOCUS_FALLBACK + 0.3)
        assert question.focused == ["n"]
        await asyncio.sleep(FOCUS_FALLBACK)
        assert question.focused == ["n"]
        buttons["n"].click()

    assert asyncio.run(ask(question, front_end)) == "n"


def test_an_answer_given_before_the_view_is_counted_takes_no_focus(question):
    async def front_end(buttons):
        buttons["n"].click()
        buttons["n"]._view_count = 1
        await asyncio.sleep(0.3)

    assert asyncio.run(ask(question, front_end)) == "n"
    assert question.focused == []
