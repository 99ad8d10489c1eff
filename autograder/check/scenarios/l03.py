"""Lecture 03's scenarios: write_file, edit_file and bash.

Each mirrors its graded cell, visible and hidden parts, with the names drawn from SEED. The
student's process reports the results, the exceptions, the files' contents after each call and,
for bash's timeouts, the seconds taken and whether the command's processes still run; the judges
apply the hidden tests' conditions, taking the inputs and the truth from `ref`.
"""

import re

from autograder.check.scenarios import HELPERS, message, raised, text
from autograder.check.independent import Scenario


def _ok(outcome) -> bool:
    return isinstance(outcome, dict) and "raised" not in outcome


def _refused(outcome) -> bool:
    """Raised an Exception, but not a stub's NotImplementedError (the hidden tests let it through)."""
    return raised(outcome, "Exception") and not raised(outcome, "NotImplementedError")


def _same_files(got, ref):
    """Every call returned, and every file then held what the reference wrote."""
    outcomes, contents = got.get("outcomes"), got.get("contents")
    return (isinstance(outcomes, list) and len(outcomes) == len(ref["outcomes"]) and all(map(_ok, outcomes))
            and isinstance(contents, list) and contents == ref["contents"] and None not in contents)


def _confirmation(got, ref):
    outcomes = got.get("outcomes")
    if not isinstance(outcomes, list) or len(outcomes) != len(ref["outcomes"]):
        return False
    first = text(outcomes[0])
    return (first is not None and bool(first.strip()) and "\n" not in first.strip()
            and all(text(m) is not None and text(m) == text(t) for m, t in zip(outcomes[1:], ref["outcomes"][1:])))


def _one_match(got, ref):
    outcomes, contents = got.get("outcomes"), got.get("contents")
    if not (isinstance(outcomes, list) and isinstance(contents, list)
            and len(outcomes) == len(ref["outcomes"]) == len(contents) == 5 and all(map(_ok, outcomes))):
        return False
    return (text(outcomes[0]) == text(ref["outcomes"][0]) and contents[0] == ref["contents"][0]
            and text(outcomes[1]) == text(ref["outcomes"][1]) and contents[1] == ref["contents"][1]
            and contents[2] == ref["contents"][2]
            and isinstance(contents[3], str) and "\n\n\n" not in contents[3]
            and isinstance(contents[4], str) and ref["deleted"] not in contents[4])


def _zero_matches(got, ref):
    outcomes = got.get("outcomes")
    if not isinstance(outcomes, list) or len(outcomes) != len(ref["outcomes"]):
        return False
    visible, *wrong, missing, empty = outcomes
    return (_refused(visible) and "not found" in message(visible).lower()
            and all(_refused(o) and "not found" in message(o).lower() and ref["path"] in message(o) for o in wrong)
            and _refused(missing) and ref["missing"] in message(missing)
            and _refused(empty))


def _several_matches(got, ref):
    outcomes = got.get("outcomes")
    if not isinstance(outcomes, list) or len(outcomes) != len(ref["cases"]):
        return False
    for index, (outcome, (path, count)) in enumerate(zip(outcomes, ref["cases"])):
        said = message(outcome)
        if not _refused(outcome) or str(count) not in said:
            return False
        if index and (path not in said or "not found" in said.lower()):
            return False
    return True


def _untouched(got, ref):
    outcomes, contents = got.get("outcomes"), got.get("contents")
    return (isinstance(outcomes, list) and len(outcomes) == len(ref["outcomes"]) and all(map(_refused, outcomes))
            and contents == ref["contents"])


def _exit_and_stdout(got, ref):
    ready, ls, pwd, pipe = (text(got.get(k)) for k in ("ready", "ls", "pwd", "pipe"))
    a, b = ref["names"]
    return (ready is not None and "exit code: 0" in ready and "ready" in ready
            and ls is not None and "exit code: 0" in ls and f"{a}.txt" in ls and b in ls
            and pwd is not None and ref["folder"] in pwd
            and pipe is not None and "exit code: 0" in pipe and f"{max(a, b)}\n{min(a, b)}" in pipe)


