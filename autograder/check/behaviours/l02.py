"""Lecture 02's graded behaviours: the two answers, and the rules of checks/l02.py (read_file,
list_files, run_tool) on hidden cases.

A rule's drive and judge are defined once, in checks/l02.py, with the visible case ./ok 02 runs;
here each rule gets the draw that adds hidden cases of the same shape to that visible case:
random names and texts (non-ASCII, deep folders, no final newline), hidden files, empty folders
and subfolders, more missing paths, longer files, every tool and more unknown names. The answers
to the two questions stay here.
"""

from autograder.check.behaviour import Behaviour, visible
from checks import l02
from checks.kit import hexes
from checks.l02 import MAX_OUTPUT

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
# The hidden cases, each added to the rule's visible case

def draw_texts(rng):
    tag = hexes(rng, 32)
    return {"files": visible(l02.RULES, "l02_read_file_returns_text")["files"] + [
        [f"src/pkg/mod_{tag[:6]}.py", f'"""Température: 21 °C, naïve café ☕ → {tag}."""\n\nVALUE = "{tag}"\n'],
        ["docs/notes.md", f"# Notes\n\n  two leading spaces, a trailing one \n\n\n{tag[::-1]}"],
        [f"deep/er/still/{tag[6:12]}.txt", f"no final newline, tab\tinside {tag[3:9]}"],
        [f"données/café_{tag[:4]}.txt", f"ünïcödé in the name and in the text: {tag[-5:]} ✓\n"],
    ]}


def draw_missing_files(rng):
    tag = hexes(rng, 8)
    return {"groups": visible(l02.RULES, "l02_read_file_missing_path")["groups"] + [
        {"files": {"docs/present.md": f"here {tag}\n", f"other_{tag}.txt": "x"},
         "paths": [f"docs/missing-{tag}.md", f"absent_{tag}/inner.py", f"other_{tag[::-1]}.txt"]},
    ], "present": ["docs/present.md", f"here {tag}\n"]}


def draw_missing_dirs(rng):
    tag = hexes(rng, 8)
    return {"groups": visible(l02.RULES, "l02_list_files_missing_path")["groups"] + [
        {"files": {f"src/app_{tag}.py": ""}, "paths": [f"src/gone_{tag}", f"nowhere-{tag}", f"nowhere-{tag}/deeper"]},
    ], "present": ["src", f"app_{tag}.py"]}


def draw_long(rng):
    return {"files": visible(l02.RULES, "l02_read_file_clips_long_files")["files"] + [
        [rng.randrange(2**31), size] for size in [MAX_OUTPUT + 1, 3 * MAX_OUTPUT + rng.randint(1, 999)]]}


def draw_sorted(rng):
    tag = hexes(rng, 6)
    names = [f"mango-{tag}.txt", "zeta.md", ".env.example", "alpha.py", f"kiwi_{tag}.json",
             "beta.txt", "notes", ".gitignore", f"delta{tag}.cfg"]
    return {"cases": visible(l02.RULES, "l02_list_files_sorted_names")["cases"] + [
        {"files": {name: "x" for name in names}, "path": ".", "names": sorted(names)},
        {"files": {f"outer/inner/{tag}_one.py": "", "outer/inner/two.py": "", f"outer/inner/deeper/{tag}.py": "",
                   "outer/inner/.hidden": "", "outer/top.txt": ""},
         "path": "outer/inner", "names": sorted([".hidden", "deeper", f"{tag}_one.py", "two.py"])},
    ]}


def draw_marked(rng):
    tag = hexes(rng, 6)
    return {"cases": visible(l02.RULES, "l02_list_files_marks_directories")["cases"] + [
        {"files": {f"pkg_{tag}/mod.py": "", f"pkg_{tag}/sub/deep.py": "", "license": "", f"data.{tag}": "",
                   "v1.2/readme.txt": ""}, "folders": [f"pkg_{tag}/empty", "build"], "path": ".",
         "names": [f"pkg_{tag}/", "license", f"data.{tag}", "v1.2/", "build/"]},
        {"files": {f"pkg_{tag}/mod.py": "", f"pkg_{tag}/sub/deep.py": ""}, "folders": [f"pkg_{tag}/empty"],
         "path": f"pkg_{tag}", "names": ["mod.py", "sub/", "empty/"]},
    ]}


def draw_default(rng):
    first, second = hexes(rng, 8), hexes(rng, 8)
    return {"cases": visible(l02.RULES, "l02_list_files_default_path")["cases"] + [
        {"files": {f"first_{first}.txt": "1"}, "names": [f"first_{first}.txt"]},
        {"files": {f"second_{second}.txt": "2", "also.md": "3"}, "names": [f"second_{second}.txt", "also.md"]},
    ]}


def draw_dispatch(rng):
    tag = hexes(rng, 8)
    return {"calls": visible(l02.RULES, "l02_run_tool_dispatches")["calls"] + [
        ["read_file", {"path": f"docs/{tag}.md"}], ["list_files", {"path": f"src/{tag}"}],
        ["write_file", {"path": f"out/{tag}.txt", "content": f"hello {tag}\n"}],
        ["edit_file", {"path": "a.py", "old_string": f"x = {tag}", "new_string": "x = 2"}],
        ["bash", {"command": f"echo {tag}"}],
    ]}


def draw_unknown(rng):
    return {"calls": visible(l02.RULES, "l02_run_tool_unknown_tool")["calls"] + [
        ["grep", {"pattern": "x"}], ["Read_File", {"path": "a.txt"}],
        ["read-file", {"path": "a.txt"}], ["clip", {"text": "abc"}], ["run_tool", {"name": "bash", "input": {}}],
        [f"tool_{hexes(rng, 6)}", {}], ["", {}],
    ]}


def draw_failures(rng):
    tag = hexes(rng, 8)
    return {"calls": visible(l02.RULES, "l02_run_tool_does_not_swallow_errors")["calls"] + [
        ["read_file", f"missing/{tag}.py", "FileNotFoundError"], ["read_file", f"denied_{tag}.txt", "PermissionError"],
        ["read_file", f"garbled-{tag}.bin", "UnicodeError"], ["read_file", f"odd/{tag}", "ValueError"],
        ["list_files", f"missing_{tag}", "FileNotFoundError"], ["list_files", f"denied/{tag}", "PermissionError"],
        ["list_files", f"file-{tag}.txt", "NotADirectoryError"], ["list_files", f"slow_{tag}", "TimeoutError"],
    ]}


DRAWS = {"l02_read_file_returns_text": draw_texts, "l02_read_file_missing_path": draw_missing_files,
         "l02_read_file_clips_long_files": draw_long, "l02_list_files_sorted_names": draw_sorted,
         "l02_list_files_marks_directories": draw_marked, "l02_list_files_default_path": draw_default,
         "l02_list_files_missing_path": draw_missing_dirs, "l02_run_tool_dispatches": draw_dispatch,
         "l02_run_tool_unknown_tool": draw_unknown, "l02_run_tool_does_not_swallow_errors": draw_failures}

BEHAVIOURS = [
    Behaviour("l02_q1_check", drive_answers, judge_q1, given={"names": ["answer_q1"]},
              answers=("l02_q1_answer",)),
    Behaviour("l02_q2_check", drive_answers, judge_q2, given={"names": ["answer_q2"]},
              answers=("l02_q1_answer", "l02_q2_answer")),
] + [Behaviour.of(rule, DRAWS[rule.grade_id]) for rule in l02.RULES]
