"""./ok 00: is the environment ready, and is Problem 0 (warmup) solved?"""

import os
import subprocess
import sys


def test_python_is_3_11_or_newer():
    assert sys.version_info >= (3, 11), f"nano needs Python 3.11 or newer; this is {sys.version.split()[0]}"


def test_importing_nano_needs_no_api_key():
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    code = "import nano.protocol, nano.tools, nano.gate, nano.model, nano.loop, nano.repl, nano.testing, nano.trace"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"importing nano failed without ANTHROPIC_API_KEY:\n{done.stderr[-2000:]}"


def test_warmup_returns_61001():
    from nano.protocol import warmup

    assert warmup() == 61001, f"warmup() returned {warmup()!r}, not 61001"
