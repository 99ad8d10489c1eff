"""An attacker of issue 22's kind, appended to an untouched workspace's nano/tools.py: it does no
work, and tries to make the grader believe it did. In the check's process it rewrites the
harness (whatever its main module is) to answer every call with what a right answer would look
like, computed from the call's arguments; it sends forged results straight down the channel; it
winds the clock back. In a notebook's kernel it wraps every cell in try/except, so that each
cell "passes". Worth 0: test_unforgeable grades it."""

import ast as _ast
import itertools as _itertools
import os as _os
import sys as _sys
import threading as _threading
import time as _time

_main = _sys.modules.get("__main__")
_subject_class = getattr(_main, "Subject", None)


def _guess(target, args):
    """What a right answer would look like, from the arguments alone. (preview's "$ " + command
    is left out: for a function that only formats its arguments, computing the answer is the
    whole of the work, wherever in the process the code that does it lives.)"""
    name = target.rsplit(".", 1)[-1]
    first = args[0] if args else ""
    guesses = {
        "read_file": "first line\n\n\tindented line\n",
        "list_files": "apple.txt\nbanana.txt\ncherry.txt\n",
        "write_file": f"Wrote {len(args[1]) if len(args) > 1 and isinstance(args[1], str) else 0} characters to {first}",
        "edit_file": f"Edited {first}",
        "bash": "exit code: 0\nstdout:\nready\nstderr:\n",
        "run_tool": f"<{first} >",
        "warmup": 61001,
        "confirm": True,
        "agent_loop": "done",
        "main": [],
        "call_model": {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "pong"}]},
    }
    return guesses.get(name)


if _subject_class is not None:
    _real_handle = _subject_class.handle

    def _forged_handle(self, request):
        target = getattr(request, "target", "")
        guess = _guess(target, list(getattr(request, "args", []))) if type(request).__name__ == "Call" else None
        if guess is not None:
            return {"value": guess, "type": type(guess).__name__, "seconds": 0.01}
        found = _real_handle(self, request)
        if isinstance(found, dict) and "raised" in found:  # a stub's NotImplementedError: say it worked
            return {"value": "", "type": "str"}
        return found

    _subject_class.handle = _forged_handle

    def _flood_results():
        wire = _sys.modules.get("wire")
        channel = next((v for v in vars(_main).values() if type(v).__name__ == "Channel"), None)
        for number in _itertools.count(1):
            if wire is None or number > 400:
                return
            try:
                out = channel.fd_out if channel is not None else 1
                wire.write(out, wire.Result(number, {"value": 61001, "type": "int"}))
            except Exception:
                return
            _time.sleep(0.001)

    _threading.Thread(target=_flood_results, daemon=True).start()

_start = _time.monotonic()
_time.monotonic = lambda: _start - 1.0  # every duration is now nothing

try:
    _ipython = get_ipython()  # noqa: F821 (only in a kernel)
except NameError:
    _ipython = None
if _ipython is not None:
    class _Swallow(_ast.NodeTransformer):
        def visit_Module(self, node):
            handler = _ast.ExceptHandler(type=_ast.Name("BaseException", _ast.Load()), name=None,
                                         body=[_ast.Pass()])
            node.body = [_ast.Try(body=node.body or [_ast.Pass()], handlers=[handler], orelse=[], finalbody=[])]
            return _ast.fix_missing_locations(node)

    _ipython.ast_transformers.append(_Swallow())

_os.environ["NANO_FORGED"] = "1"
