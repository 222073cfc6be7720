#!/usr/bin/env python3
"""Keeps docs/spec-notes.md honest against the spec (the introduction of docs/spec-notes.md says
what it checks).

Every quotation in a note's block quote (the `>` lines: the sentences the note resolves) must
appear word for word in the spec, whitespace normalised; `...` inside a quotation stands for
omitted words, so its parts must appear in that order. A quotation followed by a citation,
"(Heading)" or "(Heading, rule N)" (also "item N"), must stand under that heading (a heading's
leading words suffice: "(Example Exchange)"), and under its rule N where one is named. A note
must describe the tree as it is: "at commit <hash>" (the past) is refused.

Exit status: 0 when every note holds, 1 with a line per finding, 77 (ctest's skip code) when
the spec is absent (a plain clone has no ../shared/spec).

    scripts/check-spec-notes.py [--notes docs/spec-notes.md] [--spec ../shared/spec/rdcc-spec.txt]
"""
import argparse
import os
import re
import sys

# The spec's section headings, table and figure captions (its cross-references were lost in
# conversion, so notes cite these by name), each with the text that starts its section.
# `None` as the start: the heading begins a line of the spec, followed by a space or the line end.
HEADINGS = [
    ("Abstract", "Expert-parallel and disaggregated"),
    ("Introduction", None),
    ("Problem Statement", None),
    ("Protocol Overview", None),
    ("Scope and Applicability", None),
    ("Relationship to Other Work", None),
    ("Conventions and Definitions", None),
    ("Architecture", "Architecture shows the roles"),
    ("RDCC Roles and Signaling Paths", None),
    ("Protocol Operation", None),
    ("Association Establishment", None),
    ("Transmission Mode Selection", None),
    ("Unscheduled Transmission", "Unscheduled Transmission A sender using"),
    ("Credit Requests and Grants", None),
    ("Receiver Credit Budget", None),
    ("Credit Allocation", None),
    ("Traffic Classes and Pool Credit", None),
    ("Sender Backlog Indication and Suggested Rates", None),
    ("On-Path Congestion Reporting", None),
    ("Transport Bindings", None),
    ("Error Handling and Recovery", None),
    ("Message Formats", None),
    ("Port Configuration", None),
    ("Common Header", "Common Header\n"),
    ("RDCC Message Types", "RDCC Message Types\n"),
    ("ASSOC_REQUEST and ASSOC_ACCEPT", "ASSOC_REQUEST and ASSOC_ACCEPT\n"),
    ("CREDIT_REQUEST", "CREDIT_REQUEST\n"),
    ("CREDIT_GRANT", "CREDIT_GRANT\n"),
    ("SENDER_STATUS", "SENDER_STATUS\n"),
    ("CONGESTION_REPORT", "CONGESTION_REPORT\n"),
    ("MSG_DONE, CANCEL, CREDIT_RETURN, and ERROR", None),
    ("RDCC Reason Codes", "RDCC Reason Codes\n"),
    ("Sender Message State Machine", None),
    ("Sender Message State Transitions", "Sender Message State Transitions\n"),
    ("Congestion Control Considerations", None),
    ("Operational Considerations", None),
    ("Default Parameters", "Default Parameters\n"),
    ("Security Considerations", None),
    ("IANA Considerations", None),
    ("RDCC Registries", None),
    ("References", "References Normative References"),
    ("Example Exchange and Encodings", None),
    ("Acknowledgments", None),
]

# A citation names a heading, optionally with a rule or item number, and may add words after a
# semicolon or "and" that are not headings ("(Credit Allocation, rule 2)").
CITATION = re.compile(r"^\s*\(([^()]*)\)")
RULE = re.compile(r"^(.*?),\s*(?:rule|item)s?\s+(\d+)\s*$")


def normalise(text):
    """Whitespace as one space; the conversion's lost cross-references ("()", and the space it
    left before punctuation: "arithmetic , than") dropped, in the spec and in the quotation."""
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r" ?\(\)", "", text)
    text = re.sub(r" ([,.;:)])", r"\1", text)
    return text.strip()


# Inside a quotation, these stand between quoted parts that appear in the spec in that order:
# an ellipsis, an editorial insertion ("[is]", "[A sender using unscheduled transmission]"), and
# the cell separators of a quoted table row ("NEW | length <= U ... | UNSCHED").
GAP = re.compile(r"\s*(?:\.\.\.|…|\[[A-Za-z][A-Za-z ]*\]|\s\|\s|\s—\s)\s*")


