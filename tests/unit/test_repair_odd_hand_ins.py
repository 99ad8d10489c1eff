"""The repairs before grading take whatever a hand-in's files hold as the hand-in's: a nano/*.py
nested too deeply for Python to compile does not parse, and nbgrader metadata of odd types is an
edited cell, never an exception the grader is blamed for."""

import re

import nbformat

from autograder.authoring import release
from autograder.grading import grade


def stubbed(tmp_path):
    """(release, hand-in) folders whose nano/*.py are all the same one-line stub."""
    given, work = tmp_path / "release", tmp_path / "work"
    for name in release.STUDENT_FILES:
        for folder in (given, work):
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text("x = 1\n")
    return given, work


def test_a_nano_file_nested_too_deeply_to_compile_does_not_parse(tmp_path):
    given, work = stubbed(tmp_path)
    (work / "nano" / "tools.py").write_text("x = " + "-" * 100_000 + "1\n")
    (work / "nano" / "gate.py").write_text("x = 1" + "+1" * 1_000_000 + "\n")
    said = [str(p) for p in grade.repair(work, given)]
    assert [line.split(" (")[0] for line in said] == ["nano/tools.py does not parse", "nano/gate.py does not parse"]
    assert all("nested too deeply for Python to read" in line for line in said)
    assert (work / "nano" / "tools.py").read_text() == "x = 1\n", "graded as its stub"


def notebook(*metadata) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"assert {i}", id=f"cell-{i}", metadata=m) for i, m in enumerate(metadata)]
    return nb


def test_nbgrader_metadata_of_odd_types_is_an_edited_cell(tmp_path):
    test = {"grade": True, "solution": False, "grade_id": "t0", "points": 1, "locked": True}
    other = {"grade": True, "solution": False, "grade_id": "t1", "points": 1, "locked": True}
    released = notebook({"nbgrader": test}, {"nbgrader": other}, {})
    mine = notebook({"nbgrader": "not a dict"}, {"nbgrader": {**other, "grade_id": ["t1"]}}, {"nbgrader": 7})
    changed, said = grade.restore_test_cells(mine, released)
    assert changed
    assert [cell.metadata.get("nbgrader") for cell in mine.cells] == [test, other, None]
    assert said == [("t0", "cell t0 had its nbgrader metadata edited (restored)"),
                    ("t1", "cell t1 had its nbgrader metadata edited (restored)")]


def test_a_notebook_of_too_many_json_values_is_not_loaded_but_scores_0(tmp_path):
    given, work = stubbed(tmp_path)
    nbformat.write(notebook({}), given / "01-shape-of-an-agent.ipynb")
    fat = notebook({"junk": [[] for _ in range(grade.limits.MAX_NOTEBOOK_VALUES)]})
    (work / "01-shape-of-an-agent.ipynb").write_text(nbformat.writes(fat))
    [said] = [str(p) for p in grade.repair(work, given)]
    assert re.fullmatch(r"01: 01-shape-of-an-agent.ipynb is not a readable notebook \([\d,]+ JSON values, more than "
                        r"the limit of 500,000\): scores 0", said)
    assert not (work / "01-shape-of-an-agent.ipynb").exists()


def test_json_values_are_counted_outside_strings_escapes_and_all():
    assert grade.json_values(b'{"a": [1, 2, {"b": "x,[{\\\\"}]}', 100) == 6
    assert grade.json_values(b'["a\\\\", ",", "\\"[,"]', 100) == 4, "the list and its three strings"
    assert grade.json_values(b'["", "", ""]', 1) == 3, "past the limit, the strings alone"
