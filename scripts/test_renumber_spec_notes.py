#!/usr/bin/env python3
"""Tests of scripts/renumber-spec-notes.py on small scratch repositories (ctest
spec_notes_renumber_script). Python 3, stdlib only; needs git."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "renumber-spec-notes.py"

NOTES = """# Spec notes

## Codec

### 1. First
Body one, see note 40.

### 7. Old pacing (superseded by 40)
Strict spacing.

Superseded by "Pacing by window".

## Later

### 40. Pacing by window
Replaces the strict reading; note 1 still holds. Notes 1 and 40 together.

### 41. Early data
Kept per binding.

### 42. Early data credited within the window
See notes 40 to 42.
"""

CODE = """// Pacing (docs/spec-notes.md, 40), early data (spec-notes 41, 42);
// wrapped: (docs/spec-notes.md,
// 42) and a range (docs/spec-notes.md, 40-42); by title (docs/spec-notes.md, "Early data").
int x = 1;  // not a citation: 7 notes
"""


class RenumberTest(unittest.TestCase):
    def repo(self, notes: str, files: dict[str, str]) -> Path:
        root = Path(self.tmp.name)
        (root / "docs").mkdir(exist_ok=True)
        (root / "docs" / "spec-notes.md").write_text(notes)
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        return root

    def run_script(self, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root), *args],
                              capture_output=True, text=True)

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_renumbers_in_reading_order_drops_superseded_and_rewrites_every_form(self) -> None:
        root = self.repo(NOTES, {"src/a.cpp": CODE})
        check = self.run_script(root, "--check")
        self.assertEqual(check.returncode, 0, check.stderr)
        done = self.run_script(root)
        self.assertEqual(done.returncode, 0, done.stderr)
        notes = (root / "docs" / "spec-notes.md").read_text()
        self.assertIn("### 1. First\nBody one, see note 2.", notes)
        self.assertNotIn("Old pacing", notes)
        self.assertNotIn("Superseded by", notes)
        self.assertIn("### 2. Pacing by window\nReplaces the strict reading; note 1 still holds. "
                      "Notes 1 and 2 together.", notes)
        self.assertIn("### 3. Early data\n", notes)
        self.assertIn("### 4. Early data credited within the window\nSee notes 2 to 4.", notes)
        self.assertNotIn("\n\n\n", notes)
        code = (root / "src" / "a.cpp").read_text()
        self.assertEqual(code, CODE.replace("md, 40)", "md, 2)").replace("41, 42", "3, 4")
                         .replace("// 42)", "// 4)").replace("40-42", "2-4"))
        again = self.run_script(root, "--check")
        self.assertEqual(again.returncode, 0, again.stderr)

    def test_a_citation_of_a_dropped_note_fails_and_writes_nothing(self) -> None:
        root = self.repo(NOTES, {"src/a.cpp": "// see spec-notes 7\n"})
        for args in (["--check"], []):
            r = self.run_script(root, *args)
            self.assertEqual(r.returncode, 1)
            self.assertIn("src/a.cpp:1: note 7 (\"Old pacing (superseded by 40)\") is dropped", r.stderr)
        self.assertEqual((root / "docs" / "spec-notes.md").read_text(), NOTES)
        self.assertEqual((root / "src" / "a.cpp").read_text(), "// see spec-notes 7\n")

    def test_a_citation_of_a_missing_or_shared_number_or_title_fails(self) -> None:
        shared = NOTES + "\n### 42. Appended on another branch\nText.\n"
        root = self.repo(shared, {"a.md": "As spec-notes 99 says, and note 42.\n",
                                  "b.md": 'See docs/spec-notes.md, "No such title".\n'})
        r = self.run_script(root, "--check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("a.md:1: no note 99", r.stderr)
        self.assertIn("a.md:1: note number 42 is shared by 2 notes", r.stderr)
        self.assertIn("b.md:1: a title that no note (that stays) has", r.stderr)

    def test_a_shared_number_nobody_cites_is_renumbered_in_order(self) -> None:
        shared = NOTES.replace("See notes 40 to 42.", "See note 40.") + "\n### 42. Appended\nText.\n"
        root = self.repo(shared, {})
        r = self.run_script(root)
        self.assertEqual(r.returncode, 0, r.stderr)
        notes = (root / "docs" / "spec-notes.md").read_text()
        self.assertIn("### 4. Early data credited within the window\nSee note 2.", notes)
        self.assertIn("### 5. Appended\n", notes)

    def test_a_range_with_a_dropped_note_inside_fails(self) -> None:
        root = self.repo(NOTES, {"a.md": "notes 1 to 40\n"})
        r = self.run_script(root, "--check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no longer consecutive", r.stderr)

    def test_a_successor_that_is_no_note_fails(self) -> None:
        root = self.repo(NOTES.replace('Superseded by "Pacing by window"', 'Superseded by "Nothing"'), {})
        r = self.run_script(root, "--check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("its successor is no note that stays", r.stderr)


if __name__ == "__main__":
    unittest.main()
