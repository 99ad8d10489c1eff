"""A grade no student code can forge (issue 22), tried as a determined student would: each attack
below is a real hand-in, graded by `nano-course grade` with the sandbox and the check on,
beside an honest one, twice.

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
- the class graded twice: byte-identical grades.csv, the same inputs drawn, and `nano-course
  replay` runs a failing behaviour again on them.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import cli
from autograder.authoring import notebooks, release
from autograder.check import independent
from autograder import records
from autograder.grading import grade, leaks, results
from tests.project.one_class import function_bodies, replace_solution

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("unforgeable")]  # one worker grades the class
PAYLOADS = Path(__file__).parent / "payloads"
TIMEOUT = 20
CAP_MB = 400  # the grading process's peak memory while a hand-in floods its channel


def append(path: Path, payload: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n" + (PAYLOADS / payload).read_text(encoding="utf-8"),
                    encoding="utf-8")


def swap_bash(workspace: Path, payload: str, edit=lambda text: text) -> None:
    """nano/tools.py with bash's solution replaced by the payload's bash (`edit`ed), and the
    payload's helpers after it."""
    tools = workspace / "nano" / "tools.py"
    source = workspace / f".{payload}"
    source.write_text(edit((PAYLOADS / payload).read_text(encoding="utf-8")), encoding="utf-8")
    [body] = [b for name, b in function_bodies(source).items() if name == "bash"]
    helpers = source.read_text(encoding="utf-8").split("\ndef bash(")[0]
    source.unlink()
    tools.write_text(replace_solution(tools.read_text(encoding="utf-8"), "bash", body) + "\n" + helpers,
                     encoding="utf-8")


def set_answer(workspace: Path, notebook: str, old: str, new: str) -> None:
    [path] = workspace.glob(notebook)
    nb = notebooks.load(path)
    hits = [c for c in nb.cells if old in c.source]
    assert len(hits) == 1, old
    hits[0].source = hits[0].source.replace(old, new)
    path.write_text(notebooks.render(nb), encoding="utf-8")


def write_class(release_dir: Path, subs: Path) -> None:
    def solved(name):
        return release.solve_workspace(release.make_workspace(release_dir, subs / name))

    solved("honest")
    append(release.make_workspace(release_dir, subs / "forger") / "nano" / "tools.py", "forge_the_subject.py")
    release.make_workspace(release_dir, subs / "untouched")
    swap_bash(solved("clock"), "bend_the_clock.py")
    huge = solved("huge")
    swap_bash(huge, "huge_numbers.py")
    set_answer(huge, "01-*.ipynb", "answer_q1 = 3", 'answer_q1 = "9" * 5000')
    twin = solved("twin")  # the honest twin of huge: the same, with numbers of a few digits
    swap_bash(twin, "huge_numbers.py", lambda text: text.replace('"9" * 5000', '"99999"'))
    set_answer(twin, "01-*.ipynb", "answer_q1 = 3", "answer_q1 = 99999")
    append(solved("flood") / "nano" / "tools.py", "flood_the_channel.py")
    append(solved("leak") / "nano" / "tools.py", "leak_the_judges.py")
    append(solved("burner") / "nano" / "protocol.py", "burn_the_cpu.py")


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
def runs(course, tmp_path_factory):
    """The class, graded twice from the command line, each time into a copy of the same course
    (the same grading seed)."""
    scratch = tmp_path_factory.mktemp("unforgeable")
    subs = scratch / "subs"
    write_class(course / "release" / release.ASSIGNMENT, subs)
    done = []
    for name in ("first", "second"):
        shutil.copytree(course, scratch / name)
        out = subprocess.run([str(Path(sys.executable).with_name("nano-course")), "grade", str(subs), "--course",
                              str(scratch / name), "--timeout", str(TIMEOUT)], capture_output=True, text=True)
        done.append(Run(scratch / name, out.returncode, out.stdout + out.stderr))
    return done


@pytest.fixture(scope="module")
def first(runs):
    assert runs[0].code == 0, runs[0].out
    return runs[0]


def points(course: Path) -> dict[str, float]:
    found = {}
    for path in sorted((course / "release" / release.ASSIGNMENT).glob("*.ipynb")):
        found.update(notebooks.points(notebooks.load(path)))
    return found


def test_stubs_and_a_forger_earn_nothing(first):
    forger, untouched = first.grades["forger"], first.grades["untouched"]
    assert untouched.total == 0
    assert forger.total == 0, f"the forger earned {forger.scores}"
    assert not [p for p in forger.problems if p.kind == records.GRADER]
    pages = "".join(p.read_text(encoding="utf-8") for p in (first.course / "feedback" / "forger").glob("*.html"))
    assert 'class="pass"' not in pages


