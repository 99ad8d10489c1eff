"""Lecture 02's scenarios: the two answers, read_file, list_files and run_tool.

Each mirrors its graded cell, visible and hidden parts, with the names drawn from SEED instead of
uuid. The student's process returns the raw results and exceptions (see HELPERS' `attempt`); the
judges below apply the hidden tests' conditions, taking the inputs and the truth from `ref`.
"""

import re

from autograder.check.scenarios import HELPERS, message, raised, text
from autograder.check.independent import Scenario

KNOWN = ["read_file", "list_files", "write_file", "edit_file", "bash"]


def _all_text_equal(got, ref):
    mine, truth = got.get("outcomes"), ref["outcomes"]
    return isinstance(mine, list) and len(mine) == len(truth) and all(
        text(m) is not None and text(m) == text(t) for m, t in zip(mine, truth))


def _raises_naming(kind):
    """Every outcome raised `kind` with the path (from ref) in its message."""
    def judge(got, ref):
        mine = got.get("outcomes")
        return isinstance(mine, list) and len(mine) == len(ref["paths"]) and all(
            raised(m, kind) and path in message(m) for m, path in zip(mine, ref["paths"]))
    return judge


def _clipped(got, ref):
    mine = got.get("outcomes")
    if not isinstance(mine, list) or len(mine) != len(ref["sizes"]):
        return False
    limit = ref["limit"]
    for index, (outcome, size) in enumerate(zip(mine, ref["sizes"])):
        result = text(outcome)
        if result is None:
            return False
        if index == 0:  # the visible case
            if len(result) >= size or "more characters not shown" not in result[limit - 50:]:
                return False
        elif len(result) > limit + 100 or not re.search(r"\d+ more characters not shown\]$", result):
            return False
    return True


def _sorted_names(got, ref):
    top, inner = text(got.get("top")), text(got.get("inner"))
    return (top is not None and inner is not None
            and all(text(got.get(k)) is not None and text(got[k]).splitlines() == sorted(ref[k + "_names"])
                    for k in ("visible", "top"))
            and [line.rstrip("/") for line in inner.splitlines()] == sorted(ref["inner_names"]))


def _marked(got, ref):
    return all(text(got.get(k)) is not None and set(text(got[k]).splitlines()) == set(ref[k + "_names"])
               for k in ("visible", "top", "inner"))


def _default_path(got, ref):
    return all(text(got.get(k)) is not None and set(text(got[k]).splitlines()) == set(ref[k + "_names"])
               for k in ("visible", "first", "second"))


def _unknown(got, ref):
    mine = got.get("outcomes")
    return isinstance(mine, list) and len(mine) == len(ref["outcomes"]) and all(
        raised(m, "ValueError") and all(name in message(m) for name in KNOWN) for m in mine)


def _passes_through(got, ref):
    mine = got.get("outcomes")
    return isinstance(mine, list) and len(mine) == len(ref["cases"]) and all(
        raised(m, kind) and "stand-in" in message(m) and path in message(m)
        for m, (_, path, kind) in zip(mine, ref["cases"]))


def _answer_letter(got, ref):
    mine = got.get("answer_q1")
    return isinstance(mine, str) and mine.strip().lower() == ref["answer_q1"].strip().lower()


def _answer_number(got, ref):
    return type(got.get("answer_q2")) is int and got["answer_q2"] == ref["answer_q2"]


DOUBLES = '''
import nano.tools
from nano.tools import run_tool


def fake_read_file(path):
    return f"<read_file path={path!r}>"


def fake_list_files(path="."):
    return f"<list_files path={path!r}>"


def fake_write_file(path, content):
    return f"<write_file path={path!r} content={content!r}>"


def fake_edit_file(path, old_string, new_string):
    return f"<edit_file path={path!r} old_string={old_string!r} new_string={new_string!r}>"


def fake_bash(command):
    return f"<bash command={command!r}>"
'''

