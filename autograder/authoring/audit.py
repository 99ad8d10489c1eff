"""`nano-course check NN`: does lecture NN's notebook grade what it should?

Runs the instructor's notebook against the reference (every cell must run clean) and the
released notebook in a fresh student workspace (every graded test cell must fail on the stubs,
or it would give points for nothing), and prints one row per graded cell.
"""

import tempfile
from pathlib import Path

from autograder.authoring import notebooks, release


def check_lecture(number: str, root: Path = release.ROOT, echo=print) -> bool:
    sources = [s for s in notebooks.sources(root / "lectures") if s.name.startswith(f"{number}-")]
    if not sources:
        raise SystemExit(f"no lecture {number} in {root / 'lectures' / 'src'}")
    source_path = sources[0]
    stale = notebooks.sync(root / "lectures", check=True)
    if f"{source_path.stem}.ipynb" in stale:
        echo(f"note: lectures/{source_path.stem}.ipynb is out of date; run nano-course notebooks")
    nb = notebooks.build(source_path)
    echo(f"running {source_path.name} against the reference ...")
    reference_run = notebooks.execute(nb, root / "lectures")
    with tempfile.TemporaryDirectory(prefix="nano-check-") as tmp:
        lectures = Path(tmp, "lectures")
        lectures.mkdir()
        (lectures / f"{source_path.stem}.ipynb").write_text(notebooks.render(nb), encoding="utf-8")
        released = release.build_course(Path(tmp, "course"), root, lecture_dir=lectures)
        workspace = release.make_workspace(released, Path(tmp, "student"))
        student_nb = notebooks.load(workspace / f"{source_path.stem}.ipynb")
        echo("running the released notebook on the stubs ...")
        stub_run = notebooks.execute(student_nb, workspace)

    good = True
    for index, problem in enumerate(reference_run):
        if problem:
            good = False
            echo(f"  FAIL  reference: cell {index} ({nb.cells[index].get('id')}): {problem}")
    by_id = {c.get("id"): r for c, r in zip(student_nb.cells, stub_run)}
    total = 0.0
    echo(f"  {'graded cell':44} {'points':>6}  reference  stubs")
    for cell, problem in zip(nb.cells, reference_run):
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("grade"):
            continue
        total += meta["points"]
        on_stubs = by_id.get(cell.get("id"), "missing from the release")
        passes_stubs = on_stubs is None
        good &= problem is None and not passes_stubs
        echo(f"  {meta['grade_id']:44} {meta['points']:6.2f}  {'ok' if problem is None else 'FAILS':9}  "
             f"{'PASSES (gives free points)' if passes_stubs else 'fails (good)'}")
    echo(f"  {'total':44} {total:6.2f}")
    echo(f"lecture {number}: {'ok' if good else 'problems above'}")
    return good
