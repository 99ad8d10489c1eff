"""The alternatives catalogue: correct code written another way, each as one small edit of the reference.

The mutant catalogue (mutants.py) proves that a mistake a lecture names costs points in its
lecture. This one proves the other half of a fair grade: correct code that is written differently
(stderr or logging or warnings along the way, imports inside functions, `os` instead of
`pathlib`, a table instead of `if`/`elif`, a helper or a class, its own wording where the contract
leaves the words free) costs nothing. Each Alternative is (name, lecture, file, old text, new text,
why), applied to a perfect submission with `mutants.apply`; `why` says in one line why it is
still correct. `contested` marks the formats the contract may or may not fix (issue 15's last
three rows and their kin): such an alternative must either keep every point or fail `./ok`, so
that a student learns of the format before grading, never at it.

tests/project/test_alternatives.py runs each one's visible checks; test_mutations.py grades them
through real nbgrader and the independent check, in the class the slow tests share.
"""

from typing import NamedTuple

from autograder.authoring.mutants import GATE_THEN_RUN, REPAIR


class Alternative(NamedTuple):
    name: str
    lecture: str
    file: str  # relative to the workspace; in a notebook, the edit applies to one cell's source
    old: str
    new: str
    why: str  # one line: why this is still a correct solution
    contested: bool = False  # a format the contract may fix: full points, or ./ok fails on it


def swap(text: str, *pairs: tuple[str, str]) -> str:
    """`text` with each (old, new) pair replaced, each old occurring exactly once."""
    for old, new in pairs:
        if text.count(old) != 1:
            raise ValueError(f"{old!r} is not in the text exactly once")
        text = text.replace(old, new)
    return text


# Reference texts that several alternatives rewrite (nano/*.py, inside the solution regions).

