"""autograder/trees.py: trees student code may leave, walked, bounded and removed without recursion."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import trees

DEEP = 1_400  # past Python's recursion limit (1,000), and past PATH_MAX with these names


def chain(top, levels: int, name: str = "d" * 40) -> None:
    """`levels` nested folders under `top`, made by fd (the path is soon past PATH_MAX)."""
    top.mkdir(exist_ok=True)
    folder = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        os.mkdir(name, dir_fd=folder)
        inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
        os.close(folder)
        folder = inner
    os.close(os.open("last.txt", os.O_WRONLY | os.O_CREAT, dir_fd=folder))
    os.close(folder)


def test_remove_takes_a_tree_deeper_than_recursion_and_path_max(tmp_path):
    chain(tmp_path / "deep", DEEP)
    assert DEEP * 41 > os.pathconf(tmp_path, "PC_PATH_MAX")
    trees.remove(tmp_path / "deep")
    assert not (tmp_path / "deep").exists()
    assert os.listdir(tmp_path) == []  # nothing moved aside is left behind


def test_remove_takes_folders_of_any_mode_and_never_follows_a_link(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept.txt").write_text("mine")
    tree = tmp_path / "tree"
    (tree / "locked" / "inner").mkdir(parents=True)
    (tree / "locked" / "inner" / "f").write_text("x")
    (tree / "link").symlink_to(outside, target_is_directory=True)
    (tree / "locked" / "link").symlink_to(outside / "kept.txt")
    os.mkfifo(tree / "fifo")
    os.chmod(tree / "locked" / "inner", 0)
    os.chmod(tree / "locked", 0)
    trees.remove(tree)
    assert not tree.exists()
    assert (outside / "kept.txt").read_text() == "mine"


def test_remove_of_what_is_not_there_or_a_file_or_a_link(tmp_path):
    trees.remove(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    trees.remove(tmp_path / "link")
    assert (tmp_path / "file").exists()
    trees.remove(tmp_path / "file")
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a folder it cannot remove")
def test_remove_never_raises_and_stops_on_what_it_cannot_remove(tmp_path):
    tree = tmp_path / "tree"
    (tree / "a").mkdir(parents=True)
    (tree / "b").mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(tree / "a")], check=True)
    try:
        trees.remove(tree)  # a mount point cannot be removed (EBUSY): the rest goes, nothing raises
        assert sorted(os.listdir(tree)) == ["a"]
    finally:
        subprocess.run(["umount", str(tree / "a")], check=True)
    trees.remove(tree)
    assert not tree.exists()


def test_walk_stops_at_the_depth_bound_and_bound_removes_what_lies_past(tmp_path):
    chain(tmp_path / "deep", DEEP, name="d")
    (tmp_path / "deep" / "top.txt").write_text("x")
    seen = []
    passed = trees.walk(tmp_path / "deep", lambda e: seen.append(e.depth), trees.Bounds(depth=10))
    assert passed == "folders nested more than 10 deep"
    assert max(seen) == 10 and len(seen) == 11  # ten folders and top.txt
    assert trees.bound(tmp_path / "deep", bounds=trees.Bounds(depth=10)) == passed
    assert trees.walk(tmp_path / "deep", lambda e: None, trees.Bounds(depth=10)) is None
    count = []
    trees.walk(tmp_path / "deep", count.append, trees.Bounds(depth=10_000))
    assert len(count) == 11


def test_bound_keeps_the_first_entries_in_order_and_removes_the_rest(tmp_path):
    for i in range(30):
        (tmp_path / f"f{i:02}").write_text("x")
    (tmp_path / "z").mkdir()
    (tmp_path / "z" / "inner").write_text("x")
    assert trees.bound(tmp_path, bounds=trees.Bounds(entries=20)) == "more than 20 files and folders"
    assert sorted(os.listdir(tmp_path)) == [f"f{i:02}" for i in range(20)]


def test_walk_does_not_follow_links_and_sees_odd_names(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "inside").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    odd = os.fsdecode(b"odd\xffname")
    (tmp_path / odd).write_text("x")
    seen = []
    assert trees.walk(tmp_path, lambda e: seen.append(e.name)) is None
    assert sorted(seen) == sorted(["real", "inside", "link", "loop", odd])


def test_walk_of_a_folder_it_cannot_read_or_that_is_missing(tmp_path):
    assert trees.walk(tmp_path / "missing", lambda e: None) is None
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "f").write_text("x")
    os.chmod(tmp_path / "locked", 0)
    seen = []
    trees.walk(tmp_path, lambda e: seen.append(e.name))
    assert "locked" in seen
    os.chmod(tmp_path / "locked", 0o700)


def test_copy_takes_only_what_is_wanted_and_no_link(tmp_path):
    source = tmp_path / "source"
    (source / "a" / "b").mkdir(parents=True)
    (source / "a" / "b" / "kept.txt").write_text("kept")
    (source / "a" / "junk.bin").write_bytes(b"x" * 10)
    (source / "a" / "b" / "link").symlink_to("/etc/passwd")
    (source / "other").mkdir()
    (source / "other" / "f").write_text("x")
    wanted = {("a",), ("a", "b"), ("a", "b", "kept.txt"), ("a", "b", "link"), ("other", "f")}
    (tmp_path / "into").mkdir()
    into = os.open(tmp_path / "into", os.O_RDONLY | os.O_DIRECTORY)
    try:
        trees.copy(source, into, wanted.__contains__)
    finally:
        os.close(into)
    found = sorted(str(p.relative_to(tmp_path / "into")) for p in (tmp_path / "into").rglob("*"))
    assert found == ["a", "a/b", "a/b/kept.txt"]
    assert (tmp_path / "into" / "a" / "b" / "kept.txt").read_text() == "kept"




@pytest.mark.skipif(os.geteuid() != 0, reason="a tmpfs of its own needs root")
def test_a_bounded_folder_stops_writes_at_its_size_and_leaves_nothing_on_the_disk(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    code = (Path(__file__).parent / "payloads" / "bounded_folder.py").read_text()
    done = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True,
                          cwd=trees.__file__.rsplit("/autograder/", 1)[0])
    assert done.returncode == 0, done.stderr
    assert "stopped 28 6" in done.stdout  # ENOSPC after two files of 3 MB in 8 MB
    assert "room True 1" in done.stdout  # room for 1 MB more; the mount is in that process's namespace
    assert os.listdir(folder) == []  # nothing reached the disk, and the mount went with the process
    assert str(folder) not in open("/proc/self/mountinfo").read()
