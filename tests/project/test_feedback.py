"""Feedback and the class report: do they teach, and do they keep the grader's secrets?

Each graded behaviour is said in words and names the section to reread; a message reaches a
student only as the grader wrote it, or, from student code, as its exception type and a bounded,
printable message that no reading (reversed, rot13, base64, full-width or look-alike letters...)
ties to the grader's secrets (the judges' code, the reference's solutions); the report's chart
fits a screen. The slow test reads the attackers' pages of the class the slow tests share
(one_class.py), where m-d-frame-source raises the calling cell's source, encoded: the kernel
has no hidden test left to read.
"""

import base64
import codecs
import html
import inspect
import re
import string
import struct
from pathlib import Path

import pytest
from nbformat import NotebookNode

from autograder.authoring import notebooks, release
from autograder.check import behaviour
from autograder.grading import leaks, outcomes, report

ROOT = release.ROOT
LECTURES = sorted((ROOT / "lectures").glob("[0-9][0-9]-*.ipynb"))


def error_cell(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(cell_type="code", metadata={}, outputs=[NotebookNode(
        output_type="error", ename=ename, evalue=evalue, traceback=["the hidden code"])])


def graded_cells(path: Path):
    return [c for c in notebooks.load(path).cells if c.metadata.get("nbgrader", {}).get("grade")]


@pytest.fixture(scope="module")
def lectures_secret(course) -> frozenset[str]:
    """The grader's secrets of the real course against everything its release shows."""
    return leaks.course_secret(course)


def hidden_of(grade_id: str) -> str:
    """The code of the judges and drives of a graded cell (what decides its hidden tests)."""
    found = [leaks.code_without_strings(inspect.getsource(f)) for b in behaviour.by_grade_id(grade_id)
             for f in (b.drive, b.judge)]
    if not found:
        raise KeyError(grade_id)
    return "\n".join(found)


# ---------------------------------------------------------------------------------------------
# Behaviours in words, sections to reread

def test_every_graded_cell_says_its_behaviour_in_words_under_a_numbered_section():
    for path in LECTURES:
        nb = notebooks.load(path)
        about = outcomes.described(nb)
        assert set(about) == set(notebooks.points(nb)), path.name
        for cell in graded_cells(path):
            grade_id = cell.metadata["nbgrader"]["grade_id"]
            words = cell.metadata.get("nano", {}).get("behaviour", "")
            assert 10 <= len(words) <= 90 and words == about[grade_id].words, (grade_id, words)
            assert re.fullmatch(r"section \d+, \S.*", about[grade_id].section), (grade_id, about[grade_id])
        assert len({d.words for d in about.values()}) == len(about), f"{path.name}: two behaviours share words"
    turn_limit = outcomes.described(notebooks.load(ROOT / "lectures" / "05-the-agent-loop.ipynb"))["l05_turn_limit"]
    assert turn_limit.section == "section 4, Sending the results back, and knowing when to stop"
    assert "max_turns" in turn_limit.words


def test_an_unanswered_question_says_so_even_from_an_old_notebook():
    for name, number in [("answer_q3", "3"), ("answer_q3_entry", "3"), ("answer_q12", "12")]:
        said = outcomes.failure_message(error_cell("NameError", f"name '{name}' is not defined"))
        assert said.startswith(f"question {number} was not answered"), said
        assert "NameError" not in said
    other = outcomes.failure_message(error_cell("NameError", "name 'agent_loop' is not defined"))
    assert other == "your code raised NameError: name 'agent_loop' is not defined"


# ---------------------------------------------------------------------------------------------
# Only what the grader wrote; the student's own messages sanitised

CELL = (Path(__file__).parent / "payloads" / "hidden_test_cell.py").read_text()  # a graded cell's source


def test_a_message_the_grader_wrote_is_shown_as_written():
    grader = leaks.Grader(leaks.written_messages(CELL))
    assert {name for name, _ in grader.messages} == {"AssertionError"}
    for said in ["read_file must return a str, not NoneType (section 4)",
                 "read_file must return the text exactly; got 'b' (section 4)",
                 "read_file must clip long files (section 3)"]:
        assert outcomes.failure_message(error_cell("AssertionError", said), grader) == said
    assert outcomes.failure_message(error_cell("AssertionError", ""), grader) == (
        "a check failed (an assert without a message)")
    # the same words raised by student code (another type, or not the grader's sentence) are the student's
    assert outcomes.failure_message(error_cell("ValueError", "read_file must clip long files (section 3)"),
                                    grader).startswith("your code raised ValueError: ")
    assert outcomes.failure_message(error_cell("AssertionError", "my own check"), grader) == (
        "your code raised AssertionError: my own check")


def test_every_assert_message_of_the_lectures_is_recognised_as_the_graders():
    import ast

    for path in LECTURES:
        for cell in graded_cells(path):
            grader = leaks.Grader(leaks.written_messages(cell.source))
            code = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith("%"))
            literals = [node.msg.value for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Assert)
                        and isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str)]
            for message in literals:
                said = outcomes.failure_message(error_cell("AssertionError", message), grader)
                assert said == message, (cell.metadata["nbgrader"]["grade_id"], said)


