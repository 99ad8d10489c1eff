"""The sample class in fixtures/submissions: one hand-in of each kind a grader meets, and its grades.

`nano-course samples` writes them from the current release; `--check` (and a test) says whether
the committed ones still match, so they never drift from the lectures. Each folder hand-in holds
what matters to the grader, the six notebooks and the student's nano/*.py (everything else is
restored from the course at grading). `expected.csv` holds the grades each must get, worked out
from the points in the release and the behaviours each sample is built to lose, and a fragment
of the problem the grader must report.
"""

import csv
import io
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from autograder.authoring import notebooks, release

ROOT = release.ROOT
DEST = ROOT / "fixtures" / "submissions"
ALL = "all"
ZIP_TIME = (2026, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Sample:
    """One hand-in: how it is made from the release, and what it must score."""

    student: str
    about: str
    lost: dict[str, object] = field(default_factory=dict)  # lecture -> ALL or grade_id prefixes
    problem: str = ""  # a fragment of the problem the grader must report
    graded: bool = True


SAMPLES = [
    Sample("perfect", "the reference solution, every answer right"),
    Sample("untouched", "the release as given: every function still a stub",
           lost={n: ALL for n in ("01", "02", "03", "04", "05", "06")}),
    Sample("partial", "lectures 01 to 03 done, 04 to 06 not started",
           lost={"04": ALL, "05": ALL, "06": ALL}),
    Sample("bad-json", "02's notebook cut short: not valid JSON", lost={"02": ALL},
           problem="02: 02-tools-that-read.ipynb is not a readable notebook"),
    Sample("missing-notebook", "06's notebook deleted", lost={"06": ALL},
           problem="06: notebook 06-repl.ipynb missing"),
    Sample("missing-py", "nano/gate.py deleted: graded as the stub, so only 04 loses",
           lost={"04": ALL}, problem="nano/gate.py missing"),
    Sample("broken-py", "nano/repl.py does not parse: graded as the stub, so only 06 loses",
           lost={"06": ALL}, problem="nano/repl.py does not parse"),
    Sample("edited-cells", "write_file counts bytes; the test cell that catches it deleted, "
           "another one edited to pass: both are put back", lost={"03": ["l03_write_file_confirmation"]},
           problem="test cell l03_write_file_confirmation deleted"),
    Sample("runs-forever", "warmup() never returns: its cells are interrupted at the time limit",
           lost={"01": ["l01_warmup"]}, problem="ran past the"),
    Sample("kernel-dies", "confirm() calls os._exit: the kernel dies in each confirm test",
           lost={"04": ["l04_confirm"]}, problem="the kernel died"),
    Sample("zipped", "a perfect workspace as zipped/nano-workspace/ inside zipped.zip, with "
           "__MACOSX and .ipynb_checkpoints"),
    Sample("zip-bomb", "a zip holding 20 MB of zeros in 20 kB", graded=False, problem="zip bomb"),
    Sample("zip-escape", "a zip member named ../../escaped.py", graded=False,
           problem="path traversal"),
    Sample("not a valid id", "a folder whose name is not a student id", graded=False,
           problem="not a valid student id"),
    Sample("twin", "twin/ and twin.zip both hand in for one student", graded=False,
           problem="duplicate"),
]


def replace_once(path: Path, old: str, new: str) -> None:
    """Replace the one occurrence of `old` in `path`; fail loudly if the reference changed."""
    text = path.read_text(encoding="utf-8")
    if text.count(old) != 1:
        raise RuntimeError(f"{path.name}: expected exactly one {old!r} (did the reference change?)")
    path.write_text(text.replace(old, new), encoding="utf-8")


def _workspace(release_dir: Path, dest: Path, solved: bool) -> Path:
    """What a student hands in, trimmed to what the grader reads: notebooks and nano/*.py."""
    dest.mkdir(parents=True)
    for nb in sorted(release_dir.glob("*.ipynb")):
        shutil.copy2(nb, dest / nb.name)
    (dest / "nano").mkdir()
    for name in release.STUDENT_FUNCTIONS:
        shutil.copy2(release_dir / "nano" / name, dest / "nano" / name)
    if solved:
        release.solve_workspace(dest)
    return dest


def _without_cells(path: Path, edit) -> None:
    nb = notebooks.load(path)
    edit(nb)
    path.write_text(notebooks.render(nb), encoding="utf-8")


def _zip(path: Path, members: dict[str, bytes]) -> None:
    """A zip whose bytes depend only on `members`, so that a regenerated sample is identical."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in sorted(members.items()):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)


def _tree(folder: Path, prefix: str) -> dict[str, bytes]:
    return {prefix + p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def make(release_dir: Path, dest: Path = DEST) -> None:
    """Write the sample class and expected.csv into `dest` (replacing what is there)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="nano-samples-") as tmp:
        scratch = Path(tmp)
        _workspace(release_dir, dest / "perfect", solved=True)
        _workspace(release_dir, dest / "untouched", solved=False)

        partial = _workspace(release_dir, dest / "partial", solved=True)
        for late in ("gate.py", "model.py", "loop.py", "repl.py"):
            shutil.copy2(release_dir / "nano" / late, partial / "nano" / late)
        for nb in sorted(release_dir.glob("0[456]-*.ipynb")):
            shutil.copy2(nb, partial / nb.name)

        bad = _workspace(release_dir, dest / "bad-json", solved=True)
        text = (bad / "02-tools-that-read.ipynb").read_text(encoding="utf-8")
        (bad / "02-tools-that-read.ipynb").write_text(text[: len(text) // 2], encoding="utf-8")

        (_workspace(release_dir, dest / "missing-notebook", solved=True) / "06-repl.ipynb").unlink()
        (_workspace(release_dir, dest / "missing-py", solved=True) / "nano" / "gate.py").unlink()

        broken = _workspace(release_dir, dest / "broken-py", solved=True)
        replace_once(broken / "nano" / "repl.py", "    while True:\n", "    while True\n")

        edited = _workspace(release_dir, dest / "edited-cells", solved=True)
        replace_once(edited / "nano" / "tools.py", 'return f"Wrote {len(content)} characters',
                     'return f"Wrote {len(content.encode())} characters')

        def cheat(nb):
            nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")
                        != "l03_write_file_confirmation"]
            for c in nb.cells:
                if c.metadata.get("nbgrader", {}).get("grade_id") == "l03_edit_file_one_match":
                    c.source = "assert True  # the checks were too strict\n"
        _without_cells(edited / "03-tools-that-write.ipynb", cheat)

        forever = _workspace(release_dir, dest / "runs-forever", solved=True)
        replace_once(forever / "nano" / "protocol.py", "    return 61 * 1000 + 1\n",
                     "    while True:  # one more digit, surely\n        pass\n")

        dies = _workspace(release_dir, dest / "kernel-dies", solved=True)
        replace_once(dies / "nano" / "gate.py", '    answer = await ask.question(',
                     '    import os\n    os._exit(1)  # "quit without asking"\n'
                     '    answer = await ask.question(')

        zipped = _workspace(release_dir, scratch / "zipped", solved=True)
        members = _tree(zipped, "zipped/nano-workspace/")
        members["zipped/nano-workspace/.ipynb_checkpoints/01-shape-of-an-agent-checkpoint.ipynb"] = b"{"
        members["__MACOSX/zipped/nano-workspace/._01-shape-of-an-agent.ipynb"] = b"\x00\x05\x16\x07"
        _zip(dest / "zipped.zip", members)

        _zip(dest / "zip-bomb.zip", {"zip-bomb/data.bin": bytes(20_000_000)})
        _zip(dest / "zip-escape.zip", {"../../escaped.py": b"print('out of the box')\n",
                                       "01-shape-of-an-agent.ipynb": b"{}"})

        (dest / "not a valid id" / "nano").mkdir(parents=True)
        shutil.copy2(release_dir / "nano" / "protocol.py", dest / "not a valid id" / "nano" / "protocol.py")
        (dest / "twin" / "nano").mkdir(parents=True)
        shutil.copy2(release_dir / "nano" / "protocol.py", dest / "twin" / "nano" / "protocol.py")
        _zip(dest / "twin.zip", {"twin/nano/protocol.py": (release_dir / "nano" / "protocol.py").read_bytes()})

    (dest / "expected.csv").write_text(expected_csv(release_dir), encoding="utf-8")


def expected_grades(release_dir: Path) -> list[dict[str, str]]:
    """One row per sample: student_id, the points of each lecture, total, problem fragment."""
    points = {nb.stem[:2]: notebooks.points(notebooks.load(nb))
              for nb in sorted(release_dir.glob("*.ipynb"))}
    rows = []
    for sample in SAMPLES:
        row = {"student_id": sample.student}
        total = 0.0
        for number, cells in points.items():
            lost = sample.lost.get(number, [])
            kept = 0.0 if not sample.graded or lost == ALL else sum(
                p for grade_id, p in cells.items() if not any(grade_id.startswith(x) for x in lost))
            row[number] = f"{round(kept, 3):g}" if sample.graded else ""  # not graded: no grade
            total += kept
        row["total"] = f"{round(total, 3):g}" if sample.graded else ""
        row["problem"] = sample.problem
        rows.append(row)
    return rows


def expected_csv(release_dir: Path) -> str:
    rows = expected_grades(release_dir)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(sorted(rows, key=lambda r: r["student_id"].lower()))
    return out.getvalue()


def differences(release_dir: Path, dest: Path = DEST) -> list[str]:
    """The files of `dest` that differ from what `make` would write now (missing, extra, changed)."""
    with tempfile.TemporaryDirectory(prefix="nano-samples-") as tmp:
        fresh = Path(tmp, "submissions")
        make(release_dir, fresh)
        want = {p.relative_to(fresh).as_posix(): p.read_bytes() for p in fresh.rglob("*") if p.is_file()}
    have = {p.relative_to(dest).as_posix(): p.read_bytes() for p in dest.rglob("*") if p.is_file()} \
        if dest.is_dir() else {}
    return sorted({name for name in want.keys() | have.keys() if want.get(name) != have.get(name)})


def main(course: Path | None = None, check: bool = False, dest: Path = DEST) -> int:
    with tempfile.TemporaryDirectory(prefix="nano-samples-") as tmp:
        release_dir = (course / "release" / release.ASSIGNMENT if course is not None
                       else release.build_course(Path(tmp, "course")))
        if check:
            stale = differences(release_dir, dest)
            print("\n".join(f"out of date: {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}/{n}"
                            for n in stale) or "the samples match the release")
            return 1 if stale else 0
        make(release_dir, dest)
    print(f"wrote {len(SAMPLES)} sample hand-ins and expected.csv to {dest}\n"
          f"grade them with: nano-course grade {dest}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
