"""Lecture 02's graded behaviours: the two answers, read_file, list_files and run_tool (nano/tools.py).

Each drive runs its cell's visible case and the hidden ones, in scratch folders the driver fills
with files on names `draw` picks; the subject is told only the path. The judges know the truth
from the inputs alone: a file's text is what was written, a listing is the sorted names.
run_tool is tested on its own: its five tools stand in as doubles answered here (the subject
swaps the function objects' code, so a table built at import, an if/elif chain, an import
inside run_tool and `nano.tools.read_file(...)` all meet them), and what run_tool passed them is
what arrived here. The formats checked exactly (the text as written, one sorted name a line with
"/" after a directory, clip's note, the known tools named in the error) are the ones the
lecture fixes, and ./ok 02 checks them the same way.
"""

import random
import re

from autograder.check import driver
from autograder.check.behaviour import Behaviour
from autograder.check.kit import hexes, message_of, not_written, outcomes_of, raised_names, returned_text, shown

MAX_OUTPUT = 20_000  # nano/tools.py's bound on a tool result (given; the lecture says 20,000)
KNOWN = ["read_file", "list_files", "write_file", "edit_file", "bash"]


def _no_fence(subject):
    """Lecture 03's fence out of the way for this behaviour: nano.tools.inside_project becomes
    pathlib.Path, which lets every path through (and gives a Path, as the fence does), so that a
    fence not yet written, or wrong, cannot cost lecture 02's points."""
    got = subject.call("pkgutil.resolve_name", "pathlib.Path", keep=True)
    if type(got.get("ref")) is int:
        subject.set("nano.tools.inside_project", driver.Ref(got["ref"]))


# ---------------------------------------------------------------------------------------------
# The answers to the two questions

def drive_answers(subject, inputs):
    """The answer variables the question names, as the answer cells left them."""
    return subject.answers(inputs["names"])


def judge_q1(inputs, seen):
    got = seen.get("answer_q1")
    if not isinstance(got, str) or got.strip().lower() != "c":
        yield ("answer_q1 is not right: reread 'JSON Schema in five minutes' (section 1) and the default path "
               "(section 5)")


def judge_q2(inputs, seen):
    got = seen.get("answer_q2")
    if type(got) is not int or got != 3:
        yield "answer_q2 is not right: reread 'Sent on every call' (section 1)"


# ---------------------------------------------------------------------------------------------
# read_file

def draw_texts(rng):
    tag = hexes(rng, 32)
    return {"files": [
        ["notes.txt", "first line\n\n\tindented line\n"],
        [f"src/pkg/mod_{tag[:6]}.py", f'"""Température: 21 °C, naïve café ☕ → {tag}."""\n\nVALUE = "{tag}"\n'],
        ["docs/notes.md", f"# Notes\n\n  two leading spaces, a trailing one \n\n\n{tag[::-1]}"],
        [f"deep/er/still/{tag[6:12]}.txt", f"no final newline, tab\tinside {tag[3:9]}"],
        [f"données/café_{tag[:4]}.txt", f"ünïcödé in the name and in the text: {tag[-5:]} ✓\n"],
    ]}


def drive_texts(subject, inputs):
    _no_fence(subject)
    with subject.scratch(dict(inputs["files"])):
        return {"outcomes": [subject.call("nano.tools.read_file", path) for path, _ in inputs["files"]]}


def judge_texts(inputs, seen):
    outcomes = outcomes_of(seen, "outcomes", len(inputs["files"]))
    stub = not_written("read_file", outcomes, 4)
    if stub:
        yield stub
        return
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


def draw_missing_files(rng):
    tag = hexes(rng, 8)
    return {"groups": [
        {"files": {}, "paths": ["no_such_file.txt"]},
        {"files": {"docs/present.md": f"here {tag}\n", f"other_{tag}.txt": "x"},
         "paths": [f"docs/missing-{tag}.md", f"absent_{tag}/inner.py", f"other_{tag[::-1]}.txt"]},
    ], "present": ["docs/present.md", f"here {tag}\n"]}


def draw_missing_dirs(rng):
    tag = hexes(rng, 8)
    return {"groups": [
        {"files": {}, "paths": ["no_such_dir"]},
        {"files": {f"src/app_{tag}.py": ""}, "paths": [f"src/gone_{tag}", f"nowhere-{tag}", f"nowhere-{tag}/deeper"]},
    ], "present": ["src", f"app_{tag}.py"]}


