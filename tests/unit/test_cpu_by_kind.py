"""tests/cpu_by_kind.py, the tool that says where a run's CPU time went: a command that keeps one
CPU busy for two seconds is seen spending most of them, under its own kind; command lines are
sorted into the kinds the suite has. (The machine may be busy with other work: the burner must
be seen, not given a whole CPU.)"""

import resource
import shutil
import sys
from pathlib import Path

import pytest

from tests import cpu_by_kind

BURNER = Path(__file__).parents[1] / "project" / "payloads" / "burn_one_cpu.py"


def test_a_busy_command_is_seen_spending_its_cpu_time():
    if not shutil.which("timeout"):
        pytest.skip("needs coreutils' timeout")
    kinds = (("the burner", BURNER.name), *cpu_by_kind.KINDS)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code, seconds, count, busy = cpu_by_kind.measure(["timeout", "2", sys.executable, str(BURNER), "0"], kinds)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)  # timeout and the burner
    assert code == 124  # timeout's own code: the burner ran its two seconds
    assert count["the burner"] == 1 and spent > 0.05, (seconds, spent)
    # All of it, but for what it spent after the last reading: at most one interval's worth.
    assert spent - cpu_by_kind.INTERVAL - 0.1 <= seconds["the burner"] <= spent + 0.05, (seconds, spent)
    assert busy is None or busy >= seconds["the burner"] - 0.1


@pytest.mark.parametrize("command, kind", [
    ("/v/bin/python -S -c \"\"\"What runs first inside a sandbox", "sandboxed Python (zygotes, kernels)"),
    ("/v/bin/python -I /tmp/nano-subject-x/harness/harness.py 6 13 /tmp/w", "check subjects (harness.py)"),
    ("/v/bin/python -m autograder.grading.autograde", "nbgrader grading processes"),
    ("/v/bin/python ok 05", "./ok"),
    ("/v/bin/python /r/tests/project/warm_ok.py /tmp/warm-ok-x/socket", "./ok"),
    ("/v/bin/python -m nano", "python -m nano"),
    ("/v/bin/python /v/bin/nano-course grade /tmp/pytest-of-root/pytest-3/class", "nano-course"),
    ("/v/bin/python -u -c import sys;exec(eval(sys.stdin.readline()))", "pytest and its workers' own test code"),
    ("/usr/lib/chromium/chromium --type=renderer", "Chromium"),
    ("/v/bin/python /v/bin/nano-course grade class", "nano-course"),
    ("/bin/sleep 5", "other"),
])
def test_command_lines_are_sorted_into_kinds(command, kind):
    assert cpu_by_kind.kind_of(command) == kind
