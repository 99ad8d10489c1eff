"""Lecture 03's rules: write_file, edit_file, bash and the fence, inside_project (nano/tools.py).

Each rule is defined once, here: `./ok 03` and the notebook's graded cells run its visible case
in your process, and the grader runs the same drive and judge on more cases of the same shape.
Each drive runs in scratch folders filled with the case's files, and reads back itself what the
files then hold; for bash's timeouts, it reads the seconds each call took and which processes the
command left running. The judges know the truth from the inputs alone: a write leaves its
content, a one-match edit is str.replace, a command's exit code is the one it asked for. The
formats checked exactly (the confirmation line, "not found" and the count in edit_file's errors,
bash's labels) are the ones the lecture and the docstrings fix. The visible timeouts are a
fraction of a second, so that ./ok 03 stays quick.
"""

import os
import posixpath
import re
import shlex
import sys
import time

from checks.doubles import Ref
from checks.kit import dicts_of, message_of, outcomes_of, raised_names, returned_text, shown, written
from checks.rule import Rule

NEEDS = ("nano.tools",)  # loaded first by ./ok: a file that does not load is named before any rule runs


def held(folder, path):
    """The file's bytes as latin-1 text (so any bytes compare exactly), or None if it is not there."""
    data = folder.read(path)
    return None if data is None else data.decode("latin-1")


def as_held(text):
    """What `held` reads from a file holding `text` as UTF-8."""
    return text.encode("utf-8").decode("latin-1")


def steps(inputs, seen, key):
    """(step, what was seen of it) for each step (each group's `key` list: its writes or edits)."""
    found = seen.get("groups")
    found = found if isinstance(found, list) else []
    pairs = []
    for index, group in enumerate(inputs["groups"]):
        pairs.extend(zip(group[key], dicts_of(found[index] if index < len(found) else None, len(group[key]))))
    return pairs


def refused(outcome):
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
            for path, content, *_ in group["writes"]:
                outcome = subject.call("nano.tools.write_file", path, content)
                done.append({"outcome": outcome, "held": held(folder, path)})
        groups.append(done)
    return {"groups": groups}


def judge_writes(inputs, seen):
    """Every write returns, and leaves its file holding exactly its content, as UTF-8; a write
    marked "raises" (its path is a folder) lets the error rise. Each write carries the message
    for its own failure."""
    writes = steps(inputs, seen, "writes")
    written("write_file", [done.get("outcome") for _, done in writes], 1)
    for (path, content, hint, *mark), done in writes:
        outcome = done.get("outcome")
        if mark == ["raises"]:
            if not refused(outcome):
                yield f"{hint}: {shown(outcome)} (section 1)"
        elif raised_names(outcome):
            yield f"write_file({path!r}, ...): {shown(outcome)}. {hint}"
        elif done.get("held") != as_held(content):
            yield hint


def drive_confirmations(subject, inputs):
    """What write_file returned for each case, all in one scratch folder, and whether its file
    is there afterwards."""
    with subject.scratch() as folder:
        outcomes = [subject.call("nano.tools.write_file", path, content) for path, content in inputs["cases"]]
        return {"outcomes": outcomes, "written": [folder.read(path) is not None for path, _ in inputs["cases"]]}


def judge_confirmations(inputs, seen):
    """Exactly f"Wrote {len(content)} characters to {path}", as the lecture and the docstring say."""
    outcomes = outcomes_of(seen, "outcomes", len(inputs["cases"]))
    written("write_file", outcomes, 2)
    made = seen.get("written") if isinstance(seen.get("written"), list) else []
    for index, ((path, content), outcome) in enumerate(zip(inputs["cases"], outcomes)):
        expected = f"Wrote {len(content)} characters to {path}"
        if returned_text(outcome) != expected:
            yield (f"write_file must return exactly {expected!r} (characters, not bytes; the path as given); "
                   f"{shown(outcome)} (section 2)")
        elif index >= len(made) or made[index] is not True:
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
                done.append({"outcome": outcome, "held": held(folder, edit["path"])})
        groups.append(done)
    return {"groups": groups}


