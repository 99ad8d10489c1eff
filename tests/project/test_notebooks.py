"""The lecture notebooks: built from their sources, stored clean, worth the points the README gives,
and every numbered section runs after a kernel restart with only the setup cells run first."""

import asyncio
import re
import shutil
from pathlib import Path

import pytest

from autograder.authoring import contract, notebooks, release
from autograder.authoring.audit import check_lecture

POINTS = {"01": 1.0, "02": 1.5, "03": 1.5, "04": 1.5, "05": 2.5, "06": 2.0}
LECTURES = notebooks.LECTURES


def test_every_lecture_has_a_source_and_an_up_to_date_notebook():
    assert sorted(s.name[:2] for s in notebooks.sources()) == sorted(POINTS)
    assert notebooks.sync(check=True) == [], "run: nano-course notebooks"
    assert contract.sync(check=True) == [], "run: nano-course notebooks (docs/graded-behaviours.md)"
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
    assert "%load_ext autoreload" in nb.cells[[c.cell_type for c in nb.cells].index("code")].source


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
@pytest.mark.parametrize("number", [n for n in sorted(POINTS) if n != "02"])  # 02: the test below
def test_lecture_runs_clean_on_the_reference_and_grades_nothing_on_the_stubs(number):
    lines = []
    assert check_lecture(number, echo=lines.append), "\n".join(lines)


@pytest.mark.slow
def test_lecture_check_passes_for_02_under_nbval():
    """Does `nano-course check 02` run the instructor's notebook with nbval, every graded cell
    clean on the reference and failing on the stubs?"""
    lines = []
    assert check_lecture("02", echo=lines.append), "\n".join(lines)
    assert "(pytest --nbval-lax)" in lines[0]
    rows = [line.split() for line in lines if line.strip().startswith("l02_")]
    assert len(rows) == 12 and all(row[2:] == ["ok", "fails", "(good)"] for row in rows), lines


def copy_of_the_course_sources(dest: Path) -> Path:
    """What `check_lecture` reads from a repository: the lectures, nano/, fixtures, the visible
    checks and ok."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", "submissions")
    for folder in ("lectures", "nano", "fixtures"):
        shutil.copytree(notebooks.ROOT / folder, dest / folder, ignore=skip)
    shutil.copytree(notebooks.ROOT / "checks", dest / "checks", ignore=skip)
    for name in ("ok", "pyproject.toml"):
        shutil.copy2(notebooks.ROOT / name, dest / name)
    return dest


@pytest.mark.slow
def test_lecture_check_names_the_cell_a_broken_reference_fails(tmp_path):
    """When the reference solution is wrong, does the check fail naming the graded cell and the
    error? And does a graded cell that writes to stderr fail it too (nbgrader scores it 0)?"""
    root = copy_of_the_course_sources(tmp_path / "repo")
    tools = root / "nano" / "tools.py"
    source = tools.read_text()
    unsorted = source.replace("for entry in folder.iterdir())", "for entry in folder.iterdir())[::-1]", 1)
    assert unsorted != source
    tools.write_text(unsorted)
    lecture = next((root / "lectures" / "src").glob("02-*.md"))
    text = lecture.read_text()
    at = text.index("\n\n", text.index('"grade_id": "l02_read_file_returns_text"')) + 2  # the cell's code
    lecture.write_text(text[:at] + "import sys\nprint('reading', file=sys.stderr)\n" + text[at:])
    lines = []
    assert not check_lecture("02", root=root, echo=lines.append)
    said = "\n".join(lines)
    assert re.search(r"FAIL  reference: cell \d+ \(l02-list-files-sorted-names\): AssertionError", said), said
    assert re.search(r"FAIL  reference: cell \d+ \(l02-read-file-returns-text\): wrote to stderr "
                     r"\(nbgrader scores such a cell 0\): reading", said), said
    rows = {line.split()[0]: line.split()[2] for line in lines if line.strip().startswith("l02_")}
    assert rows["l02_list_files_sorted_names"] == rows["l02_read_file_returns_text"] == "FAILS"
    assert rows["l02_run_tool_dispatches"] == "ok"
    assert said.endswith("lecture 02: problems above")


def source(number: str):
    return next(s for s in notebooks.sources() if s.name.startswith(f"{number}-"))


HEADING = re.compile(r"^## (?:(\d+)\.)?(.*)$", re.M)
STARTUP = release.STUDENT_TEMPLATES / "startup.py"  # what a workspace's kernel runs when it starts


def sections(nb) -> tuple[list[int], dict[str, list[int]]]:
    """The setup cell (the first code cell, which a workspace's kernel does again itself when it
    starts) and, per `##` section, its code cells: "section N" for a numbered one, its title for
    another one that holds code ("Before you start"). Code before the first `##` heading, after
    the setup cell, is a section of its own, "the opening".
    """
    setup: list[int] = []
    found: dict[str, list[int]] = {}
    current = "the opening"
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for heading in HEADING.finditer(cell.source):
                number, title = heading.groups()
                current = f"section {number}" if number else title.strip()
        elif cell.cell_type == "code":
            if not setup:
                setup.append(index)
            else:
                found.setdefault(current, []).append(index)
    return setup, found


async def run_in_restarted_kernels(nb, groups: dict[str, list[int]],
                                   startup: Path | None = None) -> dict[str, list[tuple]]:
    """Run each group of cells in one kernel, restarted before each group; per group, the errors
    its cells raised, as (cell index, exception name, message). With `startup`, the kernel runs
    that file first each time it starts, as a workspace's kernel runs its startup.py."""
    from nbclient import NotebookClient

    extra = [f"--IPKernelApp.exec_files={[str(startup)]}"] if startup else []
    client = NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                            extra_arguments=extra,
                            resources={"metadata": {"path": str(notebooks.LECTURES)}})
    errors: dict[str, list[tuple]] = {}
    async with client.async_setup_kernel():
        for name, cells in groups.items():
            await client.km.restart_kernel(now=True)
            await client.kc.wait_for_ready(timeout=60)
            errors[name] = []
            for index in cells:
                cell = nb.cells[index]
                cell.outputs = []
                await client.async_execute_cell(cell, index)
                errors[name] += [(index, out.ename, out.evalue)
                                 for out in cell.outputs if out.output_type == "error"]
    return errors


