#!/usr/bin/env python3
"""Counts a reader's classes over the statements of statements.py.

usage: tally.py --statements A.tsv [B.tsv ...] --classes CLASSES.tsv [--by element|pr]
CLASSES.tsv: key, class, note (tab-separated). Every statement must be classified.
"""
import argparse, collections, sys

CLASSES = ("true", "false", "misleading", "unsupported", "generic", "broken")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--statements", nargs="+", required=True)
    ap.add_argument("--classes", required=True)
    ap.add_argument("--by", choices=("element", "pr", "repo"))
    a = ap.parse_args()
    cls = {}
    with open(a.classes) as f:
        for line in f:
            if not line.strip():
                continue
            k, c, *_ = line.rstrip("\n").split("\t") + [""]
            if c not in CLASSES:
                sys.exit(f"unknown class {c!r} for {k}")
            cls[k] = c
    rows = []
    for path in a.statements:
        with open(path) as f:
            for line in f:
                key, pr, element, *_ = line.rstrip("\n").split("\t")
                if key not in cls:
                    sys.exit(f"unclassified statement {key} ({pr} {element})")
                rows.append((key, pr, element.rstrip("0123456789"), cls[key]))
    groups = collections.defaultdict(collections.Counter)
    for key, pr, element, c in rows:
        g = {"element": element, "pr": pr, "repo": pr.split("#")[0]}.get(a.by, "all")
        groups[g][c] += 1
    print("| | " + " | ".join(CLASSES) + " | total | misleading % |")
    print("|---|" + "---:|" * (len(CLASSES) + 2))
    for g in sorted(groups):
        n = sum(groups[g].values())
        print(f"| {g} | " + " | ".join(str(groups[g][c]) for c in CLASSES) +
              f" | {n} | {100 * groups[g]['misleading'] / n:.1f} |")


if __name__ == "__main__":
    main()
