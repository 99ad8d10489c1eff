"""Lecture 03's visible checks: write_file, edit_file, bash and the fence, inside_project (nano/tools.py).

Each runs in a new empty folder (see checks/__init__.py). bash's timeout checks set
BASH_TIMEOUT to a fraction of a second, so that ./ok 03 stays quick.
"""

import nano.tools  # noqa: F401 (loaded first: a file that does not load is named before any check runs)

import re
import time
from pathlib import Path

from checks import files, raised


def text_of(path: str) -> str | None:
    return Path(path).read_text(encoding="utf-8") if Path(path).is_file() else None


def l03_write_file_creates_parent_dirs():
    from nano.tools import write_file

    write_file("docs/guide/intro.md", "# Intro\n")
    assert Path("docs/guide/intro.md").is_file(), "write_file must create missing parent folders (section 1)"
    assert text_of("docs/guide/intro.md") == "# Intro\n", "write_file must write exactly the content it was given (section 1)"


def l03_write_file_replaces_contents():
    from nano.tools import write_file

    files({"plan.txt": "a long old plan that should disappear\n"})
    write_file("plan.txt", "new plan\n")
    assert text_of("plan.txt") == "new plan\n", "write_file must replace the whole file, not append to it (section 1)"


def l03_write_file_confirmation():
    from nano.tools import write_file

    for path, content in [("hello.txt", "hi"), ("menu.txt", "crème brûlée")]:
        result = write_file(path, content)
        expected = f"Wrote {len(content)} characters to {path}"
        assert result == expected, (
            f"write_file must return exactly {expected!r} (characters, not bytes), not {result!r} (section 2)")


def l03_edit_file_one_match():
    from nano.tools import edit_file

    files({"greet.py": 'def greet():\n    return "helo"\n'})
    result = edit_file("greet.py", '"helo"', '"hello"')
    assert text_of("greet.py") == 'def greet():\n    return "hello"\n', (
        "edit_file must replace old_string with new_string and keep the rest of the file (section 3)")
    assert result == "Edited greet.py", f'edit_file must return "Edited greet.py", not {result!r} (section 3)'


def l03_edit_file_zero_matches_raise():
    from nano.tools import edit_file

    files({"config.ini": "[server]\nport = 8080\n"})
    message = raised(lambda: edit_file("config.ini", "port = 9090", "port = 80"), Exception,
                     "edit_file, when old_string is not in the file,", 3)
    assert "not found" in message.lower() and "config.ini" in message, (
        f"the zero-matches error must say 'not found' and name config.ini; it said {message!r} (section 3)")


def l03_edit_file_several_matches_raise():
    from nano.tools import edit_file

    files({"prices.py": "tea = 1\ncake = 1\n"})
    message = raised(lambda: edit_file("prices.py", "= 1", "= 2"), Exception,
                     "edit_file, when old_string occurs twice, instead of replacing both,", 3)
    assert "2" in message and "prices.py" in message and "not found" not in message.lower(), (
        f"the several-matches error must give the count (2) and name prices.py, and not say 'not found'; "
        f"it said {message!r} (section 3)")


def l03_edit_file_refusal_leaves_file_untouched():
    from nano.tools import edit_file

    files({"prices.py": "tea = 1\ncake = 1\n"})
    raised(lambda: edit_file("prices.py", "= 1", "= 2"), Exception, "edit_file, when old_string occurs twice,", 3)
    assert text_of("prices.py") == "tea = 1\ncake = 1\n", "a refused edit must leave the file exactly as it was (section 3)"


def l03_bash_exit_code_and_stdout():
    from nano.tools import bash

    result = bash("echo ready")
    assert isinstance(result, str), f"bash must return a string, not {type(result).__name__} (section 5)"
    assert "exit code: 0" in result, f"bash's result must carry 'exit code: 0'; it was {result!r} (section 5)"
    assert "ready" in result, f"bash's result must carry the command's stdout; it was {result!r} (section 5)"


def l03_bash_nonzero_exit_is_a_result():
    from nano.tools import bash

    try:
        result = bash("echo partial; exit 3")
    except NotImplementedError:
        raise
    except Exception as exc:
        raise AssertionError(f"a non-zero exit is a result, not an exception: bash raised {type(exc).__name__}: "
                             f"{exc} (section 5)") from None
    assert re.search(r"exit code: 3\b", result or ""), (
        f"a non-zero exit is a result: bash must return 'exit code: 3', not raise; got {result!r} (section 5)")
    assert "partial" in result, f"bash must keep the stdout of a failing command; got {result!r} (section 5)"


