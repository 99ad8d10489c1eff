"""What crosses between the grading processes (records.py) and what a run leaves in the course
(results.py's grades.csv and problems.csv) reads back as it was written, whatever the text."""

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from autograder import records
from autograder.grading import results
from autograder.records import Job, Outcome, Problem

LECTURES = ["01", "02", "03", "04", "05", "06"]
# Any text a student's code or a file name can put in a message: lone surrogates included for
# JSON (records travel as JSON); CSV files are UTF-8, so they hold text without them.
ANY = st.text(max_size=40)
UTF8 = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


def problems(text):
    return st.builds(Problem, st.one_of(st.none(), st.sampled_from(LECTURES)),
                     st.lists(st.from_regex(r"l0[1-6]_[a-z_]{1,12}", fullmatch=True), max_size=3).map(tuple),
                     st.sampled_from(records.KINDS), text, text, text)


@settings(max_examples=60, deadline=None)
@given(student=ANY, found=st.lists(problems(ANY), max_size=4), timeout=st.none() | st.integers(1, 600),
       unsafe=st.booleans())
def test_a_job_and_its_outcome_cross_as_json_unchanged(student, found, timeout, unsafe):
    job = Job(Path("/c"), Path("/c/.grading/x"), student, tuple(found), timeout, None, unsafe, Path("/v.json"))
    assert Job.from_json(job.to_json()) == job
    outcome = Outcome(tuple(found), failed=bool(found), log=student, seconds=1.5, private=None)
    assert Outcome.from_json(outcome.to_json()) == outcome


def test_a_failed_job_keeps_its_problems_and_says_why():
    job = Job(Path("/c"), Path("/p"), "ana", (records.problem("handed in twice", records.NOTED),))
    outcome = records.failed(job, "the grading process died")
    assert outcome.failed and [p.kind for p in outcome.problems] == [records.NOTED, records.FAILED]
    assert str(outcome.problems[-1]) == "the grading process died"
    assert str(records.problem("read_file is wrong", records.UNCONFIRMED, "02")) == "02: read_file is wrong"


grades = st.builds(
    results.Grade,
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12),
    st.fixed_dictionaries({k: st.integers(0, 50).map(lambda n: n / 20) for k in LECTURES}),
    st.lists(problems(UTF8), max_size=3).map(tuple),
    st.just(True))


@settings(max_examples=40, deadline=None)
@given(st.lists(grades, max_size=5, unique_by=lambda g: g.student))
def test_grades_csv_and_problems_csv_read_back_as_written(tmp_path_factory, written):
    course = tmp_path_factory.mktemp("course")
    results.write_csv(written, LECTURES, course / "grades.csv")
    results.write_problems(written, course / "problems.csv")
    assert results.read_grades(course) == written


def test_a_hand_in_with_no_grade_reads_back_as_not_graded(tmp_path):
    written = [results.Grade("ana", {}, (records.problem("not a notebook", records.REFUSED),), graded=False)]
    results.write_csv(written, LECTURES, tmp_path / "grades.csv")
    results.write_problems(written, tmp_path / "problems.csv")
    assert (tmp_path / "grades.csv").read_text().splitlines()[1] == "ana,,,,,,,"
    [back] = results.read_grades(tmp_path)
    assert not back.graded and back.problems == written[0].problems


def test_a_stop_while_writing_leaves_the_previous_file_whole(tmp_path):
    path = tmp_path / "grades.csv"
    results.save_csv(path, [["student_id", "total"], ["ana", "10"]])

    def rows():
        yield ["student_id", "total"]
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        results.save_csv(path, rows())
    assert path.read_bytes() == b"student_id,total\r\nana,10\r\n"
    assert [p.name for p in tmp_path.iterdir()] == ["grades.csv"], "nothing written aside is left"
