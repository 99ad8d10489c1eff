"""A graded test cell's source, visible and hidden tests, whose messages the feedback page may
show as the grader wrote them (test_feedback.py reads it; `read_file` is the student's)."""

got = read_file("notes.txt")  # noqa: F821
assert isinstance(got, str), f"read_file must return a str, not {type(got).__name__} (section 4)"
### BEGIN HIDDEN TESTS
assert got == "the secret expected text of notes", f"read_file must return the text exactly; got {got!r} (section 4)"
if len(got) > 10:
    raise AssertionError("read_file must clip " + "long files (section 3)")
assert got
### END HIDDEN TESTS