SCENARIOS = [
    Scenario("l02_q1_check", 'observe(answer_q1=answers.get("answer_q1"))', judge=_answer_letter,
             answers=("l02_q1_answer",)),
    Scenario("l02_q2_check", 'observe(answer_q2=answers.get("answer_q2"))', judge=_answer_number,
             answers=("l02_q1_answer", "l02_q2_answer")),
    Scenario("l02_read_file_returns_text", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import read_file
tag = word(32)


def make():
    """Write the files and keep only their paths: code that reads its caller's frame finds no text."""
    cases = {
        "notes.txt": "first line\\n\\n\\tindented line\\n",
        f"src/pkg/mod_{tag[:6]}.py": f'"""Température: 21 °C, naïve café ☕ → {tag}."""\\n\\nVALUE = "{tag}"\\n',
        "docs/notes.md": f"# Notes\\n\\n  two leading spaces, a trailing one \\n\\n\\n{tag[::-1]}",
        f"deep/er/still/{tag[6:12]}.txt": f"no final newline, tab\\tinside {tag[3:9]}",
        f"données/café_{tag[:4]}.txt": f"ünïcödé in the name and in the text: {tag[-5:]} ✓\\n",
    }
    for path, content in cases.items():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(content, encoding="utf-8")
    return list(cases)


with scratch_dir():
    paths = make()
    observe(outcomes=[attempt(read_file, path) for path in paths])
''', judge=_all_text_equal),
    Scenario("l02_read_file_missing_path", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import read_file
tag = word(8)
paths = ["no_such_file.txt", f"docs/missing-{tag}.md", f"absent_{tag}/inner.py", f"other_{tag[::-1]}.txt"]
with scratch_dir({"docs/present.md": "here\\n", f"other_{tag}.txt": "x"}):
    observe(paths=paths, outcomes=[attempt(read_file, path) for path in paths])
''', judge=_raises_naming("FileNotFoundError")),
    Scenario("l02_read_file_clips_long_files", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import MAX_OUTPUT, read_file
limit = MAX_OUTPUT  # the reference's value is the one the judge uses


def make(size):
    """Write the file and return only its size: nothing in a frame holds the text."""
    if size is None:
        text = "0123456789\\n" * (limit // 5)
    else:
        text = "".join(rng.choice("abcdefgh \\n") for _ in range(size))
    Path("logs").mkdir()
    Path("logs/run.txt").write_text(text, encoding="utf-8")
    return len(text)


outcomes, sizes = [], []
for size in [None, limit + 1, 3 * limit + rng.randint(1, 999)]:
    with scratch_dir():
        sizes.append(make(size))
        outcomes.append(attempt(read_file, "logs/run.txt"))
observe(limit=limit, sizes=sizes, outcomes=outcomes)
''', judge=_clipped),
    Scenario("l02_list_files_sorted_names", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import list_files
visible = ["cherry.txt", "apple.txt", "banana.txt"]
with scratch_dir({name: "" for name in visible}):
    observe(visible_names=visible, visible=attempt(list_files, "."))
tag = word(6)
names = [f"mango-{tag}.txt", "zeta.md", ".env.example", "alpha.py", f"kiwi_{tag}.json",
         "beta.txt", "notes", ".gitignore", f"delta{tag}.cfg"]
with scratch_dir({name: "x" for name in names}):
    observe(top_names=names, top=attempt(list_files, "."))
files = {f"outer/inner/{tag}_one.py": "", "outer/inner/two.py": "", f"outer/inner/deeper/{tag}.py": "",
         "outer/inner/.hidden": "", "outer/top.txt": ""}
with scratch_dir(files):
    observe(inner_names=[".hidden", "deeper", f"{tag}_one.py", "two.py"], inner=attempt(list_files, "outer/inner"))
''', judge=_sorted_names),
    Scenario("l02_list_files_marks_directories", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import list_files
with scratch_dir({"src/main.py": "", "readme.md": ""}):
    observe(visible_names=["readme.md", "src/"], visible=attempt(list_files, "."))
tag = word(6)
with scratch_dir({f"pkg_{tag}/mod.py": "", f"pkg_{tag}/sub/deep.py": "",
                  "license": "", f"data.{tag}": "", "v1.2/readme.txt": ""}) as root:
    (root / f"pkg_{tag}" / "empty").mkdir()
    (root / "build").mkdir()
    observe(top=attempt(list_files, "."), inner=attempt(list_files, f"pkg_{tag}"),
            top_names=[f"pkg_{tag}/", "license", f"data.{tag}", "v1.2/", "build/"],
            inner_names=["mod.py", "sub/", "empty/"])
''', judge=_marked),
    Scenario("l02_list_files_default_path", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import list_files
with scratch_dir({"only.txt": ""}):
    observe(visible=attempt(list_files), visible_names=["only.txt"])
first, second = word(8), word(8)
with scratch_dir({f"first_{first}.txt": "1"}):
    observe(first=attempt(list_files), first_names=[f"first_{first}.txt"])
with scratch_dir({f"second_{second}.txt": "2", "also.md": "3"}):
    observe(second=attempt(list_files), second_names=[f"second_{second}.txt", "also.md"])
''', judge=_default_path),
    Scenario("l02_list_files_missing_path", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import list_files
tag = word(8)
with scratch_dir({}):
    outcomes = [attempt(list_files, "no_such_dir")]
paths = ["no_such_dir", f"src/gone_{tag}", f"nowhere-{tag}", f"nowhere-{tag}/deeper"]
with scratch_dir({"src/app.py": ""}):
    outcomes += [attempt(list_files, path) for path in paths[1:]]
observe(paths=paths, outcomes=outcomes)
''', judge=_raises_naming("FileNotFoundError")),
    Scenario("l02_run_tool_dispatches", HELPERS + DOUBLES + '''
tag = word(8)
cases = [
    ("read_file", {"path": "notes.txt"}), ("list_files", {"path": "src"}),
    ("read_file", {"path": f"docs/{tag}.md"}), ("list_files", {"path": f"src/{tag}"}),
    ("write_file", {"path": f"out/{tag}.txt", "content": f"hello {tag}\\n"}),
    ("edit_file", {"path": "a.py", "old_string": f"x = {tag}", "new_string": "x = 2"}),
    ("bash", {"command": f"echo {tag}"}), ("list_files", {}),
]
doubles = [(nano.tools.read_file, fake_read_file), (nano.tools.list_files, fake_list_files),
           (nano.tools.write_file, fake_write_file), (nano.tools.edit_file, fake_edit_file),
           (nano.tools.bash, fake_bash)]
with contextlib.ExitStack() as stack:
    for function, double in doubles:
        stack.enter_context(stand_in(function, double))
    observe(outcomes=[attempt(run_tool, name, dict(input)) for name, input in cases])
''', judge=_all_text_equal),
    Scenario("l02_run_tool_unknown_tool", HELPERS + '''
from nano.tools import run_tool
bad = [("delete_everything", {}), ("grep", {"pattern": "x"}), ("Read_File", {"path": "a.txt"}),
       ("read-file", {"path": "a.txt"}), ("clip", {"text": "abc"}),
       ("run_tool", {"name": "bash", "input": {}}), (f"tool_{word(6)}", {}), ("", {})]
observe(outcomes=[attempt(run_tool, name, input) for name, input in bad])
''', judge=_unknown),
    Scenario("l02_run_tool_does_not_swallow_errors", HELPERS + '''
import nano.tools
from nano.tools import run_tool


def failing_read_file(path):
    kinds = {"missing": FileNotFoundError, "denied": PermissionError, "garbled": UnicodeError,
             "odd": ValueError, "slow": TimeoutError}
    raise kinds[next(k for k in kinds if k in str(path))](f"stand-in: cannot read {path}")


def failing_list_files(path="."):
    kinds = {"missing": FileNotFoundError, "denied": PermissionError, "file": NotADirectoryError,
             "odd": ValueError, "slow": TimeoutError}
    raise kinds[next(k for k in kinds if k in str(path))](f"stand-in: cannot list {path}")


tag = word(8)
cases = [
    ("read_file", "missing/gone.txt", "FileNotFoundError"),
    ("read_file", f"missing/{tag}.py", "FileNotFoundError"), ("read_file", f"denied_{tag}.txt", "PermissionError"),
    ("read_file", f"garbled-{tag}.bin", "UnicodeError"), ("read_file", f"odd/{tag}", "ValueError"),
    ("list_files", f"missing_{tag}", "FileNotFoundError"), ("list_files", f"denied/{tag}", "PermissionError"),
    ("list_files", f"file-{tag}.txt", "NotADirectoryError"), ("list_files", f"slow_{tag}", "TimeoutError"),
]
with stand_in(nano.tools.read_file, failing_read_file), stand_in(nano.tools.list_files, failing_list_files):
    observe(cases=cases, outcomes=[attempt(run_tool, name, {"path": path}) for name, path, _ in cases])
''', judge=_passes_through),
]
