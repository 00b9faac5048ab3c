#!/usr/bin/env python3
"""bench/context: a random sample of the "test" context items for a hand check.

Usage: test_items.py --seed N --items K --out EVIDENCE.txt --tsv SAMPLE.tsv STORE.db:CLONE [...]

A "test" item says: the test function at PATH:START-END at the merge, unchanged by the
change, calls TARGET (a definition the change edits) at the line AT. For each sampled item
this writes the evidence a checker needs from the clone: the test's lines at the merge, the
edited definition's lines at the parent, and the PR's diff stat of the test file (a test the
PR touches inside the range is not "unchanged"). SAMPLE.tsv gets one row per item with empty
verdict and note columns: correct (the test exists there, calls that very definition, and the
PR leaves it alone), wrong, or incomplete.
"""
import argparse
import json
import random
import sqlite3
import subprocess

from sample import git, lines  # the clone's text, as the other hand checks read it


def items(db):
    con = sqlite3.connect(db)
    rows = con.execute("SELECT c.number, c.sha, c.parent_sha, f.doc FROM facts f "
                       "JOIN changes c ON c.id = f.change_id ORDER BY c.merged_at, c.id").fetchall()
    for number, sha, parent, doc in rows:
        out = subprocess.run(["zstd", "-dcq"], input=doc, capture_output=True, check=True).stdout
        f = json.loads(out)
        ctx = f.get("context", [])
        changed = {c["name"]: c for c in ctx if c["why"] == "changed"}
        for it in ctx:
            if it["why"] == "test":
                yield number, sha, parent, it, changed.get(it.get("target", ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--items", type=int, default=30)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tsv", required=True)
    ap.add_argument("stores", nargs="+")
    a = ap.parse_args()
    pool = []
    for spec in a.stores:
        db, clone = spec.split(":", 1)
        for row in items(db):
            pool.append((db, clone) + row)
    print(f"{len(pool)} test items")
    rnd = random.Random(a.seed)
    pick = rnd.sample(pool, min(a.items, len(pool)))
    with open(a.out, "w") as out, open(a.tsv, "w") as tsv:
        tsv.write("n\trepo\tpr\tsha\ttest\tpath\tlines\tcall\ttarget\tverdict\tnote\n")
        for n, (db, clone, number, sha, parent, it, target) in enumerate(pick, 1):
            call = int(it["at"].rsplit(":", 1)[1])
            repo = clone.rstrip("/").split("/")[-2] if clone.endswith("/repo") else clone
            tsv.write(f"{n}\t{repo}\t{number}\t{sha}\t{it['name']}\t{it['path']}\t"
                      f"{it['start_line']}-{it['end_line']}\t{call}\t{it.get('target','')}\t\t\n")
            out.write(f"=== {n}. {repo} #{number} merge {sha} parent {parent}\n")
            out.write(f"item: test `{it['name']}` at {it['path']}:{it['start_line']}-{it['end_line']}"
                      f" (merge) calls `{it.get('target','')}` at line {call}\n")
            end = min(it["end_line"], it["start_line"] + 60)
            out.write(f"--- the test at the merge ({it['path']}:{it['start_line']}-{end}):\n")
            out.write(lines(clone, sha, it["path"], it["start_line"], end) + "\n")
            if call > end:
                out.write(f"--- around the call:\n{lines(clone, sha, it['path'], call - 2, call + 2)}\n")
            if target:
                t_end = min(target["end_line"], target["start_line"] + 25)
                out.write(f"--- the edited definition at the parent ({target['path']}:"
                          f"{target['start_line']}-{t_end}):\n")
                out.write(lines(clone, parent, target["path"], target["start_line"], t_end) + "\n")
            out.write(f"--- what the PR changes in {it['path']}:\n")
            out.write(git(clone, "diff", "--stat", parent, sha, "--", it["path"]) or "    nothing\n")
            out.write("\n")


if __name__ == "__main__":
    main()
