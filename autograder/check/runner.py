"""The independent check's process: it runs the behaviours' observe code on one hand-in.

Run as `python -I runner.py` inside the sandbox, in a copy of the hand-in's workspace, with
kit.py beside it; it imports nothing from autograder. It reads one JSON job on stdin:

    {"timeout": seconds per item, "first": index to start at, "cwd": the workspace copy,
     "answers": {grade_id: answer cell source},
     "items": [{"key", "code", "inputs", "answers": [grade_ids]}]}

where each item's `code` (made by behaviour.observe_code) defines `observe`. For each item it
writes {"start": i} and then {"done": i, "obs": what observe returned, as plain data} on the
stdout it had at startup; fd 1 then points at /dev/null, so the hand-in's prints do not get in
the way. An item that runs past its timeout reports "obs": null.
"""

import contextlib
import io
import json
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # `python -I` leaves it out
from kit import plain  # noqa: E402


class ItemTimeout(BaseException):
    pass


def on_alarm(signum, frame):
    raise ItemTimeout()


def answer_namespace(sources: dict[str, str], wanted: list[str]) -> dict:
    """The student's answer cells `wanted`, run in order (one that fails is skipped, as a cell)."""
    names = {"__name__": "__answers__"}
    for grade_id, source in sources.items():
        if grade_id in wanted:
            try:
                exec(compile(source, grade_id, "exec"), names)
            except Exception:
                pass
    return {k: v for k, v in names.items() if not k.startswith("__")}


def run_item(item: dict, sources: dict[str, str], timeout: int) -> dict:
    namespace = {"__name__": "__behaviour__"}
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(timeout)
    try:
        exec(compile(item["code"], item["key"], "exec"), namespace)
        with contextlib.redirect_stderr(io.StringIO()):
            seen = namespace["observe"](item["inputs"], answer_namespace(sources, item["answers"]))
        return plain(seen) if isinstance(seen, dict) else {"__unplain__": "observe returned no dict"}
    except ItemTimeout:
        raise
    except BaseException as exc:  # what escaped observe: the judge decides what it means
        try:
            message = str(exc)
        except BaseException:
            message = "(its message could not be read)"
        return {"escaped": type(exc).__name__, "message": plain(message)}
    finally:
        signal.alarm(0)


def main() -> None:
    job = json.loads(sys.stdin.read())
    channel = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    sys.path.insert(0, job["cwd"])

    def send(record: dict) -> None:
        channel.write(json.dumps(record) + "\n")
        channel.flush()

    for index, item in enumerate(job["items"]):
        if index < job["first"]:
            continue
        send({"start": index})
        try:
            send({"done": index, "obs": run_item(item, job["answers"], item.get("timeout") or job["timeout"])})
        except ItemTimeout:
            send({"done": index, "obs": None})
        os.chdir(job["cwd"])


if __name__ == "__main__":
    main()
