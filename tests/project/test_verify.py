"""The independent check: every graded behaviour driven in a subject process and judged outside it.

Fast tests: every graded cell has a behaviour; no behaviour module imports nano (the grader
never runs a hand-in's code); the driver survives what student code does to its subject (it
raises, exits, ignores signals, floods its channel, returns what is not plain data); a judge or
drive that raises holds its cell, a behaviour that does not finish is not confirmed; the stubs
pass nothing. Slow: the reference is confirmed everywhere with several seeds; each mutant of
the catalogue is refused in its own lecture only; correct alternatives are confirmed; and
attacks from the kernel, graded by real nbgrader between honest hand-ins, earn nothing.
"""

import ast
import os
import shutil
from pathlib import Path

import pytest

from autograder.authoring import notebooks, release
from autograder.authoring.mutants import MORE_MUTANTS, MUTANTS, apply
from autograder.check import behaviour, independent
from autograder.check.behaviour import Behaviour
from autograder.check.driver import Bounds
from checks.processes import descendants
from checks.subject import wire
from autograder.grading import grade
from tests.project import observers
from tests.project.one_class import ATTACKS, PAYLOADS, function_bodies, replace_solution

ROOT = release.ROOT
LECTURES = ["01", "02", "03", "04", "05", "06"]


def graded_cells(number: str) -> set[str]:
    [path] = (ROOT / "lectures").glob(f"{number}-*.ipynb")
    return set(notebooks.points(notebooks.load(path)))


def check(course: Path, workspace: Path, seed: str = "test-seed", student: str = "someone") -> dict[str, bool]:
    """grade_id -> whether the check passes the cell, for a workspace's files."""
    files, answers = independent.student_files(workspace)
    runs = independent.check_files(course, files, answers, seed, student,
                                   independent.keyed(independent.course_behaviours(course)))
    return {g: v.state == independent.PASSED for g, v in independent.cell_states(r.verdict for r in runs).items()}


def refused(confirmed: dict[str, bool]) -> set[str]:
    return {grade_id for grade_id, ok in confirmed.items() if not ok}


@pytest.fixture(scope="module")
def solved(course, tmp_path_factory):
    """A perfect workspace (the reference and the instructor's answers)."""
    return release.solve_workspace(release.make_workspace(
        course / "release" / release.ASSIGNMENT, tmp_path_factory.mktemp("solved") / "ws"))


# ---------------------------------------------------------------------------------------------
# Coverage, and the line between the grader and the hand-in

@pytest.mark.parametrize("number", LECTURES)
def test_every_graded_cell_of_the_lecture_has_a_behaviour(number):
    behaviours = behaviour.lecture(number)
    assert behaviours, f"lecture {number} has no autograder/check/behaviours/l{number}.py"
    named = {b.grade_id for b in behaviours}
    assert graded_cells(number) - named == set(), f"cells of {number} without a behaviour"
    assert named - graded_cells(number) == set(), f"behaviours of {number} for cells that do not exist"
    for b in behaviours:
        compile(behaviour.hidden_part(b.grade_id), b.grade_id, "exec")