READ_FILE = '''\
    file = Path(path)
    if file.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a file: use list_files to look inside it")
    if not file.is_file():
        raise FileNotFoundError(f"No such file: {path}")
    return clip(file.read_text(encoding="utf-8", errors="replace"))
'''
FENCE = '''\
    base = Path(root).resolve()
    target = (base / path).resolve()
    if not target.is_relative_to(base):
        raise PermissionError(f"{path} is outside the project folder {base}: the file tools stay inside it")
    return target
'''
LIST_FILES = '''\
    folder = Path(path)
    if not folder.exists():
        raise FileNotFoundError(f"No such directory: {path}")
    if not folder.is_dir():
        raise NotADirectoryError(f"{path} is a file, not a directory: use read_file to read it")
    names = sorted(entry.name + ("/" if entry.is_dir() else "") for entry in folder.iterdir())
    return clip("\\n".join(names))
'''
RUN_TOOL = '''\
    table = {
        "read_file": read_file,
        "list_files": list_files,
        "write_file": write_file,
        "edit_file": edit_file,
        "bash": bash,
    }
    if name not in table:
        raise ValueError(f"Unknown tool {name!r}; the tools are {', '.join(sorted(table))}")
    return table[name](**input)
    ### END SOLUTION
'''
WRITE_FILE = '''\
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(content, encoding="utf-8")
    return f"Wrote {len(content)} characters to {path}"
'''
EDIT_FILE = '''\
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"No such file: {path}")
    if not old_string:
        raise ValueError("old_string is empty: give the exact text to replace")
    text = file.read_text(encoding="utf-8")
    count = text.count(old_string)
    if count == 0:
        raise ValueError(f"old_string was not found in {path}: read the file and copy the text "
                         "exactly, whitespace included")
    if count > 1:
        raise ValueError(f"old_string occurs {count} times in {path}: include more of the "
                         "surrounding lines so that it matches exactly once")
    file.write_text(text.replace(old_string, new_string, 1), encoding="utf-8")
    return f"Edited {path}"
'''
BASH_RESULT = '''\
    return clip(f"exit code: {proc.returncode}\\nstdout:\\n{stdout}\\nstderr:\\n{stderr}")
    ### END SOLUTION
'''
PREVIEW = '''\
    if name == "bash":
        return f"$ {input.get('command', '')}"
    path = str(input.get("path", ""))
    if name == "write_file":
        return _diff(path, _current_text(path) or "", str(input.get("content", "")))
    if name == "edit_file":
        old, new = str(input.get("old_string", "")), str(input.get("new_string", ""))
        text = _current_text(path)
        if text is not None and old and text.count(old) == 1:
            return _diff(path, text, text.replace(old, new, 1))
        return _diff(path, old, new)
    return f"{name}({json.dumps(input)})"
'''
CONFIRM = '''\
    answer = await ask.question(f"{preview(name, input)}\\nAllow {name}? [y/n] ")
    return answer.strip().lower() in ("y", "yes")
    ### END SOLUTION
'''
CALL_MODEL = '''\
    global _client
    if _client is None:
        _client = anthropic.AsyncAnthropic()
    return await _client.messages.create(
        model=MODEL,
        max_tokens=MAX_TOKENS,
        system=SYSTEM_PROMPT,
        tools=TOOLS,
        messages=messages,
    )
    ### END SOLUTION
'''
RUN_TOOL_END = "    return table[name](**input)\n    ### END SOLUTION\n"  # what code added after a function follows
CALL_MODEL_END = "        messages=messages,\n    )\n    ### END SOLUTION\n"
LOOP = '''\
    for _ in range(max_turns):
        reply = await model(messages)
        messages.append({"role": "assistant", "content": reply.content})
        results = []
        for block in reply.content:
            if block.type == "text":
                print(block.text)
            if block.type != "tool_use":
                continue
            print(f"● {block.name}({json.dumps(block.input)[:120]})")
''' + GATE_THEN_RUN + '''\
            results.append({"type": "tool_result", "tool_use_id": block.id,
                            "content": content, "is_error": is_error})
        if not results:
            return "done"
        messages.append({"role": "user", "content": results})
    return "max_turns"
    ### END SOLUTION
'''
PRINT_TOOL = '            print(f"● {block.name}({json.dumps(block.input)[:120]})")\n'
READ_LINE = '''\
    while True:
        try:
            line = (await ask.question("> ")).strip()
        except (EOFError, KeyboardInterrupt):
            break
'''
TURN = '''\
        messages.append({"role": "user", "content": line})
        try:
            status = await agent_loop(messages, ask, model)
            if status == "max_turns":
                print("error: stopped after the turn limit; the unfinished turn was dropped.")
        except (Exception, KeyboardInterrupt, asyncio.CancelledError) as exc:
            print(f"error: {explain(exc)}")
            current = asyncio.current_task()
            if isinstance(exc, asyncio.CancelledError) and current is not None:
                current.uncancel()
''' + REPAIR
L01 = "01-shape-of-an-agent.ipynb"
L02 = "02-tools-that-read.ipynb"

