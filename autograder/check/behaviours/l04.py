"""Lecture 04's graded behaviours: `preview` and `confirm` in nano/gate.py.

preview is called in a fresh scratch folder holding the files each case names (written by the
driver), and what it returned (or raised) is judged line by line: `$ <command>` for bash; for
edit_file and write_file a unified diff whose `---`/`+++` headers name the path (a new file's
`---` line may be git's `--- /dev/null`), whose changed lines appear whole after `-` and `+`,
with context lines starting with a space. That preview changed nothing is read by the driver,
from the scratch folder. confirm is called with a scripted asker whose questions are recorded
here, with `preview` standing in as a double answered here (so a mistake in preview cannot cost
confirm's cells, whatever the import style, and the prompt can be checked for what preview
returned), and with input() standing in as a double that records the call and fails.
"""

from autograder.check.behaviour import Behaviour
from checks.doubles import Raise, asker
from checks.kit import hexes

# fixtures/convert.py as the workspace holds it: the Celsius fix is previewed on a copy.
CELSIUS = ('"""Temperature conversions. One of them is wrong: the Celsius trace is nano fixing it."""\n'
           "\n\n"
           "def celsius_to_fahrenheit(c):\n"
           "    return (c * 5) / 9 + 32\n"
           "\n\n"
           "def fahrenheit_to_celsius(f):\n"
           "    return (f - 32) * 5 / 9\n")


def case(name, tool_input, files=None):
    """One call of preview: the tool's name and input, in a scratch folder holding `files`."""
    return {"name": name, "input": tool_input, "files": files or {}}


# ---------------------------------------------------------------------------------------------
# preview: observed the same way for every cell that only looks at what it returns.

def drive_previews(subject, inputs):
    """What preview returned (or raised) for each case, each in a fresh scratch folder."""
    shown = {}
    for key, call in inputs["cases"].items():
        with subject.scratch(call["files"]):
            shown[key] = subject.call("nano.gate.preview", call["name"], call["input"])
    return {"shown": shown}


def _shown(seen, key):
    """The text preview returned for case `key`, or None if it raised or returned no str."""
    shown = seen.get("shown") if isinstance(seen, dict) else None
    outcome = shown.get(key) if isinstance(shown, dict) else None
    if not isinstance(outcome, dict) or "raised" in outcome:
        return None
    value = outcome.get("value")
    return value if isinstance(value, str) else None


def _repr(value):
    """repr(value) for a message, whatever the subject sent (a huge int or a deep list cannot be
    shown whole)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return "a value too large to show"
    return text if len(text) <= 4000 else text[:4000] + "..."


def _str(value):
    """str(value) for a message: a str as it is, anything else as _repr shows it."""
    return value if isinstance(value, str) else _repr(value)


def _kind(raised):
    """The class name an outcome's "raised" starts with, or "an exception"."""
    return raised[0] if isinstance(raised, list) and raised and isinstance(raised[0], str) else "an exception"


def _wrong(seen, key, what):
    """The message for case `key` if preview raised or returned no str; None if it gave a str."""
    shown = seen.get("shown") if isinstance(seen, dict) else None
    outcome = shown.get(key) if isinstance(shown, dict) else None
    if not isinstance(outcome, dict):
        return f"preview gave nothing for {what} (section 2)"
    if "raised" in outcome:
        return (f"preview must never raise, but for {what} it raised {_kind(outcome.get('raised'))}: "
                f"{_str(outcome.get('message'))} (section 2)")
    if not isinstance(outcome.get("value"), str):
        return f"preview must return a str for {what}, not {_str(outcome.get('type'))} (section 2)"
    return None


def _headers(lines, path, new_file=False):
    """A '--- ' line naming `path` (any '--- ' line for a new file, e.g. --- /dev/null) and a
    '+++ ' line naming it."""
    old = any(line.startswith("--- ") and (new_file or path in line) for line in lines)
    return old and any(line.startswith("+++ ") and path in line for line in lines)


