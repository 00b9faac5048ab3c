"""bench/context: compares parsers' definitions with the reference (ast).
Usage: compare.py REF.tsv NAME=TOOL.tsv ... Prints, per tool, how many
reference definitions it found (same path, qualified name and line), how many
of those end on the reference's last line, and what it reported that the
reference does not have."""
import collections
import sys


def load(path):
    rows = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 5 or parts[1] == "SYNTAX_ERROR":
                continue
            p, q, kind, a, b = parts
            rows[(p, q, int(a))] = (kind, int(b))
    return rows


def main():
    ref = load(sys.argv[1])
    print(f"reference: {len(ref)} definitions")
    print("| parser | found (path, name, line) | same last line | extra | kind agrees |")
    print("|---|---|---|---|---|")
    for arg in sys.argv[2:]:
        name, path = arg.split("=", 1)
        got = load(path)
        found = [k for k in ref if k in got]
        same_end = sum(1 for k in found if got[k][1] == ref[k][1])
        kind = sum(1 for k in found if got[k][0] == ref[k][0])
        extra = sum(1 for k in got if k not in ref)
        n = len(ref)
        print(f"| {name} | {len(found)} ({100*len(found)/n:.2f} %) | {same_end} ({100*same_end/max(len(found),1):.2f} %) "
              f"| {extra} | {100*kind/max(len(found),1):.2f} % |")
        misses = collections.Counter()
        for k in ref:
            if k not in got:
                misses[k[0]] += 1
        worst = ", ".join(f"{p} ({n})" for p, n in misses.most_common(3))
        if worst:
            print(f"|  | most missed in: {worst} | | | |")


main()
