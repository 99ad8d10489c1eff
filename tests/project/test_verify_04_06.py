"""The independent check of lectures 04-06 is fair: right work confirmed, each named mistake refused where nbgrader fails it.

test_verify.py runs the reference, the stubs and the mutant catalogue through every lecture's
scenarios. Here: correct alternatives of preview, confirm, call_model, agent_loop and main (and
answers written as the hidden tests allow) are confirmed on every cell of 04-06; and, slow, each
04-06 mutant is refused on exactly the cells whose hidden tests fail when its lecture's source
notebook runs on it, so the check never takes away a point nbgrader rightly gave.
"""

import os
import shutil

import pytest

from autograder.authoring import notebooks, release
from autograder.check import independent
from autograder.authoring.mutants import MORE_MUTANTS, MUTANTS, apply
from tests.project.one_class import replace_solution
from tests.project.test_verify import check, refused, solved, reference  # noqa: F401 (fixtures)

ROOT = release.ROOT
OURS = ("04", "05", "06")

ALTERNATIVES = {
    "nano/gate.py": {
        "preview": '''
if name == "bash":
    return "$ " + str(input.get("command", ""))
if name not in ("write_file", "edit_file"):
    return "%s %r" % (name, input)
path = str(input.get("path", "?"))
try:
    with open(path, encoding="utf-8") as handle:
        before = handle.read()
except Exception:
    before = None
if name == "write_file":
    before, after = before or "", str(input.get("content", ""))
else:
    old, new = str(input.get("old_string", "")), str(input.get("new_string", ""))
    if before is not None and old and before.count(old) == 1:
        after = before.replace(old, new)
    else:
        before, after = old, new
return "\\n".join(difflib.unified_diff(before.splitlines(), after.splitlines(), "a/" + path, "b/" + path,
                                      lineterm=""))
''',
        "confirm": '''
reply = await ask.question(preview(name, input) + "\\n\\nLet nano run " + name + "? [y/n]")
reply = reply.lower().strip()
return reply == "y" or reply == "yes"
''',
    },
    "nano/model.py": {
        "call_model": '''
global _client
client = _client
if client is None:
    client = _client = anthropic.AsyncAnthropic()
fields = {"messages": messages, "tools": TOOLS, "system": SYSTEM_PROMPT, "max_tokens": MAX_TOKENS, "model": MODEL}
response = await client.messages.create(**fields)
return response
''',
    },
    "nano/loop.py": {
        "agent_loop": '''
turns = 0
while turns < max_turns:
    turns += 1
    response = await model(messages)
    messages.append({"role": "assistant", "content": response.content})
    calls = [block for block in response.content if block.type == "tool_use"]
    for block in response.content:
        if block.type == "text":
            print(block.text)
    if not calls:
        return "done"
    results = []
    for call in calls:
        if call.name in GATED and not await confirm(ask, call.name, call.input):
            results.append({"type": "tool_result", "tool_use_id": call.id, "is_error": False,
                            "content": "Declined by the user: ask them what to do instead."})
            continue
        try:
            output = run_tool(call.name, call.input)
        except Exception as error:
            results.append({"type": "tool_result", "tool_use_id": call.id, "is_error": True,
                            "content": f"{type(error).__name__}: {error}"})
        else:
            results.append({"type": "tool_result", "tool_use_id": call.id, "content": output, "is_error": False})
    messages.extend([{"role": "user", "content": results}])
return "max_turns"
''',
    },
    "nano/repl.py": {
        # the line pushed as a text block, and the repair by truncation rather than popping
        "main": '''
if ask is None:
    ask = TerminalAsker()
history = messages if messages is not None else []
while True:
    try:
        request = (await ask.question("> ")).strip()
    except (EOFError, KeyboardInterrupt):
        return history
    if request == "exit":
        return history
    if request == "":
        continue
    size = len(history)
    history.append({"role": "user", "content": [{"type": "text", "text": request}]})
    try:
        outcome = await agent_loop(history, ask, model)
    except (Exception, KeyboardInterrupt) as error:
        print("error: " + explain(error))
        del history[size:]
        continue
    if outcome != "done":
        print("error: the model needed more steps than the turn limit allows; that request was dropped")
        del history[size:]
''',
    },
}

# Lecture 05's answers, written as the hidden tests allow.
ANSWERS = {'answer_q1 = "c"': 'answer_q1 = " C "', 'answer_q2 = "b"': "answer_q2 = 'B'",
           'answer_q3 = "b"': 'answer_q3 = "b\\n"', 'answer_q4 = "c"': 'answer_q4 = "\\tc"',
           "answer_q5 = 6": "answer_q5 = 2 * 3", 'answer_q6 = "b"': 'answer_q6 = "B "'}


def ours(confirmed: dict[str, bool]) -> dict[str, bool]:
    return {k: v for k, v in confirmed.items() if k[1:3] in OURS}


def test_correct_alternatives_are_confirmed_on_every_cell_of_04_to_06(course, solved, reference, tmp_path):
    workspace = tmp_path / "alternative"
    shutil.copytree(solved, workspace)
    for name, functions in ALTERNATIVES.items():
        text = (ROOT / name).read_text(encoding="utf-8")
        for function, body in functions.items():
            text = replace_solution(text, function, body)
        (workspace / name).write_text(text, encoding="utf-8")
    [path] = workspace.glob("05-*.ipynb")
    nb = notebooks.load(path)
    for cell in nb.cells:
        for old, new in ANSWERS.items():
            cell.source = cell.source.replace(old, new)
    path.write_text(notebooks.render(nb), encoding="utf-8")

    confirmed = ours(check(course, workspace, reference))
    assert {k[:3] for k in confirmed} == {"l04", "l05", "l06"}
    assert refused(confirmed) == set()


@pytest.mark.slow
@pytest.mark.parametrize("mutant", [m for m in MUTANTS + (MORE_MUTANTS if os.environ.get("NANO_ALL_MUTANTS") else [])
                                    if m.lecture in OURS], ids=lambda m: m.name)
def test_a_mutant_is_refused_exactly_where_the_hidden_tests_fail(course, solved, reference, mutant, tmp_path):
    workspace = tmp_path / mutant.name
    shutil.copytree(solved, workspace)
    apply(workspace, mutant)
    [source] = (course / "source" / release.ASSIGNMENT).glob(f"{mutant.lecture}-*.ipynb")
    nb = notebooks.load(source)  # the hidden tests included, the instructor's answers
    errors = notebooks.execute(nb, workspace)
    failed = {c.metadata["nbgrader"]["grade_id"] for c, error in zip(nb.cells, errors)
              if error and c.metadata.get("nbgrader", {}).get("grade")}
    assert failed, f"{mutant.name}: no hidden test fails, the catalogue is out of date"
    files, answers = independent.student_files(workspace)
    scenarios = independent.lecture_scenarios(mutant.lecture)
    got = independent.observe_all(independent.make_workspace(course, files, tmp_path / "check"), scenarios,
                             reference["seed"], answers)
    assert refused(independent.judge_all(scenarios, got, reference["observations"][mutant.lecture])) == failed