def judge_one_match(inputs, seen):
    """Each edit returns "Edited {path}" and leaves the file as str.replace would (`after`)."""
    pairs = steps(inputs, seen, "edits")
    written("edit_file", [done.get("outcome") for _, done in pairs], 3)
    for edit, done in pairs:
        outcome, expected = done.get("outcome"), f"Edited {edit['path']}"
        if returned_text(outcome) != expected:
            yield f"edit_file must return {expected!r}; {shown(outcome)} (section 3)"
        elif done.get("held") != as_held(edit["after"]):
            yield edit["hint"]


def judge_zero_matches(inputs, seen):
    """Raises for text not in the file exactly, saying "not found" and the path; for a missing
    file (an edit marked "missing"), naming it; for an empty old_string."""
    pairs = steps(inputs, seen, "edits")
    written("edit_file", [done.get("outcome") for _, done in pairs], 3)
    for edit, done in pairs:
        outcome, said = done.get("outcome"), message_of(done.get("outcome"))
        if edit.get("missing"):
            if not refused(outcome) or edit["path"] not in said:
                yield (f"edit_file must raise, naming the path, when there is no file at {edit['path']}; "
                       f"{shown(outcome)} (section 3)")
        elif not edit["old"]:
            if not refused(outcome):
                yield f"edit_file must raise for an empty old_string; {shown(outcome)} (section 3)"
        elif not refused(outcome):
            yield (f"edit_file must raise when {edit['old']!r} is not in the file exactly (whitespace and case "
                   f"count); {shown(outcome)} (section 3)")
        elif "not found" not in said.lower() or edit["path"] not in said:
            yield (f"the zero-matches error must say 'not found' and name {edit['path']}; it said {said!r} "
                   "(section 3)")


def judge_several_matches(inputs, seen):
    """Raises, giving the count as digits and the path, and not saying "not found"."""
    pairs = steps(inputs, seen, "edits")
    written("edit_file", [done.get("outcome") for _, done in pairs], 3)
    for edit, done in pairs:
        outcome, said, count = done.get("outcome"), message_of(done.get("outcome")), edit["count"]
        if not refused(outcome):
            yield (f"edit_file must raise when old_string occurs {count} times, not replace them; "
                   f"{shown(outcome)} (section 3)")
        elif str(count) not in said or edit["path"] not in said:
            yield (f"the several-matches error must give the count ({count}, as digits) and the path "
                   f"({edit['path']}); it said {said!r} (section 3)")
        elif "not found" in said.lower():
            yield ("the several-matches error must not say 'not found': the model must know which problem "
                   f"it has; it said {said!r} (section 3)")


def judge_untouched(inputs, seen):
    """Every refused edit (zero or several matches) raises and leaves the file byte for byte
    (`before`); an edit that matches once (`after`) is made."""
    pairs = steps(inputs, seen, "edits")
    written("edit_file", [done.get("outcome") for _, done in pairs], 3)
    for edit, done in pairs:
        outcome = done.get("outcome")
        if "after" in edit:
            if raised_names(outcome) or done.get("held") != as_held(edit["after"]):
                yield (f"edit_file must still make an edit whose old_string occurs exactly once ({edit['old']!r}); "
                       f"{shown(outcome)} (section 3)")
        elif not refused(outcome):
            yield (f"edit_file must refuse {edit['old']!r}: it does not occur exactly once; {shown(outcome)} "
                   "(section 3)")
        elif done.get("held") != as_held(edit["before"]):
            yield (f"a refused edit of {edit['old']!r} must leave the file exactly as it was: check the count "
                   "before writing (section 3)")


# ---------------------------------------------------------------------------------------------
# bash

def command(template):
    """A command of the inputs, with {python} standing for this interpreter."""
    return template.replace("{python}", shlex.quote(sys.executable))


def shown_command(template):
    """A command of the inputs as a message shows it."""
    return template.replace("{python}", "python")


def section(result, token):
    """The label ('stdout:' or 'stderr:') of the section of `result` in which `token` appears, or None."""
    at = result.find(token)
    if at < 0:
        return None
    last = max((result.rfind(label, 0, at), label) for label in ("stdout:", "stderr:"))
    return last[1] if last[0] >= 0 else None