def test_a_bent_clock_loses_the_timeout_behaviours(first):
    """Its bash does not stop the command at the timeout: the grader's clock sees it, in both
    timeout behaviours (the second also asks that the children be stopped in time)."""
    full = grade.max_points(first.course)
    clock = first.grades["clock"]
    timeouts = ("l03_bash_timeout_raises", "l03_bash_timeout_stops_children")
    lost = sum(points(first.course)[g] for g in timeouts)
    assert clock.scores["03"] == pytest.approx(full["03"] - lost), clock
    assert {k: v for k, v in clock.scores.items() if k != "03"} == {k: v for k, v in full.items() if k != "03"}
    verdicts = independent.read_record(first.course / "checks" / "clock.json")
    assert verdicts["l03_bash_timeout_raises"].state == independent.FAILED
    assert "took 5" in verdicts["l03_bash_timeout_raises"].message
    assert {k for k, v in verdicts.items() if v.state != independent.PASSED} <= set(timeouts)


def test_numbers_past_the_int_limit_lose_what_their_honest_twin_loses_and_hold_nothing(first):
    huge, twin = first.grades["huge"], first.grades["twin"]
    assert huge.scores == twin.scores, (huge, twin)
    cells = first.cells("huge")
    assert cells["l01_q1_entries_before_second_call"] == 0 and cells["l03_bash_nonzero_exit_is_a_result"] == 0
    assert not [p for p in huge.problems if p.kind == records.GRADER], huge.problem


def test_a_flood_costs_the_flooder_and_the_grader_stays_small(first):
    full = grade.max_points(first.course)
    assert first.grades["honest"].scores == full and not first.grades["honest"].problems
    flood = first.grades["flood"]
    assert flood.scores["01"] == full["01"] and flood.scores["02"] < full["02"]
    log = (first.course / "logs" / "flood.txt").read_text(encoding="utf-8")
    peak = int(re.search(r"peak memory (\d+) MB", log).group(1))
    assert peak < CAP_MB, f"the grading process reached {peak} MB"
    verdicts = independent.read_record(first.course / "checks" / "flood.json")
    assert any("sent too much" in v.message for v in verdicts.values()), verdicts


def test_no_page_shows_a_secret_of_the_grader(first):
    secret = leaks.course_secret(first.course)
    assert secret
    for page in (first.course / "feedback").rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not leaks.leaks(text, secret), page
    said = json.loads((first.course / "checks" / "leak.json").read_text(encoding="utf-8"))
    found = json.dumps(said["behaviours"])
    for marker in ("judge_", "def drive", "outcomes_of", "grading_seed", "BEHAVIOURS"):
        assert marker not in found and marker.translate({c: c + 0xFEE0 for c in range(33, 127)}) not in found


def test_cpu_burnt_beside_the_reference_stops_no_one(first):
    full = grade.max_points(first.course)
    assert first.grades["burner"].scores == full, first.grades["burner"]
    assert "did not finish" not in first.out and "grader error" not in first.out, first.out


def test_grading_the_class_twice_gives_the_same_grades_byte_for_byte(runs):
    a, b = runs
    assert a.code == b.code == 0
    assert (a.course / "grades.csv").read_bytes() == (b.course / "grades.csv").read_bytes()
    for student in ("honest", "clock", "huge"):
        one = json.loads((a.course / "checks" / f"{student}.json").read_text(encoding="utf-8"))
        two = json.loads((b.course / "checks" / f"{student}.json").read_text(encoding="utf-8"))
        assert [x["inputs"] for x in one["behaviours"]] == [x["inputs"] for x in two["behaviours"]]
    honest = json.loads((a.course / "checks" / "honest.json").read_text(encoding="utf-8"))
    twin = json.loads((a.course / "checks" / "twin.json").read_text(encoding="utf-8"))
    drawn = {x["key"]: x["inputs"] for x in honest["behaviours"]}
    assert any(x["inputs"] != drawn.get(x["key"]) for x in twin["behaviours"] if x["key"] in drawn), \
        "two students drew the same inputs everywhere"


def test_replay_runs_a_failing_behaviour_again_on_its_inputs(first, capsys):
    code = cli.main(["replay", "clock", "l03_bash_timeout_raises", "--course", str(first.course)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert out.startswith("l03_bash_timeout_raises: failed"), out
    assert '"command"' in out and "took" in out
