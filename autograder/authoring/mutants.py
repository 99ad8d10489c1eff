"""The mutation catalogue: the mistakes the lectures name, each as one small edit of the reference.

Each Mutant is (name, lecture, file, old text, new text): applied to a perfect submission with
`apply`, it must lose points in its own lecture only (tests/project/test_mutations.py checks
that with real nbgrader), and fail the visible checks, ./ok NN, unless it is a wrong answer in
a notebook (tests/project/test_ok_mutants.py, for every mutant here). MUTANTS, graded in the
suite's shared class, holds at least one mistake per graded rule; MORE_MUTANTS holds the rest of
the mistakes the lectures name (an audit of every lecture's "common mistake", "do not" and "a
loop that"), graded too with NANO_ALL_MUTANTS=1 and by `nano-course check NN --behaviours`.
docs/graded-behaviours.md lists them by lecture, beside the graded behaviours they must fail.
The bench (bench.py) draws its mutated submissions from here too.
"""

from pathlib import Path
from typing import NamedTuple, Protocol

from autograder.authoring import notebooks


class Mutant(NamedTuple):
    name: str
    lecture: str
    file: str  # relative to the workspace; in a notebook, the edit applies to one cell's source
    old: str
    new: str

    @property
    def ok(self) -> bool:
        """Whether the visible checks, ./ok NN, still pass with this mistake: only for a wrong
        answer in a notebook, which the visible checks cannot know without giving it away
        (tests/project/test_ok_mutants.py fails every other one)."""
        return self.file.endswith(".ipynb")


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

FENCE = "    inside_project(path)\n"
FENCED_WRITE = FENCE + "    file = Path(path)\n    file.parent.mkdir("
FENCED_READ = FENCE + "    file = Path(path)\n    if file.is_dir():"
FENCED_LIST = FENCE + "    folder = Path(path)\n"
FENCED_EDIT = FENCE + "    file = Path(path)\n    if not file.is_file():\n        raise FileNotFoundError(f\"No such file: {path}\")\n    if not old_string:"

