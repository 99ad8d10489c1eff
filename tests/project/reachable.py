"""The test environment, where other Unix users can run it: for tests that run our commands as
separate users (test_exchange's nbgrader round trip).

The venv's Python, the venv and the repository may each sit in a folder other users cannot
enter: pyenv installs under /root (mode 700), and CI clones anywhere. `reachable_bin()` asks the
user `nobody` to run `nano-course --help`; when that fails, `venv_copy()` builds, for the test's
duration, a copy everyone can enter: a venv on a Python of the same minor version that others
can run, with this venv's files hard-linked (copied across file systems), its scripts pointed at
the copy's Python and the editable `autograder` at a copy of the repository's files. The copy
never writes into a file it linked: a file it changes is written anew beside the original.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from autograder.authoring import release

PLACES = ("/var/tmp", "/opt", "/tmp")  # where the copy may go; the one on the venv's disk first
LEFT_OUT = (".git", ".venv", "build", "workspace", "__pycache__", ".pytest_cache", "*.egg-info",
            ".ipynb_checkpoints")  # the repository's copy without git: what .gitignore leaves out


class Unreachable(Exception):
    """Other users cannot run the environment, and no copy they can run could be made."""


def runs_as_nobody(*argv) -> subprocess.CompletedProcess:
    return subprocess.run(["runuser", "-u", "nobody", "--", *map(str, argv)], cwd="/",
                          capture_output=True, text=True, timeout=120)


def _last_line(done: subprocess.CompletedProcess) -> str:
    return (done.stderr.strip().splitlines() or ["no reason given"])[-1]


@contextmanager
def reachable_bin() -> Iterator[Path]:
    """The `bin` folder of a venv that every user can run `nano-course` and `nbgrader` from:
    this one when it already is, else a copy (`venv_copy`)."""
    here = Path(sys.prefix) / "bin"
    reach = runs_as_nobody(here / "nano-course", "--help")
    if reach.returncode == 0:
        yield here
        return
    try:
        with venv_copy() as there:
            yield there
    except Unreachable as reason:
        raise Unreachable(f"other users cannot run {here / 'nano-course'} ({_last_line(reach)}), "
                          f"and {reason}") from None


@contextmanager
def venv_copy() -> Iterator[Path]:
    """The `bin` folder of a copy of this venv and repository that every user can run, made in
    a folder every user can enter and removed afterwards."""
    if sys.prefix == sys.base_prefix:
        raise Unreachable("the tests do not run in a venv that could be copied")
    python, version = _other_python()
    top = Path(tempfile.mkdtemp(prefix="nano-reachable-", dir=_place()))
    try:
        top.chmod(0o755)
        started = time.monotonic()
        repo, venv = top / "repo", top / "venv"
        _copy_repository(release.ROOT, repo)
        _copy_venv(Path(sys.prefix), venv, python, version, repo)
        reach = runs_as_nobody(venv / "bin" / "nano-course", "--help")
        if reach.returncode != 0:  # the copy is wrong: not a reason to skip
            raise RuntimeError(f"other users cannot run the venv's copy on {python} in {venv}: "
                               f"{_last_line(reach)}")
        print(f"running from a copy of the venv on {python} in {top} "
              f"(made in {time.monotonic() - started:.1f} s)")
        yield venv / "bin"
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _other_python() -> tuple[Path, str]:
    """A Python of our minor version that `nobody` can run, and its full version."""
    want = "%d.%d" % sys.version_info[:2]
    base = Path(getattr(sys, "_base_executable", sys.executable))
    found = [base, base.resolve(), Path(f"/usr/bin/python{want}"), Path(f"/usr/local/bin/python{want}"),
             shutil.which(f"python{want}", path="/usr/local/bin:/usr/bin:/bin")]
    tried = []
    for python in dict.fromkeys(Path(p) for p in found if p):
        if not python.is_file():
            continue
        said = runs_as_nobody(python, "--version")
        version = re.fullmatch(r"Python (\d+\.\d+)\.(\S+)", said.stdout.strip())
        if said.returncode == 0 and version and version[1] == want:
            return python, f"{version[1]}.{version[2]}"
        tried.append(f"{python} ({said.stdout.strip() or _last_line(said)})")
    raise Unreachable(f"no Python {want} they can run was found to copy it onto (tried "
                      f"{'; '.join(tried) or 'none'})")


def _place() -> Path:
    """A folder everyone can enter, on the venv's file system when one is (hard links work)."""
    open_to_all = [Path(p) for p in PLACES if Path(p).is_dir() and _enterable(Path(p))]
    if not open_to_all:
        raise Unreachable(f"none of {', '.join(PLACES)} is a folder they can enter to copy it to")
    disk = os.stat(sys.prefix).st_dev
    return next((p for p in open_to_all if p.stat().st_dev == disk), open_to_all[0])