# --- preview("bash", ...) --------------------------------------------------------------------

def draw_bash(rng):
    commands = ["ls -la fixtures", f"echo {hexes(rng, 32)}", f"python -m pytest -q tests/test_{hexes(rng, 6)}.py",
                f"rm -rf build_{hexes(rng, 6)} && mkdir build", "grep -rn 'TODO' src | wc -l",
                f"for f in *.txt; do\n  cp \"$f\" backup_{hexes(rng, 4)}/\ndone"]
    return {"cases": {str(n): case("bash", {"command": c}) for n, c in enumerate(commands)}}


def judge_bash(inputs, seen):
    for key, call in inputs["cases"].items():
        command = call["input"]["command"]
        what = f'preview("bash", {{"command": {command!r}}})'
        wrong = _wrong(seen, key, what)
        if wrong:
            yield wrong
            return
        shown = _shown(seen, key)
        if shown.rstrip("\n") != f"$ {command}":
            yield f'{what} must be "$ " + the command; it was {shown!r} (section 2)'
            return


# --- preview("edit_file", ...) ---------------------------------------------------------------

def draw_edit(rng):
    tag, timeout = hexes(rng, 8), rng.randint(11, 89)
    path, name = f"src/pkg_{tag}/settings.py", f"notes_{tag}.txt"
    settings = f"NAME = 'svc_{tag}'\nTIMEOUT = {timeout}\nRETRIES = 3  # id {tag}\nDEBUG = False\n"
    return {"tag": tag, "timeout": timeout, "path": path, "name": name, "cases": {
        "greet": case("edit_file", {"path": "greet.py", "old_string": '"helo"', "new_string": '"hello"'},
                      {"greet.py": 'def greet():\n    return "helo"\n'}),
        "settings": case("edit_file", {"path": path, "old_string": f"= {timeout}", "new_string": "= 90"},
                         {path: settings}),
        "celsius": case("edit_file", {"path": "fixtures/convert.py", "old_string": "return (c * 5) / 9 + 32",
                                      "new_string": "return (c * 9) / 5 + 32"}, {"fixtures/convert.py": CELSIUS}),
        "notes": case("edit_file", {"path": name, "old_string": f"second\nthird {tag}", "new_string": f"2nd\n3rd {tag}"},
                      {name: f"first {tag}\nsecond\nthird {tag}"}),
    }}


def judge_edit(inputs, seen):
    tag, timeout, path, name = inputs["tag"], inputs["timeout"], inputs["path"], inputs["name"]
    for key, what in [("greet", "edit_file on greet.py"), ("settings", "edit_file on " + path),
                      ("celsius", "the Celsius fix"), ("notes", "edit_file on " + name)]:
        wrong = _wrong(seen, key, what)
        if wrong:
            yield wrong
            return
    greet, settings, celsius, notes = (_shown(seen, k) for k in ("greet", "settings", "celsius", "notes"))
    lines = greet.splitlines()
    if not _headers(lines, "greet.py"):
        yield f"an edit_file preview must be a unified diff with '--- a/<path>' and '+++ b/<path>' lines; it was {greet!r} (section 2)"
    elif '-    return "helo"' not in lines or '+    return "hello"' not in lines:
        yield ("an edit_file preview must show the old line with '-' and the new line with '+', each on its own "
               f"line; it was {greet!r} (section 2)")
    lines = settings.splitlines()
    if not _headers(lines, path):
        yield f"an edit_file preview must have '--- a/{path}' and '+++ b/{path}' lines; it was {settings!r} (section 2)"
    elif f"-TIMEOUT = {timeout}" not in lines or "+TIMEOUT = 90" not in lines:
        yield ("an edit_file preview must diff the whole file: the changed line appears whole, with '-' before and "
               f"'+' after, even when old_string is only part of it; it was {settings!r} (section 2)")
    elif f" NAME = 'svc_{tag}'" not in lines and f" RETRIES = 3  # id {tag}" not in lines:
        yield ("an edit_file preview must diff the whole file, so the lines around the change appear as context "
               f"(starting with a space); it was {settings!r} (section 2)")
    lines = celsius.splitlines()
    if not _headers(lines, "fixtures/convert.py"):
        yield f"the Celsius fix preview lacks its diff headers: {celsius!r} (section 2)"
    elif "-    return (c * 5) / 9 + 32" not in lines or "+    return (c * 9) / 5 + 32" not in lines:
        yield f"the Celsius fix preview must show the old and new return lines; it was {celsius!r} (section 2)"
    elif " def celsius_to_fahrenheit(c):" not in lines:
        yield f"the Celsius fix preview must show context lines around the change; it was {celsius!r} (section 2)"
    lines = notes.splitlines()
    if not _headers(lines, name):
        yield f"the preview of an edit to {name} lacks its diff headers: {notes!r} (section 2)"
    else:
        for expected in ["-second", f"-third {tag}", "+2nd", f"+3rd {tag}"]:
            if expected not in lines:
                yield (f"the preview of a two-line edit must show {expected!r} on a line of its own (a file whose last "
                       f"line has no newline must not make diff lines run together); it was {notes!r} (section 2)")
                return


