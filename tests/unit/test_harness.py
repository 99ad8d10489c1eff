"""The harness (checks/subject/harness.py) answers a drive's requests on code it imports: what a call
returned or raised, as plain data; a double stood in for a function, whichever way the code
reaches it; and every change a rule made undone when the rule ends. Driven here in this process
through `checks.local.Local`, as ./ok drives it (the grader's sandbox runs the same harness)."""

import sys
import textwrap
from pathlib import Path

import pytest

from checks.local import Local

HAND_IN = textwrap.dedent('''
    import functools

    LIMIT = 5

    def add(a, b):
        return a + b

    def boom():
        raise ValueError("bad input")

    def unwritten():
        raise NotImplementedError("write unwritten in hand_in.py")

    def helper(x):
        return x

    def twice(x):
        return helper(x) * 2

    def logged(function):
        @functools.wraps(function)
        def inner(*args, **kwargs):
            return function(*args, **kwargs)
        return inner

    @logged
    def wrapped(x):
        return helper(x) + 1

    async def later(x):
        return x + 1

    def loud():
        print("to stdout")
        return "done"

    def deep():
        value = []
        for _ in range(500):
            value = [value]
        return value
''')


@pytest.fixture
def subject(tmp_path, monkeypatch):
    (tmp_path / "hand_in.py").write_text(HAND_IN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "hand_in", raising=False)
    local = Local(tmp_path)
    yield local
    local.close()
    sys.modules.pop("hand_in", None)


def test_a_call_gives_what_it_returned_or_raised_as_plain_data(subject):
    with subject.item():
        added = subject.call("hand_in.add", 2, 3)
        raised = subject.call("hand_in.boom")
        stub = subject.call("hand_in.unwritten")
        awaited = subject.call("hand_in.later", 1)
        captured = subject.call("hand_in.loud", capture=True)
    assert (added["value"], added["type"]) == (5, "int") and added["seconds"] >= 0
    assert raised["raised"][:2] == ["ValueError", "Exception"] and raised["message"] == "bad input"
    assert stub["raised"][0] == "NotImplementedError"
    assert awaited["value"] == 2, "a coroutine function is awaited"
    assert captured["value"] == "done" and captured["stdout"] == "to stdout\n"
    assert [type(exc).__name__ for exc in subject.raised] == ["ValueError", "NotImplementedError"]


def test_a_missing_target_is_an_outcome_not_an_error(subject):
    with subject.item():
        missing = subject.call("hand_in.no_such_function")
    assert missing["raised"][0] == "AttributeError" and "no_such_function" in missing["message"]


def test_a_value_nested_past_the_bound_comes_back_marked_not_whole(subject):
    with subject.item():
        got = subject.call("hand_in.deep")
    depth, value = 0, got["value"]
    while isinstance(value, list) and value:
        depth, value = depth + 1, value[0]
    assert depth < 500 and value == {"__unplain__": "nested too deep"}


def test_a_double_is_reached_through_a_wrapper_and_everything_is_put_back(subject):
    with subject.item():
        subject.stand("hand_in.helper", lambda x: 10 * x)
        subject.set("hand_in.LIMIT", 7)
        during = (subject.call("hand_in.twice", 2)["value"], subject.call("hand_in.wrapped", 2)["value"],
                  subject.read("hand_in.LIMIT")["value"])
    with subject.item():
        after = (subject.call("hand_in.twice", 2)["value"], subject.call("hand_in.wrapped", 2)["value"],
                 subject.read("hand_in.LIMIT")["value"])
    assert during == (40, 21, 7)
    assert after == (4, 3, 5), "a rule's doubles and settings end with the rule"


def test_a_scratch_folder_is_the_working_directory_only_inside_it(subject, tmp_path):
    with subject.item():
        with subject.scratch({"notes/a.txt": "hello\n"}) as folder:
            inside = subject.call("os.getcwd")["value"]
            listed = subject.call("os.listdir", "notes")["value"]
        outside = subject.call("os.getcwd")["value"]
    assert inside == str(folder.path) and Path(inside).parent.parent == tmp_path
    assert listed == ["a.txt"]
    assert outside == str(tmp_path), "the working directory is put back when the scratch folder ends"