ALTERNATIVES = [
    # 01: warmup and the unlock questions
    Alternative("warmup_power_of_ten", "01", "nano/protocol.py", "    return 61 * 1000 + 1\n",
                "    return 61 * 10**3 + 1\n",
                "still arithmetic on small numbers that reads as 61 and 001, and still the int 61001"),
    Alternative("q1_as_a_string", "01", L01, "answer_q1 = 3", 'answer_q1 = "3"',
                "the question's own check reads str(answer_q1), so a whole number written as a string counts"),
    Alternative("q2_upper_case_letter", "01", L01, 'answer_q2 = "c"', 'answer_q2 = "C"',
                "the letter is compared in any case, as the check's .lower() shows"),
    Alternative("q3_field_quoted_with_spaces", "01", L01, 'answer_q3_field = "tool_use_id"',
                'answer_q3_field = " tool_use_id "',
                "surrounding spaces are stripped before the key is compared"),
    Alternative("l02_q1_upper_case_letter", "02", L02, 'answer_q1 = "c"', 'answer_q1 = "C"',
                "lecture 02's letter answers are compared in any case too"),

    # 02: read_file, list_files, run_tool
    Alternative("read_file_with_os_path_and_open", "02", "nano/tools.py", READ_FILE, '''\
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a directory; list_files shows what is inside it")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"read_file: cannot find {path}")
    with open(path, encoding="utf-8", errors="replace") as handle:
        return clip(handle.read())
''', "os.path and open() in text mode read what Path.read_text reads; the messages keep the path"),
    Alternative("read_file_logs_a_missing_file", "02", "nano/tools.py",
                '        raise FileNotFoundError(f"No such file: {path}")\n    return clip(', '''\
        import logging

        logging.getLogger(__name__).warning("read_file: %s does not exist", path)
        raise FileNotFoundError(f"No such file: {path}")
    return clip(''', "a log line on stderr changes nothing the caller gets: it still raises, naming the path"),
    Alternative("list_files_with_os_listdir_and_a_loop", "02", "nano/tools.py", LIST_FILES, '''\
    if not os.path.exists(path):
        raise FileNotFoundError(f"There is no directory {path}")
    if not os.path.isdir(path):
        raise NotADirectoryError(f"{path} is a file: read it with read_file")
    names = []
    for name in os.listdir(path):
        if os.path.isdir(os.path.join(path, name)):
            name += "/"
        names.append(name)
    names.sort()
    return clip("\\n".join(names))
''', "the same names, marked and sorted the same way, from os instead of pathlib, in a for loop"),
    Alternative("list_files_with_scandir_and_try", "02", "nano/tools.py", LIST_FILES, '''\
    try:
        with os.scandir(path or ".") as entries:
            names = sorted(entry.name + "/" if entry.is_dir() else entry.name for entry in entries)
    except (FileNotFoundError, NotADirectoryError):
        if os.path.exists(path):
            raise NotADirectoryError(f"{path} is not a directory; read_file reads files") from None
        raise FileNotFoundError(f"list_files: {path} does not exist") from None
    return clip("\\n".join(names))
''', "asking forgiveness instead of permission raises the same two errors, each naming the path"),
    Alternative("run_tool_if_elif", "02", "nano/tools.py", RUN_TOOL, '''\
    if name == "read_file":
        return read_file(**input)
    elif name == "list_files":
        return list_files(**input)
    elif name == "write_file":
        return write_file(**input)
    elif name == "edit_file":
        return edit_file(**input)
    elif name == "bash":
        return bash(**input)
    raise ValueError(f"There is no tool called {name}. Use one of: read_file, list_files, write_file, "
                     "edit_file, bash")
    ### END SOLUTION
''', "if/elif dispatches exactly as the table does; the unknown-tool error still names every tool"),
    Alternative("run_tool_table_as_a_module_constant", "02", "nano/tools.py", RUN_TOOL, '''\
    if name not in TOOL_FUNCTIONS:
        raise ValueError(f"unknown tool {name!r}: the known tools are {sorted(TOOL_FUNCTIONS)}")
    return TOOL_FUNCTIONS[name](**input)
    ### END SOLUTION


TOOL_FUNCTIONS = {tool.__name__: tool for tool in (read_file, list_files, write_file, edit_file, bash)}
''', "a table built once at import holds the same five functions; nothing is caught, unknown names are listed"),
    Alternative("run_tool_as_a_class", "02", "nano/tools.py", RUN_TOOL, '''\
    class Dispatcher:
        """Finds a tool by its name and calls it with the model's arguments."""

        def __init__(self, *tools):
            self.tools = {tool.__name__: tool for tool in tools}

        def __call__(self, name, arguments):
            if name not in self.tools:
                raise ValueError(f"No tool named {name!r}. Known tools: {', '.join(self.tools)}")
            return self.tools[name](**arguments)

    return Dispatcher(read_file, list_files, write_file, edit_file, bash)(name, input)
    ### END SOLUTION
''', "a class where a function would do: the same lookup, the same call, nothing caught"),
    Alternative("run_tool_logged_by_a_decorator", "02", "nano/tools.py", RUN_TOOL_END, '''\
    return table[name](**input)
    ### END SOLUTION


def _logged(function):
    """`function`, logging each call (functools.wraps keeps its name, docstring and signature)."""
    import functools
    import logging

    @functools.wraps(function)
    def logged(*args, **kwargs):
        logging.getLogger(__name__).info("%s%r", function.__name__, args)
        return function(*args, **kwargs)
    return logged


run_tool = _logged(run_tool)
''', "a decorator that logs and calls through returns what run_tool returns and raises what it raises"),
    Alternative("run_tool_built_by_a_closure", "02", "nano/tools.py", RUN_TOOL_END, '''\
    return table[name](**input)
    ### END SOLUTION


def _dispatcher(*tools):
    """A run_tool closed over a table of `tools` by their names."""
    table = {tool.__name__: tool for tool in tools}

    def run_tool(name: str, input: dict[str, Any]) -> str:
        """Run the tool called `name` with the arguments in `input`, and return its result."""
        if name not in table:
            raise ValueError(f"Unknown tool {name!r}; the tools are {', '.join(sorted(table))}")
        return table[name](**input)
    return run_tool


run_tool = _dispatcher(read_file, list_files, write_file, edit_file, bash)
''', "a run_tool made by a function, closed over the same five tools: the same lookup, nothing caught"),

    # 03: write_file, edit_file, bash
    Alternative("write_file_with_os_makedirs_and_open", "03", "nano/tools.py", WRITE_FILE, '''\
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(content)
    return f"Wrote {len(content)} characters to {path}"
''', "os.makedirs and open('w') create the parents and replace the text as pathlib does"),
    Alternative("write_file_progress_on_stderr", "03", "nano/tools.py",
                "    file.parent.mkdir(parents=True, exist_ok=True)\n", '''\
    import sys

    print(f"writing {len(content)} characters to {path}", file=sys.stderr)
    file.parent.mkdir(parents=True, exist_ok=True)
''', "a progress line on stderr is not the tool's result; the file and the confirmation are unchanged"),
    Alternative("write_file_confirmation_with_a_period", "03", "nano/tools.py",
                '    return f"Wrote {len(content)} characters to {path}"\n',
                '    return f"Wrote {len(content)} characters to {path}."\n',
                "one line with the count and the path (issue 15's third row); lecture 03 may fix the exact "
                "words", contested=True),
    Alternative("edit_file_with_split", "03", "nano/tools.py", EDIT_FILE, swap(
        EDIT_FILE,
        ("    count = text.count(old_string)\n", "    before, *after = text.split(old_string)\n    count = len(after)\n"),
        ("text.replace(old_string, new_string, 1)", "before + new_string + after[0]")),
                "split finds the same non-overlapping matches as count, and joins the one match's two sides"),
    Alternative("edit_file_own_wording", "03", "nano/tools.py", EDIT_FILE, swap(
        EDIT_FILE,
        ('f"No such file: {path}"', 'f"edit_file: {path} does not exist"'),
        ('"old_string is empty: give the exact text to replace"',
         '"old_string must not be empty: copy the text to replace from read_file"'),
        ('f"old_string was not found in {path}: read the file and copy the text "\n'
         '                         "exactly, whitespace included"',
         'f"{path}: old_string not found; copy it from read_file\'s output exactly"'),
        ('f"old_string occurs {count} times in {path}: include more of the "\n'
         '                         "surrounding lines so that it matches exactly once"',
         'f"{path}: old_string matches {count} places; add surrounding lines until it matches one"')),
                "the messages still say not found, or how many matches and where, and what to do"),
    Alternative("edit_file_could_not_find", "03", "nano/tools.py",
                'f"old_string was not found in {path}: read the file',
                'f"could not find old_string in {path}: read the file',
                "says the text is missing and what to do (issue 15's fourth row); ./ok 03 asks for "
                "'not found'", contested=True),
    Alternative("bash_argv_without_shell_true", "03", "nano/tools.py",
                '    with subprocess.Popen(command, shell=True, executable="/bin/bash", stdin=subprocess.DEVNULL,',
                '    with subprocess.Popen(["/bin/bash", "-c", command], stdin=subprocess.DEVNULL,',
                "shell=True with executable=/bin/bash runs exactly [/bin/bash, -c, command]"),
    Alternative("bash_warns_on_a_nonzero_exit", "03", "nano/tools.py", BASH_RESULT, '''\
    if proc.returncode:
        import warnings

        warnings.warn(f"{command!r} exited with code {proc.returncode}", stacklevel=2)
''' + BASH_RESULT, "a warning is not an exception: the non-zero exit still comes back as a result"),
    Alternative("bash_result_from_a_helper", "03", "nano/tools.py", BASH_RESULT, '''\
    return clip(_bash_result(proc.returncode, stdout, stderr))
    ### END SOLUTION


def _bash_result(code: int, stdout: str, stderr: str) -> str:
    """The exit code, stdout and stderr under their labels, as bash's result lays them out."""
    return "\\n".join([f"exit code: {code}", "stdout:", stdout, "stderr:", stderr])
''', "a module-level helper builds the very same text"),
    Alternative("fence_with_os_path_commonpath", "03", "nano/tools.py", FENCE, '''\
    base = os.path.realpath(root)
    target = os.path.realpath(os.path.join(base, path))
    if os.path.commonpath([base, target]) != base:
        raise PermissionError(f"Refused: {path} lies outside {base}")
    return Path(target)
''', "realpath follows '..' and links as resolve does, and commonpath compares whole folder names"),
    Alternative("fence_with_parents", "03", "nano/tools.py", "    if not target.is_relative_to(base):",
                "    if target != base and base not in target.parents:",
                "the project folder or one of its descendants: what is_relative_to says of resolved paths"),
    Alternative("read_file_uses_the_fenced_path", "02", "nano/tools.py", "    inside_project(path)\n" + READ_FILE,
                "    file = inside_project(path)\n" + READ_FILE.removeprefix("    file = Path(path)\n"),
                "read_file opens the absolute path the fence returns: the same file, and its messages still "
                "name the path as given"),

    # 04: preview, confirm
    Alternative("preview_match_statement", "04", "nano/gate.py", PREVIEW, '''\
    path = str(input.get("path", ""))
    match name:
        case "bash":
            return f"$ {input.get('command', '')}"
        case "write_file":
            return _diff(path, _current_text(path) or "", str(input.get("content", "")))
        case "edit_file":
            old, new = str(input.get("old_string", "")), str(input.get("new_string", ""))
            text = _current_text(path)
            if text is not None and old and text.count(old) == 1:
                return _diff(path, text, text.replace(old, new, 1))
            return _diff(path, old, new)
        case _:
            return f"{name}({json.dumps(input)})"
''', "match/case dispatches on the name exactly as the if chain does"),
    Alternative("preview_reads_with_open", "04", "nano/gate.py", PREVIEW, swap(
        PREVIEW,
        ('    path = str(input.get("path", ""))\n', '''\
    path = str(input.get("path", ""))

    def current():
        try:
            with open(path, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError, ValueError):
            return None

'''),
        ("_current_text(path) or", "current() or"),
        ("text = _current_text(path)", "text = current()")),
                "an inner helper with open() reads what _current_text reads, and gives None where it does"),
    Alternative("preview_new_file_from_dev_null", "04", "nano/gate.py",
                '        return _diff(path, _current_text(path) or "", str(input.get("content", "")))\n', '''\
        current = _current_text(path)
        shown = _diff(path, current or "", str(input.get("content", "")))
        if current is None:
            shown = shown.replace(f"--- a/{path}\\n", "--- /dev/null\\n", 1)
        return shown
''', "git's header for a new file (issue 15's fifth row); lecture 04 may fix '--- a/<path>'", contested=True),
    Alternative("confirm_casefold_and_a_set", "04", "nano/gate.py", 'return answer.strip().lower() in ("y", "yes")',
                'return answer.strip().casefold() in {"y", "yes"}',
                "casefold and a set accept exactly y and yes in any case, as lower and a tuple do"),
    Alternative("confirm_own_prompt_and_a_constant", "04", "nano/gate.py", CONFIRM, '''\
    answer = await ask.question(f"{preview(name, input)}\\n\\nLet nano run {name}? [y/n] ")
    return answer.strip().lower() in YES_ANSWERS
    ### END SOLUTION


YES_ANSWERS = frozenset({"y", "yes"})  # a clear yes; anything else is a no
''', "asks once with the preview, ends in '[y/n] ' in other words; a module constant holds the yeses"),

    # 05: call_model, agent_loop
    Alternative("call_model_timed_by_a_decorator", "05", "nano/model.py", CALL_MODEL_END, '''\
        messages=messages,
    )
    ### END SOLUTION


def _timed(function):
    """The coroutine function `function`, logging how long each call took."""
    import functools
    import logging
    import time

    @functools.wraps(function)
    async def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return await function(*args, **kwargs)
        finally:
            logging.getLogger(__name__).info("%s took %.3f s", function.__name__, time.perf_counter() - start)
    return timed


call_model = _timed(call_model)
''', "a timing decorator awaits call_model and returns its reply: the same request, the same client"),
    Alternative("call_model_client_from_a_helper", "05", "nano/model.py", CALL_MODEL, '''\
    return await _the_client().messages.create(
        model=MODEL,
        max_tokens=MAX_TOKENS,
        system=SYSTEM_PROMPT,
        tools=TOOLS,
        messages=messages,
    )
    ### END SOLUTION


def _the_client():
    """The one AsyncAnthropic client, built on first use and kept in _client."""
    global _client
    if _client is None:
        _client = anthropic.AsyncAnthropic()
    return _client
''', "the helper builds the client once, keeps it in _client, and the call sends the same five fields"),
    Alternative("call_model_imports_the_client_inside", "05", "nano/model.py", CALL_MODEL, swap(
        CALL_MODEL,
        ("    global _client\n", "    from anthropic import AsyncAnthropic\n\n    global _client\n"),
        ("anthropic.AsyncAnthropic()", "AsyncAnthropic()")),
                "the import runs at call time, so it meets whatever anthropic.AsyncAnthropic is then"),
    Alternative("call_model_request_as_a_dict", "05", "nano/model.py", CALL_MODEL, swap(
        CALL_MODEL,
        ('''\
    return await _client.messages.create(
        model=MODEL,
        max_tokens=MAX_TOKENS,
        system=SYSTEM_PROMPT,
        tools=TOOLS,
        messages=messages,
    )
''', '''\
    request = {"model": MODEL, "max_tokens": MAX_TOKENS, "system": SYSTEM_PROMPT, "tools": TOOLS,
               "messages": messages}
    return await _client.messages.create(**request)
'''),), "the same five fields, gathered in a dict first"),
    Alternative("loop_progress_on_stderr", "05", "nano/loop.py", LOOP, swap(
        LOOP,
        ("    for _ in range(max_turns):\n", "    import sys\n\n    for _ in range(max_turns):\n"),
        (PRINT_TOOL, PRINT_TOOL.replace(")\n", ", file=sys.stderr)\n"))),
                "the tool-call lines go to stderr (issue 15's first row); what reaches the model is unchanged"),
    Alternative("loop_logs_tool_errors", "05", "nano/loop.py",
                "                except Exception as exc:\n", '''\
                except Exception as exc:
                    import logging

                    logging.getLogger(__name__).warning("%s failed: %s", block.name, exc)
''', "a log line on stderr for a failed tool; the error result is the same"),
    Alternative("loop_warns_when_declined", "05", "nano/loop.py",
                "                content, is_error = DECLINED, False\n", '''\
                import warnings

                warnings.warn(f"the human declined {block.name}", stacklevel=2)
                content, is_error = DECLINED, False
''', "warnings.warn inside agent_loop writes to stderr only; the denial is reported the same way"),
    Alternative("loop_imports_inside", "05", "nano/loop.py", "    for _ in range(max_turns):\n", '''\
    from nano.gate import GATED, confirm
    from nano.tools import run_tool

    for _ in range(max_turns):
''', "imports inside the function (issue 15's second row) find the same run_tool and confirm at call time"),
    Alternative("loop_module_qualified_calls", "05", "nano/loop.py", LOOP, swap(
        LOOP,
        ("    for _ in range(max_turns):\n",
         "    import nano.gate\n    import nano.tools as t\n\n    for _ in range(max_turns):\n"),
        ("if block.name in GATED and not await confirm(", "if block.name in nano.gate.GATED and not await nano.gate.confirm("),
        ("run_tool(block.name, block.input)", "t.run_tool(block.name, block.input)")),
                "nano.gate.confirm and t.run_tool (issue 15's second row) are the same functions by another path"),
    Alternative("loop_while_with_a_counter", "05", "nano/loop.py",
                "    for _ in range(max_turns):\n        reply = await model(messages)\n", '''\
    calls = 0
    while calls < max_turns:
        calls += 1
        reply = await model(messages)
''', "while with a counter calls the model at most max_turns times, as the for loop does"),
    Alternative("loop_results_from_a_helper", "05", "nano/loop.py", LOOP, swap(
        LOOP,
        (GATE_THEN_RUN, "            content, is_error = await _outcome(block, ask)\n"),
        ('    return "max_turns"\n    ### END SOLUTION\n', '''\
    return "max_turns"
    ### END SOLUTION


async def _outcome(block, ask):
    """The content and is_error of one tool_use block's result: declined, its output, or its error."""
    if block.name in GATED and not await confirm(ask, block.name, block.input):
        return DECLINED, False
    try:
        return run_tool(block.name, block.input), False
    except Exception as exc:
        return str(exc) or type(exc).__name__, True
''')), "a module-level helper of nano.loop gates and runs each block exactly as the loop body did"),
    Alternative("loop_texts_then_tool_uses_by_comprehension", "05", "nano/loop.py", LOOP, swap(
        LOOP,
        ('''\
        results = []
        for block in reply.content:
            if block.type == "text":
                print(block.text)
            if block.type != "tool_use":
                continue
''', '''\
        for block in reply.content:
            if block.type == "text":
                print(block.text)
        results = []
        for block in [b for b in reply.content if b.type == "tool_use"]:
'''),), "prints every text block, then answers every tool_use block in order, one result each"),
    Alternative("loop_is_error_only_when_true", "05", "nano/loop.py",
                '''\
            results.append({"type": "tool_result", "tool_use_id": block.id,
                            "content": content, "is_error": is_error})
''', '''\
            result = {"type": "tool_result", "tool_use_id": block.id, "content": content}
            if is_error:
                result["is_error"] = True  # the API reads a missing is_error as false
            results.append(result)
''', "the API treats a missing is_error as false; the contract writes is_error: False, and the trace "
     "compares entries exactly", contested=True),

    # 06: main
    Alternative("repl_rolls_back_the_whole_turn", "06", "nano/repl.py", TURN, '''\
        start = len(messages)
        messages.append({"role": "user", "content": line})
        try:
            status = await agent_loop(messages, ask, model)
            if status == "max_turns":
                print("error: the turn limit was reached, so that turn was undone.")
                del messages[start:]
        except (Exception, KeyboardInterrupt, asyncio.CancelledError) as exc:
            print(f"error: {explain(exc)}")
            del messages[start:]  # the whole turn: the history is as it was before the line
            current = asyncio.current_task()
            if isinstance(exc, asyncio.CancelledError) and current is not None:
                current.uncancel()
''', "cutting back to before the line leaves the history at rest, as popping the dangling tail does"),
    Alternative("repl_repairs_recursively", "06", "nano/repl.py", REPAIR + "    return messages\n    ### END SOLUTION\n",
                '''\
        _repair(messages)
    return messages
    ### END SOLUTION


def _repair(messages: list[MessageParam]) -> None:
    """Pop the tail of `messages` until check_messages(messages, at_rest=True) holds."""
    if not messages:
        return
    try:
        check_messages(messages, at_rest=True)
    except ProtocolError:
        messages.pop()
        _repair(messages)
''', "recursion pops the same entries the while loop pops"),
    Alternative("repl_reads_with_a_walrus", "06", "nano/repl.py", READ_LINE, '''\
    async def next_line():
        try:
            return (await ask.question("> ")).strip()
        except (EOFError, KeyboardInterrupt):
            return None

    while (line := await next_line()) is not None:
''', "a while on the next line stops at the end of input exactly where the break did"),
    Alternative("repl_imports_agent_loop_inside", "06", "nano/repl.py",
                "    ask = TerminalAsker() if ask is None else ask\n", '''\
    from nano.loop import agent_loop

    ask = TerminalAsker() if ask is None else ask
''', "the import inside main finds nano.loop's agent_loop at call time"),
    Alternative("repl_logs_failed_turns", "06", "nano/repl.py", '            print(f"error: {explain(exc)}")\n', '''\
            print(f"error: {explain(exc)}")
            import logging

            logging.getLogger(__name__).warning("turn failed: %r", exc)
''', "the one-line report on stdout is unchanged; the log line goes to stderr"),
    Alternative("repl_progress_on_stderr", "06", "nano/repl.py",
                '        messages.append({"role": "user", "content": line})\n', '''\
        import sys

        print(f"[request {sum(m['role'] == 'user' for m in messages) + 1}]", file=sys.stderr)
        messages.append({"role": "user", "content": line})
''', "a progress line on stderr; the history and stdout are unchanged"),
    Alternative("repl_line_as_a_text_block", "06", "nano/repl.py",
                '        messages.append({"role": "user", "content": line})\n',
                '        messages.append({"role": "user", "content": [{"type": "text", "text": line}]})\n',
                "the API takes a user turn as a string or as text blocks; the recorded replay and exact "
                "comparisons may expect the string", contested=True),
    # Issue 32's new shapes (a held stream, a wrapper without wraps, methods, the fence by name,
    # a relative import, arithmetic in steps)
    Alternative("warmup_in_augmented_steps", "01", "nano/protocol.py", "    return 61 * 1000 + 1\n", '''\
    total = 61
    total *= 1000
    total += 1
    return total
''', "augmented assignments are arithmetic operators on 61 and 001"),
    Alternative("warmup_as_a_lambda", "01", "nano/protocol.py", "def warmup() -> int:\n",
                "warmup = lambda: 61 * 1000 + 1  # noqa: E731\n\n\ndef _first_warmup() -> int:\n",
                "a lambda bound to the name is a function warmup() that returns the arithmetic"),
    Alternative("read_file_logs_through_a_handler_it_keeps", "02", "nano/tools.py",
                "    inside_project(path)\n" + READ_FILE, '''\
    import logging

    log = logging.getLogger("nano.tools.read")
    if not log.handlers:  # made once, at the first call: it holds the stderr of that moment
        log.addHandler(logging.StreamHandler())
        log.setLevel(logging.INFO)
        log.propagate = False
    log.info("read_file %s", path)
    inside_project(path)
''' + READ_FILE, "a log line on stderr, through a handler that keeps the stream it was made with; the text is unchanged"),
    Alternative("read_file_takes_the_fenced_path_by_name", "02", "nano/tools.py",
                "    inside_project(path)\n" + READ_FILE,
                "    file = inside_project(path=path, root=os.getcwd())\n" + READ_FILE.removeprefix("    file = Path(path)\n"),
                "the fence's arguments by name, its root the working directory: the path it returns is the file"),
    Alternative("write_file_noted_by_a_partial_made_at_import", "03", "nano/tools.py",
                "def write_file(path: str, content: str) -> str:\n", '''\
import functools  # noqa: E402
import sys  # noqa: E402

_note = functools.partial(print, file=sys.stderr, flush=True)  # holds the stderr of import time


def _noted(function):
    @functools.wraps(function)
    def noted(*args, **kwargs):
        _note(f"nano: {function.__name__} {args[0] if args else kwargs.get('path')}")
        return function(*args, **kwargs)
    return noted


@_noted
def write_file(path: str, content: str) -> str:
''', "a note on stderr before each write, through a stream held since import; what is written and returned is unchanged"),
    Alternative("gate_as_an_object_whose_confirm_calls_its_preview", "04", "nano/gate.py",
                '    return answer.strip().lower() in ("y", "yes")\n', '''\
    return answer.strip().lower() in ("y", "yes")


class _Gate:
    """The gate as one object: confirm asks with its own preview."""

    def __init__(self, show):
        self.show = show

    def preview(self, name, input):
        return self.show(name, input)

    async def confirm(self, ask, name, input):
        answer = await ask.question(f"{self.preview(name, input)}\\nAllow {name}? [y/n] ")
        return answer.strip().lower() in ("y", "yes")


_gate = _Gate(preview)
preview = _gate.preview
confirm = _gate.confirm
''', "confirm calls preview(name, input), the very object nano.gate.preview is, through self"),
    Alternative("call_model_imports_tools_relatively", "05", "nano/model.py",
                "from nano.tools import TOOLS\n", "from .tools import TOOLS\n",
                "a relative import inside the package names the same TOOLS"),
    Alternative("loop_counted_by_a_wrapper_without_wraps", "05", "nano/loop.py",
                "async def agent_loop(", '''\
def _counted(function):
    def counted(*args, **kwargs):
        counted.calls += 1
        return function(*args, **kwargs)  # the coroutine, which the caller awaits
    counted.calls = 0
    return counted


@_counted
async def agent_loop(''', "awaiting agent_loop(...) awaits the coroutine the plain wrapper returns"),
]
