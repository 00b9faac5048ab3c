#!/usr/bin/python3
"""Fit the importance weights on many repositories' release notes, validate
them leaving each repository out, and fit the calibrated 1-10 scale of both
scores; write them to src/mergelens/analysis/judgment/score_fitted.h
(issues 21 and 32 item 5).

Importance: every feature of importance.cc / importance_more.cc is stored per
change (facts.scores.importance_features). Labels: for each repository of
labelled.tsv, labels/OWNER+NAME.tsv (labels.py) gives each release's pool and
the PRs its highlight sections name; the universe is the PRs of the pools
whose highlights name a PR. The fit is an L2-regularised logistic regression
of "a release's highlights name this PR" with one intercept per repository
(a repository's base rate says nothing about another's PRs), each repository
weighing the same. Title words enter as features when they occur in the
titles of at least MIN_WORD_REPOS training repositories.

Validation, in the same run: leave each repository out (fit on the others,
ROC AUC and hits in the top k on it, k = its positives), beside the
importance stored by the current build (--current DIR), the hand-set
weights of analyzer 8 (recomputed from the same stored rules) and changed
lines, on the same PRs; the
same with feature groups left out, to say what transfers; and a split in
time (each repository's older pools join the others' for the fit, the newer
pools are the test) against the fit without its own notes.

Scale: the raw importance and insight of every PR of the --scale stores,
each repository weighing the same, cut at the shares of docs/judgment.md
(levels 1-10: 14, 14, 17.5, 17.5, 12.5, 12.5, 5, 5, 1.3, 0.7 %); the cut of 9
is the smallest value with at most 2 % at or above it pooled and at most
2.5 % in any one repository. Never sglang, for labels or for the scale.

  /usr/bin/python3 bench/judgment/fit_scale.py --stores DIR [--current DIR] \\
      [--scale-extra DB,OWNER/NAME ...] [--write src/mergelens/analysis/judgment/score_fitted.h] \\
      [--table bench/judgment/loo.md]

DIR holds OWNER+NAME.db stores (ingested and analysed). Needs numpy.
"""

import argparse
import os
import subprocess
import sys
import textwrap

import numpy as np

import facts_lib as fl
import fitlib
import labels as lb

SHARES = [14, 14, 17.5, 17.5, 12.5, 12.5, 5, 5, 1.3, 0.7]  # % per level 1..10
TOP_SHARE = 2.0  # % at 9-10 the cut of 9 allows at most, pooled
REPO_TOP = 2.5   # ... and in any one repository
L2 = 3.0         # penalty on each rule's weight (per 1,000 PRs of weight, see fitlib.fit)
L2_WORDS = 6.0   # ... on each title word's
MIN_WORD_REPOS = 5
MAX_WORDS = 120  # the words in most training repositories' titles, at most this many
GROUPS = {  # feature groups, for the ablation
    "title words": lambda n: n.startswith("w:"),
    "paths": lambda n: n.startswith("share_") or n in ("adds_files", "adds_defs"),
    "threads": lambda n: n in ("series", "reland", "follows_up", "named_later", "reverts",
                               "reverted_later", "follow_up_later"),
    "size": lambda n: n.startswith("size_"),
}
HIGHLIGHT_EVIDENCE = ("capability", "model_support", "hardware_support", "default_change",
                      "format_change")


def names_for(sets, exclude=()):
    """The features seen in `sets`: every rule, and the title words present in
    at least MIN_WORD_REPOS of them (at most MAX_WORDS, those in the most
    repositories, then in the most PRs)."""
    rules, word_repos, word_prs = set(), {}, {}
    for _, rows in sets:
        seen = set()
        for c in rows:
            for k in fitlib.stored(c):
                if k.startswith("w:"):
                    seen.add(k)
                    word_prs[k] = word_prs.get(k, 0) + 1
                else:
                    rules.add(k)
        for w in seen:
            word_repos[w] = word_repos.get(w, 0) + 1
    common = sorted((w for w, n in word_repos.items() if n >= MIN_WORD_REPOS),
                    key=lambda w: (-word_repos[w], -word_prs[w], w))
    words = set(common[:MAX_WORDS])
    names = sorted(rules | words)
    return [n for n in names if not any(GROUPS[g](n) for g in exclude)]


