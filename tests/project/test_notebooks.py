"""The lecture notebooks: built from their sources, stored clean, worth what COURSE.md says."""

import pytest

from autograder import notebooks
from autograder.check import check_lecture

POINTS = {"01": 1.0, "02": 1.5, "03": 1.5, "04": 1.5, "05": 2.5, "06": 2.0}
LECTURES = notebooks.LECTURES


def test_every_lecture_has_a_source_and_an_up_to_date_notebook():
    assert sorted(s.name[:2] for s in notebooks.sources()) == sorted(POINTS)
    assert notebooks.sync(check=True) == [], "run: nano-course notebooks"
    assert sorted(p.stem for p in LECTURES.glob("[0-9][0-9]-*.ipynb")) == \
        sorted(s.stem for s in notebooks.sources())


@pytest.mark.parametrize("number", sorted(POINTS))
def test_notebook_is_stored_clean_and_worth_its_points(number):
    path = next(LECTURES.glob(f"{number}-*.ipynb"))
    nb = notebooks.load(path)
    assert nb.metadata["kernelspec"]["name"] == "python3", "without a kernelspec Jupyter asks which kernel"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: stored with outputs"
    assert sum(notebooks.points(nb).values()) == pytest.approx(POINTS[number])
    assert "%autoreload 2" in nb.cells[[c.cell_type for c in nb.cells].index("code")].source


def test_builder_completes_short_nbgrader_metadata_and_rejects_bad_forms():
    test_cell = notebooks.nbgrader_metadata({"grade_id": "x", "points": 0.5}, "code")
    assert test_cell == {"grade_id": "x", "points": 0.5, "solution": False, "grade": True,
                         "locked": True, "task": False, "schema_version": 3}
    answer = notebooks.nbgrader_metadata({"grade_id": "a", "solution": True}, "code")
    assert answer["locked"] is False and answer["grade"] is False
    with pytest.raises(ValueError, match="grade_id"):
        notebooks.nbgrader_metadata({"points": 1}, "code")
    with pytest.raises(ValueError, match="no points"):
        notebooks.nbgrader_metadata({"grade_id": "b", "grade": True}, "code")


@pytest.mark.slow
@pytest.mark.parametrize("number", sorted(POINTS))
def test_lecture_runs_clean_on_the_reference_and_grades_nothing_on_the_stubs(number):
    lines = []
    assert check_lecture(number, echo=lines.append), "\n".join(lines)
