"""Lecture 04's visible checks: preview and confirm (nano/gate.py).

Each runs in a new empty folder (see checks/__init__.py). confirm's checks replace preview with
a stand-in (nano.testing.stand_in), so that a mistake in preview cannot fail them.
"""

import nano.gate  # noqa: F401 (loaded first: a file that does not load is named before any check runs)

from pathlib import Path

from checks import files


def stand_in_preview(name, input):
    return f"PREVIEW-MARKER-4242 ({name})"


def diff_lines(shown, path: str, what: str) -> list[str]:
    """The lines of a preview that must be a unified diff of `path`."""
    assert isinstance(shown, str), f"preview must return a str, not {type(shown).__name__} (section 2)"
    lines = shown.splitlines()
    assert any(line.startswith("--- ") and path in line for line in lines), (
        f"{what} preview must be a unified diff with a '--- a/<path>' line; it was {shown!r} (section 2)")
    assert any(line.startswith("+++ ") and path in line for line in lines), (
        f"{what} preview must be a unified diff with a '+++ b/<path>' line; it was {shown!r} (section 2)")
    return lines


def l04_preview_bash_command():
    from nano.gate import preview

    shown = preview("bash", {"command": "ls -la fixtures"})
    assert isinstance(shown, str), f"preview must return a str, not {type(shown).__name__} (section 2)"
    assert shown.rstrip("\n") == "$ ls -la fixtures", f'preview("bash", ...) must be "$ <command>"; it was {shown!r} (section 2)'


def l04_preview_edit_file_diff():
    from nano.gate import preview

    files({"greet.py": 'def greet():\n    return "helo"\n'})
    shown = preview("edit_file", {"path": "greet.py", "old_string": '"helo"', "new_string": '"hello"'})
    lines = diff_lines(shown, "greet.py", "an edit_file")
    assert '-    return "helo"' in lines and '+    return "hello"' in lines, (
        "an edit_file preview must show the old line with '-' and the new line with '+', each on its own "
        f"line; it was {shown!r} (section 2)")
    assert " def greet():" in lines, (
        "an edit_file preview must diff the whole file, so the lines around the change appear as context "
        f"(starting with a space); it was {shown!r} (section 2)")


def l04_preview_write_file_diff():
    from nano.gate import preview

    files({"todo.txt": "milk\neggs\n"})
    shown = preview("write_file", {"path": "todo.txt", "content": "milk\nbread\n"})
    lines = diff_lines(shown, "todo.txt", "a write_file")
    assert "-eggs" in lines and "+bread" in lines, (
        f"a write_file preview must diff the current text against the new content ('-eggs', '+bread'); "
        f"it was {shown!r} (section 2)")
    assert " milk" in lines, (
        f"a write_file preview of an existing file must show unchanged lines as context; it was {shown!r} (section 2)")


def l04_preview_changes_nothing():
    from nano.gate import preview

    files({"greet.py": 'print("helo")\n'})
    preview("edit_file", {"path": "greet.py", "old_string": "helo", "new_string": "hello"})
    preview("write_file", {"path": "new/notes.txt", "content": "hi\n"})
    assert Path("greet.py").read_text(encoding="utf-8") == 'print("helo")\n', (
        "preview must not change the file: the edit happens only if the person says yes (section 2)")
    assert not Path("new").exists(), "preview must not create a file: it only shows the change (section 2)"


def l04_preview_never_raises():
    from nano.gate import preview

    try:
        shown = preview("edit_file", {"path": "missing.py", "old_string": "a = 1", "new_string": "a = 2"})
        new = preview("write_file", {"path": "brand/new.txt", "content": "fresh\n"})
        other = preview("read_file", {"path": "notes.txt"})
    except NotImplementedError:
        raise
    except Exception as exc:
        raise AssertionError(f"preview must never raise; it raised {exc!r} (section 2)") from None
    assert isinstance(shown, str), f"preview must return a str, not {type(shown).__name__} (section 2)"
    assert "a = 2" in shown, (
        "for an edit_file on a file that cannot be read, preview must still show the proposed new_string "
        f"(a diff of old_string against new_string); it was {shown!r} (section 2)")
    assert isinstance(new, str) and "+fresh" in new.splitlines(), (
        f"a write_file preview of a new file must show every line as added ('+fresh'); it was {new!r} (section 2)")
    assert isinstance(other, str) and "read_file" in other, (
        f"for any other tool, preview must show the tool's name and input; it was {other!r} (section 2)")


async def confirmed(answer: str, name: str = "bash", input: dict | None = None):
    """(what confirm returned, the prompts it showed) for one scripted `answer`, preview stood in."""
    from nano import gate
    from nano.testing import scripted_asker, stand_in

    person = scripted_asker([answer, answer])
    with stand_in(gate.preview, stand_in_preview):
        approved = await gate.confirm(person, name, input or {"command": "ls"})
    return approved, person.prompts


async def l04_confirm_accepts_yes():
    for answer in ["y", "yes", "Y", " YES "]:
        approved, _ = await confirmed(answer)
        assert approved is True, f"confirm must return True when the answer is {answer!r}; it returned {approved!r} (section 5)"


async def l04_confirm_rejects_everything_else():
    for answer in ["n", "no", "", "yeah", "sure", "y es", "nope"]:
        approved, _ = await confirmed(answer)
        assert approved is False, f"confirm must return False when the answer is {answer!r}; it returned {approved!r} (section 5)"


async def l04_confirm_asks_once():
    _, prompts = await confirmed("y", "write_file", {"path": "a.txt", "content": "a"})
    assert len(prompts) == 1, f"confirm must ask exactly once, through the asker; it asked {len(prompts)} time(s) (section 5)"


async def l04_confirm_prompt_shows_preview():
    _, prompts = await confirmed("n", "edit_file", {"path": "a.py", "old_string": "1", "new_string": "2"})
    assert prompts and "PREVIEW-MARKER-4242 (edit_file)" in prompts[0], (
        f"confirm's prompt must contain preview(name, input); the prompt was {prompts[:1]!r} (section 5)")
    assert prompts[0].rstrip().endswith("[y/n]"), f"confirm's prompt must end with '[y/n] '; it was {prompts[0]!r} (section 5)"
