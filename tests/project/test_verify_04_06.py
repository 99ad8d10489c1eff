"""The independent check of lectures 04-06 is fair: right work confirmed, each named mistake refused
where stock nbgrader fails it too.

test_verify.py runs the reference, the stubs and the mutant catalogue through every lecture's
behaviours. Here: correct alternatives of preview, confirm, call_model, agent_loop and main (and
answers written as the hidden tests allow) are confirmed on every cell of 04-06; and, slow, each
04-06 mutant is refused on exactly the cells that fail when its lecture's source notebook runs
on it in a kernel, its hidden parts calling the same behaviours from there (check/stock.py, as
under stock nbgrader), so the two ways of running a behaviour agree.
"""

import os
import shutil

import pytest

from autograder.authoring import notebooks, release
from autograder.authoring.mutants import MORE_MUTANTS, MUTANTS, apply
from tests.project.one_class import PAYLOADS, function_bodies, replace_solution
from tests.project.test_verify import check, refused, solved  # noqa: F401 (fixtures)

ROOT = release.ROOT
OURS = ("04", "05", "06")

ALTERNATIVES = {f"nano/{module}.py": function_bodies(PAYLOADS / f"alternative_{module}.py")
                for module in ("gate", "model", "loop", "repl")}

# Lecture 05's answers, written as the hidden tests allow.
ANSWERS = {'answer_q1 = "c"': 'answer_q1 = " C "', 'answer_q2 = "b"': "answer_q2 = 'B'",
           'answer_q3 = "b"': 'answer_q3 = "b\\n"', 'answer_q4 = "c"': 'answer_q4 = "\\tc"',
           "answer_q5 = 6": "answer_q5 = 2 * 3", 'answer_q6 = "b"': 'answer_q6 = "B "'}


def ours(confirmed: dict[str, bool]) -> dict[str, bool]:
    return {k: v for k, v in confirmed.items() if k[1:3] in OURS}


def test_correct_alternatives_are_confirmed_on_every_cell_of_04_to_06(course, solved, tmp_path):
    workspace = tmp_path / "alternative"
    shutil.copytree(solved, workspace)
    for name, functions in ALTERNATIVES.items():
        text = (ROOT / name).read_text(encoding="utf-8")
        for function, body in functions.items():
            text = replace_solution(text, function, body)
        (workspace / name).write_text(text, encoding="utf-8")
    [path] = workspace.glob("05-*.ipynb")
    nb = notebooks.load(path)
    for cell in nb.cells:
        for old, new in ANSWERS.items():
            cell.source = cell.source.replace(old, new)
    path.write_text(notebooks.render(nb), encoding="utf-8")

    confirmed = ours(check(course, workspace))
    assert {k[:3] for k in confirmed} == {"l04", "l05", "l06"}
    assert refused(confirmed) == set()


def sampled(mutants):
    """One mutant a lecture in the suite's run; the others with -m extended. Since the hidden part
    of a cell and the check are made from one definition, this test guards the way they are run
    (kernel against sandbox), not each mistake."""
    seen: set[str] = set()
    for mutant in mutants:
        first = mutant.lecture not in seen
        seen.add(mutant.lecture)
        yield mutant if first else pytest.param(mutant, marks=pytest.mark.extended)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", list(sampled([m for m in MUTANTS + (MORE_MUTANTS if os.environ.get("NANO_ALL_MUTANTS") else [])
                                                 if m.lecture in OURS])), ids=lambda m: m.name)
def test_a_mutant_is_refused_exactly_where_the_hidden_tests_fail(course, solved, mutant, tmp_path):
    workspace = tmp_path / mutant.name
    shutil.copytree(solved, workspace)
    apply(workspace, mutant)
    [source] = (course / "source" / release.ASSIGNMENT).glob(f"{mutant.lecture}-*.ipynb")
    nb = notebooks.load(source)  # the hidden tests included, the instructor's answers
    errors = notebooks.execute(nb, workspace)
    failed = {c.metadata["nbgrader"]["grade_id"] for c, error in zip(nb.cells, errors)
              if error and c.metadata.get("nbgrader", {}).get("grade")}
    assert failed, f"{mutant.name}: no hidden test fails, the catalogue is out of date"
    lecture = {g: ok for g, ok in check(course, workspace).items() if g[1:3] == mutant.lecture}
    assert refused(lecture) == failed