def drive_exit_and_stdout(subject, inputs):
    """For each case: bash's results for echo, then ls, pwd and a pipe inside a folder of known names."""
    seen = []
    for case in inputs["cases"]:
        (a, b), folder = case["names"], case["folder"]
        with subject.scratch({f"{folder}/{a}.txt": "x", f"{folder}/{b}/inner.txt": "y"}) as scratch:
            ready = subject.call("nano.tools.bash", "echo ready")
            subject.chdir(scratch.path / folder)
            seen.append({"ready": ready, "ls": subject.call("nano.tools.bash", "ls"),
                         "pwd": subject.call("nano.tools.bash", "pwd"),
                         "pipe": subject.call("nano.tools.bash", f"printf '%s\\n' {a} {b} | sort -r")})
    return {"cases": seen}


def judge_exit_and_stdout(inputs, seen):
    """'exit code: 0' and stdout, in the working directory, through the shell."""
    found = outcomes_of(seen, "cases", len(inputs["cases"]))
    written("bash", [got.get(key) for got in found for key in ("ready", "ls", "pwd", "pipe")], 5)
    for case, got in zip(inputs["cases"], found):
        (a, b), folder = case["names"], case["folder"]
        ready, listing, pwd, pipe = (returned_text(got.get(key)) for key in ("ready", "ls", "pwd", "pipe"))
        if ready is None or "exit code: 0" not in ready or "ready" not in ready:
            yield (f"bash's result must carry 'exit code: 0' and the command's stdout; for 'echo ready', "
                   f"{shown(got.get('ready'))} (section 5)")
        elif listing is None or "exit code: 0" not in listing or f"{a}.txt" not in listing or b not in listing:
            yield (f"bash must run in the current working directory: ls should list {a}.txt and {b}; "
                   f"{shown(got.get('ls'))} (section 5)")
        elif pwd is None or f"/{folder}" not in pwd:
            yield (f"bash must run in the current working directory (a folder named {folder}); for pwd, "
                   f"{shown(got.get('pwd'))} (section 5)")
        elif pipe is None or "exit code: 0" not in pipe or f"{max(a, b)}\n{min(a, b)}" not in pipe:
            yield (f"bash must run the command through the shell (pipes work) and keep all its lines; "
                   f"{shown(got.get('pipe'))} (section 5)")


def drive_commands(subject, inputs):
    """What bash gave for each command of the cases (a case's first item), in one scratch folder."""
    with subject.scratch():
        return {"outcomes": [subject.call("nano.tools.bash", command(case[0])) for case in inputs["cases"]]}


def judge_nonzero(inputs, seen):
    """Each command's exit code comes back as a result ('exit code: N'), with its stdout."""
    outcomes = outcomes_of(seen, "outcomes", len(inputs["cases"]))
    written("bash", outcomes, 5)
    for (template, expected, printed), outcome in zip(inputs["cases"], outcomes):
        shown_as = shown_command(template)
        result = returned_text(outcome)
        found = re.search(r"exit code: (-?\d+)", result or "")
        if raised_names(outcome):
            yield (f"bash must not raise when {shown_as!r} exits with {expected}: a non-zero exit is a result, "
                   f"not an exception (no check=True); {shown(outcome)} (section 5)")
        elif not found or found.group(1) != str(expected):
            yield f"bash must report 'exit code: {expected}' for {shown_as!r}; {shown(outcome)} (section 5)"
        elif printed is not None and printed not in result:
            yield f"bash must keep the stdout of a failing command ({printed!r}); got {result!r} (section 5)"


def judge_stderr(inputs, seen):
    """Each case is (command, what it prints to stdout, to stderr, its exit code): stderr is
    kept, under its own label after stdout's, with the exit code."""
    outcomes = outcomes_of(seen, "outcomes", len(inputs["cases"]))
    written("bash", outcomes, 5)
    for (template, out, err, code), outcome in zip(inputs["cases"], outcomes):
        shown_as, result = shown_command(template), returned_text(outcome)
        if result is None or any(token not in result for token in err):
            yield (f"bash's result must carry the command's stderr ({', '.join(err)}); for {shown_as!r}, "
                   f"{shown(outcome)} (section 5)")
        elif any(section(result, token) != "stdout:" for token in out) or \
                any(section(result, token) != "stderr:" for token in err):
            yield (f"bash must report stdout and stderr each under its own label, stdout first (a Python "
                   f"traceback under 'stderr:'); for {shown_as!r}, got {result!r} (section 5)")
        elif f"exit code: {code}" not in result:
            yield (f"bash must report the exit code ({code}) along with stderr; for {shown_as!r}, got {result!r} "
                   "(section 5)")