def test_a_value_put_into_a_grader_message_is_sanitised_too():
    hidden = CELL.split("### BEGIN HIDDEN TESTS")[1]
    grader = leaks.Grader(leaks.written_messages(CELL),
                             leaks.secret_grams(hidden, CELL.split("### BEGIN HIDDEN TESTS")[0]))
    stolen = codecs.encode(hidden.strip(), "rot13")[:100]
    said = outcomes.failure_message(error_cell(
        "AssertionError", f"read_file must return the text exactly; got {stolen!r} (section 4)"), grader)
    assert said == f"read_file must return the text exactly; got {leaks.WITHHELD} (section 4)"
    long = outcomes.failure_message(error_cell(
        "AssertionError", f"read_file must return the text exactly; got {'ab ' * 400!r} (section 4)"), grader)
    assert len(long) < 200 and long.endswith("… (section 4)")


def test_a_student_message_is_one_bounded_printable_line_with_its_type():
    said = outcomes.failure_message(error_cell("KeyError", "'path'"))
    assert said == "your code raised KeyError: 'path'"
    noisy = outcomes.failure_message(error_cell("ValueError", "\x1b[31mred\x1b[0m\nsecond\tline\x00 " + "word " * 200))
    assert noisy.startswith("your code raised ValueError: red second line word word")
    assert len(noisy) <= len("your code raised ValueError: ") + leaks.LIMIT and noisy.endswith("…")
    assert all(ch.isprintable() for ch in noisy)
    odd = outcomes.failure_message(error_cell("Not a name <b>", "x"))
    assert odd == "your code raised an exception: x"
    stub = release.stub_message("02", "read_file", "tools.py")
    assert outcomes.failure_message(error_cell("NotImplementedError", stub)) == f"your code raised NotImplementedError: {stub}"


ENCODINGS = {
    "plain": lambda s: s,
    "reversed": lambda s: s[::-1],
    "rot13": lambda s: codecs.encode(s, "rot13"),
    "rot13 reversed": lambda s: codecs.encode(s[::-1], "rot13"),
    "caesar 5": lambda s: s.translate(str.maketrans(string.ascii_letters, "".join(
        a[5:] + a[:5] for a in (string.ascii_lowercase, string.ascii_uppercase)))),
    "base64": lambda s: base64.b64encode(s.encode()).decode(),
    "base64 reversed": lambda s: base64.b64encode(s.encode()).decode()[::-1],
    "base64 of reversed": lambda s: base64.b64encode(s[::-1].encode()).decode(),
    "base64 spaced": lambda s: " ".join(re.findall(".{1,6}", base64.b64encode(s.encode()).decode())),
    "urlsafe base64": lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    "base32": lambda s: base64.b32encode(s.encode()).decode(),
    "hex": lambda s: s.encode().hex(),
    "hex spaced": lambda s: s.encode().hex(" "),
    "full-width": lambda s: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s),
    "look-alike letters": lambda s: s.translate(str.maketrans("aeopcxyiAEOPCXHKMT", "аеорсхуіАЕОРСХНКМТ")),
    "mathematical bold": lambda s: "".join(chr(0x1D41A + ord(c) - 97) if "a" <= c <= "z" else c for c in s),
    "accents": lambda s: "".join(c + "\u0301" if c.isalpha() else c for c in s),
}


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("grade_id", ["l02_read_file_returns_text", "l05_turn_limit", "l06_exit_stops"])
def test_hidden_test_text_is_withheld_in_every_encoding(lectures_secret, grade_id, encoding):
    hidden = hidden_of(grade_id).strip()
    grader = leaks.Grader(secret=lectures_secret)
    for start in range(0, len(hidden) - 40, 97):  # pieces of it
        for size in (30, 60):  # a page shows 240 characters: longer pieces are cut before they are judged
            piece = hidden[start:start + size]
            if not leaks._grams(leaks._normal(piece)) & lectures_secret:
                continue  # nothing in it that the release does not show too
            sent = ENCODINGS[encoding](piece)
            said = outcomes.failure_message(error_cell("ValueError", sent), grader)
            rest = said.removeprefix("your code raised ValueError: ")
            rest = rest.replace(leaks.WITHHELD, "").replace(leaks.LONG_RUN, "")
            assert len(rest) < 12, (piece, said)


