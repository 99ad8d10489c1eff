"""Does ./ok catch every named mistake? Each mutant of the catalogue (autograder/authoring/mutants.py)
applied to a perfect workspace must fail ./ok for its own lecture, saying what went wrong and
which section to reread; only a wrong answer in a notebook passes (the visible checks cannot know
the answer without giving it away; the hidden tests do)."""

import concurrent.futures
import subprocess
import sys

import pytest

from autograder.authoring import release
from autograder.authoring.mutants import MORE_MUTANTS, MUTANTS, apply

CODE_MUTANTS = [m for m in MUTANTS + MORE_MUTANTS if not m.ok]

# What ./ok must say for some mistakes: the words a student needs, not a traceback's.
SAYS = {
    "read_file_swallows_a_missing_file": ["  FAIL  02 read_file_missing_path",
                                          "must raise FileNotFoundError for a missing file, but it returned 'Error: no such file"],
    "bash_timeout_escapes": ["  FAIL  03 bash_timeout_raises", "a timeout must raise TimeoutError, not TimeoutExpired"],
    "edit_file_replaces_all": ["  FAIL  03 edit_file_several_matches_raise",
                               "must raise when old_string occurs 2 times, not replace them"],
    "loop_one_message_per_result": ["  FAIL  05 one_user_message_for_all_results", "ONE user message"],
    "repl_no_history_repair": ["  FAIL  06 dangling_tool_use_repaired", "main (nano/repl.py) must pop", "(section 3)"],
}


def ok(workspace, lecture):
    return subprocess.run([sys.executable, "ok", "00" if lecture == "01" else lecture], cwd=workspace,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def solved(course, tmp_path_factory):
    """Two perfect workspaces: the mutants are tried two at a time."""
    return [release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT,
                                                           tmp_path_factory.mktemp("ok") / "ws")) for _ in range(2)]


def with_mutant(workspace, mutant):
    """./ok for the mutant's lecture, run with the mutant applied to `workspace` (then undone)."""
    path = workspace / mutant.file
    original = path.read_bytes()
    apply(workspace, mutant)
    try:
        return ok(workspace, mutant.lecture)
    finally:
        path.write_bytes(original)


@pytest.mark.slow
def test_every_named_mistake_fails_ok_in_its_own_lecture(solved):
    for lecture in sorted({m.lecture for m in CODE_MUTANTS}):
        done = ok(solved[0], lecture)
        assert done.returncode == 0, f"./ok {lecture} fails on the reference:\n{done.stdout}{done.stderr}"
    halves = [CODE_MUTANTS[0::2], CODE_MUTANTS[1::2]]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runs = pool.map(lambda half, ws: [(m, with_mutant(ws, m)) for m in half], halves, solved)
        results = [pair for half in runs for pair in half]
    missed, wrong = [], []
    for mutant, done in results:
        failures = [line for line in done.stdout.splitlines() if line.startswith("  FAIL  ")]
        if done.returncode != 1 or not failures or done.stderr:
            missed.append(f"{mutant.name} ({mutant.lecture}): ./ok exited {done.returncode}\n{done.stdout}{done.stderr}")
        elif any(phrase not in done.stdout for phrase in SAYS.get(mutant.name, [])):
            wrong.append(f"{mutant.name}: ./ok {mutant.lecture} should say {SAYS[mutant.name]}:\n{done.stdout}")
        elif "(section" not in done.stdout and "line" not in done.stdout:
            wrong.append(f"{mutant.name}: ./ok names no section and no line:\n{done.stdout}")
    assert not missed, f"{len(missed)} of {len(CODE_MUTANTS)} named mistakes pass ./ok:\n" + "\n".join(missed)
    assert not wrong, "\n".join(wrong)
