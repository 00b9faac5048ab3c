#!/usr/bin/env python3
"""Release-notes drafts beside the notes projects published, release by release.

For each release of a repository whose notes name PRs in a Highlights section
(vllm-ascend: docs/source/user_guide/release_notes.md; dask:
docs/source/changelog.rst), drafts `mergelens notes` for the release's range
(the first-parent merges of main between the merge bases of the previous
release and this one) under several judgments, and prints per release:

- their Highlights: how many PRs they name, how many of those merged on main
  inside the range (the rest were cherry-picked or merged elsewhere);
- per judgment: the draft's highlight bullets, the PRs they cite, highlight
  recall (PRs of their Highlights, in the range, that the draft's bullets cite;
  and how many of their bullets share a PR with the draft's bullets), and the
  draft's length against theirs (non-empty lines; bullets).

Judgments (each a store, or a copy of one, prepared by bench/release_notes.sh):
  --variant "LABEL=DB"          notes as drafted from DB (themes: the model's
                                when DB holds a theme pass for the range, else
                                the analysis's)
  --variant "LABEL=DB:per-pr"   one highlight per PR by its own judgment
  changed lines                 always: the 8 biggest PRs of the range (lines
                                added + removed), one bullet each, from the
                                first variant's DB

Usage:
  bench/release_notes.py --binary build/mergelens --kind vllm-ascend \\
      --clone /work/.mirror/vllm-project+vllm-ascend/repo \\
      --releases v0.21.0rc1,v0.22.1rc1 --variant "analysis=va.db" ...
Never point it at sglang: its release notes are held out.
"""
import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys

KINDS = {
    "vllm-ascend": {"notes": "docs/source/user_guide/release_notes.md",
                    "web": "https://github.com/vllm-project/vllm-ascend"},
    "dask": {"notes": "docs/source/changelog.rst", "web": "https://github.com/dask/dask"},
}


def git(repo, *a):
    return subprocess.run(["git", "-C", repo, *a], check=True, capture_output=True,
                          text=True).stdout.strip()


# ---- their notes ---------------------------------------------------------

def md_section(text, release):
    """vllm-ascend: the lines of '## release ...' up to the next '## '."""
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


def md_highlights(lines):
    out, inside = [], False
    for line in lines:
        if line.startswith("### "):
            inside = line[4:].strip().lower() == "highlights"
            continue
        if inside:
            out.append(line)
    return out


def rst_section(text, release):
    """dask: the lines of the 'release' section (title underlined by '---')."""
    lines = text.splitlines()
    out, inside = [], False
    for i, line in enumerate(lines):
        under = lines[i + 1] if i + 1 < len(lines) else ""
        if re.fullmatch(r"-{4,}", under.strip()) and line.strip():
            if inside:
                break
            inside = line.strip() == release
            continue
        if inside and not re.fullmatch(r"-{4,}", line.strip()) and not line.startswith(".. _v"):
            out.append(line)
    return out


def rst_highlights(lines):
    out, inside = [], False
    for i, line in enumerate(lines):
        under = lines[i + 1] if i + 1 < len(lines) else ""
        if re.fullmatch(r"\^{4,}", under.strip()):
            inside = line.strip().lower() == "highlights"
            continue
        if re.fullmatch(r"\^{4,}", line.strip()):
            continue
        if line.startswith(".. dropdown::"):
            inside = False
        if inside:
            out.append(line)
    return out


def bullets(lines, numbers):
    """Their highlight bullets as lists of PR numbers (a paragraph is a bullet)."""
    out, cur = [], None
    for line in lines:
        if line.lstrip().startswith(("- ", "* ")) and not line.startswith("    "):
            if cur is not None:
                out.append(cur)
            cur = line
        elif line.strip() and cur is not None:
            cur += " " + line
        elif line.strip():
            cur = line
        else:
            if cur is not None:
                out.append(cur)
            cur = None
    if cur is not None:
        out.append(cur)
    return [prs for prs in (numbers(b) for b in out) if prs]


def numbers_md(text):
    seen = []
    for n in re.findall(r"/pull/(\d+)|(?<![\w/])#(\d+)", text):
        v = int(n[0] or n[1])
        if v not in seen:
            seen.append(v)
    return seen


def numbers_rst(text):
    seen = []
    for n in re.findall(r":pr:`(\d+)`", text):
        if int(n) not in seen:
            seen.append(int(n))
    return seen


def theirs(kind, clone, release):
    cfg = KINDS[kind]
    text = git(clone, "show", f"main:{cfg['notes']}")
    if kind == "dask":
        section = rst_section(text, release)
        hl = rst_highlights(section)
        nums = numbers_rst
    else:
        section = md_section(text, release)
        hl = md_highlights(section)
        nums = numbers_md
    if not section:
        sys.exit(f"no section for {release} in {cfg['notes']}")
    bl = bullets(hl, nums)
    prs = []
    for b in bl:
        prs += [n for n in b if n not in prs]
    return {"lines": len([ln for ln in section if ln.strip()]), "bullets": bl, "prs": prs}