def label_before(result, text):
    """The label, 'stdout:' or 'stderr:', that comes last before `text` in bash's result (None if none)."""
    at = result.find(text)
    found = max((result.rfind(label, 0, at), label) for label in ("stdout:", "stderr:"))
    return found[1] if at >= 0 and found[0] >= 0 else None


def l03_bash_stderr():
    from nano.tools import bash

    result = bash("echo ready; echo oops >&2")
    assert "oops" in result, f"bash's result must carry the command's stderr; got {result!r} (section 5)"
    assert label_before(result, "ready") == "stdout:" and label_before(result, "oops") == "stderr:", (
        f"bash must report stdout and stderr each under its own label; got {result!r} (section 5)")


class short_timeout:
    """nano.tools.BASH_TIMEOUT set to `seconds` for the length of the block."""

    def __init__(self, seconds):
        import nano.tools

        self.tools, self.seconds = nano.tools, seconds

    def __enter__(self):
        self.saved, self.tools.BASH_TIMEOUT = self.tools.BASH_TIMEOUT, self.seconds

    def __exit__(self, *exc):
        self.tools.BASH_TIMEOUT = self.saved


def timed_out(command: str) -> str:
    """The TimeoutError's message for `command`, which runs longer than BASH_TIMEOUT."""
    from nano.tools import bash

    try:
        bash(command)
    except NotImplementedError:
        raise
    except TimeoutError as exc:
        return str(exc)
    except Exception as exc:
        raise AssertionError(f"a timeout must raise TimeoutError, but bash raised {type(exc).__name__}: {exc} "
                             "(catch subprocess.TimeoutExpired and raise TimeoutError) (section 6)") from None
    raise AssertionError(f"bash must raise TimeoutError when {command!r} runs longer than BASH_TIMEOUT (section 6)")


def l03_bash_timeout_raises():
    with short_timeout(0.2):
        start = time.monotonic()
        message = timed_out("sleep 5")
        took = time.monotonic() - start
    assert message, "the TimeoutError should say what timed out (section 6)"
    assert took < 2, (
        f"with BASH_TIMEOUT = 0.2, bash took {took:.1f} s: it must stop after BASH_TIMEOUT seconds, read when "
        "bash is called, not at import (section 6)")


def l03_bash_timeout_stops_children():
    with short_timeout(0.2):
        start = time.monotonic()
        timed_out("(sleep 0.5; touch late.txt) & sleep 4")
    time.sleep(max(0, start + 0.9 - time.monotonic()))
    assert not Path("late.txt").exists(), (
        "a timeout must stop the command's children too: start_new_session=True, then os.killpg (section 6)")


def l03_tools_stay_inside_the_project():
    import os

    from nano.tools import edit_file, inside_project, list_files, read_file, write_file

    files({"project/notes.txt": "hi\n", "project-old/secret.txt": "key\n"})
    os.symlink("../project-old", "project/escape")
    os.chdir("project")  # the project folder is the working directory, as it is when called
    secret = str(Path("../project-old/secret.txt").resolve())
    for path in ["../project-old/secret.txt", "src/../../project-old/secret.txt", secret, "escape/secret.txt"]:
        for tool, call in [("inside_project", lambda: inside_project(path)), ("read_file", lambda: read_file(path)),
                           ("write_file", lambda: write_file(path, "taken\n")),
                           ("edit_file", lambda: edit_file(path, "key", "taken"))]:
            message = raised(call, PermissionError, f"{tool}({path!r}), a path outside the project,", 7)
            assert path in message, f"the PermissionError must name the path {path!r}; it said {message!r} (section 7)"
    raised(lambda: list_files(".."), PermissionError, "list_files('..'), the folder above the project,", 7)
    assert text_of("../project-old/secret.txt") == "key\n", "a refused write must change nothing outside the project (section 7)"
    assert inside_project("notes.txt") == Path("notes.txt").resolve(), (
        "inside_project must return the absolute path of a path inside the project (Path.resolve) (section 7)")
    assert read_file("notes.txt") == "hi\n", "read_file must still read a file inside the project (section 7)"
    write_file("new/deeper/file.txt", "x")
    assert text_of("new/deeper/file.txt") == "x", "write_file must still write inside the project, in new folders (section 7)"