MUTANTS = [
    # 01: "each wrong answer"; warmup's hard-coded literal (section 8)
    Mutant("warmup_hard_coded", "01", "nano/protocol.py", WARMUP, "    return 61001\n"),
    Mutant("q2_tool_results_are_special", "01", "01-shape-of-an-agent.ipynb",
           'answer_q2 = "c"', 'answer_q2 = "a"'),
    # 02: missing path, default path, run_tool swallowing errors
    Mutant("read_file_message_without_path", "02", "nano/tools.py", MISSING,
           'raise FileNotFoundError("file not found")\n    return clip('),
    Mutant("list_files_default_at_import", "02", "nano/tools.py", 'def list_files(path: str = ".") -> str:',
           "def list_files(path: str = os.getcwd()) -> str:"),
    Mutant("run_tool_swallows_errors", "02", "nano/tools.py", "    return table[name](**input)\n",
           '    try:\n        return table[name](**input)\n    except Exception as exc:\n'
           '        return f"Error: {exc}"\n'),
    # 03: replace-all edits, exit codes, stderr, timeout
    Mutant("edit_file_replaces_all", "03", "nano/tools.py", TOO_MANY,
           '    file.write_text(text.replace(old_string, new_string), encoding="utf-8")'),
    Mutant("bash_nonzero_exit_raises", "03", "nano/tools.py", '    return clip(f"exit code: {proc.returncode}',
           '    if proc.returncode:\n        raise RuntimeError(stderr)\n'
           '    return clip(f"exit code: {proc.returncode}'),
    Mutant("bash_drops_stderr", "03", "nano/tools.py", "stderr=subprocess.PIPE, text=True",
           "stderr=subprocess.DEVNULL, text=True"),
    Mutant("bash_timeout_escapes", "03", "nano/tools.py",
           '            raise TimeoutError(f"Command timed out after {BASH_TIMEOUT} seconds: {command}") from None',
           "            raise"),
    # 03, section 7: the fence's prefix test, comparing unresolved paths, a tool that forgets the call
    Mutant("fence_string_prefix", "03", "nano/tools.py", "    if not target.is_relative_to(base):",
           "    if not str(target).startswith(str(base)):"),
    Mutant("fence_without_resolving", "03", "nano/tools.py", "    target = (base / path).resolve()",
           "    target = base / path"),
    Mutant("write_file_outside_the_fence", "03", "nano/tools.py", FENCED_WRITE, FENCED_WRITE.replace(FENCE, "")),
    # 04: lenient yes, asking twice, preview missing from the prompt, no diff
    Mutant("confirm_lenient_yes", "04", "nano/gate.py", YES,
           'return answer.strip().lower().startswith("y")'),
    Mutant("confirm_asks_twice", "04", "nano/gate.py", ASK,
           '    await ask.question(preview(name, input))\n'
           '    answer = await ask.question(f"Allow {name}? [y/n] ")\n'),
    Mutant("confirm_prompt_without_preview", "04", "nano/gate.py", ASK,
           '    print(preview(name, input))\n    answer = await ask.question(f"Allow {name}? [y/n] ")\n'),
    Mutant("preview_edit_fragment_only", "04", "nano/gate.py",
           "        if text is not None and old and text.count(old) == 1:\n"
           "            return _diff(path, text, text.replace(old, new, 1))\n", ""),
    # 05: client built every call, one message per result, gate asked for ungated tools,
    # tool run before the gate, filtered assistant turn, assistant turn rebuilt without its thinking
    Mutant("call_model_new_client_each_call", "05", "nano/model.py",
           "    if _client is None:\n        _client = anthropic.AsyncAnthropic()\n",
           "    _client = anthropic.AsyncAnthropic()\n"),
    Mutant("loop_one_message_per_result", "05", "nano/loop.py", REPLY,
           '        for result in results:\n            messages.append({"role": "user", "content": [result]})'),
    Mutant("loop_gates_every_tool", "05", "nano/loop.py", "if block.name in GATED and not await confirm(",
           "if not await confirm("),
    Mutant("loop_runs_the_tool_before_the_gate", "05", "nano/loop.py", GATE_THEN_RUN, RUN_THEN_GATE),
    Mutant("loop_keeps_only_tool_use_blocks", "05", "nano/loop.py",
           'messages.append({"role": "assistant", "content": reply.content})',
           'messages.append({"role": "assistant", "content": '
           '[b for b in reply.content if b.type == "tool_use"] or reply.content})'),
    Mutant("loop_drops_thinking_blocks", "05", "nano/loop.py",
           'messages.append({"role": "assistant", "content": reply.content})',
           'messages.append({"role": "assistant", "content": '
           '[b for b in reply.content if b.type in ("text", "tool_use")]})'),
    # 06: no history repair, crash on model error, exit
    Mutant("repl_no_history_repair", "06", "nano/repl.py", REPAIR, ""),
    Mutant("repl_exit_substring", "06", "nano/repl.py", '        if line == "exit":',
           '        if "exit" in line:'),
    Mutant("repl_crashes_on_model_error", "06", "nano/repl.py", CATCH,
           "        except (KeyboardInterrupt, asyncio.CancelledError) as exc:"),
]