# --- preview("write_file", ...) --------------------------------------------------------------

def draw_write(rng):
    tag = hexes(rng, 8)
    new_path, ini = f"docs_{tag}/README.md", f"cfg_{tag}.ini"
    return {"tag": tag, "new_path": new_path, "ini": ini, "cases": {
        "todo": case("write_file", {"path": "todo.txt", "content": "milk\nbread\n"}, {"todo.txt": "milk\neggs\n"}),
        "new": case("write_file", {"path": new_path, "content": f"# Project {tag}\n\nRun `make {tag}` to build.\n"}),
        "ini": case("write_file", {"path": ini, "content": f"[server]\nport = 9{tag[:3]}\nname = {tag}"},
                    {ini: f"[server]\nport = 8080\nname = {tag}\n"}),
    }}


def judge_write(inputs, seen):
    tag, new_path, ini = inputs["tag"], inputs["new_path"], inputs["ini"]
    for key, what in [("todo", "write_file to todo.txt"), ("new", "a write_file creating " + new_path),
                      ("ini", "write_file to " + ini)]:
        wrong = _wrong(seen, key, what)
        if wrong:
            yield wrong
            return
    todo, new, cfg = (_shown(seen, k) for k in ("todo", "new", "ini"))
    lines = todo.splitlines()
    if not _headers(lines, "todo.txt"):
        yield f"a write_file preview must be a unified diff with '---' and '+++' lines naming the path; it was {todo!r} (section 2)"
    elif "-eggs" not in lines or "+bread" not in lines:
        yield ("a write_file preview must diff the current text against the new content ('-eggs', '+bread'); "
               f"it was {todo!r} (section 2)")
    lines = new.splitlines()
    removed = [line for line in lines if line.startswith("-") and not line.startswith("---")]
    if not _headers(lines, new_path, new_file=True):
        yield (f"the preview of a write_file creating {new_path} must be a unified diff, with a '---' line and a "
               f"'+++' line naming it; it was {new!r} (section 2)")
    elif f"+# Project {tag}" not in lines or f"+Run `make {tag}` to build." not in lines:
        yield f"the preview of a write_file creating a new file must show each line added ('+'); it was {new!r} (section 2)"
    elif removed:
        yield f"a new file has nothing to remove, but the preview shows {removed} (section 2)"
    lines = cfg.splitlines()
    if not _headers(lines, ini):
        yield f"the preview of a write_file to {ini} must be a unified diff naming it; it was {cfg!r} (section 2)"
    elif "-port = 8080" not in lines or f"+port = 9{tag[:3]}" not in lines:
        yield f"a write_file preview must diff the file's current text against the new content; it was {cfg!r} (section 2)"
    elif " [server]" not in lines:
        yield f"a write_file preview of an existing file must show unchanged lines as context; it was {cfg!r} (section 2)"


