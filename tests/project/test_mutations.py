"""Are the hidden tests fair? Each named mistake costs points in its own lecture, and only there.

Each mutant (the catalogue is autograder/authoring/mutants.py, which the bench shares) is one of the
mistakes the lectures' "Common mistake" paragraphs name (docs/graded-behaviours.md lists them), written as a
small edit of the reference: (name, lecture, file, old text, new text). Applied to a perfect
submission and graded by real nbgrader, every mutant must lose points in its own lecture and in
no other, while the reference keeps all 10. `ok` says whether the visible checks (./ok NN) pass
on it: only for a wrong answer in a notebook (test_ok_mutants.py tries every mutant). The test
prints the table.

The mutants are graded in the class the slow grading tests share (one_class.py): MUTANTS (at
least one for each mistake a lecture names) by default, MORE_MUTANTS too when NANO_ALL_MUTANTS=1
is set (every one lost points in its own lecture only when this catalogue was written). They are
packed, as the alternatives are, at most one of each lecture in a hand-in
(one_class.mutant_hand_ins): six hand-ins for the 22 instead of 22. Each hand-in must lose points
in exactly the lectures whose mutants it carries, and nothing in the others.

What packing cannot tell apart is a mutant costing points in another lecture that carries its own
mutant in the same hand-in: that lecture loses points either way. A cell scores when its visible
part passes in the kernel and every one of its behaviours passes in the check, so that blind spot
is covered per mutant, apart, on each side: the visible part of a lecture's cells is its ./ok
checks, and test_ok_mutants.py runs every lecture's on a perfect workspace with each mutant alone
(only the mutant's own may fail, and only a wrong answer passes: the `./ok` column below is what
it proves); the check's side is test_verify's test_each_mutant_is_refused_in_its_own_lecture_only
(each mutant alone, refused in its own lecture's cells and in no other). Both hold because a
behaviour drives one lecture's functions with doubles standing in for the others, so another
lecture's mistake does not reach it; the packed grading shows the same end to end wherever a
lecture carries no mutant of its own.

The other half of fairness: the alternatives catalogue (autograder/authoring/alternatives.py),
correct code written another way, graded in the same class (packed several to a hand-in by
one_class.alternative_hand_ins), must keep all 10 points in every lecture, with no problem noted. A contested one (a format the contract may fix) may
instead fail ./ok, so that the student hears of it before grading; it may never pass ./ok and
lose points. test_alternatives.py checks that each passes ./ok on its own.
"""

import concurrent.futures
from pathlib import Path

import pytest

from autograder.authoring import release
from autograder.grading import grade
from autograder.authoring.alternatives import ALTERNATIVES
from autograder.authoring.mutants import MORE_MUTANTS, MUTANTS, apply
from tests.project import one_class, warm_ok

ROOT = release.ROOT


def visible_checks_pass(workspace: Path, lecture: str) -> bool:
    done = warm_ok.run(workspace, ["00" if lecture == "01" else lecture], timeout=300)
    return done.returncode == 0


def test_the_catalogue_names_at_least_20_mistakes_in_every_lecture_and_applies_to_the_reference(
        fresh_workspace, tmp_path):
    names = [m.name for m in MUTANTS + MORE_MUTANTS]
    assert len(set(names)) == len(names) and len(MUTANTS) >= 20
    assert {m.lecture for m in MUTANTS} == {"01", "02", "03", "04", "05", "06"}
    workspace = release.solve_workspace(release.make_workspace(fresh_workspace, tmp_path / "ws"))
    for mutant in MUTANTS + MORE_MUTANTS:
        original = (workspace / mutant.file).read_bytes()
        apply(workspace, mutant)
        (workspace / mutant.file).write_bytes(original)


@pytest.mark.slow
def test_each_named_mistake_costs_points_in_its_own_lecture_only(graded_class, capsys):
    hand_ins = one_class.mutant_hand_ins()
    mutants = [m for pack in hand_ins.values() for m in pack]
    assert sorted(m.name for m in mutants) == sorted(m.name for m in one_class.mutants())
    assert all(len({m.lecture for m in pack}) == len(pack) for pack in hand_ins.values())
    grades, graded = graded_class.grades, graded_class.course
    full = grade.max_points(graded)
    reference = grades[one_class.HONEST]

    def lost(name: str) -> dict[str, float]:
        return {k: round(full[k] - v, 3) for k, v in grades[name].scores.items() if v < full[k] - 1e-9}

    lines = [f"{'mutant':38} lecture  ./ok    hand-in          points lost there",
             f"{'reference':38} {'':7}  {'':6}  {one_class.HONEST:15}  "
             + (", ".join(f"{k}: -{v:g}" for k, v in lost(one_class.HONEST).items()) or "none")]
    wrong = []
    for name, pack in hand_ins.items():
        if set(lost(name)) != {m.lecture for m in pack} or grades[name].problem:
            wrong.append(f"{name} ({', '.join(f'{m.name} ({m.lecture})' for m in pack)}) lost "
                         f"{lost(name) or 'nothing'} {grades[name].problem}")
        for mutant in pack:
            lines.append(f"{mutant.name:38} {mutant.lecture:7}  {'passes' if mutant.ok else 'fails':6}  {name:15}  "
                         + (f"{mutant.lecture}: -{lost(name)[mutant.lecture]:g}" if mutant.lecture in lost(name)
                            else "nothing"))
    caught_only_by_hidden = [m.name for m in mutants if m.ok]
    lines.append(f"{len(mutants)} mutants in {len(hand_ins)} hand-ins; {len(caught_only_by_hidden)} pass ./ok and "
                 f"are caught only by the hidden tests: {', '.join(caught_only_by_hidden)}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))

    assert reference.scores == pytest.approx(full) and not reference.problem
    assert not wrong, "\n".join(wrong)
    assert caught_only_by_hidden, "no mutant passes ./ok: the hidden tests add nothing?"


@pytest.mark.slow
def test_each_alternative_keeps_all_10_points(graded_class, capsys):
    grades, full = graded_class.grades, grade.max_points(graded_class.course)
    hand_ins = one_class.alternative_hand_ins()
    assert sorted(a.name for group in hand_ins.values() for a in group) == sorted(a.name for a in ALTERNATIVES)
    contested = {name: group[0] for name, group in hand_ins.items() if group[0].contested}
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        passes_ok = dict(zip(contested, pool.map(
            lambda name: visible_checks_pass(graded_class.hand_ins / name, contested[name].lecture), contested)))

    lines, wrong = [f"{'hand-in':28} {'alternatives':60} ./ok    points lost"], []
    for name, group in hand_ins.items():
        got = grades[name]
        lost = {k: round(full[k] - v, 3) for k, v in got.scores.items() if v < full[k] - 1e-9}
        ok = {True: "passes", False: "fails", None: ""}[passes_ok.get(name)]
        names = ", ".join(a.name for a in group)
        lines.append(f"{name:28} {names[:60]:60} {ok:6}  "
                     + (", ".join(f"{k}: -{v:g}" for k, v in lost.items()) or "nothing")
                     + (f"  ({got.problem})" if got.problem else ""))
        if (lost or got.problem) and not (name in contested and not passes_ok[name]):
            wrong.append(f"{name} ({names}: {'; '.join(a.why for a in group)}) lost {lost or 'nothing'} {got.problem}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))

    assert not wrong, ("correct code lost points (a contested one only where ./ok passes on it; a pack "
                       "carries several alternatives: grade them one by one to find which):\n" + "\n".join(wrong))
