"""Are the hidden tests fair? Each named mistake costs points in its own lecture, and only there.

Each mutant is one of the mistakes COURSE.md section 5 and the lectures' "Common mistake"
paragraphs name, written as a small edit of the reference: (name, lecture, file, old text,
new text). Applied to a perfect submission and graded by real nbgrader, every mutant must lose
points in its own lecture and in no other, while the reference keeps all 10. `ok` says whether
the visible checks (./ok NN) pass on it: those are what the hidden tests add. The test checks
that too, and prints the table.

MUTANTS (at least one for each mistake COURSE.md section 5 lists, as far as time allows) are
graded by default, in about 4 minutes on 2 cores; MORE_MUTANTS too when NANO_ALL_MUTANTS=1 is
set (all 48 lost points in their own lecture only when this catalogue was written).
"""

import concurrent.futures
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from autograder import grade, notebooks, release

ROOT = release.ROOT


class Mutant(NamedTuple):
    name: str
    lecture: str
    file: str  # relative to the workspace; in a notebook, the edit applies to one cell's source
    old: str
    new: str
    ok: bool  # whether the visible checks, ./ok NN, still pass with this mistake


WARMUP = "    return 61 * 1000 + 1\n"
ASK = '    answer = await ask.question(f"{preview(name, input)}\\nAllow {name}? [y/n] ")\n'
YES = 'return answer.strip().lower() in ("y", "yes")'
REPLY = '        messages.append({"role": "user", "content": results})'
GATE_THEN_RUN = ('            if block.name in GATED and not await confirm(ask, block.name, block.input):\n'
                 '                content, is_error = DECLINED, False\n'
                 '            else:\n'
                 '                try:\n'
                 '                    content, is_error = run_tool(block.name, block.input), False\n'
                 '                except Exception as exc:\n'
                 '                    content, is_error = str(exc) or type(exc).__name__, True\n')
RUN_THEN_GATE = ('            try:\n'
                 '                content, is_error = run_tool(block.name, block.input), False\n'
                 '            except Exception as exc:\n'
                 '                content, is_error = str(exc) or type(exc).__name__, True\n'
                 '            if block.name in GATED and not await confirm(ask, block.name, block.input):\n'
                 '                content, is_error = DECLINED, False\n')
REPAIR = ('        while messages:\n            try:\n                check_messages(messages, at_rest=True)\n'
          '                break\n            except ProtocolError:\n                messages.pop()\n')
CATCH = "        except (Exception, KeyboardInterrupt, asyncio.CancelledError) as exc:"
MISSING = 'raise FileNotFoundError(f"No such file: {path}")\n    return clip('
TOO_MANY = ('    if count > 1:\n        raise ValueError(f"old_string occurs {count} times in {path}: '
            'include more of the "\n                         "surrounding lines so that it matches '
            'exactly once")\n    file.write_text(text.replace(old_string, new_string, 1), encoding="utf-8")')

