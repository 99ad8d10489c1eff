"""Lecture 06's live run in JupyterLab, typed by keyboard, against a local Messages API server.

JupyterLab starts with ANTHROPIC_API_KEY set and ANTHROPIC_BASE_URL pointing at nano.server's
MessagesServer, which plays the Celsius replies, so the notebook runs in LIVE mode: the real SDK,
the reference nano, and a WidgetAsker text box. The request is typed key by key (not pasted) and
sent with the send button, a follow-up request with Enter (and, in the keyboard test, both with
Enter and no click at all), and the tests check what the server received, the gate, the file the
session fixed and the end button.

Run them with `pytest tests/browser -k live`; they need Debian's Chromium and Playwright.
"""

import json
import os
import re
import time
from pathlib import Path

import pytest

from nano.server import MessagesServer
from nano.testing import reply, text
from tests.browser.conftest import running_lab
from tests.browser.test_jupyterlab import (BUG, FIX, REACH_TIMEOUT, cell_printing, code_cell, expect, expect_focused,
                                           focus_ring, open_notebook, out_of_sight, output, run_all, run_all_by_keyboard)
from tests.project.test_replay import cost_lines

pytestmark = [pytest.mark.browser, pytest.mark.slow]

KEY = "sk-ant-local-test-key"
TRACE = json.loads(Path(__file__).resolve().parents[2].joinpath("fixtures", "celsius_trace.json")
                   .read_text(encoding="utf-8"))
FOLLOW_UP = "Thanks. Which line did you change, in one sentence?"
FOLLOW_UP_ANSWER = "Line 3: the fraction is now 9/5, the right way up."


@pytest.fixture(scope="module")
def model_server():
    """The local Messages API: each test's session gets the three Celsius replies and one more."""
    session = [*TRACE["replies"], reply(text(FOLLOW_UP_ANSWER))]
    with MessagesServer(session * 2, api_key=KEY) as server:  # the typed test's, the keyboard's
        yield server


