"""Doubles reach the code under test however it is written, and a hand-in's draws follow it
(issue 31, findings 8 and 9).

- nano.testing.stand_in, the one way both `./ok` and the grader's subject put a double in place
  of a function, reaches a decorated (functools.wraps) function, a closure, a functools.partial,
  a callable object and a name bound by `from ... import`, and puts everything back;
- `./ok 05` (and 02) pass on a workspace whose run_tool and call_model are decorated, or whose
  run_tool is a closure;
- through real grading (`nano-course grade`), the decorated hand-in of the shared class
  (one_class.DECORATED_HAND_IN) keeps 10/10; graded twice (one_class.AGAIN) it draws the same
  inputs, and changed by one line it draws new ones (checks/<student>.json).
"""

import asyncio
import functools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.authoring import release
from autograder.authoring.alternatives import ALTERNATIVES
from autograder.authoring.mutants import apply
from autograder import records
from autograder.grading import grade, results
from tests.project import warm_ok
from tests.project.one_class import DECORATED, DECORATED_HAND_IN

BY_NAME = {a.name: a for a in ALTERNATIVES}
TIMEOUT = 20


# ---------------------------------------------------------------------------------------------
# stand_in, on every shape of function, in nano.tools with nano.loop's `from nano.tools import`

def logged(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)
    return wrapper


def closure():
    table = {"read_file": lambda **input: "real"}

    def run_tool(name, input):
        return table[name](**input)
    return run_tool


class Runner:
    def __call__(self, name, input):
        return "real"


def real(name, input):
    return "real"


def counted(function):
    """A wrapper made without functools.wraps: it closes over the function it counts."""
    def count(*args, **kwargs):
        count.calls += 1
        return function(*args, **kwargs)
    count.calls = 0
    return count


class Tools:
    def run_tool(self, name, input):
        return "real"


SHAPES = {"plain": lambda: real, "wraps": lambda: logged(real), "closure": closure,
          "partial": lambda: functools.partial(lambda prefix, name, input: prefix, "real"), "object": Runner,
          "no wraps": lambda: counted(real), "method": lambda: Tools().run_tool}


@pytest.mark.parametrize("shape", SHAPES)
def test_stand_in_reaches_every_shape_and_every_name_and_puts_them_back(shape, monkeypatch):
    import nano.loop
    import nano.tools
    from nano.testing import stand_in

    function = SHAPES[shape]()
    monkeypatch.setattr(nano.tools, "run_tool", function)
    monkeypatch.setattr(nano.loop, "run_tool", function)
    with stand_in(nano.tools.run_tool, lambda name, input: f"double {name}"):
        assert nano.loop.run_tool("read_file", {}) == "double read_file"
        assert nano.tools.run_tool("read_file", {}) == "double read_file"
        if hasattr(function, "__name__"):  # a stand-in keeps the name a table may be keyed by
            assert nano.loop.run_tool.__name__ == function.__name__
    assert nano.loop.run_tool is function and nano.tools.run_tool is function
    assert function("read_file", {}) == "real"


def test_stand_in_leaves_a_plain_function_where_it_is_with_its_name():
    """A table built at call time from the module's names, by __name__ (run_tool_as_a_class), still finds it."""
    import nano.tools
    from nano.testing import stand_in

    original = nano.tools.read_file
    with stand_in(nano.tools.read_file, lambda path: "double"):
        assert nano.tools.read_file is original and nano.tools.read_file.__name__ == "read_file"
        assert {tool.__name__: tool for tool in (nano.tools.read_file,)}["read_file"]("x") == "double"
    assert nano.tools.read_file is original and original.__code__.co_name == "read_file"


def test_stand_in_reaches_a_wrapped_function_through_a_table_that_holds_it(monkeypatch):
    """A decorated function's own code is swapped too: a table built before the block meets the double."""
    import nano.tools
    from nano.testing import stand_in

    wrapped = logged(real)
    monkeypatch.setattr(nano.tools, "run_tool", wrapped)
    table = {"run": wrapped}
    with stand_in(nano.tools.run_tool, lambda name, input: "double"):
        assert table["run"]("read_file", {}) == "double"
    assert table["run"]("read_file", {}) == "real"


def test_stand_in_awaits_for_a_timed_coroutine_function(monkeypatch):
    import nano.loop
    import nano.model
    from nano.testing import stand_in

    async def call_model(messages):
        return "real"

    def timed(function):
        @functools.wraps(function)
        async def wrapper(*args, **kwargs):
            return await function(*args, **kwargs)
        return wrapper

    async def double(messages):
        return "double"

    monkeypatch.setattr(nano.model, "call_model", timed(call_model))
    monkeypatch.setattr(nano.loop, "call_model", nano.model.call_model)
    with stand_in(nano.model.call_model, double):
        assert asyncio.run(nano.loop.call_model([])) == "double"
        assert asyncio.run(call_model([])) == "double"
    with stand_in(nano.model.call_model, lambda messages: "plain"):  # a plain double, awaited all the same
        assert asyncio.run(nano.loop.call_model([])) == "plain"
    assert asyncio.run(nano.loop.call_model([])) == "real"


def test_stand_in_reaches_a_method_and_a_callable_object_through_the_instance_alone():
    """`self.preview(...)` inside a method, and a table of tool objects, meet the double; another
    instance of the same class keeps its own code."""
    from nano.testing import stand_in

    class Gate:
        def preview(self, name, input):
            return "real"

        def confirm(self, name, input):
            return self.preview(name, input)

    gate, other = Gate(), Gate()
    tools = {"run": Runner()}
    with stand_in(gate.preview, lambda name, input: "double"):
        assert gate.confirm("bash", {}) == "double" and other.confirm("bash", {}) == "real"
    with stand_in(tools["run"], lambda name, input: "double"):
        assert tools["run"]("read_file", {}) == "double" and Runner()("read_file", {}) == "real"
    assert gate.confirm("bash", {}) == "real" and tools["run"]("read_file", {}) == "real"


