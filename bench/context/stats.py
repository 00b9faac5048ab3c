"""bench/context: what the context holds per change, from a store's facts (zstd JSON).
Usage: stats.py STORE.db [SAMPLE_N] — prints the distribution of context items and
switches per change, and writes SAMPLE_N changes' context (seeded) for a hand check."""
import collections
import json
import random
import sqlite3
import subprocess
import sys


def docs(db):
    con = sqlite3.connect(db)
    rows = con.execute("SELECT c.number, c.sha, f.doc FROM facts f JOIN changes c ON c.id = f.change_id "
                       "ORDER BY c.merged_at, c.id").fetchall()
    for number, sha, doc in rows:
        out = subprocess.run(["zstd", "-dcq"], input=doc, capture_output=True, check=True).stdout
        yield number, sha, json.loads(out)


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else 0


def main():
    db = sys.argv[1]
    sample_n = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    items, switches, known, code = [], [], 0, 0
    by_why = collections.Counter()
    by_change = collections.Counter()
    rows = []
    for number, sha, f in docs(db):
        has_code = any(p.endswith((".py", ".cc", ".cu", ".h", ".cuh", ".cpp")) for p in f.get("languages", {}))
        if f.get("context_known"):
            known += 1
        if has_code:
            code += 1
            items.append(len(f.get("context", [])))
        switches.append(len(f.get("switches", [])))
        for c in f.get("context", []):
            by_why[c["why"]] += 1
        for s in f.get("switches", []):
            by_change[s["change"]] += 1
        rows.append((number, sha, f))
    n = len(rows)
    print(f"changes: {n}, context known: {known}, with code files: {code}")
    print(f"context items per change with code: mean {sum(items)/max(len(items),1):.2f}, "
          f"p50 {pct(items, .5)}, p90 {pct(items, .9)}, max {max(items or [0])}, "
          f"none: {sum(1 for x in items if x == 0)}")
    print("by kind: " + ", ".join(f"{k} {v}" for k, v in by_why.most_common()))
    print(f"switches per change: mean {sum(switches)/max(n,1):.2f}, changes with one: "
          f"{sum(1 for x in switches if x)}; " + ", ".join(f"{k} {v}" for k, v in by_change.most_common()))
    if sample_n:
        random.seed(31)
        pick = random.sample([r for r in rows if r[2].get("context") or r[2].get("switches")], sample_n)
        with open("context-sample.txt", "w") as out:
            for number, sha, f in pick:
                out.write(f"#{number} {sha}\n")
                for c in f.get("context", []):
                    out.write(f"  {c['why']:8} {c['kind']:8} {c['name']} {c['path']}:{c['start_line']}-{c['end_line']} "
                              f"({c['revision']}) at {c['at']}\n")
                for s in f.get("switches", []):
                    out.write(f"  switch {s['name']} {s['change']} existed={s['existed_at_parent']} "
                              f"default {s['default_before']} -> {s['default_after']} intro={s['introduced_by']}\n")
        print(f"sample of {sample_n} written to context-sample.txt")


main()
