"""Lecture 04's rules: preview and confirm (nano/gate.py).

Each rule is defined once, here: `./ok 04` and the notebook's graded cells run its visible case
in your process, and the grader runs the same drive and judge on more cases of the same shape.
A preview case is one call, made in a scratch folder holding the case's files; what preview
returned is judged line by line, against what the case itself says it must show: `$ <command>`
for bash; for edit_file and write_file a unified diff whose `---` and `+++` lines name the path
(a new file's `---` line may be git's `--- /dev/null`), with each changed line whole after `-` or
`+` and context lines after a space. That preview changed nothing is read from the scratch
folder after each call. confirm is asked through a scripted asker whose prompts are kept, with
preview standing in as a double answered here (so a mistake in preview cannot fail confirm's
rules, and the prompt can be checked for what preview returned), and with input() standing in
as a double that records the call and fails.
"""

from checks.doubles import Raise, asker
from checks.kit import brief, outcomes_of, returned_text, shown, written
from checks.rule import Rule

NEEDS = ("nano.gate",)  # loaded first by ./ok: a file that does not load is named before any rule runs


def case(name, input, files=None, lines=(), context=(), shows=None):
    """One call of preview(name, input), in a scratch folder holding `files` ({path: text}).
    What it must show: every line of `lines` whole, one of `context` (if any), and, for
    `shows` = [start, piece], a line that starts with `start` and holds `piece`."""
    return {"name": name, "input": input, "files": files or {}, "lines": list(lines), "context": list(context),
            "shows": shows}


# ---------------------------------------------------------------------------------------------
# preview: one call per case, each in a scratch folder of its own

def drive_previews(subject, inputs):
    """What preview returned (or raised) for each case, and after it the case's files as the
    folder holds them and the names at the folder's top (read here, by the driver)."""
    outcomes, after = [], []
    for call in inputs["cases"]:
        with subject.scratch(call["files"]) as folder:
            outcomes.append(subject.call("nano.gate.preview", call["name"], call["input"]))
            after.append({"texts": {path: folder.text(path) for path in call["files"]}, "names": folder.names()})
    return {"outcomes": outcomes, "after": after}


def called(call) -> str:
    return f"preview({call['name']!r}, {call['input']!r})"


def refused(inputs, seen):
    """The message for the first call that did not return a str (nothing if every call returned
    one); a stub is its own (kit.written)."""
    outcomes = outcomes_of(seen, "outcomes", len(inputs["cases"]))
    written("preview", outcomes, 2)
    for call, outcome in zip(inputs["cases"], outcomes):
        if returned_text(outcome) is None:
            yield (f"{called(call)} must return a str and never raise (the tool itself reports a bad input), "
                   f"but {shown(outcome)} (section 2)")
            return


def previewed(inputs, seen) -> list:
    """(case, the str preview returned) for each case that returned one."""
    outcomes = outcomes_of(seen, "outcomes", len(inputs["cases"]))
    return [(call, returned_text(outcome)) for call, outcome in zip(inputs["cases"], outcomes)
            if returned_text(outcome) is not None]


def showing(call, text) -> bool:
    """Whether `text` has the line the case's `shows` asks for (True if it asks for none)."""
    if not call["shows"]:
        return True
    start, piece = call["shows"]
    return any(line.startswith(start) and piece in line for line in text.splitlines())


def judge_bash(inputs, seen):
    yield from refused(inputs, seen)
    for call, text in previewed(inputs, seen):
        if text.rstrip("\n") != f"$ {call['input']['command']}":
            yield f'{called(call)} must be "$ " followed by the command; it was {brief(text)} (section 2)'
            return


def headers(lines, path, new_file) -> bool:
    """A '--- ' line naming `path` (any '--- ' line for a new file, e.g. --- /dev/null) and a
    '+++ ' line naming it."""
    old = any(line.startswith("--- ") and (new_file or path in line) for line in lines)
    return old and any(line.startswith("+++ ") and path in line for line in lines)