def test_sections_are_found_with_their_setup_cell():
    nb = notebooks.build(source("01"))
    setup, found = sections(nb)
    assert len(setup) == 1 and "%load_ext autoreload" in nb.cells[setup[0]].source
    assert [name for name in found if name.startswith("section")] == [f"section {n}" for n in range(1, 9)]
    assert "Before you start: setting up, and running `./ok 00`" in found
    assert all(found.values()), "every section of lecture 01 found has code"


@pytest.mark.slow
@pytest.mark.parametrize("number", sorted(POINTS))
def test_every_section_runs_after_a_restart(number, monkeypatch):
    """A student who restarts the workspace's kernel (which runs startup.py, as the lecture's first
    cell would) and jumps to any section, the unnumbered ones with code included, runs it without
    a NameError for an import or a value made in another section (against the reference)."""
    monkeypatch.setenv("NANO_HEADLESS", "1")
    nb = notebooks.build(source(number))
    _, found = sections(nb)
    errors = asyncio.run(run_in_restarted_kernels(nb, found, startup=STARTUP))
    print(f"lecture {number}: {len(found)} sections run alone after a restart: "
          + ", ".join(f"{name} ({len(cells)} cells, {'ok' if not errors[name] else 'FAILED'})"
                      for name, cells in found.items()))
    assert not any(errors.values()), "\n".join(
        f"{name}: cell {index} ({nb.cells[index].get('id')}): {ename}: {evalue}"[:300]
        for name, found in errors.items() for index, ename, evalue in found)


QUESTION = re.compile(r"^l\d\d_q(\d+)_")
UNANSWERED = re.compile(r"^question (\d+) was not answered: run your answer cell for question \1 first"
                        r".*\(section \d+")


@pytest.mark.slow
@pytest.mark.parametrize("number", ["01", "02", "05"])
def test_an_unanswered_question_says_so_and_names_its_section(number):
    """The check cell of a question whose answer cell never ran says which question and which
    section, instead of a bare NameError."""
    nb = notebooks.build(source(number))
    setup, _ = sections(nb)
    checks = {index: QUESTION.match(cell.metadata["nbgrader"]["grade_id"]).group(1)
              for index, cell in enumerate(nb.cells)
              if cell.metadata.get("nbgrader", {}).get("grade")
              and QUESTION.match(cell.metadata["nbgrader"]["grade_id"])}
    assert len(checks) >= 2
    errors = asyncio.run(run_in_restarted_kernels(nb, {"checks only": setup + sorted(checks)}))["checks only"]
    said = {index: (ename, evalue) for index, ename, evalue in errors}
    assert sorted(said) == sorted(checks), f"every check cell must fail when unanswered: {said}"
    for index, question in checks.items():
        ename, evalue = said[index]
        found = UNANSWERED.match(evalue)
        assert ename == "AssertionError" and found and found.group(1) == question, (index, ename, evalue)
