"""A new gradebook is stamped with nbgrader's migration head read in the process
(release.alembic_on_path): the same revision `alembic heads` prints, and no process started for it,
even with no `alembic` on PATH."""

import subprocess
import sys
from pathlib import Path

from autograder.authoring import release


def test_the_head_read_here_is_the_one_alembic_prints(tmp_path):
    from nbgrader import dbutil

    alembic = Path(sys.executable).with_name("alembic")
    dbutil.write_alembic_ini(str(tmp_path / "alembic.ini"), f"sqlite:///{tmp_path / 'x.db'}")
    printed = subprocess.run([str(alembic), "-c", str(tmp_path / "alembic.ini"), "heads"],
                             capture_output=True, text=True, check=True).stdout
    assert printed.split()[0] == release.alembic_head()


def test_a_new_gradebook_needs_no_alembic_process(tmp_path, monkeypatch):
    from nbgrader.api import Gradebook
    from sqlalchemy import create_engine, text

    release.alembic_on_path()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # nbgrader's own way would fail: no `alembic` to start
    db = tmp_path / "gradebook.db"
    with Gradebook(f"sqlite:///{db}", "course"):
        pass
    with create_engine(f"sqlite:///{db}").connect() as connection:
        assert list(connection.execute(text("SELECT version_num FROM alembic_version"))) == [(release.alembic_head(),)]
