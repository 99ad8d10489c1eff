"""Lecture 02's rules: read_file, list_files and run_tool (nano/tools.py).

Each rule is defined once, here: `./ok 02` and the notebook's graded cells run its visible case
in your process, and the grader runs the same drive and judge on more cases of the same shape.
Each drive runs in scratch folders filled with the case's files; the judges know the truth from
the inputs alone: a file's text is what was written, a listing is the sorted names. run_tool is
tested on its own: its five tools stand in as doubles answered by the check, so a mistake in
read_file cannot fail run_tool's rules; read_file's and list_files' rules run with lecture 03's
fence out of the way (`no_fence`), so a fence not yet written cannot fail them.
"""

import random
import re

from checks.doubles import Ref
from checks.kit import message_of, outcomes_of, raised_names, returned_text, shown, written
from checks.rule import Rule

NEEDS = ("nano.tools",)  # loaded first by ./ok: a file that does not load is named before any rule runs
MAX_OUTPUT = 20_000  # nano/tools.py's bound on a tool result (given; the lecture says 20,000)
KNOWN = ["read_file", "list_files", "write_file", "edit_file", "bash"]


def no_fence(subject):
    """Lecture 03's fence out of the way for this rule: nano.tools.inside_project becomes
    nano.testing.open_fence, which takes the fence's arguments and gives its absolute path but
    refuses nothing, so that a fence not yet written, or wrong, cannot cost lecture 02's points."""
    got = subject.call("pkgutil.resolve_name", "nano.testing.open_fence", keep=True)
    if type(got.get("ref")) is int:
        subject.set("nano.tools.inside_project", Ref(got["ref"]))


# ---------------------------------------------------------------------------------------------
# read_file

def drive_texts(subject, inputs):
    no_fence(subject)
    with subject.scratch(dict(inputs["files"])):
        return {"outcomes": [subject.call("nano.tools.read_file", path) for path, _ in inputs["files"]]}


def judge_texts(inputs, seen):
    outcomes = outcomes_of(seen, "outcomes", len(inputs["files"]))
    written("read_file", outcomes, 4)
    for (path, expected), outcome in zip(inputs["files"], outcomes):
        if raised_names(outcome) or "value" not in outcome:
            yield f"read_file({path!r}) must return the file's text: {shown(outcome)} (section 4)"
        elif outcome["value"] is None:
            yield f"read_file({path!r}) returned None: return the text, do not print it (section 4)"
        elif returned_text(outcome) is None:
            yield f"read_file({path!r}) must return a str, not {outcome.get('type')} (section 4)"
        elif outcome["value"] != expected:
            yield (f"read_file({path!r}) must return the file's text exactly (UTF-8, nothing added or removed): "
                   f"expected {expected!r}, got {outcome['value']!r} (section 4)")
        else:
            continue
        return


def drive_missing(subject, inputs):
    """Each group's paths, each called in a scratch folder holding the group's files; the tool
    (read_file or list_files) is inputs["tool"]. Last, in the last group's folder, the call on a
    path that is there: a tool that always raises has not done the work."""
    no_fence(subject)
    outcomes, tool = [], f"nano.tools.{inputs['tool']}"
    for group in inputs["groups"]:
        with subject.scratch(group["files"]):
            outcomes.extend(subject.call(tool, path) for path in group["paths"])
            if group is inputs["groups"][-1]:
                present = subject.call(tool, inputs["present"][0])
    return {"outcomes": outcomes, "present": present}


def judge_missing(inputs, seen):
    """Every call raised FileNotFoundError with its path in the message; the path that is there
    gave its text or its listing."""
    tool, section, what = inputs["tool"], inputs["section"], inputs["what"]
    paths = [path for group in inputs["groups"] for path in group["paths"]]
    outcomes = outcomes_of(seen, "outcomes", len(paths))
    written(tool, outcomes, section)
    path, expected = inputs["present"]
    got = returned_text(seen.get("present"))
    if got is None or expected not in got:
        yield (f"{tool}({path!r}) must work when the {what} is there (it must hold {expected!r}), but "
               f"{shown(seen.get('present'))} (section {section})")
        return
    for path, outcome in zip(paths, outcomes):
        if "FileNotFoundError" not in raised_names(outcome):
            yield (f"{tool}({path!r}) must raise FileNotFoundError for a missing {what}, but {shown(outcome)} "
                   f"(sections 2 and {section})")
            return
        if path not in message_of(outcome):
            yield f"the error for a missing {what} must name the path {path!r}; it said {message_of(outcome)!r} (section {section})"
            return


