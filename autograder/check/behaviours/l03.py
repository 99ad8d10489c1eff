"""Lecture 03's graded behaviours: write_file, edit_file and bash (nano/tools.py).

Each drive runs its cell's visible case and the hidden ones, on names `draw` picks, in a scratch
folder the driver fills, and reports what each call gave and, read by the driver itself, what
the files then held; for bash's timeouts, the seconds each call took by the driver's clock, and
whether any process the command started still runs, read from /proc by the driver (the
processes of the subject's sandbox, which nothing in it can leave or rename its way out of).
The judges know the
truth from the inputs alone: a write leaves its content, a one-match edit is str.replace, a
command's exit code is the one it asked for. The formats checked exactly (the confirmation line,
"not found" and the count in edit_file's errors, bash's labels) are the ones the lecture and the
docstrings fix, and ./ok 03 checks them the same way.
"""

import os
import posixpath
import re
import shlex
import string
import sys
import time

from autograder.check import driver
from autograder.check.behaviour import Behaviour
from autograder.check.kit import (NOT_WRITTEN, dicts_of, message_of, not_written, outcomes_of, raised_names,
                                 returned_text, shown)


def _words(rng, count, size=6):
    """`count` different lowercase words of `size` letters."""
    words = []
    while len(words) < count:
        word = "".join(rng.choice(string.ascii_lowercase) for _ in range(size))
        if word not in words:
            words.append(word)
    return words


def _held(folder, path):
    """The file's bytes as latin-1 text (so any bytes compare exactly), or None if it is not there."""
    data = folder.read(path)
    return None if data is None else data.decode("latin-1")


def _as_held(text):
    """What _held reads from a file holding `text` as UTF-8."""
    return text.encode("utf-8").decode("latin-1")


def _steps(inputs, seen, key):
    """(step, what was seen of it) for each step (each group's `key` list: its writes or edits)."""
    found = seen.get("groups") if isinstance(seen, dict) else None
    found = found if isinstance(found, list) else []
    pairs = []
    for index, group in enumerate(inputs["groups"]):
        pairs.extend(zip(group[key], dicts_of(found[index] if index < len(found) else None, len(group[key]))))
    return pairs


def _refused(outcome):
    """It raised an exception, and not a stub's NotImplementedError."""
    names = raised_names(outcome)
    return bool(names) and "NotImplementedError" not in names


# ---------------------------------------------------------------------------------------------
# write_file

def drive_writes(subject, inputs):
    """Each group's writes, in a scratch folder holding the group's files: what each write_file
    call gave, and what its file held afterwards."""
    groups = []
    for group in inputs["groups"]:
        done = []
        with subject.scratch(group["files"]) as folder:
            for path, content, _ in group["writes"]:
                outcome = subject.call("nano.tools.write_file", path, content)
                done.append({"outcome": outcome, "held": _held(folder, path)})
        groups.append(done)
    return {"groups": groups}


def judge_writes(inputs, seen):
    """Every write returns, and leaves its file holding exactly its content, as UTF-8."""
    writes = _steps(inputs, seen, "writes")
    stub = not_written("write_file", [done.get("outcome") for _, done in writes], 1)
    if stub:
        yield stub
        return
    for (path, content, hint), done in writes:
        outcome = done.get("outcome")
        if raised_names(outcome):
            yield f"write_file({path!r}, ...): {shown(outcome)}. {hint}"
        elif done.get("held") != _as_held(content):
            yield hint


def draw_parent_dirs(rng):
    a, b, c = _words(rng, 3)
    return {"groups": [{"files": {}, "writes": [
        ["docs/guide/intro.md", "# Intro\n", "write_file must create missing parent folders, and write exactly "
                                            "the content it was given (section 1)"],
        [f"{a}/{b}/{c}/module_{a}.py", f"NAME = '{b}'\n",
         "write_file must create every missing parent folder, however deep (section 1)"],
        [f"{a}/{b}/{c}/other_{c}.py", "x = 1\n",
         "write_file must also work when the parent folders already exist: use exist_ok=True (section 1)"],
        [f"{a}/first_level_{b}.txt", c, "write_file must work in a folder that already exists (section 1)"],
        [f"{c}.txt", a, "write_file must work for a bare file name with no folder: os.path.dirname gives '' "
                        "there (section 1)"],
    ]}]}


