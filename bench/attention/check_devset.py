#!/usr/bin/env python3
"""Re-validate a reviewer-attention devset against a clone and print its counts.

For every PR: the merge sha must exist and its subject must end with "(#N)".
For every usable comment: the path must be in the final diff of the merge
commit and `line` must lie in, or within 3 lines of, a hunk of
`git show -U3 <merge_sha>` (new-file side).

Python 3 standard library and git only.

  python3 bench/attention/check_devset.py --clone CLONE [--devset devset-flashinfer.json]
"""

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eval import HUNK_RE, SLACK, git  # noqa: E402  (the same diff reading as the scorer)


def strip_prefix(p):
    p = p.rstrip("\t\n")
    if p == "/dev/null":
        return None
    return p[2:] if p[:2] in ("a/", "b/") else p


def diff_info(clone, sha):
    """Return ({path: [(start, end)]}, set(added paths), number of hunks)."""
    text = git(clone, "show", "-U3", "--format=", "--no-color", "--no-ext-diff", sha)
    hunks = collections.defaultdict(list)
    added = set()
    old = new = None
    in_hunk = False
    n = 0
    for line in text.splitlines():
        if line.startswith("diff --git "):
            old = new = None
            in_hunk = False
            continue
        if not in_hunk and line.startswith("--- "):
            old = strip_prefix(line[4:])
            continue
        if not in_hunk and line.startswith("+++ "):
            new = strip_prefix(line[4:])
            if old is None and new is not None:
                added.add(new)
            continue
        m = HUNK_RE.match(line)
        if m:
            in_hunk = True
            n += 1
            if new is not None:
                start = int(m.group(3))
                count = int(m.group(4)) if m.group(4) is not None else 1
                hunks[new].append((start, start + count - 1 if count > 0 else start))
    return hunks, added, n


def is_doc(path):
    return path.startswith("docs/") or path.endswith((".md", ".rst"))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clone", required=True, help="bare clone of the devset repository")
    ap.add_argument("--devset", default=os.path.join(here, "devset-flashinfer.json"))
    args = ap.parse_args()

    with open(args.devset, encoding="utf-8") as fh:
        devset = json.load(fh)

    errors = []
    n_comments = n_usable = n_human = 0
    mapped = collections.Counter()
    reviewers = collections.Counter()
    docs = code = in_added = 0
    prs_usable = 0
    prs_big = 0
    dates = []
    for pr in devset["prs"]:
        num, sha = pr["number"], pr["merge_sha"]
        subject = git(args.clone, "show", "-s", "--format=%s", sha).strip()
        if not subject.endswith(f"(#{num})"):
            errors.append(f"#{num}: merge sha subject does not end with (#{num})")
        hunks, added, nh = diff_info(args.clone, sha)
        usable_here = 0
        for c in pr["comments"]:
            n_comments += 1
            if len(c.get("gist", "").split()) > 10:
                errors.append(f"#{num} {c['path']}: gist longer than 10 words")
            if not c.get("usable"):
                if not c.get("reason"):
                    errors.append(f"#{num} {c['path']}: unusable comment without reason")
                continue
            path, line = c["path"], c.get("line")
            if path not in hunks:
                errors.append(f"#{num} {path}: path not in final diff")
                continue
            if line is None or not any(s - SLACK <= line <= e + SLACK for s, e in hunks[path]):
                errors.append(f"#{num} {path}:{line}: not within {SLACK} lines of a hunk")
                continue
            if c.get("mapped_by") == "manual" and not c.get("note"):
                errors.append(f"#{num} {path}:{line}: manual placement without note")
            usable_here += 1
            n_usable += 1
            if c.get("reviewer_kind") == "human":
                n_human += 1
            reviewers[c.get("reviewer") or "(unknown)"] += 1
            mapped[c.get("mapped_by")] += 1
            if is_doc(path):
                docs += 1
            else:
                code += 1
            if path in added:
                in_added += 1
        if usable_here:
            prs_usable += 1
            dates.append(pr["merged"])
            if nh > 3:
                prs_big += 1

    n_bot = n_usable - n_human
    print(f"devset: {devset.get('repo')}  ({args.devset})")
    print("| | |")
    print("|---|---|")
    print(f"| PRs (each with at least one usable comment) | **{prs_usable}**"
          + (f" (merged {min(dates)[:7]} … {max(dates)[:7]})" if dates else "") + " |")
    print(f"| review comments recorded | {n_comments} |")
    print(f"| usable comments (placed on a new-file line of the final diff) | **{n_usable}** "
          f"({n_human} by human reviewers, {n_bot} by bots) |")
    print("| how usable lines were placed | "
          + ", ".join(f"{mapped[k]} {k}" for k in ("exact", "content", "manual", "left-anchor")
                      if mapped[k]) + " |")
    print(f"| comments on docs (`docs/`, `*.md`, `*.rst`) vs code/CI/tests | {docs} / {code} |")
    print(f"| usable comments in files the PR adds | {in_added} |")
    print(f"| PRs with more than 3 hunks in the final diff | {prs_big} of {prs_usable} |")
    print("reviewers (usable comments): "
          + ", ".join(f"{r} {k}" for r, k in reviewers.most_common()))
    st = devset.get("stats", {})
    if st and (st.get("prs") != prs_usable or st.get("usable") != n_usable
               or st.get("comments") != n_comments or st.get("usable_human") != n_human):
        errors.append(f"stats block disagrees with recount: {st}")
    if errors:
        print(f"\n{len(errors)} problem(s):")
        for e in errors:
            print("  " + e)
        sys.exit(1)
    print("\nall usable comments re-validated against the clone: OK")


if __name__ == "__main__":
    main()