def filler(seed, size):
    """`size` characters drawn from `seed` (for None, about twice MAX_OUTPUT of digit lines): the
    long file, made the same way where it is written and where it is judged."""
    if size is None:
        return "0123456789\n" * (MAX_OUTPUT // 5)
    rng = random.Random(seed)
    return "".join(rng.choice("abcdefgh \n") for _ in range(size))


def drive_long(subject, inputs):
    no_fence(subject)
    outcomes = []
    for seed, size in inputs["files"]:
        with subject.scratch({"logs/run.txt": filler(seed, size)}):
            outcomes.append(subject.call("nano.tools.read_file", "logs/run.txt"))
    return {"outcomes": outcomes}


def judge_long(inputs, seen):
    """Each result is the file's first MAX_OUTPUT characters and clip's note at the end."""
    outcomes = outcomes_of(seen, "outcomes", len(inputs["files"]))
    written("read_file", outcomes, 4)
    for (seed, size), outcome in zip(inputs["files"], outcomes):
        whole = filler(seed, size)
        got = returned_text(outcome)
        if got is None:
            yield f"read_file on a {len(whole)}-character file must return a str, but {shown(outcome)} (section 4)"
        elif len(got) > MAX_OUTPUT + 100:
            yield (f"a {len(whole)}-character file gave a {len(got)}-character result: pass the text through clip "
                   "(section 3)")
        elif not re.search(r"\d+ more characters not shown\]$", got):
            yield (f"a {len(whole)}-character file must come back cut, ending with clip's note saying how much is not "
                   "shown (section 3)")
        elif not got.startswith(whole[:MAX_OUTPUT]):
            yield "a cut result must begin with the file's first MAX_OUTPUT characters, exactly: use clip (section 3)"
        else:
            continue
        return


# ---------------------------------------------------------------------------------------------
# list_files

def drive_listings(subject, inputs):
    """Each case: a scratch folder holding its files (and empty folders), and what list_files
    gave there (called with no argument when the case has no path)."""
    no_fence(subject)
    outcomes = []
    for case in inputs["cases"]:
        with subject.scratch(case["files"]) as folder:
            for name in case.get("folders", []):
                folder.mkdir(name)
            args = [] if case.get("path") is None else [case["path"]]
            outcomes.append(subject.call("nano.tools.list_files", *args))
    return {"outcomes": outcomes}


def listings(inputs, seen):
    """The message for a call that did not return a str (a stub's is its own, kit.written); else
    None, and (the call, the lines it returned, the case) for each case."""
    outcomes = outcomes_of(seen, "outcomes", len(inputs["cases"]))
    written("list_files", outcomes, 5)
    found = []
    for case, outcome in zip(inputs["cases"], outcomes):
        call = "list_files()" if case.get("path") is None else f"list_files({case['path']!r})"
        text = returned_text(outcome)
        if text is None:
            return f"{call} must return one str, one name per line, but {shown(outcome)} (section 5)", []
        found.append((call, text.splitlines(), case))
    return None, found


def judge_sorted(inputs, seen):
    wrong, found = listings(inputs, seen)
    if wrong:
        yield wrong
        return
    for call, lines, case in found:
        if [line.rstrip("/") for line in lines] != case["names"]:
            yield (f"{call} must give the name of every entry of that one folder (hidden ones too, not what is "
                   f"inside subfolders), sorted, one per line: expected {case['names']}, got {lines} (section 5)")
            return


def judge_marked(inputs, seen):
    wrong, found = listings(inputs, seen)
    if wrong:
        yield wrong
        return
    for call, lines, case in found:
        if set(lines) != set(case["names"]):
            yield (f'{call} must end the name of every directory with "/" (an empty one, one with a dot in its '
                   f"name too) and no file's: expected {sorted(case['names'])}, got {lines} (section 5)")
            return


def judge_default(inputs, seen):
    wrong, found = listings(inputs, seen)
    if wrong:
        yield wrong
        return
    for call, lines, case in found:
        if sorted(lines) != sorted(case["names"]):
            yield ("list_files() with no argument must list the directory that is current when it is called (a "
                   f"default of '.', not one computed at import); got {lines} (section 5)")
            return


# ---------------------------------------------------------------------------------------------
# run_tool. The stand-ins answer here, from what run_tool passed them.

def fake_read_file(path):
    return f"<read_file path={path!r}>"


def fake_list_files(path="."):
    return f"<list_files path={path!r}>"


def fake_write_file(path, content):
    return f"<write_file path={path!r} content={content!r}>"


def fake_edit_file(path, old_string, new_string):
    return f"<edit_file path={path!r} old_string={old_string!r} new_string={new_string!r}>"


def fake_bash(command):
    return f"<bash command={command!r}>"


def failing_read_file(path):
    kinds = {"missing": FileNotFoundError, "denied": PermissionError, "garbled": UnicodeError,
             "odd": ValueError, "slow": TimeoutError}
    raise next((kind for k, kind in kinds.items() if k in str(path)), RuntimeError)(f"stand-in: cannot read {path}")


def failing_list_files(path="."):
    kinds = {"missing": FileNotFoundError, "denied": PermissionError, "file": NotADirectoryError,
             "odd": ValueError, "slow": TimeoutError}
    raise next((kind for k, kind in kinds.items() if k in str(path)), RuntimeError)(f"stand-in: cannot list {path}")


def stand_ins(subject, pairs):
    """Stand each (name in nano.tools, handler) in for the tool of that name."""
    for name, double in pairs:
        subject.stand(f"nano.tools.{name}", double)


def expected_call(name, input):
    """What run_tool(name, input) returns when the tools are the fake_* stand-ins."""
    defaults = {"list_files": {"path": "."}}.get(name, {})
    return f"<{name} " + " ".join(f"{key}={value!r}" for key, value in {**defaults, **input}.items()) + ">"


def drive_dispatch(subject, inputs):
    stand_ins(subject, [("read_file", fake_read_file), ("list_files", fake_list_files),
                        ("write_file", fake_write_file), ("edit_file", fake_edit_file), ("bash", fake_bash)])
    return {"outcomes": [subject.call("nano.tools.run_tool", name, dict(input)) for name, input in inputs["calls"]]}


def judge_dispatch(inputs, seen):
    outcomes = outcomes_of(seen, "outcomes", len(inputs["calls"]))
    written("run_tool", outcomes, 6)
    for (name, input), outcome in zip(inputs["calls"], outcomes):
        expected = expected_call(name, input)
        if raised_names(outcome) or "value" not in outcome:
            yield (f"run_tool({name!r}, {input!r}) must call {name} (all five tools belong in the table, lecture "
                   f"03's too), but {shown(outcome)} (section 6)")
        elif outcome["value"] != expected and not input:
            yield ("run_tool('list_files', {}) must call list_files() with no arguments, so that its default path "
                   f"applies; got {outcome['value']!r} (section 6)")
        elif outcome["value"] != expected:
            yield (f"run_tool({name!r}, {input!r}) must call {name} with those keyword arguments and return its "
                   f"result unchanged: expected {expected!r}, got {outcome['value']!r} (section 6)")
        else:
            continue
        return


def drive_unknown(subject, inputs):
    with subject.scratch():
        return {"outcomes": [subject.call("nano.tools.run_tool", name, dict(input)) for name, input in inputs["calls"]]}


def judge_unknown(inputs, seen):
    outcomes = outcomes_of(seen, "outcomes", len(inputs["calls"]))
    written("run_tool", outcomes, 6)
    for (name, _), outcome in zip(inputs["calls"], outcomes):
        if "ValueError" not in raised_names(outcome):
            yield (f"run_tool({name!r}, ...) must raise ValueError: only the five tools may run, but "
                   f"{shown(outcome)} (section 6)")
            return
        missing = [known for known in KNOWN if known not in message_of(outcome)]
        if missing:
            yield (f"the error for unknown tool {name!r} must name the known tools; {missing} are missing from "
                   f"{message_of(outcome)!r} (section 6)")
            return


def drive_failures(subject, inputs):
    stand_ins(subject, [("read_file", failing_read_file), ("list_files", failing_list_files)])
    return {"outcomes": [subject.call("nano.tools.run_tool", name, {"path": path}) for name, path, _ in inputs["calls"]]}


def judge_failures(inputs, seen):
    outcomes = outcomes_of(seen, "outcomes", len(inputs["calls"]))
    written("run_tool", outcomes, 6)
    for (name, path, kind), outcome in zip(inputs["calls"], outcomes):
        if kind not in raised_names(outcome):
            yield (f"run_tool({name!r}, {{'path': {path!r}}}) must let the tool's {kind} through, but "
                   f"{shown(outcome)} (sections 2 and 6)")
            return
        if "stand-in" not in message_of(outcome) or path not in message_of(outcome):
            yield (f"run_tool({name!r}, ...) must pass the tool's own {kind} on; the message became "
                   f"{message_of(outcome)!r} (section 6)")
            return


RULES = [
    Rule("l02_read_file_returns_text", drive_texts, judge_texts, {"files": [
        ["notes.txt", "first line\n\n\tindented line\n"],
        ["café/menu.md", "Température: 21 °C, naïve ☕\n"]]}),
    Rule("l02_read_file_missing_path", drive_missing, judge_missing, {
        "tool": "read_file", "section": 4, "what": "file",
        "groups": [{"files": {"notes.txt": "here\n"}, "paths": ["no_such_file.txt"]}],
        "present": ["notes.txt", "here\n"]}),
    Rule("l02_read_file_clips_long_files", drive_long, judge_long, {"files": [[0, None]]}),
    Rule("l02_list_files_sorted_names", drive_listings, judge_sorted, {"cases": [
        {"files": {name: "" for name in ["cherry.txt", "apple.txt", ".env", "banana.txt"]}, "path": ".",
         "names": [".env", "apple.txt", "banana.txt", "cherry.txt"]},
        {"files": {"src/util.py": "", "src/main.py": ""}, "path": "src", "names": ["main.py", "util.py"]}]}),
    Rule("l02_list_files_marks_directories", drive_listings, judge_marked, {"cases": [
        {"files": {"src/main.py": "", "readme.md": ""}, "folders": ["build"], "path": ".",
         "names": ["readme.md", "src/", "build/"]}]}),
    Rule("l02_list_files_default_path", drive_listings, judge_default, {"cases": [
        {"files": {"only.txt": ""}, "names": ["only.txt"]}]}),
    Rule("l02_list_files_missing_path", drive_missing, judge_missing, {
        "tool": "list_files", "section": 5, "what": "directory",
        "groups": [{"files": {"src/app.py": ""}, "paths": ["no_such_dir"]}],
        "present": ["src", "app.py"]}),
    Rule("l02_run_tool_dispatches", drive_dispatch, judge_dispatch, {"calls": [
        ["read_file", {"path": "notes.txt"}], ["list_files", {"path": "src"}],
        ["write_file", {"path": "out.txt", "content": "hello\n"}],
        ["edit_file", {"path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}],
        ["bash", {"command": "echo hi"}], ["list_files", {}]]}),
    Rule("l02_run_tool_unknown_tool", drive_unknown, judge_unknown, {"calls": [
        ["delete_everything", {}], ["clip", {"text": "abc"}]]}),
    Rule("l02_run_tool_does_not_swallow_errors", drive_failures, judge_failures, {"calls": [
        ["read_file", "missing/gone.txt", "FileNotFoundError"]]}),
]