def draw_replaces(rng):
    a, b = _words(rng, 2)
    old, new = _words(rng, 1, 40)[0], _words(rng, 1, 5)[0]
    name = f"{a}/{b}.md"
    return {"groups": [
        {"files": {"plan.txt": "a long old plan that should disappear\n"}, "writes": [
            ["plan.txt", "new plan\n", "write_file must replace the whole file, not append to it (section 1)"]]},
        {"files": {name: old}, "writes": [
            [name, new, "write_file must replace the old text completely: no append, no leftovers (section 1)"],
            [name, f"crème brûlée {new}\n\n  trailing spaces  ",
             "write_file must write exactly the content, as UTF-8: nothing added or stripped (section 1)"],
            [name, "", "write_file with empty content must leave an empty file (section 1)"]]},
    ]}


def draw_confirmations(rng):
    a, b, c, d, e = _words(rng, 5)
    return {"cases": [["hello.txt", "hi"],
                      [f"{a}/{b}.txt", _words(rng, 1, rng.randrange(50) + 3)[0]],
                      [f"{c}.md", "naïve café, déjà vu: " + _words(rng, 1, rng.randrange(9) + 1)[0]],
                      [f"{d}/{e}/empty.txt", ""]]}


def drive_confirmations(subject, inputs):
    """What write_file returned for each case, all in one scratch folder, and whether its file
    is there afterwards."""
    with subject.scratch() as folder:
        outcomes = [subject.call("nano.tools.write_file", path, content) for path, content in inputs["cases"]]
        return {"outcomes": outcomes, "written": [folder.read(path) is not None for path, _ in inputs["cases"]]}


def judge_confirmations(inputs, seen):
    """Exactly f"Wrote {len(content)} characters to {path}", as the lecture and the docstring say."""
    outcomes = outcomes_of(seen, "outcomes", len(inputs["cases"]))
    stub = not_written("write_file", outcomes, 2)
    if stub:
        yield stub
        return
    written = seen.get("written") if isinstance(seen, dict) and isinstance(seen.get("written"), list) else []
    for index, ((path, content), outcome) in enumerate(zip(inputs["cases"], outcomes)):
        expected = f"Wrote {len(content)} characters to {path}"
        if returned_text(outcome) != expected:
            yield (f"write_file must return exactly {expected!r} (characters, not bytes; the path as given); "
                   f"{shown(outcome)} (section 2)")
        elif index >= len(written) or written[index] is not True:
            yield f"write_file said {expected!r}, but there is no file at {path}: write it, then say so (section 1)"


# ---------------------------------------------------------------------------------------------
# edit_file

def drive_edits(subject, inputs):
    """Each group's edits, in a scratch folder holding the group's files: what each edit_file
    call gave, and what the file it named held afterwards."""
    groups = []
    for group in inputs["groups"]:
        done = []
        with subject.scratch(group["files"]) as folder:
            for edit in group["edits"]:
                outcome = subject.call("nano.tools.edit_file", edit["path"], edit["old"], edit["new"])
                done.append({"outcome": outcome, "held": _held(folder, edit["path"])})
        groups.append(done)
    return {"groups": groups}


def draw_one_match(rng):
    a, b, c = _words(rng, 3)
    path = f"{a}/{b}.py"
    before = f"def {a}():\n    x = '{b}'\n    return x\n\n\ndef {c}():\n    pass\n"
    steps = [(f"    x = '{b}'\n    return x\n", f"    return '{c}'\n",
              "edit_file must replace a multi-line old_string exactly and keep everything else (section 3)"),
             (f"def {c}():", f"def {c}():  # {c}() calls def {c}():",
              "edit_file must replace old_string once, even when new_string contains it (section 3)"),
             ("\n\n\n", "\n", "edit_file must accept whitespace-only old_string and new_string (section 3)"),
             (f"    return '{c}'\n", "", "edit_file must accept an empty new_string: it deletes old_string (section 3)")]
    edits, text = [], before
    for old, new, hint in steps:
        text = text.replace(old, new, 1)
        edits.append({"path": path, "old": old, "new": new, "after": text, "hint": hint})
    greet = 'def greet():\n    return "helo"\n'
    return {"groups": [
        {"files": {"greet.py": greet}, "edits": [
            {"path": "greet.py", "old": '"helo"', "new": '"hello"', "after": greet.replace("helo", "hello"),
             "hint": "edit_file must replace old_string with new_string and keep the rest of the file (section 3)"}]},
        {"files": {path: before}, "edits": edits}]}


def judge_one_match(inputs, seen):
    pairs = _steps(inputs, seen, "edits")
    stub = not_written("edit_file", [done.get("outcome") for _, done in pairs], 3)
    if stub:
        yield stub
        return
    for edit, done in pairs:
        outcome, expected = done.get("outcome"), f"Edited {edit['path']}"
        if returned_text(outcome) != expected:
            yield f"edit_file must return {expected!r}; {shown(outcome)} (section 3)"
        elif done.get("held") != _as_held(edit["after"]):
            yield edit["hint"]