# ---- the drafts ------------------------------------------------------------

def draft(binary, db, clone, start, end, web, per_pr):
    base = [binary, "--db", db, "notes", "--from", start, "--to", end, "--git", clone,
            "--lang", "en", "--web-base", web]
    if per_pr:
        base.append("--per-pr")
    md = subprocess.run(base, check=True, capture_output=True, text=True).stdout
    js = json.loads(subprocess.run(base + ["--format", "json"], check=True,
                                   capture_output=True, text=True).stdout)
    return md, js


def ref_number(ref):
    return int(ref[1:]) if ref.startswith("#") else None


def measure(cited_bullets, their, in_range):
    cited = {n for b in cited_bullets for n in b}
    hl_in = [n for n in their["prs"] if n in in_range]
    hits = [n for n in hl_in if n in cited]
    bullets_hit = sum(1 for b in their["bullets"] if any(n in cited for n in b))
    return {"bullets": len(cited_bullets), "cited": len(cited), "hits": len(hits),
            "hl_in": len(hl_in), "bullets_hit": bullets_hit,
            "recall": len(hits) / len(hl_in) if hl_in else float("nan")}


def triaged(db, numbers):
    """How many of the range's changes (by PR number) the model's day triage judged."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    n = 0
    for num in numbers:
        n += con.execute("SELECT count(*) FROM triage t JOIN changes c ON c.id = t.change_id "
                         "WHERE c.number = ?", (num,)).fetchone()[0] > 0
    con.close()
    return n


def candidates_among(db, start, end, prs):
    """Of their highlighted PRs, how many the theme pass showed the model (its candidates)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    row = con.execute("SELECT doc FROM themes WHERE span = ?", (f"revs:{start}..{end}",)).fetchone()
    ids = json.loads(row[0])["candidates"] if row else []
    found = 0
    for n in prs:
        r = con.execute("SELECT id FROM changes WHERE number = ?", (n,)).fetchone()
        found += bool(r and r[0] in ids)
    con.close()
    return {"candidates": len(ids), "their_prs_among": found}


