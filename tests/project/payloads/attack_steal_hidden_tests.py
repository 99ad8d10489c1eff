"""Attack `steal-hidden-tests` of test_sandbox.py's hostile class: reads the course's hidden tests
and gradebook and puts them in its output. Appended to the student's nano/protocol.py after
attack_prelude.py, it runs when the kernel imports it."""

stolen = []
for path in [COURSE / "source", COURSE / grade_dir / "source", COURSE / "gradebook.db",
             COURSE / grade_dir / "gradebook.db"]:
    for file in ([path] if path.is_file() else sorted(path.rglob("*.ipynb")) if path.is_dir() else []):
        stolen.append(file.read_text(errors="replace"))
for file in Path.cwd().glob("*.ipynb"):  # the notebook being graded: nbgrader put the hidden tests back
    stolen.append(file.read_text(errors="replace"))
print("STOLEN", stolen)
raise ValueError("STOLEN " + " ".join(stolen)[:5000])