@pytest.mark.parametrize("number", LECTURES)
def test_no_behaviour_imports_nano_the_grader_never_runs_a_hand_ins_code(number):
    """Everything of the hand-in is reached through the subject; the course's given modules (the
    Messages API server, the scripted replies' builders) come from driver.given, the repository's."""
    tree = ast.parse((ROOT / "autograder" / "check" / "behaviours" / f"l{number}.py").read_text(encoding="utf-8"))
    imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    imported += [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert not [name for name in imported if name and name.split(".")[0] == "nano"]


def test_the_notebooks_hidden_part_holds_no_judge_input_or_answer(course):
    """What nbgrader puts back into a graded cell is one call, which nano-course grade cuts out
    before the kernel runs the cell."""
    for path in sorted((course / "source" / release.ASSIGNMENT).glob("*.ipynb")):
        for cell in notebooks.load(path).cells:
            if behaviour.HIDDEN[0] in cell.source:
                hidden = cell.source.split(behaviour.HIDDEN[0])[1].split(behaviour.HIDDEN[1])[0]
                lines = [line for line in hidden.strip().splitlines() if not line.startswith("#")]
                assert lines == [behaviour.CALL, f"hidden_tests({cell.metadata['nbgrader']['grade_id']!r}, globals())"]
                assert behaviour.HIDDEN[0] not in notebooks.without_hidden_tests(cell.source)


# ---------------------------------------------------------------------------------------------
# The driver survives its subject

def hostile_workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    (workspace / "nano").mkdir(parents=True)
    (workspace / "nano" / "__init__.py").write_text("")
    (workspace / "nano" / "m.py").write_text((PAYLOADS / "hostile_module.py").read_text())
    return workspace


def test_the_driver_survives_what_student_code_does_to_its_subject(tmp_path):
    def b(drive, given=None):
        return Behaviour("x", drive, observers.judge_nothing, given=given or {}, answers=("ans0", "ans1"))

    items = [("twice", b(observers.drive_twice)), ("boom", b(observers.drive_boom)), ("odd", b(observers.drive_odd)),
             ("exits_hard", b(observers.drive_exits_hard)), ("deaf", b(observers.drive_deaf)),
             ("after", b(observers.drive_after)), ("exits", b(observers.drive_exits)),
             ("floods", b(observers.drive_floods)), ("after#2", b(observers.drive_twice, {"n": 5})),
             ("child", b(observers.drive_leaves_a_child, {"tag": "424242"})),
             ("deep", b(observers.drive_deep)), ("huge_text", b(observers.drive_huge_text)),
             ("many", b(observers.drive_many)), ("many_forged", b(observers.drive_many_forged)),
             ("after#3", b(observers.drive_twice, {"n": 6}))]
    runs = dict(zip([k for k, _ in items], independent.run(
        hostile_workspace(tmp_path), items, "seed", "s", answers={"ans0": "q = 1", "ans1": "q = 5\n1 / 0"},
        timeout=3, bounds=Bounds(item=8_000_000))))
    state = {k: r.verdict.state for k, r in runs.items()}
    assert runs["twice"].seen["got"]["value"] == 8 and state["twice"] == independent.PASSED
    assert runs["boom"].seen["got"]["raised"][0] == "KeyError" and runs["boom"].seen["got"]["message"] == "'boom'"
    odd = runs["odd"].seen
    assert odd["answers"] == {"q": 5}
    assert odd["got"]["value"]["odd"] == "x" and odd["got"]["value"]["obj"] == {"__unplain__": "builtins.object"}
    assert odd["got"]["value"]["big"] == wire.marker(f"{wire.TOO_LARGE}an int of more than 4000 digits")
    assert odd["got"]["value"]["nan"] == "nan"
    assert state["odd"] == independent.FAILED and "a value too large to judge" in runs["odd"].verdict.message
    # past the wire's depth or size: the hand-in's outcome, judged wrong, in words; the subject goes on
    assert state["deep"] == independent.FAILED and "too deep to judge" in runs["deep"].verdict.message
    assert runs["deep"].seen["then"]["value"] == 2
    assert state["huge_text"] == independent.FAILED and "too large to judge" in runs["huge_text"].verdict.message
    assert "3000" in runs["huge_text"].verdict.message and runs["huge_text"].seen["then"]["value"] == 4
    # a value of a few bytes a part, whose parsed form is many objects: counted, never parsed
    assert state["many"] == independent.FAILED and "150006 values in one message" in runs["many"].verdict.message
    assert runs["many"].seen["then"]["value"] == 6
    assert state["many_forged"] == independent.FAILED and "660006 values" in runs["many_forged"].verdict.message
    assert runs["after#3"].seen["got"]["value"] == 12 and state["after#3"] == independent.PASSED
    assert state["exits_hard"] == independent.LATE and "died" in runs["exits_hard"].verdict.message
    assert state["deaf"] == independent.LATE and "ran past its time" in runs["deaf"].verdict.message
    assert state["after"] == independent.PASSED and Path(runs["after"].seen["cwd"]["value"]).name == "work"
    assert runs["exits"].seen["got"]["raised"][0] == "SystemExit"
    assert state["floods"] == independent.LATE and "sent too much" in runs["floods"].verdict.message
    assert runs["after#2"].seen["got"]["value"] == 10
    assert runs["child"].seen["got"]["value"] == "left"
    assert len(runs["child"].seen["left"]) == 1, "the driver sees the child the subject's code left running"
    assert not descendants(runs["child"].seen["left"][0]), "a child of the subject outlived it"


def test_a_drive_or_judge_that_raises_holds_the_cell_and_a_behaviour_that_does_not_finish_scores_nothing(tmp_path):
    def judge_boom(inputs, seen):
        yield seen["nothing"]

    def drive_boom(subject, inputs):
        return {}["nothing"]

    items = [("j", Behaviour("j", observers.drive_twice, judge_boom)),
             ("d", Behaviour("d", drive_boom, observers.judge_nothing)),
             ("late", Behaviour("late", observers.drive_deaf, observers.judge_nothing))]
    runs = independent.run(hostile_workspace(tmp_path), items, "seed", "s", timeout=2)
    held_judge, held_drive, late = (r.verdict for r in runs)
    assert held_judge.state == independent.HELD and "judge raised: KeyError" in held_judge.detail
    assert held_drive.state == independent.HELD and "drive raised: KeyError" in held_drive.detail
    assert late.state == independent.LATE
    cells = independent.cell_states([held_judge, held_drive, late])
    assert {g: v.state for g, v in cells.items()} == {"j": "held", "d": "held", "late": "late"}


def test_a_timed_behaviour_that_fails_is_driven_once_more_and_the_second_run_decides(tmp_path):
    """A stalled machine can make the driver's clock say an honest bash was slow: a timed
    behaviour's failure is driven again, an untimed one's is not, and two failures fail."""
    drives = []

    def drive_counted(subject, inputs):
        drives.append(inputs["name"])
        return {"drive": drives.count(inputs["name"]), **observers.drive_twice(subject, {})}

    def judge_first_fails(inputs, seen):
        return "slow, this time" if seen["drive"] < inputs["passes_at"] else None

    items = [(name, Behaviour(name, drive_counted, judge_first_fails, given={"name": name, "passes_at": at}, timed=timed))
             for name, at, timed in (("stall", 2, True), ("untimed", 2, False), ("slow", 99, True))]
    runs = independent.run(hostile_workspace(tmp_path), items, "seed", "s", timeout=3)
    assert [r.verdict.state for r in runs] == [independent.PASSED, independent.FAILED, independent.FAILED]
    assert drives == ["stall", "stall", "untimed", "slow", "slow"]
    assert runs[2].verdict.message == "slow, this time"


# ---------------------------------------------------------------------------------------------
# The reference, the stubs, the mutants

@pytest.mark.slow
@pytest.mark.parametrize("seed", ["1", "424242", "a seed of words"])
def test_the_reference_is_confirmed_on_every_cell(course, solved, seed):
    data = independent.reference(course, seed)
    assert data == {"seed": seed, "late": []}
    confirmed = check(course, solved, seed, "a student")
    everything = set().union(*(graded_cells(n) for n in LECTURES))
    assert refused(confirmed) == set()
    assert set(confirmed) == everything


def test_the_stubs_pass_nothing(course, fresh_workspace):
    confirmed = check(course, fresh_workspace)
    assert confirmed and not any(confirmed.values())


@pytest.mark.slow
def test_each_mutant_is_refused_in_its_own_lecture_only(course, solved, tmp_path):
    import concurrent.futures

    mutants = MUTANTS + (MORE_MUTANTS if os.environ.get("NANO_ALL_MUTANTS") else [])

    def one(mutant):
        workspace = tmp_path / mutant.name
        shutil.copytree(solved, workspace)
        apply(workspace, mutant)
        return mutant, refused(check(course, workspace))

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


def test_correct_alternatives_are_confirmed_everywhere(course, solved, tmp_path):
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

    confirmed = check(course, workspace)
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
    # the patched inspect fools no one: the grader reads warmup's source from the hand-in's file
    fooled = grades["m-c-getsource"]
    [lecture_01] = release_dir.glob("01-*.ipynb")
    warmup = notebooks.points(notebooks.load(lecture_01))["l01_warmup_returns_61001"]
    assert fooled.scores["01"] == pytest.approx(full["01"] - warmup), fooled


def test_a_students_subject_runs_below_the_graders_cpu_priority_and_the_references_does_not(tmp_path):
    """CPU a hand-in burns slows other hand-ins, never the reference the check confirms itself
    with (and the grader's own processes)."""
    from autograder.check.driver import Subject

    workspace = hostile_workspace(tmp_path)
    for nice, expected in ((None, 10), (0, 0)):
        subject = Subject(workspace, nice=nice)
        try:
            with subject.item(10):
                assert subject.call("os.nice", 0)["value"] == expected
        finally:
            subject.close()