def unended(call) -> bool:
    """Whether the case's file, or the content it writes, has a last line with no newline."""
    texts = [call["files"].get(str(call["input"].get("path"))), call["input"].get("content")]
    return any(isinstance(text, str) and text and not text.endswith("\n") for text in texts)


def judge_diff(inputs, seen):
    """edit_file and write_file: a diff naming the path, each changed line whole, nothing removed
    from a new file, and the lines around a change as context."""
    yield from refused(inputs, seen)
    for call, text in previewed(inputs, seen):
        name, path = call["name"], str(call["input"].get("path"))
        new_file = path not in call["files"]
        lines = text.splitlines()
        missing = [line for line in call["lines"] if line not in lines]
        removed = [line for line in lines if line.startswith("-") and not line.startswith("---")]
        said = f"the {name} preview of {path}"
        if not headers(lines, path, new_file):
            yield (f"{said} must be a unified diff whose '---' and '+++' lines name the path ('--- a/{path}' or, for a "
                   f"new file, '--- /dev/null'; '+++ b/{path}'); it gave {brief(text, 150)} (section 2)")
            return
        if missing:
            how = ("a diff of the whole file before and after; old_string may be part of a line" if name == "edit_file"
                   else "a diff of the file's current text, empty if new, against the content")
            run_together = "; a last line with no newline must not run into the next" if unended(call) else ""
            yield (f"{said} must show {missing[0]!r} as a line of its own: each changed line whole, after '-' or '+' "
                   f"({how}{run_together}); it gave {brief(text, 150)} (section 2)")
            return
        if new_file and removed:
            yield f"a new file has nothing to remove, but {said} shows {brief(removed, 150)} (section 2)"
            return
        if call["context"] and not any(line in lines for line in call["context"]):
            yield (f"{said} must diff the whole file, so that the lines around the change appear as context (starting "
                   f"with a space, as {call['context'][0]!r}); it gave {brief(text, 150)} (section 2)")
            return


def judge_unchanged(inputs, seen):
    """After each call, the case's files hold what they held and the folder holds nothing new;
    and preview showed what would happen."""
    yield from refused(inputs, seen)
    after = outcomes_of(seen, "after", len(inputs["cases"]))
    for call, held in zip(inputs["cases"], after):
        texts = held.get("texts") if isinstance(held.get("texts"), dict) else {}
        changed = [path for path, text in call["files"].items() if texts.get(path) != text]
        names = sorted({path.split("/")[0] for path in call["files"]})
        if changed:
            yield (f"preview must not change a file: after {called(call)}, {changed[0]} no longer holds what it held; "
                   "the change happens only if the person says yes (section 2)")
            return
        if held.get("names") != names:
            yield (f"preview must not create anything, nor run a command: after {called(call)} the folder holds "
                   f"{brief(held.get('names'))}, where it held {names} (section 2)")
            return
    for call, text in previewed(inputs, seen):
        if not showing(call, text):
            start, piece = call["shows"]
            yield (f"preview must show what would happen (a line starting {start!r} that holds {piece!r}), but "
                   f"{called(call)} returned {brief(text)}: changing nothing is half of its job (section 2)")
            return


def judge_never_raises(inputs, seen):
    yield from refused(inputs, seen)
    for call, text in previewed(inputs, seen):
        if not showing(call, text):
            start, piece = call["shows"]
            yield (f"preview must still show what would happen, whatever the call (the proposed text of an edit or a "
                   f"write it cannot make; any other tool's name and input): {called(call)} returned {brief(text, 100)}, "
                   f"with no line starting {start!r} that holds {piece!r} (section 2)")
            return


# ---------------------------------------------------------------------------------------------
# confirm: asked through a scripted asker, with preview and input() standing in