def draw_zero_matches(rng):
    a, b, c, d = _words(rng, 4)
    path, missing = f"{a}/{b}.py", f"{c}/{d}.txt"
    return {"missing": missing, "groups": [
        {"files": {"config.ini": "[server]\nport = 8080\n"},
         "edits": [{"path": "config.ini", "old": "port = 9090", "new": "port = 80"}]},
        {"files": {path: f"def {a}():\n\treturn '{b}'\n"},
         "edits": [{"path": path, "old": old, "new": "x"}
                   for old in [f"return '{a}'", f"    return '{b}'", f"Return '{b}'", f"def  {a}():"]]
                  + [{"path": missing, "old": "a", "new": "b"}, {"path": path, "old": "", "new": "x"}]}]}


def judge_zero_matches(inputs, seen):
    """Raises for text not in the file exactly, saying "not found" and the path; for a missing
    file, naming it; for an empty old_string."""
    pairs = _steps(inputs, seen, "edits")
    stub = not_written("edit_file", [done.get("outcome") for _, done in pairs], 3)
    if stub:
        yield stub
        return
    for edit, done in pairs:
        outcome, said = done.get("outcome"), message_of(done.get("outcome"))
        if edit["path"] == inputs["missing"]:
            if not _refused(outcome) or edit["path"] not in said:
                yield (f"edit_file must raise, naming the path, when there is no file at {edit['path']}; "
                       f"{shown(outcome)} (section 3)")
        elif not edit["old"]:
            if not _refused(outcome):
                yield f"edit_file must raise for an empty old_string; {shown(outcome)} (section 3)"
        elif not _refused(outcome):
            yield (f"edit_file must raise when {edit['old']!r} is not in the file exactly (whitespace and case "
                   f"count); {shown(outcome)} (section 3)")
        elif "not found" not in said.lower() or edit["path"] not in said:
            yield (f"the zero-matches error must say 'not found' and name {edit['path']}; it said {said!r} "
                   "(section 3)")


def draw_several_matches(rng):
    groups = [{"files": {"prices.py": "tea = 1\ncake = 1\n"},
               "edits": [{"path": "prices.py", "old": "= 1", "new": "= 2", "count": 2}]}]
    for count in (3, 5):
        name, word = _words(rng, 2)
        path = f"{name}/{name}.txt"
        groups.append({"files": {path: "start\n" + "".join(f"line {word}\n" for _ in range(count)) + "end\n"},
                       "edits": [{"path": path, "old": f"line {word}", "new": "changed", "count": count}]})
    return {"groups": groups}


def judge_several_matches(inputs, seen):
    """Raises, giving the count as digits and the path, and not saying "not found"."""
    pairs = _steps(inputs, seen, "edits")
    stub = not_written("edit_file", [done.get("outcome") for _, done in pairs], 3)
    if stub:
        yield stub
        return
    for edit, done in pairs:
        outcome, said, count = done.get("outcome"), message_of(done.get("outcome")), edit["count"]
        if not _refused(outcome):
            yield (f"edit_file must raise when old_string occurs {count} times, not replace them; "
                   f"{shown(outcome)} (section 3)")
        elif str(count) not in said or edit["path"] not in said:
            yield (f"the several-matches error must give the count ({count}, as digits) and the path "
                   f"({edit['path']}); it said {said!r} (section 3)")
        elif "not found" in said.lower():
            yield ("the several-matches error must not say 'not found': the model must know which problem "
                   f"it has; it said {said!r} (section 3)")


def draw_untouched(rng):
    a, b = _words(rng, 2)
    before = (f"def to_{a}(c):\n    return (c * 5) / 9 + 32\n\n\n"
              f"def to_{b}(f):\n    return (f - 32) * 5 / 9\n")
    path = f"{a}/{b}.py"
    return {"groups": [
        {"files": {"prices.py": "tea = 1\ncake = 1\n"},
         "edits": [{"path": "prices.py", "old": "= 1", "new": "= 2", "before": "tea = 1\ncake = 1\n"}]},
        {"files": {path: before},
         "edits": [{"path": path, "old": old, "new": new, "before": before}
                   for old, new in [("* 5", "* 9"), (" / 9", " / 5"), ("    return", "  return"),
                                    (f"to_{b}(c)", "x")]]
         # last, an edit that is not refused: an edit_file that refuses everything has not done the work
         + [{"path": path, "old": f"def to_{b}(f)", "new": f"def to_{b}(x)",
             "after": before.replace(f"def to_{b}(f)", f"def to_{b}(x)")}]}]}


