"""./ok 03: the tools that write (write_file, edit_file, bash in nano/tools.py).

Visible checks only: the graded notebook holds more cases (characters against bytes, refusing two
or more matches, leaving a refused file alone, non-zero exits, keeping stderr, stopping a
command's children) that these deliberately leave out. But every format the graded cells check,
these check the same way: the confirmation line, what edit_file's errors say, bash's labels and a
TimeoutError that says what timed out. A green ./ok 03 never meets a format it did not show.
"""

import time
from pathlib import Path

import pytest

from nano import tools


def raised(call):
    """The exception `call()` raised (None if it returned); a stub's NotImplementedError propagates."""
    try:
        call()
    except NotImplementedError:
        raise
    except Exception as exc:  # any other error is the answer under test
        return exc
    return None


def test_write_file_creates_parent_dirs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tools.write_file("notes/2024/todo.md", "- buy milk\n")
    written = tmp_path / "notes" / "2024" / "todo.md"
    assert written.is_file(), "write_file must create missing parent directories (section 1)"
    assert written.read_text(encoding="utf-8") == "- buy milk\n", (
        "write_file must write exactly the content it was given (section 1)")


def test_write_file_confirmation(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = tools.write_file("hello.txt", "hi")
    assert result == "Wrote 2 characters to hello.txt", (
        f"write_file must return exactly 'Wrote 2 characters to hello.txt', not {result!r} (section 2)")


def test_edit_file_one_match(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("greet.py").write_text('def greet():\n    return "helo"\n', encoding="utf-8")
    result = tools.edit_file("greet.py", '"helo"', '"hello"')
    assert Path("greet.py").read_text(encoding="utf-8") == 'def greet():\n    return "hello"\n', (
        "edit_file must replace old_string with new_string and keep the rest (section 3)")
    assert result == "Edited greet.py", f'edit_file must return "Edited greet.py", not {result!r} (section 3)'


def test_edit_file_zero_matches_raise(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("config.ini").write_text("[server]\nport = 8080\n", encoding="utf-8")
    error = raised(lambda: tools.edit_file("config.ini", "port = 9090", "port = 80"))
    assert error is not None, "edit_file must raise when old_string is not in the file (section 3)"
    assert "not found" in str(error).lower() and "config.ini" in str(error), (
        f"the error for zero matches must say 'not found' and name config.ini; it said {str(error)!r} (section 3)")


def test_edit_file_several_matches_message(tmp_path, monkeypatch):
    """The words of a several-matches refusal; whether edit_file refuses at all, the graded cells check."""
    monkeypatch.chdir(tmp_path)
    Path("prices.py").write_text("tea = 1\ncake = 1\n", encoding="utf-8")
    error = raised(lambda: tools.edit_file("prices.py", "= 1", "= 2"))
    if error is not None:
        assert "2" in str(error) and "prices.py" in str(error) and "not found" not in str(error).lower(), (
            f"the error for several matches must give the count (2) and name prices.py, and not say "
            f"'not found'; it said {str(error)!r} (section 3)")


def test_bash_exit_code_and_stdout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = tools.bash("echo hello from bash")
    assert isinstance(result, str), f"bash must return a string, not {type(result).__name__} (section 5)"
    assert "exit code: 0" in result, f"bash's result must carry 'exit code: 0'; it was {result!r} (section 5)"
    assert "hello from bash" in result, f"bash's result must carry the command's stdout; it was {result!r} (section 5)"


def label_before(result, text):
    """The label, 'stdout:' or 'stderr:', that comes last before `text` in bash's result (None if none)."""
    at = result.find(text)
    found = max((result.rfind(label, 0, at), label) for label in ("stdout:", "stderr:"))
    return found[1] if at >= 0 and found[0] >= 0 else None


def test_bash_stderr_labels(tmp_path, monkeypatch):
    """Each stream's text under its own label; whether stderr is kept at all, the graded cells check."""
    monkeypatch.chdir(tmp_path)
    result = tools.bash("echo ready; echo oops >&2")
    assert label_before(result, "ready") == "stdout:", (
        f"bash must report stdout under the label 'stdout:'; it was {result!r} (section 5)")
    if "oops" in result:
        assert label_before(result, "oops") == "stderr:", (
            f"bash must report stderr under its own label, 'stderr:', after stdout; it was {result!r} (section 5)")


def test_bash_timeout_raises(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tools, "BASH_TIMEOUT", 0.5)
    start = time.monotonic()
    with pytest.raises(TimeoutError) as raised_error:
        tools.bash("sleep 3")
    assert str(raised_error.value), "the TimeoutError should say what timed out (section 6)"
    assert time.monotonic() - start < 2.5, (
        "bash must stop the command after BASH_TIMEOUT seconds, read when bash is called (section 6)")