def late(case, outcome):
    """A slow command that did not time out, or not within the case's seconds: a bash that waits
    for it would only wait for the next ones too, so the drive ends there."""
    return "within" in case and ("TimeoutError" not in raised_names(outcome)
                                 or outcome["seconds"] >= case["within"])


def drive_timeouts(subject, inputs):
    """Each case's command run with BASH_TIMEOUT set to the case's: what bash gave, and the
    seconds it took (the driver's clock); up to the first that is `late`."""
    outcomes = []
    with subject.scratch():
        for case in inputs["cases"]:
            subject.set("nano.tools.BASH_TIMEOUT", case["timeout"])
            outcomes.append(subject.call("nano.tools.bash", command(case["command"])))
            if late(case, outcomes[-1]):
                break
    return {"outcomes": outcomes, "seconds": [outcome["seconds"] for outcome in outcomes]}


def judge_timeouts(inputs, seen):
    """Each slow command raises TimeoutError, saying what timed out, within the case's seconds;
    a quick one (a case that "prints") still comes back."""
    cases = inputs["cases"]
    outcomes = outcomes_of(seen, "outcomes", len(cases))
    seconds = seen.get("seconds") if isinstance(seen.get("seconds"), list) else []
    written("bash", outcomes, 6)
    for index, (case, outcome) in enumerate(zip(cases, outcomes)):
        shown_as, limit = shown_command(case["command"]), case["timeout"]
        took = seconds[index] if index < len(seconds) else None
        if "prints" in case:
            result = returned_text(outcome)
            if result is None or "exit code: 0" not in result or case["prints"] not in result:
                yield (f"a command that finishes in time must still return its result: for {shown_as!r} with "
                       f"BASH_TIMEOUT = {limit}, {shown(outcome)} (section 6)")
        elif "TimeoutError" not in raised_names(outcome):
            if raised_names(outcome):
                yield (f"a timeout must raise TimeoutError, not {raised_names(outcome)[0]}: catch "
                       "subprocess.TimeoutExpired and raise TimeoutError (section 6)")
            else:
                yield (f"bash must raise TimeoutError when {shown_as!r} runs longer than BASH_TIMEOUT = {limit} "
                       f"(read it when bash is called, not at import); {shown(outcome)} (section 6)")
        elif not message_of(outcome).strip():
            yield "the TimeoutError should say what timed out (section 6)"
        elif type(took) not in (int, float) or took >= case["within"]:
            yield (f"bash took {took if type(took) not in (int, float) else round(took, 1)} s for {shown_as!r} "
                   f"with BASH_TIMEOUT = {limit}: it must stop after BASH_TIMEOUT seconds, read when bash is "
                   "called, not at import (section 6)")


def drive_children(subject, inputs):
    """Each case's command run with BASH_TIMEOUT set to the case's: what bash gave and the
    seconds it took; whether a process the call started still runs after bash returned (given a
    second and a half to die: a loaded machine is slow to end them; those running before the call
    are not its); and which of the case's files are there then. Up to the first call that is
    `late`."""
    seen = []
    for case in inputs["cases"]:
        subject.set("nano.tools.BASH_TIMEOUT", case["timeout"])
        with subject.scratch() as folder:
            before = set(subject.processes())
            outcome = subject.call("nano.tools.bash", case["command"])
            deadline = time.monotonic() + 1.5
            while (still := set(subject.processes()) - before) and time.monotonic() < deadline:
                time.sleep(0.1)
            seen.append({"outcome": outcome, "seconds": outcome["seconds"], "running": bool(still),
                         "files": {name: folder.read(name) is not None for name in case["files"]}})
        if late(case, outcome):
            break
    return {"cases": seen}


