"""Lecture notebooks: built from their readable MyST sources, and the shapes nbgrader needs.

`lectures/src/NN-name.md` is what authors write and review; `lectures/NN-name.ipynb` is derived
from it by `nano-course notebooks` (never edited by hand) and `--check` fails when the two
disagree. Cell metadata may use a short form of nbgrader's: `grade_id` plus `points` makes a
graded test cell, `grade_id` plus `solution: true` an answer cell; the rest is filled in here.
"""

import copy
from pathlib import Path
from typing import Any

import nbformat

from autograder.course import ROOT
from autograder.notebook import load, points  # noqa: F401 (read here, and as notebooks.load by the authoring modules)

LECTURES = ROOT / "lectures"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
REFERENCE_TAG = "reference"  # markdown cells for the instructor only; the release drops them


def nbgrader_metadata(short: dict[str, Any], cell_type: str) -> dict[str, Any]:
    """Complete nbgrader cell metadata from the short form an author writes."""
    meta = dict(short)
    if "grade_id" not in meta:
        raise ValueError(f"nbgrader metadata without a grade_id: {short}")
    meta.setdefault("solution", False)
    meta.setdefault("grade", "points" in meta)
    if meta["grade"] and "points" not in meta:
        raise ValueError(f"graded cell {meta['grade_id']!r} has no points")
    meta.setdefault("locked", not meta["solution"])
    meta.setdefault("task", False)
    meta["schema_version"] = 3
    if cell_type == "markdown" and meta["grade"] and not meta["solution"]:
        raise ValueError(f"markdown cell {meta['grade_id']!r}: a graded markdown cell must be an answer")
    return meta


def build(source: Path) -> nbformat.NotebookNode:
    """The notebook for one MyST source: no outputs, kernelspec set, nbgrader metadata complete."""
    import jupytext

    from autograder.check import behaviour

    nb = jupytext.read(source)
    behaviours = behaviour.lecture(source.name[:2])
    nb.metadata = {"kernelspec": dict(KERNELSPEC),
                   "language_info": {"name": "python", "pygments_lexer": "ipython3"}}
    seen: set[str] = set()
    for index, cell in enumerate(nb.cells):
        if "nbgrader" in cell.metadata:
            cell.metadata["nbgrader"] = nbgrader_metadata(cell.metadata["nbgrader"], cell.cell_type)
            grade_id = cell.metadata["nbgrader"]["grade_id"]
            if grade_id in seen:
                raise ValueError(f"{source.name}: grade_id {grade_id!r} is used twice")
            seen.add(grade_id)
            cell["id"] = grade_id.replace("_", "-")
            if behaviours and any(b.grade_id == grade_id for b in behaviours):
                cell.source = with_hidden_tests(cell.source, grade_id, source)
        else:
            cell["id"] = f"cell-{index:03d}"
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.validate(nb)
    return nb


def with_hidden_tests(visible: str, grade_id: str, source: Path) -> str:
    """A graded cell's source: what the author wrote, then nbgrader's hidden tests, which the
    release strips: a call of the cell's behaviours (autograder/check/behaviours/lNN.py), which
    holds none of their code (see behaviour.hidden_part)."""
    from autograder.check import behaviour

    if behaviour.HIDDEN[0] in visible:
        raise ValueError(f"{source.name}: {grade_id} has hidden tests of its own; its behaviours belong in "
                         f"autograder/check/behaviours/l{source.name[:2]}.py")
    return "\n".join([visible.rstrip(), behaviour.hidden_part(grade_id)])


def without_hidden_tests(source: str) -> str:
    """A graded cell's source without the hidden part made from its behaviours (see
    behaviour.hidden_part): what `nano-course grade` lets the kernel run, since it runs the
    behaviours outside it. Hidden tests an author wrote into a cell by hand stay."""
    from autograder.check import behaviour

    begin, end = behaviour.HIDDEN
    kept, rest = [], source
    while begin in rest and end in rest.split(begin, 1)[1]:
        before, after = rest.split(begin, 1)
        inside, rest = after.split(end, 1)
        kept.append(before.rstrip("\n") if behaviour.CALL in inside else before + begin + inside + end)
    return "".join(kept) + rest


def render(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb) + "\n"


def sources(folder: Path = LECTURES) -> list[Path]:
    return sorted((folder / "src").glob("[0-9][0-9]-*.md"))


def sync(folder: Path = LECTURES, check: bool = False) -> list[str]:
    """Write each lecture's .ipynb from its source; with `check`, only list those out of date."""
    stale = []
    for source in sources(folder):
        target = folder / f"{source.stem}.ipynb"
        text = render(build(source))
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            stale.append(target.name)
            if not check:
                target.write_text(text, encoding="utf-8")
    return stale


def strip_reference(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `nb` without the cells tagged for the instructor only."""
    out = copy.deepcopy(nb)
    out.cells = [c for c in out.cells if REFERENCE_TAG not in c.metadata.get("tags", [])]
    return out



def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = 120) -> list[str | None]:
    """Run `nb` in a fresh kernel in `cwd`, as nbgrader does (errors do not stop later cells).

    Returns, per cell, None if it ran clean (or is markdown), else the error's one-line summary.
    Demo cells see NANO_HEADLESS=1, so nothing waits for a click.
    """
    import os

    from nbclient import NotebookClient

    nb = copy.deepcopy(nb)
    previous = os.environ.get("NANO_HEADLESS")
    os.environ["NANO_HEADLESS"] = "1"
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(cwd)}}).execute()
    finally:
        if previous is None:
            os.environ.pop("NANO_HEADLESS", None)
        else:
            os.environ["NANO_HEADLESS"] = previous
    problems: list[str | None] = []
    for cell in nb.cells:
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        stderr = [o for o in cell.get("outputs", [])
                  if o.get("output_type") == "stream" and o.get("name") == "stderr"]
        if errors:
            problems.append(f"{errors[0]['ename']}: {errors[0]['evalue']}"[:200])
        elif stderr and cell.metadata.get("nbgrader", {}).get("grade"):
            problems.append("wrote to stderr (nbgrader scores such a cell 0): "
                            + "".join(o["text"] for o in stderr)[:150].replace("\n", " "))
        else:
            problems.append(None)
    return problems
