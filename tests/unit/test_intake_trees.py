"""A hand-in's own tree, as handed in (a folder, nbgrader's submitted/, a zip), is taken in
without recursion and within bounds: a tree nested past the bounds is refused in one sentence,
names that are not UTF-8 are said escaped, junk folders are neither copied nor counted."""

import os
import zipfile
from pathlib import Path

import pytest

from autograder import trees
from autograder.grading import intake
from autograder.limits import TREE_DEPTH


def workspace(folder: Path) -> Path:
    (folder / "nano").mkdir(parents=True)
    (folder / "nano" / "tools.py").write_text("def read_file(path):\n    return ''\n")
    (folder / "01-shape-of-an-agent.ipynb").write_text("{}")
    return folder


def nest(folder: Path, levels: int) -> None:
    """`levels` folders, one inside the other, made through open folders (deeper than PATH_MAX)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


def test_a_folder_nested_past_the_bounds_is_refused_in_one_sentence_and_nothing_is_copied(tmp_path):
    src = workspace(tmp_path / "alice")
    nest(src, 1_400)
    dest = tmp_path / "course" / "submitted" / "alice" / "nano"
    with pytest.raises(intake.IntakeError) as refused:
        intake.stage(intake.HandIn("alice", src), dest)
    assert str(refused.value) == (f"holds folders nested more than {TREE_DEPTH} deep: not graded; hand in the "
                                  "workspace without them")
    assert not dest.exists()
    trees.remove(src)
    assert not src.exists()


def test_a_zip_that_nests_past_the_bounds_is_refused(tmp_path):
    archive = tmp_path / "alice.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("nano/tools.py", "")
        zf.writestr("01-shape-of-an-agent.ipynb", "{}")
        zf.writestr("d/" * (TREE_DEPTH + 2) + "deep.txt", "x")  # unpacked, and refused when copied
    with pytest.raises(intake.IntakeError, match=f"^holds folders nested more than {TREE_DEPTH} deep"):
        intake.stage(intake.HandIn("alice", archive), tmp_path / "course" / "submitted" / "alice" / "nano")
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("nano/tools.py", "")
        zf.writestr("d/" * 2_000 + "deep.txt", "x")  # deeper than PATH_MAX: refused before unpacking
    with pytest.raises(intake.IntakeError, match=f"^alice.zip refused: it holds folders nested more than {TREE_DEPTH}"):
        intake.stage(intake.HandIn("alice", archive), tmp_path / "course" / "submitted" / "alice" / "nano")


def test_junk_folders_are_not_counted_and_odd_names_are_said_escaped(tmp_path):
    src = workspace(tmp_path / "bob")
    venv = src / ".venv" / "lib"
    venv.mkdir(parents=True)
    for number in range(intake.MAX_FILES + 10):  # a virtual environment handed in by mistake
        (venv / f"{number}.py").write_text("")
    os.symlink(b"/etc/passwd", os.path.join(os.fsencode(src / "nano"), b"odd\xffname"))
    dest = tmp_path / "copy"
    notes = intake.copy_clean(src, dest)
    assert notes == ["ignored symbolic link nano/odd\\xffname"]
    assert "\udcff" not in "".join(notes)
    found = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*"))
    assert found == ["01-shape-of-an-agent.ipynb", "nano", "nano/tools.py"]
