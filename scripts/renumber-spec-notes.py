#!/usr/bin/env python3
"""Renumber docs/spec-notes.md in reading order, drop superseded notes, rewrite every citation.

The notes are headed `### N. Title`. A note is dropped when its body holds a line
`Superseded by "Title of the note that replaces it".`, when its heading says
`(superseded by N)`, or when its title is in DROP below. The notes left are numbered 1, 2, ...
in the order they appear, and every citation of a note number in the files git tracks is
rewritten to the new number:

    spec-notes 449         spec-note 42          Spec-notes 263
    docs/spec-notes.md 81  docs/spec-notes.md, 241
    note 20                notes 100 to 103      spec-notes 448, 449      110-115 (lists, ranges)

also where a line break (and a comment leader: //, #, --, *) falls between the word and the
number. Citations by title (`docs/spec-notes.md, "Title"`, `note "Title"`) need no rewriting;
they are checked against the headings.

Nothing is written unless every citation resolves. The run fails, naming file and line, on a
citation of a number that no note has, of a note that is dropped, of a number two notes share
(after merging branches that each appended "the next free number"), of a range whose notes are
no longer consecutive, and on a citation by title that names no note.

    scripts/renumber-spec-notes.py --check     # only verify (the ctest spec_notes_citations)
    scripts/renumber-spec-notes.py --dry-run   # print the old -> new map and what would change
    scripts/renumber-spec-notes.py             # renumber and rewrite, in place

Options: --root DIR (default: the repository this script is in). Python 3, stdlib only.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

NOTES = "docs/spec-notes.md"
# This script and its test hold example citations, not real ones.
SELF = {"scripts/renumber-spec-notes.py", "scripts/test_renumber_spec_notes.py"}

# Titles of notes to drop that carry no marker of their own (normally empty: prefer the
# `Superseded by "..."` line in the note, which says what replaced it).
DROP: set[str] = set()

HEADING = re.compile(r"^### (\d+)\. (.*)$", re.M)
SUPERSEDED_LINE = re.compile(r'^Superseded by "([^"]+)"\.?[ \t]*$', re.M)
SUPERSEDED_HEADING = re.compile(r"\(superseded by (\d+)\)", re.I)

# Between the citing word and the number: an optional comma, spaces, at most one line break
# followed by a comment leader.
_GAP = r",?(?:[ \t]*\n[ \t]*(?://+|#+|--|\*)?)?[ \t]*"
_SEP = r",[ \t]*|[ \t]+(?:and|to|or)[ \t]+|[ \t]*[-\u2013][ \t]*"
_NUMS = r"\d+(?:(?:" + _SEP + r")\d+)*(?![\d.]\d)"
CITATION = re.compile(
    r"(?P<word>[Ss]pec-notes?(?:\.md)?|(?<![-\w])[Nn]otes?)(?P<gap>" + _GAP + r")(?P<nums>" + _NUMS + r")"
)
TITLE_CITATION = re.compile(
    r"(?:[Ss]pec-notes?(?:\.md)?,|(?<![-\w])[Nn]otes?)(?:[ \t]*\n[ \t]*(?://+|#+|--|\*)?)?[ \t]+"
    r'"(?P<title>[^"]{3,300})"'
)
COMMENT_BREAK = re.compile(r"[ \t]*\n[ \t]*(?://+|#+|--|\*)?[ \t]*")


@dataclass
class Note:
    old: int
    title: str
    start: int  # offset of the heading in the notes file
    end: int  # offset where the next heading (of any level) or the end begins
    dropped_because: str = ""
    new: int = 0


@dataclass
class Problem:
    path: str
    line: int
    text: str
    why: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.why}: {self.text!r}"


@dataclass
class Plan:
    notes: list[Note]
    by_old: dict[int, list[Note]] = field(default_factory=dict)
    titles: set[str] = field(default_factory=set)


def normalize_title(text: str) -> str:
    return " ".join(COMMENT_BREAK.sub(" ", text).split())


def parse_notes(text: str) -> Plan:
    headings = list(HEADING.finditer(text))
    section_starts = [m.start() for m in re.finditer(r"^#{1,3} ", text, re.M)] + [len(text)]
    notes: list[Note] = []
    for m in headings:
        end = min(s for s in section_starts if s > m.start())
        notes.append(Note(int(m.group(1)), m.group(2).strip(), m.start(), end))
    plan = Plan(notes)
    for n in notes:
        plan.by_old.setdefault(n.old, []).append(n)
        plan.titles.add(normalize_title(n.title))
    for n in notes:
        body = text[n.start : n.end]
        marker = SUPERSEDED_LINE.search(body)
        heading = SUPERSEDED_HEADING.search(n.title)
        if marker:
            n.dropped_because = f'superseded by "{marker.group(1)}"'
        elif heading:
            n.dropped_because = f"superseded by {heading.group(1)}"
        elif n.title in DROP:
            n.dropped_because = "listed in DROP"
    number = 0
    for n in notes:
        if not n.dropped_because:
            number += 1
            n.new = number
    return plan


def check_successors(plan: Plan, text: str) -> list[Problem]:
    problems = []
    kept_titles = {normalize_title(n.title) for n in plan.notes if not n.dropped_because}
    for n in plan.notes:
        m = SUPERSEDED_LINE.search(text[n.start : n.end])
        if m and normalize_title(m.group(1)) not in kept_titles:
            line = text.count("\n", 0, n.start + m.start()) + 1
            problems.append(Problem(NOTES, line, m.group(0), "its successor is no note that stays"))
    return problems


def tracked_files(root: Path) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True)
    return [root / p for p in out.stdout.decode().split("\0") if p]


def read_text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def split_numbers(nums: str) -> list[tuple[str, str]]:
    """'100 to 103' -> [('', '100'), (' to ', '103')]: each number with the separator before it."""
    parts = re.split("(" + _SEP + ")", nums)
    out = [("", parts[0])]
    for i in range(1, len(parts), 2):
        out.append((parts[i], parts[i + 1]))
    return out


def resolve(plan: Plan, old: int) -> tuple[int | None, str]:
    notes = plan.by_old.get(old)
    if not notes:
        return None, f"no note {old}"
    if len(notes) > 1:
        return None, f"note number {old} is shared by {len(notes)} notes: " + "; ".join(
            f'"{n.title}"' for n in notes
        )
    if notes[0].dropped_because:
        return None, f'note {old} ("{notes[0].title}") is dropped ({notes[0].dropped_because})'
    return notes[0].new, ""


def citation_edits(
    plan: Plan, rel: str, text: str, problems: list[Problem], excluded: list[tuple[int, int]]
) -> list[tuple[int, int, str]]:
    """The (start, end, replacement) of every citation by number outside `excluded`; problems
    for those that do not resolve, and for citations by title that name no note that stays."""

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    def outside(pos: int) -> bool:
        return not any(a <= pos < b for a, b in excluded)

    kept_titles = {normalize_title(n.title) for n in plan.notes if not n.dropped_because}
    edits = []
    for m in CITATION.finditer(text):
        if not outside(m.start()):
            continue
        out = []
        previous_old = previous_new = None
        ok = True
        for sep, num in split_numbers(m.group("nums")):
            new, why = resolve(plan, int(num))
            if new is None:
                problems.append(Problem(rel, line_of(m.start()), m.group(0), why))
                ok = False
                break
            if sep.strip() in ("to", "-", "\u2013") and previous_old is not None and previous_new is not None:
                inner = [n for n in plan.notes if previous_old < n.old < int(num)]
                if any(n.dropped_because for n in inner) or new - previous_new != len(inner) + 1:
                    problems.append(Problem(rel, line_of(m.start()), m.group(0),
                                            "a range whose notes are no longer consecutive"))
                    ok = False
                    break
            out.append(sep + str(new))
            previous_old, previous_new = int(num), new
        if ok:
            edits.append((m.start("nums"), m.end("nums"), "".join(out)))
    for m in TITLE_CITATION.finditer(text):
        if outside(m.start()) and normalize_title(m.group("title")) not in kept_titles:
            problems.append(Problem(rel, line_of(m.start()), m.group(0),
                                    "a title that no note (that stays) has"))
    return edits


def apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    out = []
    pos = 0
    for start, end, replacement in sorted(edits):
        out.append(text[pos:start])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def rewrite_notes_file(plan: Plan, text: str, problems: list[Problem]) -> str:
    """Citations rewritten, headings renumbered, dropped notes removed."""
    headings = [(m.start(), m.end()) for m in HEADING.finditer(text)]
    dropped = [(n.start, n.end) for n in plan.notes if n.dropped_because]
    edits = citation_edits(plan, NOTES, text, problems, headings + dropped)
    for n in plan.notes:
        if n.dropped_because:
            edits.append((n.start, n.end, ""))
        else:
            line_end = text.find("\n", n.start)
            edits.append((n.start, len(text) if line_end < 0 else line_end, f"### {n.new}. {n.title}"))
    return re.sub(r"\n{3,}", "\n\n", apply_edits(text, edits))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="verify the citations, write nothing")
    mode.add_argument("--dry-run", action="store_true", help="print the map and the changes, write nothing")
    args = ap.parse_args()
    root: Path = args.root.resolve()

    notes_path = root / NOTES
    notes_text = notes_path.read_text(encoding="utf-8")
    plan = parse_notes(notes_text)
    if not plan.notes:
        print(f"{NOTES}: no '### N. Title' headings", file=sys.stderr)
        return 1
    problems = check_successors(plan, notes_text)

    changes: dict[Path, str] = {}
    for path in tracked_files(root):
        rel = path.relative_to(root).as_posix()
        text = read_text(path)
        if text is None or rel in SELF:
            continue  # binary, or the examples of this script and its test
        if rel == NOTES:
            new_text = rewrite_notes_file(plan, text, problems)
        else:
            new_text = apply_edits(text, citation_edits(plan, rel, text, problems, []))
        if new_text != text:
            changes[path] = new_text

    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        print(f"{len(problems)} citation problem(s); nothing written", file=sys.stderr)
        return 1

    kept = [n for n in plan.notes if not n.dropped_because]
    dropped = [n for n in plan.notes if n.dropped_because]
    if args.check:
        print(f"{len(plan.notes)} notes ({len(dropped)} to drop); every citation names a note that stays")
        return 0
    if args.dry_run:
        for n in plan.notes:
            target = "dropped: " + n.dropped_because if n.dropped_because else str(n.new)
            print(f"{n.old:>4} -> {target:<8} {n.title}")
        for path in sorted(changes):
            print(f"would rewrite {path.relative_to(root).as_posix()}")
        return 0
    for path, text in changes.items():
        path.write_text(text, encoding="utf-8")
    print(f"{len(kept)} notes renumbered 1..{len(kept)}, {len(dropped)} dropped, {len(changes)} files rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
