"""The independent check: each cell nbgrader passed is confirmed in a process of its own.

Fast tests run the check alone (no nbgrader): every graded cell has a behaviour, the reference
is confirmed everywhere with several SEEDs, the stubs nowhere, each mutant of the catalogue only
in its own lecture, and correct alternative implementations everywhere. The slow test reads
how real nbgrader graded hostile submissions between honest ones, in the class the slow grading
tests share (one_class.py).
"""

import shutil
from pathlib import Path

import pytest

from autograder.authoring import notebooks, release
from autograder.check import independent
from autograder.grading import grade
from autograder.check import behaviour
from tests.project import observers
from autograder.authoring.mutants import MORE_MUTANTS, MUTANTS, apply
from tests.project.one_class import ATTACKS, PAYLOADS, function_bodies, replace_solution

ROOT = release.ROOT
LECTURES = ["01", "02", "03", "04", "05", "06"]


def graded_cells(number: str) -> set[str]:
    [path] = (ROOT / "lectures").glob(f"{number}-*.ipynb")
    return set(notebooks.points(notebooks.load(path)))


def check(course: Path, workspace: Path, reference: dict) -> dict[str, bool]:
    return independent.confirm(course, *independent.student_files(workspace), reference)


def refused(confirmed: dict[str, bool]) -> set[str]:
    return {grade_id for grade_id, ok in confirmed.items() if not ok}


@pytest.fixture(scope="module")
def solved(course, tmp_path_factory):
    """A perfect workspace (the reference and the instructor's answers)."""
    return release.solve_workspace(release.make_workspace(
        course / "release" / release.ASSIGNMENT, tmp_path_factory.mktemp("solved") / "ws"))


@pytest.fixture(scope="module")
def reference(course):
    return independent.reference(course, 20261129)


# ---------------------------------------------------------------------------------------------
# Coverage and the runner

@pytest.mark.parametrize("number", LECTURES)
def test_every_graded_cell_of_the_lecture_has_a_behaviour(number):
    behaviours = behaviour.lecture(number)
    assert behaviours, f"lecture {number} has no autograder/check/behaviours/l{number}.py"
    named = {b.grade_id for b in behaviours}
    assert graded_cells(number) - named == set(), f"cells of {number} without a behaviour"
    assert named - graded_cells(number) == set(), f"behaviours of {number} for cells that do not exist"
    for b in behaviours:
        compile(behaviour.observe_code(b), b.grade_id, "exec")
        compile(behaviour.notebook_code(b.grade_id), b.grade_id, "exec")


@pytest.mark.parametrize("number", LECTURES)
def test_a_lecture_s_behaviours_import_nano_only_where_they_run(number):
    """At module level `nano` would be the grader's (and `nano-course`, a console script, cannot
    import it at all); inside observe it is the hand-in's, as it must be."""
    import ast

    tree = ast.parse((ROOT / "autograder" / "check" / "behaviours" / f"l{number}.py").read_text(encoding="utf-8"))
    imported = [alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names]
    imported += [node.module for node in tree.body if isinstance(node, ast.ImportFrom)]
    assert not [name for name in imported if name and name.split(".")[0] == "nano"]


def item(key, observe, inputs=None, answers=(), timeout=None):
    return {"key": key, "code": behaviour.standalone(observe, names={observe.__name__: "observe"}),
            "inputs": inputs or {}, "answers": list(answers), "timeout": timeout}


def test_the_runner_survives_what_student_code_does_to_its_process(tmp_path):
    workspace = tmp_path / "ws"
    (workspace / "nano").mkdir(parents=True)
    (workspace / "nano" / "__init__.py").write_text("")
    (workspace / "nano" / "m.py").write_text((PAYLOADS / "noisy_module.py").read_text())
    items = [
        item("a", observers.observe_twice, {"n": 4}),
        item("b", observers.observe_raises),
        item("c", observers.observe_odd_values, answers=("ans1",)),
        item("d", observers.observe_exits_hard),
        item("e", observers.observe_ignores_the_alarm),
        item("e#2", observers.observe_after),
        item("f", observers.observe_exits),
    ]
    got = independent.observe_items(workspace, items, {"ans0": "q = 1", "ans1": "q = 5\n1 / 0"}, timeout=2)
    assert list(got) == ["a", "b", "c", "d", "e", "e#2", "f"]
    assert got["a"] == {"got": 8}
    assert got["b"] == {"escaped": "KeyError", "message": "'boom'"}
    assert got["c"] == {"q": 5, "odd": "x", "obj": {"__unplain__": "builtins.object"}}
    assert got["d"] is None and got["e"] is None
    assert got["e#2"]["after"] == 1 and Path(got["e#2"]["cwd"]).name == "work"
    assert got["f"] == {"escaped": "SystemExit", "message": "0"}
    assert (workspace / "nano" / "m.py").is_file()


def test_a_judge_that_raises_is_the_graders_error_and_a_missing_observation_is_not_confirmed():
    def judge_boom(inputs, seen):
        yield seen["nothing"]

    def judge_v(inputs, seen):
        if seen.get("v") != 1:
            yield "v must be 1"

    boom = behaviour.Behaviour("x", observers.observe_after, judge_boom)
    twice = [behaviour.Behaviour("y", observers.observe_after, judge_v)] * 2
    [verdict] = independent.judge_behaviours([boom], 1, {"x": {}}).values()
    assert isinstance(verdict, str) and "KeyError" in verdict
    assert independent.judge_behaviours(twice, 1, {"y": {"v": 1}, "y#2": {"v": 2}}) == {"y": True, "y#2": False}
    assert independent.judge_behaviours(twice, 1, {"y": {"v": 1}, "y#2": None}) == {"y": True, "y#2": False}