MUTANTS = [
    # 01: "each wrong answer"; warmup's hard-coded literal (section 9)
    Mutant("warmup_hard_coded", "01", "nano/protocol.py", WARMUP, "    return 61001\n", ok=True),
    Mutant("q2_tool_results_are_special", "01", "01-shape-of-an-agent.ipynb",
           'answer_q2 = "c"', 'answer_q2 = "a"', ok=True),
    # 02: missing path, default path, run_tool swallowing errors
    Mutant("read_file_message_without_path", "02", "nano/tools.py", MISSING,
           'raise FileNotFoundError("file not found")\n    return clip(', ok=False),
    Mutant("list_files_default_at_import", "02", "nano/tools.py", 'def list_files(path: str = ".") -> str:',
           "def list_files(path: str = os.getcwd()) -> str:", ok=False),
    Mutant("run_tool_swallows_errors", "02", "nano/tools.py", "    return table[name](**input)\n",
           '    try:\n        return table[name](**input)\n    except Exception as exc:\n'
           '        return f"Error: {exc}"\n', ok=False),
    # 03: replace-all edits, exit codes, stderr, timeout
    Mutant("edit_file_replaces_all", "03", "nano/tools.py", TOO_MANY,
           '    file.write_text(text.replace(old_string, new_string), encoding="utf-8")', ok=True),
    Mutant("bash_nonzero_exit_raises", "03", "nano/tools.py", '    return clip(f"exit code: {proc.returncode}',
           '    if proc.returncode:\n        raise RuntimeError(stderr)\n'
           '    return clip(f"exit code: {proc.returncode}', ok=True),
    Mutant("bash_drops_stderr", "03", "nano/tools.py", "stderr=subprocess.PIPE, text=True",
           "stderr=subprocess.DEVNULL, text=True", ok=True),
    Mutant("bash_timeout_escapes", "03", "nano/tools.py",
           '            raise TimeoutError(f"Command timed out after {BASH_TIMEOUT} seconds: {command}") from None',
           "            raise", ok=False),
    # 04: lenient yes, asking twice, preview missing from the prompt, no diff
    Mutant("confirm_lenient_yes", "04", "nano/gate.py", YES,
           'return answer.strip().lower().startswith("y")', ok=True),
    Mutant("confirm_asks_twice", "04", "nano/gate.py", ASK,
           '    await ask.question(preview(name, input))\n'
           '    answer = await ask.question(f"Allow {name}? [y/n] ")\n', ok=False),
    Mutant("confirm_prompt_without_preview", "04", "nano/gate.py", ASK,
           '    print(preview(name, input))\n    answer = await ask.question(f"Allow {name}? [y/n] ")\n', ok=False),
    Mutant("preview_edit_fragment_only", "04", "nano/gate.py",
           "        if text is not None and old and text.count(old) == 1:\n"
           "            return _diff(path, text, text.replace(old, new, 1))\n", "", ok=False),
    # 05: client built every call, one message per result, gate asked for ungated tools,
    # tool run before the gate, filtered assistant turn
    Mutant("call_model_new_client_each_call", "05", "nano/model.py",
           "    if _client is None:\n        _client = anthropic.AsyncAnthropic()\n",
           "    _client = anthropic.AsyncAnthropic()\n", ok=True),
    Mutant("loop_one_message_per_result", "05", "nano/loop.py", REPLY,
           '        for result in results:\n            messages.append({"role": "user", "content": [result]})',
           ok=True),
    Mutant("loop_gates_every_tool", "05", "nano/loop.py", "if block.name in GATED and not await confirm(",
           "if not await confirm(", ok=False),
    Mutant("loop_runs_the_tool_before_the_gate", "05", "nano/loop.py", GATE_THEN_RUN, RUN_THEN_GATE, ok=False),
    Mutant("loop_keeps_only_tool_use_blocks", "05", "nano/loop.py",
           'messages.append({"role": "assistant", "content": reply.content})',
           'messages.append({"role": "assistant", "content": '
           '[b for b in reply.content if b.type == "tool_use"] or reply.content})', ok=True),
    # 06: no history repair, crash on model error, exit
    Mutant("repl_no_history_repair", "06", "nano/repl.py", REPAIR, "", ok=False),
    Mutant("repl_exit_substring", "06", "nano/repl.py", '        if line == "exit":',
           '        if "exit" in line:', ok=True),
    Mutant("repl_crashes_on_model_error", "06", "nano/repl.py", CATCH,
           "        except (KeyboardInterrupt, asyncio.CancelledError) as exc:", ok=False),
]