def judge_untouched(inputs, seen):
    """Every refused edit (zero or several matches) raises and leaves the file byte for byte;
    the one that matches once is made."""
    pairs = _steps(inputs, seen, "edits")
    stub = not_written("edit_file", [done.get("outcome") for _, done in pairs], 3)
    if stub:
        yield stub
        return
    for edit, done in pairs:
        outcome = done.get("outcome")
        if "after" in edit:
            if raised_names(outcome) or done.get("held") != _as_held(edit["after"]):
                yield (f"edit_file must still make an edit whose old_string occurs exactly once ({edit['old']!r}); "
                       f"{shown(outcome)} (section 3)")
        elif not _refused(outcome):
            yield (f"edit_file must refuse {edit['old']!r}: it does not occur exactly once; {shown(outcome)} "
                   "(section 3)")
        elif done.get("held") != _as_held(edit["before"]):
            yield (f"a refused edit of {edit['old']!r} must leave the file exactly as it was: check the count "
                   "before writing (section 3)")


# ---------------------------------------------------------------------------------------------
# bash

def _command(template):
    """A command of the inputs, with {python} standing for this interpreter."""
    return template.replace("{python}", shlex.quote(sys.executable))


def _section(result, token):
    """The label ('stdout:' or 'stderr:') of the section of `result` in which `token` appears, or None."""
    at = result.find(token)
    if at < 0:
        return None
    last = max((result.rfind(label, 0, at), label) for label in ("stdout:", "stderr:"))
    return last[1] if last[0] >= 0 else None


def draw_exit_and_stdout(rng):
    a, b = _words(rng, 2)
    return {"names": [a, b], "folder": "bash_" + _words(rng, 1, 10)[0]}


def drive_exit_and_stdout(subject, inputs):
    """bash's results for echo, then ls, pwd and a pipe inside a folder of known names."""
    (a, b), folder = inputs["names"], inputs["folder"]
    with subject.scratch({f"{folder}/{a}.txt": "x", f"{folder}/{b}/inner.txt": "y"}) as scratch:
        ready = subject.call("nano.tools.bash", "echo ready")
        subject.chdir(scratch.path / folder)
        return {"ready": ready, "ls": subject.call("nano.tools.bash", "ls"), "pwd": subject.call("nano.tools.bash", "pwd"),
                "pipe": subject.call("nano.tools.bash", f"printf '%s\\n' {a} {b} | sort -r")}


def judge_exit_and_stdout(inputs, seen):
    (a, b), folder = inputs["names"], inputs["folder"]
    seen = seen if isinstance(seen, dict) else {}
    results = {key: returned_text(seen.get(key)) for key in ("ready", "ls", "pwd", "pipe")}
    stub = not_written("bash", [seen.get(key) for key in results], 5)
    if stub:
        yield stub
        return
    ready = results["ready"]
    if ready is None or "exit code: 0" not in ready or "ready" not in ready:
        yield (f"bash's result must carry 'exit code: 0' and the command's stdout; for 'echo ready', "
               f"{shown(seen.get('ready'))} (section 5)")
    listing = results["ls"]
    if listing is None or "exit code: 0" not in listing or f"{a}.txt" not in listing or b not in listing:
        yield (f"bash must run in the current working directory: ls should list {a}.txt and {b}; "
               f"{shown(seen.get('ls'))} (section 5)")
    if results["pwd"] is None or f"/{folder}" not in results["pwd"]:
        yield (f"bash must run in the current working directory (a folder named {folder}); for pwd, "
               f"{shown(seen.get('pwd'))} (section 5)")
    pipe = results["pipe"]
    if pipe is None or "exit code: 0" not in pipe or f"{max(a, b)}\n{min(a, b)}" not in pipe:
        yield (f"bash must run the command through the shell (pipes work) and keep all its lines; "
               f"{shown(seen.get('pipe'))} (section 5)")


def draw_nonzero(rng):
    tag = _words(rng, 1)[0]
    code = rng.randrange(100) + 10
    return {"cases": [["exit 3", 3, None],
                      [f"echo partial-{tag}; exit {code}", code, f"partial-{tag}"],
                      ["false", 1, None],
                      ["{python} -c 'import sys; print(\"" + tag + "\"); sys.exit(7)'", 7, tag],
                      [f"grep {tag} /dev/null", 1, None]]}


def drive_commands(subject, inputs):
    """What bash gave for each command of the cases, in one scratch folder."""
    with subject.scratch():
        return {"outcomes": [subject.call("nano.tools.bash", _command(case[0])) for case in inputs["cases"]]}


