"""The independent check of lecture 04 (the gate): `preview` and `confirm`, one Scenario per graded cell.

Each scenario replays what its cell's visible and hidden tests do, with inputs drawn from SEED,
and reports the raw results: preview's text, confirm's return value and the prompts it put. The
judges, in the grader, apply the tests' own asserts to those, taking every input from the
reference's observations. confirm is run with a stand-in preview, as the tests do, so a broken
preview does not cost confirm's cells.
"""

from autograder.check.scenarios import HELPERS, text, value
from autograder.check.independent import Scenario

# Helpers every scenario of this lecture starts with: scratch folders, a scripted person.
PRELUDE = HELPERS + '''
import asyncio, builtins, unittest.mock
from nano import gate


def hexes(n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


@contextlib.contextmanager
def folder(files=None):
    """Work in a new folder under scratch holding `files` ({path: text}), then come back."""
    place = scratch / f"case_{hexes(12)}"
    for name, text in (files or {}).items():
        (place / name).parent.mkdir(parents=True, exist_ok=True)
        (place / name).write_text(text, encoding="utf-8")
    place.mkdir(exist_ok=True)
    home = os.getcwd()
    os.chdir(place)
    try:
        yield place
    finally:
        os.chdir(home)


class Runaway(BaseException):
    pass


class Person:
    """scripted_asker's twin: answers in order, records prompts, EOFError when out of answers."""

    def __init__(self, answers):
        self.answers, self.prompts = list(answers), []

    async def question(self, prompt):
        if len(self.prompts) >= len(self.answers) + 20:
            raise Runaway("asked far past the end of the script")
        self.prompts.append(prompt)
        if len(self.prompts) > len(self.answers):
            raise EOFError("no more scripted answers")
        return self.answers[len(self.prompts) - 1]


def stand_in_preview(name, input):
    return f"(preview of {name})"


def ask(answers, name, tool_input, preview=stand_in_preview):
    """confirm(Person(answers), name, tool_input) with `preview` in place: what it returned and the prompts."""
    person = Person(answers)
    with unittest.mock.patch.object(gate, "preview", preview):
        got = attempt(lambda: asyncio.run(gate.confirm(person, name, tool_input)))
    got["prompts"] = list(person.prompts)
    return got
'''


def _has_headers(lines: list[str], path: str) -> bool:
    return (any(line.startswith("--- ") and path in line for line in lines)
            and any(line.startswith("+++ ") and path in line for line in lines))


# --- preview("bash", ...) --------------------------------------------------------------------

BASH = PRELUDE + '''
commands = ["ls -la fixtures", f"echo {hexes(32)}", f"python -m pytest -q tests/test_{hexes(6)}.py",
            f"rm -rf build_{hexes(6)} && mkdir build", "grep -rn 'TODO' src | wc -l",
            f"for f in *.txt; do\\n  cp \\"$f\\" backup_{hexes(4)}/\\ndone"]
with folder():
    observe(commands=commands, shown=[attempt(gate.preview, "bash", {"command": c}) for c in commands])
'''


def judge_bash(got: dict, ref: dict) -> bool:
    shown = got["shown"]
    return len(shown) == len(ref["commands"]) and all(
        text(s) is not None and text(s).rstrip("\n") == f"$ {c}" for s, c in zip(shown, ref["commands"]))


# --- preview("edit_file", ...) ---------------------------------------------------------------

EDIT = PRELUDE + '''
cases = {}
with folder({"greet.py": 'def greet():\\n    return "helo"\\n'}):
    cases["greet"] = attempt(gate.preview, "edit_file", {"path": "greet.py", "old_string": '"helo"', "new_string": '"hello"'})
tag = hexes(8)
path = f"src/pkg_{tag}/settings.py"
text = f"NAME = 'svc_{tag}'\\nTIMEOUT = {len(tag) * 7}\\nRETRIES = 3  # id {tag}\\nDEBUG = False\\n"
with folder({path: text}):
    cases["settings"] = attempt(gate.preview, "edit_file", {"path": path, "old_string": f"= {len(tag) * 7}", "new_string": "= 90"})
celsius = Path("fixtures/convert.py").read_text(encoding="utf-8")
with folder({"fixtures/convert.py": celsius}):
    cases["celsius"] = attempt(gate.preview, "edit_file", {"path": "fixtures/convert.py",
                                                           "old_string": "return (c * 5) / 9 + 32",
                                                           "new_string": "return (c * 9) / 5 + 32"})
name = f"notes_{tag}.txt"
with folder({name: f"first {tag}\\nsecond\\nthird {tag}"}):
    cases["notes"] = attempt(gate.preview, "edit_file", {"path": name, "old_string": f"second\\nthird {tag}",
                                                         "new_string": f"2nd\\n3rd {tag}"})
observe(tag=tag, path=path, name=name, cases=cases)
'''


