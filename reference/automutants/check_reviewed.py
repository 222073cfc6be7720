#!/usr/bin/env python3
"""Every row of conformance/mutants-reviewed.md names a mutation site that exists.

A row is keyed by `FILE:LINE:COLUMN ORIGINAL -> REPLACEMENT` (rdcc-conform --list-auto-mutants),
which an edit of the rule code above the site moves. A row whose key no automatic mutant has any
more would let the site's survivor come back unreviewed, and the review's sentence be lost: this
check names each such row, with the sites of the same file and change nearest to it.

    check_reviewed.py MUTANTS_JSON REVIEWED_MD
"""
import json
import sys


def site_key(m):
    return "%s:%d:%d %s -> %s" % (m["file"], m["line"], m["column"], m["original"],
                                  m["replacement"] or "(removed)")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        mutants = json.load(f)
    keys = {site_key(m) for m in mutants}
    stale = 0
    rows = 0
    with open(argv[2], encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.startswith("| `"):
                continue
            end = line.find("`", 3)
            if end < 0:
                print("%s:%d: a row without its closing backquote" % (argv[2], number))
                stale += 1
                continue
            rows += 1
            key = line[3:end].replace("\\|", "|")
            if key in keys:
                continue
            stale += 1
            where, _, change = key.partition(" ")
            path = where.rsplit(":", 2)[0]
            near = sorted((abs(m["line"] - int(where.rsplit(":", 2)[1])), site_key(m))
                          for m in mutants
                          if m["file"] == path and site_key(m).partition(" ")[2] == change)
            hint = "; nearest sites with that change: " + ", ".join(k for _, k in near[:3]) \
                if near else "; no site of that file has that change"
            print("%s:%d: no automatic mutant has the site `%s`%s" % (argv[2], number, key, hint))
    if stale:
        print("%d of %d reviewed rows name no site: move each key to its site (the rule code "
              "moved) or drop the row" % (stale, rows))
        return 1
    print("%d reviewed rows, every one names a site of the %d automatic mutants" %
          (rows, len(mutants)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
