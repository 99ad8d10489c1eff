"""An LMS's download of an assignment's submissions, read as the students it holds.

Two downloads are understood, as they arrive (intake.py unpacks the zip):
- Canvas "Download Submissions": flat files `lastnamefirstname_[LATE_]<user id>_<number>_<file>`,
  the number growing with each upload; a re-uploaded file's name gets Canvas's `-1` suffix.
- Moodle "Download all submissions": a folder `Full Name_<participant id>_assignsubmission_file_/`
  per student holding their files (or, without "download submissions in folders", the files
  themselves named `Full Name_<participant id>_assignsubmission_file_<file>`); online-text
  entries (`..._assignsubmission_onlinetext_`) carry no code and are ignored.

`layout` tells which download a folder is from its entries' names; `claims` groups the entries
by student and maps each LMS id to our student id through the roster (roster.py). An entry
that cannot be placed, a user the roster lacks or a file outside the layout, is an `Unplaced`
(said in one line, and listed again at the end of the run and in the report) and never
becomes a student; one that carries a roster student's id names that student.
"""

import itertools
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from autograder.grading import roster as rosters

CANVAS, MOODLE = "Canvas", "Moodle"
# Canvas's name part is the student's sortable name as it is (hyphens, apostrophes, accents,
# spaces): the entry is known by the ids after it, the first `_<user id>_<number>_` in the name.
CANVAS_NAME = re.compile(r"^(?P<slug>.+?)_(?P<late>LATE_)?(?P<user>\d+)_(?P<number>\d+)_(?P<file>.+)$")
# Moodle's prefix is the first `_<participant id>_assignsubmission_<plugin>_` of the name: what
# follows is the student's own file name, which may hold the same words (`ambiguous`).
MOODLE_NAME = re.compile(r"^(?P<name>.+?)_(?P<user>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.*)$")
MOODLE_AGAIN = re.compile(r"_\d+_assignsubmission_[a-z]+_")
RESUBMITTED = re.compile(r"^(?P<stem>.+?)-(?P<again>\d+)(?P<ext>\.[^.]+)$")  # Canvas's nano-1.zip for nano.zip
ROSTER_COLUMN = {CANVAS: "canvas_id", MOODLE: "moodle_participant"}
PATTERN = {CANVAS: "lastnamefirstname_<user id>_<number>_<file>",
           MOODLE: "Full Name_<participant id>_assignsubmission_file_/"}


class LayoutError(ValueError):
    """A download that cannot be read as one LMS's, and why, in one sentence."""


@dataclass(frozen=True)
class Entry:
    """One entry of a download: a student's file, or (Moodle) their folder of files."""

    path: Path
    user: str  # the LMS's id: Canvas user id, Moodle participant id
    name: str  # the name the LMS gives: Canvas's slug "hoppergrace", Moodle's "Grace Hopper"
    file: str  # the file's own name as uploaded ("" for a Moodle folder)
    number: int = 0  # Canvas's upload number: a later upload has a larger one
    late: bool = False
    text: bool = False  # Moodle's online text: nothing to grade


@dataclass(frozen=True)
class Unplaced:
    """An entry of the download that became no student's hand-in, why, and the roster's student
    it names when it carries one's LMS id ("" when none)."""

    entry: str  # as the download names it: "notes.txt", "Canvas user 99999 (smithjohn), 2 files"
    why: str
    student: str = ""

    def __str__(self) -> str:
        return f"not placed: {self.entry}: {self.why}"


@dataclass(frozen=True)
class Claim:
    """The entries that make one student's hand-in, oldest first, and what the LMS says of it."""

    student: str
    who: str  # "Canvas user 23456 (hoppergrace)", for messages
    parts: tuple[tuple[Path, str], ...]  # (entry, its file's name as uploaded, resubmission suffix
    #                                       dropped: "tools.py"; "" for a Moodle folder)
    notes: tuple[str, ...] = ()
    problem: str = ""  # why it cannot be graded, if it cannot


def entry(path: Path) -> tuple[str, Entry] | None:
    """(layout, entry) for a name one of the downloads gives, else None; Moodle's first when it
    could be either's."""
    for kind in (MOODLE, CANVAS):
        if (found := read(path, kind)) is not None:
            return kind, found
    return None