# ---------------------------------------------------------------------------------------------
# The reference, the stubs, the mutants

@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 424242, 2**31 - 5])
def test_the_reference_is_confirmed_on_every_cell(course, solved, seed):
    reference = independent.reference(course, seed)
    confirmed = check(course, solved, reference)
    everything = set().union(*(graded_cells(n) for n in LECTURES))
    assert refused(confirmed) == set()
    assert set(confirmed) == everything


def test_the_stubs_are_confirmed_nowhere(course, fresh_workspace, reference):
    confirmed = check(course, fresh_workspace, reference)
    assert confirmed and not any(confirmed.values())


@pytest.mark.slow
def test_each_mutant_is_refused_in_its_own_lecture_only(course, solved, reference, tmp_path):
    import concurrent.futures
    import os

    mutants = MUTANTS + (MORE_MUTANTS if os.environ.get("NANO_ALL_MUTANTS") else [])

    def one(mutant):
        workspace = tmp_path / mutant.name
        shutil.copytree(solved, workspace)
        apply(workspace, mutant)
        return mutant, refused(check(course, workspace, reference))

    wrong = []
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        for mutant, cells in pool.map(one, mutants):
            elsewhere = {c for c in cells if not c.startswith(f"l{mutant.lecture}_")}
            if not cells or elsewhere:
                wrong.append(f"{mutant.name} ({mutant.lecture}): refused {sorted(cells) or 'nothing'}")
    assert not wrong, "\n".join(wrong)


# ---------------------------------------------------------------------------------------------
# Correct alternatives are confirmed

ALTERNATIVES = {f"nano/{module}.py": function_bodies(PAYLOADS / f"alternative_{module}.py")
                for module in ("protocol", "tools")}


def test_correct_alternatives_are_confirmed_everywhere(course, solved, reference, tmp_path):
    workspace = tmp_path / "alternative"
    shutil.copytree(solved, workspace)
    for name, functions in ALTERNATIVES.items():
        text = (ROOT / name).read_text(encoding="utf-8")
        for function, body in functions.items():
            text = replace_solution(text, function, body)
        (workspace / name).write_text(text, encoding="utf-8")
    # the answers, written as the hidden tests allow
    answers = {"answer_q1 = 3": 'answer_q1 = " 3 "', 'answer_q2 = "c"': "answer_q2 = 'C'",
               "answer_q3_entry = 2": 'answer_q3_entry = "2"', 'answer_q3_field = "tool_use_id"':
               "answer_q3_field = \"'Tool_Use_Id'\"", 'answer_q6 = "d"': 'answer_q6 = " d\\n"'}
    path = workspace / "01-shape-of-an-agent.ipynb"
    nb = notebooks.load(path)
    for cell in nb.cells:
        for old, new in answers.items():
            cell.source = cell.source.replace(old, new)
    path.write_text(notebooks.render(nb), encoding="utf-8")
    path = workspace / "02-tools-that-read.ipynb"
    nb = notebooks.load(path)
    for cell in nb.cells:
        cell.source = cell.source.replace('answer_q1 = "c"', 'answer_q1 = "  C"')
    path.write_text(notebooks.render(nb), encoding="utf-8")

    confirmed = check(course, workspace, reference)
    assert refused({k: v for k, v in confirmed.items() if k[:3] in ("l01", "l02", "l03")}) == set()


# ---------------------------------------------------------------------------------------------
# Attacks from inside the kernel (one_class.ATTACKS), graded by real nbgrader between honest students

@pytest.mark.slow
def test_attacks_from_the_kernel_earn_nothing_and_hurt_no_one(course, graded_class):
    grades, graded = graded_class.grades, graded_class.course
    release_dir = course / "release" / release.ASSIGNMENT
    full = grade.max_points(graded)
    assert {"aa-honest", "ab-honest-partial", "zz-honest", *(f"m-{n}" for n in ATTACKS)} <= set(grades)
    for honest in ("aa-honest", "zz-honest"):
        assert grades[honest].scores == pytest.approx(full) and not grades[honest].problem, grades[honest]
    honest = grades["ab-honest-partial"]
    [lecture_02] = release_dir.glob("02-*.ipynb")
    read_file_points = sum(p for g, p in notebooks.points(notebooks.load(lecture_02)).items()
                           if g.startswith("l02_read_file_"))
    assert not honest.problem and honest.scores["02"] == pytest.approx(full["02"] - read_file_points)
    wrong = []
    for name in ATTACKS:
        got = grades[f"m-{name}"]
        more = {k: v for k, v in got.scores.items() if v > honest.scores[k] + 1e-9}
        if more:
            wrong.append(f"{name}: {got.scores} (honest: {honest.scores}) {got.problem!r}")
    assert not wrong, "\n".join(wrong)
    # nbgrader itself sees through silenced errors (it reads the execute reply); the patched
    # inspect fools no one now: the notebook's hidden part, made from the same behaviour as the
    # check, reads warmup's source from disk, so nbgrader itself refuses the hidden literal
    fooled = grades["m-c-getsource"]
    [lecture_01] = release_dir.glob("01-*.ipynb")
    warmup = notebooks.points(notebooks.load(lecture_01))["l01_warmup_returns_61001"]
    assert fooled.scores["01"] == pytest.approx(full["01"] - warmup), fooled