class Spec:
    def __init__(self, raw):
        self.raw = raw
        self.text = normalise(raw)
        # Positions (in the normalised text) where each heading's section starts.
        self.starts = []
        for name, start in HEADINGS:
            pos = self._find_start(name, start)
            if pos is None:
                raise SystemExit(f"check-spec-notes: the spec has no heading '{name}'")
            self.starts.append((pos, name))
        self.starts.sort()

    def _find_start(self, name, start):
        if start is None:
            m = re.search(r"(?m)^" + re.escape(name) + r"(?: |$)", self.raw)
            if m is None:
                return None
            raw_pos = m.start()
        else:
            raw_pos = self.raw.find(start)
            if raw_pos < 0:
                return None
        return len(normalise(self.raw[:raw_pos]) + (" " if raw_pos else "")) if raw_pos else 0

    def find(self, quote):
        """Where the quotation starts in the spec, or None; `...` separates parts in order."""
        parts = [normalise(p) for p in GAP.split(quote)]
        parts = [p for p in parts if p]
        if not parts:
            return None
        # Of the places where the parts appear in order, the tightest: a short first part ("NEW")
        # also appears earlier, far from the rest.
        best = None
        first = self.text.find(parts[0])
        while first >= 0:
            cursor = first + len(parts[0])
            for p in parts[1:]:
                pos = self.text.find(p, cursor)
                if pos < 0:
                    break
                cursor = pos + len(p)
            else:
                if best is None or cursor - first < best[1] - best[0]:
                    best = (first, cursor)
            first = self.text.find(parts[0], first + 1)
        return None if best is None else best[0]

    def sections_at(self, pos):
        """Every heading whose section holds pos (nested ones too: the innermost is last)."""
        names = []
        for i, (s, name) in enumerate(self.starts):
            if s <= pos:
                names.append(name)
        return names

    def heading_of(self, pos):
        s = [n for p, n in self.starts if p <= pos]
        return s[-1] if s else None

    def rule_at(self, pos, heading):
        """The number of the numbered rule of `heading`'s section that holds pos, or None."""
        start = next(p for p, n in self.starts if n == heading)
        later = [p for p, n in self.starts if p > start]
        end = min(later) if later else len(self.text)
        section = self.text[start:end]
        rule = None
        for m in re.finditer(r"(?:^| )(\d)\. (?=[A-Z])", section):
            if start + m.start() <= pos:
                rule = int(m.group(1))
        return rule


def heading_matches(cited, actual):
    return actual == cited or actual.startswith(cited + " ") or actual.startswith(cited + ",")


def block_quotes(lines):
    """(line number, joined text) of each run of `>` lines."""
    run, first = [], None
    for i, line in enumerate(lines, 1):
        if line.startswith(">"):
            if first is None:
                first = i
            run.append(line[1:].strip())
        elif run:
            yield first, " ".join(run)
            run, first = [], None
    if run:
        yield first, " ".join(run)


def quotations(text):
    """(quote, citation or None) for each double-quoted span of a block quote; a citation after a
    quote (or after several joined by "/", ";" or "and") applies to each of them."""
    out, pending = [], []
    i = 0
    while i < len(text):
        if text[i] == '"':
            j = text.find('"', i + 1)
            if j < 0:
                break
            pending.append(text[i + 1 : j])
            rest = text[j + 1 :]
            m = CITATION.match(rest)
            if m:
                out += [(q, m.group(1)) for q in pending]
                pending = []
                i = j + 1 + m.end()
                continue
            i = j + 1
        else:
            i += 1
    out += [(q, None) for q in pending]
    return out


def check(notes_path, spec):
    findings = []
    notes = open(notes_path, encoding="utf-8").read()
    lines = notes.split("\n")
    for m in re.finditer(r"\bat\s+commit\s+[0-9a-f]{7,40}\b", notes):
        n = notes.count("\n", 0, m.start()) + 1
        findings.append(f"{notes_path}:{n}: describes the past ('at commit ...'): say what HEAD does")
    for first, text in block_quotes(lines):
        for quote, citation in quotations(text):
            if len(normalise(quote)) < 12:
                continue  # a word or a name ("Ignore"), not a sentence
            pos = spec.find(quote)
            if pos is None:
                findings.append(f"{notes_path}:{first}: not in the spec word for word: \"{quote}\"")
                continue
            if citation is None:
                continue
            cited = citation.split(";")[0].strip()
            m = RULE.match(cited)
            cited_heading, rule = (m.group(1).strip(), int(m.group(2))) if m else (cited, None)
            holders = spec.sections_at(pos)
            bare = re.fullmatch(r"(?:rule|item)\s+(\d+)", cited)
            if bare:  # "(rule 1)": the rule of the section the quotation stands in
                cited_heading, rule = holders[-1], int(bare.group(1))
            match = next((h for h in reversed(holders) if heading_matches(cited_heading, h)), None)
            if match is None:
                findings.append(
                    f"{notes_path}:{first}: \"{quote[:60]}...\" cited as ({citation}) stands under "
                    f"'{spec.heading_of(pos)}'")
                continue
            if rule is not None:
                actual = spec.rule_at(pos, match)
                if actual != rule:
                    findings.append(
                        f"{notes_path}:{first}: \"{quote[:60]}...\" cited as ({citation}) is "
                        f"rule {actual} of '{match}'")
    return findings


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", default=os.path.join(root, "docs", "spec-notes.md"))
    ap.add_argument("--spec", default=os.path.join(root, "..", "shared", "spec", "rdcc-spec.txt"))
    a = ap.parse_args()
    if not os.path.exists(a.spec):
        print(f"SKIP: the spec is absent ({a.spec}): nothing to check the notes against")
        return 77
    spec = Spec(open(a.spec, encoding="utf-8").read())
    findings = check(a.notes, spec)
    for f in findings:
        print(f)
    print(f"check-spec-notes: {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