def train(sets, names, extra=None):
    rows = [c for _, rs in sets for c in rs]
    groups = [r for r, rs in sets for _ in rs]
    x = fitlib.design(rows, names, extra)
    pen = np.array([L2_WORDS if n.startswith("w:") else L2 for n in names])
    w, icpt = fitlib.fit(x, [c["y"] for c in rows], groups, L2, pen)
    return dict(zip(names, w)), float(np.mean(list(icpt.values())))


def raw(c, model, extra=None):
    ws, b = model
    feats = dict(fitlib.stored(c))
    if extra:
        feats.update(extra.get(c["id"], {}))
    return b + sum(ws.get(k, 0.0) * v for k, v in feats.items())


def cuts(values_by_repo):
    """Nine cut points (levels 2..10 start at them) over the pooled values,
    each repository weighing the same."""
    pts = sorted((v, 1.0 / len(vals) / len(values_by_repo))
                 for vals in values_by_repo for v in vals)
    distinct, below, acc = [], [], 0.0
    for v, wt in pts:
        if not distinct or v != distinct[-1]:
            distinct.append(v)
            below.append(acc)
        acc += wt
    idx = []
    for k in range(9):
        cum = sum(SHARES[:k + 1]) / 100
        if k == 7:  # level 9: the smallest value with at most TOP_SHARE % at or above it
            i = next((i for i, b in enumerate(below) if 1 - b <= TOP_SHARE / 100 + 1e-12),
                     len(distinct) - 1)
        else:  # the closest share; a tie at the bottom (no lesson at all) is level 1
            i = min(range(1, len(distinct)), key=lambda i: abs(below[i] - cum))
        if idx:
            i = max(i, idx[-1] + 1)
        idx.append(i)
    by_repo = [np.sort(np.asarray(vals)) for vals in values_by_repo]

    def over(t):  # some repository has more than REPO_TOP % at or above t
        return any(len(v) - np.searchsorted(v, t, "left") > REPO_TOP / 100 * len(v)
                   for v in by_repo)

    while idx[7] < len(distinct) - 1 and over(distinct[idx[7]]):
        idx[7] += 1
    idx[8] = max(idx[8], idx[7] + 1)
    while idx[8] < len(distinct) - 1 and 1 - below[idx[8]] > SHARES[9] / 100 + 1e-12:
        idx[8] += 1
    return [distinct[i] if i < len(distinct) else distinct[-1] + (i - len(distinct) + 1)
            for i in idx]


def level(v, cs):
    return 1 + sum(1 for c in cs if v >= c)


def capped(c, lv):
    """The level after scores.cc's caps (clean-up 1; no code on the main path
    at most 3; no highlight evidence at most 8)."""
    f = fitlib.stored(c)
    if c["f"].get("cleanup"):
        return 1
    if not c["f"]["scores"].get("code_lines"):
        lv = min(lv, 3)
    ev = any(k in f for k in HIGHLIGHT_EVIDENCE) or ("perf_claim" in f and "reach_core" in f)
    return lv if ev else min(lv, 8)


# The hand-set importance of analyzer 8 (before issue 21's fit), from the same
# stored rules: 1 + the points of each dimension, each dimension capped.
HAND_SET = {  # rule: (dimension, points)
    "main_path": ("reach", 1), "reach_some": ("reach", 1), "reach_wide": ("reach", 2),
    "reach_core": ("reach", 3), "modules_broad": ("reach", 1), "kernel": ("reach", 1),
    "size_some": ("size", 1), "size_many": ("size", 2),
    "default_change": ("behaviour", 2), "user_switch": ("behaviour", 1),
    "public_api": ("behaviour", 1), "format_change": ("behaviour", 1),
    "model_support": ("support", 2), "hardware_support": ("support", 1),
    "capability": ("support", 2),
    "perf_claim": ("evidence", 1), "bugfix": ("evidence", 1), "fixes_reported": ("evidence", 1),
    "correctness_paths": ("evidence", 1), "reverts": ("evidence", 1),
    "reverted_later": ("evidence", 1), "follow_up_later": ("evidence", 1),
}
HAND_CAPS = {"reach": 3, "size": 2, "behaviour": 2, "support": 2, "evidence": 2}


