"""The class list an instructor hands in with a download: any file gives a roster or one
sentence saying why not, and names match as an LMS writes them."""

from hypothesis import given, settings, strategies as st

from autograder.grading import roster


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=300),
                 st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
                 st.lists(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=8),
                                   max_size=4), max_size=5)
                 .map(lambda rows: "\n".join(";".join(r) for r in [["student_id", "canvas_id"], *rows]).encode())))
def test_any_file_is_a_roster_or_one_sentence_naming_it(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("r") / "roster.csv"
    path.write_bytes(data)
    try:
        found = roster.read(path)
    except roster.RosterError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc)
    else:
        assert all(p.student_id for p in found.people)


def test_a_semicolon_roster_with_a_bom_and_names_as_lms_write_them(tmp_path):
    path = tmp_path / "class.csv"
    path.write_bytes("\ufeffStudent ID;Name;Canvas ID\ngrace;Hopper, Grace;23456\njose;José Müller;31415\n"
                     .encode("utf-8"))
    found = roster.read(path)
    assert [p.student_id for p in found.people] == ["grace", "jose"]
    assert found.find("name", "grace  hopper").student_id == "grace"
    assert found.find("name", "Jose Muller").student_id == "jose"
    assert found.find("canvas_id", " 31415 ").student_id == "jose"
    assert found.find("canvas_id", "99999") is None


def test_a_spreadsheet_a_folder_and_a_missing_file_are_refused_in_one_sentence(tmp_path):
    (tmp_path / "class.xlsx").write_bytes(b"PK\x03\x04rest")
    for path, said in [(tmp_path / "class.xlsx", "is not a CSV file (it is a spreadsheet or a zip"),
                       (tmp_path, "is a folder, not a CSV file"),
                       (tmp_path / "nope.csv", "does not exist")]:
        try:
            roster.read(path)
        except roster.RosterError as exc:
            assert said in str(exc)
        else:
            raise AssertionError(f"{path} was read as a roster")