def judge_children(inputs, seen):
    """Each command times out, without waiting for it to end (`within`), and leaves no process
    running; the files the case names (written first) show the command ran at all."""
    found = outcomes_of(seen, "cases", len(inputs["cases"]))
    written("bash", [got.get("outcome") for got in found], 6)
    for case, got in zip(inputs["cases"], found):
        took, files = got.get("seconds"), got.get("files") if isinstance(got.get("files"), dict) else {}
        if "TimeoutError" not in raised_names(got.get("outcome")):
            yield (f"bash must raise TimeoutError when a command runs too long; {shown(got.get('outcome'))} "
                   "(section 6)")
        elif type(took) not in (int, float) or took >= case["within"]:
            yield (f"with BASH_TIMEOUT = {case['timeout']}, bash must stop the command after that, not wait for "
                   f"it to end; it took {took if type(took) not in (int, float) else round(took, 1)} s (section 6)")
        elif any(files.get(name) is not True for name in case["files"]):
            yield "bash must run the whole command: its first part never ran (section 6)"
        elif got.get("running") is not False:
            yield ("a timeout must stop the command's children too (one still runs after bash returned): "
                   "start_new_session=True, then os.killpg (section 6)")


# ---------------------------------------------------------------------------------------------
# The fence: inside_project, and the four file tools that call it

TOP = "{top}"  # in a path of the inputs: the scratch folder, which holds the project and its sibling


def at(path, top):
    """`path` with the scratch folder put in for TOP."""
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
        outside = [at(path, top) for path in inputs["outside"]]
        seen = {"top": top, "project": os.path.realpath(folder.path / project),
                "fence": [subject.call("nano.tools.inside_project", path) for path in outside],
                "read_file": [subject.call("nano.tools.read_file", path) for path in outside],
                "list_files": [subject.call("nano.tools.list_files", at(path, top)) for path in inputs["folders_outside"]],
                "write_file": [subject.call("nano.tools.write_file", path, "taken\n")
                               for path in [*outside, inputs["new_outside"][0]]],
                "edit_file": [subject.call("nano.tools.edit_file", path, "key", "taken") for path in outside]}
        seen["secret"] = held(folder, inputs["secret"])
        seen["new_outside"] = folder.read(inputs["new_outside"][1]) is not None
        seen["reads"] = [subject.call("nano.tools.read_file", at(path, top)) for path, _ in inputs["reads"]]
        seen["listed"] = [subject.call("nano.tools.list_files", path) for path, _ in inputs["listed"]]
        path, content = inputs["write"]
        seen["write"] = subject.call("nano.tools.write_file", path, content)
        seen["written"] = held(folder, f"{project}/{path}")
        path, old, new, _ = inputs["edit"]
        seen["edit"] = subject.call("nano.tools.edit_file", path, old, new)
        seen["edited"] = held(folder, f"{project}/{path}")
        seen["resolved"] = []
        for path in inputs["resolved"]:
            got = subject.call("nano.tools.inside_project", path, keep=True)
            ref = got.get("ref")
            seen["resolved"].append(subject.call("os.fspath", Ref(ref)) if type(ref) is int else got)
    return seen


def fence_written(outcomes):
    """kit.written for the function whose stub a call met, as its NotImplementedError names it
    ("Lecture 03: write_file is not implemented yet..."): the fence's (section 7) or a file tool's
    (section 3)."""
    for outcome in outcomes:
        if "NotImplementedError" in raised_names(outcome):
            said = message_of(outcome)
            stub = next((name for name in ("read_file", "list_files", "write_file", "edit_file")
                         if f"{name} is not" in said), "inside_project")
            written(stub, [outcome], 7 if stub == "inside_project" else 3)


