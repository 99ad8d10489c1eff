"""From source to release to grade: are solutions stubbed, hidden tests kept back, grades right?"""

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.authoring import notebooks, release
from autograder.grading import grade
from autograder.authoring.release import BEGIN, END, STUDENT_FUNCTIONS, ReleaseError, stub_source

ROOT = release.ROOT


def solution_lines() -> set[str]:
    """Every distinctive line of the reference solution that the stubbed module does not show anyway."""
    lines = set()
    for module in STUDENT_FUNCTIONS:
        source = (ROOT / "nano" / module).read_text()
        given = stub_source(source, module)
        inside = False
        for line in source.splitlines():
            if line.strip() == BEGIN:
                inside = True
            elif line.strip() == END:
                inside = False
            elif inside and len(line.strip()) >= 25 and not line.strip().startswith("#") \
                    and line.strip() not in given:
                lines.add(line.strip())
    return lines


def test_stubs_keep_signature_and_docstring_and_only_raise():
    for module, functions in STUDENT_FUNCTIONS.items():
        source = (ROOT / "nano" / module).read_text()
        original = {f.name: f for f in ast.walk(ast.parse(source)) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
        stubbed = {f.name: f for f in ast.walk(ast.parse(stub_source(source, module))) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
        assert set(original) == set(stubbed), module
        for name, lecture in functions.items():
            before, after = original[name], stubbed[name]
            assert ast.dump(before.args) == ast.dump(after.args), f"{name}: signature changed"
            assert ast.dump(before.returns) == ast.dump(after.returns), f"{name}: return type changed"
            assert ast.get_docstring(before) == ast.get_docstring(after) and ast.get_docstring(after)
            raise_stmt = after.body[-1]
            assert len(after.body) == 2 and isinstance(raise_stmt, ast.Raise), f"{name} is not docstring + raise"
            message = raise_stmt.exc.args[0].value
            assert f"Lecture {lecture}" in message and name in message and module in message


def test_stub_source_refuses_what_it_cannot_stub():
    tools = (ROOT / "nano" / "tools.py").read_text()
    with pytest.raises(ReleaseError, match="without"):
        stub_source(tools.replace(END, "# end", 1), "tools.py")
    with pytest.raises(ReleaseError, match="expected exactly one"):
        stub_source(tools.replace(BEGIN, "# begin", 1).replace(END, "# end", 1), "tools.py")
    with pytest.raises(ReleaseError, match="not a student function"):
        stub_source(f"def helper():\n    {BEGIN}\n    return 1\n    {END}\n", "tools.py")


def test_every_student_function_raises_not_implemented_in_a_fresh_workspace(fresh_workspace):
    calls = {"warmup": "()", "read_file": "('a')", "list_files": "()", "run_tool": "('bash', {})",
             "write_file": "('a', 'b')", "edit_file": "('a', 'b', 'c')", "bash": "('true')", "inside_project": "('a')",
             "preview": "('bash', {'command': 'ls'})", "confirm": "(None, 'bash', {})",
             "call_model": "([])", "agent_loop": "([], None)", "main": "()"}
    assert set(calls) == {f for functions in STUDENT_FUNCTIONS.values() for f in functions}
    script = ["import asyncio, inspect, json", "out = {}"]
    for module, functions in STUDENT_FUNCTIONS.items():
        for name in functions:
            script += [f"from nano.{module[:-3]} import {name}", "try:",
                       f"    r = {name}{calls[name]}",
                       "    r = asyncio.run(r) if inspect.iscoroutine(r) else r",
                       f"    out[{name!r}] = 'returned ' + repr(r)",
                       "except NotImplementedError as e:",
                       f"    out[{name!r}] = str(e)"]
    script.append("print(json.dumps(out))")
    done = subprocess.run([sys.executable, "-c", "\n".join(script)], cwd=fresh_workspace,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    for module, functions in STUDENT_FUNCTIONS.items():
        for name, lecture in functions.items():
            assert said[name].startswith(f"Lecture {lecture}: {name} is not implemented"), said[name]


def code_lines(text: str) -> set[str]:
    """The lines of `text` worth comparing: stripped, inline comments dropped, not trivially short."""
    lines = {line.split("  # ")[0].strip() for line in text.splitlines()}
    return {line for line in lines if len(line) >= 25 and not line.startswith("#")}


def test_no_solution_hidden_test_or_reference_cell_reaches_the_release(course, fresh_workspace):
    release.check_release(fresh_workspace)
    hidden, reference, elsewhere = set(), set(), set()
    for source in sorted((ROOT / "lectures").glob("[0-9][0-9]-*.ipynb")):
        for cell in notebooks.load(source).cells:
            text = cell.source
            while "### BEGIN HIDDEN TESTS" in text:  # split off each hidden region
                before, rest = text.split("### BEGIN HIDDEN TESTS", 1)
                part, text = rest.split("### END HIDDEN TESTS", 1)
                hidden |= code_lines(part)
                text = before + text
            if notebooks.REFERENCE_TAG in cell.metadata.get("tags", []):
                reference |= code_lines(text)
            else:
                elsewhere |= code_lines(text)
    secrets = (hidden | reference) - elsewhere  # a line the visible part also shows is no secret
    solutions = solution_lines()
    assert len(hidden - elsewhere) > 50 and len(solutions) > 20
    for path in (p for p in fresh_workspace.rglob("*") if p.is_file()):
        if path.suffix == ".ipynb":  # prose may quote a line in a hint; code cells may not
            cells = notebooks.load(path).cells
            shown = code_lines("\n".join(c.source for c in cells if c.cell_type == "code"))
            assert not shown & (solutions | secrets), f"{path.name}: {sorted(shown & (solutions | secrets))[:3]}"
            prose = code_lines("\n".join(c.source for c in cells if c.cell_type == "markdown"))
            assert not prose & (hidden - elsewhere), f"{path.name} prose quotes a hidden test"
        else:
            leaked = [line for line in solutions if line in path.read_text(errors="replace")]
            assert not leaked, f"solution line in the release: {path.name}: {leaked[:3]}"
    # Nor may the reference solution sit anywhere in the grading folder, where graded code runs.
    for path in course.rglob("*.py"):
        text = path.read_text(errors="replace")
        assert not any(line in text for line in solutions), f"reference solution in {path}"


def test_release_notebooks_sit_at_the_assignment_root_with_the_package(fresh_workspace):
    names = sorted(p.name for p in fresh_workspace.iterdir())
    lectures = sorted(p.name for p in (ROOT / "lectures").glob("[0-9][0-9]-*.ipynb"))
    assert names == sorted([*lectures, release.STUDENT_LAB_CONFIG, "checks", "fixtures", "nano", "ok", "python"])
    assert sorted(p.relative_to(fresh_workspace).as_posix() for p in (fresh_workspace / "checks").rglob("*.py")) == \
        sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "checks").rglob("*.py"))
    assert not (fresh_workspace / "fixtures" / "submissions").exists()
    for nb_path in fresh_workspace.glob("*.ipynb"):
        nb = notebooks.load(nb_path)
        assert nb.metadata["kernelspec"]["name"] == "python3"
        # what the kernel reports, so that JupyterLab does not open the notebook marked as changed
        assert nb.metadata["language_info"] == release.kernel_language_info()
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
        answers = [c.source for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")]
        # a whole answer cell ends in the stub; a function's body (lecture 03's inside_project) holds it indented
        stub = release.ANSWER_STUB.splitlines()
        assert all([line.strip() for line in source.splitlines()[-2:]] == stub for source in answers), nb_path.name


def test_the_course_config_keeps_student_files(course):
    api = release.nbgrader_api(course)
    assert api.config.Autograde.exclude_overwriting == {"nano": release.STUDENT_FILES}


def test_a_workspace_is_never_written_over(course, tmp_path):
    (tmp_path / "mine.txt").write_text("precious")
    with pytest.raises(ReleaseError, match="not empty"):
        release.make_workspace(course / "release" / "nano", tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "precious"


def test_mini_pipeline_grades_each_behaviour_by_its_points(mini_course, tmp_path):
    """A perfect, an untouched and a half-done submission, and one that tampers with a helper."""
    course, lectures = mini_course
    course = Path(shutil.copytree(course, tmp_path / "course"))  # the shared course stays ungraded
    points = notebooks.points(notebooks.load(lectures / "01-mini.ipynb"))
    release_dir = course / "release" / "nano"
    subs = tmp_path / "subs"
    release.solve_workspace(release.make_workspace(release_dir, subs / "perfect"), lecture_dir=lectures)
    release.make_workspace(release_dir, subs / "untouched")
    partial = release.make_workspace(release_dir, subs / "partial")
    protocol = partial / "nano" / "protocol.py"
    protocol.write_text(protocol.read_text().replace(
        "raise NotImplementedError('Lecture 01: warmup", "return 61 * 1000 + 1  # ('"))
    testing = partial / "nano" / "testing.py"  # tampering with a given helper is undone
    testing.write_text(testing.read_text() + "\nraise SystemExit('tampered')\n")
    (subs / "not a valid id").mkdir()

    grades = {g.student: g for g in grade.grade_all(subs, course, echo=lambda *_: None)}
    assert grades["perfect"].total == sum(points.values())
    assert grades["untouched"].total == 0
    assert grades["partial"].total == points["mini_warmup"]
    assert grades["not a valid id"].problem and grades["not a valid id"].total == 0
    graded = course / "autograded" / "partial" / "nano" / "nano"
    assert "tampered" not in (graded / "testing.py").read_text()
    assert "61 * 1000 + 1" in (graded / "protocol.py").read_text()
    rows = (course / "grades.csv").read_text().splitlines()
    assert rows[0] == "student_id,01,total"
    assert f"perfect,{sum(points.values()):g},{sum(points.values()):g}" in rows


@pytest.mark.slow
@pytest.mark.extended
def test_real_course_reference_scores_ten_and_untouched_scores_zero(course, tmp_path):
    course = Path(shutil.copytree(course, tmp_path / "course"))  # the shared course stays ungraded
    release_dir = course / "release" / "nano"
    expected = {nb.stem[:2]: sum(notebooks.points(notebooks.load(nb)).values())
                for nb in sorted((ROOT / "lectures").glob("[0-9][0-9]-*.ipynb"))}
    assert sum(expected.values()) == pytest.approx(10.0)
    release.solve_workspace(release.make_workspace(release_dir, tmp_path / "subs" / "reference"))
    release.make_workspace(release_dir, tmp_path / "subs" / "untouched")
    grades = {g.student: g for g in grade.grade_all(tmp_path / "subs", course, echo=lambda *_: None)}
    assert grades["reference"].scores == pytest.approx(expected), grades["reference"]
    assert grades["untouched"].scores == {k: 0.0 for k in expected}, grades["untouched"]


def test_a_solved_workspace_holds_the_answers_without_markers(course, tmp_path):
    """solve_workspace (the samples, the bench, the tests' perfect students) fills each answer
    cell with the instructor's answer: valid Python with no solution markers, a function's
    body indented as it was."""
    solved = release.solve_workspace(release.make_workspace(course / "release" / "nano", tmp_path / "solved"))
    answered = 0
    for path in sorted(solved.glob("*.ipynb")):
        for cell in notebooks.load(path).cells:
            if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "code":
                assert BEGIN not in cell.source and END not in cell.source, (path.name, cell.source)
                ast.parse(cell.source)  # a SyntaxError names the cell's line
                answered += 1
    assert answered, "no answer cell found"