def judge_edit(got: dict, ref: dict) -> bool:
    tag, path, name = ref["tag"], ref["path"], ref["name"]
    shown = {k: text(v) for k, v in got["cases"].items()}
    if any(shown.get(k) is None for k in ("greet", "settings", "celsius", "notes")):
        return False
    greet = shown["greet"].splitlines()
    settings = shown["settings"].splitlines()
    celsius = shown["celsius"].splitlines()
    notes = shown["notes"].splitlines()
    return (_has_headers(greet, "greet.py")
            and '-    return "helo"' in greet and '+    return "hello"' in greet
            and _has_headers(settings, path)
            and f"-TIMEOUT = {len(tag) * 7}" in settings and "+TIMEOUT = 90" in settings
            and (f" NAME = 'svc_{tag}'" in settings or f" RETRIES = 3  # id {tag}" in settings)
            and _has_headers(celsius, "fixtures/convert.py")
            and "-    return (c * 5) / 9 + 32" in celsius and "+    return (c * 9) / 5 + 32" in celsius
            and " def celsius_to_fahrenheit(c):" in celsius
            and _has_headers(notes, name)
            and all(line in notes for line in ["-second", f"-third {tag}", "+2nd", f"+3rd {tag}"]))


# --- preview("write_file", ...) --------------------------------------------------------------

WRITE = PRELUDE + '''
cases = {}
with folder({"todo.txt": "milk\\neggs\\n"}):
    cases["todo"] = attempt(gate.preview, "write_file", {"path": "todo.txt", "content": "milk\\nbread\\n"})
tag = hexes(8)
new_path = f"docs_{tag}/README.md"
with folder():
    cases["new"] = attempt(gate.preview, "write_file", {"path": new_path,
                                                        "content": f"# Project {tag}\\n\\nRun `make {tag}` to build.\\n"})
ini = f"cfg_{tag}.ini"
with folder({ini: f"[server]\\nport = 8080\\nname = {tag}\\n"}):
    cases["ini"] = attempt(gate.preview, "write_file", {"path": ini, "content": f"[server]\\nport = 9{tag[:3]}\\nname = {tag}"})
observe(tag=tag, new_path=new_path, ini=ini, cases=cases)
'''


def judge_write(got: dict, ref: dict) -> bool:
    tag, new_path, ini = ref["tag"], ref["new_path"], ref["ini"]
    shown = {k: text(v) for k, v in got["cases"].items()}
    if any(shown.get(k) is None for k in ("todo", "new", "ini")):
        return False
    todo, new, cfg = (shown[k].splitlines() for k in ("todo", "new", "ini"))
    removed = [line for line in new if line.startswith("-") and not line.startswith("---")]
    return (_has_headers(todo, "todo.txt") and "-eggs" in todo and "+bread" in todo
            and _has_headers(new, new_path)
            and f"+# Project {tag}" in new and f"+Run `make {tag}` to build." in new and not removed
            and any(line.startswith("--- ") and ini in line for line in cfg)
            and "-port = 8080" in cfg and f"+port = 9{tag[:3]}" in cfg and " [server]" in cfg)


# --- preview changes nothing -----------------------------------------------------------------

