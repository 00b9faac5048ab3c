#!/usr/bin/env python3
"""The model's triage against a project's own release highlights, per release
pool, beside the analysis's importance and changed lines in the same run.

A release's pool is every stored PR merged after the previous release of the
notes (by date) up to its own date. Positives: the PRs its "Highlights"
section names (and, second, the PRs its notes name anywhere). For each score
it prints ROC AUC (ties count one half) and P@k / hits in the top k, k = the
number of highlighted PRs in the pool (the way a maintainer picks k
highlights). The triage's score is its importance, ties broken by its place
in the day (so its order counts); the analysis's is its importance, ties
broken by insight. Also: the share of triaged PRs at importance 9-10, and
the triage's verdicts.

Triage records come from the store (`mergelens triage` against a model or the
replay server: bench/judgment/README in bench/README.md, "Triage"). Never
point this at sglang: its release notes are held out for judging.

  python3 bench/judgment/triage.py --db DB --repo vllm-project/vllm-ascend --clone CLONE \
      [--releases v0.22.1rc1,v0.21.0rc1] [--since 2026-06-04 --until 2026-06-30]
"""

import argparse
import collections
import datetime as dt
import sys

import facts_lib as fl
import release_notes as rn


def day_of(ts):
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).date()


def top_hits(scores, labels, k):
    order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)
    return sum(1 for i in order[:k] if labels[i])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--clone", required=True)
    ap.add_argument("--branch", default="main")
    ap.add_argument("--notes", default="docs/source/user_guide/release_notes.md")
    ap.add_argument("--releases", help="comma-separated release names: one pool each")
    ap.add_argument("--since", help="a window of merge days (YYYY-MM-DD) as one pool, with the "
                    "highlights of every release as positives")
    ap.add_argument("--until")
    args = ap.parse_args()
    if "sglang" in args.repo.lower():
        sys.exit("sglang's release notes are held out: use another repository")
    releases = rn.read(args.clone, args.branch, args.notes, args.repo)
    dated = sorted((d, v, s) for v, d, s in releases if d)
    con = fl.connect(args.db)
    rows = [c for c in fl.changes(con, args.repo) if c["number"]]
    facts = fl.facts(con, [c["id"] for c in rows])
    triage = {r["change_id"]: dict(r) for r in con.execute(
        "SELECT change_id, day, rank, importance, insight, verdict FROM triage")}
    pools = []
    for name in (args.releases.split(",") if args.releases else []):
        idx = next((i for i, (_, v, _) in enumerate(dated) if v == name), None)
        if idx is None or idx == 0:
            sys.exit(f"release {name} not found (or has no earlier release to start its pool)")
        lo, hi, sections = dated[idx - 1][0], dated[idx][0], dated[idx][2]
        highlights = set().union(*[p for s, p in sections.items() if "highlight" in s] or [set()])
        notes = set().union(*sections.values()) if sections else set()
        pools.append((f"release {name} ({lo} < merged <= {hi})",
                      lambda d, lo=lo, hi=hi: lo < d <= hi, highlights, notes))
    if args.since:
        lo, hi = dt.date.fromisoformat(args.since), dt.date.fromisoformat(args.until)
        highlights, notes = set(), set()
        for _, _, sections in dated:
            for s, prs in sections.items():
                notes |= prs
                if "highlight" in s:
                    highlights |= prs
        pools.append((f"window {lo} .. {hi}, positives from every release",
                      lambda d, lo=lo, hi=hi: lo <= d <= hi, highlights, notes))
    for title, within, highlights, notes in pools:
        pool = [c for c in rows if within(day_of(c["merged_at"])) and c["id"] in facts]
        judged = [c for c in pool if c["id"] in triage]
        print(f"{title}: {len(pool)} PRs, {len(judged)} triaged; "
              f"{sum(c['number'] in highlights for c in pool)} highlighted, "
              f"{sum(c['number'] in notes for c in pool)} named in the notes")
        if not judged:
            continue

        def tri(c):
            t = triage.get(c["id"])
            return (t["importance"], -t["rank"]) if t else (0, 0)

        def ana(c):
            s = facts[c["id"]]["scores"]
            return (s["importance"], s["insight"])

        def size(c):
            return c["additions"] + c["deletions"]

        for pos_name, pos in (("highlights", highlights), ("notes", notes)):
            lab = [c["number"] in pos for c in pool]
            k = sum(lab)
            if not k:
                continue
            line = [f"  vs {pos_name:<10} k={k:>3}"]
            for sname, fn in (("triage", tri), ("analysis", ana), ("changed lines", size)):
                sc = [fn(c) for c in pool]
                # AUC over tuples: rank them into one number first.
                ranks = {v: i for i, v in enumerate(sorted(set(sc)))}
                a = fl.auc([ranks[v] for v in sc], lab)
                hits = top_hits(sc, lab, k)
                line.append(f"{sname} AUC {a:.3f} top-{k} {hits} (P@k {hits / k:.2f})")
            print(" | ".join(line))
        imp = collections.Counter(triage[c["id"]]["importance"] for c in judged)
        high = sum(n for v, n in imp.items() if v >= 9)
        ver = collections.Counter(triage[c["id"]]["verdict"] for c in judged)
        a_high = sum(1 for c in judged if facts[c["id"]]["scores"]["importance"] >= 9)
        print(f"  triage importance 9-10: {high} of {len(judged)} ({100 * high / len(judged):.1f} %)"
              f"; analysis 9-10: {a_high} ({100 * a_high / len(judged):.1f} %)")
        print("  triage importance histogram (1..10): "
              + ", ".join(str(imp.get(v, 0)) for v in range(1, 11)))
        print("  triage verdicts close/selective/skim/skip: "
              + " / ".join(str(ver.get(v, 0)) for v in ("close_read", "selective_read", "skim",
                                                         "skip")))
    print("command:", fl.command_line(sys.argv))


if __name__ == "__main__":
    main()
