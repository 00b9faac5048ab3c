#!/usr/bin/env python3
"""Writes one careful-reader request per PR: the published statements of its
offline guides (statements.py's table) and where to read the diff and the code
at the parent revision. A reader (a helper session with git, no mergelens)
answers each statement with one class:

  true | false | misleading | unsupported | generic | broken

usage: reader_requests.py --statements FILE.tsv [FILE.tsv ...] --mirrors DIR --prs audit-prs.tsv --out DIR
The requests quote the guides, which quote the repositories' comments: they are
written outside version control (bench/offline_audit/requests/ is ignored).
"""
import argparse, csv, os

INSTRUCTIONS = """You are a careful reader checking a reading guide that a tool wrote about one merged
pull request. Check every statement below against the pull request's diff and the code at its
parent revision, nothing else (no search, no other tool's opinion). Read the diff with

    git -C {mirror} show {sha}

and any file as it was before the change with

    git -C {mirror} show {sha}^:PATH

(and after it with `{sha}:PATH`). Classify each statement with exactly one word:

- true: what it says holds for this change (a question is true when what it presupposes holds);
- false: it states something that does not hold (a "new" switch that existed before, a file
  "without a test" whose test the PR adds, a pair of lines that are not one edit, ...);
- misleading: the words hold but leave a wrong impression (a figure quoted as a gain that is a
  setting, a minor detail presented as the point while the real change is not mentioned);
- unsupported: it may hold but nothing in the diff or the parent code shows it;
- generic: advice or a remark that would fit any pull request;
- broken: rendering is broken (an identifier cut mid-token, an empty code span, a placeholder,
  "1 files", a sentence cut off).

A statement and its Chinese translation count as one; judge the worse of the two. Answer as a
TSV with columns key, class, note (a few words on why, for anything but true).
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--statements", nargs="+", required=True)
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--prs", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    prs = {}
    with open(a.prs) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            repo = row["repo_mirror"].replace("+", "/", 1)
            prs[f"{repo}#{row['pr']}"] = (row["repo_mirror"], row["merge_sha"], row["subject"])
    rows = {}
    for path in a.statements:
        with open(path) as f:
            for line in f:
                key, pr, element, en, zh = line.rstrip("\n").split("\t")
                rows.setdefault(pr, []).append((key, element, en, zh))
    os.makedirs(a.out, exist_ok=True)
    for pr, items in rows.items():
        mirror_name, sha, subject = prs[pr]
        mirror = os.path.join(a.mirrors, mirror_name, "repo")
        name = pr.replace("/", "+").replace("#", "-")
        with open(os.path.join(a.out, name + ".md"), "w") as out:
            out.write(INSTRUCTIONS.format(mirror=mirror, sha=sha))
            out.write(f"\nPull request: {pr} ({subject}), merge commit {sha}\n\n")
            out.write("| key | element | English | Chinese |\n|---|---|---|---|\n")
            for key, element, en, zh in items:
                esc = lambda s: s.replace("|", "\\|")
                out.write(f"| {key} | {element} | {esc(en)} | {esc(zh)} |\n")
    print(f"{len(rows)} requests in {a.out}")


if __name__ == "__main__":
    main()
