#!/usr/bin/env python3
"""Counts a careful reader's verdicts (bench/audit/verdicts/*.tsv).

Each row: pr, lang, section, verdict, statement, reason (tab-separated; see
bench/README.md, "The writers' audit"). The en guide is checked whole; zh rows
are only the statements whose content differs from the en guide, and broken
rendering. Prints one line per file set: statements and each verdict's count
and share (of the en statements), then the zh rows.

    bench/audit/tally.py bench/audit/verdicts/model-before.*.tsv
"""
import collections
import sys

VERDICTS = ["true", "false", "misleading", "unsupported", "filler", "broken"]


def main(paths):
    counts = {"en": collections.Counter(), "zh": collections.Counter()}
    prs = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 4:
                    continue
                lang, verdict = cols[1].strip(), cols[3].strip().lower()
                if lang in counts and verdict in VERDICTS:
                    counts[lang][verdict] += 1
                    prs.add(cols[0].strip())
    en = counts["en"]
    total = sum(en.values())
    cells = " | ".join(f"{en[v]} ({100 * en[v] / total:.1f} %)" if total else "0" for v in VERDICTS)
    print(f"| {len(prs)} PRs | {total} | {cells} |")
    zh = counts["zh"]
    print("zh rows (differences and rendering): " +
          ", ".join(f"{v} {zh[v]}" for v in VERDICTS if zh[v]))


if __name__ == "__main__":
    main(sys.argv[1:])
