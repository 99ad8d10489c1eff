"""./ok 04: the gate (preview and confirm in nano/gate.py).

Visible checks only: the graded notebook holds many more cases (new files, files without a final
newline, context lines, a file left unchanged, every kind of bad input, dozens of answers that
are not a clear yes, input() instead of the asker) that these deliberately leave out.
"""

import asyncio
from pathlib import Path

from nano import gate
from nano.testing import scripted_asker


def stand_in_preview(name, input):
    """Replaces preview while confirm is checked, so that confirm's checks do not depend on it."""
    return f"PREVIEW-MARKER ({name})"


def test_preview_bash_command():
    shown = gate.preview("bash", {"command": "python -m pytest -q"})
    assert isinstance(shown, str), f"preview must return a str, not {type(shown).__name__} (section 4)"
    assert shown.rstrip("\n") == "$ python -m pytest -q", (
        f'preview("bash", ...) must be "$ <command>"; it was {shown!r} (section 4)')


def test_preview_edit_file_diff(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("greet.py").write_text('def greet():\n    return "helo"\n', encoding="utf-8")
    shown = gate.preview("edit_file", {"path": "greet.py", "old_string": '"helo"', "new_string": '"hello"'})
    lines = shown.splitlines()
    assert any(line.startswith("--- ") and "greet.py" in line for line in lines), (
        f"an edit_file preview must be a unified diff with a '--- a/<path>' line; it was {shown!r} (section 4)")
    assert any(line.startswith("+++ ") and "greet.py" in line for line in lines), (
        f"an edit_file preview must be a unified diff with a '+++ b/<path>' line; it was {shown!r} (section 4)")
    assert '-    return "helo"' in lines and '+    return "hello"' in lines, (
        f"an edit_file preview must show the old line with '-' and the new line with '+'; it was {shown!r} (section 4)")


def test_preview_write_file_diff(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("todo.txt").write_text("milk\neggs\n", encoding="utf-8")
    shown = gate.preview("write_file", {"path": "todo.txt", "content": "milk\nbread\n"})
    lines = shown.splitlines()
    assert any(line.startswith("--- ") and "todo.txt" in line for line in lines), (
        f"a write_file preview must be a unified diff with a '--- a/<path>' line; it was {shown!r} (section 4)")
    assert "-eggs" in lines and "+bread" in lines, (
        f"a write_file preview must diff the current text against the new content; it was {shown!r} (section 4)")


def test_preview_never_raises(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        shown = gate.preview("edit_file", {"path": "missing.py", "old_string": "a = 1", "new_string": "a = 2"})
    except NotImplementedError:
        raise
    except Exception as exc:
        raise AssertionError(f"preview must not raise for a missing file; it raised {exc!r} (section 4)") from None
    assert isinstance(shown, str), f"preview must return a str, not {type(shown).__name__} (section 4)"


def test_confirm_accepts_yes(monkeypatch):
    monkeypatch.setattr(gate, "preview", stand_in_preview)
    for answer in ["y", "yes", "Y"]:
        approved = asyncio.run(gate.confirm(scripted_asker([answer]), "bash", {"command": "ls"}))
        assert approved is True, f"confirm must return True for the answer {answer!r}; it returned {approved!r} (section 5)"


def test_confirm_rejects_everything_else(monkeypatch):
    monkeypatch.setattr(gate, "preview", stand_in_preview)
    for answer in ["n", "no"]:
        approved = asyncio.run(gate.confirm(scripted_asker([answer]), "bash", {"command": "rm -rf build"}))
        assert approved is False, f"confirm must return False for the answer {answer!r}; it returned {approved!r} (section 5)"


def test_confirm_asks_once(monkeypatch):
    monkeypatch.setattr(gate, "preview", stand_in_preview)
    person = scripted_asker(["y"])
    asyncio.run(gate.confirm(person, "write_file", {"path": "a.txt", "content": "a"}))
    assert len(person.prompts) == 1, (
        f"confirm must ask exactly once, through the asker; it asked {len(person.prompts)} time(s) (section 5)")


def test_confirm_prompt_shows_preview(monkeypatch):
    monkeypatch.setattr(gate, "preview", stand_in_preview)
    person = scripted_asker(["n"])
    asyncio.run(gate.confirm(person, "edit_file", {"path": "a.py", "old_string": "1", "new_string": "2"}))
    assert person.prompts and "PREVIEW-MARKER (edit_file)" in person.prompts[0], (
        f"confirm's prompt must contain preview(name, input); it was {person.prompts[:1]!r} (section 5)")
    assert person.prompts[0].rstrip().endswith("[y/n]"), (
        f"confirm's prompt must end with '[y/n] '; it was {person.prompts[0]!r} (section 5)")