def hand_set(c):
    """The analyzer-8 importance level of `c` (e547158^: importance.cc, scores.cc)."""
    pts = dict.fromkeys(HAND_CAPS, 0)
    for k in fitlib.stored(c):
        if k in HAND_SET:
            pts[HAND_SET[k][0]] += HAND_SET[k][1]
    v = 1 + sum(min(p, HAND_CAPS[d]) for d, p in pts.items())
    if c["f"].get("cleanup"):
        return 1
    if not c["f"]["scores"].get("code_lines"):
        v = min(v + 1, 3)
    return max(1, min(10, v))


def insight(c):
    return c["f"]["scores"].get("insight", 0)


def figures(rows, score):
    """(AUC, hits in the top k, per-pool mean AUC) of `score` (a key per row)."""
    lab = [c["y"] for c in rows]
    keys = [score(c) for c in rows]
    first = [k[0] if isinstance(k, tuple) else k for k in keys]
    pools = fitlib.pool_aucs(first, rows)
    return (fitlib.auc(first, lab), fitlib.top_hits(keys, lab, sum(lab)),
            sum(pools) / len(pools) if pools else float("nan"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stores", required=True, help="folder of OWNER+NAME.db, this build")
    ap.add_argument("--current", help="folder of the same stores analysed by the current main")
    ap.add_argument("--scale-extra", action="append", default=[],
                    help="DB,OWNER/NAME: a further repository for the scale only")
    ap.add_argument("--write", help="the header to write")
    ap.add_argument("--table", help="write the leave-one-out table (Markdown) here")
    ap.add_argument("--only", nargs="*", default=[], help="these repositories only")
    ap.add_argument("--fit-only", action="store_true",
                    help="no validation: fit, cut and write the header")
    ap.add_argument("--keep-insight-cuts", action="store_true",
                    help="keep the insight cut points of the header being rewritten")
    ap.add_argument("--test", nargs="*", default=[],
                    help="leave out only these repositories (the others still train)")
    ap.add_argument("--parts", default="loo,groups,themes,split",
                    help="the validations to run (comma-separated)")
    args = ap.parse_args()
    parts = set() if args.fit_only else set(args.parts.split(","))

    sets, all_rows = [], {}
    for spec in lb.specs():
        repo = spec["repo"]
        if "sglang" in repo.lower():
            sys.exit("sglang is held out: its release notes judge, they do not fit")
        db = os.path.join(args.stores, repo.replace("/", "+") + ".db")
        if not os.path.exists(db) or not os.path.exists(lb.label_path(repo)):
            print(f"{repo}: no store or no labels, left out")
            continue
        if args.only and not any(o in repo for o in args.only):
            continue
        rows = fitlib.load(db, repo)
        all_rows[repo] = rows
        lab = fitlib.labelled(rows, lb.read_labels(repo))
        print(f"{repo}: {len(rows)} PRs stored; {len(lab)} in labelled pools, "
              f"{sum(c['y'] for c in lab)} highlighted")
        if sum(c["y"] for c in lab) >= 5:
            sets.append((repo, lab))
    other = {}
    for name, folder in (("current", args.current),):
        other[name] = {}
        if not folder:
            continue
        for repo, _ in sets:
            db = os.path.join(folder, repo.replace("/", "+") + ".db")
            if os.path.exists(db):
                other[name][repo] = {c["number"]: c for c in fitlib.load(db, repo)}

    def scale_values(model, repos):
        return [[(-1e9 if c["f"].get("cleanup") else raw(c, model)) for c in all_rows[r]]
                for r in repos]

    # Leave one repository out.
    print(f"\nleave one repository out ({len(sets)} labelled repositories):")
    table, ablation, split = [], [], []
    for i, (repo, test) in enumerate(sets if "loo" in parts else []):
        if args.test and not any(t in repo for t in args.test):
            continue
        rest = sets[:i] + sets[i + 1:]
        model = train(rest, names_for(rest))
        cs = cuts(scale_values(model, [r for r, _ in rest]))
        new_raw = figures(test, lambda c: raw(c, model))
        new_lvl = figures(test, lambda c: (capped(c, level(raw(c, model), cs)), insight(c)))
        row = {"repo": repo, "n": len(test), "pos": sum(c["y"] for c in test),
               "pools": len({c["pool"] for c in test}), "new_raw": new_raw, "new_lvl": new_lvl,
               "size": figures(test, fitlib.size)}
        row["old"] = figures(test, lambda c: (hand_set(c), insight(c)))
        for name in ("current",):
            ref = other[name].get(repo)
            if ref and all(c["number"] in ref for c in test):
                row[name] = figures(test, lambda c: (ref[c["number"]]["f"]["scores"]["importance"],
                                                     insight(ref[c["number"]])))
        table.append(row)
        print(f"  {repo:<32} PRs {row['n']:>5} pos {row['pos']:>4}  new raw "
              f"{new_raw[0]:.3f}/{new_raw[1]}  level {new_lvl[0]:.3f}/{new_lvl[1]}  current "
              + (f"{row['current'][0]:.3f}/{row['current'][1]}" if "current" in row else "-")
              + "  old " + (f"{row['old'][0]:.3f}/{row['old'][1]}" if "old" in row else "-")
              + f"  changed lines {row['size'][0]:.3f}/{row['size'][1]}")

    # What transfers: the same, each feature group left out.
    print("\nfeature groups left out (mean leave-one-out AUC, raw; worst margin over changed lines):")
    for drop in [(g,) for g in GROUPS] if "groups" in parts else []:
        aucs, margins = [], []
        for i, (repo, test) in enumerate(sets):
            rest = sets[:i] + sets[i + 1:]
            model = train(rest, names_for(rest, drop))
            a = fitlib.auc([raw(c, model) for c in test], [c["y"] for c in test])
            aucs.append(a)
            margins.append(a - fitlib.auc([fitlib.size(c) for c in test],
                                          [c["y"] for c in test]))
        label = drop[0]
        ablation.append((label, sum(aucs) / len(aucs), min(margins)))
        print(f"  without {label:<12} mean AUC {ablation[-1][1]:.3f}  worst margin "
              f"{ablation[-1][2]:+.3f}")

    # Themes over a window (offline, from titles): measured, not shipped.
    extra = {}
    for repo, rows in all_rows.items() if "themes" in parts else []:
        extra.update(fitlib.theme_features(rows))
    aucs = []
    for i, (repo, test) in enumerate(sets if "themes" in parts else []):
        rest = sets[:i] + sets[i + 1:]
        names = names_for(rest) + ["theme_shared"]
        model = train(rest, names, extra)
        aucs.append(fitlib.auc([raw(c, model, extra) for c in test], [c["y"] for c in test]))
    if aucs:
        print(f"  with theme_shared (window) mean AUC {sum(aucs) / len(aucs):.3f}; per "
              "repository " + ", ".join(f"{a:.3f}" for a in aucs))

    # A repository's own older notes: split in time.
    print("\nsplit in time (the newer half of a repository's pools is the test):")
    for i, (repo, rows) in enumerate(sets if "split" in parts else []):
        pools = sorted({c["pool"] for c in rows})
        if len(pools) < 4:
            continue
        cut = pools[len(pools) // 2]
        older = [c for c in rows if c["pool"] < cut]
        newer = [c for c in rows if c["pool"] >= cut]
        if sum(c["y"] for c in older) < 5 or sum(c["y"] for c in newer) < 3:
            continue
        rest = sets[:i] + sets[i + 1:]
        lab = [c["y"] for c in newer]
        m_rest = train(rest, names_for(rest))
        m_own = train(rest + [(repo, older)], names_for(rest + [(repo, older)]))
        r = (repo, len(newer), sum(lab),
             fitlib.auc([raw(c, m_rest) for c in newer], lab),
             fitlib.auc([raw(c, m_own) for c in newer], lab),
             fitlib.auc([fitlib.size(c) for c in newer], lab))
        split.append(r)
        print(f"  {repo:<32} test PRs {r[1]:>5} pos {r[2]:>4}  others only {r[3]:.3f}  "
              f"+ own older notes {r[4]:.3f}  changed lines {r[5]:.3f}")

    # The weights to ship: every labelled repository.
    names = names_for(sets)
    model = train(sets, names)
    counts = {n: sum(1 for _, rs in sets for c in rs if fitlib.stored(c).get(n)) for n in names}
    print(f"\nweights (all {sum(len(r) for _, r in sets)} labelled PRs of {len(sets)} repositories;"
          f" intercept {model[1]:+.3f}):")
    for n in sorted(names, key=lambda n: -abs(model[0][n]))[:60]:
        print(f"  {n:<24} {model[0][n]:+.3f}  (in {counts[n]} PRs)")

    scale_repos = list(all_rows)
    imp_vals = scale_values(model, scale_repos)
    ins_vals = [[c["f"]["scores"].get("insight_raw", 0.0) for c in all_rows[r]]
                for r in scale_repos]
    for spec in args.scale_extra:
        db, repo = spec.split(",")[:2]
        if "sglang" in repo.lower():
            sys.exit("sglang is held out of the scale")
        rows = fitlib.load(db, repo)
        scale_repos.append(repo)
        imp_vals.append([(-1e9 if c["f"].get("cleanup") else raw(c, model)) for c in rows])
        ins_vals.append([c["f"]["scores"].get("insight_raw", 0.0) for c in rows])
    imp_cuts, ins_cuts = cuts(imp_vals), cuts(ins_vals)
    if args.write and args.keep_insight_cuts and os.path.exists(args.write):
        # The insight scale stays as fitted before (issue 21): only the importance is refitted.
        text = open(args.write).read()
        body = text[text.index("kInsightCuts[9] = {") + 19:]
        ins_cuts = [float(v) for v in body[:body.index("}")].split(",")]
    dist = []
    for repo, imp, ins in zip(scale_repos, imp_vals, ins_vals):
        for name, vals, cs in (("importance", imp, imp_cuts), ("insight", ins, ins_cuts)):
            h = [0] * 10
            for v in vals:
                h[level(v, cs) - 1] += 1
            dist.append(f"{repo} ({len(vals)} PRs) {name} 1-10 (before caps): "
                        f"{', '.join(map(str, h))}; 9-10 {100 * (h[8] + h[9]) / len(vals):.1f} %")
            print(" ", dist[-1])
    if args.table:
        write_table(args.table, table, ablation, split)
    if args.write:
        write_header(args.write, model, names, counts, imp_cuts, ins_cuts, table, dist, sets)
        print("wrote", args.write)
    print("command:", fl.command_line(sys.argv))


def write_table(path, table, ablation, split):
    def f3(t):
        return f"{t[0]:.3f} / {t[1]}" if t else "–"

    out = ["| left out (PRs, highlighted, pools) | new, level | new, raw | current | "
           "hand-set (analyzer 8) | changed lines |", "|---|---|---|---|---|---|"]
    for r in table:
        out.append(f"| {r['repo']} ({r['n']}, {r['pos']}, {r['pools']}) | **{f3(r['new_lvl'])}** | "
                   f"{f3(r['new_raw'])} | {f3(r.get('current'))} | {f3(r.get('old'))} | "
                   f"{f3(r['size'])} |")
    out += ["", "| feature group left out | mean AUC | worst margin over changed lines |",
            "|---|---|---|"]
    out += [f"| {g} | {a:.3f} | {m:+.3f} |" for g, a, m in ablation]
    out += ["", "| split in time: newer pools of | PRs (highlighted) | others' notes only | "
            "+ its older notes | changed lines |", "|---|---|---|---|---|"]
    out += [f"| {r[0]} | {r[1]} ({r[2]}) | {r[3]:.3f} | {r[4]:.3f} | {r[5]:.3f} |" for r in split]
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


def write_header(path, model, names, counts, imp_cuts, ins_cuts, table, dist, sets):
    ws, b = model
    n_rows = sum(len(r) for _, r in sets)
    n_pos = sum(c["y"] for _, r in sets for c in r)
    out = ["// Written by bench/judgment/fit_scale.py: do not edit by hand, run the script",
           "// (bench/README.md, \"Importance fitted on many repositories\", gives the command).",
           "//",
           f"// Importance weights: L2-regularised logistic regression (L2 {L2}, title words "
           f"{L2_WORDS}) of \"a release's highlights name the PR\" on {n_rows} PRs of "
           f"{len(sets)} repositories ({n_pos} positives), one intercept per repository, each "
           "weighing the same: " + ", ".join(r for r, _ in sets) + ".",
           "// Leaving each repository out (fit on the others), ROC AUC on it, the level after "
           "the caps / changed lines:"]
    for r in table:
        out.append(f"//   {r['repo']}: {r['new_lvl'][0]:.3f} / {r['size'][0]:.3f}")
    if not table:
        out.append("//   (bench/README.md, \"Importance fitted on many repositories\")")
    out += ["//",
            "// Scale: cuts at the shares of docs/judgment.md (1-10: "
            + ", ".join(f"{s:g}" for s in SHARES) + " %), each repository weighing the same;",
            "// level 9 starts where at most 2 % are at or above (2.5 % in any repository).",
            "// Levels before the caps (the caps only lower them):"]
    out += [f"//   {line}" for line in dist]
    out += ["#pragma once", "", "#include <string_view>", "",
            "namespace mergelens::score_fitted {", "",
            "struct Weight {", "  std::string_view feature;", "  double weight;", "};", "",
            f"inline constexpr double kImportanceIntercept = {b:.4f};",
            "// Sorted by feature name (importance.cc looks them up by binary search); a title",
            "// word is \"w:WORD\".",
            "inline constexpr Weight kImportanceWeights[] = {"]
    for n in names:
        if abs(ws[n]) >= 5e-5:
            out.append(f"    {{\"{n}\", {ws[n]:.4f}}},  // in {counts[n]} PRs")
    out += ["};",
            "// Level k + 2 starts at cut k (raw ≥ cut): the raw importance (log-odds) ...",
            "inline constexpr double kImportanceCuts[9] = {"
            + ", ".join(f"{c:.4f}" for c in imp_cuts) + "};",
            "// ... and the raw insight (density, insight.cc).",
            "inline constexpr double kInsightCuts[9] = {"
            + ", ".join(f"{c:.4f}" for c in ins_cuts) + "};",
            "", "}  // namespace mergelens::score_fitted", ""]
    wrapped = []
    for line in out:  # comments within the 100 columns of .clang-format
        if line.startswith("//") and len(line) > 100:
            lead = "//     " if line.startswith("//   ") else "// "
            wrapped += textwrap.wrap(line, 100, subsequent_indent=lead,
                                     break_long_words=False, break_on_hyphens=False)
        else:
            wrapped.append(line)
    with open(path, "w") as fh:
        fh.write("\n".join(wrapped))
    try:  # the project's style (.clang-format), when the tool is there
        subprocess.run(["clang-format", "-i", path], check=False)
    except OSError:
        pass


if __name__ == "__main__":
    main()
