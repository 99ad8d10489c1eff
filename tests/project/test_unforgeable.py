"""A grade no student code can forge (issue 22), tried as a determined student would: each attack
below is a real hand-in (one_class.FORGERS, written by one_class.write_forgers), graded by
`nano-course grade` with the sandbox and the check on, beside an honest one, twice: first in the
class the slow grading tests share (one_class.py, where the honest one is zz-honest and the
untouched stubs are the sample `untouched`), and at the same time again, those whose grading
could vary from run to run (one_class.AGAIN: the bent clock, the huge numbers, the CPU burner) with
those two, as a class of their own into a copy of the same course (one_class.grade_class).

- a forger: the untouched stubs plus code that rewrites the check's process to answer every call
  as a right answer would look, sends forged results down its channel, winds the clock back, and
  in the kernel wraps every cell in try/except (payloads/forge_the_subject.py): worth 0;
- a bent clock: a bash that lets the command finish, then raises TimeoutError and winds
  time.monotonic back (bend_the_clock.py): it loses the timeout behaviour, timed by the grader;
- numbers past Python's int() limit, in an answer and in bash's exit code (huge_numbers.py): they
  lose what their honest twins lose, and hold nothing;
- a flood of a gigabyte down every pipe (flood_the_channel.py): the grader's memory stays small;
- a hunt for the grader's secrets, raised in full-width letters (leak_the_judges.py): no page
  shows any secret;
- CPU burnt beside the reference (burn_the_cpu.py): the class is graded, nobody is held;
- graded twice: their rows of grades.csv byte-identical, the same inputs drawn, and `nano-course
  replay` runs a failing behaviour again on them.
"""

import json
import re
from pathlib import Path

import pytest

from autograder import cli
from autograder.authoring import notebooks, release
from autograder.check import independent
from autograder import records
from autograder.grading import grade, leaks, results
from tests.project import one_class
from tests.project.one_class import HONEST, UNTOUCHED

pytestmark = pytest.mark.slow
CAP_MB = 400  # the grading process's peak memory while a hand-in floods its channel


class Run:
    def __init__(self, course: Path, code: int, out: str):
        self.course, self.code, self.out = course, code, out
        self.grades = {g.student: g for g in results.read_grades(course)}

    def cells(self, student: str) -> dict[str, float]:
        """grade_id -> score, from the course's gradebook."""
        from autograder import gradebook

        with gradebook.open_gradebook(gradebook.url(self.course)) as gb:
            submission = gb.find_submission(release.ASSIGNMENT, student)
            return {g.name: float(g.score) for nb in submission.notebooks for g in nb.grades}


@pytest.fixture(scope="module")
def first(graded_class):
    """The forgers as graded in the shared class."""
    assert graded_class.code == 0, graded_class.out + graded_class.err
    return Run(graded_class.course, graded_class.code, graded_class.out + graded_class.err)


@pytest.fixture(scope="module")
def second(graded_class):
    """one_class.AGAIN (forgers with their honest and untouched classmates), graded again beside
    the shared class as a class of their own, into a copy of the same course (the same grading seed)."""
    again = graded_class.again
    assert sorted(again.grades) == sorted(one_class.AGAIN), sorted(again.grades)
    return Run(again.course, again.code, again.out)


def points(course: Path) -> dict[str, float]:
    found = {}
    for path in sorted((course / "release" / release.ASSIGNMENT).glob("*.ipynb")):
        found.update(notebooks.points(notebooks.load(path)))
    return found


def test_stubs_and_a_forger_earn_nothing(first):
    forger, untouched = first.grades["u-forger"], first.grades[UNTOUCHED]
    assert untouched.total == 0
    assert forger.total == 0, f"the forger earned {forger.scores}"
    assert not [p for p in forger.problems if p.kind == records.GRADER]
    pages = "".join(p.read_text(encoding="utf-8") for p in (first.course / "feedback" / "u-forger").glob("*.html"))
    assert 'class="pass"' not in pages


