"""Does ./ok catch every named mistake? Each mutant of the catalogue (autograder/authoring/mutants.py)
applied to a perfect workspace must fail ./ok for its own lecture, saying what went wrong and
which section to reread; only a wrong answer in a notebook passes (the visible checks cannot know
the answer without giving it away; the hidden tests do).

For the graded catalogue (MUTANTS), ./ok runs every lecture's checks here, and no other lecture's
may fail: the visible checks are what a graded cell runs in the kernel, so this is the kernel's
half of "costs points in its own lecture only" for each mutant alone, which test_mutations.py,
grading the mutants packed one per lecture in a hand-in, cannot tell apart (test_verify.py runs
the check's half). The rest of the catalogue (MORE_MUTANTS, not graded in the suite's class) runs
its own lecture's ./ok only."""

import concurrent.futures

import pytest

from autograder.authoring import release
from autograder.authoring.mutants import MORE_MUTANTS, MUTANTS, apply
from tests.project import warm_ok

CODE_MUTANTS = [m for m in MUTANTS + MORE_MUTANTS if not m.ok]
ANSWER_MUTANTS = [m for m in MUTANTS + MORE_MUTANTS if m.ok]

# What ./ok must say for some mistakes: the words a student needs, not a traceback's.
SAYS = {
    "read_file_swallows_a_missing_file": ["  FAIL  02 read_file_missing_path",
                                          "must raise FileNotFoundError for a missing file, but it returned 'Error: no such file"],
    "bash_timeout_escapes": ["  FAIL  03 bash_timeout_raises", "a timeout must raise TimeoutError, not TimeoutExpired"],
    "edit_file_replaces_all": ["  FAIL  03 edit_file_several_matches_raise",
                               "must raise when old_string occurs 2 times, not replace them"],
    "confirm_lenient_yes": ["  FAIL  04 confirm_rejects_everything_else", "for the answer 'yeah'"],
    "preview_edit_fragment_only": ["  FAIL  04 preview_edit_file_diff", """must show '-    return "helo"' as a line"""],
    "call_model_new_client_each_call": ["  FAIL  05 call_model_reuses_client", "build one, once, and reuse it"],
    "loop_one_message_per_result": ["  FAIL  05 one_user_message_for_all_results", "ONE user message"],
    "loop_runs_the_tool_before_the_gate": ["  FAIL  05 declined_tool_never_runs", "a declined bash must never run"],
    "repl_no_history_repair": ["  FAIL  06 dangling_tool_use_repaired", "main (nano/repl.py) must pop", "(section 3)"],
    "repl_except_exception_only": ["  FAIL  06 ctrl_c_during_a_turn", "catch KeyboardInterrupt too", "(section 3)"],
}


def ok(workspace, lecture=None):
    """./ok alone (every lecture's checks), or ./ok of one lecture (01's is 00)."""
    args = [] if lecture is None else ["00" if lecture == "01" else lecture]
    return warm_ok.run(workspace, args, timeout=300)


def failing(done) -> set[str]:
    """The lectures whose checks failed in ./ok's output (lecture 01's are its 00)."""
    numbers = {line.split()[1] for line in done.stdout.splitlines() if line.startswith("  FAIL  ")}
    return {"01" if number == "00" else number for number in numbers}


@pytest.fixture(scope="module")
def solved(course, tmp_path_factory):
    """Two perfect workspaces: the mutants are tried two at a time."""
    return [release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT,
                                                           tmp_path_factory.mktemp("ok") / "ws")) for _ in range(2)]


def with_mutant(workspace, mutant):
    """./ok, run with the mutant applied to `workspace` (then undone)."""
    path = workspace / mutant.file
    original = path.read_bytes()
    apply(workspace, mutant)
    try:  # the graded catalogue, every lecture's ./ok (what packing cannot tell apart); the rest, their own
        return ok(workspace, None if mutant in MUTANTS else mutant.lecture)
    finally:
        path.write_bytes(original)


@pytest.mark.slow
def test_every_named_mistake_fails_ok_in_its_own_lecture(solved):
    done = ok(solved[0])
    assert done.returncode == 0, f"./ok fails on the reference:\n{done.stdout}{done.stderr}"
    mutants = CODE_MUTANTS + ANSWER_MUTANTS
    halves = [mutants[0::2], mutants[1::2]]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runs = pool.map(lambda half, ws: [(m, with_mutant(ws, m)) for m in half], halves, solved)
        results = [pair for half in runs for pair in half]
    missed, wrong = [], []
    for mutant, done in results:
        if mutant.ok:
            if done.returncode != 0 or done.stderr:
                wrong.append(f"{mutant.name} ({mutant.lecture}), a wrong answer: ./ok exited {done.returncode}\n"
                             f"{done.stdout}{done.stderr}")
        elif done.returncode != 1 or not failing(done) or done.stderr:
            missed.append(f"{mutant.name} ({mutant.lecture}): ./ok exited {done.returncode}\n{done.stdout}{done.stderr}")
        elif failing(done) != {mutant.lecture}:
            wrong.append(f"{mutant.name} ({mutant.lecture}): ./ok fails in lectures {sorted(failing(done))}:\n{done.stdout}")
        elif any(phrase not in done.stdout for phrase in SAYS.get(mutant.name, [])):
            wrong.append(f"{mutant.name}: ./ok should say {SAYS[mutant.name]}:\n{done.stdout}")
        elif "(section" not in done.stdout and "line" not in done.stdout:
            wrong.append(f"{mutant.name}: ./ok names no section and no line:\n{done.stdout}")
    assert not missed, f"{len(missed)} of {len(CODE_MUTANTS)} named mistakes pass ./ok:\n" + "\n".join(missed)
    assert not wrong, "\n".join(wrong)
