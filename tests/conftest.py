"""Settings for the whole suite, which `./run tests` runs in four pytest-xdist workers.

Several of them grade a class at the same time, each by default with four students per CPU
(grade.default_workers): on two cores that is a load of twenty and more, at which kernels miss
their interrupts and cells their time limits. Each grading run here takes two students at once
unless it names its own number; `nano-course grade` run by a test inherits it.
"""

import os
import shutil
import signal
from pathlib import Path

from autograder.authoring import release
from autograder.grading import grade

os.environ.setdefault(grade.WORKERS_VARIABLE, "2")

pytest_plugins = ["tests.cputime"]  # each phase's CPU time, listed at the end (--cpu-report N)

# A suite started in the background by a shell without job control (`./run tests &` in a script)
# inherits Ctrl-C ignored, and so would every command a test starts. The tests that press Ctrl-C
# need it as a terminal has it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config):
    """build/screenshots/ emptied of the previous run's pictures, once a run that may take new ones
    (the whole suite, or a path at or under tests/browser/): here, in the process that starts the
    workers (or the only one), before any browser test writes its own folder."""
    browser = release.ROOT / "tests" / "browser"
    paths = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    if not hasattr(config, "workerinput") and (not config.args or any(
            path == browser or browser in path.parents or path in browser.parents for path in paths)):
        shutil.rmtree(release.ROOT / "build" / "screenshots", ignore_errors=True)
