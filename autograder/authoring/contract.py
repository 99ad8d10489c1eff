"""docs/graded-behaviours.md: what each lecture grades and which named mistakes must cost points.

The page is derived, never edited by hand: `nano-course notebooks` writes it from the lecture
notebooks (each graded cell's points, its behaviour in words, its section) and the mutants
catalogue (the named mistakes, each of which must lose points in its own lecture and fail
`./ok NN`), and `nano-course notebooks --check` fails when it is out of date. It is what the
mutants, the alternatives and their tests rely on.
"""

from pathlib import Path

from autograder import notebook
from autograder.authoring import mutants, notebooks

PAGE = notebooks.ROOT / "docs" / "graded-behaviours.md"
HEADER = """# Graded behaviours and named mistakes

Written by `nano-course notebooks` from the lecture notebooks and
`autograder/authoring/mutants.py`; do not edit it by hand. Each graded cell is one rule a
student's code must keep; `./ok NN` runs its visible case and `nano-course grade` its hidden
ones (docs/grading.md). Each named mistake is one small edit of the reference solution: graded,
it must lose points in its own lecture and in no other, and fail `./ok NN` unless it is a wrong
answer in a notebook (tests/project/test_mutations.py, test_ok_mutants.py).
"""


def page(folder: Path = notebooks.LECTURES) -> str:
    """The text of docs/graded-behaviours.md."""
    parts = [HEADER]
    for source in notebooks.sources(folder):
        nb = notebook.load(folder / f"{source.stem}.ipynb")
        number = source.stem[:2]
        points = notebook.points(nb)
        rows = []
        for cell, section in zip(nb.cells, notebook.sections(nb)):
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade"):
                words = cell.metadata.get("nano", {}).get("behaviour") or meta["grade_id"].replace("_", " ")
                rows.append(f"| `{meta['grade_id']}` | {points[meta['grade_id']]:g} | {_cell(words)} | "
                            f"{_cell(section) or '-'} |")
        total = sum(points.values())
        parts.append(f"\n## Lecture {number}: {total:g} point{'' if total == 1 else 's'}\n\n"
                     "| graded cell | points | the behaviour | section |\n| --- | --- | --- | --- |\n"
                     + "\n".join(rows) + "\n")
        named = [m for m in [*mutants.MUTANTS, *mutants.MORE_MUTANTS] if m.lecture == number]
        if named:
            parts.append("\nNamed mistakes (`mutants.py`; * also in `MORE_MUTANTS`, graded when "
                         "`NANO_ALL_MUTANTS=1`):\n\n" + "\n".join(
                             f"- `{m.name}`{' *' if m in mutants.MORE_MUTANTS else ''}, in `{m.file}`"
                             for m in named) + "\n")
    return "".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def sync(check: bool = False) -> list[str]:
    """Write the page if it is out of date; with `check`, only say whether it is. Returns the
    page's path from the repository's root when it was (or would be) written."""
    text = page()
    if PAGE.exists() and PAGE.read_text(encoding="utf-8") == text:
        return []
    if not check:
        PAGE.write_text(text, encoding="utf-8")
    return [PAGE.relative_to(notebooks.ROOT).as_posix()]
