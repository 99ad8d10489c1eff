"""./ok 04: the gate (preview and confirm in nano/gate.py).

Visible checks only: the graded notebook holds many more cases (new files, files without a final
newline, a file left unchanged, every kind of bad input, dozens of answers that are not a clear
yes, input() instead of the asker) that these deliberately leave out. Every format the hidden
tests check is checked here, the same way: `$ <command>`, a diff's `---`/`+++` lines naming the
path, whole `-`/`+` lines, context lines after a space, a prompt holding the preview and ending
in `[y/n] `. confirm's checks replace preview with a double (nano.testing.stand_in, as the
graded cells do), so a mistake in preview cannot fail them, whatever the import style.
"""

import asyncio
from pathlib import Path

from nano import gate
from nano.testing import scripted_asker, stand_in


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
    assert " def greet():" in lines, (
        "an edit_file preview must diff the whole file, so the lines around the change appear as context "
        f"(starting with a space); it was {shown!r} (section 4)")


def test_preview_write_file_diff(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("todo.txt").write_text("milk\neggs\n", encoding="utf-8")
    shown = gate.preview("write_file", {"path": "todo.txt", "content": "milk\nbread\n"})
    lines = shown.splitlines()
    assert any(line.startswith("--- ") and "todo.txt" in line for line in lines), (
        f"a write_file preview must be a unified diff with a '--- a/<path>' line; it was {shown!r} (section 4)")
    assert any(line.startswith("+++ ") and "todo.txt" in line for line in lines), (
        f"a write_file preview must be a unified diff with a '+++ b/<path>' line; it was {shown!r} (section 4)")
    assert "-eggs" in lines and "+bread" in lines, (
        f"a write_file preview must diff the current text against the new content; it was {shown!r} (section 4)")
    assert " milk" in lines, (
        f"a write_file preview of an existing file must show unchanged lines as context; it was {shown!r} (section 4)")


def test_preview_never_raises(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        shown = gate.preview("edit_file", {"path": "missing.py", "old_string": "a = 1", "new_string": "a = 2"})
        other = gate.preview("read_file", {"path": "notes.txt"})
    except NotImplementedError:
        raise
    except Exception as exc:
        raise AssertionError(f"preview must never raise; it raised {exc!r} (section 4)") from None
    assert isinstance(shown, str), f"preview must return a str, not {type(shown).__name__} (section 4)"
    assert "a = 2" in shown, (
        "for an edit_file on a file that cannot be read, preview must still show the proposed new_string "
        f"(a diff of old_string against new_string); it was {shown!r} (section 4)")
    assert isinstance(other, str) and "read_file" in other, (
        f"for any other tool, preview must show the tool's name and input; it was {other!r} (section 4)")


def test_confirm_accepts_yes():
    for answer in ["y", "yes", "Y"]:
        with stand_in(gate.preview, stand_in_preview):
            approved = asyncio.run(gate.confirm(scripted_asker([answer]), "bash", {"command": "ls"}))
        assert approved is True, f"confirm must return True for the answer {answer!r}; it returned {approved!r} (section 5)"


def test_confirm_rejects_everything_else():
    for answer in ["n", "no"]:
        with stand_in(gate.preview, stand_in_preview):
            approved = asyncio.run(gate.confirm(scripted_asker([answer]), "bash", {"command": "rm -rf build"}))
        assert approved is False, f"confirm must return False for the answer {answer!r}; it returned {approved!r} (section 5)"


def test_confirm_asks_once():
    person = scripted_asker(["y"])
    with stand_in(gate.preview, stand_in_preview):
        asyncio.run(gate.confirm(person, "write_file", {"path": "a.txt", "content": "a"}))
    assert len(person.prompts) == 1, (
        f"confirm must ask exactly once, through the asker; it asked {len(person.prompts)} time(s) (section 5)")


def test_confirm_prompt_shows_preview():
    person = scripted_asker(["n"])
    with stand_in(gate.preview, stand_in_preview):
        asyncio.run(gate.confirm(person, "edit_file", {"path": "a.py", "old_string": "1", "new_string": "2"}))
    assert person.prompts and "PREVIEW-MARKER (edit_file)" in person.prompts[0], (
        f"confirm's prompt must contain preview(name, input); it was {person.prompts[:1]!r} (section 5)")
    assert person.prompts[0].rstrip().endswith("[y/n]"), (
        f"confirm's prompt must end with '[y/n] '; it was {person.prompts[0]!r} (section 5)")