def test_honest_messages_are_not_withheld(lectures_secret):
    for module, functions in release.STUDENT_FUNCTIONS.items():
        for function, lecture in functions.items():
            assert not leaks.leaks(release.stub_message(lecture, function, module), lectures_secret)
    for honest in ["[Errno 2] No such file or directory: 'missing/notes.txt'",
                   "agent_loop() takes 3 positional arguments but 4 were given",
                   "'NoneType' object has no attribute 'content'", "unknown tool: 'delete_everything'",
                   "old_string not found in greet.py", "Command timed out after 1 seconds"]:
        assert not leaks.leaks(honest, lectures_secret), honest


# ---------------------------------------------------------------------------------------------
# The report

def png_size(uri: str) -> tuple[int, int]:
    data = base64.b64decode(uri.split(",", 1)[1])
    return struct.unpack(">II", data[16:24])


def test_each_lectures_failure_chart_fits_a_screen_at_its_own_size():
    cells, words, lectures, points = [], {}, {}, {}
    for path in LECTURES:
        nb = notebooks.load(path)
        number = path.stem[:2]
        lectures[path.stem] = number
        points[number] = sum(notebooks.points(nb).values())
        cells += [(number, g, p) for g, p in notebooks.points(nb).items()]
        words |= {g: d.words for g, d in outcomes.described(nb).items()}
    students = [f"s{i}" for i in range(20)]
    failed = {g: students[:i % 20] for i, (_, g, _) in enumerate(cells)}
    untried = {g: who[: len(who) // 2] for g, who in failed.items()}  # half of them did not try
    results = report.ClassResults(students, lectures, {}, points,
                                  {s: dict.fromkeys(points, 1.0) for s in students}, cells, failed, words, [], untried)
    assert len(cells) > 60
    assert all(results.wrong(g) == who[len(who) // 2:] for g, who in failed.items())
    for number in points:
        width, height = png_size(report.failure_plot(results, number))
        # The page is at most 64rem (1024 px) wide: a chart no wider is not shrunk, nor its labels.
        assert width <= 1024 and height <= 1000, (number, width, height)
    width, height = png_size(report.distribution_plot(results))
    assert width <= 1024 and height <= 1000, ("histograms", width, height)


@pytest.mark.slow
def test_attackers_pages_leak_nothing_and_every_failure_names_a_section(graded_class, capsys):
    """m-d-frame-source raised the calling test cell's source, encoded, from read_file: its own
    notebook shows what it found, and no judge is in it (the kernel never has one); its
    feedback shows none of the judges' code either. The sample class's partial hand-in names a
    section to reread on every failure; the report says behaviours in words."""
    graded = graded_class.course
    judges = Path(behaviour.__file__).with_name("behaviours")
    hidden = [line.strip() for path in sorted(judges.glob("l*.py"))
              for line in path.read_text(encoding="utf-8").splitlines()
              if len(line.strip()) >= 30 and not line.strip().startswith(("#", '"', "'", "f'", 'f"', "yield", "return"))]
    [lecture_02] = (graded / "autograded" / "m-d-frame-source" / release.ASSIGNMENT).glob("02-*.ipynb")
    raised = " ".join(o.get("evalue", "") for c in notebooks.load(lecture_02).cells for o in c.get("outputs", [])
                      if o.get("output_type") == "error")
    decoded = [raised, raised[::-1], codecs.encode(raised, "rot13")] + [
        base64.b64decode(t + "=" * (-len(t) % 4)).decode("utf-8", "replace")
        for t in re.findall(r"[A-Za-z0-9+/]{40,}={0,2}", raised)]
    assert raised, "the attack raised nothing"
    assert not any(line in text for line in hidden for text in decoded), "the kernel had a judge to read"

    def readings(text: str) -> list[str]:
        tokens = re.findall(r"[A-Za-z0-9+/]{16,}={0,2}", text)
        return [text, text[::-1], codecs.encode(text, "rot13")] + [
            base64.b64decode(t[s:][:len(t[s:]) // 4 * 4]).decode("latin-1") for t in tokens for s in range(4)]

    pages = sorted((graded / "feedback" / "m-d-frame-source").glob("*.html"))
    assert pages
    for page in pages:
        text = html.unescape(page.read_text(encoding="utf-8"))
        shown = [line for line in hidden for reading in readings(text) if line[:20] in reading]
        assert not shown, f"{page.name} shows hidden test code: {shown[:2]}"
    page = (graded / "feedback" / "m-d-frame-source" / lecture_02.name.replace(".ipynb", ".html")).read_text()
    assert "read_file returns the file&#x27;s text exactly, as a str" in page
    assert "Reread section 4, read_file(path)." in page

    for page in (graded / "feedback" / "partial").glob("0*.html"):
        rows = re.findall(r'<tr><td>(.*?)</td>.*?<td class="(pass|partial|fail)">.*?<td class="msg">(.*?)</td></tr>',
                          page.read_text(encoding="utf-8"), re.S)
        assert rows, page.name
        for words, status, why in rows:
            assert (status == "pass") == (why == ""), (page.name, words, why)
            assert status == "pass" or "Reread section " in why, (page.name, words, why)

    from autograder import cli

    assert cli.main(["report", "--course", str(graded)]) == 0
    capsys.readouterr()
    text = (graded / "report.html").read_text(encoding="utf-8")
    assert "agent_loop stops after max_turns model calls and returns &#x27;max_turns&#x27;" in text
    assert re.search(r'<details><summary>\d+<span class=sr-only> students: who</span></summary>.*?'
                     r'href="feedback/partial/05-the-agent-loop.html">partial</a>', text)
    for uri in re.findall(r'src="(data:image/png;base64,[^"]+)"', text):
        width, height = png_size(uri)
        assert width <= 1500 and height <= 1000, (width, height)


# ---------------------------------------------------------------------------------------------
# What a page says of a file that does not parse, and of work not attempted; the report's split

SAMPLES = ROOT / "fixtures" / "submissions"
ROW = re.compile(r'<tr><td>.*?<code class="id">(\w+)</code></td><td class="num">.*?</td>'
                 r'<td class="(\w+)"><span aria-hidden="true">. </span>(.*?)</td><td class="msg">(.*?)</td></tr>', re.S)


@pytest.mark.slow
def test_a_file_that_does_not_parse_is_named_with_its_line_on_each_page_that_graded_it(graded_class):
    """broken-py's nano/repl.py does not parse, so main was graded as its stub: lecture 06's page,
    which grades main, says so with the line and Python's message, at the top and for every
    behaviour, and never that main "is not implemented yet"; no other lecture's page speaks of it."""
    with pytest.raises(SyntaxError) as raised:
        compile((SAMPLES / "broken-py" / "nano" / "repl.py").read_bytes(), "repl.py", "exec")
    said = f"nano/repl.py does not parse (line {raised.value.lineno}: {raised.value.msg}), so main was graded as not written"
    folder = graded_class.course / "feedback" / "broken-py"
    [page] = folder.glob("06-*.html")
    text = html.unescape(page.read_text(encoding="utf-8"))
    graded = notebooks.points(notebooks.load(graded_class.course / "release" / release.ASSIGNMENT / f"{page.stem}.ipynb"))
    rows = ROW.findall(text)
    assert [grade_id for grade_id, *_ in rows] == list(graded)
    for grade_id, status, label, why in rows:
        assert (status, label) == ("fail", "failed") and why.startswith(said), (grade_id, label, why)
    assert f'<div class="problems"><ul><li>{said}</li>' in text
    assert "not implemented" not in text and "NotImplementedError" not in text
    for other in sorted(set(folder.glob("0*.html")) - {page}):
        assert "repl.py" not in other.read_text(encoding="utf-8"), other.name
    assert said in graded_class.grades["broken-py"].problem


@pytest.mark.slow
def test_work_not_attempted_is_told_from_work_that_is_wrong(graded_class):
    """untouched has written nothing: each failure is "not written" or "not answered", and its
    first page counts them as not attempted. A hand-in that could not be graded says so on its
    first page rather than "0 of 0"."""
    folder = graded_class.course / "feedback" / "untouched"
    for page in sorted(folder.glob("0*.html")):
        rows = ROW.findall(html.unescape(page.read_text(encoding="utf-8")))
        assert rows and {label for _, _, label, _ in rows} <= {"not written", "not answered"}, page.name
        assert all("not implemented yet" in why or why.startswith("question ") for *_, why in rows), page.name
    index = folder.joinpath("index.html").read_text(encoding="utf-8")
    counts = re.findall(r'<td class="num">0 of (\d+) \((\d+) not attempted yet\)</td>', index)
    assert len(counts) == 6 and all(total == untried for total, untried in counts), counts
    mutant = next(s for s, g in graded_class.grades.items() if s.startswith("mutant-") and g.total < 10)
    labels = {label for page in (graded_class.course / "feedback" / mutant).glob("0*.html")
              for _, status, label, _ in ROW.findall(page.read_text(encoding="utf-8")) if status == "fail"}
    assert labels == {"failed"}, (mutant, labels)

    refused = graded_class.course / "feedback" / "twin" / "index.html"
    text = refused.read_text(encoding="utf-8")
    assert "0 of 0" not in text and text.count('<td class="num">not graded</td>') == 6


@pytest.mark.slow
def test_the_report_shows_wrong_and_not_attempted_apart(graded_class, capsys):
    """Per behaviour, the report lists who got it wrong and who did not attempt it: the hand-in
    whose repl.py does not parse got main wrong; untouched did not attempt it."""
    from autograder import cli

    assert cli.main(["report", "--course", str(graded_class.course)]) == 0
    capsys.readouterr()
    text = (graded_class.course / "report.html").read_text(encoding="utf-8")
    assert "<th class=num>wrong</th>\n<th class=num>not attempted</th>" in text
    row = re.search(r"<tr><td>06</td><td>[^<]*<br><code>l06_exit_stops</code></td><td class=num>[\d.]+</td>"
                    r"<td class=num>(.*?)</td><td class=num>(.*?)</td><td class=num>(\d+)%</td></tr>", text, re.S)
    assert row, "no row for l06_exit_stops"
    wrong, untried = row.group(1), row.group(2)
    assert ">broken-py</a>" in wrong and ">broken-py</a>" not in untried
    assert ">untouched</a>" in untried and ">untouched</a>" not in wrong
    assert ">partial</a>" in untried, "partial has not written lecture 06"


@pytest.mark.slow
def test_every_page_of_the_sample_class_and_the_report_meet_wcag_aa(graded_class, capsys):
    """axe-core, in Chromium, finds no serious or critical WCAG 2.1 A/AA violation and nothing of
    `axe.STRUCTURE` on any feedback page of the sample class (each student's first page and every
    lecture page: passed, failed, not attempted, pending, not graded), on an attacker's pages
    (messages from hostile code) and on the report (its charts with alt text; tables).
    (Not marked browser: it reads the shared class, and a test of both groups would grade the
    class a second time in a worker of its own.)"""
    from autograder import cli
    from tests.browser import axe

    assert cli.main(["report", "--course", str(graded_class.course)]) == 0
    capsys.readouterr()
    samples = {p.name.removesuffix(".zip") for p in SAMPLES.iterdir()} | {"m-d-frame-source"}
    pages = [p for folder in sorted((graded_class.course / "feedback").iterdir()) if folder.name in samples
             for p in sorted(folder.glob("*.html"))]
    assert len(pages) > 60, len(pages)
    pages.append(graded_class.course / "report.html")
    with axe.chromium() as page:
        for path in pages:
            page.goto(path.as_uri())
            found = axe.audit(page)
            assert not found, f"{path.relative_to(graded_class.course)}:\n{axe.explain(found)}"
    report_page = (graded_class.course / "report.html").read_text(encoding="utf-8")
    assert report_page.count("<img alt=\"") == 1 + 6 and "<caption>" in report_page