def _nonzero(got, ref):
    outcomes = got.get("outcomes")
    if not isinstance(outcomes, list) or len(outcomes) != len(ref["cases"]):
        return False
    for outcome, (_, expected, seen) in zip(outcomes, ref["cases"]):
        result = text(outcome)
        found = re.search(r"exit code: (-?\d+)", result or "")
        if result is None or not found or int(found.group(1)) != expected or (seen and seen not in result):
            return False
    return True


def _section(result, token):
    """The label ('stdout:' or 'stderr:') of the section in which `token` appears, or None."""
    at = result.find(token)
    if at < 0:
        return None
    last = max((result.rfind(label, 0, at), label) for label in ("stdout:", "stderr:"))
    return last[1] if last[0] >= 0 else None


def _stderr(got, ref):
    oops, both, traceback = (text(got.get(k)) for k in ("oops", "both", "traceback"))
    out, err = ref["out"], ref["err"]
    return (oops is not None and "oops" in oops
            and both is not None and err in both and _section(both, out) == "stdout:"
            and _section(both, err) == "stderr:" and "exit code: 5" in both
            and traceback is not None and _section(traceback, "ZeroDivisionError") == "stderr:"
            and _section(traceback, err) == "stderr:")


def _times_out(got, ref):
    outcomes, seconds = got.get("outcomes"), got.get("seconds")
    if not (isinstance(outcomes, list) and isinstance(seconds, list) and len(outcomes) == len(seconds) == 3):
        return False
    quick = text(got.get("quick"))
    return (all(raised(o, "TimeoutError") for o in outcomes)
            and all(message(o) for o in outcomes[1:])
            and all(isinstance(s, (int, float)) for s in seconds)
            and seconds[0] < 4 and seconds[1] < 3.5 and seconds[2] < 3.5
            and quick is not None and "exit code: 0" in quick and "quick" in quick)


def _stops_children(got, ref):
    state = got.get("state")
    return (raised(got.get("visible"), "TimeoutError") and got.get("late") is False
            and raised(got.get("hidden"), "TimeoutError")
            and isinstance(got.get("pid"), int) and (state is None or state in ("Z", "X")))


