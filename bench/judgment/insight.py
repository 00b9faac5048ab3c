#!/usr/bin/env python3
"""Insight against size: Spearman correlation of the insight score with
changed lines (should be low), and the share of the 20 highest-insight PRs
that change more than 2,000 lines (ties at the cut count by their expected
share), beside the same figures for a naive score that ranks by size.
Also prints the verdict and score distributions and the ten highest-insight
PRs (insight, then importance, then newest first).

  python3 bench/judgment/insight.py --db DB [--repo NAME] [--last 2000]
"""

import argparse
import collections
import sys

import facts_lib as fl


def top_share(values, big, k=20):
    """Expected share of `big` among the k highest `values`, ties broken at random."""
    order = sorted(range(len(values)), key=lambda i: -values[i])
    if len(order) <= k:
        return sum(big) / max(1, len(order))
    cut = values[order[k - 1]]
    above = [i for i in order if values[i] > cut]
    tied = [i for i in order if values[i] == cut]
    slots = k - len(above)
    return (sum(big[i] for i in above) + slots * sum(big[i] for i in tied) / len(tied)) / k


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--repo")
    ap.add_argument("--last", type=int, default=2000)
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()
    con = fl.connect(args.db)
    rows = fl.changes(con, args.repo, args.last)
    facts = fl.facts(con, [c["id"] for c in rows])
    rows = [c for c in rows if c["id"] in facts]
    size = [c["additions"] + c["deletions"] for c in rows]
    ins = [facts[c["id"]]["scores"]["insight"] for c in rows]
    imp = [facts[c["id"]]["scores"]["importance"] for c in rows]
    big = [s > 2000 for s in size]
    print(f"{len(rows)} changes")
    print(f"insight:   Spearman with changed lines {fl.spearman(ins, size):+.3f}; "
          f"top-20 over 2,000 lines {top_share(ins, big):.0%}")
    print(f"importance: Spearman with changed lines {fl.spearman(imp, size):+.3f}")
    print(f"baseline (changed lines): top-20 over 2,000 lines {top_share(size, big):.0%}")
    verdicts = collections.Counter(facts[c["id"]]["verdict"] for c in rows)
    print("verdicts:", ", ".join(f"{v} {verdicts[v]} ({verdicts[v] / len(rows):.0%})"
                                 for v in ("close_read", "selective_read", "skim", "skip")))
    for name, vals in (("importance", imp), ("insight", ins)):
        hist = collections.Counter(vals)
        print(f"{name} 1-10:", ", ".join(str(hist[i]) for i in range(1, 11)))
    tags = [len(facts[c["id"]]["tags"]) for c in rows]
    hist = collections.Counter(tags)
    print(f"tags per PR: median {fl.quantile(tags, 0.5)}, p90 {fl.quantile(tags, 0.9)}, "
          f"max {max(tags)}; counts " + ", ".join(f"{k}:{hist[k]}" for k in sorted(hist)))
    order = sorted(range(len(rows)), key=lambda i: (-ins[i], -imp[i], -rows[i]["merged_at"]))
    print(f"the {args.top} highest-insight PRs:")
    for i in order[:args.top]:
        c, f = rows[i], facts[rows[i]["id"]]
        print(f"  #{c['number']} insight {ins[i]} importance {imp[i]} {f['verdict']} "
              f"+{c['additions']} -{c['deletions']} {c['title'][:80]}")
        print(f"      insight: {'; '.join(f['scores']['insight_reasons'])}")
    print("command:", fl.command_line(sys.argv))


if __name__ == "__main__":
    main()