# --- preview changes nothing -----------------------------------------------------------------

def draw_unchanged(rng):
    tag = hexes(rng, 8)
    return {"tag": tag, "original": f"VERSION = '{tag}'\nitems = [1, 2, 3]\n"}


def _names(folder):
    """The names in the scratch folder, listed here, by the driver (no link followed)."""
    return folder.names()


def _holds(folder, name):
    """Whether the scratch folder holds an entry `name`; None if it cannot be listed."""
    names = _names(folder)
    return None if names is None else name in names


def drive_unchanged(subject, inputs):
    """The files after each preview (read here, from the scratch folder), and what preview
    raised along the way."""
    tag, original = inputs["tag"], inputs["original"]
    calls, after = [], {}

    def preview(name, tool_input):
        calls.append(subject.call("nano.gate.preview", name, tool_input))

    with subject.scratch({"greet.py": 'print("helo")\n'}) as folder:
        preview("edit_file", {"path": "greet.py", "old_string": "helo", "new_string": "hello"})
        after["greet"] = folder.text("greet.py")
    with subject.scratch({f"lib/{tag}.py": original}) as folder:
        preview("edit_file", {"path": f"lib/{tag}.py", "old_string": "[1, 2, 3]", "new_string": f"['{tag}']"})
        after["edit"] = folder.text(f"lib/{tag}.py")
        preview("write_file", {"path": f"lib/{tag}.py", "content": f"gone {tag}\n"})
        after["write"] = folder.text(f"lib/{tag}.py")
        preview("write_file", {"path": f"new_{tag}/deep/file.txt", "content": f"hello {tag}\n"})
        after["new_folder"] = _holds(folder, f"new_{tag}")
        preview("bash", {"command": f"touch ran_{tag}.txt"})
        after["ran"] = _holds(folder, f"ran_{tag}.txt")
        after["names"] = _names(folder)
    return {"after": after, "raised": [c for c in calls if "raised" in c],
            "shown": [c.get("value") if isinstance(c.get("value"), str) else None for c in calls]}


def judge_unchanged(inputs, seen):
    after = seen.get("after") if isinstance(seen, dict) else None
    after = after if isinstance(after, dict) else {}
    raised = seen.get("raised") if isinstance(seen, dict) else None
    if isinstance(raised, list) and raised:
        first = raised[0] if isinstance(raised[0], dict) else {}
        yield f"preview must never raise, but it raised {_kind(first.get('raised'))}: {_str(first.get('message'))} (section 2)"
    if after.get("greet") != 'print("helo")\n':
        yield "preview must not change the file: the edit happens only if the person says yes (section 2)"
    elif after.get("edit") != inputs["original"]:
        yield "preview of edit_file must not change the file (section 2)"
    elif after.get("write") != inputs["original"]:
        yield "preview of write_file must not change the existing file (section 2)"
    elif after.get("new_folder") is not False:
        yield "preview of write_file must not create the file or its folders: nothing happens before a yes (section 2)"
    elif after.get("ran") is not False:
        yield "preview of bash must not run the command (section 2)"
    elif after.get("names") != ["lib"]:
        yield f"preview must not create anything; the folder now holds {_str(after.get('names'))} (section 2)"
    else:
        tag = inputs["tag"]
        wanted = [("+", "hello"), ("+", f"['{tag}']"), ("+", f"gone {tag}"), ("+", f"hello {tag}"),
                  ("$ ", f"touch ran_{tag}.txt")]
        shown = seen.get("shown") if isinstance(seen.get("shown"), list) else []
        for index, (start, piece) in enumerate(wanted):
            text = shown[index] if index < len(shown) else None
            if not _line(text, start, piece):
                yield (f"preview must show what would happen (a line starting {start!r} with {piece!r}); it "
                       f"returned {_str(text)}: changing nothing is half of its job (section 2)")
                return