UNCHANGED = PRELUDE + '''
calls = []
with folder({"greet.py": 'print("helo")\\n'}):
    calls.append(attempt(gate.preview, "edit_file", {"path": "greet.py", "old_string": "helo", "new_string": "hello"}))
    greet = Path("greet.py").read_text(encoding="utf-8")
tag = hexes(8)
original = f"VERSION = '{tag}'\\nitems = [1, 2, 3]\\n"
after = {}
with folder({f"lib/{tag}.py": original}) as place:
    calls.append(attempt(gate.preview, "edit_file", {"path": f"lib/{tag}.py", "old_string": "[1, 2, 3]", "new_string": "[]"}))
    after["edit"] = Path(f"lib/{tag}.py").read_text(encoding="utf-8")
    calls.append(attempt(gate.preview, "write_file", {"path": f"lib/{tag}.py", "content": "gone\\n"}))
    after["write"] = Path(f"lib/{tag}.py").read_text(encoding="utf-8")
    calls.append(attempt(gate.preview, "write_file", {"path": f"new_{tag}/deep/file.txt", "content": f"hello {tag}\\n"}))
    after["new_folder"] = Path(f"new_{tag}").exists()
    calls.append(attempt(gate.preview, "bash", {"command": f"touch ran_{tag}.txt"}))
    after["ran"] = Path(f"ran_{tag}.txt").exists()
    after["names"] = sorted(p.name for p in place.iterdir())
observe(greet=greet, original=original, after=after, failed=[c for c in calls if "raised" in c])
'''


def judge_unchanged(got: dict, ref: dict) -> bool:
    after = got["after"]
    return (not got["failed"] and got["greet"] == 'print("helo")\n'
            and after["edit"] == ref["original"] and after["write"] == ref["original"]
            and after["new_folder"] is False and after["ran"] is False and after["names"] == ["lib"])


# --- preview never raises --------------------------------------------------------------------

NEVER_RAISES = PRELUDE + '''
outcomes = []
with folder():
    outcomes.append(attempt(gate.preview, "edit_file", {"path": "missing.py", "old_string": "a = 1", "new_string": "a = 2"}))
tag = hexes(8)
cases = [
    ("edit_file", {"path": f"nope_{tag}.py", "old_string": "x = 1", "new_string": f"x = '{tag}'"}),
    ("edit_file", {"path": "here.txt", "old_string": f"absent {tag}", "new_string": "y"}),
    ("edit_file", {"path": "here.txt", "old_string": "twice", "new_string": f"once {tag}"}),
    ("edit_file", {"path": "folder", "old_string": "a", "new_string": "b"}),
    ("edit_file", {"path": "here.txt", "old_string": "", "new_string": "b"}),
    ("edit_file", {}),
    ("edit_file", {"path": "here.txt", "old_string": "twice"}),
    ("write_file", {"path": "folder", "content": f"c {tag}\\n"}),
    ("write_file", {"path": f"new/{tag}/x.txt", "content": "hi\\n"}),
    ("write_file", {}),
    ("bash", {}),
    ("read_file", {"path": f"notes_{tag}.txt"}),
    (f"teleport_{tag}", {"to": "mars"}),
]
with folder({"here.txt": "twice\\ntwice\\n", "folder/inner.txt": "x\\n"}):
    outcomes += [attempt(gate.preview, name, tool_input) for name, tool_input in cases]
observe(tag=tag, outcomes=outcomes)
'''


def judge_never_raises(got: dict, ref: dict) -> bool:
    outcomes, tag = got["outcomes"], ref["tag"]
    return (len(outcomes) == len(ref["outcomes"]) and all(text(o) is not None for o in outcomes)
            and f"x = '{tag}'" in text(outcomes[1]) and f"teleport_{tag}" in text(outcomes[-1]))


# --- confirm ---------------------------------------------------------------------------------

ACCEPTS = PRELUDE + '''
asked = [ask([a], "bash", {"command": "ls"}) for a in ["y", "yes", "Y"]]
for answer in ["YES", "Yes", "yEs", " y", "y ", "  yes\\t", "\\nY\\n", "YES  ", "yes\\n", "\\ty\\r\\n"]:
    asked.append(ask([answer], "edit_file", {"path": "a.py", "old_string": "1", "new_string": "2"}))
    asked.append(ask([answer], "write_file", {"path": "b.txt", "content": "x"}))
observe(asked=asked)
'''

