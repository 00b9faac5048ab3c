#!/usr/bin/env python3
"""Write the importance fit's labels (issue 32 item 5): for each repository of
labelled.tsv whose clone is at MIRROR/OWNER+NAME/repo, its release notes
(release_notes.py: Markdown or reStructuredText, a file or a directory) give
each release's pool (the PRs merged after the previous release's point and up
to its own: a tag's merge base with the branch, else the heading's date) and
the PRs its highlight sections name. Written to labels/OWNER+NAME.tsv, one
release a line: facts only (versions, times, PR numbers), no prose.

  python3 bench/judgment/labels.py --mirror /work/.mirror [--only NAME ...]

Never give it sglang: its release notes are held out for judging.
"""

import argparse
import datetime as dt
import os
import subprocess
import sys

import release_notes as rn

HERE = os.path.dirname(os.path.abspath(__file__))


def specs(path=os.path.join(HERE, "labelled.tsv")):
    """[{repo, branch, notes, highlight, since}] from labelled.tsv."""
    out = []
    with open(path) as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            repo, branch, notes, highlight, since = line.rstrip("\n").split("\t")
            out.append(dict(repo=repo, branch=branch, notes=notes, highlight=highlight,
                            since=since))
    return out


def label_path(repo):
    return os.path.join(HERE, "labels", repo.replace("/", "+") + ".tsv")


def iso(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write(spec, clone):
    releases = rn.read(clone, spec["branch"], spec["notes"], spec["repo"])
    points = rn.tag_points(clone, spec["branch"], {v for v, _, _ in releases})
    pools = rn.pools(releases, points, spec["highlight"])
    head = subprocess.run(["git", "-C", clone, "rev-parse", spec["branch"]],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(label_path(spec["repo"]), "w") as fh:
        fh.write(f"# {spec['repo']} {spec['notes']} at {spec['branch']} {head}; highlight "
                 f"sections /{spec['highlight']}/; a pool is (after, up to]\n")
        fh.write("version\tafter\tup_to\thighlights\tnamed\n")
        for p in pools:
            fh.write("\t".join([p["version"], iso(p["lo"]), iso(p["hi"]),
                                " ".join(map(str, sorted(p["highlights"]))),
                                " ".join(map(str, sorted(p["named"])))]) + "\n")
    n_top = sum(len(p["highlights"]) for p in pools)
    print(f"{spec['repo']}: {len(releases)} releases, {len(pools)} pools, "
          f"{sum(1 for p in pools if p['highlights'])} with highlights ({n_top} PRs named there)")


def read_labels(repo):
    """[{version, lo, hi (UTC seconds), highlights, named}] from labels/OWNER+NAME.tsv."""
    out = []
    with open(label_path(repo)) as fh:
        for line in fh:
            if line.startswith(("#", "version\t")):
                continue
            v, lo, hi, top, named = line.rstrip("\n").split("\t")
            ts = [int(dt.datetime.strptime(x, "%Y-%m-%dT%H:%M:%SZ")
                      .replace(tzinfo=dt.timezone.utc).timestamp()) for x in (lo, hi)]
            out.append(dict(version=v, lo=ts[0], hi=ts[1],
                            highlights={int(n) for n in top.split()},
                            named={int(n) for n in named.split()}))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", required=True, help="folder of OWNER+NAME/repo clones")
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    os.makedirs(os.path.join(HERE, "labels"), exist_ok=True)
    for spec in specs():
        if "sglang" in spec["repo"].lower():
            sys.exit("sglang's release notes are held out")
        if args.only and not any(o in spec["repo"] for o in args.only):
            continue
        clone = os.path.join(args.mirror, spec["repo"].replace("/", "+"), "repo")
        if not os.path.isdir(clone):
            print(f"{spec['repo']}: no clone at {clone}")
            continue
        write(spec, clone)


if __name__ == "__main__":
    main()
