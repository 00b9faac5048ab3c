#!/usr/bin/env python3
"""Importance against a project's own release highlights (ROC AUC), beside
changed lines (the naive baseline), in the same run.

The release notes are read from the clone at the branch tip (a Markdown file
with '## <version>' releases and '### <section>' sections naming PRs as #N or
/pull/N). Positives: PRs named in a "Highlights" section ("highlights"), or
named anywhere in the notes ("notes"). The universe: every stored PR with
facts merged between the first and the last release date. Never point this at
sglang: its release notes are held out for judging.

  python3 bench/judgment/importance.py --db DB --repo vllm-project/vllm-ascend \
      --clone CLONE [--notes docs/source/user_guide/release_notes.md] [--split DATE]
"""

import argparse
import datetime as dt
import re
import subprocess
import sys

import facts_lib as fl

RELEASE = re.compile(r"^##\s+(v?[\w.\-]+)\s*(?:[-–]\s*(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2}))?")
SECTION = re.compile(r"^###\s+(.*)$")
PR = re.compile(r"(?:/pull/|#)(\d{2,6})\b")


def parse_notes(text):
    """[(version, date or None, {section: set(PR numbers)})]"""
    releases = []
    cur = None
    section = ""
    for line in text.splitlines():
        m = RELEASE.match(line)
        if m:
            date = None
            if m.group(2):
                date = dt.date(int(m.group(2)), int(m.group(3)), int(m.group(4)))
            cur = (m.group(1), date, {})
            releases.append(cur)
            section = ""
            continue
        m = SECTION.match(line)
        if m:
            section = m.group(1).strip().lower()
            continue
        if cur is not None:
            for n in PR.findall(line):
                cur[2].setdefault(section, set()).add(int(n))
    return releases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--clone", required=True)
    ap.add_argument("--branch", default="main")
    ap.add_argument("--notes", default="docs/source/user_guide/release_notes.md")
    ap.add_argument("--split", help="also report PRs merged before / from this date (YYYY-MM-DD)")
    ap.add_argument("--list", type=int, default=0, help="print the N highest-ranked misses")
    args = ap.parse_args()
    if "sglang" in args.repo.lower():
        sys.exit("sglang's release notes are held out: use another repository")

    text = subprocess.run(["git", "-C", args.clone, "show", f"{args.branch}:{args.notes}"],
                          capture_output=True, text=True, check=True).stdout
    releases = parse_notes(text)
    dates = [d for _, d, _ in releases if d]
    lo, hi = min(dates), max(dates)
    highlights, notes = set(), set()
    for _, _, sections in releases:
        for name, prs in sections.items():
            notes |= prs
            if "highlight" in name:
                highlights |= prs

    con = fl.connect(args.db)
    rows = [c for c in fl.changes(con, args.repo) if c["number"]]
    rows = [c for c in rows
            if lo <= dt.datetime.fromtimestamp(c["merged_at"], dt.timezone.utc).date() <= hi]
    facts = fl.facts(con, [c["id"] for c in rows])
    rows = [c for c in rows if c["id"] in facts]

    def report(label, subset):
        imp = [facts[c["id"]]["scores"]["importance"] for c in subset]
        size = [c["additions"] + c["deletions"] for c in subset]
        for name, pos in (("highlights", highlights), ("notes", notes)):
            lab = [c["number"] in pos for c in subset]
            a_imp, a_size = fl.auc(imp, lab), fl.auc(size, lab)
            print(f"{label:<22} {name:<10} PRs {len(subset):>5}  positives {sum(lab):>4}  "
                  f"AUC importance {a_imp:.3f}  changed lines {a_size:.3f}  "
                  f"ratio {a_imp / a_size:.3f}")

    print(f"repository {args.repo}: {len(releases)} releases {lo} .. {hi}, "
          f"{len(highlights)} PRs in highlights, {len(notes)} named in the notes")
    report("all", rows)
    if args.split:
        cut = dt.date.fromisoformat(args.split)
        day = lambda c: dt.datetime.fromtimestamp(c["merged_at"], dt.timezone.utc).date()
        report(f"before {cut}", [c for c in rows if day(c) < cut])
        report(f"from {cut}", [c for c in rows if day(c) >= cut])
    if args.list:
        neg = sorted((c for c in rows if c["number"] not in notes),
                     key=lambda c: -facts[c["id"]]["scores"]["importance"])[:args.list]
        print("highest-ranked PRs not in the notes:")
        for c in neg:
            f = facts[c["id"]]
            print(f"  #{c['number']} imp {f['scores']['importance']} +{c['additions']} "
                  f"-{c['deletions']} {c['title'][:70]}")
        pos = sorted((c for c in rows if c["number"] in highlights),
                     key=lambda c: facts[c["id"]]["scores"]["importance"])[:args.list]
        print("lowest-ranked highlights:")
        for c in pos:
            f = facts[c["id"]]
            print(f"  #{c['number']} imp {f['scores']['importance']} +{c['additions']} "
                  f"-{c['deletions']} {c['title'][:70]}  {f['scores']['importance_reasons']}")
    print("command:", fl.command_line(sys.argv))


if __name__ == "__main__":
    main()