def judge_nonzero(inputs, seen):
    """Each command's exit code comes back as a result ('exit code: N'), with its stdout."""
    outcomes = outcomes_of(seen, "outcomes", len(inputs["cases"]))
    stub = not_written("bash", outcomes, 5)
    if stub:
        yield stub
        return
    for (command, expected, printed), outcome in zip(inputs["cases"], outcomes):
        command = command.replace("{python}", "python")
        result = returned_text(outcome)
        found = re.search(r"exit code: (-?\d+)", result or "")
        if raised_names(outcome):
            yield (f"bash must not raise when {command!r} exits with {expected}: a non-zero exit is a result, "
                   f"not an exception (no check=True); {shown(outcome)} (section 5)")
        elif not found or found.group(1) != str(expected):
            yield f"bash must report 'exit code: {expected}' for {command!r}; {shown(outcome)} (section 5)"
        elif printed is not None and printed not in result:
            yield f"bash must keep the stdout of a failing command ({printed!r}); got {result!r} (section 5)"


def draw_stderr(rng):
    out, err = _words(rng, 2)
    return {"out": f"out-{out}", "err": f"err-{err}"}


def drive_stderr(subject, inputs):
    """bash's results for commands writing to stderr, to both streams, and a Python traceback."""
    out, err = inputs["out"], inputs["err"]
    with subject.scratch():
        return {"oops": subject.call("nano.tools.bash", "echo ready; echo oops >&2"),
                "both": subject.call("nano.tools.bash", f"echo {out}; echo {err} >&2; exit 5"),
                "traceback": subject.call("nano.tools.bash", _command(
                    "{python} -c 'import sys; sys.stderr.write(\"" + err + "\\n\"); 1 / 0'"))}


def judge_stderr(inputs, seen):
    """stderr is kept, under its own label after stdout's, with the exit code."""
    out, err = inputs["out"], inputs["err"]
    seen = seen if isinstance(seen, dict) else {}
    oops, both, traceback = (returned_text(seen.get(key)) for key in ("oops", "both", "traceback"))
    stub = not_written("bash", [seen.get(key) for key in ("oops", "both", "traceback")], 5)
    if stub:
        yield stub
        return
    if oops is None or "oops" not in oops:
        yield (f"bash's result must carry the command's stderr; for 'echo ready; echo oops >&2', "
               f"{shown(seen.get('oops'))} (section 5)")
    elif _section(oops, "ready") != "stdout:" or _section(oops, "oops") != "stderr:":
        yield f"bash must report stdout and stderr each under its own label; got {oops!r} (section 5)"
    if both is None or err not in both:
        yield f"bash must keep stderr; {err!r} is missing: {shown(seen.get('both'))} (section 5)"
    elif _section(both, out) != "stdout:" or _section(both, err) != "stderr:":
        yield f"bash must report stdout and stderr separately, each under its own label; got {both!r} (section 5)"
    elif "exit code: 5" not in both:
        yield f"bash must report the exit code along with stderr; got {both!r} (section 5)"
    if traceback is None or _section(traceback, "ZeroDivisionError") != "stderr:" or _section(traceback, err) != "stderr:":
        yield (f"a Python traceback must reach the model under 'stderr:'; {shown(seen.get('traceback'))} "
               "(section 5)")


def draw_timeouts(rng):
    return {"tag": "quick-" + _words(rng, 1)[0]}


def drive_timeouts(subject, inputs):
    """With BASH_TIMEOUT set to 1: what bash gave for each slow command and the seconds it took
    (the driver's clock), then what it gives for a quick one."""
    outcomes = []
    subject.set("nano.tools.BASH_TIMEOUT", 1)
    with subject.scratch():
        for command in inputs["commands"]:
            outcomes.append(subject.call("nano.tools.bash", _command(command)))
        quick = subject.call("nano.tools.bash", f"echo {inputs['tag']}")
    return {"outcomes": outcomes, "seconds": [outcome["seconds"] for outcome in outcomes], "quick": quick}


def judge_timeouts(inputs, seen):
    """Each slow command raises TimeoutError, saying what timed out, within the limit (and a
    little); a quick command still comes back."""
    commands = inputs["commands"]
    outcomes = outcomes_of(seen, "outcomes", len(commands))
    seconds = seen.get("seconds") if isinstance(seen, dict) and isinstance(seen.get("seconds"), list) else []
    stub = not_written("bash", outcomes, 6)
    if stub:
        yield stub
        return
    for index, (command, outcome, limit) in enumerate(zip(commands, outcomes, inputs["within"])):
        command = command.replace("{python}", "python")
        took = seconds[index] if index < len(seconds) else None
        if "TimeoutError" not in raised_names(outcome):
            if raised_names(outcome):
                yield (f"a timeout must raise TimeoutError, not {raised_names(outcome)[0]}: catch "
                       "subprocess.TimeoutExpired and raise TimeoutError (section 6)")
            else:
                yield (f"bash must raise TimeoutError when {command!r} runs longer than BASH_TIMEOUT = 1; "
                       f"{shown(outcome)} (section 6)")
        elif not message_of(outcome).strip():
            yield "the TimeoutError should say what timed out (section 6)"
        elif type(took) not in (int, float) or took >= limit:
            yield (f"bash took {took if type(took) not in (int, float) else round(took, 1)} s for {command!r} "
                   "with BASH_TIMEOUT = 1: it must stop after BASH_TIMEOUT seconds, read when bash is called, "
                   "not at import (section 6)")
    quick = returned_text(seen.get("quick") if isinstance(seen, dict) else None)
    if quick is None or "exit code: 0" not in quick or inputs["tag"] not in quick:
        yield "a command that finishes in time must still return its result (section 6)"