MORE_MUTANTS = [
    Mutant("warmup_float_division", "01", "nano/protocol.py", WARMUP,
           "    return (61 * 2000 + 2) / 2\n", ok=True),
    Mutant("warmup_returns_a_string", "01", "nano/protocol.py", WARMUP, "    return str(61 * 1000 + 1)\n", ok=False),
    Mutant("q1_counts_the_coming_reply", "01", "01-shape-of-an-agent.ipynb", "answer_q1 = 3", "answer_q1 = 4", ok=True),
    Mutant("q4_failed_tool_ends_the_loop", "01", "01-shape-of-an-agent.ipynb",
           'answer_q4 = "b"', 'answer_q4 = "c"', ok=True),
    Mutant("read_file_swallows_a_missing_file", "02", "nano/tools.py", MISSING,
           'return f"Error: no such file {path}"\n    return clip(', ok=False),
    Mutant("read_file_without_clip", "02", "nano/tools.py",
           'return clip(file.read_text(encoding="utf-8", errors="replace"))',
           'return file.read_text(encoding="utf-8", errors="replace")', ok=False),
    Mutant("list_files_unmarked_directories", "02", "nano/tools.py",
           'entry.name + ("/" if entry.is_dir() else "")', "entry.name", ok=False),
    Mutant("list_files_missing_dir_is_empty", "02", "nano/tools.py",
           'raise FileNotFoundError(f"No such directory: {path}")', 'return ""', ok=False),
    Mutant("run_tool_unknown_without_names", "02", "nano/tools.py",
           "raise ValueError(f\"Unknown tool {name!r}; the tools are {', '.join(sorted(table))}\")",
           'raise ValueError(f"Unknown tool {name!r}")', ok=False),
    Mutant("write_file_no_parent_dirs", "03", "nano/tools.py",
           "    file.parent.mkdir(parents=True, exist_ok=True)\n    file.write_text(content",
           "    file.write_text(content", ok=False),
    Mutant("write_file_appends", "03", "nano/tools.py",
           '    file.write_text(content, encoding="utf-8")\n    return f"Wrote',
           '    with open(file, "a", encoding="utf-8") as out:\n        out.write(content)\n'
           '    return f"Wrote', ok=True),
    Mutant("write_file_counts_bytes", "03", "nano/tools.py", 'return f"Wrote {len(content)} characters',
           'return f"Wrote {len(content.encode())} characters', ok=True),
    Mutant("edit_file_zero_matches_silent", "03", "nano/tools.py",
           '    if count == 0:\n        raise ValueError(f"old_string was not found in {path}: read the file '
           'and copy the text "\n                         "exactly, whitespace included")\n', "", ok=False),
    Mutant("bash_kills_only_the_shell", "03", "nano/tools.py", "os.killpg(proc.pid, signal.SIGKILL)",
           "proc.kill()", ok=False),
    Mutant("confirm_case_sensitive", "04", "nano/gate.py", YES, 'return answer.strip() in ("y", "yes")', ok=False),
    Mutant("preview_bash_shows_the_dict", "04", "nano/gate.py",
           "        return f\"$ {input.get('command', '')}\"", '        return f"$ {input}"', ok=False),
    Mutant("preview_raises_for_a_new_file", "04", "nano/gate.py",
           'return _diff(path, _current_text(path) or "", str(input.get("content", "")))',
           'return _diff(path, Path(path).read_text(), str(input.get("content", "")))', ok=True),
    Mutant("call_model_no_system_prompt", "05", "nano/model.py", "        system=SYSTEM_PROMPT,\n", "", ok=True),
    Mutant("loop_rebinds_the_list", "05", "nano/loop.py", REPLY,
           '        messages = messages + [{"role": "user", "content": results}]', ok=False),
    Mutant("loop_denial_is_an_error", "05", "nano/loop.py", "content, is_error = DECLINED, False",
           "content, is_error = DECLINED, True", ok=False),
    Mutant("loop_made_up_ids", "05", "nano/loop.py", '"tool_use_id": block.id,',
           '"tool_use_id": f"result_{len(results)}",', ok=False),
    Mutant("loop_no_turn_limit", "05", "nano/loop.py", "    for _ in range(max_turns):\n", "    while True:\n", ok=True),
    Mutant("repl_pops_once", "06", "nano/repl.py", REPAIR,
           "        try:\n            check_messages(messages, at_rest=True)\n"
           "        except ProtocolError:\n            messages.pop()\n", ok=False),
    Mutant("repl_new_list_per_line", "06", "nano/repl.py", '        messages.append({"role": "user", "content": line})',
           '        messages = [{"role": "user", "content": line}]', ok=False),
    Mutant("repl_messages_or_empty", "06", "nano/repl.py", "    messages = [] if messages is None else messages",
           "    messages = messages or []", ok=True),
    Mutant("repl_blank_lines_pushed", "06", "nano/repl.py", "        if not line:\n            continue\n", "", ok=False),
    Mutant("repl_except_exception_only", "06", "nano/repl.py", CATCH, "        except Exception as exc:", ok=True),
]


