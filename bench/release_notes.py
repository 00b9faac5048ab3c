#!/usr/bin/env python3
"""A release-notes draft beside the notes a project published for that release.

Drafts `mergelens notes` for the range of one release of a repository whose
tags sit on release branches (vllm-ascend): from the merge base of the
previous release with the main branch to the merge base of the release, i.e.
the first-parent merges of main that the release branched with. Then reads
the project's own notes for that release (a "## vX - date" section of a
Markdown file in the repository at the branch's tip) and prints:

- how many PRs their Highlights name, how many of those are in the draft's
  Highlights, in the draft at all, and merged on main inside the range;
- how many lines the draft has against theirs (non-empty lines of the section).

Usage: bench/release_notes.py --binary build/src/mergelens --db COPY.db
       [--repo PATH] [--prev v0.22.1rc1] [--release v0.23.0rc1]
The repository defaults to $MERGELENS_VA_REPO. Never point it at sglang.
"""
import argparse
import json
import os
import re
import subprocess
import sys

PR = re.compile(r"/pull/(\d+)")


def git(repo, *a):
    return subprocess.run(["git", "-C", repo, *a], check=True, capture_output=True,
                          text=True).stdout.strip()


def section(text, release):
    """The lines of the '## release ...' section (up to the next '## ')."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            if inside:
                break
            inside = line[3:].split()[0] == release
            continue
        if inside:
            out.append(line)
    return out


def subsection(lines, title):
    out, inside = [], False
    for line in lines:
        if line.startswith("### "):
            inside = line[4:].strip().lower() == title.lower()
            continue
        if inside:
            out.append(line)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--db", required=True)
    p.add_argument("--repo", default=os.environ.get("MERGELENS_VA_REPO"))
    p.add_argument("--branch", default="main")
    p.add_argument("--prev", default="v0.22.1rc1")
    p.add_argument("--release", default="v0.23.0rc1")
    p.add_argument("--notes-file", default="docs/source/user_guide/release_notes.md")
    p.add_argument("--lang", default="en")
    p.add_argument("--web-base", default="https://github.com/vllm-project/vllm-ascend")
    p.add_argument("--out", help="write the draft (Markdown) here")
    a = p.parse_args()
    if not a.repo:
        sys.exit("set --repo or MERGELENS_VA_REPO")
    if "sglang" in a.repo.lower():
        sys.exit("sglang's release notes are held out")
    start = git(a.repo, "merge-base", a.prev, a.branch)
    end = git(a.repo, "merge-base", a.release, a.branch)
    base = [a.binary, "--db", a.db, "notes", "--from", start, "--to", end, "--git", a.repo,
            "--lang", a.lang, "--web-base", a.web_base]
    draft_md = subprocess.run(base, check=True, capture_output=True, text=True).stdout
    draft = json.loads(subprocess.run(base + ["--format", "json"], check=True,
                                      capture_output=True, text=True).stdout)
    if a.out:
        with open(a.out, "w") as f:
            f.write(draft_md)
    theirs = section(git(a.repo, "show", f"{a.branch}:{a.notes_file}"), a.release)
    if not theirs:
        sys.exit(f"no '## {a.release}' section in {a.notes_file}")
    highlighted = []
    for line in subsection(theirs, "Highlights"):
        for n in PR.findall(line):
            if int(n) not in highlighted:
                highlighted.append(int(n))
    def numbers(entries):
        return {int(e["ref"][1:]) for e in entries if e["ref"].startswith("#")}
    in_highlights = numbers(draft["highlights"])
    everywhere = numbers(draft["highlights"] + draft["skipped"] +
                         [e for s in draft["sections"] for e in s["entries"]])
    theirs_lines = [ln for ln in theirs if ln.strip()]
    draft_lines = [ln for ln in draft_md.splitlines() if ln.strip()]
    hits = [n for n in highlighted if n in in_highlights]
    print(f"release {a.release} (range {start[:10]}..{end[:10]} on {a.branch}): "
          f"{draft['merged']} changes in the draft")
    print(f"their Highlights name {len(highlighted)} PRs: {len(hits)} in the draft's Highlights "
          f"{hits}, {sum(n in everywhere for n in highlighted)} in the draft at all "
          f"(the rest merged outside the range on {a.branch} or on the release branch)")
    print(f"draft Highlights: {sorted(in_highlights)}")
    print(f"lines (non-empty): draft {len(draft_lines)}, theirs {len(theirs_lines)}")


if __name__ == "__main__":
    main()