def _line(text, start, piece):
    """Whether `text` has a line that starts with `start` and holds `piece`."""
    return isinstance(text, str) and any(line.startswith(start) and piece in line for line in text.splitlines())


# --- preview never raises --------------------------------------------------------------------

def draw_never_raises(rng):
    tag = hexes(rng, 8)
    files = {"here.txt": "twice\ntwice\n", "folder/inner.txt": "x\n"}
    cases = [
        ("edit_file on a missing file", "edit_file", {"path": "missing.py", "old_string": "a = 1", "new_string": "a = 2"}),
        ("edit_file on a file that is not there", "edit_file",
         {"path": f"nope_{tag}.py", "old_string": "x = 1", "new_string": f"x = '{tag}'"}),
        ("edit_file whose old_string is not in the file", "edit_file",
         {"path": "here.txt", "old_string": f"absent {tag}", "new_string": "y"}),
        ("edit_file whose old_string occurs twice", "edit_file",
         {"path": "here.txt", "old_string": "twice", "new_string": f"once {tag}"}),
        ("edit_file on a directory", "edit_file", {"path": "folder", "old_string": "a", "new_string": "b"}),
        ("edit_file with an empty old_string", "edit_file", {"path": "here.txt", "old_string": "", "new_string": "b"}),
        ("edit_file with no fields", "edit_file", {}),
        ("edit_file without new_string", "edit_file", {"path": "here.txt", "old_string": "twice"}),
        ("write_file to a directory", "write_file", {"path": "folder", "content": f"c {tag}\n"}),
        ("write_file to a new file", "write_file", {"path": f"new/{tag}/x.txt", "content": "hi\n"}),
        ("write_file with no fields", "write_file", {}),
        ("bash with no command", "bash", {}),
        ("a tool that is not gated", "read_file", {"path": f"notes_{tag}.txt"}),
        ("a tool nano does not have", f"teleport_{tag}", {"to": "mars"}),
    ]
    return {"tag": tag, "what": [what for what, _, _ in cases],
            "cases": {str(n): case(name, tool_input, files) for n, (_, name, tool_input) in enumerate(cases)}}


def judge_never_raises(inputs, seen):
    for n, what in enumerate(inputs["what"]):
        wrong = _wrong(seen, str(n), what)
        if wrong:
            yield wrong
            return
    tag, last = inputs["tag"], str(len(inputs["what"]) - 1)
    if not _line(_shown(seen, "1"), "+", f"x = '{tag}'"):
        yield ("for an edit_file on a file that cannot be read, preview must still show the proposed new_string "
               f"(a diff of old_string against new_string); it was {_shown(seen, '1')!r} (section 2)")
    if f"teleport_{tag}" not in _shown(seen, last):
        yield f"for any other tool, preview must show the tool's name and input; it was {_shown(seen, last)!r} (section 2)"


# ---------------------------------------------------------------------------------------------
# confirm: asked through a scripted asker, with preview and input() replaced.

def ask(answers, name, tool_input, marker=None):
    return {"answers": answers, "name": name, "input": tool_input, "marker": marker}


def drive_confirm(subject, inputs):
    """For each question: what confirm returned (or raised), the prompts its asker was asked,
    the calls of preview (a double answered here), and whether it called input()."""
    state = {"marker": None, "calls": [], "input": 0}

    def preview(name, input):
        state["calls"].append([name, input])
        return state["marker"] if state["marker"] is not None else f"(preview of {name})"

    def no_input(*args, **kwargs):
        state["input"] += 1
        raise Raise("AssertionError", "confirm called input()")

    subject.stand("nano.gate.preview", preview)
    subject.stand("builtins.input", no_input, also=["nano.gate"])
    asked = []
    for question in inputs["asks"]:
        state.update(marker=question["marker"], calls=[], input=0)
        person, ref = asker(subject, question["answers"])
        outcome = subject.call("nano.gate.confirm", ref, question["name"], question["input"])
        asked.append({"outcome": outcome, "prompts": list(person.prompts), "calls": list(state["calls"]),
                      "input_called": state["input"] > 0})
    return {"asked": asked}


