#!/usr/bin/env python3
"""Tags a reader can use: tags per PR (median, p90, max) and the recall of
the authors' own title tags when the analysis does not see them.

The authors' tags of a PR are the tags the analysis of the original title
gives from a bracketed or conventional-commit prefix ("[AMD][Fix] ..." or
"fix(amd): ..." -> amd, bugfix): the prefixes our taxonomy knows (a bare first
word such as "Fix ..." is not an authors' tag: it stays in the stripped title). The script copies the store, strips every bracketed or
conventional-commit prefix from the titles, re-analyses the copy
(`analyze --force`) and counts how many of those tags come back. In the same
run, a naive baseline tags a PR with every taxonomy tag whose name is a word
of the stripped title.

  python3 bench/judgment/tags.py --db DB --mergelens build/mergelens [--repo NAME]
      [--last 2000] [--work /tmp/tags.db]
"""

import argparse
import collections
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import facts_lib as fl

PREFIX = re.compile(r"^\s*(?:\[[^\]]{1,60}\]\s*|\([^)]{1,30}\)\s*)+")
CONVENTIONAL = re.compile(r"^\s*[A-Za-z][\w-]{0,23}(?:\([^)]{0,40}\))?!?:\s+")


def strip_prefixes(title):
    t = PREFIX.sub("", title)
    t = CONVENTIONAL.sub("", t)
    return t.strip() or title


def prefix_words(title):
    """Word form of the title's bracket tags and conventional type(scope) (what authors wrote)."""
    out = []
    m = PREFIX.match(title)
    if m:
        out.append(m.group(0))
        title = title[m.end():]
    m = CONVENTIONAL.match(title)
    if m:
        out.append(m.group(0))
    return " " + " ".join(re.findall(r"[a-z0-9]+", " ".join(out).lower())) + " "


def authors_tags(title, tags):
    """Tags the analysis of the original title gave from a prefix the authors wrote in brackets or
    as a conventional type, not from a bare first word."""
    pw = prefix_words(title)
    out = set()
    for t in tags:
        if t["source"] != "prefix":
            continue
        rule = " " + " ".join(re.findall(r"[a-z0-9]+", t["rule"].lower())) + " "
        if rule.strip() and rule in pw:
            out.add(t["name"])
    return out


def words(text):
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--mergelens", required=True)
    ap.add_argument("--repo")
    ap.add_argument("--last", type=int, default=2000)
    ap.add_argument("--work", default="/tmp/mergelens-tags.db")
    ap.add_argument("--misses", type=int, default=0, help="print N missed authors' tags")
    args = ap.parse_args()

    con = fl.connect(args.db)
    rows = fl.changes(con, args.repo, args.last)
    orig = fl.facts(con, [c["id"] for c in rows])
    con.close()
    rows = [c for c in rows if c["id"] in orig]

    shutil.copyfile(args.db, args.work)
    for ext in ("-wal", "-shm"):
        if os.path.exists(args.work + ext):
            os.unlink(args.work + ext)
    w = sqlite3.connect(args.work)
    for c in rows:
        w.execute("UPDATE changes SET title=? WHERE id=?", (strip_prefixes(c["title"]), c["id"]))
    w.commit()
    w.close()
    cmd = [args.mergelens, "--db", args.work]
    if args.repo:
        cmd += ["--repo", args.repo]
    subprocess.run(cmd + ["analyze", "--force"], check=True, stdout=subprocess.DEVNULL)
    wc = fl.connect(args.work)
    stripped = fl.facts(wc, [c["id"] for c in rows])

    all_tags = set()
    for f in orig.values():
        all_tags |= {t["name"] for t in f["tags"]}
    expected = found = base_found = 0
    per_tag = collections.Counter()
    per_tag_hit = collections.Counter()
    misses = []
    for c in rows:
        authors = authors_tags(c["title"], orig[c["id"]]["tags"])
        if not authors:
            continue
        got = {t["name"] for t in stripped[c["id"]]["tags"]}
        title_words = words(strip_prefixes(c["title"]))
        for t in authors:
            expected += 1
            per_tag[t] += 1
            if t in got:
                found += 1
                per_tag_hit[t] += 1
            else:
                misses.append((c, t))
            base_found += t in title_words or t.replace("-", " ") in " ".join(sorted(title_words))
    counts = [len(stripped[c["id"]]["tags"]) for c in rows]
    base_counts = [len({t for t in all_tags if t in words(strip_prefixes(c["title"]))})
                   for c in rows]
    hist = collections.Counter(counts)
    with_tags = sum(1 for c in rows if authors_tags(c["title"], orig[c["id"]]["tags"]))
    print(f"{len(rows)} changes, {with_tags} with authors' tags our taxonomy knows "
          f"({expected} tags)")
    print(f"mergelens tags per PR: median {fl.quantile(counts, 0.5)}, p90 {fl.quantile(counts, 0.9)}, "
          f"max {max(counts)}; over 6: {sum(1 for n in counts if n > 6) / len(counts):.1%}; "
          "histogram " + ", ".join(f"{k}:{hist[k]}" for k in sorted(hist)))
    print(f"baseline (tag names in the title) per PR: median {fl.quantile(base_counts, 0.5)}, "
          f"p90 {fl.quantile(base_counts, 0.9)}, max {max(base_counts)}")
    print(f"recall of authors' tags: mergelens {found}/{expected} = {found / max(1, expected):.3f}; "
          f"baseline {base_found}/{expected} = {base_found / max(1, expected):.3f}")
    print("per tag (recall, count): " + ", ".join(
        f"{t} {per_tag_hit[t] / per_tag[t]:.2f} ({per_tag[t]})" for t, _ in per_tag.most_common()))
    # Precision of the kinds of change, on the PRs whose authors named a kind: there a missing
    # kind is the authors' word against ours (on other PRs, the authors said nothing).
    kinds = ("bugfix", "perf", "feature", "refactor", "ci", "docs")
    said = {k: 0 for k in kinds}
    agreed = {k: 0 for k in kinds}
    for c in rows:
        authors = authors_tags(c["title"], orig[c["id"]]["tags"])
        if not authors & set(kinds):
            continue
        got = {t["name"] for t in stripped[c["id"]]["tags"]}
        for k in kinds:
            if k in got:
                said[k] += 1
                agreed[k] += k in authors
    print("precision of kinds on PRs whose authors named a kind (agreed/tagged): " + ", ".join(
        f"{k} {agreed[k] / said[k]:.2f} ({agreed[k]}/{said[k]})" for k in kinds if said[k]))
    for c, t in misses[:args.misses]:
        print(f"  miss {t}: #{c['number']} {c['title'][:90]}")
    print("command:", fl.command_line(sys.argv))


if __name__ == "__main__":
    main()