def ask(answers, name, input, marker=None):
    """One question: the asker's scripted `answers`, the tool's name and input, and what the
    stand-in preview returns (`marker`; None: a line naming the tool)."""
    return {"answers": answers, "name": name, "input": input, "marker": marker}


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


def questions(inputs, seen) -> list:
    """(question, what was seen for it) for each question."""
    asked = outcomes_of(seen, "asked", len(inputs["asks"]))
    return list(zip(inputs["asks"], asked))


def outcome(got) -> dict:
    found = got.get("outcome")
    return found if isinstance(found, dict) else {}


def prompts(got) -> list:
    found = got.get("prompts")
    return found if isinstance(found, list) else []


def failed(question, got):
    """The message for a confirm that called input(), raised, or could not be run (nothing if
    it returned)."""
    if got.get("input_called") is True:
        yield "confirm called input(): it must ask through the asker it is given (section 4)"
    elif not outcome(got):
        yield "confirm could not be run to its end (section 5)"
    elif "raised" not in outcome(got):
        return
    elif len(prompts(got)) > len(question["answers"]):
        yield "confirm asked more than once: it must ask exactly once (section 5)"
    else:
        yield f"confirm must return True or False, but {shown(outcome(got))} (section 5)"


def approved(got):
    """True or False if confirm returned that bool, else None."""
    found = outcome(got)
    value = found.get("value")
    return value if "raised" not in found and found.get("type") == "bool" and type(value) is bool else None


def expected(answer) -> bool:
    """Whether confirm must approve `answer`: "y" or "yes", case and surrounding space ignored."""
    return answer.strip().casefold() in {"y", "yes"}


def judge_answers(inputs, seen):
    pairs = questions(inputs, seen)
    written("confirm", [outcome(got) for _, got in pairs], 5)
    for question, got in pairs:
        yield from failed(question, got)
        answer = question["answers"][0]
        if len(prompts(got)) != 1:
            yield (f"confirm must ask its asker once and answer from what the person said; for {answer!r} it asked "
                   f"{len(prompts(got))} time(s) (section 5)")
            return
        if approved(got) is not expected(answer):
            rule = ("case and surrounding space are ignored" if expected(answer)
                    else "only 'y' or 'yes' approves, anything else is a no")
            yield (f"confirm must return {expected(answer)} (the bool) for the answer {answer!r}: {rule}; it returned "
                   f"{brief(outcome(got).get('value'))} (section 5)")
            return


def judge_once(inputs, seen):
    pairs = questions(inputs, seen)
    written("confirm", [outcome(got) for _, got in pairs], 5)
    for question, got in pairs:
        yield from failed(question, got)
        first = question["answers"][0]
        if len(prompts(got)) != 1:
            yield (f"confirm must ask exactly once, through the asker, whatever the answer; after {first!r} it asked "
                   f"{len(prompts(got))} time(s) (section 5)")
            return
        if approved(got) is not expected(first):
            yield (f"after the single answer {first!r} confirm must return {expected(first)}, without asking again; "
                   f"it returned {brief(outcome(got).get('value'))} (section 5)")
            return


def judge_prompt(inputs, seen):
    pairs = questions(inputs, seen)
    written("confirm", [outcome(got) for _, got in pairs], 5)
    for question, got in pairs:
        yield from failed(question, got)
        name, marker = question["name"], question["marker"]
        calls = got.get("calls") if isinstance(got.get("calls"), list) else []
        if not calls or calls[0] != [name, question["input"]]:
            yield (f"confirm must call preview(name, input) with the tool's name and input; it called it with "
                   f"{brief(calls)} (section 5)")
            return
        if len(prompts(got)) != 1:
            yield f"confirm must ask exactly once; it asked {len(prompts(got))} time(s) (section 5)"
            return
        prompt = prompts(got)[0]
        if not isinstance(prompt, str) or marker not in prompt:
            yield (f"confirm's prompt must contain the whole of preview(name, input) for {name}; the prompt was "
                   f"{brief(prompt)} (section 5)")
            return
        if not prompt.rstrip().endswith("[y/n]"):
            yield (f"confirm's prompt must end with '[y/n] ' (WidgetAsker shows its buttons for such prompts); it was "
                   f"{brief(prompt)} (section 5)")
            return


