"""The mutation catalogue: the mistakes the lectures name, each as one small edit of the reference.

Each Mutant is (name, lecture, file, old text, new text): applied to a perfect submission with
`apply`, it must lose points in its own lecture only (tests/project/test_mutations.py checks
that with real nbgrader), and fail the visible checks, ./ok NN, unless it is a wrong answer in
a notebook (tests/project/test_ok_mutants.py). MUTANTS covers every mistake the lectures name; MORE_MUTANTS adds others. docs/graded-behaviours.md lists
them by lecture, beside the graded behaviours they must fail. The bench
(bench.py) draws its mutated submissions from here too.
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