MORE_MUTANTS = [
    Mutant("warmup_float_division", "01", "nano/protocol.py", WARMUP,
           "    return (61 * 2000 + 2) / 2\n"),
    Mutant("warmup_returns_a_string", "01", "nano/protocol.py", WARMUP, "    return str(61 * 1000 + 1)\n"),
    Mutant("q1_counts_the_coming_reply", "01", "01-shape-of-an-agent.ipynb", "answer_q1 = 3", "answer_q1 = 4"),
    Mutant("q4_failed_tool_ends_the_loop", "01", "01-shape-of-an-agent.ipynb",
           'answer_q4 = "b"', 'answer_q4 = "c"'),
    Mutant("read_file_swallows_a_missing_file", "02", "nano/tools.py", MISSING,
           'return f"Error: no such file {path}"\n    return clip('),
    Mutant("read_file_without_clip", "02", "nano/tools.py",
           'return clip(file.read_text(encoding="utf-8", errors="replace"))',
           'return file.read_text(encoding="utf-8", errors="replace")'),
    Mutant("list_files_unmarked_directories", "02", "nano/tools.py",
           'entry.name + ("/" if entry.is_dir() else "")', "entry.name"),
    Mutant("list_files_missing_dir_is_empty", "02", "nano/tools.py",
           'raise FileNotFoundError(f"No such directory: {path}")', 'return ""'),
    Mutant("run_tool_unknown_without_names", "02", "nano/tools.py",
           "raise ValueError(f\"Unknown tool {name!r}; the tools are {', '.join(sorted(table))}\")",
           'raise ValueError(f"Unknown tool {name!r}")'),
    Mutant("write_file_no_parent_dirs", "03", "nano/tools.py",
           "    file.parent.mkdir(parents=True, exist_ok=True)\n    file.write_text(content",
           "    file.write_text(content"),
    Mutant("write_file_appends", "03", "nano/tools.py",
           '    file.write_text(content, encoding="utf-8")\n    return f"Wrote',
           '    with open(file, "a", encoding="utf-8") as out:\n        out.write(content)\n'
           '    return f"Wrote'),
    Mutant("write_file_counts_bytes", "03", "nano/tools.py", 'return f"Wrote {len(content)} characters',
           'return f"Wrote {len(content.encode())} characters'),
    Mutant("edit_file_zero_matches_silent", "03", "nano/tools.py",
           '    if count == 0:\n        raise ValueError(f"old_string was not found in {path}: read the file '
           'and copy the text "\n                         "exactly, whitespace included")\n', ""),
    Mutant("bash_kills_only_the_shell", "03", "nano/tools.py", "os.killpg(proc.pid, signal.SIGKILL)",
           "proc.kill()"),
    Mutant("fence_abspath_follows_no_links", "03", "nano/tools.py", "    target = (base / path).resolve()",
           "    target = Path(os.path.abspath(base / path))"),
    Mutant("fence_root_fixed_at_import", "03", "nano/tools.py", 'def inside_project(path: str, root: str = ".")',
           "def inside_project(path: str, root: str = os.getcwd())"),
    Mutant("read_file_outside_the_fence", "03", "nano/tools.py", FENCED_READ, FENCED_READ.replace(FENCE, "")),
    Mutant("list_files_outside_the_fence", "03", "nano/tools.py", FENCED_LIST, FENCED_LIST.replace(FENCE, "")),
    Mutant("edit_file_outside_the_fence", "03", "nano/tools.py", FENCED_EDIT, FENCED_EDIT.replace(FENCE, "")),
    Mutant("confirm_case_sensitive", "04", "nano/gate.py", YES, 'return answer.strip() in ("y", "yes")'),
    Mutant("preview_bash_shows_the_dict", "04", "nano/gate.py",
           "        return f\"$ {input.get('command', '')}\"", '        return f"$ {input}"'),
    Mutant("preview_raises_for_a_new_file", "04", "nano/gate.py",
           'return _diff(path, _current_text(path) or "", str(input.get("content", "")))',
           'return _diff(path, Path(path).read_text(), str(input.get("content", "")))'),
    Mutant("call_model_no_system_prompt", "05", "nano/model.py", "        system=SYSTEM_PROMPT,\n", ""),
    Mutant("loop_rebinds_the_list", "05", "nano/loop.py", REPLY,
           '        messages = messages + [{"role": "user", "content": results}]'),
    Mutant("loop_denial_is_an_error", "05", "nano/loop.py", "content, is_error = DECLINED, False",
           "content, is_error = DECLINED, True"),
    Mutant("loop_made_up_ids", "05", "nano/loop.py", '"tool_use_id": block.id,',
           '"tool_use_id": f"result_{len(results)}",'),
    Mutant("loop_no_turn_limit", "05", "nano/loop.py", "    for _ in range(max_turns):\n", "    while True:\n"),
    Mutant("repl_pops_once", "06", "nano/repl.py", REPAIR,
           "        try:\n            check_messages(messages, at_rest=True)\n"
           "        except ProtocolError:\n            messages.pop()\n"),
    Mutant("repl_new_list_per_line", "06", "nano/repl.py", '        messages.append({"role": "user", "content": line})',
           '        messages = [{"role": "user", "content": line}]'),
    Mutant("repl_messages_or_empty", "06", "nano/repl.py", "    messages = [] if messages is None else messages",
           "    messages = messages or []"),
    Mutant("repl_blank_lines_pushed", "06", "nano/repl.py", "        if not line:\n            continue\n", ""),
    Mutant("repl_except_exception_only", "06", "nano/repl.py", CATCH, "        except Exception as exc:"),
    # The audit of issue 32: every other mistake lectures 01-06 name ("Common mistake: ...", "do
    # not ...", "a loop that ..."), one mutant each, named after the lecture's words.
    Mutant("warmup_prints", "01", "nano/protocol.py", WARMUP, "    print(61 * 1000 + 1)\n"),
    Mutant("read_file_prints", "02", "nano/tools.py",
           'return clip(file.read_text(encoding="utf-8", errors="replace"))',
           'print(clip(file.read_text(encoding="utf-8", errors="replace")))'),
    Mutant("read_file_reads_bytes", "02", "nano/tools.py",
           'return clip(file.read_text(encoding="utf-8", errors="replace"))', "return file.read_bytes()"),
    Mutant("read_file_strips_the_text", "02", "nano/tools.py",
           'return clip(file.read_text(encoding="utf-8", errors="replace"))',
           'return clip(file.read_text(encoding="utf-8", errors="replace").strip())'),
    Mutant("list_files_unsorted", "02", "nano/tools.py", "names = sorted(entry.name", "names = list(entry.name"),
    Mutant("list_files_returns_a_list", "02", "nano/tools.py", 'return clip("\\n".join(names))', "return names"),
    Mutant("list_files_paths_not_names", "02", "nano/tools.py", 'sorted(entry.name + ("/"', 'sorted(str(entry) + ("/"'),
    Mutant("list_files_recursive", "02", "nano/tools.py",
           'sorted(entry.name + ("/" if entry.is_dir() else "") for entry in folder.iterdir())',
           'sorted(str(entry.relative_to(folder)) + ("/" if entry.is_dir() else "") '
           'for entry in folder.rglob("*"))'),
    Mutant("list_files_skips_hidden", "02", "nano/tools.py", "for entry in folder.iterdir())",
           'for entry in folder.iterdir() if not entry.name.startswith("."))'),
    Mutant("run_tool_unknown_returns_a_string", "02", "nano/tools.py",
           "raise ValueError(f\"Unknown tool {name!r}; the tools are {', '.join(sorted(table))}\")",
           'return f"Unknown tool {name!r}"'),
    Mutant("run_tool_unknown_is_a_key_error", "02", "nano/tools.py",
           "    if name not in table:\n        raise ValueError(f\"Unknown tool {name!r}; the tools are "
           "{', '.join(sorted(table))}\")\n", ""),
    Mutant("run_tool_dispatches_by_globals", "02", "nano/tools.py",
           "    if name not in table:\n        raise ValueError(f\"Unknown tool {name!r}; the tools are "
           "{', '.join(sorted(table))}\")\n    return table[name](**input)\n",
           "    if name not in globals():\n        raise ValueError(f\"Unknown tool {name!r}; the tools are "
           "{', '.join(sorted(table))}\")\n    return globals()[name](**input)\n"),
    Mutant("run_tool_without_lecture_03_tools", "02", "nano/tools.py",
           '        "write_file": write_file,\n        "edit_file": edit_file,\n        "bash": bash,\n', ""),
    Mutant("write_file_makedirs_dirname", "03", "nano/tools.py", "    file.parent.mkdir(parents=True, exist_ok=True)\n",
           "    os.makedirs(os.path.dirname(path), exist_ok=True)\n"),
    Mutant("write_file_mkdir_without_exist_ok", "03", "nano/tools.py", "file.parent.mkdir(parents=True, exist_ok=True)",
           "file.parent.mkdir(parents=True)"),
    Mutant("write_file_returns_nothing", "03", "nano/tools.py",
           '    return f"Wrote {len(content)} characters to {path}"\n', ""),
    Mutant("write_file_own_wording", "03", "nano/tools.py", 'return f"Wrote {len(content)} characters to {path}"',
           'return f"Wrote {len(content)} characters to {path}."'),
    Mutant("write_file_adds_a_final_newline", "03", "nano/tools.py", 'file.write_text(content, encoding="utf-8")',
           'file.write_text(content if content.endswith("\\n") else content + "\\n", encoding="utf-8")'),
    Mutant("write_file_catches_errors", "03", "nano/tools.py",
           '    file.parent.mkdir(parents=True, exist_ok=True)\n    file.write_text(content, encoding="utf-8")\n',
           '    try:\n        file.parent.mkdir(parents=True, exist_ok=True)\n'
           '        file.write_text(content, encoding="utf-8")\n    except OSError as exc:\n'
           '        return f"Error: {exc}"\n'),
    Mutant("edit_file_writes_before_counting", "03", "nano/tools.py", "    count = text.count(old_string)\n",
           "    count = text.count(old_string)\n"
           '    file.write_text(text.replace(old_string, new_string), encoding="utf-8")\n'),
    Mutant("edit_file_strips_old_string", "03", "nano/tools.py", "    count = text.count(old_string)\n",
           "    old_string = old_string.strip()\n    count = text.count(old_string)\n"),
    Mutant("edit_file_one_vague_message", "03", "nano/tools.py",
           '    if count == 0:\n        raise ValueError(f"old_string was not found in {path}: read the file '
           'and copy the text "\n                         "exactly, whitespace included")\n'
           "    if count > 1:\n",
           "    if count != 1:\n"),
    Mutant("bash_merges_stderr", "03", "nano/tools.py", "stderr=subprocess.PIPE, text=True",
           "stderr=subprocess.STDOUT, text=True"),
    Mutant("bash_no_timeout", "03", "nano/tools.py", "proc.communicate(timeout=BASH_TIMEOUT)", "proc.communicate()"),
    Mutant("bash_timeout_bound_at_import", "03", "nano/tools.py", "def bash(command: str) -> str:",
           "def bash(command: str, BASH_TIMEOUT: float = BASH_TIMEOUT) -> str:"),
    Mutant("preview_makes_the_edit", "04", "nano/gate.py",
           "            return _diff(path, text, text.replace(old, new, 1))\n",
           "            from nano.tools import edit_file\n            edit_file(path, old, new)\n"
           '            return _diff(path, text, _current_text(path) or "")\n'),
    Mutant("preview_makes_the_write", "04", "nano/gate.py",
           '        return _diff(path, _current_text(path) or "", str(input.get("content", "")))\n',
           '        before = _current_text(path) or ""\n        from nano.tools import write_file\n'
           '        write_file(path, str(input.get("content", "")))\n'
           '        return _diff(path, before, _current_text(path) or "")\n'),
    Mutant("preview_edit_raises_for_a_missing_file", "04", "nano/gate.py", "        text = _current_text(path)\n",
           "        text = Path(path).read_text()\n"),
    Mutant("preview_diff_lines_run_together", "04", "nano/gate.py",
           "return _diff(path, text, text.replace(old, new, 1))",
           'return "".join(difflib.unified_diff(text.splitlines(), text.replace(old, new, 1).splitlines(), '
           'f"a/{path}", f"b/{path}"))'),
    Mutant("confirm_without_await", "04", "nano/gate.py", ASK,
           '    answer = ask.question(f"{preview(name, input)}\\nAllow {name}? [y/n] ")\n'),
    Mutant("confirm_asyncio_run", "04", "nano/gate.py", ASK,
           '    import asyncio\n'
           '    answer = asyncio.run(ask.question(f"{preview(name, input)}\\nAllow {name}? [y/n] "))\n'),
    Mutant("confirm_calls_input", "04", "nano/gate.py", ASK,
           '    import builtins\n    answer = builtins.input(f"{preview(name, input)}\\nAllow {name}? [y/n] ")\n'),
    Mutant("confirm_not_no_is_yes", "04", "nano/gate.py", YES, 'return not answer.strip().lower().startswith("n")'),
    Mutant("confirm_without_strip", "04", "nano/gate.py", YES, 'return answer.lower() in ("y", "yes")'),
    Mutant("confirm_asks_until_y_or_n", "04", "nano/gate.py", ASK + "    " + YES + "\n",
           "    while True:\n"
           '        answer = (await ask.question(f"{preview(name, input)}\\nAllow {name}? [y/n] ")).strip().lower()\n'
           '        if answer in ("y", "yes", "n", "no"):\n            return answer in ("y", "yes")\n'),
    Mutant("call_model_client_at_import", "05", "nano/model.py", "_client: Any = None",
           "_client: Any = anthropic.AsyncAnthropic()"),
    Mutant("call_model_without_global", "05", "nano/model.py", "    global _client\n", ""),
    Mutant("call_model_pasted_model_id", "05", "nano/model.py", "        model=MODEL,\n",
           '        model="claude-sonnet-5-5",\n'),
    Mutant("call_model_no_tools", "05", "nano/model.py", "        tools=TOOLS,\n", ""),
    Mutant("loop_calls_call_model_by_name", "05", "nano/loop.py", "reply = await model(messages)",
           "reply = await call_model(messages)"),
    Mutant("loop_text_blocks_as_dicts", "05", "nano/loop.py",
           'messages.append({"role": "assistant", "content": reply.content})',
           'messages.append({"role": "assistant", "content": [{"type": "text", "text": b.text} '
           'if b.type == "text" else b for b in reply.content]})'),
    Mutant("loop_pushes_the_message", "05", "nano/loop.py",
           'messages.append({"role": "assistant", "content": reply.content})',
           'messages.append({"role": "assistant", "content": reply})'),
    Mutant("loop_pushes_the_text_only", "05", "nano/loop.py",
           'messages.append({"role": "assistant", "content": reply.content})',
           'messages.append({"role": "assistant", "content": reply.content[0].text})'),
    Mutant("loop_lets_the_exception_escape", "05", "nano/loop.py",
           "                try:\n                    content, is_error = run_tool(block.name, block.input), False\n"
           "                except Exception as exc:\n"
           "                    content, is_error = str(exc) or type(exc).__name__, True\n",
           "                content, is_error = run_tool(block.name, block.input), False\n"),
    Mutant("loop_fixed_error_text", "05", "nano/loop.py", "content, is_error = str(exc) or type(exc).__name__, True",
           'content, is_error = "error", True'),
    Mutant("loop_copies_the_list", "05", "nano/loop.py", "    for _ in range(max_turns):\n",
           "    messages = list(messages)\n    for _ in range(max_turns):\n"),
    Mutant("loop_turn_limit_off_by_one", "05", "nano/loop.py", "range(max_turns)", "range(max_turns + 1)"),
    Mutant("loop_empty_user_message", "05", "nano/loop.py",
           '        if not results:\n            return "done"\n' + REPLY + "\n",
           REPLY + '\n        if not results:\n            return "done"\n'),
    Mutant("repl_loop_without_model", "06", "nano/repl.py", "agent_loop(messages, ask, model)",
           "agent_loop(messages, ask)"),
    Mutant("repl_loop_with_terminal_asker", "06", "nano/repl.py", "agent_loop(messages, ask, model)",
           "agent_loop(messages, TerminalAsker(), model)"),
    Mutant("repl_blank_test_before_strip", "06", "nano/repl.py",
           '            line = (await ask.question("> ")).strip()\n        except (EOFError, KeyboardInterrupt):\n'
           "            break\n        if not line:\n            continue\n",
           '            line = await ask.question("> ")\n        except (EOFError, KeyboardInterrupt):\n'
           '            break\n        if line == "":\n            continue\n        line = line.strip()\n'),
    Mutant("repl_eof_escapes", "06", "nano/repl.py", "        except (EOFError, KeyboardInterrupt):\n",
           "        except KeyboardInterrupt:\n"),
    Mutant("repl_eof_goes_round", "06", "nano/repl.py", "        except (EOFError, KeyboardInterrupt):\n            break\n",
           "        except KeyboardInterrupt:\n            break\n        except EOFError:\n            continue\n"),
    Mutant("repl_check_not_at_rest", "06", "nano/repl.py", "                check_messages(messages, at_rest=True)\n",
           "                check_messages(messages)\n"),
    Mutant("repl_clears_after_failure", "06", "nano/repl.py", REPAIR,
           "        try:\n            check_messages(messages, at_rest=True)\n"
           "        except ProtocolError:\n            messages.clear()\n"),
    Mutant("repl_try_around_the_loop", "06", "nano/repl.py",
           "    while True:\n"
           "        try:\n"
           '            line = (await ask.question("> ")).strip()\n'
           "        except (EOFError, KeyboardInterrupt):\n"
           "            break\n"
           "        if not line:\n"
           "            continue\n"
           '        if line == "exit":\n'
           "            break\n"
           '        messages.append({"role": "user", "content": line})\n'
           "        try:\n"
           "            status = await agent_loop(messages, ask, model)\n"
           '            if status == "max_turns":\n'
           '                print("error: stopped after the turn limit; the unfinished turn was dropped.")\n'
           "        except (Exception, KeyboardInterrupt, asyncio.CancelledError) as exc:\n"
           '            print(f"error: {explain(exc)}")\n'
           "            current = asyncio.current_task()\n"
           "            if isinstance(exc, asyncio.CancelledError) and current is not None:\n"
           "                current.uncancel()\n"
           "        while messages:\n"
           "            try:\n"
           "                check_messages(messages, at_rest=True)\n"
           "                break\n"
           "            except ProtocolError:\n"
           "                messages.pop()\n"
           "    return messages\n",
           "    try:\n"
           "        while True:\n"
           "            try:\n"
           '                line = (await ask.question("> ")).strip()\n'
           "            except EOFError:\n"
           "                break\n"
           "            if not line:\n"
           "                continue\n"
           '            if line == "exit":\n'
           "                break\n"
           '            messages.append({"role": "user", "content": line})\n'
           "            status = await agent_loop(messages, ask, model)\n"
           '            if status == "max_turns":\n'
           '                print("error: stopped after the turn limit; the unfinished turn was dropped.")\n'
           "    except (Exception, KeyboardInterrupt, asyncio.CancelledError) as exc:\n"
           '        print(f"error: {explain(exc)}")\n'
           "    while messages:\n"
           "        try:\n"
           "            check_messages(messages, at_rest=True)\n"
           "            break\n"
           "        except ProtocolError:\n"
           "            messages.pop()\n"
           "    return messages\n"),
    Mutant("repl_gate_eof_ends_the_session", "06", "nano/repl.py", CATCH,
           "        except EOFError:\n            break\n" + CATCH),
    Mutant("repl_ignores_the_status", "06", "nano/repl.py",
           "            status = await agent_loop(messages, ask, model)\n"
           "            if status == \"max_turns\":\n"
           "                print(\"error: stopped after the turn limit; the unfinished turn was dropped.\")\n"
           "        except (Exception, KeyboardInterrupt, asyncio.CancelledError) as exc:\n"
           "            print(f\"error: {explain(exc)}\")\n"
           "            current = asyncio.current_task()\n"
           "            if isinstance(exc, asyncio.CancelledError) and current is not None:\n"
           "                current.uncancel()\n"
           "        while messages:\n            try:\n                check_messages(messages, at_rest=True)\n"
           "                break\n            except ProtocolError:\n                messages.pop()\n",
           "            await agent_loop(messages, ask, model)\n"
           "        except (Exception, KeyboardInterrupt, asyncio.CancelledError) as exc:\n"
           "            print(f\"error: {explain(exc)}\")\n"
           "            current = asyncio.current_task()\n"
           "            if isinstance(exc, asyncio.CancelledError) and current is not None:\n"
           "                current.uncancel()\n"
           "            while messages:\n                try:\n                    check_messages(messages, at_rest=True)\n"
           "                    break\n                except ProtocolError:\n                    messages.pop()\n"),
    Mutant("repl_reraises_after_printing", "06", "nano/repl.py", '            print(f"error: {explain(exc)}")\n',
           '            print(f"error: {explain(exc)}")\n            raise\n'),
    Mutant("repl_prints_the_traceback", "06", "nano/repl.py", '            print(f"error: {explain(exc)}")\n',
           "            import traceback\n            traceback.print_exc()\n"),
    Mutant("repl_error_without_explain", "06", "nano/repl.py", 'print(f"error: {explain(exc)}")',
           'print(f"error: {exc}")'),
]


class Edit(Protocol):
    """One small edit of the reference: a Mutant here, or an Alternative (alternatives.py)."""

    @property
    def name(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def old(self) -> str: ...
    @property
    def new(self) -> str: ...


def apply(workspace: Path, mutant: Edit) -> None:
    """Make `mutant`'s one edit in a solved workspace; fail if its old text is not there exactly once."""
    path = workspace / mutant.file
    if path.suffix == ".ipynb":
        nb = notebooks.load(path)
        hits = [cell for cell in nb.cells if mutant.old in cell.source]
        if len(hits) != 1 or hits[0].source.count(mutant.old) != 1:
            raise ValueError(f"{mutant.name}: its old text is not in exactly one cell of {mutant.file}")
        hits[0].source = hits[0].source.replace(mutant.old, mutant.new)
        path.write_text(notebooks.render(nb), encoding="utf-8")
    else:
        text = path.read_text(encoding="utf-8")
        if text.count(mutant.old) != 1:
            raise ValueError(f"{mutant.name}: its old text is not in {mutant.file} exactly once")
        path.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")