def judge_fence(inputs, seen):
    """Every path out of the project is refused with a PermissionError naming it, by
    inside_project and by each file tool, and nothing outside changes; paths inside (a `..` that
    stays in, a link that stays in, an absolute path, new folders) still work, and inside_project
    gives their absolute path."""
    top = seen.get("top") if isinstance(seen.get("top"), str) else TOP
    project = seen.get("project") if isinstance(seen.get("project"), str) else "/"
    refusals = [("inside_project", inputs["outside"], outcomes_of(seen, "fence", 4)),
                ("read_file", inputs["outside"], outcomes_of(seen, "read_file", 4)),
                ("list_files", inputs["folders_outside"], outcomes_of(seen, "list_files", 4)),
                ("write_file", [*inputs["outside"], inputs["new_outside"][0]], outcomes_of(seen, "write_file", 5)),
                ("edit_file", inputs["outside"], outcomes_of(seen, "edit_file", 4))]
    inside = [*outcomes_of(seen, "reads", 4), *outcomes_of(seen, "listed", 2), *outcomes_of(seen, "resolved", 4),
              *[seen.get(key) for key in ("write", "edit")]]
    fence_written([outcome for _, _, outcomes in refusals for outcome in outcomes] + inside)
    for tool, paths, outcomes in refusals:
        for path, outcome in zip(paths, outcomes):
            path = at(path, top)
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
    if seen.get("secret") != as_held(inputs["files"][inputs["secret"]]) or seen.get("new_outside") is not False:
        yield ("a refused write or edit must change nothing outside the project: call inside_project before "
               "writing (section 7)")
        return
    for (path, text), outcome in zip(inputs["reads"], outcomes_of(seen, "reads", 4)):
        if returned_text(outcome) != text:
            yield (f"read_file({at(path, top)!r}) lies inside the project and must still work; {shown(outcome)} "
                   "(section 7)")
            return
    for (path, names), outcome in zip(inputs["listed"], outcomes_of(seen, "listed", 2)):
        listed = {name.rstrip("/") for name in (returned_text(outcome) or "").splitlines()}  # the "/" is lecture 02's
        if returned_text(outcome) is None or not {name.rstrip("/") for name in names} <= listed:
            yield f"list_files({path!r}) lies inside the project and must still work; {shown(outcome)} (section 7)"
            return
    path, content = inputs["write"]
    if returned_text(seen.get("write")) is None or seen.get("written") != as_held(content):
        yield (f"write_file({path!r}, ...) lies inside the project, in new folders, and must still work; "
               f"{shown(seen.get('write'))} (section 7)")
        return
    path, _, _, after = inputs["edit"]
    if returned_text(seen.get("edit")) is None or seen.get("edited") != as_held(after):
        yield f"edit_file({path!r}, ...) lies inside the project and must still work; {shown(seen.get('edit'))} (section 7)"
        return
    for path, outcome in zip(inputs["resolved"], outcomes_of(seen, "resolved", 4)):
        expected = posixpath.normpath(posixpath.join(project, path))
        if returned_text(outcome) != expected:
            yield (f"inside_project({path!r}) must return the absolute path, {expected!r} here; {shown(outcome)} "
                   "(section 7)")
            return