def _enterable(folder: Path) -> bool:
    return all(p.stat().st_mode & 0o001 for p in (folder, *folder.parents))


def _copy_repository(root: Path, dest: Path) -> None:
    """The repository's files as they are now (tracked and new, not ignored), copied."""
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, text=True)
    if listed.returncode != 0:
        shutil.copytree(root, dest, ignore=shutil.ignore_patterns(*LEFT_OUT), symlinks=True)
        _open_up(dest)
        return
    venv = Path(sys.prefix).resolve()
    for name in filter(None, listed.stdout.split("\0")):
        source = root / name
        if not os.path.lexists(source) or source.resolve().is_relative_to(venv):
            continue  # deleted in the working tree, or a venv git does not ignore
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest / name, follow_symlinks=False)
    _open_up(dest)


def _open_up(tree: Path) -> None:
    """Every folder of `tree` 0755, every file readable by all (a copy keeps a private mode)."""
    for folder, _, files in os.walk(tree):
        os.chmod(folder, 0o755)
        for name in files:
            path = Path(folder, name)
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o444)


def _copy_venv(venv: Path, dest: Path, python: Path, version: str, repo: Path) -> None:
    """`venv` at `dest` on `python`: files linked, paths to the old venv and repository
    rewritten where they are followed (scripts, .pth files, the editable finder)."""
    moved = {}
    for old, new in ((venv, dest), (release.ROOT, repo)):  # the venv first: it may lie inside
        for form in dict.fromkeys((str(old), str(old.resolve()))):
            moved[form.encode()] = str(new).encode()
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    for folder, dirs, files in os.walk(venv):
        here = Path(folder)
        there = dest / here.relative_to(venv)
        there.mkdir(mode=0o755, exist_ok=True)
        there.chmod(0o755)
        for name in [d for d in dirs if (here / d).is_symlink()] + files:
            source, target = here / name, there / name
            if here == venv / "bin" and re.fullmatch(r"python[\d.]*", name) and (
                    not source.is_symlink() or os.path.isabs(os.readlink(source))):
                os.symlink(python, target)  # the interpreter itself, linked or copied (--copies)
            elif source.is_symlink():
                os.symlink(os.readlink(source), target)
            elif source == venv / "pyvenv.cfg":
                target.write_text(f"home = {python.parent}\ninclude-system-site-packages = false\n"
                                  f"version = {version}\nexecutable = {python.resolve()}\n")
            elif (data := _naming_paths(source, here, venv, site, moved)) is not None:
                for old, new in moved.items():
                    data = data.replace(old, new)
                target.write_bytes(data)
                target.chmod(source.stat().st_mode | 0o444)
            else:
                _link(source, target)
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]


def _naming_paths(file: Path, folder: Path, venv: Path, site: Path, moved: dict) -> bytes | None:
    """The bytes of `file` when they name the old paths and it is one Python or a shell follows
    them from (a script in bin, a .pth file or the editable finder in site-packages), else None."""
    if folder != venv / "bin" and (folder != site or file.suffix not in (".pth", ".py")):
        return None
    data = file.read_bytes()
    text = b"\0" not in data  # a program compiled into bin is left as it is
    return data if text and any(old in data for old in moved) else None


def _link(source: Path, target: Path) -> None:
    """`source` at `target`: a hard link when others may read it and the disk allows, else a copy."""
    if source.stat().st_mode & 0o004:
        try:
            os.link(source, target)
            return
        except OSError:
            pass  # another file system
    shutil.copy2(source, target)
    target.chmod(source.stat().st_mode | 0o444)
