"""Lecture 03's graded behaviours: the rules of checks/l03.py (write_file, edit_file, bash, the
fence) on hidden cases.

A rule's drive and judge are defined once, in checks/l03.py, with the visible case ./ok 03 runs;
here each rule gets the draw that adds hidden cases of the same shape to that visible case:
random names, deep folders, non-ASCII and empty contents, multi-line and whitespace edits, more
counts of matches, a missing file and an empty old_string, failing commands with random exit
codes, Python tracebacks, slower commands and children that detach, with BASH_TIMEOUT = 1; for the fence, a project and a
sibling of random names (the sibling's beginning like the project's).
"""

import string

from autograder.check.behaviour import Behaviour, visible
from checks import l03
from checks.l03 import TOP


def _words(rng, count, size=6):
    """`count` different lowercase words of `size` letters."""
    words = []
    while len(words) < count:
        word = "".join(rng.choice(string.ascii_lowercase) for _ in range(size))
        if word not in words:
            words.append(word)
    return words


def draw_parent_dirs(rng):
    a, b, c = _words(rng, 3)
    return {"groups": visible(l03.RULES, "l03_write_file_creates_parent_dirs")["groups"] + [{"files": {}, "writes": [
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
    return {"groups": visible(l03.RULES, "l03_write_file_replaces_contents")["groups"] + [
        {"files": {name: old}, "writes": [
            [name, new, "write_file must replace the old text completely: no append, no leftovers (section 1)"],
            [name, f"crème brûlée {new}\n\n  trailing spaces  ",
             "write_file must write exactly the content, as UTF-8: nothing added or stripped (section 1)"],
            [name, "", "write_file with empty content must leave an empty file (section 1)"]]},
    ]}


def draw_confirmations(rng):
    a, b, c, d, e = _words(rng, 5)
    return {"cases": visible(l03.RULES, "l03_write_file_confirmation")["cases"] + [
        [f"{a}/{b}.txt", _words(rng, 1, rng.randrange(50) + 3)[0]],
        [f"{c}.md", "naïve café, déjà vu: " + _words(rng, 1, rng.randrange(9) + 1)[0]],
        [f"{d}/{e}/empty.txt", ""]]}


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
    return {"groups": visible(l03.RULES, "l03_edit_file_one_match")["groups"] + [{"files": {path: before}, "edits": edits}]}


def draw_zero_matches(rng):
    a, b, c, d = _words(rng, 4)
    path, missing = f"{a}/{b}.py", f"{c}/{d}.txt"
    return {"groups": visible(l03.RULES, "l03_edit_file_zero_matches_raise")["groups"] + [
        {"files": {path: f"def {a}():\n\treturn '{b}'\n"},
         "edits": [{"path": path, "old": old, "new": "x"}
                   for old in [f"return '{a}'", f"    return '{b}'", f"Return '{b}'", f"def  {a}():"]]
                  + [{"path": missing, "old": "a", "new": "b", "missing": True},
                     {"path": path, "old": "", "new": "x"}]}]}


def draw_several_matches(rng):
    groups = list(visible(l03.RULES, "l03_edit_file_several_matches_raise")["groups"])
    for count in (3, 5):
        name, word = _words(rng, 2)
        path = f"{name}/{name}.txt"
        groups.append({"files": {path: "start\n" + "".join(f"line {word}\n" for _ in range(count)) + "end\n"},
                       "edits": [{"path": path, "old": f"line {word}", "new": "changed", "count": count}]})
    return {"groups": groups}


def draw_untouched(rng):
    a, b = _words(rng, 2)
    before = (f"def to_{a}(c):\n    return (c * 5) / 9 + 32\n\n\n"
              f"def to_{b}(f):\n    return (f - 32) * 5 / 9\n")
    path = f"{a}/{b}.py"
    return {"groups": visible(l03.RULES, "l03_edit_file_refusal_leaves_file_untouched")["groups"] + [
        {"files": {path: before},
         "edits": [{"path": path, "old": old, "new": new, "before": before}
                   for old, new in [("* 5", "* 9"), (" / 9", " / 5"), ("    return", "  return"),
                                    (f"to_{b}(c)", "x")]]
         # last, an edit that is not refused: an edit_file that refuses everything has not done the work
         + [{"path": path, "old": f"def to_{b}(f)", "new": f"def to_{b}(x)",
             "after": before.replace(f"def to_{b}(f)", f"def to_{b}(x)")}]}]}


def draw_exit_and_stdout(rng):
    a, b = _words(rng, 2)
    return {"cases": visible(l03.RULES, "l03_bash_exit_code_and_stdout")["cases"] + [
        {"names": [a, b], "folder": "bash_" + _words(rng, 1, 10)[0]}]}


def draw_nonzero(rng):
    tag = _words(rng, 1)[0]
    code = rng.randrange(100) + 10
    return {"cases": visible(l03.RULES, "l03_bash_nonzero_exit_is_a_result")["cases"] + [
        ["exit 3", 3, None],
        [f"echo partial-{tag}; exit {code}", code, f"partial-{tag}"],
        ["false", 1, None],
        ["{python} -c 'import sys; print(\"" + tag + "\"); sys.exit(7)'", 7, tag],
        [f"grep {tag} /dev/null", 1, None]]}


def draw_stderr(rng):
    out, err = _words(rng, 2)
    out, err = f"out-{out}", f"err-{err}"
    return {"cases": visible(l03.RULES, "l03_bash_stderr")["cases"] + [
        [f"echo {out}; echo {err} >&2; exit 5", [out], [err], 5],
        ["{python} -c 'import sys; sys.stderr.write(\"" + err + "\\n\"); 1 / 0'", [],
         ["ZeroDivisionError", err], 1]]}


def draw_timeouts(rng):
    tag = "quick-" + _words(rng, 1)[0]
    slow = [["sleep 5", 4.8], ["echo started; sleep 4", 3.8], ["{python} -c 'import time; time.sleep(4)'", 3.8]]
    return {"cases": visible(l03.RULES, "l03_bash_timeout_raises")["cases"]
            + [{"command": command, "timeout": 1, "within": within} for command, within in slow]
            + [{"command": f"echo {tag}", "timeout": 1, "prints": tag}]}


def draw_children(rng):
    tags = [str(rng.randrange(10**8, 10**9)) for _ in range(4)]
    # As in the visible case, the background children let go of bash's pipes and the shell
    # becomes its last sleep: a bash that kills only the shell returns at once, the children
    # running. A bash that waits for the command takes 8 s.
    commands = [[f"(sleep 4.{tags[0]}; touch late.txt) >/dev/null 2>&1 & exec sleep 8.{tags[1]}", []],
                [f"echo started > started.txt; sh -c 'exec sleep 8.{tags[2]}' >/dev/null 2>&1 & "
                 f"exec sleep 8.{tags[3]}", ["started.txt"]]]
    return {"cases": visible(l03.RULES, "l03_bash_timeout_stops_children")["cases"] + [
        {"command": command, "timeout": 1, "within": 7.5, "files": files} for command, files in commands]}


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


DRAWS = {"l03_write_file_creates_parent_dirs": draw_parent_dirs, "l03_write_file_replaces_contents": draw_replaces,
         "l03_write_file_confirmation": draw_confirmations, "l03_edit_file_one_match": draw_one_match,
         "l03_edit_file_zero_matches_raise": draw_zero_matches,
         "l03_edit_file_several_matches_raise": draw_several_matches,
         "l03_edit_file_refusal_leaves_file_untouched": draw_untouched,
         "l03_bash_exit_code_and_stdout": draw_exit_and_stdout, "l03_bash_nonzero_exit_is_a_result": draw_nonzero,
         "l03_bash_stderr": draw_stderr, "l03_bash_timeout_raises": draw_timeouts,
         "l03_bash_timeout_stops_children": draw_children, "l03_tools_stay_inside_the_project": draw_fence}

BEHAVIOURS = [Behaviour.of(rule, DRAWS[rule.grade_id]) for rule in l03.RULES]