RULES = [
    Rule("l03_write_file_creates_parent_dirs", drive_writes, judge_writes, {"groups": [{"files": {}, "writes": [
        ["docs/guide/intro.md", "# Intro\n",
         "write_file must create missing parent folders, and write exactly the content it was given (section 1)"],
        ["docs/todo.txt", "no final newline",
         "write_file must write exactly the content it was given, adding nothing (section 1)"]]}]}),
    Rule("l03_write_file_replaces_contents", drive_writes, judge_writes, {"groups": [
        {"files": {"plan.txt": "a long old plan that should disappear\n"}, "writes": [
            ["plan.txt", "new plan\n", "write_file must replace the whole file, not append to it (section 1)"]]},
        {"files": {"notes/todo.txt": "keep\n"}, "writes": [
            ["notes", "text\n", "write_file('notes', ...), where notes is a folder, must let the error rise "
             "(IsADirectoryError), not catch it", "raises"]]}]}),
    Rule("l03_write_file_confirmation", drive_confirmations, judge_confirmations, {"cases": [
        ["hello.txt", "hi"], ["menu.txt", "crème brûlée"]]}),
    Rule("l03_edit_file_one_match", drive_edits, judge_one_match, {"groups": [
        {"files": {"greet.py": 'def greet():\n    return "helo"\n'}, "edits": [
            {"path": "greet.py", "old": '"helo"', "new": '"hello"', "after": 'def greet():\n    return "hello"\n',
             "hint": "edit_file must replace old_string with new_string and keep the rest of the file "
                     "(section 3)"}]},
        {"files": {"limits.py": "size = 2\n    size = 2\n"}, "edits": [
            {"path": "limits.py", "old": "    size = 2", "new": "    size = 3", "after": "size = 2\n    size = 3\n",
             "hint": "edit_file must match old_string exactly as given, its spaces too (section 3)"}]}]}),
    Rule("l03_edit_file_zero_matches_raise", drive_edits, judge_zero_matches, {"groups": [
        {"files": {"config.ini": "[server]\nport = 8080\n"},
         "edits": [{"path": "config.ini", "old": "port = 9090", "new": "port = 80"}]}]}),
    Rule("l03_edit_file_several_matches_raise", drive_edits, judge_several_matches, {"groups": [
        {"files": {"prices.py": "tea = 1\ncake = 1\n"},
         "edits": [{"path": "prices.py", "old": "= 1", "new": "= 2", "count": 2}]}]}),
    Rule("l03_edit_file_refusal_leaves_file_untouched", drive_edits, judge_untouched, {"groups": [
        {"files": {"prices.py": "tea = 1\ncake = 1\n"},
         "edits": [{"path": "prices.py", "old": "= 1", "new": "= 2", "before": "tea = 1\ncake = 1\n"},
                   {"path": "prices.py", "old": "tea = 1", "new": "tea = 2", "after": "tea = 2\ncake = 1\n"}]}]}),
    Rule("l03_bash_exit_code_and_stdout", drive_exit_and_stdout, judge_exit_and_stdout, {"cases": [
        {"names": ["apple", "pear"], "folder": "bash_listing"}]}),
    Rule("l03_bash_nonzero_exit_is_a_result", drive_commands, judge_nonzero, {"cases": [
        ["echo partial; exit 3", 3, "partial"]]}),
    Rule("l03_bash_stderr", drive_commands, judge_stderr, {"cases": [
        ["echo ready; echo oops >&2", ["ready"], ["oops"], 0]]}),
    Rule("l03_bash_timeout_raises", drive_timeouts, judge_timeouts, {"cases": [
        {"command": "sleep 5", "timeout": 0.2, "within": 2},
        {"command": "echo quick", "timeout": 1, "prints": "quick"}]},
        timed=True),
    # The background child lets go of bash's pipes, and the shell becomes its last sleep: so a bash
    # that kills only the shell returns at once, while the child still runs.
    Rule("l03_bash_timeout_stops_children", drive_children, judge_children, {"cases": [
        {"command": "(sleep 4; touch late.txt) >/dev/null 2>&1 & exec sleep 8", "timeout": 0.2, "within": 7.5,
         "files": []}]}, timed=True),
    Rule("l03_tools_stay_inside_the_project", drive_fence, judge_fence, {
        "project": "project", "links": {"escape": "../project-old", "here": "src"},
        "files": {"project/notes.txt": "notes old\n", "project/src/app.py": "NAME = 'app'\n",
                  "project-old/secret.txt": "key\n"},
        "secret": "project-old/secret.txt",
        "outside": ["../project-old/secret.txt", "src/../../project-old/secret.txt", f"{TOP}/project-old/secret.txt",
                    "escape/secret.txt"],
        "folders_outside": ["..", "../project-old", f"{TOP}/project-old", "escape"],
        "new_outside": ["../project-old/new.txt", "project-old/new.txt"],
        "reads": [["notes.txt", "notes old\n"], ["src/../notes.txt", "notes old\n"], ["here/app.py", "NAME = 'app'\n"],
                  [f"{TOP}/project/notes.txt", "notes old\n"]],
        "listed": [[".", ["notes.txt", "src/"]], ["src", ["app.py"]]],
        "write": ["new/deeper/file.txt", "written\n"],
        "edit": ["notes.txt", "notes old", "edited", "edited\n"],
        "resolved": ["notes.txt", "src/../notes.txt", "new/not_yet.txt", "."]}),
]