GREET = 'def greet():\n    return "helo"\n'
EDIT = {"path": "a.py", "old_string": "1", "new_string": "2"}

RULES = [
    Rule("l04_preview_bash_command", drive_previews, judge_bash, {"cases": [
        case("bash", {"command": "ls -la fixtures"})]}),
    Rule("l04_preview_edit_file_diff", drive_previews, judge_diff, {"cases": [
        case("edit_file", {"path": "greet.py", "old_string": '"helo"', "new_string": '"hello"'}, {"greet.py": GREET},
             lines=['-    return "helo"', '+    return "hello"'], context=[" def greet():"]),
        case("edit_file", {"path": "notes.txt", "old_string": "second\nthird", "new_string": "2nd\n3rd"},
             {"notes.txt": "first\nsecond\nthird"}, lines=["-second", "-third", "+2nd", "+3rd"], context=[" first"])]}),
    Rule("l04_preview_write_file_diff", drive_previews, judge_diff, {"cases": [
        case("write_file", {"path": "todo.txt", "content": "milk\nbread\n"}, {"todo.txt": "milk\neggs\n"},
             lines=["-eggs", "+bread"], context=[" milk"]),
        case("write_file", {"path": "docs/README.md", "content": "# Notes\n\nRun it.\n"},
             lines=["+# Notes", "+Run it."])]}),
    Rule("l04_preview_changes_nothing", drive_previews, judge_unchanged, {"cases": [
        case("edit_file", {"path": "greet.py", "old_string": "helo", "new_string": "hello"},
             {"greet.py": 'print("helo")\n'}, shows=["+", "hello"]),
        case("write_file", {"path": "new/notes.txt", "content": "hi\n"}, {"greet.py": 'print("helo")\n'},
             shows=["+", "hi"]),
        case("bash", {"command": "touch ran.txt"}, {"greet.py": 'print("helo")\n'}, shows=["$ ", "touch ran.txt"])]}),
    Rule("l04_preview_never_raises", drive_previews, judge_never_raises, {"cases": [
        case("edit_file", {"path": "missing.py", "old_string": "a = 1", "new_string": "a = 2"}, shows=["+", "a = 2"]),
        case("write_file", {"path": "brand/new.txt", "content": "fresh\n"}, shows=["+", "fresh"]),
        case("read_file", {"path": "notes.txt"}, shows=["", "read_file"])]}),
    # Each of the two mixes in an answer of the other kind: a confirm that always says yes (or
    # no) has not done the work either cell is about.
    Rule("l04_confirm_accepts_yes", drive_confirm, judge_answers, {"asks": [
        ask([answer], "bash", {"command": "ls"}) for answer in ["y", "yes", "Y", " YES ", "n"]]}),
    Rule("l04_confirm_rejects_everything_else", drive_confirm, judge_answers, {"asks": [
        ask([answer], "bash", {"command": "rm -rf build"})
        for answer in ["n", "no", "", "yeah", "sure", "y es", "nope", "y"]]}),
    Rule("l04_confirm_asks_once", drive_confirm, judge_once, {"asks": [
        ask(["y", "y", "n"], "write_file", {"path": "a.txt", "content": "a"}),
        ask(["n", "y", "y"], "edit_file", EDIT)]}),
    Rule("l04_confirm_prompt_shows_preview", drive_confirm, judge_prompt, {"asks": [
        ask(["n"], "edit_file", EDIT, "PREVIEW-MARKER-4242"),
        ask(["y"], "write_file", {"path": "notes.txt", "content": "hi\n"},
            "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+hi")]}),
]
