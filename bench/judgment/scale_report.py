#!/usr/bin/env python3
"""The calibrated scale as stored (issue 21): per repository, the importance
and insight levels 1-10 (share at 9-10), the verdicts and the Spearman
correlation of each score with changed lines, after (--pair NEW) beside
before (the previous analysis's store of the same PRs) in the same run. With
--small, also the PRs of that repository with under 30 changed code lines and
an argued decision where a reader reads (facts.scores.argued): their verdicts
before and after, and a list of them to read.

  python3 bench/judgment/scale_report.py --pair NEW_DB,OLD_DB,OWNER/NAME ... \\
      [--last 2000] [--small OWNER/NAME] [--list 10]
"""

import argparse
import collections
import random
import sys

import facts_lib as fl

VERDICTS = ("close_read", "selective_read", "skim", "skip")


def load(db, repo, last):
    con = fl.connect(db)
    rows = [c for c in fl.changes(con, repo, last)]
    facts = fl.facts(con, [c["id"] for c in rows])
    return {c["sha"]: dict(c, f=facts[c["id"]]) for c in rows if c["id"] in facts}


def hist(vals):
    h = collections.Counter(vals)
    return [h[i] for i in range(1, 11)]


def describe(label, rows):
    n = len(rows)
    size = [c["additions"] + c["deletions"] for c in rows]
    out = []
    for name in ("importance", "insight"):
        vals = [c["f"]["scores"][name] for c in rows]
        h = hist(vals)
        out.append(f"  {label:<7} {name:<10} 1-10: {', '.join(map(str, h))}; 9-10 "
                   f"{100 * (h[8] + h[9]) / max(1, n):.1f} %; Spearman with changed lines "
                   f"{fl.spearman(vals, size):+.3f}")
    v = collections.Counter(c["f"]["verdict"] for c in rows)
    out.append(f"  {label:<7} verdicts close / selective / skim / skip: " +
               " / ".join(f"{v[k]} ({100 * v[k] / max(1, n):.0f} %)" for k in VERDICTS))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pair", action="append", required=True, help="NEW_DB,OLD_DB,OWNER/NAME")
    ap.add_argument("--last", type=int, help="only the last N PRs of each store")
    ap.add_argument("--small", help="repository whose small argued PRs to report")
    ap.add_argument("--list", type=int, default=10)
    args = ap.parse_args()
    for spec in args.pair:
        new_db, old_db, repo = spec.split(",")
        new, old = load(new_db, repo, args.last), load(old_db, repo, args.last)
        both = [s for s in new if s in old]
        print(f"{repo}: {len(both)} PRs in both stores")
        for line in describe("before", [old[s] for s in both]) + \
                describe("after", [new[s] for s in both]):
            print(line)
        if args.small != repo:
            continue
        small = [s for s in both
                 if 0 < new[s]["f"]["scores"].get("code_lines", 0) < 30
                 and new[s]["f"]["scores"].get("argued")]
        vb = collections.Counter(old[s]["f"]["verdict"] for s in small)
        va = collections.Counter(new[s]["f"]["verdict"] for s in small)
        print(f"  PRs under 30 changed code lines with an argued decision: {len(small)}")
        for label, v in (("before", vb), ("after", va)):
            print(f"    {label:<7} close / selective / skim / skip: " +
                  " / ".join(str(v[k]) for k in VERDICTS))
        pick = sorted(small, key=lambda s: new[s]["number"])
        random.Random(21).shuffle(pick)
        for s in sorted(pick[:args.list], key=lambda s: new[s]["number"]):
            a, b = new[s], old[s]
            print(f"    #{a['number']} {a['sha'][:10]} +{a['additions']} -{a['deletions']} "
                  f"code {a['f']['scores']['code_lines']}: {b['f']['verdict']} "
                  f"{b['f']['scores']['importance']}/{b['f']['scores']['insight']} -> "
                  f"{a['f']['verdict']} {a['f']['scores']['importance']}/"
                  f"{a['f']['scores']['insight']} scope {a['f']['verdict_scope']}  "
                  f"{a['title'][:70]}")
    print("command:", fl.command_line(sys.argv))


if __name__ == "__main__":
    main()