SCENARIOS = [
    Scenario("l03_write_file_creates_parent_dirs", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import write_file
a, b, c = word(), word(), word()
writes = [("docs/guide/intro.md", "# Intro\\n"), (f"{a}/{b}/{c}/module_{a}.py", f"NAME = '{b}'\\n"),
          (f"{a}/{b}/{c}/other_{c}.py", "x = 1\\n"), (f"{a}/first_level_{b}.txt", c), (f"{c}.txt", a)]
outcomes, contents = [], []
with scratch_dir():
    for path, content in writes:
        outcomes.append(attempt(write_file, path, content))
        contents.append(read(path))
observe(outcomes=outcomes, contents=contents)
''', judge=_same_files),
    Scenario("l03_write_file_replaces_contents", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import write_file
old, new = word(40), word(5)
name = f"{word()}/{word()}.md"
outcomes, contents = [], []
for start, path, writes in [({"plan.txt": "a long old plan that should disappear\\n"}, "plan.txt", ["new plan\\n"]),
                            ({name: old}, name, [new, f"crème brûlée {new}\\n\\n  trailing spaces  ", ""])]:
    with scratch_dir(start):
        for content in writes:
            outcomes.append(attempt(write_file, path, content))
            contents.append(Path(path).read_bytes().decode("latin-1") if Path(path).is_file() else None)
observe(outcomes=outcomes, contents=contents)
''', judge=_same_files),
    Scenario("l03_write_file_confirmation", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import write_file
cases = [("hello.txt", "hi"),
         (f"{word()}/{word()}.txt", word(rng.randrange(50) + 3)),
         (f"{word()}.md", "naïve café, déjà vu: " + word(rng.randrange(9) + 1)),
         (f"{word()}/empty.txt", "")]
with scratch_dir():
    observe(outcomes=[attempt(write_file, path, content) for path, content in cases])
''', judge=_confirmation),
    Scenario("l03_edit_file_one_match", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import edit_file
outcomes, contents = [], []
with scratch_dir({"greet.py": 'def greet():\\n    return "helo"\\n'}):
    outcomes.append(attempt(edit_file, "greet.py", '"helo"', '"hello"'))
    contents.append(read("greet.py"))
a, b, c = word(), word(), word()
path = f"{a}/{b}.py"
before = f"def {a}():\\n    x = '{b}'\\n    return x\\n\\n\\ndef {c}():\\n    pass\\n"
with scratch_dir({path: before}):
    for old, new in [(f"    x = '{b}'\\n    return x\\n", f"    return '{c}'\\n"),
                     (f"def {c}():", f"def {c}():  # {c}() calls def {c}():"),
                     ("\\n\\n\\n", "\\n"), (f"    return '{c}'\\n", "")]:
        outcomes.append(attempt(edit_file, path, old, new))
        contents.append(read(path))
observe(outcomes=outcomes, contents=contents, deleted=f"return '{c}'")
''', judge=_one_match),
    Scenario("l03_edit_file_zero_matches_raise", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import edit_file
with scratch_dir({"config.ini": "[server]\\nport = 8080\\n"}):
    outcomes = [attempt(edit_file, "config.ini", "port = 9090", "port = 80")]
a, b = word(), word()
path = f"{a}/{b}.py"
missing = f"{word()}/{word()}.txt"
with scratch_dir({path: f"def {a}():\\n\\treturn '{b}'\\n"}):
    for old in [f"return '{a}'", f"    return '{b}'", f"Return '{b}'", f"def  {a}():"]:
        outcomes.append(attempt(edit_file, path, old, "x"))
    outcomes.append(attempt(edit_file, missing, "a", "b"))
    outcomes.append(attempt(edit_file, path, "", "x"))
observe(outcomes=outcomes, path=path, missing=missing)
''', judge=_zero_matches),
    Scenario("l03_edit_file_several_matches_raise", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import edit_file
with scratch_dir({"prices.py": "tea = 1\\ncake = 1\\n"}):
    outcomes, cases = [attempt(edit_file, "prices.py", "= 1", "= 2")], [("prices.py", 2)]
for count in (3, 5):
    name, w = word(), word()
    path = f"{name}/{name}.txt"
    with scratch_dir({path: "start\\n" + "".join(f"line {w}\\n" for _ in range(count)) + "end\\n"}):
        outcomes.append(attempt(edit_file, path, f"line {w}", "changed"))
    cases.append((path, count))
observe(outcomes=outcomes, cases=cases)
''', judge=_several_matches),
    Scenario("l03_edit_file_refusal_leaves_file_untouched", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import edit_file
outcomes, contents = [], []
with scratch_dir({"prices.py": "tea = 1\\ncake = 1\\n"}):
    outcomes.append(attempt(edit_file, "prices.py", "= 1", "= 2"))
    contents.append(Path("prices.py").read_bytes().decode("latin-1"))
a, b = word(), word()
before = (f"def to_{a}(c):\\n    return (c * 5) / 9 + 32\\n\\n\\n"
          f"def to_{b}(f):\\n    return (f - 32) * 5 / 9\\n")
path = f"{a}/{b}.py"
with scratch_dir({path: before}):
    for old, new in [("* 5", "* 9"), (" / 9", " / 5"), ("    return", "  return"), (f"to_{b}(c)", "x")]:
        outcomes.append(attempt(edit_file, path, old, new))
        contents.append(Path(path).read_bytes().decode("latin-1"))
observe(outcomes=outcomes, contents=contents)
''', judge=_untouched),
    Scenario("l03_bash_exit_code_and_stdout", HELPERS + '''
from nano.testing import scratch_dir
from nano.tools import bash
a, b = word(), word()
folder = f"bash_{word(10)}"
with scratch_dir({f"{folder}/{a}.txt": "x", f"{folder}/{b}/inner.txt": "y"}):
    observe(ready=attempt(bash, "echo ready"))
    os.chdir(folder)
    observe(names=[a, b], folder=folder, ls=attempt(bash, "ls"), pwd=attempt(bash, "pwd"),
            pipe=attempt(bash, f"printf '%s\\\\n' {a} {b} | sort -r"))
''', judge=_exit_and_stdout),
    Scenario("l03_bash_nonzero_exit_is_a_result", HELPERS + '''
import shlex
from nano.testing import scratch_dir
from nano.tools import bash
tag = word()
code = rng.randrange(100) + 10
cases = [("exit 3", 3, None), (f"echo partial-{tag}; exit {code}", code, f"partial-{tag}"), ("false", 1, None),
         (f"{shlex.quote(sys.executable)} -c 'import sys; print(\\"{tag}\\"); sys.exit(7)'", 7, tag),
         (f"grep {tag} /dev/null", 1, None)]
with scratch_dir():
    observe(cases=cases, outcomes=[attempt(bash, command) for command, _, _ in cases])
''', judge=_nonzero),
    Scenario("l03_bash_stderr", HELPERS + '''
import shlex
from nano.testing import scratch_dir
from nano.tools import bash
out, err = f"out-{word()}", f"err-{word()}"
with scratch_dir():
    observe(out=out, err=err, oops=attempt(bash, "echo oops >&2"),
            both=attempt(bash, f"echo {out}; echo {err} >&2; exit 5"),
            traceback=attempt(bash, f"{shlex.quote(sys.executable)} -c 'import sys; sys.stderr.write(\\"{err}\\\\n\\"); 1 / 0'"))
''', judge=_stderr),
    Scenario("l03_bash_timeout_raises", HELPERS + '''
import shlex, time, unittest.mock
import nano.tools
from nano.testing import scratch_dir
outcomes, seconds = [], []
with scratch_dir(), unittest.mock.patch.object(nano.tools, "BASH_TIMEOUT", 1):
    for command in ["sleep 5", "echo started; sleep 4", f"{shlex.quote(sys.executable)} -c 'import time; time.sleep(4)'"]:
        start = time.monotonic()
        outcomes.append(attempt(nano.tools.bash, command))
        seconds.append(time.monotonic() - start)
    observe(outcomes=outcomes, seconds=seconds, quick=attempt(nano.tools.bash, "echo quick"))
''', judge=_times_out),
    Scenario("l03_bash_timeout_stops_children", HELPERS + '''
import time, unittest.mock
import nano.tools
from nano.testing import scratch_dir
with scratch_dir() as tmp, unittest.mock.patch.object(nano.tools, "BASH_TIMEOUT", 1):
    start = time.monotonic()
    observe(visible=attempt(nano.tools.bash, "(sleep 2; touch late.txt) & sleep 4"))
    time.sleep(max(0, start + 3.2 - time.monotonic()))
    observe(late=(tmp / "late.txt").exists())
name = word()
with scratch_dir() as tmp, unittest.mock.patch.object(nano.tools, "BASH_TIMEOUT", 1):
    observe(hidden=attempt(nano.tools.bash, f"sh -c 'echo $$ > {name}.pid; exec sleep 4' & sleep 4"))
    time.sleep(0.3)
    try:
        pid = int((tmp / f"{name}.pid").read_text())
    except (OSError, ValueError):
        pid = None
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        state = None
    observe(pid=pid, state=state)
''', judge=_stops_children),
]
