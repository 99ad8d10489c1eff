"""Lecture 04's graded behaviours: the rules of checks/l04.py (preview, confirm) on hidden cases.

A rule's drive and judge are defined once, in checks/l04.py, with the visible case ./ok 04 runs;
here each rule gets the draw that adds hidden cases of the same shape to that visible case:
random commands, paths and texts, an edit of part of a line, the Celsius fix on a copy of
fixtures/convert.py, files without a final newline, new files in new folders, every odd call
preview must survive, and many more answers and prompts for confirm.
"""

from autograder.check.behaviour import Behaviour, visible
from checks import l04
from checks.kit import hexes
from checks.l04 import EDIT, ask, case

# fixtures/convert.py as the workspace holds it: the Celsius fix is previewed on a copy.
CELSIUS = ('"""Temperature conversions. One of them is wrong: the Celsius trace is nano fixing it."""\n'
           "\n\n"
           "def celsius_to_fahrenheit(c):\n"
           "    return (c * 5) / 9 + 32\n"
           "\n\n"
           "def fahrenheit_to_celsius(f):\n"
           "    return (f - 32) * 5 / 9\n")


# ---------------------------------------------------------------------------------------------
# preview

def draw_bash(rng):
    commands = ["ls -la fixtures", f"echo {hexes(rng, 32)}", f"python -m pytest -q tests/test_{hexes(rng, 6)}.py",
                f"rm -rf build_{hexes(rng, 6)} && mkdir build", "grep -rn 'TODO' src | wc -l",
                f"for f in *.txt; do\n  cp \"$f\" backup_{hexes(rng, 4)}/\ndone"]
    return {"cases": visible(l04.RULES, "l04_preview_bash_command")["cases"] + [
        case("bash", {"command": command}) for command in commands[1:]]}


def draw_edit(rng):
    tag, timeout = hexes(rng, 8), rng.randint(11, 89)
    path, name = f"src/pkg_{tag}/settings.py", f"notes_{tag}.txt"
    settings = f"NAME = 'svc_{tag}'\nTIMEOUT = {timeout}\nRETRIES = 3  # id {tag}\nDEBUG = False\n"
    return {"cases": visible(l04.RULES, "l04_preview_edit_file_diff")["cases"] + [
        case("edit_file", {"path": path, "old_string": f"= {timeout}", "new_string": "= 90"}, {path: settings},
             lines=[f"-TIMEOUT = {timeout}", "+TIMEOUT = 90"],
             context=[f" NAME = 'svc_{tag}'", f" RETRIES = 3  # id {tag}"]),
        case("edit_file", {"path": "fixtures/convert.py", "old_string": "return (c * 5) / 9 + 32",
                           "new_string": "return (c * 9) / 5 + 32"}, {"fixtures/convert.py": CELSIUS},
             lines=["-    return (c * 5) / 9 + 32", "+    return (c * 9) / 5 + 32"],
             context=[" def celsius_to_fahrenheit(c):"]),
        case("edit_file", {"path": name, "old_string": f"second\nthird {tag}", "new_string": f"2nd\n3rd {tag}"},
             {name: f"first {tag}\nsecond\nthird {tag}"}, lines=["-second", f"-third {tag}", "+2nd", f"+3rd {tag}"]),
    ]}


def draw_write(rng):
    tag = hexes(rng, 8)
    new_path, ini = f"docs_{tag}/README.md", f"cfg_{tag}.ini"
    return {"cases": visible(l04.RULES, "l04_preview_write_file_diff")["cases"] + [
        case("write_file", {"path": new_path, "content": f"# Project {tag}\n\nRun `make {tag}` to build.\n"},
             lines=[f"+# Project {tag}", f"+Run `make {tag}` to build."]),
        case("write_file", {"path": ini, "content": f"[server]\nport = 9{tag[:3]}\nname = {tag}"},
             {ini: f"[server]\nport = 8080\nname = {tag}\n"}, lines=["-port = 8080", f"+port = 9{tag[:3]}"],
             context=[" [server]"]),
    ]}


def draw_unchanged(rng):
    tag = hexes(rng, 8)
    files = {f"lib/{tag}.py": f"VERSION = '{tag}'\nitems = [1, 2, 3]\n"}
    return {"cases": visible(l04.RULES, "l04_preview_changes_nothing")["cases"] + [
        case("edit_file", {"path": f"lib/{tag}.py", "old_string": "[1, 2, 3]", "new_string": f"['{tag}']"}, files,
             shows=["+", f"['{tag}']"]),
        case("write_file", {"path": f"lib/{tag}.py", "content": f"gone {tag}\n"}, files, shows=["+", f"gone {tag}"]),
        case("write_file", {"path": f"new_{tag}/deep/file.txt", "content": f"hello {tag}\n"}, files,
             shows=["+", f"hello {tag}"]),
        case("bash", {"command": f"touch ran_{tag}.txt"}, files, shows=["$ ", f"touch ran_{tag}.txt"]),
    ]}