def read(path: Path, kind: str) -> Entry | None:
    """The entry `path` is in a `kind` download, or None when its name is not one that download gives."""
    if kind == MOODLE and (m := MOODLE_NAME.match(path.name)):
        return Entry(path, m["user"], m["name"], m["file"], text=m["plugin"] != "file")
    if kind == CANVAS and not _is_dir(path) and (m := CANVAS_NAME.match(path.name)):
        return Entry(path, m["user"], m["slug"], m["file"], int(m["number"]), bool(m["late"]))
    return None


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a name the file system cannot hold: an entry the download could not give
        return False


def ambiguous(path: Path, kind: str) -> bool:
    """Whether `path`'s name can be read as more than one student's entry: a Moodle name whose
    file, as uploaded, holds Moodle's prefix again (another participant's id, perhaps)."""
    return kind == MOODLE and (found := read(path, kind)) is not None and bool(MOODLE_AGAIN.search(found.file))


def layout(paths: list[Path]) -> str | None:
    """CANVAS or MOODLE when entries of `paths` are named as that download names them, None when
    none are. Entries whose names only one download gives decide, the most of them; an entry of
    the other kind is then only not placed (`claims`). LayoutError when as many are each's (two
    downloads poured into one folder)."""
    votes = {CANVAS: 0, MOODLE: 0}
    either = False
    for path in paths:
        kinds = [kind for kind in votes if read(path, kind) is not None]
        if len(kinds) == 1:
            votes[kinds[0]] += 1
        either = either or len(kinds) > 1
    if votes[CANVAS] and votes[CANVAS] == votes[MOODLE]:
        raise LayoutError("it mixes a Canvas download (files named lastnamefirstname_<user id>_...) "
                          "and a Moodle one (folders named Full Name_<id>_assignsubmission_file_) in equal "
                          "parts: grade each download on its own")
    if votes[CANVAS] or votes[MOODLE]:
        return max(votes, key=votes.get)
    return MOODLE if either else None


def claims(paths: list[Path], kind: str, roster: rosters.Roster,
           refused: list[Unplaced] = ()) -> tuple[list[Claim], list[str], list[Unplaced]]:
    """The students of the `kind` download whose entries are `paths`, mapped through `roster`;
    one line for each entry ignored (Moodle's online text); and each entry that could not be
    placed, naming the roster's student whose LMS id it carries, if one. An entry `refused` (one
    the download's zip could not give) refuses its student's hand-in, or is not placed."""
    column = ROSTER_COLUMN[kind]
    lines: list[str] = []
    unplaced: list[Unplaced] = []
    users: dict[str, list[Entry]] = {}
    for path in paths:
        found = read(path, kind)
        if found is not None and ambiguous(path, kind):
            person = roster.find(column, found.user)
            unplaced.append(Unplaced(path.name, f"its name holds {kind}'s prefix more than once, so it could be "
                                     "more than one student's: not graded; rename the file and hand it in again",
                                     person.student_id if person else ""))
            continue
        if found is None:
            what = "folder" if path.is_dir() else "file"
            why = f"a {what} not named as a {kind} download names a student's ({PATTERN[kind]}); not graded"
            person = _carried(roster, column, path.name)
            if person is not None:
                why += (f"; it carries the {kind} id {getattr(person, column)} of {_named(person)}: if it is "
                        f"their hand-in, give it the download's name ({PATTERN[kind]}) or grade it on its own")
            unplaced.append(Unplaced(path.name + ("/" if path.is_dir() else ""), why,
                                     person.student_id if person else ""))
            continue
        users.setdefault(found.user, []).append(found)
    refusals: dict[str, list[str]] = {}  # LMS user -> why entries of theirs were refused
    for one in refused:
        if (found := read(Path(one.entry), kind)) is None:
            unplaced.append(Unplaced(one.entry, one.why, getattr(_carried(roster, column, one.entry), "student_id", "")))
            continue
        refusals.setdefault(found.user, []).append(f"{one.entry}: {one.why}")
        users.setdefault(found.user, []).append(found)
    result: list[Claim] = []
    for user, entries in sorted(users.items()):
        who = f"{kind} user {user} ({entries[0].name})"
        texts = [e for e in entries if e.text and e.user not in refusals]
        files = [e for e in entries if not e.text or e.user in refusals]
        for e in texts:
            lines.append(f"ignored: {e.path.name}: {kind}'s online text of {entries[0].name}; nano is graded "
                         "from the files handed in")
        if not files:
            continue
        person = roster.find(column, user) or _by_name(roster, kind, entries[0].name, column, user)
        if person is None:
            unplaced.append(Unplaced(f"{who}, {_count(files)}", f"not in the roster {roster.path} (no "
                                     f"{column} {user}, and no one name matches): add them there, then grade again"))
            continue
        if user in refusals:
            result.append(Claim(person.student_id, who, ((files[0].path, ""),), (),
                                "; ".join(refusals[user]) + ": not graded; hand it in again"))
            continue
        parts, notes, problem = _newest(files, kind)
        result.append(Claim(person.student_id, who, parts, notes, problem))
    return result, lines, unplaced


