"""Whatever a hand-in holds is that hand-in's problem: a zip zipfile or the file system cannot
take, a zip inside a zip, a huge or odd loose file, nbgrader's own files refuse or leave out that
hand-in alone, in one sentence naming what, and never the class or the grader."""

import os
import zipfile
from pathlib import Path

import pytest

from autograder.grading import intake

PERFECT = Path(__file__).resolve().parents[2] / "fixtures" / "submissions" / "perfect"
ROSTER = "student_id,name,canvas_id\nalice,Alice Honest,222\neve,Eve Evil,111\n"


def zipped(archive: Path, extra: dict[str, bytes] = {}, workspace: bool = True) -> Path:
    """A zip of the perfect workspace (if `workspace`) and the members `extra` (a name ending in
    "/" is a folder entry)."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(PERFECT.rglob("*")) if workspace else ():
            if path.is_file():
                zf.write(path, path.relative_to(PERFECT).as_posix())
        for name, data in extra.items():
            zf.writestr(zipfile.ZipInfo(name) if name.endswith("/") else name, data)
    return archive


def staged(source: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "course" / "submitted" / "eve" / "nano"
    intake.stage(intake.HandIn("eve", source), dest)
    return dest


@pytest.mark.parametrize("extra, member", [
    ({"notes": b"x", "notes/a.txt": b"y"}, "notes/a.txt"),  # a file, then a folder of its name
    ({"notes/a.txt": b"y", "notes": b"x"}, "notes"),  # a folder, then a file of its name
    ({"nano/tools.py/": b""}, "nano/tools.py/"),  # a folder entry over a file
    ({"n" * 300 + ".txt": b"x"}, "n" * 300 + ".txt"),  # a name longer than the file system takes
])
def test_a_zip_the_file_system_cannot_hold_is_refused_naming_the_member(tmp_path, extra, member):
    archive = zipped(tmp_path / "eve.zip", extra)
    with pytest.raises(intake.IntakeError, match=f"^eve.zip refused: member '{member}' cannot be unpacked"):
        staged(archive, tmp_path)


def unreadable_name(archive: Path) -> Path:
    """`archive` with its member notes-XX.txt flagged UTF-8 and named in bytes that are not."""
    data = bytearray(zipped(archive, {"notes-XX.txt": b"x"}).read_bytes())
    for signature, flags, name in ((b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)):
        at = data.find(signature + bytes(0))
        while at >= 0:
            if data[at + name:at + name + 12] == b"notes-XX.txt":
                data[at + name + 6:at + name + 8] = b"\xff\xfe"
                data[at + flags] |= 0x00
                data[at + flags + 1] |= 0x08
            at = data.find(signature, at + 4)
    archive.write_bytes(bytes(data))
    return archive


def test_a_zip_zipfile_cannot_read_is_the_hand_ins_problem_not_the_graders(tmp_path):
    with pytest.raises(intake.IntakeError, match=r"^eve.zip is not a readable zip file \(UnicodeDecodeError"):
        staged(unreadable_name(tmp_path / "eve.zip"), tmp_path)
    data = bytearray(zipped(tmp_path / "eve.zip").read_bytes())
    end = data.rfind(b"PK\x05\x06")
    data[end + 16:end + 20] = (0xFF000000).to_bytes(4, "little")  # the central directory before the start
    (tmp_path / "eve.zip").write_bytes(bytes(data))
    with pytest.raises(intake.IntakeError, match="^eve.zip (refused: member|is not a readable zip)"):
        staged(tmp_path / "eve.zip", tmp_path)


def canvas_download(tmp_path: Path, eve: dict[str, bytes]) -> tuple[Path, Path]:
    """A Canvas download's zip: Alice's perfect nano.zip, and Eve's uploads `eve`; and its roster."""
    members = {"honestalice_222_1001_nano.zip": zipped(tmp_path / "alice.zip").read_bytes(), **eve}
    with zipfile.ZipFile(tmp_path / "download.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    (tmp_path / "roster.csv").write_text(ROSTER)
    return tmp_path / "download.zip", tmp_path / "roster.csv"


@pytest.mark.parametrize("eve, why", [
    ({"evileve_111_1002_nano.zip": b"x", "evileve_111_1003_log.txt": bytes(1_500_000)}, "a zip bomb"),
    ({"evileve_111_1002_" + "n" * 300 + ".py": b"x"}, "cannot be unpacked here"),
])
def test_one_students_member_a_download_cannot_give_refuses_that_student_not_the_class(tmp_path, eve, why):
    download, roster = canvas_download(tmp_path, eve)
    refused = []
    with intake.opened(download, refused) as folder:
        rows, _, unplaced = intake.class_in(folder, roster, shown=download, refused=refused)
        by = {row.student: row for row in rows}
        assert sorted(by) == ["alice", "eve"] and not by["alice"].problem and not unplaced
        assert why in by["eve"].problem and by["eve"].problem.endswith("not graded; hand it in again")
    with pytest.raises(intake.IntakeError, match="^download.zip refused"):
        with intake.opened(download):  # without a list to say it in, the download is refused
            pass


def moodle_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "Eve Evil_111_assignsubmission_file_"
    folder.mkdir()
    return folder


def test_a_zip_inside_a_zip_is_not_unpacked_but_noted(tmp_path):
    inner = zipped(tmp_path / "inner.zip", {"evil.py": b"x = 1\n"}, workspace=False)
    for _ in range(40):  # one nested in the other: each level was unpacked, without an overall bound
        inner = zipped(tmp_path / "inner.zip", {"inner.zip": inner.read_bytes()}, workspace=False)
    folder = moodle_folder(tmp_path)
    zipped(folder / "nano.zip", {"inner.zip": inner.read_bytes(), "tools.py": b"x = 2\n"}, workspace=False)
    notes = intake.assemble(((folder, ""),), tmp_path / "workspace")
    assert notes == ["ignored inner.zip: a zip inside a zip is not unpacked; hand in one zip"]
    assert not (tmp_path / "workspace" / "nano" / "evil.py").exists()
    assert (tmp_path / "workspace" / "nano" / "tools.py").is_file()
    zipped(folder / "nano.zip", {"inner.zip": inner.read_bytes()}, workspace=False)
    with pytest.raises(intake.IntakeError, match="^holds no lecture notebook .*; ignored inner.zip: a zip inside a zip"):
        intake.stage(intake.HandIn("eve", folder, parts=((folder, ""),)), tmp_path / "submitted" / "eve" / "nano")


def test_a_loose_file_is_measured_before_it_is_copied_and_an_odd_one_is_left_out(tmp_path):
    folder = moodle_folder(tmp_path)
    (folder / "01-shape-of-an-agent.ipynb").write_text("{}")
    os.mkfifo(folder / "pipe.py")
    assert intake.assemble(((folder, ""),), tmp_path / "one") == ["ignored pipe.py: not a regular file"]
    with open(folder / "tools.py", "wb") as sparse:
        sparse.truncate(4 << 30)  # 4 GB of nothing: would be written densely
    with pytest.raises(intake.IntakeError, match=r"^larger than the limit of 50 MB \(tools.py passing it\)"):
        intake.assemble(((folder, ""),), tmp_path / "two")
    assert not (tmp_path / "two" / "nano" / "tools.py").exists()
    os.truncate(folder / "tools.py", 30_000_000)
    (folder / "protocol.py").write_bytes(bytes(30_000_000))
    with pytest.raises(intake.IntakeError, match=r"^larger than the limit of 50 MB \("):
        intake.assemble(((folder, ""),), tmp_path / "three")  # the files together


def test_nbgraders_own_files_in_a_hand_in_are_left_out_and_the_hand_in_is_stamped(tmp_path):
    source = tmp_path / "eve"
    zipped(tmp_path / "eve.zip", {"timestamp.txt": b"not a time", "submission_secret.txt": b"mine"})
    with zipfile.ZipFile(tmp_path / "eve.zip") as zf:
        zf.extractall(source)
    for hand_in in (source, tmp_path / "eve.zip"):
        dest = staged(hand_in, tmp_path)
        assert (dest / "timestamp.txt").read_text() != "not a time"
        assert not (dest / "submission_secret.txt").exists()


def test_a_hand_in_graded_in_place_is_measured_as_a_copy_would_be(tmp_path):
    dest = tmp_path / "course" / "submitted" / "eve" / "nano"
    (dest / "nano").mkdir(parents=True)
    (dest / "01-shape-of-an-agent.ipynb").write_text("{}")
    os.mkfifo(dest / "nano" / "pipe")  # copying the hand-in for grading would block on it
    with pytest.raises(intake.IntakeError, match="^holds nano/pipe, neither a folder nor a regular file"):
        intake.stage(intake.HandIn("eve", dest.parent), dest)
    (dest / "nano" / "pipe").unlink()
    with open(dest / ".ipynb_checkpoints", "wb") as sparse:  # junk is copied too, so counted here
        sparse.truncate(4 << 30)
    with pytest.raises(intake.IntakeError, match=r"^larger than the limit of 50 MB"):
        intake.stage(intake.HandIn("eve", dest.parent), dest)
