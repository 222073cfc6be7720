#!/usr/bin/env python3
"""Checks the DOM a real browser built from the conformance report (chromium --dump-dom).

    html_dom_check.py report DOM.html RESULTS.json CATALOG.json FAILING-SCENARIO
    html_dom_check.py matrix DOM.html MATRIX-DIR MIN-IUTS

report: the version results.json gives is shown; every scenario of results.json has its section; the failing scenario's ladder has the
cited frames highlighted (g.msg.cited with their data-frame) and the expected message (g.expected);
its section quotes each cited requirement with the catalog's sentence, and shows the Wireshark
filter of its frames. matrix: at least MIN-IUTS rows, a cell per verdict that links to an existing
report page with that scenario's anchor, some failing cells (the mutants) and a reference row
without any.
Prints what it checked; exits 1 naming the first thing that is missing.
"""
import html.parser
import json
import os
import sys


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag = tag
        self.attrs = dict(attrs)
        self.parent = parent
        self.children = []
        self.text = []

    def classes(self):
        return self.attrs.get("class", "").split()

    def all_text(self):
        out = list(self.text)
        for c in self.children:
            out.append(c.all_text())
        return " ".join(out)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "source", "wbr"}


class Builder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("root", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text.append(data)


def parse(path):
    b = Builder()
    with open(path, encoding="utf-8") as f:
        b.feed(f.read())
    return b.root


def fail(msg):
    print("html_dom_check: FAIL: " + msg)
    sys.exit(1)


def squash(s):
    return " ".join(s.split())


def check_report(dom_path, results_path, catalog_path, failing):
    root = parse(dom_path)
    with open(results_path, encoding="utf-8") as f:
        results = json.load(f)
    with open(catalog_path, encoding="utf-8") as f:
        catalog = json.load(f)
    text_of = {r["id"]: r["text"] for r in catalog}
    sections = {n.attrs.get("data-scenario"): n for n in root.walk()
                if n.tag == "section" and "scenario" in n.classes()}
    names = [s["name"] for s in results["scenarios"]]
    for name in names:
        if name not in sections:
            fail("scenario %s has no section in the page" % name)
    print("every scenario present: %d sections" % len(names))
    version = [squash(n.all_text()) for n in root.walk() if n.attrs.get("id") == "version"]
    if version != [results.get("rdcc_version")]:
        fail("version shown %s, results.json rdcc_version %s" % (version, results.get("rdcc_version")))
    print("version shown: %s" % version[0])
    ladders = sum(1 for n in root.walk() if n.tag == "svg" and "ladder" in n.classes())
    print("ladder diagrams: %d" % ladders)
    sec = sections.get(failing)
    result = next((s for s in results["scenarios"] if s["name"] == failing), None)
    if sec is None or result is None:
        fail("no scenario %s" % failing)
    if sec.attrs.get("data-verdict") != "fail" or result["verdict"] != "fail":
        fail("%s is not failing (page %s, results.json %s)" % (failing, sec.attrs.get("data-verdict"),
                                                             result["verdict"]))
    frames = result.get("frames") or []
    if not frames:
        fail("results.json gives %s no frames" % failing)
    cited = [n for n in sec.walk() if n.tag == "g" and "cited" in n.classes()]
    cited_frames = sorted(int(n.attrs["data-frame"]) for n in cited)
    if cited_frames != sorted(frames):
        fail("%s: highlighted frames %s, results.json cites %s" % (failing, cited_frames, frames))
    if not any(n.tag == "g" and "expected" in n.classes() for n in sec.walk()):
        fail("%s: no expected message in its ladder" % failing)
    print("%s: highlighted step at frames %s, the expected message drawn" % (failing, cited_frames))
    quoted = {n.attrs.get("data-id"): squash(n.all_text()) for n in sec.walk()
              if n.tag == "blockquote" and "requirement" in n.classes()}
    for rid in result["cited"]:
        if rid not in quoted:
            fail("%s: requirement %s not quoted" % (failing, rid))
        if squash(text_of[rid]) not in quoted[rid]:
            fail("%s: %s quoted without the catalog's sentence: %s" % (failing, rid, quoted[rid]))
        print("%s quoted: %s" % (rid, quoted[rid]))
    want_filter = "frame.number in {%s}" % " ".join(str(f) for f in frames)
    filters = [squash(n.all_text()) for n in sec.walk() if n.tag == "code" and "filter" in n.classes()]
    if want_filter not in filters:
        fail("%s: no Wireshark filter '%s' (found %s)" % (failing, want_filter, filters))
    print("Wireshark filter shown: %s" % want_filter)


def check_matrix(dom_path, matrix_dir, min_iuts):
    root = parse(dom_path)
    rows = [n for n in root.walk() if n.tag == "tr" and "iut" in n.classes()]
    if len(rows) < min_iuts:
        fail("the matrix has %d IUT rows, wanted at least %d" % (len(rows), min_iuts))
    failing_rows = 0
    cells = 0
    for row in rows:
        verdicts = []
        for cell in (n for n in row.walk() if n.tag == "td" and "cell" in n.classes()):
            if "data-verdict" not in cell.attrs:
                continue
            links = [n for n in cell.walk() if n.tag == "a"]
            if not links:
                fail("a cell of %s has no link" % row.attrs.get("data-iut"))
            page, _, anchor = links[0].attrs["href"].partition("#")
            if not os.path.isfile(os.path.join(matrix_dir, page)):
                fail("cell link %s: no such report" % links[0].attrs["href"])
            if anchor != "s-" + cell.attrs["data-scenario"]:
                fail("cell link %s does not point at scenario %s" % (links[0].attrs["href"],
                                                                   cell.attrs["data-scenario"]))
            verdicts.append(cell.attrs["data-verdict"])
            cells += 1
        iut = row.attrs.get("data-iut")
        if "fail" in verdicts:
            failing_rows += 1
        if iut == "reference" and "fail" in verdicts:
            fail("the reference row has failing cells")
        print("row %-45s %3d cells, %d fail" % (iut, len(verdicts), verdicts.count("fail")))
    if failing_rows == 0:
        fail("no row fails: the mutants should")
    print("matrix: %d IUTs, %d cells, each linking to its run's report" % (len(rows), cells))


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "report" and len(sys.argv) == 6:
        check_report(*sys.argv[2:6])
    elif len(sys.argv) >= 2 and sys.argv[1] == "matrix" and len(sys.argv) == 5:
        check_matrix(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
