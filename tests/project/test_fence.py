"""Does lecture 03's fence stay in lecture 03?

read_file and list_files (lecture 02) call inside_project (lecture 03) first. A student who has
added those calls but not yet written the fence, or written one that refuses everything, must
lose lecture 03's points only: lecture 02's visible checks (./ok 02) and its graded behaviours
run the tools with the fence out of the way, while lecture 03's fence cell says what is missing.
"""

import pytest

from autograder.authoring import release
from autograder.check import behaviour, independent
from tests.project import warm_ok

FENCES = {  # inside_project's body, in place of the reference's
    "not written yet": f"raise NotImplementedError({release.stub_message('03', 'inside_project', 'tools.py')!r})",
    "refusing everything": "raise PermissionError(f'{path}: refused')",
}


def fenced_workspace(course, dest, body):
    """A perfect workspace whose inside_project has `body`; its four file tools still call it."""
    work = release.solve_workspace(release.make_workspace(course / "release" / release.ASSIGNMENT, dest))
    tools = work / "nano" / "tools.py"
    text = tools.read_text(encoding="utf-8")
    start = text.index("    ### BEGIN SOLUTION\n", text.index("def inside_project("))
    end = text.index("    ### END SOLUTION\n", start) + len("    ### END SOLUTION\n")
    tools.write_text(text[:start] + f"    {body}\n" + text[end:], encoding="utf-8")
    assert text.count("    inside_project(path)\n") == 4
    return work


@pytest.mark.slow
@pytest.mark.parametrize("fence", sorted(FENCES))
def test_a_fence_not_written_or_wrong_costs_lecture_03_only(course, tmp_path, fence):
    work = fenced_workspace(course, tmp_path / "ws", FENCES[fence])
    ok = {n: warm_ok.run(work, [n], timeout=120) for n in ("02", "03")}
    assert ok["02"].returncode == 0, ok["02"].stdout + ok["02"].stderr
    assert "  FAIL  03 tools_stay_inside_the_project" in ok["03"].stdout

    items = independent.keyed([b for number in ("02", "03") for b in behaviour.lecture(number)])
    files, answers = independent.student_files(work)
    runs = independent.check_files(course, files, answers, "fence", fence.replace(" ", "-"), items)
    verdicts = {key: run.verdict for (key, _), run in zip(items, runs)}
    failed = {key: v.message for key, v in verdicts.items() if v.state != independent.PASSED}
    assert not [key for key in failed if key.startswith("l02_")], failed
    assert "l03_tools_stay_inside_the_project" in failed
    if fence == "not written yet":
        assert "inside_project is not written yet" in failed["l03_tools_stay_inside_the_project"]