@pytest.fixture(scope="module")
def lab(chromium_executable, solved_workspace, tmp_path_factory, model_server):
    """The student's JupyterLab, started where a key is set, so that lecture 06 runs LIVE."""
    with running_lab(solved_workspace, tmp_path_factory.mktemp("live-lab-home"),
                     extra_env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": model_server.url}) as server:
        yield server


def wait_for_nothing_hidden(element, seconds: float = 10) -> str:
    """What still hides `element` after up to `seconds` (the notebook scrolls to a new text box
    as it gets focus); "" once nothing does."""
    deadline = time.monotonic() + seconds
    while (hidden := out_of_sight(element)) and time.monotonic() < deadline:
        time.sleep(0.2)  # the page scrolls on its own: nothing to wait on
    return hidden


def type_request(cell, words: str, way: str) -> None:
    """Type `words` into the live cell's newest text box key by key, then press Enter or click send."""
    box = cell.locator(".widget-text input:enabled")
    expect(box).to_have_count(1, timeout=REACH_TIMEOUT)
    box.click()
    box.press_sequentially(words, delay=15)
    assert box.evaluate("e => e.scrollWidth <= e.clientWidth"), "the box shows only the end of the request"
    if way == "Enter":
        box.press("Enter")
    else:
        cell.locator("button:enabled", has_text="send").click()
    expect(cell.locator(".widget-html-content", has_text=f"→ {words}")).to_have_count(1)


def test_lecture_06_live_run_typed(page, shots, lab, model_server, tmp_path):
    """Typed requests reach nano whole, the first sent with the send button, the follow-up with
    Enter (the keyboard test below sends both with Enter); y fixes the scratch copy; end closes the
    session; axe-core finds nothing in nano's widgets while the gate asks."""
    from tests.browser import axe

    original = (lab.workspace / "fixtures" / "convert.py").read_text(encoding="utf-8")
    first = len(model_server.requests)
    earlier = set(lab.tmpdir.glob("nano-*"))

    open_notebook(page, lab, shots, "06-repl.ipynb")
    run_all(page)
    mode = code_cell(page, 'print("mode:"')
    expect(output(mode)).to_contain_text("mode: LIVE, against the real API", timeout=REACH_TIMEOUT)

    cell = cell_printing(page, "LIVE RUN:", timeout=REACH_TIMEOUT)
    type_request(cell, TRACE["request"], "send")

    yes = cell.get_by_role("button", name="y", exact=True)
    expect(yes).to_be_enabled(timeout=REACH_TIMEOUT)
    expect(output(cell)).to_contain_text(f"-    {BUG}")
    expect(output(cell)).to_contain_text("Allow edit_file? [y/n]")
    waiting = [p for p in lab.tmpdir.glob("nano-*/fixtures/convert.py") if p.parent.parent not in earlier]
    assert len(waiting) == 1, f"expected one scratch copy waiting for the gate, found {waiting}"
    kept = tmp_path / "convert.py"
    os.link(waiting[0], kept)  # the scratch folder goes when the cell ends; the link keeps its file
    shots("typed-gate-asks", show=yes)
    found = axe.audit(page, ".nano-ask")
    assert not found, axe.explain(found)
    yes.click()
    expect(output(cell)).to_contain_text("→ y")

    # After y, the student sees the answer and the next text box without scrolling.
    box = cell.locator(".widget-text input:enabled")
    expect(box).to_have_count(1, timeout=REACH_TIMEOUT)
    expect_focused(page, box)
    answered = output(cell).locator(".jp-OutputArea-output", has_text=TRACE["replies"][-1]["content"][0]["text"][:40])
    for element in (box, answered.last):
        assert wait_for_nothing_hidden(element) == "", f"after y: {out_of_sight(element)}"
    type_request(cell, FOLLOW_UP, "Enter")
    expect(output(cell)).to_contain_text(FOLLOW_UP_ANSWER, timeout=REACH_TIMEOUT)
    last_box = cell.locator(".widget-text input:enabled")
    expect(last_box).to_have_count(1, timeout=REACH_TIMEOUT)
    follow_up = output(cell).locator(".jp-OutputArea-output", has_text=FOLLOW_UP_ANSWER)
    for element in (follow_up.last, last_box):
        assert wait_for_nothing_hidden(element) == "", f"second turn: {out_of_sight(element)}"
    shots("typed-follow-up-answered")  # as the student sees it, not scrolled by the test
    end = cell.locator("button:enabled", has_text=re.compile(r"^\s*end\s*$"))
    expect(end).to_have_count(1, timeout=REACH_TIMEOUT)
    end.click()

    expect(output(cell)).to_contain_text("fixed: True", timeout=REACH_TIMEOUT)
    for line in cost_lines(TRACE["replies"]):  # each reply's tokens and the session so far, live
        expect(output(cell)).to_contain_text(line)
    assert kept.read_text(encoding="utf-8") == original.replace(BUG, FIX)
    assert (lab.workspace / "fixtures" / "convert.py").read_text(encoding="utf-8") == original
    shots("typed-ended", show=output(cell), align="end")

    sent = [r.body for r in model_server.requests[first:]]
    assert [r.status for r in model_server.requests[first:]] == [200] * 4, \
        f"the server refused a request: {[r.status for r in model_server.requests[first:]]}"
    assert sent[0]["messages"][0] == {"role": "user", "content": TRACE["request"]}, \
        f"the model was sent {sent[0]['messages'][0]!r}, not the typed request"
    assert sent[3]["messages"][6] == {"role": "user", "content": FOLLOW_UP}
    assert len(sent[3]["messages"]) == 7, "the follow-up carries the whole session before it"


def test_lecture_06_live_run_by_keyboard_alone(page, shots, lab, model_server, tmp_path):
    """The live run with no click: Run All from the command palette, the request typed into the
    box that has the focus (labelled for a screen reader) and sent with Enter, the gate's n
    focused and Shift+Tab, Space to say y, the follow-up typed into the next box, then Tab, Tab
    and Enter on end. Each answer is announced (an ARIA alert). (axe-core audits the open question
    in the typed test: an audit between the focus and the key can leave the focus elsewhere on a
    loaded machine, as it once did in lecture 04's keyboard test.)"""
    original = (lab.workspace / "fixtures" / "convert.py").read_text(encoding="utf-8")
    first = len(model_server.requests)
    open_notebook(page, lab, shots, "06-repl.ipynb")
    run_all_by_keyboard(page, lab, "06-repl.ipynb")
    cell = cell_printing(page, "LIVE RUN:", timeout=REACH_TIMEOUT)
    box = cell.locator(".widget-text input:enabled")
    expect_focused(page, box, timeout=REACH_TIMEOUT)
    expect(box).to_have_accessible_name("request")
    page.keyboard.type(TRACE["request"], delay=15)
    page.keyboard.press("Enter")
    expect(cell.get_by_role("alert").filter(has_text=f"→ {TRACE['request']}")).to_have_count(1)

    no, yes = (cell.get_by_role("button", name=answer, exact=True) for answer in ("n", "y"))
    expect_focused(page, no, timeout=REACH_TIMEOUT)
    expect(yes).to_have_accessible_description("Allow edit_file? yes")
    page.keyboard.press("Shift+Tab")
    expect_focused(page, yes)
    assert focus_ring(yes) == "solid 3px", focus_ring(yes)
    shots("keyboard-y-focused", show=yes)
    page.keyboard.press("Space")
    expect(cell.get_by_role("alert").filter(has_text="→ y")).to_have_count(1)

    box = cell.locator(".widget-text input:enabled")
    expect_focused(page, box, timeout=REACH_TIMEOUT)
    page.keyboard.type(FOLLOW_UP, delay=15)
    page.keyboard.press("Enter")
    expect(output(cell)).to_contain_text(FOLLOW_UP_ANSWER, timeout=REACH_TIMEOUT)
    box = cell.locator(".widget-text input:enabled")
    expect_focused(page, box, timeout=REACH_TIMEOUT)
    page.keyboard.press("Tab")
    expect_focused(page, cell.locator("button:enabled", has_text="send"))
    page.keyboard.press("Tab")
    expect_focused(page, cell.locator("button:enabled", has_text=re.compile(r"^\s*end\s*$")))
    page.keyboard.press("Enter")
    expect(cell.get_by_role("alert").filter(has_text="ended")).to_have_count(1)
    expect(output(cell)).to_contain_text("fixed: True", timeout=REACH_TIMEOUT)
    assert (lab.workspace / "fixtures" / "convert.py").read_text(encoding="utf-8") == original
    sent = [r.body for r in model_server.requests[first:]]
    assert sent[0]["messages"][0] == {"role": "user", "content": TRACE["request"]}
    assert sent[3]["messages"][6] == {"role": "user", "content": FOLLOW_UP}
    shots("keyboard-ended", show=output(cell), align="end")