def draw_children(rng):
    tags = [str(rng.randrange(10**8, 10**9)) for _ in range(4)]
    # The background children let go of bash's pipes, and the shell becomes its last sleep: so
    # a bash that kills only the shell returns at once, while the children still run.
    return {"tags": tags,
            "visible": f"(sleep 4.{tags[0]}; touch late.txt) >/dev/null 2>&1 & exec sleep 8.{tags[1]}",
            "hidden": f"echo started > started.txt; sh -c 'exec sleep 8.{tags[2]}' >/dev/null 2>&1 & "
                      f"exec sleep 8.{tags[3]}"}


def drive_children(subject, inputs):
    """With BASH_TIMEOUT set to 1: whether a process the call started still runs after bash
    returned (given a second and a half to die: a loaded machine is slow to end them), seen from
    outside the sandbox (those running before the call are not its); and whether the command ran
    at all."""
    subject.set("nano.tools.BASH_TIMEOUT", 1)
    seen = {}
    for key in ("visible", "hidden"):
        with subject.scratch() as folder:
            before = set(subject.processes())
            seen[key] = subject.call("nano.tools.bash", inputs[key])
            seen[f"{key}_seconds"] = seen[key]["seconds"]
            deadline = time.monotonic() + 1.5
            while (still := set(subject.processes()) - before) and time.monotonic() < deadline:
                time.sleep(0.1)
            seen[f"{key}_running"] = bool(still)
            if key == "hidden":
                seen["started"] = folder.read("started.txt") is not None
    return seen


def judge_children(inputs, seen):
    seen = seen if isinstance(seen, dict) else {}
    stub = not_written("bash", [seen.get("visible"), seen.get("hidden")], 6)
    if stub:
        yield stub
        return
    for key in ("visible", "hidden"):
        if "TimeoutError" not in raised_names(seen.get(key)):
            yield (f"bash must raise TimeoutError when a command runs too long; {shown(seen.get(key))} "
                   "(section 6)")
            return
    for key in ("visible", "hidden"):
        took = seen.get(f"{key}_seconds")
        if type(took) not in (int, float) or took >= 7.5:  # a bash that waits for the command takes 8 s
            yield (f"with BASH_TIMEOUT = 1, bash must stop the command after a second, not wait for it to end; it "
                   f"took {took if type(took) not in (int, float) else round(took, 1)} s (section 6)")
            return
    if seen.get("visible_running") is not False:
        yield "a timeout must stop the command's children too: start_new_session=True, then os.killpg (section 6)"
    if seen.get("started") is not True:
        yield "bash must run the whole command: its first part never ran (section 6)"
    elif seen.get("hidden_running") is not False:
        yield ("after a timeout, no process the command started may still run: kill the whole process group "
               "(section 6)")


# ---------------------------------------------------------------------------------------------
# The fence: inside_project, and the four file tools that call it

TOP = "{top}"  # in a path of the inputs: the scratch folder, which holds the project and its sibling


def draw_fence(rng):
    """A project folder and, beside it, a sibling whose name begins like the project's; in the
    project a link pointing at the sibling and one pointing inside. Paths out of the project (by
    `..`, by an absolute path, through the link), each given to every file tool, and paths in."""
    a, b, c, d, e = _words(rng, 5)
    project, sibling, out, here = a, f"{a}-{b}", f"link_{c}", f"here_{d}"
    secret, notes, app = f"{sibling}/secret_{e}.txt", f"notes {b}\n", f"NAME = '{d}'\n"
    outside = [f"../{secret}", f"src/../../{secret}", f"{TOP}/{secret}", f"{out}/secret_{e}.txt"]
    return {"project": project, "links": {out: f"../{sibling}", here: "src"},
            "files": {f"{project}/notes.txt": notes, f"{project}/src/app_{c}.py": app, secret: f"key {e}\n"},
            "secret": secret, "outside": outside,
            "folders_outside": ["..", f"../{sibling}", f"{TOP}/{sibling}", out],
            "new_outside": [f"../{sibling}/new_{c}.txt", f"{sibling}/new_{c}.txt"],  # from the project; from the top
            "reads": [["notes.txt", notes], ["src/../notes.txt", notes], [f"{here}/app_{c}.py", app],
                      [f"{TOP}/{project}/notes.txt", notes]],
            "listed": [[".", ["notes.txt", "src/"]], ["src", [f"app_{c}.py"]]],
            "write": [f"new_{c}/deeper_{d}/file_{e}.txt", f"written {a}\n"],
            "edit": ["notes.txt", f"notes {b}", f"edited {c}", f"edited {c}\n"],
            "resolved": ["notes.txt", "src/../notes.txt", f"new_{e}/not_yet.txt", "."]}


