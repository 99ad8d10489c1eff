"""./ok 02: the tools that read (read_file, list_files) and the dispatcher run_tool.

Each check names the behaviour it tests, as the graded cells of lecture 02 do. These are the
quick checks; the graded cells at grading time try more names, paths and contents.
"""

import pytest

from nano.tools import MAX_OUTPUT, clip, list_files, read_file, run_tool

TOOL_NAMES = ["read_file", "list_files", "write_file", "edit_file", "bash"]


def test_read_file_returns_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("first line\n\n\tindented line\n", encoding="utf-8")
    got = read_file("notes.txt")
    assert type(got) is str, f"read_file must return a str, not {type(got).__name__} (section 4)"
    assert got == "first line\n\n\tindented line\n", (
        f"read_file must return the file's text exactly, nothing added or removed; got {got!r} (section 4)")


def test_read_file_missing_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as caught:
        read_file("no_such_file.txt")
    assert "no_such_file.txt" in str(caught.value), (
        f"the error must name the missing path; it said {str(caught.value)!r} (section 4)")


def test_read_file_clips_long_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = "0123456789\n" * (MAX_OUTPUT // 5)  # about twice the bound
    (tmp_path / "big.log").write_text(text, encoding="utf-8")
    got = read_file("big.log")
    assert type(got) is str, f"read_file must return a str, not {type(got).__name__} (section 4)"
    assert got == clip(text), (
        f"a long file must come back cut by clip(): {len(got)} characters came back (section 3)")


def test_list_files_sorted_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ["cherry.txt", "apple.txt", "banana.txt"]:
        (tmp_path / name).write_text("", encoding="utf-8")
    got = list_files(".")
    assert type(got) is str, (
        f"list_files must return one str, one name per line, not {type(got).__name__} (section 5)")
    assert got.splitlines() == ["apple.txt", "banana.txt", "cherry.txt"], (
        f"list_files must give the names sorted, one per line; got {got!r} (section 5)")


def test_list_files_marks_directories(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("", encoding="utf-8")
    (tmp_path / "readme.md").write_text("", encoding="utf-8")
    got = list_files(".")
    assert type(got) is str, f"list_files must return a str, not {type(got).__name__} (section 5)"
    assert set(got.splitlines()) == {"readme.md", "src/"}, (
        f'a directory must be listed with a trailing "/" and a file without; got {got!r} (section 5)')


def test_list_files_default_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "only.txt").write_text("", encoding="utf-8")
    got = list_files()
    assert type(got) is str, f"list_files() must return a str, not {type(got).__name__} (section 5)"
    assert got.splitlines() == ["only.txt"], (
        f"list_files() with no argument must list the working directory; got {got!r} (section 5)")


def test_list_files_missing_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as caught:
        list_files("no_such_dir")
    assert "no_such_dir" in str(caught.value), (
        f"the error must name the missing directory; it said {str(caught.value)!r} (section 5)")


def test_run_tool_dispatches(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hello.txt").write_text("hi there\n", encoding="utf-8")
    got = run_tool("read_file", {"path": "hello.txt"})
    assert got == "hi there\n", f"run_tool('read_file', ...) must return read_file's result; got {got!r} (section 6)"
    got = run_tool("list_files", {})
    assert got.splitlines() == ["hello.txt"], (
        f"run_tool('list_files', {{}}) must call list_files() with its default path; got {got!r} (section 6)")


def test_run_tool_unknown_tool():
    with pytest.raises(ValueError) as caught:
        run_tool("delete_everything", {})
    missing = [name for name in TOOL_NAMES if name not in str(caught.value)]
    assert not missing, (
        f"the error for an unknown tool must name the known tools; {missing} are missing from "
        f"{str(caught.value)!r} (section 6)")


def test_run_tool_does_not_swallow_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError):
        got = run_tool("read_file", {"path": "missing.txt"})
        pytest.fail(f"run_tool must let the tool's exception through, but it returned {got!r} (section 6)")
