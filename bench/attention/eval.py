#!/usr/bin/env python3
"""Score focus regions against real reviewer attention (bench/attention/devset.json).

For every PR of the development set this computes:

  * the baseline "3 largest hunks": parse `git show -U3 --format= <merge_sha>`,
    size a hunk by its added + removed lines, and take the new-file line ranges
    of the three largest hunks across all files of the PR;
  * mergelens's top-3 focus regions (with --mergelens): the first three entries
    of the `focus` array printed by `BIN --db DB show #N --json`;
  * hit@3: 1 if any usable commented line of the PR lies within 3 lines of one
    of the three regions (same path, start_line-3 <= line <= end_line+3).

It prints the number of PRs and comments used, hit@3 of the baseline and of
mergelens (share of PRs) and the command line that produced them.

Python 3 standard library only.

  python3 bench/attention/eval.py --clone PATH --devset bench/attention/devset.json \
      [--mergelens BIN --db DB [--ingest]] [--human-only] [--per-pr]
"""

import argparse
import datetime as dt
import json
import re
import shlex
import subprocess
import sys

TOP_K = 3
SLACK = 3
HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def git(clone, *args):
    res = subprocess.run(["git", "-C", clone, *args], capture_output=True, text=True,
                         errors="replace")
    if res.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {res.stderr.strip()}")
    return res.stdout