def apply(workspace: Path, mutant: Mutant) -> None:
    """Make `mutant`'s one edit in a solved workspace; fail if its old text is not there exactly once."""
    path = workspace / mutant.file
    if path.suffix == ".ipynb":
        nb = notebooks.load(path)
        hits = [cell for cell in nb.cells if mutant.old in cell.source]
        assert len(hits) == 1 and hits[0].source.count(mutant.old) == 1, \
            f"{mutant.name}: its old text is not in exactly one cell of {mutant.file}"
        hits[0].source = hits[0].source.replace(mutant.old, mutant.new)
        path.write_text(notebooks.render(nb), encoding="utf-8")
    else:
        text = path.read_text(encoding="utf-8")
        assert text.count(mutant.old) == 1, f"{mutant.name}: its old text is not in {mutant.file} exactly once"
        path.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")


def visible_checks_pass(workspace: Path, lecture: str) -> bool:
    done = subprocess.run([sys.executable, "ok", "00" if lecture == "01" else lecture], cwd=workspace,
                          capture_output=True, text=True, timeout=300)
    return done.returncode == 0


def test_the_catalogue_names_at_least_20_mistakes_in_every_lecture_and_applies_to_the_reference(
        fresh_workspace, tmp_path):
    names = [m.name for m in MUTANTS + MORE_MUTANTS]
    assert len(set(names)) == len(names) and len(MUTANTS) >= 20
    assert {m.lecture for m in MUTANTS} == {"01", "02", "03", "04", "05", "06"}
    workspace = release.solve_workspace(release.make_workspace(fresh_workspace, tmp_path / "ws"))
    for mutant in MUTANTS + MORE_MUTANTS:
        original = (workspace / mutant.file).read_bytes()
        apply(workspace, mutant)
        (workspace / mutant.file).write_bytes(original)


@pytest.mark.slow
def test_each_named_mistake_costs_points_in_its_own_lecture_only(course, tmp_path, capsys):
    mutants = MUTANTS + (MORE_MUTANTS if os.environ.get("NANO_ALL_MUTANTS") else [])
    release_dir = course / "release" / release.ASSIGNMENT
    subs = tmp_path / "subs"
    release.solve_workspace(release.make_workspace(release_dir, subs / "reference"))
    for mutant in mutants:
        apply(release.solve_workspace(release.make_workspace(release_dir, subs / mutant.name)), mutant)
    graded = tmp_path / "course"
    shutil.copytree(course, graded)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # ./ok runs while nbgrader grades
        visible = pool.submit(lambda: {m.name: visible_checks_pass(subs / m.name, m.lecture) for m in mutants})
        grades = {g.student: g for g in grade.grade_all(subs, graded, echo=lambda *_: None, workers=4,
                                                         timeout=20, feedback=False)}
        passes_ok = visible.result()

    full = grade.max_points(graded)
    lines = [f"{'mutant':38} lecture  ./ok    points lost", f"{'reference':38} {'':7}  {'':6}  "
             + (", ".join(f"{k}: {full[k] - v:g}" for k, v in grades["reference"].scores.items()
                          if v < full[k] - 1e-9) or "none")]
    wrong = []
    for mutant in mutants:
        got = grades[mutant.name]
        lost = {k: round(full[k] - v, 3) for k, v in got.scores.items() if v < full[k] - 1e-9}
        lines.append(f"{mutant.name:38} {mutant.lecture:7}  {'passes' if passes_ok[mutant.name] else 'fails':6}  "
                     + (", ".join(f"{k}: -{v:g}" for k, v in lost.items()) or "nothing"))
        if set(lost) != {mutant.lecture} or got.problem:
            wrong.append(f"{mutant.name} ({mutant.lecture}) lost {lost or 'nothing'} {got.problem}")
        if passes_ok[mutant.name] != mutant.ok:
            wrong.append(f"{mutant.name}: ./ok {'passes' if passes_ok[mutant.name] else 'fails'}, "
                         f"but the catalogue says it {'passes' if mutant.ok else 'fails'}")
    caught_only_by_hidden = [m.name for m in mutants if passes_ok[m.name]]
    lines.append(f"{len(mutants)} mutants; {len(caught_only_by_hidden)} pass ./ok and are caught only by "
                 f"the hidden tests: {', '.join(caught_only_by_hidden)}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))

    assert grades["reference"].scores == pytest.approx(full) and not grades["reference"].problem
    assert not wrong, "\n".join(wrong)
    assert caught_only_by_hidden, "no mutant passes ./ok: the hidden tests add nothing?"