def draw_never_raises(rng):
    tag = hexes(rng, 8)
    files = {"here.txt": "twice\ntwice\n", "folder/inner.txt": "x\n"}
    calls = [
        ("edit_file", {"path": f"nope_{tag}.py", "old_string": "x = 1", "new_string": f"x = '{tag}'"},
         ["+", f"x = '{tag}'"]),
        ("edit_file", {"path": "here.txt", "old_string": f"absent {tag}", "new_string": "y"}, None),
        ("edit_file", {"path": "here.txt", "old_string": "twice", "new_string": f"once {tag}"}, None),
        ("edit_file", {"path": "folder", "old_string": "a", "new_string": "b"}, None),
        ("edit_file", {"path": "here.txt", "old_string": "", "new_string": "b"}, None),
        ("edit_file", {}, None),
        ("edit_file", {"path": "here.txt", "old_string": "twice"}, None),
        ("write_file", {"path": "folder", "content": f"c {tag}\n"}, None),
        ("write_file", {"path": f"new/{tag}/x.txt", "content": "hi\n"}, None),
        ("write_file", {}, None),
        ("bash", {}, None),
        ("read_file", {"path": f"notes_{tag}.txt"}, None),
        (f"teleport_{tag}", {"to": "mars"}, ["", f"teleport_{tag}"]),
    ]
    return {"cases": visible(l04.RULES, "l04_preview_never_raises")["cases"] + [
        case(name, tool_input, files, shows=shows) for name, tool_input, shows in calls]}


# ---------------------------------------------------------------------------------------------
# confirm

WRITE = {"path": "b.txt", "content": "x"}
YESES = ["YES", "Yes", "yEs", " y", "y ", "  yes\t", "\nY\n", "YES  ", "yes\n", "\ty\r\n"]
NOES = ["n", "no", "", " ", "\n", "N", "NO", "yep", "sure", "y es", "yes please", "ok", "okay", "nope", "yy", "ye",
        "yess", "yeah", "true", "1", "y.", "yes!", "why", "no way", "yes, but not in prod", "Y E S", "ja", "n y", "[y/n]"]


def draw_yes(rng):
    return {"asks": visible(l04.RULES, "l04_confirm_accepts_yes")["asks"] + [
        *(ask([a], name, tool_input) for a in YESES for name, tool_input in [("edit_file", EDIT), ("write_file", WRITE)]),
        ask(["no"], "edit_file", EDIT)]}


def draw_no(rng):
    return {"asks": visible(l04.RULES, "l04_confirm_rejects_everything_else")["asks"] + [
        *(ask([a], "write_file", {"path": "x.txt", "content": "x"}) for a in NOES[2:]),
        ask(["yes"], "write_file", WRITE)]}


def draw_once(rng):
    return {"asks": visible(l04.RULES, "l04_confirm_asks_once")["asks"] + [
        ask(["y"], "bash", {"command": "ls"}),
        *(ask([first, "y", "y", "n"], "edit_file", EDIT) for first in ["y", "n", "maybe", "", "what?", "YES"])]}


def draw_prompt(rng):
    asks = [ask(["n"], "bash", {"command": "ls"}, "PREVIEW-MARKER-4242")]
    for name, tool_input in [("bash", {"command": f"echo {hexes(rng, 32)}"}),
                             ("edit_file", {"path": f"m_{hexes(rng, 6)}.py", "old_string": "a", "new_string": "b"}),
                             ("write_file", {"path": f"w_{hexes(rng, 6)}.txt", "content": "hello\n"})]:
        tag = hexes(rng, 32)
        asks.append(ask(["y"], name, tool_input, f"--- a/{tag}\n+++ b/{tag}\n@@ -1 +1 @@\n-old {tag}\n+new {tag}"))
    return {"asks": visible(l04.RULES, "l04_confirm_prompt_shows_preview")["asks"] + asks}


DRAWS = {"l04_preview_bash_command": draw_bash, "l04_preview_edit_file_diff": draw_edit,
         "l04_preview_write_file_diff": draw_write, "l04_preview_changes_nothing": draw_unchanged,
         "l04_preview_never_raises": draw_never_raises, "l04_confirm_accepts_yes": draw_yes,
         "l04_confirm_rejects_everything_else": draw_no, "l04_confirm_asks_once": draw_once,
         "l04_confirm_prompt_shows_preview": draw_prompt}

BEHAVIOURS = [Behaviour.of(rule, DRAWS[rule.grade_id]) for rule in l04.RULES]