def unquote_path(p):
    """Strip the a/ b/ prefix git puts on diff paths (and C-style quotes)."""
    p = p.rstrip("\t\n")
    if p.startswith('"') and p.endswith('"'):
        p = bytes(p[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode(
            "utf-8", "replace")
    if p == "/dev/null":
        return None
    if p[:2] in ("a/", "b/"):
        p = p[2:]
    return p


def parse_hunks(diff_text):
    """Return [(path, new_start, new_end, size, order)] for every hunk of a unified diff.

    path is the new-file path; hunks of deleted files (+++ /dev/null) are skipped since
    their lines do not exist in the new file. size = added + removed lines.
    """
    hunks = []
    path = None
    cur = None  # [path, new_start, new_count, added, removed]
    order = 0

    def flush():
        nonlocal cur, order
        if cur is not None and cur[0] is not None:
            p, ns, nc, add, rem = cur
            end = ns + nc - 1 if nc > 0 else ns
            hunks.append((p, ns if nc > 0 else max(ns, 1), max(end, 1), add + rem, order))
            order += 1
        cur = None

    for line in diff_text.splitlines():
        if line.startswith("diff --git "):
            flush()
            path = None
            continue
        if cur is None or not line or line[0] not in " +-\\":
            if line.startswith("+++ "):
                path = unquote_path(line[4:])
                continue
            if line.startswith("--- "):
                continue
        m = HUNK_RE.match(line)
        if m:
            flush()
            ns = int(m.group(3))
            nc = int(m.group(4)) if m.group(4) is not None else 1
            cur = [path, ns, nc, 0, 0]
            continue
        if cur is None:
            continue
        if line.startswith("+"):
            cur[3] += 1
        elif line.startswith("-"):
            cur[4] += 1
    flush()
    return hunks


def pr_hunks(clone, sha):
    diff = git(clone, "show", "-U3", "--format=", "--no-color", "--no-ext-diff", sha)
    return parse_hunks(diff)


def baseline_regions(hunks, k=TOP_K):
    hunks = sorted(hunks, key=lambda h: (-h[3], h[4]))  # largest first, ties in diff order
    return [{"path": p, "start_line": s, "end_line": e} for (p, s, e, _sz, _o) in hunks[:k]]


class MergelensRunner:
    def __init__(self, binary, db, repo):
        self.binary = binary
        self.db = db
        self.repo = repo
        self.missing_focus_warned = False
        self.failed = []
        self.cache = {}

    def base(self):
        cmd = [self.binary, "--db", self.db]
        if self.repo:
            cmd += ["--repo", self.repo]
        return cmd

    def show(self, number):
        if number in self.cache:
            return self.cache[number], None
        doc, err = self._show(number)
        if doc is not None:
            self.cache[number] = doc
        return doc, err

    def _show(self, number):
        cmd = self.base() + ["show", f"#{number}", "--json"]
        res = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        if res.returncode != 0:
            return None, res.stderr.strip() or f"exit {res.returncode}"
        try:
            return json.loads(res.stdout), None
        except json.JSONDecodeError as e:
            return None, f"bad JSON: {e}"

    def has_pr(self, number):
        doc, _err = self.show(number)
        return doc is not None

    def ingest(self, clone, since):
        cmd = self.base() + ["ingest", clone, "--since", since]
        print("ingesting:", " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
        res = subprocess.run(cmd, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"mergelens ingest failed with exit {res.returncode}")

    def regions(self, number, k=TOP_K):
        doc, err = self.show(number)
        if doc is None:
            self.failed.append((number, err))
            return []
        if not isinstance(doc, dict) or "focus" not in doc:
            if not self.missing_focus_warned:
                print("note: `show --json` has no `focus` key; such PRs count as misses",
                      file=sys.stderr)
                self.missing_focus_warned = True
            return []
        out = []
        for f in (doc.get("focus") or [])[:k]:
            try:
                out.append({"path": f["path"], "start_line": int(f["start_line"]),
                            "end_line": int(f["end_line"])})
            except (KeyError, TypeError, ValueError):
                continue
        return out


def hit(regions, lines):
    """1 if any (path, line) lies within SLACK lines of one of the regions."""
    for path, line in lines:
        for r in regions:
            if r["path"] == path and r["start_line"] - SLACK <= line <= r["end_line"] + SLACK:
                return 1
    return 0


def hit_within(regions, lines, budget):
    """1 if a reader who reads the regions in order, each from its first line, reaches a
    commented line (within SLACK) before reading `budget` lines in all."""
    spent = 0
    for r in regions:
        for path, line in lines:
            if r["path"] == path and r["start_line"] - SLACK <= line <= r["end_line"] + SLACK:
                if spent + max(0, line - r["start_line"]) < budget:
                    return 1
        spent += r["end_line"] - r["start_line"] + 1
        if spent >= budget:
            break
    return 0


def lines_read(regions):
    """Lines a reader reads in the regions (their new-file extents, overlaps once)."""
    seen = set()
    for r in regions:
        seen.update((r["path"], n) for n in range(r["start_line"], r["end_line"] + 1))
    return len(seen)


def median(xs):
    xs = sorted(xs)
    if not xs:
        return 0
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


def oldest_since(clone, shas):
    """Oldest committer date among the merge commits, minus one day (YYYY-MM-DD)."""
    dates = []
    for sha in shas:
        iso = git(clone, "show", "-s", "--format=%cI", sha).strip()
        dates.append(dt.datetime.fromisoformat(iso).astimezone(dt.timezone.utc).date())
    return (min(dates) - dt.timedelta(days=1)).isoformat()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clone", required=True, help="local (bare) clone of the devset repository")
    ap.add_argument("--devset", default="bench/attention/devset.json")
    ap.add_argument("--mergelens", help="mergelens binary; scores its top-3 focus regions")
    ap.add_argument("--db", help="mergelens database (required with --mergelens)")
    ap.add_argument("--repo", help="repository name in the store (default: devset 'repo')")
    ap.add_argument("--ingest", action="store_true",
                    help="with --mergelens: ingest the clone first if the DB lacks the PRs")
    ap.add_argument("--human-only", action="store_true",
                    help="ignore comments written by bots (e.g. gemini-code-assist)")
    ap.add_argument("--min-hunks", type=int, default=0,
                    help="only score PRs whose diff has at least this many hunks "
                         "(PRs with <= 3 hunks are trivially covered by the baseline)")
    ap.add_argument("--budget", type=int, default=200,
                    help="lines a reader reads, for the hit-within-budget figure (default 200)")
    ap.add_argument("--per-pr", action="store_true", help="print one line per PR")
    args = ap.parse_args()
    if args.mergelens and not args.db:
        ap.error("--mergelens needs --db")

    with open(args.devset, encoding="utf-8") as fh:
        devset = json.load(fh)
    repo = args.repo or devset.get("repo")

    items = []
    for pr in devset["prs"]:
        lines = [(c["path"], int(c["line"])) for c in pr["comments"]
                 if c.get("usable") and c.get("line") is not None
                 and not (args.human_only and c.get("reviewer_kind") == "bot")]
        if lines:
            items.append((pr, lines))

    ml = None
    if args.mergelens:
        ml = MergelensRunner(args.mergelens, args.db, repo)
        if args.ingest:
            missing = [pr["number"] for pr, _ in items if not ml.has_pr(pr["number"])]
            if missing:
                since = oldest_since(args.clone, [pr["merge_sha"] for pr, _ in items])
                print(f"{len(missing)} devset PRs missing from {args.db}", file=sys.stderr)
                ml.ingest(args.clone, since)

    hunks_of = {pr["number"]: pr_hunks(args.clone, pr["merge_sha"]) for pr, _ in items}
    items = [(pr, lines) for pr, lines in items if len(hunks_of[pr["number"]]) >= args.min_hunks]

    base_hits = ml_hits = 0
    base_read, ml_read = [], []
    base_budget = ml_budget = 0  # hits within the first BUDGET lines read  # lines inside the three regions (what a reader reads)
    n_comments = 0
    big = big_hits = 0  # PRs with more than TOP_K hunks, where the ranking actually matters
    for pr, lines in items:
        n_comments += len(lines)
        hunks = hunks_of[pr["number"]]
        b = hit(baseline_regions(hunks), lines)
        base_read.append(lines_read(baseline_regions(hunks)))
        base_budget += hit_within(baseline_regions(hunks, len(hunks)), lines, args.budget)
        base_hits += b
        if len(hunks) > TOP_K:
            big += 1
            big_hits += b
        m = None
        if ml:
            regs = ml.regions(pr["number"])
            m = hit(regs, lines)
            ml_read.append(lines_read(regs))
            ml_budget += hit_within(ml.regions(pr["number"], 8), lines, args.budget)
            ml_hits += m
        if args.per_pr:
            print(f"#{pr['number']:<6} hunks={len(hunks):<4} comments={len(lines):<2} baseline={b}"
                  + ("" if m is None else f" mergelens={m}"))

    n = len(items)
    cmd = " ".join(shlex.quote(a) for a in ["python3"] + sys.argv)
    print(f"devset: {devset.get('repo')}  PRs used: {n}  usable comments used: {n_comments}"
          + ("  (human reviewers only)" if args.human_only else "")
          + (f"  (PRs with >= {args.min_hunks} hunks)" if args.min_hunks else ""))
    print(f"baseline (3 largest hunks) hit@3: {base_hits}/{n} = {base_hits / n:.3f}" if n
          else "baseline hit@3: n/a (no PRs)")
    if n:
        print(f"  lines in the three regions, median: {median(base_read)}")
        print(f"  hit within the first {args.budget} lines read (hunks largest first): "
              f"{base_budget}/{n} = {base_budget / n:.3f}")
        print(f"  of which PRs with more than {TOP_K} hunks: {big}, baseline hit@3 on them: "
              f"{big_hits}/{big}" + (f" = {big_hits / big:.3f}" if big else ""))
    if ml:
        print(f"mergelens top-3 focus hit@3:      {ml_hits}/{n} = {ml_hits / n:.3f}" if n
              else "mergelens hit@3: n/a")
        if n:
            print(f"  lines in the three regions, median: {median(ml_read)}")
            print(f"  hit within the first {args.budget} lines read (focus regions in order): "
                  f"{ml_budget}/{n} = {ml_budget / n:.3f}")
        if ml.failed:
            print(f"note: `show` failed for {len(ml.failed)} PR(s), counted as misses "
                  f"(first: #{ml.failed[0][0]}: {ml.failed[0][1]})")
    print(f"command: {cmd}")


if __name__ == "__main__":
    main()
