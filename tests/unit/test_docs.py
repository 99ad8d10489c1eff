"""The README and docs/ name files and folders of this repository: each one they name exists.

A path is read where the text writes one from the repository's root (`autograder/...`,
`tests/...`, `nano/...` and the other top folders), with a file name or a trailing slash;
patterns (`lNN.py`, `<student_id>`, `*.ipynb`) and the course folder's own paths (`COURSE/...`,
a workspace's `nano/feedback/...`) are not this repository's files and are left alone.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP = ("autograder", "tests", "nano", "docs", "fixtures", "lectures", "checks")
PATH = re.compile(rf"(?<![\w/.$-])((?:{'|'.join(TOP)})/[A-Za-z0-9_./-]*[A-Za-z0-9_/])")
PATTERN = re.compile(r"NN|<|\*|\.\.\.")


def cited(text: str) -> set[str]:
    """The repository paths a page names, patterns left out."""
    found = set()
    for match in PATH.finditer(text):
        path = match.group(1)
        after = text[match.end():match.end() + 1]
        if PATTERN.search(path) or after in ("<", "*") or path.startswith("nano/.venv") or "/feedback" in path:
            continue
        found.add(path.rstrip("/"))
    return found


def test_every_path_the_docs_name_exists():
    missing = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for path in sorted(cited(page.read_text(encoding="utf-8"))):
            if not (ROOT / path).exists():
                missing.append(f"{page.relative_to(ROOT)}: {path}")
    assert not missing, "\n".join(missing)


def test_a_missing_path_would_be_found():
    assert cited("see `autograder/grading/records.py` and checks/lNN.py") == {"autograder/grading/records.py"}
    assert cited("COURSE/feedback/<student_id>/index.html, and nano/feedback/<time>/") == set()
