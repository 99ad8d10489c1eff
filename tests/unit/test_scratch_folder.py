"""The driver's reader of a scratch folder (driver.Folder), fed folders of every shape student code
can leave: deep and broad, names of any bytes (not UTF-8, newlines, backslashes, 255 bytes),
FIFOs, sockets, sparse files of a terabyte, hard links, symbolic links to anywhere and in loops,
folders no one may read. Whatever the shape, `names`, `read` and `text` give only what they say
they give (a sorted list of names that encode as UTF-8, bytes within the bound, text, or None)
and never raise: a name that cannot be written would fail the record, the page or the log.
"""

import contextlib
import os
import socket
import stat
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checks.folder import Folder, escaped

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)

# A name: any bytes but "/" and NUL, at most 255 of them; "." and ".." are not names.
NAMES = st.binary(min_size=1, max_size=255).map(lambda b: b.replace(b"/", b"_").replace(b"\0", b"_")) \
    .filter(lambda b: b not in (b".", b"..")) | st.sampled_from([b"odd\xffname", b"a\nb", b"\\xff", b"caf\xc3\xa9",
                                                                  b"\xed\xa0\x80", b"x" * 255, b"-", b" "])
LEAVES = st.one_of(
    st.tuples(st.just("file"), st.binary(max_size=64)),
    st.tuples(st.just("sparse"), st.sampled_from([1 << 20, 1 << 33, 1 << 40])),
    st.tuples(st.just("fifo")),
    st.tuples(st.just("socket")),
    st.tuples(st.just("symlink"), st.sampled_from([b"/", b"/etc/passwd", b"..", b"../..", b".", b"nowhere", b"loop"])),
    st.tuples(st.just("hardlink")),
)
TREES = st.recursive(LEAVES, lambda inner: st.tuples(st.just("folder"), st.dictionaries(NAMES, inner, max_size=5),
                                                     st.sampled_from([0o755, 0o000, 0o111, 0o222])), max_leaves=20)


def build(fd: int, tree: dict, made: list[bytes], prefix: bytes = b"") -> None:
    """Make `tree` ({name: node}) in the folder `fd`; `made` collects each path."""
    for name, node in tree.items():
        kind, path = node[0], prefix + name
        made.append(path)
        if kind == "file":
            out = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(out, node[1])
            os.close(out)
        elif kind == "sparse":
            out = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.ftruncate(out, node[1])
            os.close(out)
        elif kind == "fifo":
            os.mkfifo(name, dir_fd=fd)
        elif kind == "socket":
            with socket.socket(socket.AF_UNIX) as listener, contextlib.suppress(OSError):  # sun_path: 108 bytes
                listener.bind(f"/proc/self/fd/{fd}/".encode() + name)
        elif kind == "symlink":
            os.symlink(name if node[1] == b"loop" else node[1], name, dir_fd=fd)
        elif kind == "hardlink":
            first = next((p for p in made[:-1] if b"/" not in p), None)
            if first is None or not os.path.isfile(f"/proc/self/fd/{fd}/".encode() + first):
                os.mkfifo(name, dir_fd=fd)
            else:
                with contextlib.suppress(OSError):
                    os.link(first, name, src_dir_fd=fd, dst_dir_fd=fd, follow_symlinks=False)
        else:
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            try:
                build(inner, node[1], made, path + b"/")
            finally:
                os.close(inner)
            os.chmod(name, node[2], dir_fd=fd)


@contextlib.contextmanager
def scratch():
    """A Folder as a Subject makes one, in a temporary parent folder."""
    with tempfile.TemporaryDirectory(prefix="nano-fuzz-") as parent:
        parent_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
        folder = Folder.make(parent_fd, Path(parent), None)
        try:
            yield folder
        finally:
            folder.close()
            os.close(parent_fd)
            for root, folders, _ in os.walk(parent):  # put back what a node took away, for the removal
                for name in folders:
                    os.chmod(os.path.join(root, name), 0o755)


def writable(text) -> bool:
    """Whether `text` is a str that UTF-8 can encode (none of os.fsdecode's lone surrogates)."""
    try:
        return isinstance(text, str) and isinstance(text.encode("utf-8"), bytes)
    except UnicodeEncodeError:
        return False


def only_defined(folder: Folder, path: str) -> None:
    names = folder.names(path)
    assert names is None or (isinstance(names, list) and names == sorted(names) and all(map(writable, names)))
    data = folder.read(path)
    assert data is None or (isinstance(data, bytes) and len(data) <= 4_000_000)
    small = folder.read(path, limit=10)
    assert small is None or len(small) <= 10
    text = folder.text(path)
    assert text is None or writable(text)


@SETTINGS
@given(tree=st.dictionaries(NAMES, TREES, max_size=6), extra=st.lists(st.text(max_size=20), max_size=4))
def test_the_reader_gives_only_its_outcomes_whatever_the_folder_holds(tree, extra):
    with scratch() as folder:
        made: list[bytes] = []
        build(folder.fd, tree, made)
        for path in made:
            only_defined(folder, os.fsdecode(path))
            only_defined(folder, os.fsdecode(path) + "/")
        for path in ["", ".", "..", "../..", "a\0b", "x" * 5000, "/".join(["deep"] * 2000), *extra]:
            only_defined(folder, path)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(depth=st.integers(1, 600), breadth=st.integers(0, 40))
def test_deep_and_broad_folders_are_read_without_raising(depth, breadth):
    with scratch() as folder:
        fd = os.dup(folder.fd)
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        for n in range(breadth):
            os.close(os.open(f"f{n}".encode() + b"\xff", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
        os.close(fd)
        bottom = "/".join(["d"] * depth)
        names = folder.names(bottom)
        assert names == sorted(f"f{n}\\xff" for n in range(breadth))
        assert folder.names(bottom, limit=breadth) == names
        assert folder.names(bottom, limit=breadth - 1) is None if breadth else folder.names(bottom, limit=0) == []
        only_defined(folder, bottom)


def test_a_name_with_a_byte_that_is_not_utf8_comes_back_escaped_and_writable():
    with scratch() as folder:
        os.close(os.open(b"odd\xffname", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder.fd))
        os.mkfifo(b"pipe\xfe", dir_fd=folder.fd)
        assert folder.names() == ["odd\\xffname", "pipe\\xfe"]
        assert writable("\n".join(folder.names()))
        assert folder.read("odd\\xffname") is None, "an escaped name is a name for the record, not a path"
        assert folder.read("pipe\\xfe") is None
    assert escaped("caf\u00e9 \\xff") == "caf\u00e9 \\xff" and escaped(os.fsdecode(b"\xed\xa0\x80")) == "\\xed\\xa0\\x80"


def test_what_is_not_a_regular_file_reads_as_none():
    with scratch() as folder:
        os.mkfifo("pipe", dir_fd=folder.fd)
        os.symlink("/etc/hostname", "link", dir_fd=folder.fd)
        os.symlink("loop", "loop", dir_fd=folder.fd)
        os.mkdir("inner", dir_fd=folder.fd)
        out = os.open("huge", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder.fd)
        os.ftruncate(out, 1 << 40)
        os.close(out)
        assert [folder.read(name) for name in ("pipe", "link", "loop", "inner", "loop/x", "missing")] == [None] * 6
        assert folder.read("huge") == bytes(4_000_000) and stat.S_ISREG(os.stat(f"/proc/self/fd/{folder.fd}/huge").st_mode)
        assert folder.names("loop") is None and folder.names("link") is None and folder.names("inner") == []
