"""Lecture 02's visible checks: read_file, list_files and run_tool (nano/tools.py).

Each runs in a new empty folder (see checks/__init__.py). run_tool's checks replace the tools
with stand-ins, so that a mistake in read_file cannot fail them; read_file's and list_files'
run with lecture 03's fence out of the way (`unfenced`).
"""

import nano.tools  # noqa: F401 (loaded first: a file that does not load is named before any check runs)

from checks import files, raised

KNOWN_TOOLS = ["read_file", "list_files", "write_file", "edit_file", "bash"]


def unfenced(name: str):
    """The tool `name` of nano/tools.py, called with lecture 03's fence out of the way
    (inside_project lets every path through, as pathlib.Path), so that a fence not yet written
    cannot fail lecture 02's checks."""
    from pathlib import Path
    from unittest import mock

    def call(*args, **kwargs):
        with mock.patch.object(nano.tools, "inside_project", Path, create=True):
            return getattr(nano.tools, name)(*args, **kwargs)
    return call


def l02_read_file_returns_text():
    read_file = unfenced("read_file")

    files({"notes.txt": "first line\n\n\tindented line\n"})
    got = read_file("notes.txt")
    assert got is not None, "read_file returned None: return the text, do not print it (section 4)"
    assert type(got) is str, f"read_file must return a str, not {type(got).__name__} (section 4)"
    assert got == "first line\n\n\tindented line\n", (
        f"read_file must return the file's text exactly, nothing added or removed; got {got!r} (section 4)")


def l02_read_file_missing_path():
    read_file = unfenced("read_file")

    message = raised(lambda: read_file("no_such_file.txt"), FileNotFoundError,
                     "read_file('no_such_file.txt'), for a missing file,", 4)
    assert "no_such_file.txt" in message, (
        f"the error for a missing file must name the path; it said {message!r} (section 4)")


def l02_read_file_clips_long_files():
    from nano.tools import MAX_OUTPUT

    read_file = unfenced("read_file")

    text = "0123456789\n" * (MAX_OUTPUT // 5)  # about twice the bound
    files({"big.log": text})
    got = read_file("big.log")
    assert type(got) is str, f"read_file must return a str, not {type(got).__name__} (section 4)"
    assert len(got) < len(text), f"a {len(text)}-character file came back whole: pass the text through clip (section 3)"
    assert "more characters not shown" in got[MAX_OUTPUT - 50:], (
        "a cut result must end with clip's note saying how much is missing (section 3)")


def l02_list_files_sorted_names():
    list_files = unfenced("list_files")

    files({"cherry.txt": "", "apple.txt": "", "banana.txt": ""})
    got = list_files(".")
    assert type(got) is str, f"list_files must return one str, one name per line, not {type(got).__name__} (section 5)"
    assert got.splitlines() == ["apple.txt", "banana.txt", "cherry.txt"], (
        f"list_files must give the names sorted, one per line; got {got!r} (section 5)")


def l02_list_files_marks_directories():
    list_files = unfenced("list_files")

    files({"src/main.py": "", "readme.md": ""})
    got = list_files(".")
    assert type(got) is str, f"list_files must return a str, not {type(got).__name__} (section 5)"
    assert set(got.splitlines()) == {"readme.md", "src/"}, (
        f'a directory must be listed with a trailing "/" and a file without; got {got!r} (section 5)')


def l02_list_files_default_path():
    import os

    list_files = unfenced("list_files")

    files({"only.txt": "", "inner/other.txt": ""})
    os.chdir("inner")  # a default fixed when nano/tools.py was imported would list another folder
    got = list_files()
    assert type(got) is str, f"list_files() must return a str, not {type(got).__name__} (section 5)"
    assert got.splitlines() == ["other.txt"], (
        f"list_files() with no argument must list the working directory, as it is when called; got {got!r} (section 5)")


def l02_list_files_missing_path():
    list_files = unfenced("list_files")

    message = raised(lambda: list_files("no_such_dir"), FileNotFoundError,
                     "list_files('no_such_dir'), for a missing directory,", 5)
    assert "no_such_dir" in message, f"the error for a missing directory must name it; it said {message!r} (section 5)"


def l02_run_tool_dispatches():
    import nano.tools
    from nano.testing import stand_in

    def fake_read_file(path):
        return f"<read_file path={path!r}>"

    def fake_list_files(path="."):
        return f"<list_files path={path!r}>"

    with stand_in(nano.tools.read_file, fake_read_file), stand_in(nano.tools.list_files, fake_list_files):
        got = nano.tools.run_tool("read_file", {"path": "notes.txt"})
        assert got == "<read_file path='notes.txt'>", (
            f"run_tool('read_file', {{'path': 'notes.txt'}}) must return read_file(path='notes.txt'); got {got!r} (section 6)")
        got = nano.tools.run_tool("list_files", {"path": "src"})
        assert got == "<list_files path='src'>", (
            f"run_tool('list_files', {{'path': 'src'}}) must return list_files(path='src'); got {got!r} (section 6)")
        got = nano.tools.run_tool("list_files", {})
        assert got == "<list_files path='.'>", (
            f"run_tool('list_files', {{}}) must call list_files() with its default path; got {got!r} (section 6)")


def l02_run_tool_unknown_tool():
    from nano.tools import run_tool

    message = raised(lambda: run_tool("delete_everything", {}), ValueError, "run_tool, for an unknown tool,", 6)
    missing = [name for name in KNOWN_TOOLS if name not in message]
    assert not missing, (
        f"the error for an unknown tool must name the known tools; {missing} are missing from {message!r} (section 6)")


def l02_run_tool_does_not_swallow_errors():
    import nano.tools
    from nano.testing import stand_in

    def missing_read_file(path):
        raise FileNotFoundError(f"stand-in: no such file: {path}")

    with stand_in(nano.tools.read_file, missing_read_file):
        message = raised(lambda: nano.tools.run_tool("read_file", {"path": "gone.txt"}), FileNotFoundError,
                         "run_tool, when the tool raises FileNotFoundError,", 6)
    assert "stand-in" in message and "gone.txt" in message, (
        f"run_tool must pass the tool's own exception on; the message became {message!r} (section 6)")
