#!/usr/bin/env python3
"""Counts a paired reading: one reader classified every English statement of
two or three versions of each PR's guide, shown under shuffled labels (A, B,
C), so the versions are compared by the same reader (bench/README.md, "The
model writer's audit, prompt 8").

    bench/audit/paired_tally.py KEY.tsv VERDICTS.tsv...

KEY rows: pr, label, version name (which build or answers the label hid).
VERDICTS rows: pr, label, section, class, statement, note (tab-separated).
Prints, per version: statements and each class's count and share; then, per
PR read in more than one version, the false and misleading counts of each.
"""
import collections
import sys

from tally import VERDICTS as CLASSES  # the classes the readers use, in tally.py's order


def main(key_path, paths):
    key = {}
    with open(key_path, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 3:
                key[(cols[0].strip(), cols[1].strip())] = cols[2].strip()
    totals = collections.defaultdict(collections.Counter)
    per_pr = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 4:
                    continue
                pr, label, cls = cols[0].strip().lstrip("#"), cols[1].strip(), cols[3].strip().lower()
                name = key.get((pr, label))
                if name is None or cls not in CLASSES:
                    continue
                totals[name][cls] += 1
                per_pr[pr][name][cls] += 1
    for name in sorted(totals):
        c = totals[name]
        n = sum(c.values())
        parts = ", ".join(f"{k} {c[k]} ({100.0 * c[k] / n:.1f} %)" for k in CLASSES if c[k])
        print(f"{name}: {n} statements: {parts}")
    names = sorted(totals)
    print("pr\t" + "\t".join(f"{n} false/misleading/all" for n in names))
    for pr in sorted(per_pr, key=int):
        row = []
        for n in names:
            c = per_pr[pr].get(n)
            row.append(f"{c['false']}/{c['misleading']}/{sum(c.values())}" if c else "-")
        print(pr + "\t" + "\t".join(row))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
