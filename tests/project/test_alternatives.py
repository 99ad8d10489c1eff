"""Does correct code written another way pass the visible checks? The alternatives catalogue, one by one.

Each alternative (autograder/authoring/alternatives.py) is a correct solution written differently,
as one small edit of the reference. Applied to a perfect submission, it must pass `./ok NN` of
its lecture: a correct implementation passing the visible checks is the least a student may
expect. A contested one (a format the contract may fix) may instead be caught by `./ok`, as long
as `./ok` names the failing check rather than crashing. Through real nbgrader the same
alternatives are graded in the class the slow tests share (test_mutations.py).
"""

import ast
import re
import shutil
from pathlib import Path

import pytest

from autograder.authoring import release
from autograder.authoring.alternatives import ALTERNATIVES, Alternative
from autograder.authoring.mutants import apply
from tests.project import one_class, warm_ok

ROOT = release.ROOT
ISSUE_ROWS = {"write_file_confirmation_with_a_period", "edit_file_could_not_find", "preview_new_file_from_dev_null"}


def touched_functions(alternative: Alternative) -> set[tuple[str, str]]:
    """The (file, function) pairs of the reference whose lines the alternative's old text overlaps."""
    if not alternative.file.startswith("nano/"):
        return set()
    source = (ROOT / alternative.file).read_text(encoding="utf-8")
    start = source.index(alternative.old)
    first = source.count("\n", 0, start) + 1
    last = first + alternative.old.rstrip("\n").count("\n")
    name = Path(alternative.file).name
    return {(name, node.name) for node in ast.parse(source).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.lineno <= last and first <= node.end_lineno}


def test_the_catalogue_covers_every_student_function_and_applies_to_the_reference(fresh_workspace, tmp_path):
    names = [a.name for a in ALTERNATIVES]
    assert len(names) >= 32 and len(set(names)) == len(names)
    assert all(a.why and "\n" not in a.why and a.old != a.new for a in ALTERNATIVES)
    assert ISSUE_ROWS <= {a.name for a in ALTERNATIVES if a.contested}

    lecture_of = {(file, function): lecture for file, functions in release.STUDENT_FUNCTIONS.items()
                  for function, lecture in functions.items()}
    covered = {}
    for alternative in ALTERNATIVES:
        for key in touched_functions(alternative):
            assert lecture_of.get(key) == alternative.lecture, (
                f"{alternative.name} edits {key}, which is not a student function of lecture {alternative.lecture}")
            covered.setdefault(key, []).append(alternative.name)
    missing = sorted(set(lecture_of) - set(covered))
    assert not missing, f"no alternative rewrites {missing}"

    workspace = release.solve_workspace(release.make_workspace(fresh_workspace, tmp_path / "ws"))
    for alternative in ALTERNATIVES:
        path = workspace / alternative.file
        original = path.read_bytes()
        apply(workspace, alternative)
        changed = path.read_text(encoding="utf-8")
        assert changed.encode() != original, alternative.name
        if path.suffix == ".py":
            ast.parse(changed, filename=alternative.file)  # a SyntaxError names the alternative's file
        path.write_bytes(original)


@pytest.fixture(scope="module")
def solved(fresh_workspace, tmp_path_factory) -> Path:
    return release.solve_workspace(release.make_workspace(fresh_workspace, tmp_path_factory.mktemp("solved") / "ws"))


HAND_INS = one_class.alternative_hand_ins()


@pytest.mark.slow
@pytest.mark.parametrize("hand_in", list(HAND_INS))
def test_each_alternative_passes_the_visible_checks_of_its_lecture(hand_in, solved, tmp_path):
    """Packed as the shared class packs them (one_class.alternative_hand_ins): each pack's
    alternatives applied together, then ./ok of each lecture they touch."""
    group = HAND_INS[hand_in]
    workspace = tmp_path / "ws"
    shutil.copytree(solved, workspace, symlinks=True)
    for alternative in group:
        apply(workspace, alternative)
    for lecture in sorted({"00" if a.lecture == "01" else a.lecture for a in group}):
        done = warm_ok.run(workspace, [lecture], timeout=300)
        said = done.stdout + done.stderr
        names = ", ".join(f"{a.name} ({a.why})" for a in group)
        if group[0].contested and done.returncode == 1:
            # caught by ./ok: fine for a contested format, as long as ./ok names the check that failed
            assert f"  FAIL  {lecture} " in done.stdout and re.search(rf"^{lecture}( and 01)?: ", done.stdout, re.M), said[-2000:]
            continue
        assert done.returncode == 0, f"{names} fail ./ok {lecture}:\n{said[-2000:]}"
        assert re.search(rf"^{lecture}( and 01)?: ", done.stdout, re.M) and ", 0 failed" in done.stdout, said[-2000:]