def _asked(inputs, seen):
    """(question, what was observed for it) pairs; an observation missing is an empty dict."""
    asked = seen.get("asked") if isinstance(seen, dict) else None
    asked = asked if isinstance(asked, list) else []
    for n, question in enumerate(inputs["asks"]):
        got = asked[n] if n < len(asked) and isinstance(asked[n], dict) else {}
        yield question, got


def _outcome(got):
    outcome = got.get("outcome")
    return outcome if isinstance(outcome, dict) else {}


def _prompts(got):
    prompts = got.get("prompts")
    return prompts if isinstance(prompts, list) else []


def _raised(question, got):
    """The message for a confirm that called input(), raised, or could not be run; or None."""
    outcome = _outcome(got)
    if got.get("input_called") is True:
        return "confirm called input(): it must ask through the asker it is given (section 4)"
    if not outcome:
        return "confirm could not be run to its end (section 5)"
    if "raised" not in outcome:
        return None
    if len(_prompts(got)) > len(question["answers"]):
        return "confirm asked more than once: it must ask exactly once (section 5)"
    return f"confirm raised {_kind(outcome.get('raised'))}: {_str(outcome.get('message'))} (section 5)"


def _approved(got):
    """True or False if confirm returned that bool, else None."""
    outcome = _outcome(got)
    value = outcome.get("value")
    return value if "raised" not in outcome and outcome.get("type") == "bool" and type(value) is bool else None


def judge_answers(inputs, seen):
    for question, got in _asked(inputs, seen):
        raised, answer = _raised(question, got), question["answers"][0]
        expected = answer.strip().lower() in ("y", "yes")
        if raised:
            yield raised
            return
        if len(_prompts(got)) != 1:
            yield (f"confirm must ask its asker once and answer from what the person said; for {answer!r} it asked "
                   f"{len(_prompts(got))} time(s) (section 5)")
            return
        if _approved(got) is not expected:
            rule = ("case and surrounding space are ignored" if expected
                    else "only 'y' or 'yes' approves, anything else is a no")
            yield (f"confirm must return {expected} (the bool) for the answer {answer!r}: {rule}; it returned "
                   f"{_repr(_outcome(got).get('value'))} (section 5)")
            return


def judge_once(inputs, seen):
    for question, got in _asked(inputs, seen):
        raised, first = _raised(question, got), question["answers"][0]
        prompts = _prompts(got)
        if raised:
            yield raised
            return
        if len(prompts) != 1:
            yield (f"confirm must ask exactly once, through the asker, whatever the answer; after {first!r} it asked "
                   f"{len(prompts)} time(s) (section 5)")
            return
        expected = first.strip().lower() in ("y", "yes")
        if _approved(got) is not expected:
            yield (f"after the single answer {first!r} confirm must return {expected}, without asking again; "
                   f"it returned {_repr(_outcome(got).get('value'))} (section 5)")
            return


