"""No Python kept inside string literals: is every program of more than a line or two a real file?

Walks autograder/, nano/ and tests/ with `ast` and lists every string constant (f-strings with
their holes filled in) that parses as Python with at least three statements or three lines of
code. Bare names, attributes and literals do not count as code, so file listings, JSON and
one-word lines are not flagged; docstrings are prose and are skipped. What must stay a string
is on ALLOWED with the reason.
"""

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("autograder", "nano", "tests", "checks")
LEFT_OUT = ("__pycache__", "student_only", "payloads")
MIN_STATEMENTS = MIN_LINES = 3

# (file, a few words the string contains) -> why it must be a string.
ALLOWED: dict[tuple[str, str], str] = {
    ("tests/project/test_exchange.py", "c.Exchange.root"):
        "a student's three-line nbgrader_config.py, written with the test's exchange path in it",
    ("tests/project/test_release.py", "def helper():"):
        "four lines the stubber must refuse, built around its own BEGIN/END markers",
    ("autograder/check/behaviours/l03.py", "return x"):
        "a Python file's text that edit_file is tested on: data the tool edits, never run",
    ("autograder/check/behaviours/l03.py", "def to_"):
        "a Python file's text that edit_file must leave untouched: data, never run",
    ("autograder/check/behaviours/l04.py", "Temperature conversions"):
        "fixtures/convert.py as the gate previews an edit of it: data, never run",
    ("autograder/check/behaviours/l04.py", "RETRIES = 3"):
        "a settings file's text whose edit the gate previews: data, never run",
    ("autograder/check/behaviours/l04.py", "def greet"):
        "a file's text whose edit the gate previews: data, never run",
    ("autograder/check/behaviours/l04.py", "[server]"):
        "an INI file's text whose edit the gate previews (it happens to parse as Python)",
    ("tests/project/test_no_code_in_strings.py", ""):
        "this scan's own samples of what it flags",
}


def found_in(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each string literal in `path` that holds a program."""
    nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))))
    docstrings = {id(node.body[0].value) for node in nodes
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    skipped = docstrings | {id(part) for node in nodes if isinstance(node, ast.JoinedStr) for part in node.values}
    found = []
    for node in nodes:
        if isinstance(node, ast.JoinedStr):
            text = "".join(part.value if isinstance(part, ast.Constant) else "hole" for part in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            text = node.value
        else:
            continue
        if is_a_program(text):
            found.append((node.lineno, text))
    return found


def is_a_program(text: str) -> bool:
    if text.count("\n") < 1 and text.count(";") < MIN_STATEMENTS - 1:
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    code = [s for s in ast.walk(tree) if isinstance(s, ast.stmt) and not is_data(s)]
    lines = {n for s in code if s in tree.body for n in range(s.lineno, s.end_lineno + 1)}
    return len(code) >= MIN_STATEMENTS or len(lines) >= MIN_LINES


def is_data(statement: ast.stmt) -> bool:
    """A bare name, attribute or literal on its own line: a word, a path, JSON; nothing runs."""
    if not isinstance(statement, ast.Expr):
        return False
    value = statement.value
    if isinstance(value, (ast.Name, ast.Attribute, ast.Constant)):
        return True
    try:
        ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def allowed(relative: str, text: str) -> bool:
    return any(name == relative and words in text for name, words in ALLOWED)


@functools.cache
def scan() -> tuple[str, ...]:
    """`file:line` of every string that holds a program and is not allowed."""
    hits = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if any(part in LEFT_OUT for part in path.parts):
                continue
            hits += [f"{relative}:{line}" for line, text in sorted(found_in(path)) if not allowed(relative, text)]
    return tuple(hits)


def test_the_scan_finds_a_program_and_leaves_data_and_prose_alone():
    assert is_a_program("import os\nos.remove('x')\nprint('gone')")
    assert is_a_program("for name in names:\n    if name:\n        print(name)")
    assert is_a_program("import os; os.getcwd(); print(1)")
    assert not is_a_program("print('one line')")
    assert not is_a_program("x = 1\ny = 2")
    assert not is_a_program("celsius_trace.json\nconvert.py\nnotes")
    assert not is_a_program('{\n  "role": "user",\n  "content": "hi"\n}')
    assert not is_a_program("Return the text of the file.\nIt raises when missing.\nSee below.")


def test_no_python_lives_in_a_string():
    hits = scan()
    assert not hits, f"{len(hits)} string literals hold Python (move them into a file or a function):\n" + \
        "\n".join(hits)
