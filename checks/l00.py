"""./ok 00: is the environment ready? (Then ./ok 00 runs lecture 01's checks, l01.py.)"""

import importlib
import os
import sys

MODULES = ["nano.protocol", "nano.tools", "nano.gate", "nano.model", "nano.loop", "nano.repl",
           "nano.testing", "nano.trace"]


def l00_python_is_3_11_or_newer():
    assert sys.version_info >= (3, 11), f"nano needs Python 3.11 or newer; this is {sys.version.split()[0]}"


def l00_importing_nano_needs_no_api_key():
    from nano import diagnose

    saved = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("ANTHROPIC_")}
    try:
        for name in MODULES:
            try:
                importlib.import_module(name)
            except (Exception, SystemExit) as exc:
                raise AssertionError(f"importing nano without ANTHROPIC_API_KEY failed: {diagnose.describe(exc)}\n"
                                     f"{diagnose.advice(exc, './ok 00')}") from None
    finally:
        os.environ.update(saved)