def drive_missing(subject, inputs):
    """Each group's paths, each called in a scratch folder holding the group's files; the tool
    (read_file or list_files) is inputs["tool"]. Last, in the last group's folder, the call on a
    path that is there: a tool that always raises has not done the work."""
    _no_fence(subject)
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
    stub = not_written(tool, outcomes, section)
    if stub:
        yield stub
        return
    path, expected = inputs["present"]
    got = returned_text(seen.get("present") if isinstance(seen, dict) else None)
    if got is None or expected not in got:
        yield (f"{tool}({path!r}) must work when the {what} is there (it must hold {expected!r}), but "
               f"{shown(seen.get('present') if isinstance(seen, dict) else None)} (section {section})")
        return
    for path, outcome in zip(paths, outcomes):
        if "FileNotFoundError" not in raised_names(outcome):
            yield (f"{tool}({path!r}) must raise FileNotFoundError for a missing {what}, but {shown(outcome)} "
                   f"(sections 2 and {section})")
            return
        if path not in message_of(outcome):
            yield f"the error for a missing {what} must name the path {path!r}; it said {message_of(outcome)!r} (section {section})"
            return


def _filler(seed, size):
    """`size` characters drawn from `seed`: the long file, made the same way where it is written
    and where it is judged."""
    if size is None:
        return "0123456789\n" * (MAX_OUTPUT // 5)
    rng = random.Random(seed)
    return "".join(rng.choice("abcdefgh \n") for _ in range(size))


def draw_long(rng):
    return {"files": [[rng.randrange(2**31), size] for size in
                      [None, MAX_OUTPUT + 1, 3 * MAX_OUTPUT + rng.randint(1, 999)]]}


def drive_long(subject, inputs):
    _no_fence(subject)
    outcomes = []
    for seed, size in inputs["files"]:
        with subject.scratch({"logs/run.txt": _filler(seed, size)}):
            outcomes.append(subject.call("nano.tools.read_file", "logs/run.txt"))
    return {"outcomes": outcomes}


def judge_long(inputs, seen):
    """Each result is the file's first MAX_OUTPUT characters and clip's note at the end."""
    outcomes = outcomes_of(seen, "outcomes", len(inputs["files"]))
    stub = not_written("read_file", outcomes, 4)
    if stub:
        yield stub
        return
    for (seed, size), outcome in zip(inputs["files"], outcomes):
        whole = _filler(seed, size)
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
    _no_fence(subject)
    outcomes = []
    for case in inputs["cases"]:
        with subject.scratch(case["files"]) as folder:
            for name in case.get("folders", []):
                folder.mkdir(name)
            args = [] if case.get("path") is None else [case["path"]]
            outcomes.append(subject.call("nano.tools.list_files", *args))
    return {"outcomes": outcomes}


def _lines(inputs, seen):
    """(case, the lines list_files returned or None, the outcome) for each case."""
    outcomes = outcomes_of(seen, "outcomes", len(inputs["cases"]))
    return [(case, None if returned_text(outcome) is None else returned_text(outcome).splitlines(), outcome)
            for case, outcome in zip(inputs["cases"], outcomes)]


def _listing_failures(inputs, seen):
    """The stub's message, or one for a call that did not return a str; None if every call did."""
    results = _lines(inputs, seen)
    stub = not_written("list_files", [outcome for _, _, outcome in results], 5)
    if stub:
        return stub
    for case, lines, outcome in results:
        if lines is None:
            call = "list_files()" if case.get("path") is None else f"list_files({case['path']!r})"
            return f"{call} must return one str, one name per line, but {shown(outcome)} (section 5)"
    return None


def draw_sorted(rng):
    tag = hexes(rng, 6)
    names = [f"mango-{tag}.txt", "zeta.md", ".env.example", "alpha.py", f"kiwi_{tag}.json",
             "beta.txt", "notes", ".gitignore", f"delta{tag}.cfg"]
    return {"cases": [
        {"files": {name: "" for name in ["cherry.txt", "apple.txt", "banana.txt"]}, "path": ".",
         "names": ["apple.txt", "banana.txt", "cherry.txt"]},
        {"files": {name: "x" for name in names}, "path": ".", "names": sorted(names)},
        {"files": {f"outer/inner/{tag}_one.py": "", "outer/inner/two.py": "", f"outer/inner/deeper/{tag}.py": "",
                   "outer/inner/.hidden": "", "outer/top.txt": ""},
         "path": "outer/inner", "names": sorted([".hidden", "deeper", f"{tag}_one.py", "two.py"])},
    ]}


def judge_sorted(inputs, seen):
    wrong = _listing_failures(inputs, seen)
    if wrong:
        yield wrong
        return
    (_, visible, _), (_, top, _), (inner_case, inner, _) = _lines(inputs, seen)
    if visible != inputs["cases"][0]["names"]:
        yield f"list_files must give the names sorted, one per line; got {visible!r} (section 5)"
    elif top != inputs["cases"][1]["names"]:
        yield (f"list_files must give every entry, hidden files included, sorted, one per line: expected "
               f"{inputs['cases'][1]['names']}, got {top} (section 5)")
    elif [line.rstrip("/") for line in inner] != inner_case["names"]:
        yield ("list_files('outer/inner') must give the names (not paths) of that one directory's entries, "
               f"sorted, without descending into subfolders; got {inner} (section 5)")


def draw_marked(rng):
    tag = hexes(rng, 6)
    return {"cases": [
        {"files": {"src/main.py": "", "readme.md": ""}, "path": ".", "names": ["readme.md", "src/"]},
        {"files": {f"pkg_{tag}/mod.py": "", f"pkg_{tag}/sub/deep.py": "", "license": "", f"data.{tag}": "",
                   "v1.2/readme.txt": ""}, "folders": [f"pkg_{tag}/empty", "build"], "path": ".",
         "names": [f"pkg_{tag}/", "license", f"data.{tag}", "v1.2/", "build/"]},
        {"files": {f"pkg_{tag}/mod.py": "", f"pkg_{tag}/sub/deep.py": ""}, "folders": [f"pkg_{tag}/empty"],
         "path": f"pkg_{tag}", "names": ["mod.py", "sub/", "empty/"]},
    ]}


def judge_marked(inputs, seen):
    wrong = _listing_failures(inputs, seen)
    if wrong:
        yield wrong
        return
    (_, visible, _), (_, top, _), (_, inner, _) = _lines(inputs, seen)
    if set(visible) != set(inputs["cases"][0]["names"]):
        yield f'a directory must be listed with a trailing "/" and a file without; got {visible} (section 5)'
    elif set(top) != set(inputs["cases"][1]["names"]):
        yield ('every directory (even an empty one, even one with a dot in its name) must end with "/", and no '
               f"file may; got {top} (section 5)")
    elif set(inner) != set(inputs["cases"][2]["names"]):
        yield f'list_files on a subdirectory must mark its folders with "/" too; got {inner} (section 5)'


def draw_default(rng):
    first, second = hexes(rng, 8), hexes(rng, 8)
    return {"cases": [
        {"files": {"only.txt": ""}, "names": ["only.txt"]},
        {"files": {f"first_{first}.txt": "1"}, "names": [f"first_{first}.txt"]},
        {"files": {f"second_{second}.txt": "2", "also.md": "3"}, "names": [f"second_{second}.txt", "also.md"]},
    ]}


def judge_default(inputs, seen):
    wrong = _listing_failures(inputs, seen)
    if wrong:
        yield wrong
        return
    for case, lines, _ in _lines(inputs, seen):
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


def _doubles(subject, pairs):
    """Stand each (name in nano.tools, handler) in for the tool of that name."""
    for name, double in pairs:
        subject.stand(f"nano.tools.{name}", double)


def _expected(name, input):
    """What run_tool(name, input) returns when the tools are the fake_* stand-ins."""
    defaults = {"list_files": {"path": "."}}.get(name, {})
    return f"<{name} " + " ".join(f"{key}={value!r}" for key, value in {**defaults, **input}.items()) + ">"


def draw_dispatch(rng):
    tag = hexes(rng, 8)
    return {"calls": [
        ["read_file", {"path": "notes.txt"}], ["list_files", {"path": "src"}],
        ["read_file", {"path": f"docs/{tag}.md"}], ["list_files", {"path": f"src/{tag}"}],
        ["write_file", {"path": f"out/{tag}.txt", "content": f"hello {tag}\n"}],
        ["edit_file", {"path": "a.py", "old_string": f"x = {tag}", "new_string": "x = 2"}],
        ["bash", {"command": f"echo {tag}"}], ["list_files", {}],
    ]}


def drive_dispatch(subject, inputs):
    _doubles(subject, [("read_file", fake_read_file), ("list_files", fake_list_files),
                       ("write_file", fake_write_file), ("edit_file", fake_edit_file), ("bash", fake_bash)])
    return {"outcomes": [subject.call("nano.tools.run_tool", name, dict(input)) for name, input in inputs["calls"]]}


def judge_dispatch(inputs, seen):
    outcomes = outcomes_of(seen, "outcomes", len(inputs["calls"]))
    stub = not_written("run_tool", outcomes, 6)
    if stub:
        yield stub
        return
    for (name, input), outcome in zip(inputs["calls"], outcomes):
        expected = _expected(name, input)
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


def draw_unknown(rng):
    return {"calls": [
        ["delete_everything", {}], ["grep", {"pattern": "x"}], ["Read_File", {"path": "a.txt"}],
        ["read-file", {"path": "a.txt"}], ["clip", {"text": "abc"}], ["run_tool", {"name": "bash", "input": {}}],
        [f"tool_{hexes(rng, 6)}", {}], ["", {}],
    ]}


def drive_unknown(subject, inputs):
    with subject.scratch():
        return {"outcomes": [subject.call("nano.tools.run_tool", name, dict(input)) for name, input in inputs["calls"]]}


def judge_unknown(inputs, seen):
    outcomes = outcomes_of(seen, "outcomes", len(inputs["calls"]))
    stub = not_written("run_tool", outcomes, 6)
    if stub:
        yield stub
        return
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


def draw_failures(rng):
    tag = hexes(rng, 8)
    return {"calls": [
        ["read_file", "missing/gone.txt", "FileNotFoundError"],
        ["read_file", f"missing/{tag}.py", "FileNotFoundError"], ["read_file", f"denied_{tag}.txt", "PermissionError"],
        ["read_file", f"garbled-{tag}.bin", "UnicodeError"], ["read_file", f"odd/{tag}", "ValueError"],
        ["list_files", f"missing_{tag}", "FileNotFoundError"], ["list_files", f"denied/{tag}", "PermissionError"],
        ["list_files", f"file-{tag}.txt", "NotADirectoryError"], ["list_files", f"slow_{tag}", "TimeoutError"],
    ]}


def drive_failures(subject, inputs):
    _doubles(subject, [("read_file", failing_read_file), ("list_files", failing_list_files)])
    return {"outcomes": [subject.call("nano.tools.run_tool", name, {"path": path}) for name, path, _ in inputs["calls"]]}


def judge_failures(inputs, seen):
    outcomes = outcomes_of(seen, "outcomes", len(inputs["calls"]))
    stub = not_written("run_tool", outcomes, 6)
    if stub:
        yield stub
        return
    for (name, path, kind), outcome in zip(inputs["calls"], outcomes):
        if kind not in raised_names(outcome):
            yield (f"run_tool({name!r}, {{'path': {path!r}}}) must let the tool's {kind} through, but "
                   f"{shown(outcome)} (sections 2 and 6)")
            return
        if "stand-in" not in message_of(outcome) or path not in message_of(outcome):
            yield (f"run_tool({name!r}, ...) must pass the tool's own {kind} on; the message became "
                   f"{message_of(outcome)!r} (section 6)")
            return


BEHAVIOURS = [
    Behaviour("l02_q1_check", drive_answers, judge_q1, given={"names": ["answer_q1"]},
              answers=("l02_q1_answer",)),
    Behaviour("l02_q2_check", drive_answers, judge_q2, given={"names": ["answer_q2"]},
              answers=("l02_q1_answer", "l02_q2_answer")),
    Behaviour("l02_read_file_returns_text", drive_texts, judge_texts, draw_texts),
    Behaviour("l02_read_file_missing_path", drive_missing, judge_missing, draw_missing_files,
              given={"tool": "read_file", "section": 4, "what": "file"}),
    Behaviour("l02_read_file_clips_long_files", drive_long, judge_long, draw_long),
    Behaviour("l02_list_files_sorted_names", drive_listings, judge_sorted, draw_sorted),
    Behaviour("l02_list_files_marks_directories", drive_listings, judge_marked, draw_marked),
    Behaviour("l02_list_files_default_path", drive_listings, judge_default, draw_default),
    Behaviour("l02_list_files_missing_path", drive_missing, judge_missing, draw_missing_dirs,
              given={"tool": "list_files", "section": 5, "what": "directory"}),
    Behaviour("l02_run_tool_dispatches", drive_dispatch, judge_dispatch, draw_dispatch),
    Behaviour("l02_run_tool_unknown_tool", drive_unknown, judge_unknown, draw_unknown),
    Behaviour("l02_run_tool_does_not_swallow_errors", drive_failures, judge_failures, draw_failures),
]
