"""./ok 00: is the environment ready, and is Problem 0 (warmup) solved?"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ["nano.protocol", "nano.tools", "nano.gate", "nano.model", "nano.loop", "nano.repl",
           "nano.testing", "nano.trace"]


def test_python_is_3_11_or_newer():
    assert sys.version_info >= (3, 11), f"nano needs Python 3.11 or newer; this is {sys.version.split()[0]}"


def test_importing_nano_needs_no_api_key():
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    # nano.diagnose imports each module in turn and names the first that fails: file, line, error.
    done = subprocess.run([sys.executable, "-m", "nano.diagnose", *MODULES], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    why = done.stdout.strip() or (done.stderr.strip().splitlines() or ["no message"])[-1]
    assert done.returncode == 0, f"importing nano without ANTHROPIC_API_KEY failed: {why}"


def test_warmup_returns_61001():
    from nano.protocol import warmup

    assert warmup() == 61001, f"warmup() returned {warmup()!r}, not 61001"