def test_stand_in_awaits_through_a_plain_wrapper_of_a_coroutine_function(monkeypatch):
    """A wrapper made without functools.wraps around an async function: the double is awaited."""
    import nano.loop
    from nano.testing import stand_in

    async def agent_loop(messages):
        return "real"

    monkeypatch.setattr(nano.loop, "agent_loop", counted(agent_loop))
    with stand_in(nano.loop.agent_loop, lambda messages: "double"):
        assert asyncio.run(nano.loop.agent_loop([])) == "double"
    assert asyncio.run(nano.loop.agent_loop([])) == "real"


def test_what_code_holds_since_import_is_written_where_the_block_says(capsys):
    """A logging handler and a partial made before the block hold the stream of that moment;
    written_to reaches them, and no_stderr shows them as ordinary output, not on stderr (which
    costs a graded cell its points)."""
    import logging
    import io
    from nano.testing import no_stderr, written_to

    note = functools.partial(print, file=sys.stderr)
    log = logging.getLogger("tests.held")
    handler = logging.StreamHandler(sys.stderr)
    log.addHandler(handler)
    log.propagate = False
    try:
        out, err = io.StringIO(), io.StringIO()
        with written_to(out, err):
            note("from the partial")
            log.warning("from the handler")
            print("printed")
            late = logging.StreamHandler()  # made inside the block: it holds the stream, not err
        assert out.getvalue() == "printed\n"
        assert err.getvalue() == "from the partial\nfrom the handler\n"
        assert late.stream is sys.stderr
        capsys.readouterr()
        with no_stderr():
            note("noted")
            log.warning("logged")
        said = capsys.readouterr()
        assert said.err == "" and said.out == "noted\nlogged\n"
        note("after")
        assert capsys.readouterr().err == "after\n"
    finally:
        log.removeHandler(handler)


# ---------------------------------------------------------------------------------------------
# ./ok on decorated and closure-built functions

def ok(where: Path, lecture: str) -> subprocess.CompletedProcess:
    return warm_ok.run(where, [lecture], timeout=300)


def solved_with(release_dir: Path, where: Path, *names: str) -> Path:
    work = release.solve_workspace(release.make_workspace(release_dir, where))
    for name in names:
        apply(work, BY_NAME[name])
    return work


@pytest.mark.parametrize("names", [DECORATED, ("run_tool_built_by_a_closure",)], ids=["decorated", "closure"])
def test_ok_passes_on_decorated_and_closure_built_functions(course, tmp_path, names):
    work = solved_with(course / "release" / release.ASSIGNMENT, tmp_path / "ws", *names)
    for lecture in ("02", "05"):
        done = ok(work, lecture)
        assert done.returncode == 0 and not done.stderr, done.stdout + done.stderr
        assert done.stdout.rstrip().splitlines()[-1].endswith(" passed, 0 failed"), done.stdout


# ---------------------------------------------------------------------------------------------
# Through real grading: the decorated hand-in keeps its points; its draws follow it

def nano_course(subs: Path, course: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(Path(sys.executable).with_name("nano-course")), "grade", str(subs),
                           "--course", str(course), "--timeout", str(TIMEOUT)], capture_output=True, text=True)


def record(course: Path, student: str) -> dict:
    return json.loads((course / "checks" / f"{student}.json").read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.xdist_group("class")
def test_a_decorated_hand_in_keeps_10_of_10_and_draws_follow_the_hand_in(graded_class, course, tmp_path):
    first, again = graded_class.course, graded_class.again.course  # copies of one course: one grading seed
    changed = tmp_path / "changed"
    shutil.copytree(course, changed)
    resubmitted = tmp_path / "resubmitted"
    shutil.copytree(graded_class.hand_ins / DECORATED_HAND_IN, resubmitted / DECORATED_HAND_IN)
    tools = resubmitted / DECORATED_HAND_IN / "nano" / "tools.py"
    tools.write_text(tools.read_text(encoding="utf-8") + "\n# handed in again\n", encoding="utf-8")
    done = nano_course(resubmitted, changed)
    assert done.returncode == 0, done.stdout + done.stderr

    full = grade.max_points(first)
    for run in (graded_class, graded_class.again):
        mine = run.grades[DECORATED_HAND_IN]
        assert mine.scores == pytest.approx(full), mine
        assert not [p for p in mine.problems if p.kind == records.GRADER], mine

    one, two, other = (record(where, DECORATED_HAND_IN) for where in (first, again, changed))
    assert one["digest"] and one["digest"] == two["digest"] != other["digest"]
    assert [b["inputs"] for b in one["behaviours"]] == [b["inputs"] for b in two["behaviours"]]
    drawn = {b["key"]: b["inputs"] for b in one["behaviours"]}
    moved = [b["key"] for b in other["behaviours"] if b["inputs"] != drawn.get(b["key"])]
    assert len(moved) >= len(drawn) // 2, f"only {moved} of {len(drawn)} behaviours drew new inputs"
    regraded = {g.student: g for g in results.read_grades(changed)}
    assert regraded[DECORATED_HAND_IN].scores == pytest.approx(full), regraded[DECORATED_HAND_IN]