def _at(path, top):
    return path.replace(TOP, top)


def drive_fence(subject, inputs):
    """In the project folder (the subject's working directory): what inside_project and each
    file tool gave for every path out of it, what the sibling's secret held afterwards and
    whether the refused write of a new file made one; then what they gave for paths inside, what
    the files written and edited then held, and inside_project's answers as text (os.fspath)."""
    project = inputs["project"]
    subject.call("importlib.import_module", "nano.tools")  # before the project is the working directory:
    #                                                        a root fixed at import is then another folder
    with subject.scratch(inputs["files"]) as folder:
        top = str(folder.path)
        subject.chdir(folder.path / project)
        for name, target in inputs["links"].items():
            subject.call("os.symlink", target, name)
        outside = [_at(path, top) for path in inputs["outside"]]
        seen = {"top": top, "project": os.path.realpath(folder.path / project),
                "fence": [subject.call("nano.tools.inside_project", path) for path in outside],
                "read_file": [subject.call("nano.tools.read_file", path) for path in outside],
                "list_files": [subject.call("nano.tools.list_files", _at(path, top)) for path in inputs["folders_outside"]],
                "write_file": [subject.call("nano.tools.write_file", path, "taken\n")
                               for path in [*outside, inputs["new_outside"][0]]],
                "edit_file": [subject.call("nano.tools.edit_file", path, "key", "taken") for path in outside]}
        seen["secret"] = _held(folder, inputs["secret"])
        seen["new_outside"] = folder.read(inputs["new_outside"][1]) is not None
        seen["reads"] = [subject.call("nano.tools.read_file", _at(path, top)) for path, _ in inputs["reads"]]
        seen["listed"] = [subject.call("nano.tools.list_files", path) for path, _ in inputs["listed"]]
        path, content = inputs["write"]
        seen["write"] = subject.call("nano.tools.write_file", path, content)
        seen["written"] = _held(folder, f"{project}/{path}")
        path, old, new, _ = inputs["edit"]
        seen["edit"] = subject.call("nano.tools.edit_file", path, old, new)
        seen["edited"] = _held(folder, f"{project}/{path}")
        seen["resolved"] = []
        for path in inputs["resolved"]:
            got = subject.call("nano.tools.inside_project", path, keep=True)
            ref = got.get("ref")
            seen["resolved"].append(subject.call("os.fspath", driver.Ref(ref)) if type(ref) is int else got)
    return seen


def _stub_of(outcomes):
    """The function whose stub a call met, as its NotImplementedError names it ("Lecture 03:
    write_file is not implemented yet..."); None if no call met a stub."""
    for outcome in outcomes:
        if "NotImplementedError" in raised_names(outcome):
            said = message_of(outcome)
            return next((name for name in ("read_file", "list_files", "write_file", "edit_file")
                         if f"{name} is not" in said), "inside_project")
    return None