def judge_prompt(inputs, seen):
    for question, got in _asked(inputs, seen):
        raised, name, marker = _raised(question, got), question["name"], question["marker"]
        prompts = _prompts(got)
        calls = got.get("calls") if isinstance(got.get("calls"), list) else []
        if raised:
            yield raised
            return
        if not calls or calls[0] != [name, question["input"]]:
            yield (f"confirm must call preview(name, input) with the tool's name and input; it called it with "
                   f"{_repr(calls)} (section 5)")
            return
        if len(prompts) != 1:
            yield f"confirm must ask exactly once; it asked {len(prompts)} time(s) (section 5)"
            return
        if not isinstance(prompts[0], str) or marker not in prompts[0]:
            yield (f"confirm's prompt must contain the whole of preview(name, input) for {name}; the prompt was "
                   f"{_repr(prompts[0])} (section 5)")
            return
        if not prompts[0].rstrip().endswith("[y/n]"):
            yield (f"confirm's prompt must end with '[y/n] ' (WidgetAsker shows its buttons for such prompts); it was "
                   f"{_repr(prompts[0])} (section 5)")
            return


EDIT = {"path": "a.py", "old_string": "1", "new_string": "2"}
WRITE = {"path": "b.txt", "content": "x"}
YESES = ["YES", "Yes", "yEs", " y", "y ", "  yes\t", "\nY\n", "YES  ", "yes\n", "\ty\r\n"]
NOES = ["n", "no", "", " ", "\n", "N", "NO", "yep", "sure", "y es", "yes please", "ok", "okay", "nope", "yy", "ye",
        "yess", "yeah", "true", "1", "y.", "yes!", "why", "no way", "yes, but not in prod", "Y E S", "ja", "n y", "[y/n]"]


def draw_prompt(rng):
    asks = [ask(["n"], "bash", {"command": "ls"}, "PREVIEW-MARKER-4242")]
    for name, tool_input in [("bash", {"command": f"echo {hexes(rng, 32)}"}),
                             ("edit_file", {"path": f"m_{hexes(rng, 6)}.py", "old_string": "a", "new_string": "b"}),
                             ("write_file", {"path": f"w_{hexes(rng, 6)}.txt", "content": "hello\n"})]:
        tag = hexes(rng, 32)
        asks.append(ask(["y"], name, tool_input, f"--- a/{tag}\n+++ b/{tag}\n@@ -1 +1 @@\n-old {tag}\n+new {tag}"))
    return {"asks": asks}


BEHAVIOURS = [
    Behaviour("l04_preview_bash_command", drive_previews, judge_bash, draw_bash),
    Behaviour("l04_preview_edit_file_diff", drive_previews, judge_edit, draw_edit),
    Behaviour("l04_preview_write_file_diff", drive_previews, judge_write, draw_write),
    Behaviour("l04_preview_changes_nothing", drive_unchanged, judge_unchanged, draw_unchanged),
    Behaviour("l04_preview_never_raises", drive_previews, judge_never_raises, draw_never_raises),
    # Each of the two mixes in a few answers of the other kind: a confirm that always says yes
    # (or no) has not done the work either cell is about.
    Behaviour("l04_confirm_accepts_yes", drive_confirm, judge_answers, given={"asks": [
        *(ask([a], "bash", {"command": "ls"}) for a in ["y", "yes", "Y", "n"]),
        *(ask([a], name, tool_input) for a in YESES for name, tool_input in [("edit_file", EDIT), ("write_file", WRITE)]),
        ask(["no"], "edit_file", EDIT)]}),
    Behaviour("l04_confirm_rejects_everything_else", drive_confirm, judge_answers, given={"asks": [
        *(ask([a], "bash", {"command": "rm -rf build"}) for a in ["n", "no", "y"]),
        *(ask([a], "write_file", {"path": "x.txt", "content": "x"}) for a in NOES[2:]),
        ask(["yes"], "write_file", WRITE)]}),
    Behaviour("l04_confirm_asks_once", drive_confirm, judge_once, given={"asks": [
        ask(["y"], "bash", {"command": "ls"}),
        *(ask([first, "y", "y", "n"], "edit_file", EDIT) for first in ["y", "n", "maybe", "", "what?", "YES"])]}),
    Behaviour("l04_confirm_prompt_shows_preview", drive_confirm, judge_prompt, draw_prompt),
]
