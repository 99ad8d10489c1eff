"""Reading a notebook file, and what its graded cells are worth.

The base of every part that reads a course's notebooks: the course's facts (course.py), the
independent check and the grader read a notebook through here, and the authoring part, which
writes them, adds the rest (authoring/notebooks.py).
"""

import re
from pathlib import Path

import nbformat


def load(path: Path) -> nbformat.NotebookNode:
    """The notebook at `path`, as nbformat version 4."""
    return nbformat.read(path, as_version=4)


def points(nb: nbformat.NotebookNode) -> dict[str, float]:
    """grade_id -> points of every graded cell in a notebook."""
    return {c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"])
            for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}


def sections(nb) -> list[str]:
    """The section each cell of a lecture notebook sits under, as a student finds it:
    "section 4, Sending the results back, and knowing when to stop" (the last `## N. Title`
    before it, or in it); "" before the first, and under a heading that is not numbered."""
    found, section = [], ""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                heading = re.match(r"## (\d+)\.\s+(.*)", line)
                if heading:
                    title = re.sub(r"(\s*\([^()]*\))+$", "", heading.group(2)).replace("`", "")
                    section = f"section {heading.group(1)}, {title.strip()}"
                elif line.startswith("## "):
                    section = ""
        found.append(section)
    return found