def test_a_bent_clock_loses_the_timeout_behaviours(first):
    """Its bash does not stop the command at the timeout: the grader's clock sees it, in both
    timeout behaviours (the second also asks that the children be stopped in time)."""
    full = grade.max_points(first.course)
    clock = first.grades["u-clock"]
    timeouts = ("l03_bash_timeout_raises", "l03_bash_timeout_stops_children")
    lost = sum(points(first.course)[g] for g in timeouts)
    assert clock.scores["03"] == pytest.approx(full["03"] - lost), clock
    assert {k: v for k, v in clock.scores.items() if k != "03"} == {k: v for k, v in full.items() if k != "03"}
    verdicts = independent.read_record(first.course / "checks" / "u-clock.json")
    assert verdicts["l03_bash_timeout_raises"].state == independent.FAILED
    assert "took 5" in verdicts["l03_bash_timeout_raises"].message
    assert {k for k, v in verdicts.items() if v.state != independent.PASSED} <= set(timeouts)


def test_numbers_past_the_int_limit_lose_what_their_honest_twin_loses_and_hold_nothing(first):
    huge, twin = first.grades["u-huge"], first.grades["u-twin"]
    assert huge.scores == twin.scores, (huge, twin)
    cells = first.cells("u-huge")
    assert cells["l01_q1_entries_before_second_call"] == 0 and cells["l03_bash_nonzero_exit_is_a_result"] == 0
    assert not [p for p in huge.problems if p.kind == records.GRADER], huge.problem


def test_a_flood_costs_the_flooder_and_the_grader_stays_small(first):
    full = grade.max_points(first.course)
    assert first.grades[HONEST].scores == full and not first.grades[HONEST].problems
    flood = first.grades["u-flood"]
    assert flood.scores["01"] == full["01"] and flood.scores["02"] < full["02"]
    log = (first.course / "logs" / "u-flood.txt").read_text(encoding="utf-8")
    peak = int(re.search(r"peak memory (\d+) MB", log).group(1))
    assert peak < CAP_MB, f"the grading process reached {peak} MB"
    verdicts = independent.read_record(first.course / "checks" / "u-flood.json")
    assert any("sent too much" in v.message for v in verdicts.values()), verdicts


def test_no_page_shows_a_secret_of_the_grader(first):
    secret = leaks.course_secret(first.course)
    assert secret
    for page in (first.course / "feedback").rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not leaks.leaks(text, secret), page
    said = json.loads((first.course / "checks" / "u-leak.json").read_text(encoding="utf-8"))
    found = json.dumps(said["behaviours"])
    for marker in ("judge_", "def drive", "outcomes_of", "grading_seed", "BEHAVIOURS"):
        assert marker not in found and marker.translate({c: c + 0xFEE0 for c in range(33, 127)}) not in found


def test_cpu_burnt_beside_the_reference_stops_no_one(first, second):
    full = grade.max_points(first.course)
    for run in (first, second):
        assert run.grades["u-burner"].scores == full, run.grades["u-burner"]
        assert not [p for p in run.grades["u-burner"].problems if p.kind == records.GRADER]
    assert "did not finish" not in second.out and "grader error" not in second.out, second.out


def test_grading_them_twice_gives_the_same_grades_byte_for_byte(first, second):
    assert second.code == 0, second.out

    def rows(course: Path) -> list[bytes]:
        lines = (course / "grades.csv").read_bytes().splitlines(keepends=True)
        return lines[:1] + [line for line in lines[1:] if line.split(b",")[0].decode() in one_class.AGAIN]

    assert len(rows(second.course)) == 1 + len(one_class.AGAIN)
    assert rows(first.course) == rows(second.course)
    for student in (HONEST, "u-clock", "u-huge"):
        one = json.loads((first.course / "checks" / f"{student}.json").read_text(encoding="utf-8"))
        two = json.loads((second.course / "checks" / f"{student}.json").read_text(encoding="utf-8"))
        assert [x["inputs"] for x in one["behaviours"]] == [x["inputs"] for x in two["behaviours"]]
    honest = json.loads((first.course / "checks" / f"{HONEST}.json").read_text(encoding="utf-8"))
    twin = json.loads((first.course / "checks" / "u-twin.json").read_text(encoding="utf-8"))
    drawn = {x["key"]: x["inputs"] for x in honest["behaviours"]}
    assert any(x["inputs"] != drawn.get(x["key"]) for x in twin["behaviours"] if x["key"] in drawn), \
        "two students drew the same inputs everywhere"


def test_replay_runs_a_failing_behaviour_again_on_its_inputs(first, capsys):
    code = cli.main(["replay", "u-clock", "l03_bash_timeout_raises", "--course", str(first.course)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert out.startswith("l03_bash_timeout_raises: failed"), out
    assert '"command"' in out and "took" in out