def _carried(roster: rosters.Roster, column: str, name: str) -> rosters.Person | None:
    """The one roster person whose `column` id is a number standing alone in `name`, if one."""
    found = {p.student_id: p for token in re.findall(r"(?<!\d)\d+(?!\d)", name)
             if (p := roster.find(column, token)) is not None}
    return next(iter(found.values())) if len(found) == 1 else None


def _named(person: rosters.Person) -> str:
    return f"{person.student_id} ({person.name})" if person.name else person.student_id


def _by_name(roster: rosters.Roster, kind: str, name: str, column: str, user: str) -> rosters.Person | None:
    """The one person of `roster` whose name is the LMS's `name`, unless the roster gives them
    another `column` id. Canvas gives only a slug, "hoppergrace" or "smith-jonesmary": the
    roster's name words, run together in some order, folded, letters and digits only."""
    if kind == MOODLE:
        found = [roster.find("name", name)] if roster.find("name", name) else []
    else:
        slug = _letters(name)
        found = [p for p in roster.people if p.name and slug in _slugs(p.name)]
    found = [p for p in found if getattr(p, column) in ("", user)]
    return found[0] if len(found) == 1 else None


def _letters(text: str) -> str:
    """`text`'s letters and digits only, without case or accents: "Smith-Jones" -> "smithjones"."""
    plain = unicodedata.normalize("NFKD", text)
    return "".join(c for c in plain if c.isalnum() and not unicodedata.combining(c)).casefold()


def _slugs(name: str) -> set[str]:
    words = [_letters(w) for w in rosters.name_key(name)]
    if len(words) > 5:
        return {"".join(words)}
    return {"".join(order) for order in itertools.permutations(words)}


def _newest(files: list[Entry], kind: str) -> tuple[tuple[tuple[Path, str], ...], tuple[str, ...], str]:
    """The entries that make the hand-in, oldest first: of several uploads of one file (Canvas's
    nano.zip and nano-1.zip, or two zips) the newest only; the notes on them; and why the hand-in
    cannot be graded, if it cannot. Newest is what the LMS says, never the files' own dates (a
    student sets those): the larger upload number, then Canvas's larger `-N` (a number:
    nano-10.zip after nano-9.zip). Two uploads the LMS does not order (two zips in one Canvas
    upload, or in a Moodle submission) are not guessed at."""
    notes = [f"{kind} marks it late"] if any(e.late for e in files) else []
    groups: dict[str, list[tuple[Entry, str, int]]] = {}
    for e in files:
        name, again = e.file, 0
        if kind == CANVAS and (m := RESUBMITTED.match(name)):
            name, again = m["stem"] + m["ext"], int(m["again"])
        key = "a zip" if name.lower().endswith(".zip") else name
        groups.setdefault(key, []).append((e, name, again))
    kept, problem = [], ""
    for key, group in groups.items():
        group.sort(key=lambda one: (one[0].number, one[2], one[0].file))
        kept.append(group[-1][:2])
        if len(group) > 1 and (group[-1][0].number, group[-1][2]) == (group[-2][0].number, group[-2][2]):
            problem = (f"handed in {key} {len(group)} times ({group[-2][0].file} and {group[-1][0].file}) and "
                       f"{kind} does not say which is newer: not graded; hand in one only")
        elif len(group) > 1:
            notes.append(f"handed in {key} {len(group)} times: graded the newest, {group[-1][0].file}")
    kept.sort(key=lambda pair: (pair[0].number, not pair[1].lower().endswith(".zip"), pair[1]))
    return tuple((e.path, name) for e, name in kept), tuple(notes), problem


def _count(files: list[Entry]) -> str:
    return f"{len(files)} file{'s' if len(files) != 1 else ''}" if files[0].file else files[0].path.name + "/"