REJECTS = PRELUDE + '''
answers = ["n", "no", "", " ", "\\n", "N", "NO", "yep", "sure", "y es", "yes please", "ok", "okay", "nope", "yy",
           "ye", "yess", "yeah", "true", "1", "y.", "yes!", "why", "no way", "yes, but not in prod",
           "Y E S", "ja", "n y", "[y/n]"]
observe(asked=[ask([a], "write_file", {"path": "x.txt", "content": "x"}) for a in answers])
'''


def _approved_as_ref(got: dict, ref: dict) -> bool:
    return got.get("type") == "bool" and type(value(ref)) is bool and value(got) is value(ref)


def judge_answers(got: dict, ref: dict) -> bool:
    return len(got["asked"]) == len(ref["asked"]) and all(
        _approved_as_ref(g, r) for g, r in zip(got["asked"], ref["asked"]))


ONCE = PRELUDE + '''
asked = [ask(["y"], "bash", {"command": "ls"})]


def no_input(*args, **kwargs):
    raise AssertionError("confirm called input()")


with unittest.mock.patch.object(builtins, "input", no_input):
    for first in ["y", "n", "maybe", "", "what?", "YES"]:
        asked.append(ask([first, "y", "y", "n"], "edit_file", {"path": "a.py", "old_string": "1", "new_string": "2"}))
observe(asked=asked)
'''


def judge_once(got: dict, ref: dict) -> bool:
    asked = got["asked"]
    return (len(asked) == len(ref["asked"]) and "raised" not in asked[0]
            and all(_approved_as_ref(g, r) for g, r in zip(asked[1:], ref["asked"][1:]))
            and all(len(g["prompts"]) == 1 for g in asked))


PROMPT = PRELUDE + '''
asked = [ask(["n"], "bash", {"command": "ls"}, preview=lambda name, input: "PREVIEW-MARKER-4242")]
markers, calls = ["PREVIEW-MARKER-4242"], [None]
for name, tool_input in [("bash", {"command": f"echo {hexes(32)}"}),
                         ("edit_file", {"path": f"m_{hexes(6)}.py", "old_string": "a", "new_string": "b"}),
                         ("write_file", {"path": f"w_{hexes(6)}.txt", "content": "hello\\n"})]:
    tag = hexes(32)
    marker = f"--- a/{tag}\\n+++ b/{tag}\\n@@ -1 +1 @@\\n-old {tag}\\n+new {tag}"
    seen = []

    def recording_preview(name, input, marker=marker, seen=seen):
        seen.append([name, input])
        return marker

    asked.append(ask(["y"], name, tool_input, preview=recording_preview))
    markers.append(marker)
    calls.append(seen[:1])
observe(asked=asked, markers=markers, calls=calls)
'''


def judge_prompt(got: dict, ref: dict) -> bool:
    if len(got["asked"]) != len(ref["asked"]) or got["calls"] != ref["calls"]:
        return False
    for n, (asked, marker) in enumerate(zip(got["asked"], ref["markers"])):
        prompts = asked["prompts"]
        if "raised" in asked or not prompts or not isinstance(prompts[0], str) or (n and len(prompts) != 1):
            return False
        if marker not in prompts[0] or not prompts[0].rstrip().endswith("[y/n]"):
            return False
    return True


SCENARIOS = [
    Scenario("l04_preview_bash_command", BASH, judge_bash),
    Scenario("l04_preview_edit_file_diff", EDIT, judge_edit),
    Scenario("l04_preview_write_file_diff", WRITE, judge_write),
    Scenario("l04_preview_changes_nothing", UNCHANGED, judge_unchanged),
    Scenario("l04_preview_never_raises", NEVER_RAISES, judge_never_raises),
    Scenario("l04_confirm_accepts_yes", ACCEPTS, judge_answers),
    Scenario("l04_confirm_rejects_everything_else", REJECTS, judge_answers),
    Scenario("l04_confirm_asks_once", ONCE, judge_once),
    Scenario("l04_confirm_prompt_shows_preview", PROMPT, judge_prompt),
]