def markdown(kind, results):
    """One table for README: a row per release and judgment."""
    out = ["| release | changes | their Highlights: bullets / PRs (in range) / lines | judgment "
           "| bullets | PRs cited | recall of their PRs | by chance | their bullets hit | draft lines |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for row in results:
        first = True
        for label, m in row["judgments"].items():
            rec = "n/a" if m["hl_in"] == 0 else f"{m['hits']}/{m['hl_in']} = {m['recall']:.2f}"
            if "triage" in label and m.get("triaged", 0) * 10 < row["prs_in_range"]:
                continue  # no day triage answered for this range: the analysis again
            notes = []
            if m.get("triaged"):
                notes.append(f"triage judged {m['triaged']} of {row['prs_in_range']} PRs")
            if "ceiling" in m:
                c = m["ceiling"]
                notes.append(f"{c['their_prs_among']} of their PRs among its {c['candidates']} "
                             f"candidates")
            note = f" ({'; '.join(notes)})" if notes else ""
            head = (f"{kind} {row['release']} | {row['merged']} | {row['their_bullets']} / "
                    f"{row['their_prs']} ({row['their_in_range']}) / {row['their_lines']}"
                    if first else " | | ")
            # Recall expected of as many PRs of the range drawn at random.
            chance = m["cited"] / row["prs_in_range"] if row["prs_in_range"] else 0
            out.append(f"| {head} | {label}{note} | {m['bullets']} | {m['cited']} | {rec} | "
                       f"{min(chance, 1):.2f} | {m['bullets_hit']}/{row['their_bullets']} | "
                       f"{m['lines']} |")
            first = False
    # Over the releases: their highlighted PRs found, pooled.
    pooled = {}
    for row in results:
        for label, m in row["judgments"].items():
            if "triage" in label and m.get("triaged", 0) * 10 < row["prs_in_range"]:
                continue
            p = pooled.setdefault(label, [0, 0, 0, 0, 0, 0, 0, 0.0])
            p[7] += min(m["cited"] / row["prs_in_range"], 1) * m["hl_in"] if row["prs_in_range"] else 0
            p[0] += m["hits"]; p[1] += m["hl_in"]; p[2] += m["bullets_hit"]
            p[3] += row["their_bullets"]; p[4] += m["lines"]; p[5] += row["their_lines"]
            p[6] += 1
    for label, p in pooled.items():
        rec = f"{p[0]}/{p[1]} = {p[0] / p[1]:.2f}" if p[1] else "n/a"
        chance = f"{p[7] / p[1]:.2f}" if p[1] else "n/a"
        out.append(f"| {kind}, {p[6]} release{'s' if p[6] != 1 else ''} pooled | | | {label} | | | "
                   f"{rec} | {chance} | {p[2]}/{p[3]} | {p[4]} vs {p[5]} |")
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--kind", choices=sorted(KINDS), required=True)
    p.add_argument("--clone", required=True)
    p.add_argument("--releases", required=True, help="comma-separated, oldest first")
    p.add_argument("--previous", help="the release before the first one (default: the tag "
                                      "before it in creation order)")
    p.add_argument("--variant", action="append", default=[], help="LABEL=DB[:per-pr]")
    p.add_argument("--out", help="write each draft's Markdown into this folder")
    p.add_argument("--json", help="write the figures as JSON here")
    p.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    a = p.parse_args()
    if "sglang" in a.clone.lower():
        sys.exit("sglang's release notes are held out")
    if not a.variant:
        sys.exit("give at least one --variant LABEL=DB")
    releases = a.releases.split(",")
    tags = git(a.clone, "tag", "--sort=creatordate").split()
    prev = a.previous
    if not prev:
        i = tags.index(releases[0])
        prev = tags[i - 1]
    variants = []
    for v in a.variant:
        label, spec = v.split("=", 1)
        db, _, mode = spec.partition(":")
        variants.append((label, db, mode == "per-pr"))
    web = KINDS[a.kind]["web"]
    results = []
    for rel in releases:
        start = git(a.clone, "merge-base", prev, "main")
        end = git(a.clone, "merge-base", rel, "main")
        their = theirs(a.kind, a.clone, rel)
        row = {"release": rel, "range": f"{start[:10]}..{end[:10]}", "their_lines": their["lines"],
               "their_bullets": len(their["bullets"]), "their_prs": len(their["prs"]),
               "judgments": {}}
        in_range = None
        for label, db, per_pr in variants:
            md, js = draft(a.binary, db, a.clone, start, end, web, per_pr)
            if a.out:
                os.makedirs(a.out, exist_ok=True)
                name = re.sub(r"[^\w.-]", "_", f"{rel}-{label}.md")
                with open(os.path.join(a.out, name), "w") as f:
                    f.write(md)
            everything = [e for t in js["highlights"] for e in t["entries"]]
            everything += [e for s in js["sections"] for t in s["lines"] for e in t["entries"]]
            if in_range is None:
                # Every change of the range, listed or not: `notes --all`.
                full = subprocess.run(
                    [a.binary, "--db", db, "notes", "--from", start, "--to", end, "--git",
                     a.clone, "--format", "json", "--all", "--lang", "en"],
                    check=True, capture_output=True, text=True).stdout
                fj = json.loads(full)
                in_range = {ref_number(e["ref"]) for t in fj["highlights"] for e in t["entries"]}
                in_range |= {ref_number(e["ref"]) for s in fj["sections"] for t in s["lines"]
                             for e in t["entries"]}
                in_range.discard(None)
                row["merged"] = fj["merged"]
                row["their_in_range"] = len([n for n in their["prs"] if n in in_range])
                row["prs_in_range"] = len(in_range)  # `merged` also counts commits without a PR
                # Changed lines: the 8 biggest PRs of the range.
                con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
                sizes = []
                for n in in_range:
                    r = con.execute("SELECT additions + deletions FROM changes WHERE number = ? "
                                    "ORDER BY merged_at DESC LIMIT 1", (n,)).fetchone()
                    if r:
                        sizes.append((r[0], n))
                con.close()
                top = [[n] for _, n in sorted(sizes, reverse=True)[:8]]
                m = measure(top, their, in_range)
                m["lines"] = len(top)
                row["judgments"]["changed lines (8 biggest)"] = m
            cited = [[n for n in (ref_number(e["ref"]) for e in t["entries"]) if n]
                     for t in js["highlights"]]
            m = measure(cited, their, in_range)
            m["lines"] = len([ln for ln in md.splitlines() if ln.strip()])
            m["source"] = js["themes_source"]
            m["triaged"] = triaged(db, in_range)
            if js["themes_source"] == "model":
                m["ceiling"] = candidates_among(db, start, end, their["prs"])
            row["judgments"][label] = m
        results.append(row)
        prev = rel
    for row in results:
        print(f"\n{a.kind} {row['release']} (range {row['range']} on main): {row['merged']} "
              f"changes; their Highlights: {row['their_bullets']} bullets naming "
              f"{row['their_prs']} PRs, {row['their_in_range']} merged in the range; "
              f"their section: {row['their_lines']} lines")
        print(f"  {'judgment':34} {'bullets':>7} {'PRs cited':>9} {'recall':>12} "
              f"{'their bullets hit':>17} {'lines':>6}")
        for label, m in row["judgments"].items():
            rec = "n/a" if m["hl_in"] == 0 else f"{m['hits']}/{m['hl_in']} {m['recall']:.2f}"
            src = f" [{m['source']}]" if "source" in m else ""
            print(f"  {(label + src)[:34]:34} {m['bullets']:>7} {m['cited']:>9} {rec:>12} "
                  f"{m['bullets_hit']:>11}/{row['their_bullets']:<5} {m['lines']:>6}")
    if a.markdown:
        print()
        print(markdown(a.kind, results))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
