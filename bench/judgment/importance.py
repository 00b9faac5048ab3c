#!/usr/bin/env python3
"""Importance against a project's own release notes (ROC AUC, hits in the top
k), beside changed lines (the naive baseline) and, with --old, the importance
of a store analysed by a previous analyzer, all on the same PRs in the same run.

The release notes are read from the clone at the branch tip by
release_notes.py (Markdown or reStructuredText, one file or a directory of
them). Positives: PRs named in a section matching --highlight ("highlights"),
or named anywhere in the notes ("notes"). The universe: every stored PR with
facts merged between the first and the last release date, or with --pools
labelled only the PRs of release pools (after the previous release, up to this
one) whose highlight sections name a PR. k = the number of positives; a level
score's ties are broken by insight. Never point this at sglang: its release
notes are held out for judging.

  python3 bench/judgment/importance.py --db DB --repo vllm-project/vllm-ascend \\
      --clone CLONE [--notes docs/source/user_guide/release_notes.md] [--old OLD_DB] \\
      [--highlight highlight] [--pools span|labelled] [--split DATE] [--list N]
"""

import argparse
import collections
import datetime as dt
import sys

import facts_lib as fl
import release_notes as rn


def day(c):
    return dt.datetime.fromtimestamp(c["merged_at"], dt.timezone.utc).date()


def top_hits(keys, labels, k):
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=True)
    return sum(1 for i in order[:k] if labels[i])


def labelled_pools(releases, highlight):
    """[(after, up to)] of the releases whose highlight sections name a PR."""
    dated = sorted(((d, s) for _, d, s in releases if d), key=lambda r: r[0])
    out = []
    for (prev, _), (date, sections) in zip(dated, dated[1:]):
        if rn.labels([("", date, sections)], highlight)[0]:
            out.append((prev, date))
    return out


def load(db, repo):
    con = fl.connect(db)
    rows = [c for c in fl.changes(con, repo) if c["number"]]
    facts = fl.facts(con, [c["id"] for c in rows])
    return {c["number"]: dict(c, f=facts[c["id"]]) for c in rows if c["id"] in facts}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--clone", required=True)
    ap.add_argument("--branch", default="main")
    ap.add_argument("--notes", default="docs/source/user_guide/release_notes.md",
                    help="a release-notes file or a directory of them, in the clone")
    ap.add_argument("--highlight", default="highlight",
                    help="regular expression of the section names that count as highlights")
    ap.add_argument("--pools", choices=("span", "labelled"), default="span")
    ap.add_argument("--old", help="the same PRs analysed by a previous analyzer")
    ap.add_argument("--split", help="also report PRs merged before / from this date (YYYY-MM-DD)")
    ap.add_argument("--list", type=int, default=0, help="print the N highest-ranked misses")
    args = ap.parse_args()
    if "sglang" in args.repo.lower():
        sys.exit("sglang's release notes are held out: use another repository")

    releases = rn.read(args.clone, args.branch, args.notes, args.repo)
    highlights, notes, span = rn.labels(releases, args.highlight)
    if not span:
        sys.exit(f"{args.notes}: no dated release")
    pools = [span] if args.pools == "span" else labelled_pools(releases, args.highlight)
    new = load(args.db, args.repo)
    old = load(args.old, args.repo) if args.old else {}

    def within(c):
        d = day(c)
        return any((lo <= d <= hi) if args.pools == "span" else (lo < d <= hi)
                   for lo, hi in pools)

    rows = [c for c in new.values() if within(c) and (not old or c["number"] in old)]
    rows.sort(key=lambda c: (c["merged_at"], c["id"]))

    def lvl(c):
        s = c["f"]["scores"]
        return (s["importance"], s["insight"])

    scores = [("fitted (this build)", lambda c: lvl(c)),
              ("fitted raw log-odds", lambda c: c["f"]["scores"].get("importance_raw", 0.0))]
    if old:
        scores.append(("previous importance", lambda c: lvl(old[c["number"]])))
    scores.append(("changed lines", lambda c: c["additions"] + c["deletions"]))

    def report(label, subset):
        for name, pos in (("highlights", highlights), ("notes", notes)):
            lab = [c["number"] in pos for c in subset]
            k = sum(lab)
            parts = []
            for sname, fn in scores:
                keys = [fn(c) for c in subset]
                first = [x[0] if isinstance(x, tuple) else x for x in keys]
                a = fl.auc(first, lab)
                parts.append(f"{sname} AUC {a:.3f} top-{k} {top_hits(keys, lab, k)}")
            print(f"{label:<22} {name:<10} PRs {len(subset):>5}  positives {k:>4}  "
                  + " | ".join(parts))

    def spread(name, levels, subset):
        h = collections.Counter(levels)
        n = len(levels)
        mean = sum(levels) / n
        sd = (sum((v - mean) ** 2 for v in levels) / n) ** 0.5
        print(f"  {name:<20} 1-10: {', '.join(str(h[v]) for v in range(1, 11))}; 9-10 "
              f"{100 * (h[9] + h[10]) / n:.1f} %; levels used {sum(1 for v in h if h[v])}; "
              f"sd {sd:.2f}; Spearman with changed lines "
              f"{fl.spearman(levels, [c['additions'] + c['deletions'] for c in subset]):+.3f}")

    print(f"repository {args.repo}: {len(releases)} releases {span[0]} .. {span[1]} "
          f"({args.notes} at {args.branch}); sections /{args.highlight}/ name {len(highlights)} "
          f"PRs, the notes {len(notes)}; universe: {args.pools} "
          f"({len(pools)} pool{'s' if len(pools) != 1 else ''})")
    report("all", rows)
    if args.split:
        cut = dt.date.fromisoformat(args.split)
        report(f"before {cut}", [c for c in rows if day(c) < cut])
        report(f"from {cut}", [c for c in rows if day(c) >= cut])
    print("the scale over the same PRs:")
    spread("fitted (this build)", [c["f"]["scores"]["importance"] for c in rows], rows)
    if old:
        spread("previous importance",
               [old[c["number"]]["f"]["scores"]["importance"] for c in rows], rows)
    if args.list:
        neg = sorted((c for c in rows if c["number"] not in notes), key=lvl, reverse=True)
        print("highest-ranked PRs not in the notes:")
        for c in neg[:args.list]:
            print(f"  #{c['number']} imp {c['f']['scores']['importance']} +{c['additions']} "
                  f"-{c['deletions']} {c['title'][:70]}")
        print("lowest-ranked highlights:")
        for c in sorted((c for c in rows if c["number"] in highlights), key=lvl)[:args.list]:
            s = c["f"]["scores"]
            print(f"  #{c['number']} imp {s['importance']} +{c['additions']} "
                  f"-{c['deletions']} {c['title'][:70]}  {s['importance_reasons']}")
    print("command:", fl.command_line(sys.argv))


if __name__ == "__main__":
    main()