def judge_fence(inputs, seen):
    """Every path out of the project is refused with a PermissionError naming it, by
    inside_project and by each file tool, and nothing outside changes; paths inside (a `..` that
    stays in, a link that stays in, an absolute path, new folders) still work, and inside_project
    gives their absolute path."""
    seen = seen if isinstance(seen, dict) else {}
    top = seen.get("top") if isinstance(seen.get("top"), str) else TOP
    project = seen.get("project") if isinstance(seen.get("project"), str) else "/"
    refusals = [("inside_project", inputs["outside"], outcomes_of(seen, "fence", 4)),
                ("read_file", inputs["outside"], outcomes_of(seen, "read_file", 4)),
                ("list_files", inputs["folders_outside"], outcomes_of(seen, "list_files", 4)),
                ("write_file", [*inputs["outside"], inputs["new_outside"][0]], outcomes_of(seen, "write_file", 5)),
                ("edit_file", inputs["outside"], outcomes_of(seen, "edit_file", 4))]
    inside = [*outcomes_of(seen, "reads", 4), *outcomes_of(seen, "listed", 2), *outcomes_of(seen, "resolved", 4),
              *[seen.get(key) for key in ("write", "edit")]]
    stub = _stub_of([outcome for _, _, outcomes in refusals for outcome in outcomes] + inside)
    if stub:
        yield f"{NOT_WRITTEN.format(function=stub)} (section {7 if stub == 'inside_project' else 3})"
        return
    for tool, paths, outcomes in refusals:
        for path, outcome in zip(paths, outcomes):
            path = _at(path, top)
            if "PermissionError" not in raised_names(outcome):
                how = ("resolve the path (Path.resolve) before comparing, so that '..' and symbolic links are "
                       "followed, and compare folders, not strings" if tool == "inside_project"
                       else f"{tool} must call inside_project(path) first")
                yield (f"{tool}({path!r}) lies outside the project and must raise PermissionError; {shown(outcome)}: "
                       f"{how} (section 7)")
                return
            if path not in message_of(outcome):
                yield (f"the PermissionError of {tool}({path!r}) must name the path; it said "
                       f"{message_of(outcome)!r} (section 7)")
                return
    if seen.get("secret") != _as_held(inputs["files"][inputs["secret"]]) or seen.get("new_outside") is not False:
        yield ("a refused write or edit must change nothing outside the project: call inside_project before "
               "writing (section 7)")
        return
    for (path, text), outcome in zip(inputs["reads"], outcomes_of(seen, "reads", 4)):
        if returned_text(outcome) != text:
            yield (f"read_file({_at(path, top)!r}) lies inside the project and must still work; {shown(outcome)} "
                   "(section 7)")
            return
    for (path, names), outcome in zip(inputs["listed"], outcomes_of(seen, "listed", 2)):
        listed = {name.rstrip("/") for name in (returned_text(outcome) or "").splitlines()}  # the "/" is lecture 02's
        if returned_text(outcome) is None or not {name.rstrip("/") for name in names} <= listed:
            yield f"list_files({path!r}) lies inside the project and must still work; {shown(outcome)} (section 7)"
            return
    path, content = inputs["write"]
    if returned_text(seen.get("write")) is None or seen.get("written") != _as_held(content):
        yield (f"write_file({path!r}, ...) lies inside the project, in new folders, and must still work; "
               f"{shown(seen.get('write'))} (section 7)")
        return
    path, _, _, after = inputs["edit"]
    if returned_text(seen.get("edit")) is None or seen.get("edited") != _as_held(after):
        yield f"edit_file({path!r}, ...) lies inside the project and must still work; {shown(seen.get('edit'))} (section 7)"
        return
    for path, outcome in zip(inputs["resolved"], outcomes_of(seen, "resolved", 4)):
        expected = posixpath.normpath(posixpath.join(project, path))
        if returned_text(outcome) != expected:
            yield (f"inside_project({path!r}) must return the absolute path, {expected!r} here; {shown(outcome)} "
                   "(section 7)")
            return

BEHAVIOURS = [
    Behaviour("l03_write_file_creates_parent_dirs", drive_writes, judge_writes, draw_parent_dirs),
    Behaviour("l03_write_file_replaces_contents", drive_writes, judge_writes, draw_replaces),
    Behaviour("l03_write_file_confirmation", drive_confirmations, judge_confirmations, draw_confirmations),
    Behaviour("l03_edit_file_one_match", drive_edits, judge_one_match, draw_one_match),
    Behaviour("l03_edit_file_zero_matches_raise", drive_edits, judge_zero_matches, draw_zero_matches),
    Behaviour("l03_edit_file_several_matches_raise", drive_edits, judge_several_matches, draw_several_matches),
    Behaviour("l03_edit_file_refusal_leaves_file_untouched", drive_edits, judge_untouched, draw_untouched),
    Behaviour("l03_bash_exit_code_and_stdout", drive_exit_and_stdout, judge_exit_and_stdout, draw_exit_and_stdout),
    Behaviour("l03_bash_nonzero_exit_is_a_result", drive_commands, judge_nonzero, draw_nonzero),
    Behaviour("l03_bash_stderr", drive_stderr, judge_stderr, draw_stderr),
    Behaviour("l03_bash_timeout_raises", drive_timeouts, judge_timeouts, draw_timeouts,
              given={"commands": ["sleep 5", "echo started; sleep 4", "{python} -c 'import time; time.sleep(4)'"],
                     "within": [4.8, 3.8, 3.8]}, timed=True),
    Behaviour("l03_bash_timeout_stops_children", drive_children, judge_children, draw_children, timed=True),
    Behaviour("l03_tools_stay_inside_the_project", drive_fence, judge_fence, draw_fence),
]
